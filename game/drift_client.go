package game

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Drift checking and repair, the client's side (the server's side, and the idea, are in
// drift_server.go).
//
// A client reports, five times a second, the root of its hash tree over the units of the frame
// it just ran, the hash of the rest of its world's state, the digest of the inputs that made
// the frame and a locator that names one drifted unit (reportHashes), answers the server's
// drill-down from its hash history (hashRequest), applies real-time repairs as events of their
// frame (a UnitUpdate, in the schedule: its units, then the server's core state, applyUpdate),
// and takes part in a stop-the-world re-sync: it pauses at the ordered frame, sends the hash of
// every unit (reachPause), puts the server's batches in place and acknowledges each
// (resyncBatch), and resumes when told. It also keeps, for the debug panel, what it saw of
// each (the log), and the corruptions injected on purpose, which a re-run of their frame must
// repeat.

// clientDrift is the client's state of drift checking and repair.
type clientDrift struct {
	hist   hashHistory  // the unit and state hashes of the recent frames
	rw     rewinder     // the copies of the world for re-running late events (resim.go)
	hashes worldHashLog // the world hash of every 10th frame, for the --stats report
	pause  *pauseOrder  // the stop-the-world re-sync ordered (nil: none)
	// early are batches that came before StartGame; copy: the world on its way is a
	// spectator's own copy (spectate.go), not the world of a game joined while running.
	early []*ResyncBatch
	copy  bool
	// The debug panel's record of what this client saw (drift_log.go): the log, the latest
	// answers to drill-downs (to find its own hashes of a repaired unit), and the units the
	// stop-the-world record already holds or counts in More, so that a unit sent in two
	// batches counts once (bookkeeping: never iterated). Nothing here is read by the
	// simulation.
	log       syncLog
	answers   []drillAnswer
	reported  []reportedState
	pauseSeen map[uint32]bool
	inject    desyncInjector
	// reportNext: the next frame reports its hashes whatever its turn (a re-run changed the
	// frames reported since the late event: resimulate).
	reportNext bool
	// reportsAfterLate: the frames still to report, whatever their turn, after a late event
	// was fast-forwarded here.
	reportsAfterLate int
}

// reportsAfterLate is how many frames report their hashes each, whatever their turn, after a
// client fast-forwarded a late event (--late fastforward, or one later than the re-run window).
const reportsAfterLate = 3

// pauseOrder is a stop-the-world re-sync ordered by the server, on the client.
type pauseOrder struct {
	frame     uint32
	reachedAt time.Time        // when the world reached the frame and the hashes went (zero before)
	resumeAt  time.Time        // when the world goes on (zero: no Resume yet)
	hashes    []world.UnitHash // the WorldHashes sent for it, ids ascending
}

// reached reports whether the world reached the paused frame, and sent its hashes.
func (p *pauseOrder) reached() bool { return !p.reachedAt.IsZero() }

