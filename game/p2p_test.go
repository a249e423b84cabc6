package game

import (
	"testing"
	"time"
)

// directLinks counts a client's connected direct links.
func directLinks(c *Client) int {
	n := 0
	for _, p := range c.p2p.links {
		if p != nil && p.Connected() {
			n++
		}
	}
	return n
}

// TestDirectLinkRedialled: a direct link that ends (here the accepting player drops it) is
// dialled again by the player with the higher seat, after a wait, and the game goes on with
// every direct link up.
func TestDirectLinkRedialled(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 3, clients: 3})
	g.waitFor(10*time.Second, "every direct link up", func() bool {
		for _, c := range g.live() {
			if directLinks(c) != 2 {
				return false
			}
		}
		return true
	})
	// The client with the lowest seat accepts both of the others' dials: it drops them.
	low := g.live()[0]
	for _, c := range g.live() {
		if c.role.seat < low.role.seat {
			low = c
		}
	}
	for _, p := range low.p2p.links {
		if p != nil {
			low.p2p.acceptor.Kick(p, g.now, "dropped by the test")
		}
	}
	if n := directLinks(low); n != 0 {
		t.Fatalf("%d direct links left after dropping them all", n)
	}
	dropped := g.now
	g.waitFor(10*time.Second, "the dropped links dialled again", func() bool { return directLinks(low) == 2 })
	took := g.now.Sub(dropped)
	var redials uint64
	for _, c := range g.live() {
		redials += c.stats.DirectRedials
	}
	t.Logf("links back after %v, %d redials", took, redials)
	if redials != 2 {
		t.Errorf("%d redials, want 2 (one by each of the higher seats)", redials)
	}
	if took < time.Second {
		t.Errorf("links back after %v: a redial waits at least a second", took)
	}
	g.result()
}
