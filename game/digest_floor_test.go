package game

import (
	"fmt"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// The inputs' digest right after a world copy and after a refused command, in virtual time
// (vgame_test.go). The server compares a client's hash report only once it ran the frame with
// the same digest (drift_server.go, reportDue). A client that got its world as a copy never
// ran the events before it, and a client that ran its own command the server refused ran one
// the server did not: if the digest the server compares took neither into account, none of
// that client's reports would be compared for the digest's whole window (six seconds), and a
// drift in those seconds would go unseen.

// digestFindBound is how long after a drift the server may take to find it on the clean
// links of these tests: a report every hashReportEvery frames, the server's frame to reach
// the report's, the report's way, and a frame of slack (desyncFindBound, without the
// drill-down the locator spares).
const digestFindBound = time.Second

// driftFoundFor reports whether the server found a drift in seat's reports of frame from or
// later: a player's hash check that differed (its record).
func driftFoundFor(s *Server, seat uint8, from uint32) bool {
	for _, r := range s.drift.log.records {
		if r.Seat == seat && r.Frame >= from {
			return true
		}
	}
	return false
}

// foundAtOnce runs g until found holds, and checks that it held within digestFindBound and
// that the server put no report aside for other inputs meanwhile (otherInputs: its count
// before).
func foundAtOnce(t *testing.T, g *vgame, drift string, otherInputs uint64, found func() bool) {
	t.Helper()
	at := g.now
	ok := g.runUntil(at.Add(5*time.Second), found)
	took, aside := g.now.Sub(at), g.srv.stats.HashReportsOtherInputs-otherInputs
	t.Logf("%s: found %v, %v later; reports put aside for other inputs meanwhile: %d", drift, ok, took, aside)
	if !ok || took > digestFindBound {
		t.Errorf("%s was found %v (%v later), want within %v", drift, ok, took, digestFindBound)
	}
	if aside != 0 {
		t.Errorf("%d reports put aside for other inputs before %s was found, want none", aside, drift)
	}
}

// TestDriftFoundRightAfterAWorldCopy: a client whose world came as a copy (a player who joined
// the running game, a spectator who joined it, a spectator repaired by a copy of its own) and
// that drifts a second later is found within digestFindBound, and none of its reports is put
// aside for other inputs meanwhile.
func TestDriftFoundRightAfterAWorldCopy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		seed      uint64
		spectator bool
		ownCopy   bool // after the join, the spectator drifts and is sent a copy of its own
	}{
		{"a player who joined", 61, false, false},
		{"a spectator who joined", 62, true, false},
		{"a spectator after its own copy", 63, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newVGame(t, vspec{seed: tt.seed, bots: 1, clients: 1, link: linksim.Settings{Latency: 20 * time.Millisecond}})
			g.waitFor(10*time.Second, "the first client running", func() bool { return clientRunning(g.clients[0]) })
			g.run(3 * time.Second) // events in the digest's window before the copy
			var c *Client
			if tt.spectator {
				c = g.clients[g.join(func(cfg *ClientConfig) { cfg.Spectate, cfg.Bot = true, false })]
			} else {
				c = g.clients[g.join(nil)]
			}
			g.waitFor(10*time.Second, "the newcomer running", func() bool { return clientRunning(c) })
			if tt.ownCopy {
				hurtUnit(c.w, c.w.Units()[0].ID)
				g.waitFor(10*time.Second, "the spectator's copy of the world", func() bool { return c.stats.WorldCopies == 1 })
			}
			g.run(time.Second)
			otherInputs := g.srv.stats.HashReportsOtherInputs
			drifts := g.srv.stats.SpectatorDrifts
			frame := c.w.Frame()
			if !hurtUnit(c.w, c.w.Units()[0].ID) {
				t.Fatal("the newcomer's world did not take the drift")
			}
			foundAtOnce(t, g, fmt.Sprintf("the drift at frame %d, a second after the world copy", frame), otherInputs, func() bool {
				if tt.spectator {
					return g.srv.stats.SpectatorDrifts > drifts
				}
				return driftFoundFor(g.srv, c.role.seat, frame)
			})
		})
	}
}

// TestDriftOfARefusedCommandFound: a command the server refuses (over its seat's rate) ran on
// its player's host, and on the host it went to directly: both worlds drift from the
// server's, the server finds it within digestFindBound of the command's frame (from either
// host's report: one repair mends both), without putting a report aside for other inputs, and
// both hosts have the server's unit again.
func TestDriftOfARefusedCommandFound(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 64, bots: 1, clients: 2, link: linksim.Settings{Latency: 20 * time.Millisecond},
		client: func(_ int, c *ClientConfig) { c.Bot = false }})
	me, other := g.clients[0], g.clients[1]
	g.waitFor(10*time.Second, "both clients running, linked directly", func() bool {
		return clientRunning(me) && clientRunning(other) && me.directSeats(g.now) != 0
	})
	g.run(3 * time.Second)
	var unit world.Unit
	for _, u := range me.w.Units() {
		if u.Owner == me.role.seat && !u.IsEnemy() {
			unit = u
			break
		}
	}
	// The server's bucket of the seat is empty: its next command is refused as too fast.
	st := g.srv.seats.players[me.role.seat]
	st.commands.rate.full = g.now.Add(time.Hour)
	tooFast, otherInputs := g.srv.stats.CommandsTooFast, g.srv.stats.HashReportsOtherInputs
	x, y := reachableNear(me.w, unit)
	frame, err := me.Command(g.now, world.CommandMove, []uint32{unit.ID}, x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	g.waitFor(2*time.Second, "the server to refuse the command", func() bool { return g.srv.stats.CommandsTooFast > tooFast })
	st.commands.rate.full = time.Time{}
	g.waitFor(3*time.Second, "the command's frame run everywhere", func() bool {
		return me.w.Frame() > frame && other.w.Frame() > frame && g.srv.w.Frame() > frame
	})
	if u, _ := me.w.Unit(unit.ID); u == unit {
		t.Fatal("the refused command changed nothing on its player's host")
	}
	foundAtOnce(t, g, fmt.Sprintf("the drift of the refused command of frame %d, once every host ran it", frame), otherInputs, func() bool {
		return driftFoundFor(g.srv, me.role.seat, frame) || driftFoundFor(g.srv, other.role.seat, frame)
	})
	same := func(c *Client) bool {
		mine, _ := c.w.Unit(unit.ID)
		theirs, _ := g.srv.w.Unit(unit.ID)
		return c.w.Frame() == g.srv.w.Frame() && mine == theirs
	}
	if !g.runUntil(g.now.Add(2*time.Second), func() bool { return same(me) && same(other) }) {
		t.Error("the unit the refused command moved is not the server's again on both hosts within 2 s")
	}
}

// reachableNear is a cell a few steps from u that u can walk to.
func reachableNear(w *world.World, u world.Unit) (x, y int32) {
	for d := int32(4); d > 0; d-- {
		for _, c := range [][2]int32{{u.X + d, u.Y}, {u.X - d, u.Y}, {u.X, u.Y + d}, {u.X, u.Y - d}} {
			if w.Reachable(u.X, u.Y, c[0], c[1]) {
				return c[0], c[1]
			}
		}
	}
	return u.X, u.Y
}