// reportHashes sends, every hashReportEvery frames (five times a second), the hashes of the
// frame just run (frame, after its events): the root of the hash tree over the units (the
// XOR of every unit's hash, ids 1 to world.MaxUnitID, 0 for a world without units); the
// hash of the rest of the world's state (world.World.StateHash: the id counters, the random
// generator, the attacks in flight), so that the server checks everything the world hash
// covers; the digest of the inputs that made the frame (schedule.inputDigests), so that the server
// compares it as soon as it ran the same ones, without waiting for the frame to settle; and
// the locator (drift_history.go), which names the unit when one alone differs: at most 37 bytes
// whatever the world's size (at a frame past 16,383 and ids below 16,384). When the root
// differs and the locator cannot name the unit, the server asks for the next level down (a
// HashRequest with its hashes of at most ten sub-ranges, drillRequest), and the client answers
// the units of the sub-ranges that differ (hashRequest): only a mismatch costs more than the
// report. A state that differs needs no drill-down: the server's repair carries its whole
// state. A report is unreliable, and a lost one is replaced by the next, 200 ms later: the
// frequency is what finds a drift within a second at the class's loss, for about 180 B/s per
// client (BENCHMARKS.md). After the client fast-forwarded a late event, which likely drifted
// its world, each of the next reportsAfterLate frames reports: at 30% loss, two reports in a
// row were lost one drift in eleven, each loss hiding it two frames more. (With a 200 ms lead
// at the 30% preset, the p90 of the episodes of drift after a fast-forward went from 7 frames
// to 6: TestFastForwardedEventConverges.)
func (c *Client) reportHashes(now time.Time, frame uint32) {
	f := frame
	if f%hashReportEvery != 0 && !c.drift.reportNext && c.drift.reportsAfterLate == 0 {
		return // not this frame's turn: the root walks every unit, so only for a report
	}
	c.drift.reportNext = false
	c.drift.reportsAfterLate = max(c.drift.reportsAfterLate-1, 0)
	hs, ok := c.drift.hist.at(f)
	state, _ := c.drift.hist.stateAt(f)      // kept with the unit hashes
	inputs, _ := c.drift.hist.inputsAt(f, 0) // from the floor the schedule had (inputDigests)
	if !ok {
		return // before the start, or before the world was put in place by a re-sync
	}
	c.stats.HashReports++
	c.drift.reported = appendBounded(c.drift.reported, reportedState{frame: f, state: state}, maxAnswers)
	c.send(now, &HashReport{Frame: f, Root: rootHash(hs), State: state, Inputs: inputs, Locator: locator(hs)})
}

// reportedState is the state hash a client reported for a frame: the one the server compared,
// which a re-run of the frame since may have changed in the history.
type reportedState struct {
	frame uint32
	state uint64
}

// hashRequest answers the server's drill-down from the history of that frame
// (answerDrillDown).
func (c *Client) hashRequest(now time.Time, r *HashRequest) {
	c.stats.HashRequests++
	rec := SyncRecord{When: now, Seat: c.role.seat, Frame: r.Frame, Action: ActionDrillDown}
	hs, ok := c.drift.hist.at(r.Frame)
	if !ok {
		if len(r.Hashes) == 0 {
			rec.Groups = slices.Clone(r.Ranges) // with the server's hashes, which differ is unknown here
		}
		rec.Action = ActionNoDrillDown
		c.drift.log.records = pushRecord(c.drift.log.records, rec)
		return // too old: the next report will show the problem again
	}
	answer, differ := answerDrillDown(hs, r)
	c.stats.MismatchedGroups += uint64(len(differ))
	rec.Groups = slices.Clone(differ)
	c.drift.log.records = pushRecord(c.drift.log.records, rec)
	// Kept aside, not in the record: these are candidates, most of them equal to the server's.
	// The server's UnitUpdate says which ones differed.
	c.drift.answers = append(c.drift.answers, drillAnswer{frame: r.Frame, hashes: answer.Hashes})
	if len(c.drift.answers) > maxAnswers {
		c.drift.answers = slices.Delete(c.drift.answers, 0, len(c.drift.answers)-maxAnswers)
	}
	c.send(now, answer)
}

// answerDrillDown is the answer to the drill-down r from the unit hashes hs of its frame (id
// order), and the ranges it answers. A request with the server's hash of each range is
// answered with the units of the ranges whose hashes differ here, and lists the others as
// skipped; one without, with every unit of every range. The work is a binary search and a walk
// per range, and a pass over the units, for at most MaxHashRanges ranges.
func answerDrillDown(hs []world.UnitHash, r *HashRequest) (*UnitHashes, []IDRange) {
	answer := &UnitHashes{Frame: r.Frame}
	differ := r.Ranges
	if len(r.Hashes) > 0 && len(r.Hashes) == len(r.Ranges) {
		differ = nil
		for i, rg := range r.Ranges {
			if rangeHash(hs, rg.Start, rg.End) == r.Hashes[i] {
				answer.Skipped = append(answer.Skipped, rg)
			} else {
				differ = append(differ, rg)
			}
		}
	}
	for _, h := range hs {
		if inRanges(differ, h.ID) {
			answer.Hashes = append(answer.Hashes, h)
		}
	}
	return answer, differ
}

