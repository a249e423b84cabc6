package transport

import (
	"testing"
)

// BenchmarkSocketRoundTrip: one datagram of 100 bytes there and back between two sockets on
// loopback, each read by its reader goroutine and handed to the loop, per operation: a plain
// socket, and one with a link conditioner of zero settings, the pass-through every client's
// socket has (game/hostloop) so that the teacher's class link can land on it. The difference
// is what the pass-through costs: four passes a round trip (out and in, on each side).
func BenchmarkSocketRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name string
		link *LinkSettings
	}{{"no conditioner", nil}, {"zero conditioner", &LinkSettings{}}} {
		b.Run(tc.name, func(b *testing.B) {
			a, err := OpenSocket("127.0.0.1:0", SocketOptions{Link: tc.link})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			z, err := OpenSocket("127.0.0.1:0", SocketOptions{Link: tc.link})
			if err != nil {
				b.Fatal(err)
			}
			defer z.Close()
			za, aa := z.LocalAddr(), a.LocalAddr()
			msg := make([]byte, 100)
			b.ReportAllocs()
			for b.Loop() {
				if err := a.WriteTo(msg, za); err != nil {
					b.Fatal(err)
				}
				d := <-z.Datagrams()
				if err := z.WriteTo(d.Data, aa); err != nil {
					b.Fatal(err)
				}
				z.Release(d)
				a.Release(<-a.Datagrams())
			}
		})
	}
}
