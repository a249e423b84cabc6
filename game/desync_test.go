package game

// Tests of the unit-hash checks and of both kinds of re-sync, in virtual time (vgame_test.go):
// a client corrupts some of its own units on purpose, and the server has to find and repair
// them while every bot plays on and the server keeps spawning enemies, to the last frame.
//
// Every game here has one server bot and two bot clients: three players of five units, ids 1
// to 15. A client reports the root hash of all of them at the frames that are multiples of
// hashReportEvery, and with the default group size of 16 the drill-down asks about one range,
// every id, with the server's hash of it. The units a client
// corrupts at once are reported together, drilled into by one HashRequest and answered by one
// UnitHashes: the server sees all of them in one go, which is what decides between a
// real-time and a stop-the-world re-sync.
//
// The session's logs keep only their latest records, a record changes as its drill-down ends,
// and a host's history of unit hashes keeps only the last historyFrames frames; so a
// desyncWatch follows them at every step of the game (the harness runs every host on the
// test's goroutine: between two steps the test may read any of them).

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

const (
	desyncBots    = 1
	desyncClients = 2
	// desyncWarmup: the tests corrupt units once every client is this many frames into the
	// game. The first hash group is reported at frames 20 and 30, so a corruption at frame 21
	// waits almost the longest possible time for the report that covers it.
	desyncWarmup = 21
	// desyncAfter: after the last re-sync, every host must run at least this many more frames.
	desyncAfter = 20
	// desyncPlayOn: how long the game goes on after the repairs a test waited for, so that the
	// worlds of many frames after them can be compared.
	desyncPlayOn = 5 * time.Second
	// desyncNever is the repair frame of a corruption not repaired (yet).
	desyncNever = ^uint32(0)
)

// desyncFindBound is how long after a corruption the server may take to find the corrupted
// units on link: a client reports every hashReportEvery frames, but a report can wait for the
// inputs of its frame to match, so the bound allows a second for the first report covering
// them to be checked; the server checks it once its own world has
// reached the frame (a client may be up to a frame ahead); the report, the server's
// HashRequest and the client's UnitHashes then cross the link once each. On a clean link that
// is 1.1 s of game time.
func desyncFindBound(link linksim.Settings) time.Duration {
	return time.Second + DefaultFrame + 3*(link.Latency+link.Jitter)
}

// desyncInjection is one corruption of a client's units: by the test (desyncWatch.inject) or
// by the client itself (ClientConfig.InjectDesync, seen by the watch).
type desyncInjection struct {
	client int
	seat   uint8
	at     time.Time
	// frame is the client's world frame right after the corruption: the first frame whose
	// hash report and history hold it (its world hash, taken before its events, may not).
	frame uint32
	n     int      // how many units were corrupted
	ids   []uint32 // which (nil for the client's own injections: the server's record says)
}

// desyncCheck is one of the server's hash checks that found a difference: its record as last
// seen, when the record appeared (the group mismatch), and when and at which server frame it
// was decided (its action became a real-time or a stop-the-world re-sync).
type desyncCheck struct {
	rec          SyncRecord
	opened       time.Time
	decided      time.Time
	decidedFrame uint32
	// decidedNext is when the server's frame decidedFrame was due to run, seen at the decision.
	decidedNext time.Time
}

func (c *desyncCheck) repair() bool {
	return c.rec.Action == ActionRealtime || c.rec.Action == ActionStopWorld
}

// desyncPause is one of the server's stop-the-world pauses: its record as last seen, and when
// it was ordered and when it ended.
type desyncPause struct {
	rec            PauseRecord
	ordered, ended time.Time
}

// desyncArrival is a real-time re-sync as one client received it: the frame it takes effect
// at, and the client's world frame when its UnitUpdate arrived.
type desyncArrival struct {
	client   int
	seat     uint8 // the seat repaired
	at       uint32
	arrivedF uint32
}

type desyncCheckKey struct {
	seat  uint8
	frame uint32
	when  time.Time
}

