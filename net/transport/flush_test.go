package transport

import (
	"bytes"
	"slices"
	"testing"
)

// TestFlushCutsPackets: Flush sends what the connections have queued at once, so that what is
// sent after it leaves in a packet of its own; without it, the next Tick packs both together.
func TestFlushCutsPackets(t *testing.T) {
	for _, tt := range []struct {
		name      string
		flush     bool
		datagrams int
	}{
		{"one packet without Flush", false, 1},
		{"a packet each with Flush between", true, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newSealedPairWith(t, Config{})
			p.srvOut.take()
			conn := p.srv.Peers()[0].Conn()
			if _, err := conn.SendGuaranteed(p.now, []byte("spawn"), nil, nil); err != nil {
				t.Fatal(err)
			}
			if tt.flush {
				p.srv.Flush(p.now)
			}
			if _, err := conn.SendGuaranteed(p.now, []byte("kill"), nil, nil); err != nil {
				t.Fatal(err)
			}
			p.srv.Tick(p.now)
			sent := p.srvOut.take()
			if len(sent) != tt.datagrams {
				t.Errorf("%d datagrams, want %d", len(sent), tt.datagrams)
			}
			for _, d := range sent {
				p.cli.Handle(p.now, Datagram{From: p.srvAddr, Data: bytes.Clone(d)})
			}
			if !slices.Equal(p.cliGot, []string{"spawn", "kill"}) {
				t.Errorf("the client got %q, want both, in order", p.cliGot)
			}
		})
	}
}
