package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// The inputs' digest right after a world copy, in virtual time
// (vgame_test.go). The server compares a client's hash report only once it ran the frame with
// the same digest (drift_server.go, reportDue). A client that got its world as a copy never
// ran the events before it: if the digest the server compares did not take that into
// account, none of that client's reports would be compared for the digest's whole window (six
// seconds), and a drift in those seconds would go unseen.

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
			at, frame := g.now, c.w.Frame()
			if !hurtUnit(c.w, c.w.Units()[0].ID) {
				t.Fatal("the newcomer's world did not take the drift")
			}
			found := g.runUntil(at.Add(5*time.Second), func() bool {
				if tt.spectator {
					return g.srv.stats.SpectatorDrifts > drifts
				}
				return driftFoundFor(g.srv, c.role.seat, frame)
			})
			took := g.now.Sub(at)
			t.Logf("drift at frame %d found: %v, %v after it; reports put aside for other inputs meanwhile: %d",
				frame, found, took, g.srv.stats.HashReportsOtherInputs-otherInputs)
			if !found || took > digestFindBound {
				t.Errorf("the drift a second after the world copy was found %v (%v after it), want within %v", found, took, digestFindBound)
			}
			if n := g.srv.stats.HashReportsOtherInputs - otherInputs; n != 0 {
				t.Errorf("%d reports put aside for other inputs after the world copy, want none", n)
			}
		})
	}
}