// desyncWatch follows a game's corruptions and repairs step by step.
type desyncWatch struct {
	g          *vgame
	injections []desyncInjection
	checks     []*desyncCheck
	byKey      map[desyncCheckKey]*desyncCheck
	pauses     []*desyncPause
	arrivals   []desyncArrival
	// moved lists the server frames seen during a pause after the server reached it: its
	// world must stand still there.
	moved []uint32
	// diffs holds, for each client, the units whose hash differed from the server's at each
	// frame both hosts had run (from their histories, before they forget the frame).
	diffs []map[uint32][]uint32

	desyncs []uint64 // each client's Desyncs counter as last seen
	frames  []uint32 // each client's world frame as last seen
	next    []uint32 // each client's next frame to compare with the server's
	arrived map[[3]uint32]bool
}

// newDesyncGame starts a game of desyncBots server bots and desyncClients bot clients as sp
// says, runs it until every client is at frame desyncWarmup, and checks that nothing differed
// so far.
func newDesyncGame(t *testing.T, sp vspec) (*vgame, *desyncWatch) {
	t.Helper()
	sp.bots, sp.clients = desyncBots, desyncClients
	g := newVGame(t, sp)
	n := len(g.clients)
	w := &desyncWatch{g: g, byKey: map[desyncCheckKey]*desyncCheck{}, arrived: map[[3]uint32]bool{},
		desyncs: make([]uint64, n), frames: make([]uint32, n), next: make([]uint32, n)}
	for range n {
		w.diffs = append(w.diffs, map[uint32][]uint32{})
	}
	w.waitFor(10*time.Second, fmt.Sprintf("every client at frame %d", desyncWarmup), func() bool {
		for _, c := range g.clients {
			if c.w == nil || c.drift.pause != nil || c.w.Frame() < desyncWarmup {
				return false
			}
		}
		return true
	})
	if st := g.srv.stats; st.MismatchedUnits != 0 || st.RealtimeResyncs != 0 || st.StopWorldResyncs != 0 {
		t.Fatalf("mismatches before any corruption: %d units, %d real-time and %d stop-the-world re-syncs",
			st.MismatchedUnits, st.RealtimeResyncs, st.StopWorldResyncs)
	}
	return g, w
}

// observe takes in what changed since the last step.
func (w *desyncWatch) observe() {
	g, s := w.g, w.g.srv
	if s.w == nil {
		return
	}
	for _, r := range s.drift.log.records {
		k := desyncCheckKey{r.Seat, r.Frame, r.When}
		ch := w.byKey[k]
		if ch == nil {
			ch = &desyncCheck{opened: g.now}
			w.byKey[k] = ch
			w.checks = append(w.checks, ch)
		}
		ch.rec = copyRecords([]SyncRecord{r})[0]
		if ch.decided.IsZero() && ch.repair() {
			ch.decided, ch.decidedFrame, ch.decidedNext = g.now, s.w.Frame(), s.clock.nextFrame
		}
	}
	for _, pr := range s.drift.log.pauses {
		i := slices.IndexFunc(w.pauses, func(p *desyncPause) bool { return p.rec.Frame == pr.Frame })
		if i < 0 {
			w.pauses = append(w.pauses, &desyncPause{ordered: g.now})
			i = len(w.pauses) - 1
		}
		p := w.pauses[i]
		p.rec = pr
		if !pr.Running && p.ended.IsZero() {
			p.ended = g.now
		}
	}
	if p := s.drift.pause; p != nil && !p.reached.IsZero() && s.w.Frame() != p.frame {
		w.moved = append(w.moved, s.w.Frame())
	}
	for i, c := range g.clients {
		if c.w == nil {
			continue
		}
		if d := c.stats.Desyncs; d > w.desyncs[i] {
			w.injections = append(w.injections, desyncInjection{client: i, seat: c.role.seat, at: g.now, frame: c.w.Frame(), n: int(d - w.desyncs[i])})
			w.desyncs[i] = d
		}
		// A UnitUpdate arrives in a Handle between two steps, and Handle never steps the
		// world: the client's frame then is the one seen at the previous step.
		for _, r := range c.drift.log.records {
			if k := [3]uint32{uint32(i), uint32(r.Seat), r.At}; r.Action == ActionRealtime && !w.arrived[k] {
				w.arrived[k] = true
				w.arrivals = append(w.arrivals, desyncArrival{client: i, seat: r.Seat, at: r.At, arrivedF: w.frames[i]})
			}
		}
		w.frames[i] = c.w.Frame()
		// Every frame both hosts have run is in both histories (a host records a frame as it
		// starts to run it); a frame before a re-sync is gone from the client's.
		for upto := min(c.w.Frame(), s.w.Frame()); w.next[i] < upto; w.next[i]++ {
			if d, ok := w.histDiff(i, w.next[i]); ok {
				w.diffs[i][w.next[i]] = d
			}
		}
	}
}