// pauseOrdered: the server ordered a stop-the-world pause at v.Frame. A world already there
// (the order came late) pauses where it is.
func (c *Client) pauseOrdered(now time.Time, v *Pause) {
	c.stats.StopWorldResyncs++
	c.logPause(now, v.Frame)
	if c.phase == phasePaused {
		c.moveTo(phaseRunning) // a new pause replaces one that never resumed: its world goes on to the new frame
	}
	c.drift.pause = &pauseOrder{frame: v.Frame}
	if c.w != nil && c.phase == phaseRunning && c.w.Frame() >= v.Frame {
		c.reachPause(now)
	}
}

// reachPause: the world is at the paused frame. The client sends the hash of every unit and of
// the attacks in flight, and waits for the server's batches.
func (c *Client) reachPause(now time.Time) {
	p := c.drift.pause
	if p.reached() {
		return
	}
	p.reachedAt = now
	if c.phase == phaseRunning {
		c.moveTo(phasePaused)
	}
	if pr := c.runningPause(); pr != nil {
		pr.Start = now
	}
	if c.spectating() {
		return // the server sends a spectator the whole paused world, and wants no hashes
	}
	hs := c.w.UnitHashes(1, world.MaxUnitID, nil)
	p.hashes = hs
	var ah uint64
	for _, a := range c.w.Attacks() {
		ah ^= a.Hash()
	}
	c.send(now, &WorldHashes{Frame: p.frame, Hashes: hs, AttacksHash: ah})
}

// resyncBatch puts the server's units in place (a stop-the-world re-sync, or the world of a game
// joined while running) and tells the server.
func (c *Client) resyncBatch(now time.Time, b *ResyncBatch) {
	if c.w == nil {
		// Before StartGame (the server makes batches depend on it, so only a peer that does not
		// could do this): keep it for when the world exists.
		c.drift.early = append(c.drift.early, b)
		return
	}
	d := &c.drift
	// A spectator's own copy of the world, sent to it alone while the game runs because its
	// reports showed a drift (spectate.go): the whole world, which replaces its own. It comes
	// in batches, a chain, the one with the state last: from the first batch on, the world
	// waits, as a joining client's does, and it goes on from the state.
	fresh := c.spectating() && d.pause == nil && (d.copy || c.phase != phaseAwaitingWorld)
	if fresh && len(b.State) == 0 && c.phase != phaseAwaitingWorld {
		d.copy = true
		c.moveTo(phaseAwaitingWorld)
	}
	awaiting := c.phase == phaseAwaitingWorld
	if !awaiting && d.pause == nil && !fresh {
		c.stats.BadMessages++ // no snapshot expected and no pause: a batch would rewrite a running world
		return
	}
	if d.pause != nil && !awaiting && b.Frame == d.pause.frame && !c.spectating() {
		c.logBatch(b) // a spectator's batch is the whole world: it says nothing about what differed
	}
	for _, id := range b.Removed {
		c.w.RemoveUnit(id)
	}
	for _, u := range b.Units {
		if err := c.w.SetUnit(u); err != nil {
			c.cfg.Logger.Warn("resync unit", "err", err)
		}
	}
	if len(b.State) > 0 {
		if st, _, err := world.ParseState(b.State); err == nil {
			was := c.w.Frame()
			if err := c.w.ApplyState(st); err != nil {
				c.cfg.Logger.Warn("resync state", "err", err)
			} else if c.w.Frame() < was {
				// The world went back (the Pause came after this client had run past its
				// frame): the events of the frames it runs again must run again too.
				c.sched.rewind(c.w.Frame())
			}
		}
	}
	d.hist.clear()
	// The world was put in place: no re-run may go back before it.
	d.rw.reset(c.w.Frame())
	if len(b.State) > 0 && (d.pause != nil || fresh) {
		// A stop-the-world re-sync: the world is now the server's as of the paused frame, and
		// the server applied every late event it had before it sent that state and refuses
		// later ones; events for earlier frames still waiting here must not run.
		// A spectator's own copy of the world is treated the same way: an event for an earlier
		// frame still on its way is in that world already (or, rarely, the server ran it late
		// after the copy left, and the spectator's next report shows the difference).
		// (A snapshot for a joining client is different: the server still applies its late
		// events at its next step, and sends them along.)
		c.sched.dropBefore(b.Frame)
	}
	if len(b.State) > 0 {
		// The world is the server's copy of b.Frame: this host never ran the events before
		// it, and the server leaves them out of the digest it compares this client's
		// reports with (reportDue).
		c.sched.worldCopied(b.Frame)
	}
	switch {
	case fresh && len(b.State) > 0:
		c.stats.WorldCopies++
		d.copy = false
		c.moveTo(phaseRunning)
	case fresh:
		// more of the copy to come
	case awaiting && len(b.State) > 0:
		d.copy = false
		c.moveTo(phaseRunning)
		c.clock.syncFrame, c.clock.syncAt = c.w.Frame(), now
	case d.pause != nil && !c.spectating():
		c.stats.MismatchedUnits += uint64(len(b.Units) + len(b.Removed))
		c.send(now, &BatchApplied{Frame: b.Frame, Batch: b.Batch})
	}
}

