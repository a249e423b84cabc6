package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
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

// TestDirectModes: the server's --direct. Auto leaves the players on its relay alone while
// half their round trips stays under directAutoOn (the detour hides in the lead's frame), and
// gives them their direct links once it is longer; on makes them on a fast link too, off never.
// Every world equals the server's either way.
func TestDirectModes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		mode    DirectMode
		latency time.Duration // each way, on every link
		links   bool
	}{
		{"auto, 20 ms", DirectAuto, 20 * time.Millisecond, false},
		{"auto, 50 ms", DirectAuto, 50 * time.Millisecond, false},
		{"auto, 100 ms", DirectAuto, 100 * time.Millisecond, true},
		{"on, 20 ms", DirectOn, 20 * time.Millisecond, true},
		{"off, 100 ms", DirectOff, 100 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newVGame(t, vspec{seed: 4, clients: 3, link: linksim.Settings{Latency: tt.latency},
				server: func(c *ServerConfig) { c.Orders.Direct = tt.mode }})
			g.run(15 * time.Second)
			st0 := g.srv.stats
			g.run(5 * time.Second)
			linked := 0
			for _, c := range g.live() {
				linked += directLinks(c)
			}
			saved := g.srv.stats.RelaysSaved - st0.RelaysSaved
			t.Logf("%d link ends, %d relays saved in 5 s, %d switches", linked, saved, g.srv.stats.DirectSwitches)
			if tt.links && (linked != 6 || saved == 0) {
				t.Errorf("%d link ends, %d relays saved: want every pair linked, and relays saved", linked, saved)
			}
			if !tt.links && (linked != 0 || saved != 0) {
				t.Errorf("%d link ends, %d relays saved: want none, every order relayed", linked, saved)
			}
			if g.srv.stats.DirectSwitches > 1 {
				t.Errorf("the links switched %d times, want at most once", g.srv.stats.DirectSwitches)
			}
			checkAgree(t, g)
		})
	}
}

// TestParseDirectMode: the --direct values, and a clear error for anything else; a server
// with a mode out of range is refused.
func TestParseDirectMode(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want DirectMode
		ok   bool
	}{
		{"auto", DirectAuto, true}, {"on", DirectOn, true}, {"off", DirectOff, true},
		{"", DirectAuto, false}, {"Off", DirectAuto, false}, {"true", DirectAuto, false},
	} {
		got, err := ParseDirectMode(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDirectMode(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
	}
	if _, err := NewServer(ServerConfig{Orders: Orders{Direct: DirectOff + 1}}, nil); err == nil {
		t.Error("a server with direct mode 3 was made")
	}
}

// TestDirectAutoTurnsLinksOff: in auto, links made while the round trips were long end once
// they are short again (an empty Peers), each end tells the server, and no order is lost on
// the way: every world still equals the server's.
func TestDirectAutoTurnsLinksOff(t *testing.T) {
	t.Parallel()
	slow := linksim.Settings{Latency: 100 * time.Millisecond}
	g := newVGame(t, vspec{seed: 6, clients: 3, link: slow, server: func(c *ServerConfig) { c.Orders.Direct = DirectAuto }})
	everyoneLinked(t, g, 20*time.Second)
	fast := linksim.Settings{Latency: 10 * time.Millisecond}
	addrs := append([]string{g.srvAddr.String()}, func() (a []string) {
		for _, c := range g.caddrs {
			a = append(a, c.String())
		}
		return
	}()...)
	for i, a := range addrs {
		for _, b := range addrs[i+1:] {
			if err := g.Network().SetLink(a, b, fast, fast); err != nil {
				t.Fatal(err)
			}
		}
	}
	g.waitFor(30*time.Second, "the direct links off", func() bool {
		for _, c := range g.live() {
			if directLinks(c) != 0 {
				return false
			}
		}
		return true
	})
	t.Logf("%d switches, %d LinkLosts, %d commands sent again", g.srv.stats.DirectSwitches, g.srv.stats.LinksLost, g.srv.stats.CommandsRelayedAgain)
	if g.srv.stats.DirectSwitches != 2 {
		t.Errorf("the links switched %d times, want twice (on, then off)", g.srv.stats.DirectSwitches)
	}
	g.run(5 * time.Second)
	checkAgree(t, g)
}