// histDiff lists the units whose hash at frame f differs between client i's history and the
// server's (missing on one side counts), and whether both still hold the frame.
func (w *desyncWatch) histDiff(i int, f uint32) ([]uint32, bool) {
	sh, ok1 := w.g.srv.drift.hist.at(f)
	ch, ok2 := w.g.clients[i].drift.hist.at(f)
	if !ok1 || !ok2 {
		return nil, false
	}
	var out []uint32
	for _, h := range sh {
		if c, ok := hashOf(ch, h.ID); !ok || c != h.Hash {
			out = append(out, h.ID)
		}
	}
	for _, h := range ch {
		if _, ok := hashOf(sh, h.ID); !ok {
			out = append(out, h.ID)
		}
	}
	slices.Sort(out)
	return out, true
}

// run moves the game on by d, watching.
func (w *desyncWatch) run(d time.Duration) {
	w.g.runUntil(w.g.now.Add(d), func() bool { w.observe(); return false })
}

// waitFor runs until cond holds, watching; it fails the test after max of game time.
func (w *desyncWatch) waitFor(max time.Duration, what string, cond func() bool) {
	w.g.t.Helper()
	w.g.waitFor(max, what, func() bool { w.observe(); return cond() })
}

// inject corrupts n of client i's units now.
func (w *desyncWatch) inject(i, n int) desyncInjection {
	w.g.t.Helper()
	c := w.g.clients[i]
	before := make(map[uint32]int32, len(c.w.Units()))
	for _, u := range c.w.Units() {
		before[u.ID] = u.HP
	}
	done := c.InjectDesync(n)
	inj := desyncInjection{client: i, seat: c.role.seat, at: w.g.now, frame: c.w.Frame(), n: n}
	for _, u := range c.w.Units() {
		if hp, ok := before[u.ID]; ok && hp != u.HP {
			inj.ids = append(inj.ids, u.ID)
		}
	}
	if done != n || len(inj.ids) != n {
		w.g.t.Fatalf("InjectDesync(%d) on client %d corrupted %d units: %v", n, i, done, inj.ids)
	}
	w.desyncs[i] = c.stats.Desyncs
	w.injections = append(w.injections, inj)
	return inj
}

// checkOf is the server's first hash check of inj's seat about a frame at or after the
// corruption: the one that should have found it. Nil if none yet.
func (w *desyncWatch) checkOf(inj desyncInjection) *desyncCheck {
	for _, ch := range w.checks {
		if ch.rec.Seat == inj.seat && ch.rec.Frame >= inj.frame {
			return ch
		}
	}
	return nil
}

// found reports whether the server decided the repair of inj.
func (w *desyncWatch) found(inj desyncInjection) bool {
	ch := w.checkOf(inj)
	return ch != nil && !ch.decided.IsZero()
}

// allFound reports whether the server decided the repair of every corruption so far.
func (w *desyncWatch) allFound() bool {
	for _, inj := range w.injections {
		if !w.found(inj) {
			return false
		}
	}
	return true
}