// resume ends the pause: the world goes on from the frame after it.
func (c *Client) resume(now time.Time) {
	p := c.drift.pause
	pr := c.runningPause()
	if p.reached() {
		c.stats.PauseMillis = appendBounded(c.stats.PauseMillis, now.Sub(p.reachedAt).Milliseconds(), maxPausesKept)
		if pr != nil {
			pr.Millis = now.Sub(p.reachedAt).Milliseconds()
		}
	}
	if pr != nil {
		pr.Running = false
	}
	c.drift.pause, c.drift.pauseSeen = nil, nil
	if c.phase == phasePaused {
		c.moveTo(phaseRunning)
	}
	// The server stepped the paused frame the moment it resumed, and it counted the delay from
	// when it sent the Resume, about half a round trip before it arrived here: so it is now at
	// the frame after the pause, since about half a round trip.
	half := time.Duration(0)
	if p := c.tr.Peer(); p != nil {
		half = p.Stats().MinRTT / 2
	}
	c.clock.syncFrame, c.clock.syncAt, c.clock.nextFrame = c.w.Frame()+1, now.Add(-half), now
	c.drift.hist.clear()
}

// Drift on purpose.

// desyncInjector is the corruptions injected on purpose: when the next timed one comes
// (ClientConfig.InjectDesync), where the next starts looking, and the latest ones, kept so
// that a re-run of their frame repeats them (resim.go): a desync the class is waiting to see
// found must not be healed by a late command.
type desyncInjector struct {
	nextHurt time.Time
	next     int
	hurts    []hurt
	// from is the frame the re-run under way started at, from a copy of the world taken at
	// the start of that frame: it holds the corruptions injected before it, between two
	// frames, already.
	from uint32
}

// injectOnTimer corrupts one of this player's units every ClientConfig.InjectDesync.
func (c *Client) injectOnTimer(now time.Time) {
	in := &c.drift.inject
	if c.cfg.InjectDesync > 0 && !now.Before(in.nextHurt) {
		if !in.nextHurt.IsZero() && c.injectDesync(1, true) > 0 {
			// The log says when, so that the time to find and repair it can be measured.
			c.cfg.Logger.Info("desync injected", "frame", c.w.Frame(), "unit", in.hurts[len(in.hurts)-1].id)
		}
		in.nextHurt = now.Add(c.cfg.InjectDesync)
	}
}

// InjectDesync corrupts n of this player's units locally (their hit points), so that the
// server's hash checks find and repair them. More than the real-time limit at once makes the
// server stop the world. It returns how many it corrupted: fewer than n when the player has
// fewer units with hit points to spare (none before the game starts).
func (c *Client) InjectDesync(n int) int { return c.injectDesync(n, false) }

