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
// It also notes the frames at which each host fast-forwarded a late event (its count of them
// grew), to tell an episode's cause.
type convergence struct {
	g        *vgame
	next     []uint32   // each client's next frame to compare
	diverged [][]bool   // per client, per frame: its world differed (false also when unknown)
	known    [][]bool   // per client, per frame: both histories held the frame
	ff       [][]uint32 // per client, and the server last: the frames at which it fast-forwarded a late event
	lateSeen []uint64   // per client, and the server last: its count of late events fast-forwarded
}

func newConvergence(g *vgame) *convergence {
	n := len(g.clients)
	return &convergence{g: g, next: make([]uint32, n), diverged: make([][]bool, n), known: make([][]bool, n),
		ff: make([][]uint32, n+1), lateSeen: make([]uint64, n+1)}
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
		cv.noteLate(i, c.drift.rw.stats.LateBeyondWindow, c.w.Frame())
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
	cv.noteLate(len(cv.g.clients), s.drift.rw.stats.LateBeyondWindow, s.w.Frame())
}

// noteLate notes that host h (a client's index, or the server's, last) fast-forwarded a late
// event at frame, if its count grew to n.
func (cv *convergence) noteLate(h int, n uint64, frame uint32) {
	if n != cv.lateSeen[h] {
		cv.lateSeen[h] = n
		cv.ff[h] = append(cv.ff[h], frame)
	}
}

// fromFastForward is the frame from which client i's episode e is counted when the measure is
// what follows a fast-forward: the first frame, from two before the episode to its end, at
// which the client or the server fast-forwarded a late event. Before it no host had the event,
// and the drift is the event's lateness, which no repair can shorten. An episode that a
// forced drift of the client's state began (at forced, within a frame of its start), or that
// no fast-forward explains (a unit that fought a drifted one), counts from its start.
func (cv *convergence) fromFastForward(i int, e [2]uint32, forced []uint32) uint32 {
	for _, f := range forced {
		if f+1 >= e[0] && f <= e[0]+1 {
			return e[0]
		}
	}
	first, found := e[1], false
	for _, h := range []int{i, len(cv.g.clients)} {
		for _, f := range cv.ff[h] {
			if f+2 >= e[0] && f <= e[1] && (!found || f < first) {
				first, found = f, true
			}
		}
	}
	if !found {
		return e[0]
	}
	return max(e[0], first)
}

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

// convergeBound is the length, in frames, within which half the episodes of drift end under the
// fast-forward on link: one report period (the first report that covers a drift leaves within
// it), the frame a report waits to settle, a round trip (the report, and a drill-down when units
// differ), and two frames (the repair's own, and the clocks' alignment); no lead time, since a
// repair that reaches a host after its frame is run again from the copies there, as under
// rollback.
func convergeBound(link linksim.Settings) uint32 {
	rtt := 2 * (link.Latency + link.Jitter)
	return hashReportEvery + 1 + uint32((rtt+DefaultFrame-1)/DefaultFrame) + 2
}

// percentiles are the p50, p90 and largest of lens (sorted here).
func percentiles(lens []uint32) (p50, p90, most uint32) {
	slices.Sort(lens)
	return lens[len(lens)/2], lens[len(lens)*9/10], lens[len(lens)-1]
}

// beyond is the share of lens, in percent, longer than bound: the margin a p90 at the bound
// leaves.
func beyond(lens []uint32, bound uint32) float64 {
	n := 0
	for _, l := range lens {
		if l > bound {
			n++
		}
	}
	return 100 * float64(n) / float64(len(lens))
}

// ffLink is the link of every host in the fast-forward's games: the loss given, 25 ± 5 ms.
func ffLink(loss float64) linksim.Settings {
	return linksim.Settings{LossPercent: loss, Latency: 25 * time.Millisecond, Jitter: 5 * time.Millisecond}
}