// repairFrame is the frame inj's repair takes effect at (a real-time re-sync's frame, or the
// paused frame), desyncNever if there is none yet.
func (w *desyncWatch) repairFrame(inj desyncInjection) uint32 {
	if ch := w.checkOf(inj); ch != nil && ch.repair() {
		return ch.rec.At
	}
	return desyncNever
}

// idsOf are the units inj corrupted: known to the test for its own injections, else the ones
// the server's check found; false if neither knows.
func (w *desyncWatch) idsOf(inj desyncInjection) ([]uint32, bool) {
	if inj.ids != nil {
		return inj.ids, true
	}
	ch := w.checkOf(inj)
	if ch == nil || !ch.repair() {
		return nil, false
	}
	var ids []uint32
	for _, u := range ch.rec.Units {
		ids = append(ids, u.ID)
	}
	return ids, true
}

// pauseOf is the first pause ordered at or after inj, nil if none.
func (w *desyncWatch) pauseOf(inj desyncInjection) *desyncPause {
	for _, p := range w.pauses {
		if !p.ordered.Before(inj.at) {
			return p
		}
	}
	return nil
}

// checkFound: the server found inj from the first hash report that covered it, within bound
// of the corruption; it decided the repair (action) within hashReportEvery frames of that
// report; and the record lists the corrupted units, each with two different hashes. It
// returns the check, nil if there is none.
func (w *desyncWatch) checkFound(t *testing.T, inj desyncInjection, bound time.Duration, action string) *desyncCheck {
	t.Helper()
	ch := w.checkOf(inj)
	if ch == nil || ch.decided.IsZero() {
		t.Errorf("client %d (seat %d): the corruption of %d units before frame %d was never found (check %+v)",
			inj.client, inj.seat, inj.n, inj.frame, ch)
		return nil
	}
	r := ch.rec
	t.Logf("client %d (seat %d): %d units corrupted before frame %d; report of frame %d: group mismatch %v later, %s decided %v later at server frame %d, for frame %d",
		inj.client, inj.seat, inj.n, inj.frame, r.Frame, ch.opened.Sub(inj.at), r.Action, ch.decided.Sub(inj.at), ch.decidedFrame, r.At)
	if d := ch.decided.Sub(inj.at); d > bound {
		t.Errorf("client %d: the corrupted units were found %v after the corruption, want at most %v", inj.client, d, bound)
	}
	if r.Frame >= inj.frame+hashReportEvery {
		t.Errorf("client %d: the mismatch came from the report of frame %d, not the first one after the corruption before frame %d",
			inj.client, r.Frame, inj.frame)
	}
	if ch.decidedFrame > r.Frame+hashReportEvery {
		t.Errorf("client %d: the report of frame %d was decided only at server frame %d", inj.client, r.Frame, ch.decidedFrame)
	}
	if r.Action != action {
		t.Errorf("client %d: the check of frame %d ended in %q, want %q", inj.client, r.Frame, r.Action, action)
	}
	ids, _ := w.idsOf(inj)
	if len(r.Units) != inj.n || (inj.ids != nil && !slices.Equal(ids, inj.ids)) {
		t.Errorf("client %d: the record of frame %d lists units %+v, want the %d corrupted %v", inj.client, r.Frame, r.Units, inj.n, inj.ids)
	}
	for _, u := range r.Units {
		owner := uint8(255)
		if unit, ok := w.g.srv.w.Unit(u.ID); ok {
			owner = unit.Owner
		}
		if !u.LocalKnown || u.Local == u.Server || u.NoLocal || u.NoServer || owner != inj.seat {
			t.Errorf("client %d: the record of frame %d lists %+v (owner %d), want a unit of seat %d with two hashes", inj.client, r.Frame, u, owner, inj.seat)
		}
	}
	return ch
}

