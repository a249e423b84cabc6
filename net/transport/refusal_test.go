package transport

import (
	"net/netip"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/wire"
)

// outbox is a Writer that keeps what an endpoint sent, for a test to deliver (or lose) by hand.
type outbox struct{ sent [][]byte }

func (o *outbox) WriteTo(b []byte, _ netip.AddrPort) error {
	o.sent = append(o.sent, append([]byte(nil), b...))
	return nil
}

func (o *outbox) take() [][]byte {
	d := o.sent
	o.sent = nil
	return d
}

// TestRefusedAtOnceClientReadsWhy: the server's owner refuses a player the moment it connects
// (a taken name), so the Accepted and the sealed Disconnect go out back to back. Whatever the
// link does to the Accepted (lost, or overtaken by the Disconnect), the client ends with the
// server's reason, not a timeout or a "bad challenge".
func TestRefusedAtOnceClientReadsWhy(t *testing.T) {
	const why = `name "ann" is taken (seat 2)`
	srvAddr := netip.MustParseAddrPort("10.0.0.1:7777")
	cliAddr := netip.MustParseAddrPort("10.0.0.2:50000")
	for _, tt := range []struct {
		name    string
		deliver func(accepted []byte, byes [][]byte) [][]byte // what of the server's answer arrives, in order
	}{
		{"in order", func(acc []byte, byes [][]byte) [][]byte { return append([][]byte{acc}, byes...) }},
		{"Disconnects first", func(acc []byte, byes [][]byte) [][]byte { return append(byes, acc) }},
		{"one Disconnect overtakes, the rest lost", func(acc []byte, byes [][]byte) [][]byte { return [][]byte{byes[2], acc} }},
		{"Accepted lost", func(_ []byte, _ [][]byte) [][]byte { return nil }},
		{"everything lost but the Accepted", func(acc []byte, _ [][]byte) [][]byte { return [][]byte{acc} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			now := time.UnixMilli(1_700_000_000_000)
			var sout, cout outbox
			var srv *Server
			srv = NewServer(ServerConfig{Config: Config{OnConnect: func(p *Peer, now time.Time) { srv.Kick(p, now, why) }}}, &sout)
			cli, err := NewClient(srvAddr, ClientConfig{Config: Config{}, Name: "ann"}, &cout)
			if err != nil {
				t.Fatal(err)
			}
			toServer := func() {
				for _, b := range cout.take() {
					srv.Handle(now, Datagram{From: cliAddr, Data: b})
				}
			}
			toClient := func(ds [][]byte) {
				for _, b := range ds {
					cli.Handle(now, Datagram{From: srvAddr, Data: b})
				}
			}
			cli.Tick(now) // the request
			toServer()
			toClient(sout.take()) // the challenge
			toServer()            // the response: accepted, and kicked at once
			answer := sout.take()
			if len(answer) != 1+disconnectCopies {
				t.Fatalf("the server answered with %d datagrams, want the Accepted and %d Disconnects", len(answer), disconnectCopies)
			}
			toClient(tt.deliver(answer[0], answer[1:]))
			// Until the client has its answer it asks again, and the server answers again.
			for i := 0; cli.State() != Disconnected && i < 50; i++ {
				now = now.Add(100 * time.Millisecond)
				cli.Tick(now)
				toServer()
				srv.Tick(now)
				toClient(sout.take())
			}
			if cli.State() != Disconnected {
				t.Fatalf("the client is still %v after 5 s", cli.State())
			}
			if cli.reason != wire.DisconnectKicked || cli.text != why {
				t.Errorf("the client ended with %v %q (err %v), want %v %q", cli.reason, cli.text, cli.Err(), wire.DisconnectKicked, why)
			}
			srv.Tick(now.Add(time.Second))
			if st := srv.Stats(); st.Accepted != 1 {
				t.Errorf("%d connections accepted, want 1 (an answer again is no new connection)", st.Accepted)
			}
		})
	}
}