// TestFastForwardedDriftConverges: with the fast-forward for every late event (--late
// fastforward), at 10%, 20% and 30% loss on every link, in a battle of a few hundred units,
// the late events that the lead time does not cover, and a drift of one client's state every
// few seconds (each kind in turn), leave the clients' worlds different from the server's; each
// time, the world, its units and its state, comes back to the server's.
//
// The measure is, for every episode of drift (a run of frames at which a client's world
// differs from the server's), its length in frames from its first, against convergeBound.
// Nine in ten episodes end within it too, pooled over twelve games at each loss (a game has 13
// to 35 episodes, and one game's p90 moves by several frames with any change to what is
// sent): a report is unreliable, and at 30% loss some drifts lose two in a row; a report is
// compared only once both hosts ran the same inputs, and an event on its way holds it back;
// a drift of the generator in a battle spreads to the units of every fight within frames, and
// the units the first repair did not know of are found by a later report. Every episode ends:
// at the last frame compared every client's world is the server's, and no player was dropped.
//
// And the lead covers the first seconds: the hosts fast-forward fewer than 1% of the commands
// of the first 5 s. (Before the loss was counted from the first packet under the fast-forward
// (earlyLoss), the lead stayed at 200 ms for the first seconds at 30%, and the hosts
// fast-forwarded 3% of them, 199 of 6,708 in the twelve games; in one game (seed 63) the
// episodes of the first 3 s lasted up to 21 frames, and the p90 read 8 frames.)
func TestFastForwardedDriftConverges(t *testing.T) {
	t.Parallel()
	onlyInFull(t) // its measure is a statistic of minutes of play
	for _, loss := range []float64{10, 20, 30} {
		t.Run(fmt.Sprintf("loss=%.0f%%", loss), func(t *testing.T) {
			t.Parallel()
			var lens []uint32
			var early, earlyRun uint64
			for seed := uint64(63); seed < 63+convergeSeeds; seed++ {
				g := playFastForwardedDrifts(t, seed, ffLink(loss), LeadAuto)
				lens = append(lens, g.lens...)
				early, earlyRun = early+g.earlyLate, earlyRun+g.earlyRun
			}
			bound := convergeBound(ffLink(loss))
			p50, p90, most := percentiles(lens)
			t.Logf("%.0f%% loss, %d games: %d episodes of drift: converged after p50 %d frames (%v), p90 %d (%v), max %d (%v); bound %d frames, %.1f%% beyond it; %d of %d commands of the first 5 s fast-forwarded",
				loss, convergeSeeds, len(lens), p50, time.Duration(p50)*DefaultFrame, p90, time.Duration(p90)*DefaultFrame, most, time.Duration(most)*DefaultFrame, bound, beyond(lens, bound), early, earlyRun)
			if p50 > bound || p90 > bound {
				t.Errorf("episodes of drift of p50 %d frames and p90 %d, want at most %d", p50, p90, bound)
			}
			if early*100 >= earlyRun {
				t.Errorf("%d of the %d commands the hosts ran in the first 5 s were fast-forwarded, want fewer than 1%%", early, earlyRun)
			}
		})
	}
}

// TestFastForwardedEventConverges: a fast-forwarded event leaves hosts that converge within
// one report period and a round trip (convergeBound). The teacher shows the fast-forward's
// drifts with a short lead (--late fastforward --lead 200ms) at the 30% preset: a command comes
// late to some host every second or so, all game long, on top of the drift of one client's
// state every few seconds. Each episode of drift is counted from the frame a host
// fast-forwarded the event behind it (fromFastForward): before it, no host had the event.
// Half end within the bound, and nine in ten, pooled over twelve games. (Counted from their
// first frame, the same episodes read p50 3 and p90 7: the rest is the events' lateness.)
func TestFastForwardedEventConverges(t *testing.T) {
	t.Parallel()
	onlyInFull(t) // its measure is a statistic of minutes of play
	const loss = 30
	var lens, fromStart []uint32
	var late uint64
	for seed := uint64(63); seed < 63+convergeSeeds; seed++ {
		g := playFastForwardedDrifts(t, seed, ffLink(loss), FixedLead(200*time.Millisecond))
		lens = append(lens, g.fromFastForward...)
		fromStart = append(fromStart, g.lens...)
		late += g.late
	}
	bound := convergeBound(ffLink(loss))
	s50, s90, _ := percentiles(fromStart)
	t.Logf("the same episodes counted from their first frames: p50 %d frames, p90 %d", s50, s90)
	p50, p90, most := percentiles(lens)
	t.Logf("%d%% loss, a lead of 200 ms, %d games: %d late events fast-forwarded; %d episodes of drift converged after p50 %d frames (%v), p90 %d (%v), max %d (%v); bound %d frames, %.1f%% beyond it",
		loss, convergeSeeds, late, len(lens), p50, time.Duration(p50)*DefaultFrame, p90, time.Duration(p90)*DefaultFrame, most, time.Duration(most)*DefaultFrame, bound, beyond(lens, bound))
	if late < 20*convergeSeeds {
		t.Errorf("%d late events fast-forwarded in %d games, want %d or more: the games did not measure the fast-forward", late, convergeSeeds, 20*convergeSeeds)
	}
	if p50 > bound || p90 > bound {
		t.Errorf("episodes of drift after a fast-forward of p50 %d frames and p90 %d, want at most %d", p50, p90, bound)
	}
}