// expected is what may differ between client i's units and the server's at frame f: the units
// corrupted there and not yet repaired. False if an unknown set of units may differ (a
// corruption the server has not found yet).
func (w *desyncWatch) expected(i int, f uint32) ([]uint32, bool) {
	var want []uint32
	for _, inj := range w.injections {
		if inj.client != i || f < inj.frame || f >= w.repairFrame(inj) {
			continue
		}
		ids, ok := w.idsOf(inj)
		if !ok {
			return nil, false
		}
		want = append(want, ids...)
	}
	slices.Sort(want)
	return want, true
}

// checkUnits compares every unit of every client with the server's at every frame the watch
// saw both run: the corrupted units, and only they, differ from their corruption until the
// frame their repair takes effect at (a client at frame F has the units as they are when F
// starts, after F's events: the repair included); nothing else ever differs. It checks that
// the watch compared every frame from each corruption to its repair. Frames from a
// corruption the server has not found yet on are not compared: they have not settled.
func (w *desyncWatch) checkUnits(t *testing.T) {
	t.Helper()
	for i := range w.g.clients {
		frames := slices.Sorted(maps.Keys(w.diffs[i]))
		compared, corrupted, wrong := 0, 0, 0
		for _, f := range frames {
			want, ok := w.expected(i, f)
			if !ok {
				break
			}
			compared++
			if len(want) > 0 {
				corrupted++
			}
			if got := w.diffs[i][f]; !slices.Equal(got, want) {
				if wrong++; wrong <= 5 {
					t.Errorf("client %d, frame %d: units %v differ from the server's, want %v", i, f, got, want)
				}
			}
		}
		if wrong > 5 {
			t.Errorf("client %d: %d frames in all with units that differ from the server's other than the corrupted ones", i, wrong)
		}
		t.Logf("client %d: units compared with the server's at %d frames (%d of them with corrupted units)", i, compared, corrupted)
		for _, inj := range w.injections {
			at := w.repairFrame(inj)
			if inj.client != i || at == desyncNever {
				continue
			}
			for f := inj.frame; f <= at; f++ {
				if _, ok := w.diffs[i][f]; !ok {
					t.Errorf("client %d: frame %d, between the corruption before frame %d and its repair at %d, was not compared", i, f, inj.frame, at)
					break
				}
			}
		}
	}
}

// windows are the spans of client i's world-hash frames that may differ from the server's:
// from a corruption to its repair (the world hash of a frame is the world before its events),
// or to the end if there was no repair.
func (w *desyncWatch) windows(i int) [][2]uint32 {
	var out [][2]uint32
	for _, inj := range w.injections {
		if inj.client == i {
			out = append(out, [2]uint32{inj.frame, w.repairFrame(inj)})
		}
	}
	return out
}

// checkWorlds compares every client's world hashes in its report with the server's at every
// frame both recorded (every 10th frame of the game): they must be equal outside the client's
// windows, and there must be at least two such frames after its last repair.
func (w *desyncWatch) checkWorlds(t *testing.T, res sessionResult) {
	t.Helper()
	for i, r := range res.clients {
		wins := w.windows(i)
		var last uint32
		open := false
		for _, win := range wins {
			if win[1] == desyncNever {
				open = true
			} else {
				last = max(last, win[1])
			}
		}
		compared, after, inside := 0, 0, 0
		for f, h := range r.WorldHashes {
			n, err := strconv.ParseUint(f, 10, 32)
			if err != nil {
				t.Errorf("%s: world hash at frame %q", r.Name, f)
				continue
			}
			sh, ok := res.server.WorldHashes[f]
			if !ok {
				continue
			}
			frame := uint32(n)
			if slices.ContainsFunc(wins, func(win [2]uint32) bool { return frame >= win[0] && frame <= win[1] }) {
				inside++
				continue
			}
			compared++
			if frame > last {
				after++
			}
			if sh != h {
				t.Errorf("%s: world hash at frame %d is %s, the server's %s, outside the corruptions' windows %v", r.Name, frame, h, sh, wins)
			}
		}
		t.Logf("%s: world hashes of %d frames compared with the server's (%d after its last repair), %d inside corruption windows %v",
			r.Name, compared, after, inside, wins)
		if (!open && after < 2) || compared < 2 {
			t.Errorf("%s: %d world hashes compared, %d after the last repair at frame %d: want 2 or more", r.Name, compared, after, last)
		}
	}
}

