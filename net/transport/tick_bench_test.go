package transport

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// hallNet is a network in virtual time with no loss and no delay: one server and its clients,
// each datagram delivered at the next deliver.
type hallNet struct {
	srv     *Server
	srvAddr netip.AddrPort
	clients map[netip.AddrPort]*Client
	queue   []hallDatagram
}

type hallDatagram struct {
	from, to netip.AddrPort
	data     []byte
}

type hallWriter struct {
	n    *hallNet
	from netip.AddrPort
}

func (w hallWriter) WriteTo(b []byte, to netip.AddrPort) error {
	w.n.queue = append(w.n.queue, hallDatagram{w.from, to, append([]byte(nil), b...)})
	return nil
}

func (n *hallNet) deliver(now time.Time) {
	for len(n.queue) > 0 {
		q := n.queue
		n.queue = nil
		for _, d := range q {
			if d.to == n.srvAddr {
				n.srv.Handle(now, Datagram{From: d.from, Data: d.data})
			} else if c := n.clients[d.to]; c != nil {
				c.Handle(now, Datagram{From: d.from, Data: d.data})
			}
		}
	}
}

// BenchmarkServerTickHall: what a server's Tick and NextTick cost when its loop wakes and no
// connection needs anything, with a lecture hall's connections (256 spectators and 8 players,
// all connected and acknowledged). A host loop wakes for every datagram and every deadline of
// any of them, thousands of times a second: a Tick that polled every connection each time
// grew with the square of the hall (BENCHMARKS.md has the figures).
func BenchmarkServerTickHall(b *testing.B) {
	for _, conns := range []int{8, 40, 264} {
		b.Run(fmt.Sprint(conns), func(b *testing.B) {
			now := time.Unix(1_000_000, 0)
			n := &hallNet{srvAddr: netip.MustParseAddrPort("198.51.100.1:7777"), clients: map[netip.AddrPort]*Client{}}
			n.srv = NewServer(ServerConfig{Config: Config{Rand: rand.NewChaCha8([32]byte{1})}, MaxClients: conns,
				MaxHandshakesPerAddress: conns, MaxHandshakesPerPrefix: conns, MaxPendingHandshakes: conns}, hallWriter{n, n.srvAddr})
			for i := range conns {
				addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i / 250), byte(1 + i%250)}), 40000)
				c, err := NewClient(n.srvAddr, ClientConfig{Name: fmt.Sprintf("c%d", i), PlayerID: playerID(21, i),
					Config: Config{Rand: rand.NewChaCha8([32]byte{byte(i), byte(i >> 8), 2})}}, hallWriter{n, addr})
				if err != nil {
					b.Fatal(err)
				}
				n.clients[addr] = c
			}
			for range 200 { // 2 s: every client connects, and the acks settle
				for _, c := range n.clients {
					c.Tick(now)
				}
				n.deliver(now)
				n.srv.Tick(now)
				n.deliver(now)
				now = now.Add(10 * time.Millisecond)
			}
			if got := len(n.srv.Peers()); got != conns {
				b.Fatalf("%d of %d clients connected", got, conns)
			}
			n.srv.Tick(now)
			n.deliver(now)
			for b.Loop() {
				n.srv.Tick(now)
				n.srv.NextTick(now)
			}
		})
	}
}