// convergeSeeds is how many games the fast-forward's tests pool: a game has 13 to 100
// episodes, and the p90 of one game moves by several frames with any change to what the stack
// sends (which datagrams the seeded loss takes).
const convergeSeeds = 12

// ffGame is what one game of the fast-forward's tests measured: the length of each episode
// of drift from its first frame (lens) and from the fast-forward behind it (fromFastForward),
// the late events every host fast-forwarded, and those of the first 5 s of play against the
// commands the hosts ran then.
type ffGame struct {
	lens, fromFastForward []uint32
	late                  uint64
	earlyLate, earlyRun   uint64
}

// playFastForwardedDrifts plays one game of the fast-forward's tests, the lead set as lead,
// and returns what it measured, after checking what holds in every game.
func playFastForwardedDrifts(t *testing.T, seed uint64, link linksim.Settings, lead LeadSetting) ffGame {
	t.Helper()
	const play, every, quiet, early = 60 * time.Second, 4 * time.Second, 6 * time.Second, 5 * time.Second
	g := newVGame(t, vspec{seed: seed, bots: 1, clients: 5, link: link,
		server: func(c *ServerConfig) { c.Late, c.ReinforceBelow, c.Orders.Lead = LateFastForward, -1, lead },
		client: func(_ int, c *ClientConfig) { c.Late = LateFastForward }})
	var out ffGame
	cv := newConvergence(g)
	g.waitFor(10*time.Second, "every client running", func() bool {
		cv.observe()
		return g.srv.clock.running && !slices.ContainsFunc(g.clients, func(c *Client) bool { return !clientRunning(c) })
	})
	started := g.now
	if _, err := Populate(g.srv, g.live(), g.now, 4, 80); err != nil {
		t.Fatal(err)
	}
	var maxLead uint32
	turn, drifts := 0, 0
	kinds := []stateDrift{driftAttack, driftGenerator, driftNextID, driftNextAttackID}
	next, end := g.now.Add(every), g.now.Add(play)
	g.runUntil(end, func() bool {
		cv.observe()
		maxLead = max(maxLead, g.srv.lead.cur)
		if out.earlyRun == 0 && !g.now.Before(started.Add(early)) {
			// Every command reaches every host, the server and the clients.
			for _, n := range cv.lateSeen {
				out.earlyLate += n
			}
			out.earlyRun = g.srv.stats.CommandsRelayed * uint64(len(g.clients)+1)
		}
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
	for i, c := range g.clients {
		var forced []uint32
		for _, h := range c.drift.inject.hurts {
			forced = append(forced, h.frame)
		}
		for _, e := range cv.episodes(i) {
			out.lens = append(out.lens, e[1]-e[0]+1)
			out.fromFastForward = append(out.fromFastForward, e[1]-cv.fromFastForward(i, e, forced)+1)
		}
		// A client dropped from the game (two missed stop-the-world rounds) is
		// repaired no more: it is left out.
		if n := len(cv.diverged[i]); inGame[i] && (n == 0 || cv.diverged[i][n-1]) {
			t.Errorf("seed %d: client %d differs from the server at the last frame compared, %d", seed, i, n-1)
		}
	}
	if len(out.lens) == 0 {
		t.Fatalf("seed %d: no drift", seed)
	}
	s := res.server.Sync
	out.late = lateEvents(res)
	t.Logf("seed %d, %.0f%% loss, lead up to %d frames: %d state drifts forced, %d late events fast-forwarded; %d episodes of drift, the longest %d frames; %d states and %d units repaired, %d real-time and %d stop-the-world re-syncs",
		seed, link.LossPercent, maxLead, drifts, out.late, len(out.lens), slices.Max(out.lens), s.MismatchedStates, s.MismatchedUnits, s.RealtimeResyncs, s.StopWorldResyncs)
	// A drift of the state that comes while the repair of another is on its way is
	// repaired with it, or by a stop-the-world: fewer repairs than drifts.
	if want := int((play-quiet)/every) / 2; drifts < want || s.MismatchedStates == 0 {
		t.Errorf("seed %d: %d states repaired after %d drifts forced, want %d or more drifts, and repairs", seed, s.MismatchedStates, drifts, want)
	}
	if s.PlayersDropped > 0 {
		// Under the fast-forward a world that drifts again right after a stop-the-world is
		// repaired piece by piece (drift_server.go, againTooSoon), and nobody is dropped for it.
		t.Errorf("seed %d: %d players dropped", seed, s.PlayersDropped)
	}
	return out
}

// lateEvents counts the late events the hosts of res fast-forwarded.
func lateEvents(res sessionResult) uint64 {
	n := res.server.Sync.LateBeyondWindow
	for _, r := range res.clients {
		n += r.Sync.LateBeyondWindow
	}
	return n
}