// checkRanOn: every host ran at least desyncAfter frames after the server's last re-sync.
func checkRanOn(t *testing.T, res sessionResult) {
	t.Helper()
	last := res.server.Sync.LastResyncFrame
	for _, r := range append([]Report{res.server}, res.clients...) {
		if r.Frame < last+desyncAfter {
			t.Errorf("%s stopped at frame %d, under %d frames after the last re-sync at %d", r.Name, r.Frame, desyncAfter, last)
		}
	}
}

// checkArrivedOnTime: every client received each of the server's real-time re-syncs, and
// before the frame it takes effect at (a client at frame F has not run F yet), so it
// applied it on time rather than by fast-forwarding.
func (w *desyncWatch) checkArrivedOnTime(t *testing.T, repairs uint64) {
	t.Helper()
	got := make([]uint64, len(w.g.clients))
	for _, a := range w.arrivals {
		got[a.client]++
		t.Logf("client %d: the repair of seat %d for frame %d arrived at its frame %d", a.client, a.seat, a.at, a.arrivedF)
		if a.arrivedF > a.at {
			t.Errorf("client %d: the repair of seat %d for frame %d arrived at frame %d, %d frames late: applied by fast-forward",
				a.client, a.seat, a.at, a.arrivedF, a.arrivedF-a.at)
		}
	}
	for i, n := range got {
		if n != repairs {
			t.Errorf("client %d received %d real-time re-syncs, the server made %d", i, n, repairs)
		}
	}
}

