package game

// Tests of the check and repair of the world's state other than its units (the id counters, the
// random generator, the attacks in flight), in virtual time (vgame_test.go; the watch is
// desync_test.go's): a client's state drifts, on purpose or because a late event was
// fast-forwarded, and the server has to find it from the state hash of the client's reports and
// repair it, until the client's world hash equals the server's again.

import (
	"fmt"
	"slices"
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

// convergence follows, frame by frame, whether each client's world equals the server's (its
// unit hashes and its state hash, from both hash histories, before they forget the frame), and
// cuts each client's frames into episodes of drift: runs of frames at which its world differed.
type convergence struct {
	g        *vgame
	next     []uint32 // each client's next frame to compare
	diverged [][]bool // per client, per frame: its world differed (false also when unknown)
	known    [][]bool // per client, per frame: both histories held the frame
}

func newConvergence(g *vgame) *convergence {
	n := len(g.clients)
	return &convergence{g: g, next: make([]uint32, n), diverged: make([][]bool, n), known: make([][]bool, n)}
}

// observe compares the frames both hosts have run since the last step. With the fast-forward
// a frame is final once run: nothing runs it again.
func (cv *convergence) observe() {
	s := cv.g.srv
	if s.w == nil {
		return
	}
	for i, c := range cv.g.clients {
		if c.w == nil {
			continue
		}
		for upto := min(c.w.Frame(), s.w.Frame()); cv.next[i] < upto; cv.next[i]++ {
			f := cv.next[i]
			sh, ok1 := s.drift.hist.at(f)
			ch, ok2 := c.drift.hist.at(f)
			ss, _ := s.drift.hist.stateAt(f)
			cs, _ := c.drift.hist.stateAt(f)
			differ := ok1 && ok2 && (ss != cs || !slices.Equal(sh, ch))
			cv.diverged[i] = append(cv.diverged[i], differ)
			cv.known[i] = append(cv.known[i], ok1 && ok2)
		}
	}
}

// convergeSlackFrames is how much longer than one report period, a round trip and two frames
// nine in ten episodes of drift may last (TestFastForwardedDriftConverges).
const convergeSlackFrames = 6

// lastRepairWait is how long TestFastForwardedDriftConverges plays on at most for the drifts of
// the last seconds to be repaired: a stop-the-world ordered at the end takes about 2 s.
const lastRepairWait = 5 * time.Second

// episodes cuts client i's frames into runs of drift; an episode still open at the last frame
// compared is left out (it may not have had the time to end).
func (cv *convergence) episodes(i int) [][2]uint32 {
	var out [][2]uint32
	start, open := uint32(0), false
	for f := uint32(0); int(f) < len(cv.diverged[i]); f++ {
		switch d := cv.diverged[i][f]; {
		case d && !open:
			start, open = f, true
		case !d && open && cv.known[i][f]:
			out = append(out, [2]uint32{start, f - 1})
			open = false
		}
	}
	return out
}

// TestFastForwardedDriftConverges: with the fast-forward for every late event (--late
// fastforward), at 10%, 20% and 30% loss on every link, in a battle of a few hundred units,
// the late events that the lead time does not cover, and a drift of one client's state every
// few seconds (each kind in turn), leave the clients' worlds different from the server's; each
// time, the world, its units and its state, comes back to the server's.
//
// The measure is, for every episode of drift (a run of frames at which a client's world
// differs from the server's), its length in frames, against the game's own figures: one
// report period (the first report that covers a drift leaves within it), the frame a report
// waits to settle, a round trip (the report, and a drill-down when units differ), and two
// frames (the repair's own, and the clocks' alignment); no lead time, since a repair that
// reaches a host after its frame is run again from the copies there, as under rollback. Half
// the episodes end within that; nine in ten within 0.6 s more (convergeSlackFrames), pooled over
// six games at each loss: a report is unreliable, and at 30% loss some drifts lose several in
// a row; a report is compared only once both hosts ran the
// same inputs, and an event on its way holds it back; a drift of the generator in a battle
// spreads to the units of every fight within frames, and the units the first repair did not
// know of are found by a later report. Every episode ends: at the last frame compared every
// client's world is the server's, and no player was dropped. (One game at each loss read:
// with a report a second, p50 5 to 10 frames and p90 21 to 31; with repairs a lead time
// ahead, p50 5 to 8 and p90 8 to 20.)
func TestFastForwardedDriftConverges(t *testing.T) {
	t.Parallel()
	onlyInFull(t) // its measure is a statistic of minutes of play
	link := func(loss float64) linksim.Settings {
		return linksim.Settings{LossPercent: loss, Latency: 25 * time.Millisecond, Jitter: 5 * time.Millisecond}
	}
	for _, loss := range []float64{10, 20, 30} {
		t.Run(fmt.Sprintf("loss=%.0f%%", loss), func(t *testing.T) {
			t.Parallel()
			var lens []uint32
			for seed := uint64(63); seed < 63+convergeSeeds; seed++ {
				lens = append(lens, playFastForwardedDrifts(t, seed, link(loss))...)
			}
			rtt := 2 * (link(loss).Latency + link(loss).Jitter)
			frame := DefaultFrame
			one := hashReportEvery + 1 + uint32((rtt+frame-1)/frame) + 2
			slices.Sort(lens)
			p50, p90, most := lens[len(lens)/2], lens[len(lens)*9/10], lens[len(lens)-1]
			t.Logf("%.0f%% loss, %d games: %d episodes of drift: converged after p50 %d frames (%v), p90 %d (%v), max %d (%v); bounds %d frames for half, %d for nine in ten",
				loss, convergeSeeds, len(lens), p50, time.Duration(p50)*frame, p90, time.Duration(p90)*frame, most, time.Duration(most)*frame, one, one+convergeSlackFrames)
			if p50 > one || p90 > one+convergeSlackFrames {
				t.Errorf("episodes of drift of p50 %d frames and p90 %d, want at most %d and %d", p50, p90, one, one+convergeSlackFrames)
			}
		})
	}
}

// convergeSeeds is how many games TestFastForwardedDriftConverges pools at each loss: a
// game has 15 to 50 episodes, and the p90 of one game moves by several frames with any change
// to what the stack sends (which datagrams the seeded loss takes).
const convergeSeeds = 6

// playFastForwardedDrifts plays one game of TestFastForwardedDriftConverges and returns the
// lengths of its episodes of drift, after checking what holds in every game.
func playFastForwardedDrifts(t *testing.T, seed uint64, link linksim.Settings) []uint32 {
	t.Helper()
	const play, every, quiet = 60 * time.Second, 4 * time.Second, 6 * time.Second
	g := newVGame(t, vspec{seed: seed, bots: 1, clients: 5, link: link,
		server: func(c *ServerConfig) { c.Late, c.ReinforceBelow = LateFastForward, -1 },
		client: func(_ int, c *ClientConfig) { c.Late = LateFastForward }})
	g.waitFor(10*time.Second, "every client running", func() bool {
		return g.srv.clock.running && !slices.ContainsFunc(g.clients, func(c *Client) bool { return !clientRunning(c) })
	})
	if _, err := Populate(g.srv, g.live(), g.now, 4, 80); err != nil {
		t.Fatal(err)
	}
	cv := newConvergence(g)
	var lead uint32
	turn, drifts := 0, 0
	kinds := []stateDrift{driftAttack, driftGenerator, driftNextID, driftNextAttackID}
	next, end := g.now.Add(every), g.now.Add(play)
	g.runUntil(end, func() bool {
		cv.observe()
		lead = max(lead, g.srv.lead.cur)
		// Each client in turn; the last drift leaves the game quiet long enough to be
		// repaired.
		if !g.now.Before(next) && g.now.Add(quiet).Before(end) {
			c := g.clients[turn%len(g.clients)]
			if c.phase == phaseRunning && c.injectStateDrift(kinds[drifts%len(kinds)]) {
				drifts++
			}
			turn, next = turn+1, g.now.Add(every)
		}
		return false
	})
	// The bots play on to the end, and a command fast-forwarded in the last seconds
	// drifts a world too: the game goes on, for a few seconds at most, until no
	// client's latest frame differs and no pause is under way.
	clean := func() bool {
		if g.srv.drift.pause != nil {
			return false
		}
		for i, c := range g.clients {
			if n := len(cv.diverged[i]); clientRunning(c) && (n == 0 || cv.diverged[i][n-1]) {
				return false
			}
		}
		return true
	}
	g.runUntil(g.now.Add(lastRepairWait), func() bool { cv.observe(); return clean() })
	inGame := make([]bool, len(g.clients))
	for i, c := range g.clients {
		inGame[i] = clientRunning(c)
	}
	res := g.result()
	logReports(t, res)
	var lens []uint32
	for i := range g.clients {
		for _, e := range cv.episodes(i) {
			lens = append(lens, e[1]-e[0]+1)
		}
		// A client dropped from the game (two missed stop-the-world rounds) is
		// repaired no more: it is left out.
		if n := len(cv.diverged[i]); inGame[i] && (n == 0 || cv.diverged[i][n-1]) {
			t.Errorf("seed %d: client %d differs from the server at the last frame compared, %d", seed, i, n-1)
		}
	}
	if len(lens) == 0 {
		t.Fatalf("seed %d: no drift", seed)
	}
	s := res.server.Sync
	t.Logf("seed %d, %.0f%% loss, lead up to %d frames: %d state drifts forced, %d late events fast-forwarded; %d episodes of drift, the longest %d frames; %d states and %d units repaired, %d real-time and %d stop-the-world re-syncs",
		seed, link.LossPercent, lead, drifts, lateEvents(res), len(lens), slices.Max(lens), s.MismatchedStates, s.MismatchedUnits, s.RealtimeResyncs, s.StopWorldResyncs)
	// A drift of the state that comes while the repair of another is on its way is
	// repaired with it, or by a stop-the-world: fewer repairs than drifts.
	if want := int((play-quiet)/every) / 2; drifts < want || s.MismatchedStates == 0 {
		t.Errorf("seed %d: %d states repaired after %d drifts forced, want %d or more drifts, and repairs", seed, s.MismatchedStates, drifts, want)
	}
	if lateEvents(res) == 0 {
		t.Errorf("seed %d: no late event: the game measured only the drifts forced", seed)
	}
	if s.PlayersDropped > 0 {
		// Under the fast-forward a world that drifts again right after a stop-the-world is
		// repaired piece by piece (drift_server.go, againTooSoon), and nobody is dropped for it.
		t.Errorf("seed %d: %d players dropped", seed, s.PlayersDropped)
	}
	return lens
}

// lateEvents counts the late events the hosts of res fast-forwarded.
func lateEvents(res sessionResult) uint64 {
	n := res.server.Sync.LateBeyondWindow
	for _, r := range res.clients {
		n += r.Sync.LateBeyondWindow
	}
	return n
}
