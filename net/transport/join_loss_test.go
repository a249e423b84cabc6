package transport

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// TestJoinsAtClassLoss: at the class's 30% preset on every process (each datagram crosses two
// conditioners: 51% lost each way, 100 ± 20 ms one way), every client joins: 500 clients, ten
// at a time to a server, each over a link of its own, with the default Retry and
// ConnectTimeout. A request and its challenge both cross one try in four, and so did a
// response and its Accepted while the server answered each response alone. Of 1,000 such
// clients, 48 gave up ("no answer within 5s") with a 5 s connect timeout and one Accepted per
// response; 14 with the Accepted repeated (acceptedRepeat) alone, 10 with the 10 s timeout
// alone, none with both. (The game at this preset, 60 seeded games: 11 of 180 clients.)
func TestJoinsAtClassLoss(t *testing.T) {
	classLoss := linksim.Settings{LossPercent: 51, Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond}
	const servers, perServer = 50, 10
	failed := 0
	var took []time.Duration
	for round := range servers {
		nw := linksim.NewNetwork(uint64(round) + 1)
		srvAddr := netip.MustParseAddrPort("10.0.0.1:7777")
		srvNode := nw.AddNode(srvAddr.String())
		srv := NewServer(ServerConfig{MaxClients: perServer, Config: Config{Rand: rand.NewChaCha8([32]byte{byte(round)})}}, linkWriter{srvNode})
		clients := make([]*Client, perServer)
		addrs := make([]netip.AddrPort, perServer)
		byAddr := map[string]*Client{}
		for i := range clients {
			addrs[i] = netip.MustParseAddrPort(fmt.Sprintf("10.1.%d.2:40000", i))
			node := nw.AddNode(addrs[i].String())
			nw.Link(srvAddr.String(), addrs[i].String(), classLoss, classLoss)
			var err error
			clients[i], err = NewClient(srvAddr, ClientConfig{Name: fmt.Sprintf("c%d", i), Config: Config{Rand: rand.NewChaCha8([32]byte{byte(round), byte(i), 1})}}, linkWriter{node})
			if err != nil {
				t.Fatal(err)
			}
			byAddr[addrs[i].String()] = clients[i]
		}
		start := nw.Now()
		joined := make([]time.Duration, perServer)
		var dgrams []linksim.Datagram
		for now := start; now.Before(start.Add(15 * time.Second)); {
			next := srv.NextTick(now)
			srv.Tick(now)
			settled := true
			for i, c := range clients {
				c.Tick(now)
				if c.State() == Connected && joined[i] == 0 {
					joined[i] = now.Sub(start)
				}
				settled = settled && (joined[i] > 0 || c.State() == Disconnected)
				next = Earliest(next, c.NextTick(now))
			}
			if settled {
				break
			}
			now, dgrams = nw.Step(maxTime(next, now.Add(time.Millisecond)), dgrams[:0])
			for _, d := range dgrams {
				from := netip.MustParseAddrPort(d.From)
				if d.To == srvAddr.String() {
					srv.Handle(now, Datagram{From: from, Data: d.Data})
				} else {
					byAddr[d.To].Handle(now, Datagram{From: from, Data: d.Data})
				}
			}
		}
		for i, c := range clients {
			if joined[i] == 0 {
				failed++
				t.Errorf("server %d, client %d did not join: %v", round, i, c.Err())
				continue
			}
			took = append(took, joined[i])
		}
	}
	var longest time.Duration
	for _, d := range took {
		longest = max(longest, d)
	}
	t.Logf("%d of %d clients joined, the last after %v", servers*perServer-failed, servers*perServer, longest)
}