// TestInjectDesyncRealtimeRepair: a unit corrupted on a client is found from the first report
// that covers it, within desyncFindBound, and repaired by a real-time re-sync (the world does
// not stop) that every client receives before its frame: the unit equals the server's from
// that frame on, nothing else ever differs, and the worlds stay equal to the end.
func TestInjectDesyncRealtimeRepair(t *testing.T) {
	t.Parallel()
	type step struct {
		after  time.Duration // game time since the previous corruption
		client int
	}
	for _, tt := range []struct {
		name  string
		seed  uint64
		link  linksim.Settings
		steps []step
	}{
		{"one unit", 21, linksim.Settings{}, []step{{client: 0}}},
		// One client's repair does not hold back the other's.
		{"two clients at once", 25, linksim.Settings{}, []step{{client: 0}, {client: 1}}},
		// 60 ms each way: a round trip of 120 ms still brings the update before its frame.
		// The second corruption comes past the re-check of the first repair (report,
		// drill-down, update, the next report), so that neither looks like a repeat.
		{"over latency", 24, linksim.Settings{Latency: 60 * time.Millisecond}, []step{{client: 0}, {after: 3500 * time.Millisecond, client: 1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, w := newDesyncGame(t, vspec{seed: tt.seed, link: tt.link})
			bound := desyncFindBound(tt.link)
			for _, s := range tt.steps {
				if s.after > 0 {
					w.run(s.after)
				}
				w.inject(s.client, 1)
			}
			w.waitFor(2*bound, "every repair", w.allFound)
			w.run(desyncPlayOn)
			t.Logf("server: %d hash reports or answers too old to check", g.srv.stats.HashReportsTooOld)
			var last uint32
			for _, inj := range w.injections {
				if ch := w.checkFound(t, inj, bound, ActionRealtime); ch != nil {
					last = max(last, ch.rec.At)
				}
			}
			w.checkUnits(t)
			res := g.result()
			logReports(t, res)
			n := uint64(len(tt.steps))
			s := res.server.Sync
			if s.MismatchedUnits != n || s.RealtimeResyncs != n || s.StopWorldResyncs != 0 || len(s.PauseMillis) != 0 {
				t.Errorf("server: %d mismatched units, %d real-time and %d stop-the-world re-syncs (pauses %v ms) for %d single-unit corruptions, want %d, %d and none",
					s.MismatchedUnits, s.RealtimeResyncs, s.StopWorldResyncs, s.PauseMillis, n, n, n)
			}
			if s.LastResyncFrame != last {
				t.Errorf("server: last re-sync at frame %d, the last repair's frame is %d", s.LastResyncFrame, last)
			}
			for _, r := range res.clients {
				// Every client applies every repair, of its own units and of the others'.
				if c := r.Sync; c.RealtimeResyncs != n || c.MismatchedUnits != n || c.StopWorldResyncs != 0 {
					t.Errorf("%s: %d real-time re-syncs of %d units and %d stop-the-world re-syncs received, want %d of one unit each",
						r.Name, c.RealtimeResyncs, c.MismatchedUnits, c.StopWorldResyncs, n)
				}
			}
			w.checkArrivedOnTime(t, n)
			checkRanOn(t, res)
			w.checkWorlds(t, res)
		})
	}
}

// TestInjectDesyncManyUnitsStopsTheWorld: more units corrupted at once than the real-time limit
// make the server stop the world; the world stands still at the paused frame until every host
// is re-synced, the pause ends on every host, and from the paused frame on every world equals
// the server's.
func TestInjectDesyncManyUnitsStopsTheWorld(t *testing.T) {
	t.Parallel()
	const realtimeMax = 2
	g, w := newDesyncGame(t, vspec{seed: 22, server: func(c *ServerConfig) { c.RealtimeMax = realtimeMax }})
	inj := w.inject(0, realtimeMax+1)
	w.waitFor(10*time.Second, "the pause's end on every host", func() bool {
		p := w.pauseOf(inj)
		if p == nil || p.ended.IsZero() {
			return false
		}
		for _, c := range g.clients {
			if c.drift.pause != nil {
				return false
			}
		}
		return true
	})
	p := w.pauseOf(inj)
	t.Logf("pause at frame %d: ordered %v after the corruption, reached %v later; the world stood still %d ms (%d units re-synced); it ended %v after the corruption",
		p.rec.Frame, p.ordered.Sub(inj.at), p.rec.Start.Sub(p.ordered), p.rec.Millis, p.rec.Units, p.ended.Sub(inj.at))
	if p.rec.Millis <= 0 || p.rec.Units < inj.n || p.rec.Start.IsZero() {
		t.Errorf("server pause record %+v: want a start, a length and at least the %d corrupted units", p.rec, inj.n)
	}
	for i, c := range g.clients {
		k := slices.IndexFunc(c.drift.log.pauses, func(r PauseRecord) bool { return r.Frame == p.rec.Frame })
		if k < 0 || c.drift.log.pauses[k].Running || c.drift.log.pauses[k].Millis <= 0 || c.drift.log.pauses[k].Start.IsZero() {
			t.Errorf("client %d: pauses %+v, want the one at frame %d, ended, with a start and a length", i, c.drift.log.pauses, p.rec.Frame)
		}
	}
	w.run(desyncPlayOn)
	if ch := w.checkFound(t, inj, desyncFindBound(linksim.Settings{}), ActionStopWorld); ch != nil && ch.rec.At != p.rec.Frame {
		t.Errorf("the stop-the-world was recorded for frame %d, the pause is at frame %d", ch.rec.At, p.rec.Frame)
	}
	if len(w.moved) > 0 {
		t.Errorf("the server's world moved to frames %v while paused at frame %d", w.moved, p.rec.Frame)
	}
	// The watch compared the frames before the pause as they were run: the re-sync has since
	// cleared the clients' histories.
	w.checkUnits(t)
	res := g.result()
	logReports(t, res)

	s := res.server.Sync
	t.Logf("pauses: server %v ms, %s %v ms, %s %v ms", s.PauseMillis,
		res.clients[0].Name, res.clients[0].Sync.PauseMillis, res.clients[1].Name, res.clients[1].Sync.PauseMillis)
	if s.StopWorldResyncs != 1 || len(s.PauseMillis) != 1 || s.RealtimeResyncs != 0 {
		t.Errorf("server: %d stop-the-world re-syncs, pauses %v ms, %d real-time re-syncs, want one pause that ended and nothing else",
			s.StopWorldResyncs, s.PauseMillis, s.RealtimeResyncs)
	}
	if s.MismatchedUnits != uint64(inj.n) {
		t.Errorf("server: %d mismatched units, %d were corrupted", s.MismatchedUnits, inj.n)
	}
	if s.LastResyncFrame != p.rec.Frame {
		t.Errorf("server: last re-sync at frame %d, the pause at %d", s.LastResyncFrame, p.rec.Frame)
	}
	for _, r := range res.clients {
		if r.Sync.StopWorldResyncs != 1 || len(r.Sync.PauseMillis) != 1 {
			t.Errorf("%s: %d pauses received, pauses %v ms: want one that ended", r.Name, r.Sync.StopWorldResyncs, r.Sync.PauseMillis)
		}
	}
	// A client counts the units it was sent: the corrupted one gets them at once and again
	// once its hashes showed them.
	if n := res.clients[0].Sync.MismatchedUnits; n < uint64(inj.n) {
		t.Errorf("%s: %d units re-synced, %d were corrupted", res.clients[0].Name, n, inj.n)
	}
	checkRanOn(t, res)
	w.checkWorlds(t, res)
}

// TestInjectDesyncFlag: with ClientConfig.InjectDesync (the --inject-desync flag) both clients
// corrupt a unit of theirs every 2 s, to the end of the game. Every corruption old enough to
// have been reported is found from the first report that covers it and repaired in real time,
// and the worlds equal the server's outside the spans from a corruption to its repair.
func TestInjectDesyncFlag(t *testing.T) {
	t.Parallel()
	const every, dur = 2 * time.Second, 15 * time.Second
	g, w := newDesyncGame(t, vspec{seed: 23, client: func(i int, c *ClientConfig) { c.InjectDesync = every }})
	w.run(dur)
	// Then a while without corruptions: the last one is repaired within a few frames, and the
	// worlds after it must be compared too.
	for _, c := range g.clients {
		c.cfg.InjectDesync = 0
	}
	w.run(2 * time.Second)
	bound := desyncFindBound(linksim.Settings{})
	found, pending := 0, 0
	perClient := make([]int, len(g.clients))
	for _, inj := range w.injections {
		perClient[inj.client]++
		if !w.found(inj) && inj.at.Add(bound).After(g.now) {
			pending++ // too recent to have been found
			continue
		}
		if w.checkFound(t, inj, bound, ActionRealtime) != nil {
			found++
		}
	}
	w.checkUnits(t)
	repairs := g.srv.stats.RealtimeResyncs
	w.checkArrivedOnTime(t, repairs)
	res := g.result()
	logReports(t, res)
	t.Logf("%d corruptions %v per client: %d found and repaired, %d too recent to have been found", len(w.injections), perClient, found, pending)
	for i, n := range perClient {
		// Every 2 s from the client's first frame on, to the end.
		if want := int(dur/every) - 1; n < want {
			t.Errorf("client %d corrupted %d units in %v, want %d or more", i, n, dur, want)
		}
		if d := g.clients[i].stats.Desyncs; d != uint64(n) {
			t.Errorf("client %d counts %d corruptions, the watch saw %d", i, d, n)
		}
	}
	s := res.server.Sync
	if s.MismatchedUnits != uint64(found) || s.RealtimeResyncs != uint64(found) || s.StopWorldResyncs != 0 || len(s.PauseMillis) != 0 {
		t.Errorf("server: %d mismatched units, %d real-time and %d stop-the-world re-syncs (pauses %v ms) after %d single-unit corruptions found, want %d, %d and none",
			s.MismatchedUnits, s.RealtimeResyncs, s.StopWorldResyncs, s.PauseMillis, found, found, found)
	}
	w.checkWorlds(t, res)
}