// injectDesync is InjectDesync, during a frame's step after its events (afterEvents) or
// between two frames: a re-run of the frame repeats it at the same point.
func (c *Client) injectDesync(n int, afterEvents bool) int {
	if c.w == nil || c.spectating() {
		return 0 // a spectator has no units to corrupt
	}
	done := 0
	// Take the player's units in turn, starting after the one hurt last, so that a repeated
	// injection does not keep hitting a unit the server has just repaired.
	var mine []world.Unit
	for _, u := range c.w.Units() {
		if u.Owner == c.role.seat && !u.IsEnemy() && u.HP > 1 {
			mine = append(mine, u)
		}
	}
	start := c.drift.inject.next
	for i := 0; i < len(mine) && n > 0; i++ {
		j := (start + i) % len(mine)
		if hurtUnit(c.w, mine[j].ID) {
			n--
			done++
			c.stats.Desyncs++
			c.drift.inject.next = j + 1
			c.drift.inject.hurts = appendBounded(c.drift.inject.hurts, hurt{frame: c.w.Frame(), id: mine[j].ID, afterEvents: afterEvents}, 64)
		}
	}
	return done
}

// hurt is a corruption injected on purpose, kept so that a re-run of its frame repeats it
// (resim.go): a desync the class is waiting to see found must not be healed by a late command.
type hurt struct {
	frame       uint32
	id          uint32     // the unit that lost a hit point (0 for a drift of the state)
	state       stateDrift // the drift of the world's state (0 for a unit's)
	afterEvents bool       // injected during the frame's step, after its events (a timed injection)
}

// stateDrift is a corruption of the world's state other than its units, on purpose: the
// drifts a fast-forwarded event can leave, each in one part of the state that the state hash
// covers.
type stateDrift uint8

const (
	driftAttack       stateDrift = iota + 1 // one attack more in flight: slow, and harmless (no damage)
	driftGenerator                          // the random generator one number further on
	driftNextID                             // the next unit id one higher
	driftNextAttackID                       // the next attack id one higher
)

func (d stateDrift) String() string {
	switch d {
	case driftAttack:
		return "an attack in flight"
	case driftGenerator:
		return "the random generator"
	case driftNextID:
		return "the next unit id"
	case driftNextAttackID:
		return "the next attack id"
	}
	return fmt.Sprintf("stateDrift(%d)", uint8(d))
}

// injectStateDrift corrupts this client's world's state between two frames, so that the
// server's state hash check finds and repairs it: the tests' way to make the drifts a late
// event can leave. It reports whether the world took it.
func (c *Client) injectStateDrift(d stateDrift) bool {
	if c.w == nil || !driftState(c.w, d) {
		return false
	}
	c.stats.Desyncs++
	c.drift.inject.hurts = appendBounded(c.drift.inject.hurts, hurt{frame: c.w.Frame(), state: d}, 64)
	return true
}

// driftState makes w's state drift as d says, its units untouched, through the core state a
// repair puts in place; false if w cannot take it.
func driftState(w *world.World, d stateDrift) bool {
	s := w.CoreState()
	switch d {
	case driftAttack:
		a, ok := harmlessAttack(w, &s)
		if !ok {
			return false
		}
		i, _ := slices.BinarySearchFunc(s.Attacks, a.ID, func(a world.Attack, id uint32) int { return cmp.Compare(a.ID, id) })
		s.Attacks = slices.Insert(s.Attacks, i, a)
		s.NextAttackID = max(s.NextAttackID, a.ID+1)
	case driftGenerator:
		var g rand.PCG
		if g.UnmarshalBinary(s.RNG) != nil {
			return false
		}
		g.Uint64()
		s.RNG, _ = g.MarshalBinary()
	case driftNextID:
		s.NextID++
	case driftNextAttackID:
		s.NextAttackID++
	}
	return w.ApplyCoreState(s) == nil
}

// harmlessAttack is an attack that changes the attacks in flight and nothing else for a long
// while: no damage, the slowest speed, from the corner of the map farthest from its target (a
// living unit). It takes the lowest id no attack in flight has and the counter has handed out
// already, so that the counter stays as it was (a world that never loosed one has none: then
// the counter's next).
func harmlessAttack(w *world.World, s *world.CoreState) (world.Attack, bool) {
	var target world.Unit
	for _, u := range w.Units() {
		if !u.Dead {
			target = u
			break
		}
	}
	if target.ID == 0 {
		return world.Attack{}, false
	}
	id := uint32(1)
	for _, a := range s.Attacks { // ids ascending
		if a.ID == id {
			id++
		}
	}
	a := world.Attack{ID: id, Owner: world.EnemyOwner, Target: target.ID, Speed: 1}
	if target.X < w.Width()/2 {
		a.X = w.Width()*world.CellSize - 1
	}
	if target.Y < w.Height()/2 {
		a.Y = w.Height()*world.CellSize - 1
	}
	return a, true
}

