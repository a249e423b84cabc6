package game

// Tests of the check and repair of the world's state other than its units (the id counters, the
// random generator, the attacks in flight), in virtual time (vgame_test.go; the watch is
// desync_test.go's): a client's state drifts, on purpose or because a late event was
// fast-forwarded, and the server has to find it from the state hash of the client's reports and
// repair it, until the client's world hash equals the server's again.

import (
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// TestStateDriftFoundAndRepaired: a drift in each kind of state on one client (an attack in
// flight, the random generator, the next unit id, the next attack id), with either way of
// running late events, is found from the state hash of the first report that covers it,
// within desyncFindBound: the server's record names the world's state, with the client's hash
// and its own. It is repaired by a real-time re-sync that carries the server's core state,
// lead time and a frame later, without a pause; every host applies it, and from the repair's
// frame on the client's world hash equals the server's at every frame both recorded.
func TestStateDriftFoundAndRepaired(t *testing.T) {
	t.Parallel()
	for _, late := range []LateMode{LateRollback, LateFastForward} {
		for _, d := range []stateDrift{driftAttack, driftGenerator, driftNextID, driftNextAttackID} {
			t.Run(late.String()+"/"+d.String(), func(t *testing.T) {
				t.Parallel()
				g, w := newDesyncGame(t, vspec{seed: 51, server: func(c *ServerConfig) { c.Late = late },
					client: func(_ int, c *ClientConfig) { c.Late = late }})
				c := g.clients[0]
				at, frame := g.now, c.w.Frame()
				if !c.injectStateDrift(d) {
					t.Fatalf("the client's world did not take the drift of %v", d)
				}
				if c.w.StateHash() == g.srv.w.StateHash() && c.w.Frame() == g.srv.w.Frame() {
					t.Fatal("the drift left the state hash unchanged")
				}
				bound := desyncFindBound(linksim.Settings{})
				var ch *desyncCheck
				w.waitFor(2*bound, "the repair of the state", func() bool {
					ch = stateCheck(w, c.role.seat, frame)
					return ch != nil && ch.repair()
				})
				lead := g.srv.lead.cur
				w.run(desyncPlayOn)
				r := ch.rec
				t.Logf("%v: %v before frame %d; the server's check of the report of frame %d opened %v later, %s at server frame %d, effective at frame %d: %d frames (%v of game time) after the drift",
					late, d, frame, r.Frame, ch.opened.Sub(at), r.Action, ch.decidedFrame, r.At, r.At-frame, time.Duration(r.At-frame)*g.srv.cfg.Frame)
				if found := ch.decided.Sub(at); found > bound {
					t.Errorf("the drift was repaired %v after it happened, want at most %v", found, bound)
				}
				if r.Frame >= frame+hashReportEvery+resimWindow || r.Action != ActionRealtime || r.At > ch.decidedFrame+lead+1 {
					t.Errorf("the check of frame %d ended in %q at frame %d, decided at server frame %d (lead %d): want a real-time re-sync of the first report, lead time and a frame ahead",
						r.Frame, r.Action, r.At, ch.decidedFrame, lead)
				}
				if s := r.State; s == nil || !s.LocalKnown || s.Local == s.Server {
					t.Errorf("the server's record names the state as %+v, want the client's hash and the server's, different", s)
				}
				if d != driftGenerator && len(r.Units) != 0 {
					// The generator's numbers decide the damage of the next blows, which may
					// have fallen before the report; the other drifts touch no unit.
					t.Errorf("the record lists units %+v: only the state drifted", r.Units)
				}
				res := g.result()
				logReports(t, res)
				s := res.server.Sync
				if s.MismatchedStates != 1 || s.RealtimeResyncs != 1 || s.StopWorldResyncs != 0 {
					t.Errorf("server: %d states mismatched, %d real-time and %d stop-the-world re-syncs, want 1, 1 and none",
						s.MismatchedStates, s.RealtimeResyncs, s.StopWorldResyncs)
				}
				for _, cr := range res.clients {
					if cr.Sync.MismatchedStates != 1 {
						t.Errorf("%s: %d repairs of a state received, want 1", cr.Name, cr.Sync.MismatchedStates)
					}
				}
				equal, after := agreeFrom(res.server, res.clients[0], r.At+1)
				t.Logf("from frame %d on, %s's world hash equals the server's at %d of %d frames", r.At+1, res.clients[0].Name, equal, after)
				if after < 2 || equal != after {
					t.Errorf("from the repair on, the world hashes agree at %d of %d frames both recorded, want all (2 or more)", equal, after)
				}
			})
		}
	}
}

// stateCheck is the server's first check of seat's reports of frame or later that found the
// world's state different, nil if none yet.
func stateCheck(w *desyncWatch, seat uint8, frame uint32) *desyncCheck {
	for _, ch := range w.checks {
		if ch.rec.Seat == seat && ch.rec.Frame >= frame && ch.rec.State != nil {
			return ch
		}
	}
	return nil
}

// agreeFrom counts the frames from frame on at which both r and the server recorded a world
// hash (a world hash of frame F is the world as F starts, before its events), and how many of
// them are equal.
func agreeFrom(server, r Report, frame uint32) (equal, both int) {
	for f, h := range r.WorldHashes {
		n, _ := strconv.Atoi(f)
		if sh, ok := server.WorldHashes[f]; ok && uint32(n) >= frame {
			both++
			if sh == h {
				equal++
			}
		}
	}
	return equal, both
}
