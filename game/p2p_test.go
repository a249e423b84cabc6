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

// TestJoinerGetsNoCommandItsWorldHolds: a client that joins a running game gets the world as
// it is, with every command before it run or pending. When that client reports a direct link
// lost at once (its link with a player not up yet), the server sends it the player's recent
// commands again, but none before the frame of its world: sent again, a command it never saw
// on its own would run a second time there (too late to run again exactly, it is applied at
// the next frame), and its world would part from the others'.
func TestJoinerGetsNoCommandItsWorldHolds(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 5, bots: 1, clients: 2})
	g.run(10 * time.Second)
	j := g.clients[g.join(nil)]
	g.waitFor(10*time.Second, "the joiner running", func() bool { return clientRunning(j) })
	start := j.w.Frame()
	relayed := g.srv.stats.CommandsRelayedAgain
	for _, c := range g.clients[:2] {
		j.send(g.now, &LinkLost{Seat: c.role.seat, Why: LinkEnded})
	}
	seen := map[string]bool{}
	g.run(5 * time.Second)
	compared, differ := settledSoFar(g, seen)
	t.Logf("joined at frame %d; %d commands relayed again; %d late beyond the window; worlds differ at %d of %d settled frames",
		start, g.srv.stats.CommandsRelayedAgain-relayed, j.drift.rw.stats.LateBeyondWindow, differ, compared)
	if n := j.drift.rw.stats.LateBeyondWindow; n != 0 {
		t.Errorf("the joiner got %d events too late to run again: commands its world already held", n)
	}
	if compared == 0 || differ != 0 {
		t.Errorf("the worlds differ at %d of %d settled frames", differ, compared)
	}
}