// hurtUnit takes a hit point from unit id, if it has one to spare.
func hurtUnit(w *world.World, id uint32) bool {
	u, ok := w.Unit(id)
	if !ok || u.HP <= 1 {
		return false
	}
	u.HP--
	return w.SetUnit(u) == nil
}

// rehurt repeats, in a re-run, the corruptions injected at frame f before or after its events.
// Those injected before the events of the frame the re-run starts at are in its copy of the
// world already (the copy is taken as the frame starts, after them): repeated, they would
// corrupt twice.
func (in *desyncInjector) rehurt(w *world.World, rerun bool, f uint32, afterEvents bool) {
	if !rerun || (!afterEvents && f == in.from) {
		return
	}
	for _, h := range in.hurts {
		switch {
		case h.frame != f || h.afterEvents != afterEvents:
		case h.state != 0:
			driftState(w, h.state)
		default:
			hurtUnit(w, h.id)
		}
	}
}

// drillAnswer is the hashes a client sent in answer to a HashRequest. They are only
// candidates: the server's UnitUpdate says which of them differed, and this is where the
// client finds its own hash of those units again.
type drillAnswer struct {
	frame  uint32
	hashes []world.UnitHash // ids ascending
}

// maxAnswers is how many answers a client keeps. A repair follows its answer within a round
// trip or two, long before eight more drill-downs come.
const maxAnswers = 8

// answer returns the hashes sent in answer to the HashRequest for frame, if still kept.
func (c *Client) answer(frame uint32) ([]world.UnitHash, bool) {
	for i := len(c.drift.answers) - 1; i >= 0; i-- {
		if c.drift.answers[i].frame == frame {
			return c.drift.answers[i].hashes, true
		}
	}
	return nil, false
}

// logUpdate records a real-time re-sync: the units that differed at the checked frame, with
// this client's hash and the server's, and the world's state if it differed. For this player's
// own drift, the client's hashes are those it sent in its answer and its report; for another
// player's, it has only its history of the frame, which may be gone (the units, and the state,
// are then listed with LocalKnown false).
func (c *Client) logUpdate(now time.Time, v *UnitUpdate) {
	if v.Checked == 0 && len(v.Hashes) == 0 && len(v.Removed) == 0 && len(v.State) == 0 {
		return // not the repair of a drift (a test's or a benchmark's update)
	}
	var (
		local []world.UnitHash
		known bool
	)
	if v.Seat == c.role.seat {
		local, known = c.answer(v.Checked)
	}
	if !known {
		local, known = c.drift.hist.at(v.Checked)
	}
	mine := func(m UnitMismatch) UnitMismatch {
		if known {
			var has bool
			m.Local, has = hashOf(local, m.ID)
			m.NoLocal, m.LocalKnown = !has, true
		}
		return m
	}
	us := make([]UnitMismatch, 0, len(v.Hashes)+len(v.Removed))
	for _, h := range v.Hashes {
		us = append(us, mine(UnitMismatch{ID: h.ID, Server: h.Hash}))
	}
	for _, id := range v.Removed {
		// A removed unit with a hash is one the server had at the checked frame and has lost
		// since (killed): it is listed above. Without one, the server never had it.
		if _, ok := hashOf(v.Hashes, id); !ok {
			us = append(us, mine(UnitMismatch{ID: id, NoServer: true}))
		}
	}
	rec := findRecord(c.drift.log.records, v.Seat, v.Checked, ActionDrillDown)
	if rec == nil { // another player's drift, or a drill-down the log has dropped
		c.drift.log.records = pushRecord(c.drift.log.records, SyncRecord{When: now, Seat: v.Seat, Frame: v.Checked})
		rec = &c.drift.log.records[len(c.drift.log.records)-1]
	}
	rec.setUnits(us)
	rec.State = nil
	if len(v.State) > 0 {
		rec.State = &StateMismatch{Server: v.StateHash}
		rec.State.Local, rec.State.LocalKnown = c.stateAt(v.Checked)
	}
	rec.Action, rec.At = ActionRealtime, v.Frame
}

