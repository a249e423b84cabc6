package record

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// TestRecordIPv6: a host on an IPv6 socket records its datagrams with IPv6 headers, its key
// file names the addresses as [::1]:port, and the Reader opens the sealed datagrams of both
// directions with those keys, for a loopback and a global address alike.
func TestRecordIPv6(t *testing.T) {
	for _, tc := range []struct{ local, peer string }{
		{"[::1]:50432", "[::1]:7777"},
		{"[2001:db8::2]:50432", "[2001:db8::1]:7777"},
	} {
		t.Run(tc.peer, func(t *testing.T) {
			local, peer := netip.MustParseAddrPort(tc.local), netip.MustParseAddrPort(tc.peer)
			path := filepath.Join(t.TempDir(), "v6.pcapng")
			r, err := Create(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			req, err := wire.AppendConnectRequest(nil, &wire.ConnectRequest{Version: wire.ProtocolVersion, Player: wire.PlayerID{6}, Name: "six"})
			if err != nil {
				t.Fatal(err)
			}
			plain := append(wire.BeginDatagram(nil), req...)
			wire.SealDatagram(plain, 0)
			data := wire.AppendHeader(nil, wire.Header{Type: wire.TypeData, Seq: 3})
			out := wire.NewSealKey(&exampleKeys[0].Key).Seal(append(wire.BeginSealed(nil), data...), 0, 0)
			in := wire.NewSealKey(&exampleKeys[1].Key).Seal(append(wire.BeginSealed(nil), data...), 0, 0)
			at := time.Unix(1700000000, 0)
			r.Tapped(transport.TappedDatagram{At: at, Out: true, Local: local, Peer: peer, Data: plain})
			r.KeyLog(transport.ConnKeys{Peer: peer, Send: exampleKeys[0].Key, Recv: exampleKeys[1].Key})
			r.Tapped(transport.TappedDatagram{At: at.Add(time.Millisecond), Out: true, Local: local, Peer: peer, Data: out})
			r.Tapped(transport.TappedDatagram{At: at.Add(2 * time.Millisecond), Fate: transport.TapDropped, Local: local, Peer: peer, Data: in})
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			keys, err := os.ReadFile(KeysPath(path))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(keys), " "+tc.local+" "+tc.peer+" ") || !strings.Contains(string(keys), " "+tc.peer+" "+tc.local+" ") {
				t.Errorf("key file:\n%s\nwant lines for %s → %s and back", keys, tc.local, tc.peer)
			}
			all, err := ReadAll(path, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 3 {
				t.Fatalf("%d datagrams, want 3", len(all))
			}
			for i, d := range all {
				if d.Local != local || d.Peer != peer || !d.Local.Addr().Is6() {
					t.Errorf("datagram %d: %v ↔ %v, want %v ↔ %v", i, d.Local, d.Peer, local, peer)
				}
			}
			if !bytes.Equal(all[0].Packet, req) || all[0].Sealed {
				t.Errorf("the handshake: %x (sealed %v)", all[0].Packet, all[0].Sealed)
			}
			for i, d := range all[1:] {
				if !d.Sealed || !bytes.Equal(d.Packet, data) {
					t.Errorf("sealed datagram %d: opened %v, packet %x; want %x", i+1, d.Sealed, d.Packet, data)
				}
			}
			if all[2].Fate != transport.TapDropped || all[2].Out {
				t.Errorf("the dropped datagram: fate %v, out %v", all[2].Fate, all[2].Out)
			}
		})
	}
}
