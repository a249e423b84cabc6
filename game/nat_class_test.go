package game

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"
)

// TestClassBehindOneNATJoinsAtOnce: a class behind one NAT (every student's connection from
// the same address) starts its clients in the same second, 2 players and 32 spectators: the
// places an address keeps by default. Every one of them is in the game within a client's
// connect timeout: the server's handshake budget per address covers what an address may hold,
// so nobody waits for it to refill.
func TestClassBehindOneNATJoinsAtOnce(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 11, bots: 2, sparse: true})
	g.run(time.Second)
	nat := netip.AddrFrom4([4]byte{192, 0, 2, 7})
	n := DefaultSeatsPerAddress + DefaultSpectatorsPerAddress
	var class []*Client
	for i := range n {
		j := g.joinWatcherAt(netip.AddrPortFrom(nat, uint16(50000+i)), func(c *ClientConfig) {
			c.Name, c.Spectate = fmt.Sprintf("student%d", i+1), i >= DefaultSeatsPerAddress
		})
		class = append(class, g.clients[j])
	}
	start := g.Now()
	g.runUntil(start.Add(10*time.Second), func() bool {
		return !slices.ContainsFunc(class, func(c *Client) bool { return !clientRunning(c) })
	})
	var ended []string
	for _, c := range class {
		if !clientRunning(c) {
			ended = append(ended, fmt.Sprintf("%s: %v", c.cfg.Name, c.Ended()))
		}
	}
	t.Logf("%d of %d clients from one address in the game after %v", n-len(ended), n, g.Now().Sub(start))
	if len(ended) > 0 {
		t.Errorf("%d of %d clients from one address not in the game within 10 s (a client gives up after 5 s): %v", len(ended), n, ended)
	}
}