// stateAt is this client's state hash at frame, as it reported it if the report is still
// kept (the server compared that one), or else from its history; false if neither has it.
func (c *Client) stateAt(frame uint32) (uint64, bool) {
	for i := len(c.drift.reported) - 1; i >= 0; i-- {
		if r := c.drift.reported[i]; r.frame == frame {
			return r.state, true
		}
	}
	return c.drift.hist.stateAt(frame)
}

// logPause records a Pause: a new pause record, and the stop-the-world on the latest
// drill-down still open (the server most likely stopped the world over its answer), or on a
// new record. A drill-down older than the hash history cannot be waiting for an answer any
// more; it is not the one.
func (c *Client) logPause(now time.Time, frame uint32) {
	if pr := c.runningPause(); pr != nil {
		pr.Running = false // a new pause replaces one that never resumed
	}
	c.drift.log.pauses = pushRecord(c.drift.log.pauses, PauseRecord{Frame: frame, Running: true})
	c.drift.pauseSeen = make(map[uint32]bool)
	for i := len(c.drift.log.records) - 1; i >= 0; i-- {
		r := &c.drift.log.records[i]
		if r.Action != ActionDrillDown {
			continue
		}
		if r.Frame+historyFrames >= frame {
			r.Action, r.At = ActionStopWorld, frame
			return
		}
		break
	}
	c.drift.log.records = pushRecord(c.drift.log.records, SyncRecord{When: now, Seat: c.role.seat, Frame: frame, Action: ActionStopWorld, At: frame})
}

// runningPause is the log's record of the pause under way, or nil.
func (c *Client) runningPause() *PauseRecord {
	if n := len(c.drift.log.pauses); n > 0 && c.drift.log.pauses[n-1].Running {
		return &c.drift.log.pauses[n-1]
	}
	return nil
}

// logBatch records a stop-the-world batch: its units count in the pause record, and the ones
// that differ here go into the stop-the-world record. The batch holds the server's state at
// the paused frame, and the client's WorldHashes were of the same frame, so the two hashes
// compare.
func (c *Client) logBatch(b *ResyncBatch) {
	if pr := c.runningPause(); pr != nil {
		pr.Units += len(b.Units) + len(b.Removed)
	}
	var rec *SyncRecord
	for i := len(c.drift.log.records) - 1; i >= 0; i-- {
		if r := &c.drift.log.records[i]; r.Action == ActionStopWorld && r.At == c.drift.pause.frame {
			rec = r
			break
		}
	}
	if rec == nil {
		return // dropped from the log already
	}
	for i := range b.Units {
		c.logBatchUnit(rec, UnitMismatch{ID: b.Units[i].ID, Server: b.Units[i].Hash()})
	}
	for _, id := range b.Removed {
		c.logBatchUnit(rec, UnitMismatch{ID: id, NoServer: true})
	}
}

// logBatchUnit adds one unit of a batch to the stop-the-world record. A batch that comes before
// this client reached the paused frame (the server sends the units it already knows about at
// once) finds no hashes sent yet: the client's hash is then unknown. A unit that turns out
// equal here (a batch goes to every client, not only the one that drifted) is no mismatch.
func (c *Client) logBatchUnit(rec *SyncRecord, m UnitMismatch) {
	if c.drift.pause.reached() {
		var has bool
		m.Local, has = hashOf(c.drift.pause.hashes, m.ID)
		m.NoLocal, m.LocalKnown = !has, true
		same := m.NoLocal == m.NoServer && m.Local == m.Server
		if same && !rec.lists(m.ID) {
			return
		}
	}
	if c.drift.pauseSeen == nil {
		c.drift.pauseSeen = make(map[uint32]bool)
	}
	if c.drift.pauseSeen[m.ID] && !rec.lists(m.ID) {
		return // counted in More already
	}
	c.drift.pauseSeen[m.ID] = true
	rec.addUnit(m)
}
