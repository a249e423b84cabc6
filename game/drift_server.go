package game

import (
	"fmt"
	"slices"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/world"
)

// Drift checking and repair, the server's side (the clients' side is in drift_client.go, the
// debug panel's log of both in drift_log.go, the hash history in drift_history.go and the
// re-run of late events in resim.go).
//
// Every host runs the same world, and a drift (a command that came later than a re-run can
// mend, a unit corrupted on purpose) must be found and repaired, by the server, whose world is
// the truth. A world is its units and the rest of its state (the id counters, the random
// generator, the attacks in flight), and both are checked: clients report, for the frame they
// just ran, the root of the hash tree over their units and the hash of the rest
// (world.StateHash), with the digest of the inputs that made the frame. The server compares a
// report once it ran that frame with the same inputs (reportDue): the same inputs must make
// the same world, so a difference is a drift even in a frame a late event may still change,
// and nothing waits for the frame to settle. A unit difference is named by the report's
// locator when one unit alone differs (locate), or else by a drill-down (a HashRequest with
// the server's hash of each sub-range, a UnitHashes in answer); a state difference needs
// neither, the state being small. A few units, and the state, are repaired in real time (a
// UnitUpdate every host applies at a frame ahead); many units, or ones that drift again, by a
// stop-the-world re-sync (every host pauses at a frame ahead, clients send WorldHashes, the
// server sends ResyncBatches, the last with the whole state, clients answer BatchApplied, the
// server sends Resume). A spectator's drift is repaired by a copy of the whole world to it alone
// (spectate.go).

// serverDrift is the server's state of drift checking and repair.
type serverDrift struct {
	hist hashHistory // the unit and state hashes of the recent frames, to check reports against
	rw   rewinder    // the copies of the world for re-running late events (resim.go)
	// fixAt: unit id → the frame its latest real-time repair takes effect; stateFixAt the frame
	// the latest real-time repair of the world's state takes effect; lastFix the latest frame a
	// repair takes effect at (one per player and frame).
	fixAt      map[uint32]uint32
	stateFixAt uint32
	lastFix    uint32
	// orderedAt (under LateFastForward only): unit id → the latest frame a command named it,
	// for the frames a command can still come late (the re-run window). A repaired unit that
	// differs again after such a command was fast-forwarded again, not badly repaired.
	orderedAt    map[uint32]uint32
	orderedSwept uint32 // the frame orderedAt was last swept of entries older than the window
	// pause is the stop-the-world re-sync in progress (nil: none), resumeAt when it ends (zero:
	// not yet decided), pendingHashes the WorldHashes that came before the server reached it.
	pause         *pause
	resumeAt      time.Time
	pendingHashes []pendingHashes
	log           syncLog // for the debug panel (drift_log.go)
}

func newServerDrift(late LateMode) serverDrift {
	return serverDrift{fixAt: make(map[uint32]uint32), orderedAt: make(map[uint32]uint32), rw: rewinder{mode: late}}
}

// ordered notes a command that ran at frame for its units, under LateFastForward: a host that
// gets it late fast-forwards it, and a unit it names may differ again right after its repair
// for that reason alone (repairFailed). Entries older than the window are forgotten every
// historyFrames frames of commands: at most one per unit, of the units ordered in the last
// few seconds.
func (d *serverDrift) ordered(c *Command, frame uint32) {
	if d.rw.mode != LateFastForward {
		return
	}
	for _, id := range c.Units {
		d.orderedAt[id] = max(d.orderedAt[id], frame)
	}
	if frame >= d.orderedSwept+historyFrames {
		d.orderedSwept = frame
		for id, f := range d.orderedAt { // bookkeeping, not simulation: the order changes nothing
			if f+d.rw.windowFrames() < frame {
				delete(d.orderedAt, id)
			}
		}
	}
}

// repairFailed reports whether unit id, found different at frame checked, had been repaired
// at a frame shortly before (realtimeRecheckSpan) with nothing since to explain it: the
// real-time re-sync did not hold. Under LateFastForward a command that named it within the
// window before the repair, or after, explains it: the host may have fast-forwarded it.
func (d *serverDrift) repairFailed(id, checked uint32) bool {
	f, ok := d.fixAt[id]
	if !ok || checked < f || checked-f >= realtimeRecheckSpan {
		return false
	}
	o, ordered := d.orderedAt[id]
	return !ordered || o+d.rw.windowFrames() < f
}

// realtimeRate bounds the real-time re-syncs one player's reports lead to.
var realtimeRate = rateLimit{burst: realtimeBurst, every: realtimeEvery}

// nextDeadline is when the pause in progress next needs the server: its resume, or the
// deadline of the clients still missing from it (zero: none).
func (d *serverDrift) nextDeadline() time.Time {
	if !d.resumeAt.IsZero() {
		return d.resumeAt
	}
	if p := d.pause; p != nil {
		return p.deadline
	}
	return time.Time{}
}

// pause is a stop-the-world re-sync in progress.
type pause struct {
	frame    uint32
	reached  time.Time // when the server's world reached the frame (zero before)
	deadline time.Time // when the clients still missing are dropped from the round
	known    map[uint32]bool
}

// connDrift is what drift checking keeps per connection, a player's or a spectator's.
type connDrift struct {
	// reportRate: how fast this client's hash reports come; early: its reports of frames the
	// server has not settled yet, waiting (reportArrived).
	reportRate rateBucket
	early      []*HashReport
	pause      *clientPause // its part in the stop-the-world re-sync in progress
	// copyFloor is the frame of the latest world copy sent on this connection (sendWorld: a
	// game joined while running, a spectator's own copy): its client never ran the events
	// before it, and its reports of that frame and later are compared with the server's
	// digest from there (inputsFor).
	copyFloor uint32
	// refused are the commands its client ran that the server refused (refusedRan): they are
	// in the digest it reports, and in the one the server compares it with.
	refused []refusedInput
}

// refusedInput is a command the server refused that a client ran: its frame, and its hash in
// the inputs' digest (event.digest).
type refusedInput struct {
	frame uint32
	hash  uint64
}

// maxRefusedInputs bounds the refused commands a connection keeps: an honest player's
// commands are never refused (its own rate is half the server's, and its frames within the
// range), and a client that sends more within the digest's window hides only its own drift
// (and, sent directly, the drift of the players who took them) for that window.
const maxRefusedInputs = 64

// keepRefused adds in to d's refused commands, and forgets those no report the server still
// compares can count (older than the digest's window and the hash history) at server frame
// now.
func (d *connDrift) keepRefused(in refusedInput, now uint32) {
	d.refused = slices.DeleteFunc(d.refused, func(r refusedInput) bool { return r.frame+inputWindow+historyFrames < now })
	d.refused = appendBounded(d.refused, in, maxRefusedInputs)
}

// inputsFor is the inputs' digest of frame f that d's client reports if it ran what the
// server ran (schedule.inputDigests): the server's own, from the frame of the world copy it
// sent the client on (for a frame from then on), with the commands the client ran that the
// server refused. False if the server no longer keeps frame f.
func (s *Server) inputsFor(d *downlink, f uint32) (uint32, bool) {
	floor := uint32(0)
	if f >= d.drift.copyFloor {
		floor = d.drift.copyFloor
	}
	x, ok := s.drift.hist.inputsAt(f, floor)
	floor = max(floor, s.sched.floor)
	for _, r := range d.drift.refused {
		if r.frame <= f && r.frame >= floor && f-r.frame < inputWindow {
			x ^= fold(r.hash)
		}
	}
	return x, ok
}

// clientPause is one client's part in a stop-the-world re-sync.
type clientPause struct {
	pauseDep  depgraph.Dependency
	hashes    bool // its WorldHashes arrived
	sent      uint32
	applied   map[uint32]bool
	batchDeps []*depgraph.Dependency
	dropped   bool // it missed the pause's deadline: the round went on without it
}

// playerDrift is what drift checking holds against one player, across its connections: a
// client dropped for stalling the game must not come back with a clean slate.
type playerDrift struct {
	// requests are the drill-downs waiting for their answers, oldest first (at most
	// maxOpenRequests): the first answer decides the repair.
	requests []openRequest
	// repairAt is the frame the latest real-time repair of this player's drift takes effect
	// at: a report of an earlier frame predates it, and shows nothing new.
	repairAt     uint32
	pauseMisses  int        // stop-the-world rounds in a row this client did not finish in time
	stoppedWorld time.Time  // when this client's report last made the server stop the world
	repairs      rateBucket // the real-time re-syncs this client's reports led to (realtimeRate)
	// lastHash is the latest hash check of its reports, for the player table (SeatInfo).
	lastHash string
}

// openRequest is a drill-down sent, waiting for its answer.
type openRequest struct {
	req *HashRequest
	// state is the state mismatch of the report it drills into (nil: its state was the
	// server's): its repair goes with the units the answer names.
	state *StateMismatch
	sent  time.Time
}

// The drill-downs open at once. A report comes several times a round trip, and the drill-down
// into one travels guaranteed both ways, so that a loss costs a resend, the resend delay
// longer than a round trip: a later report that still differs, once the answer is overdue (a
// round trip and a frame after the request), asks again, and whichever answer comes first
// decides. The requests are few, and the answers only a mismatch's.
const maxOpenRequests = 3

// request is the open drill-down into frame, if any.
func (p *playerDrift) request(frame uint32) (openRequest, bool) {
	for _, q := range p.requests {
		if q.req.Frame == frame {
			return q, true
		}
	}
	return openRequest{}, false
}

// lastRequest is the latest drill-down still open (nil: none).
func (p *playerDrift) lastRequest() *HashRequest {
	if n := len(p.requests); n > 0 {
		return p.requests[n-1].req
	}
	return nil
}

// kept is what a new connection of the same player starts with.
func (p playerDrift) kept() playerDrift {
	return playerDrift{pauseMisses: p.pauseMisses, stoppedWorld: p.stoppedWorld, repairs: p.repairs}
}

// batchApplied: a client applied one of its batches of the pause in progress.
func (s *Server) batchApplied(now time.Time, st *seat, v *BatchApplied) {
	if cp := st.drift.pause; cp != nil && s.drift.pause != nil && v.Frame == s.drift.pause.frame {
		cp.applied[v.Batch] = true
		s.checkResume(now)
	}
}

// sendWorld sends d the server's whole world at its frame, cut into ResyncBatches of
// resyncBatchUnits units (in one message, a large world would pass the message layer's
// largest), each after after (nil: nothing) and after the batch before it: a chain, so that
// the last batch, which carries the attacks in flight and the world's state and so completes
// the world, runs on the client only once every unit is in place. A client joining a running
// game gets it, and so does a spectator whose reports showed a drift.
func (s *Server) sendWorld(d *downlink, now time.Time, after *depgraph.Dependency) {
	d.drift.copyFloor = s.w.Frame() // its client never runs the events before it
	units := s.w.Units()
	state, err := s.w.AppendState(nil)
	if err != nil {
		// The client then waits for a state that never comes; say why.
		s.cfg.Logger.Error("the world's state cannot be sent", "to", d.who, "err", err)
	}
	prev := new(depgraph.Dependency) // the batch before: none yet
	for i := 0; i == 0 || i < len(units); i += resyncBatchUnits {
		b := &ResyncBatch{Frame: s.w.Frame(), Batch: uint32(i / resyncBatchUnits), Units: slices.Clone(units[i:min(i+resyncBatchUnits, len(units))])}
		if i+resyncBatchUnits >= len(units) {
			b.HasAttacks, b.Attacks, b.State = true, slices.Clone(s.w.Attacks()), state
		}
		deps := []*depgraph.Dependency{prev}
		if after != nil {
			deps = append(deps, after)
		}
		s.sendAfter(d, now, b, deps, prev)
	}
}

// hashReport takes a player's hash report (reportArrived) and checks them against the
// server's history of that frame, now or once the frame has settled here.
func (s *Server) hashReport(now time.Time, st *seat, r *HashReport) {
	if s.reportArrived(now, &st.downlink, &s.stats.HashReports, r) {
		s.checkHashReport(now, st, r)
	}
}

// reportArrived takes a client's hash report, a player's or a spectator's, counted in count,
// and reports whether to check it now. Past the connection's report rate (reportLimit) it is
// dropped and counted: checking one costs the server a search per group, and a client that
// sent them without a limit would spend the server's time. A report describes a recent frame,
// which a late event may still change on either host: the server checks it once it has run
// that frame itself with the same inputs (reportDue); until then it waits on its connection
// (checkEarly).
func (s *Server) reportArrived(now time.Time, d *downlink, count *uint64, r *HashReport) bool {
	*count++
	if !d.drift.reportRate.take(now, s.reportLimit()) {
		s.stats.HashReportsDropped++
		return false
	}
	switch s.reportDue(d, r) {
	case reportCheck:
		return true
	case reportOtherInputs:
		s.stats.HashReportsOtherInputs++
		return false
	}
	if len(d.drift.early) == maxEarlyReports {
		s.stats.HashReportsDropped++ // the oldest: the newer ones cover the same units
		d.drift.early = append(d.drift.early[:0], d.drift.early[1:]...)
	}
	d.drift.early = append(d.drift.early, r)
	return false
}

// reportVerdict is what the server does with a hash report now.
type reportVerdict uint8

const (
	reportCheck       reportVerdict = iota // compare it now
	reportWait                             // keep it until the server has run its frame with the same inputs
	reportOtherInputs                      // drop it: its frame settled here with other inputs
)

// reportDue decides on report r, of d's client. Hosts that ran the same events up to a frame
// (the inputs' digest, schedule.inputDigests) must have the same world there, however recent
// the frame: a difference is a drift, and is checked at once, without waiting for the frame to
// settle. The server's digest is taken as the client has it when it ran what the server ran
// (inputsFor): from the world copy the client took on, with the refused commands it ran. A
// report whose inputs differ from that describes a world that is still missing an event (the
// client's, or the server's: it waits for the server's); once the server's frame has settled,
// it will not match any more, and is dropped: a later report covers the same units. (An event
// one host never gets leaves the digest's window after inputWindow frames, and the reports
// after that are compared again.) Paused or stopped, it is checked at once: the check knows
// what to do then.
func (s *Server) reportDue(d *downlink, r *HashReport) reportVerdict {
	if s.drift.pause != nil || !s.clock.running {
		return reportCheck
	}
	if mine, ok := s.inputsFor(d, r.Frame); ok && r.Frame < s.w.Frame() {
		if mine == r.Inputs {
			return reportCheck
		}
		if s.settled(r.Frame) {
			return reportOtherInputs
		}
		return reportWait
	}
	if r.Frame+historyFrames < s.w.Frame() {
		return reportCheck // gone from the history: the check counts it as too old
	}
	return reportWait // a frame the server has not run yet
}

// reportLimit is the rate of hash reports the server checks from one connection: twice an
// honest client's (one every hashReportEvery frames), and a burst of maxEarlyReports, the
// reports a client that runs a settle window's frames at once (catching up) sends together.
func (s *Server) reportLimit() rateLimit {
	return rateLimit{burst: maxEarlyReports, every: hashReportEvery * s.cfg.Frame / 2}
}

// checkHashReport checks a player's report against the server's history of that frame: its
// grouped unit hashes and its state hash. A mismatched group is drilled into, a level of the
// hash tree at a time (drillRequest), and a state that differs is repaired with the units the
// drill-down names; a state that differs alone is repaired at once (decideRepair).
func (s *Server) checkHashReport(now time.Time, st *seat, r *HashReport) {
	if s.drift.pause != nil {
		return // the stop-the-world under way compares every unit and sends the state anyway
	}
	mine, ok := s.drift.hist.at(r.Frame)
	if !ok {
		s.stats.HashReportsTooOld++
		return
	}
	ranges := mismatchedRanges(mine, r.Root)
	state := s.stateMismatch(r)
	if len(ranges) == 0 && state == nil {
		st.sync.lastHash = fmt.Sprintf("ok at frame %d", r.Frame)
		return
	}
	if r.Frame < st.sync.repairAt {
		// A repair takes effect after this frame: the reports after it show what is left.
		s.stats.HashReportsAwaitingRepair++
		return
	}
	d, located := located(mine, r)
	if !located && len(ranges) > 0 && s.answerDue(now, st) {
		// A drill-down's answer may still come in time.
		s.stats.HashReportsAwaitingRepair++
		return
	}
	s.stats.MismatchedGroups += uint64(len(ranges))
	s.event(now, "hash mismatch", "seat", st.idx, "frame", r.Frame, "groups", len(ranges), "state", state != nil)
	st.sync.lastHash = mismatchText(r.Frame, len(ranges), state != nil)
	rec := SyncRecord{When: now, Seat: st.idx, Frame: r.Frame, State: state, Action: ActionDrillDown}
	if len(ranges) == 0 {
		// The units agree: no drill-down, and the state is repaired now.
		s.drift.log.records = pushRecord(s.drift.log.records, rec)
		s.decideRepair(now, st, r.Frame, mine, driftFound{state: state})
		return
	}
	if located {
		// The locator names the one unit that differs: no drill-down either.
		d.state = state
		rec.Groups = slices.Clone(d.answered)
		s.drift.log.records = pushRecord(s.drift.log.records, rec)
		s.stats.UnitsLocated++
		s.decideRepair(now, st, r.Frame, mine, d)
		return
	}
	req := drillRequest(r.Frame, mine, ranges, s.cfg.GroupSize)
	st.sync.requests = appendBounded(st.sync.requests, openRequest{req: req, state: state, sent: now}, maxOpenRequests)
	rec.Groups = slices.Clone(req.Ranges)
	s.drift.log.records = pushRecord(s.drift.log.records, rec)
	s.send(st, now, req)
}

// answerDue reports whether the answer to st's latest drill-down may still come in time: a
// round trip and a frame after it was sent, at most drillPatienceFrames frames.
func (s *Server) answerDue(now time.Time, st *seat) bool {
	n := len(st.sync.requests)
	if n == 0 {
		return false
	}
	wait := s.cfg.Frame * drillPatienceFrames
	if st.peer != nil {
		wait = min(wait, st.peer.Stats().RTT+s.cfg.Frame)
	}
	return now.Sub(st.sync.requests[n-1].sent) < wait
}

// located is the drift a report's locator names (locate), if it names one.
func located(mine []world.UnitHash, r *HashReport) (driftFound, bool) {
	id, theirs, has, ok := locate(mine, r.Root, r.Locator)
	if !ok {
		return driftFound{}, false
	}
	d := driftFound{answered: []IDRange{{Start: 1, End: world.MaxUnitID}}}
	if has {
		server, _ := hashOf(mine, id)
		d.ids = []uint32{id}
		d.units = []UnitMismatch{{ID: id, Local: theirs, Server: server, NoLocal: theirs == 0, LocalKnown: true}}
	} else {
		d.removed = []uint32{id}
		d.units = []UnitMismatch{{ID: id, Local: theirs, NoServer: true, LocalKnown: true}}
	}
	return d, true
}

// stateMismatch compares a report's state hash with the server's of its frame: nil when they
// are equal.
func (s *Server) stateMismatch(r *HashReport) *StateMismatch {
	mine, ok := s.drift.hist.stateAt(r.Frame)
	if !ok || mine == r.State {
		return nil
	}
	return &StateMismatch{Local: r.State, Server: mine, LocalKnown: true}
}

// mismatchText is the player table's word on a report of frame that differed in groups groups,
// and in the world's state if state.
func mismatchText(frame uint32, groups int, state bool) string {
	switch {
	case !state:
		return fmt.Sprintf("mismatch at frame %d: %d groups", frame, groups)
	case groups == 0:
		return fmt.Sprintf("mismatch at frame %d: the world's state", frame)
	}
	return fmt.Sprintf("mismatch at frame %d: %d groups and the world's state", frame, groups)
}

// mismatchedRanges is the range of ids a report's root (the XOR of every unit's hash) says
// differs from the server's units of that frame (mine): all of them when the roots differ,
// none when they are equal. The units may differ only because of a unit whose repair is on its
// way; the drill-down sorts that out unit by unit (a skip at the root would hide another unit's
// drift).
func mismatchedRanges(mine []world.UnitHash, root uint64) []IDRange {
	if rootHash(mine) == root {
		return nil
	}
	return []IDRange{{Start: 1, End: world.MaxUnitID}}
}

// drillPatienceFrames is how long a drill-down waits for its answer (a guaranteed message
// either way, resent until it arrives) before a mismatched report of a later frame asks again:
// a client that never answers must not stop its drift from being checked.
const drillPatienceFrames = 20

// drillRanges is the most sub-ranges a drill-down splits a mismatched group into.
const drillRanges = 10

// drillRequest is the drill-down into the mismatched ranges of a report of frame (at least
// one: the root's, or the ranges of a drill-down's answer that still differ): the next level of the hash tree. The server splits its own units of the frame (mine)
// from the first mismatched id to the last into at most drillRanges sub-ranges
// (drillGroupSize), which tile that span with no gap, and sends each with its own hash of it.
// The client answers the units of the sub-ranges whose hashes differ from its own: at 2000
// units, the 200 of the sub-range a drifted unit is in, one round trip after the report that
// found it, where the report itself carried one hash, the root. The sub-ranges come from the
// server's units alone, so a report, made up or not, costs a pass over the units in the span
// and a request of at most drillRanges ranges. (With several ranges, the span between them is
// drilled into as one.)
func drillRequest(frame uint32, mine []world.UnitHash, mismatched []IDRange, minSize int) *HashRequest {
	first, last := mismatched[0].Start, mismatched[0].End
	for _, r := range mismatched[1:] {
		first, last = min(first, r.Start), max(last, r.End)
	}
	units := unitsIn(mine, first, last)
	groups := world.GroupUnitHashesIn(units, first, last, drillGroupSize(len(units), minSize), nil)
	if len(groups) == 0 {
		// No unit of the server's is there: only the client's can differ, and the one range
		// with the hash of no unit asks for them.
		groups = []world.GroupHash{{Start: first, End: last}}
	}
	req := &HashRequest{Frame: frame, Ranges: make([]IDRange, len(groups)), Hashes: make([]uint64, len(groups))}
	for i, g := range groups {
		req.Ranges[i], req.Hashes[i] = IDRange{Start: g.Start, End: g.End}, g.Hash
	}
	return req
}

// drillGroupSize is how many units one sub-range of a drill-down covers, of n units: at least
// min, and enough that they make at most drillRanges sub-ranges whatever the world's size. At
// 2000 units that is ten of 200: the request carries ten hashes (about 130 bytes), and the
// answer to a drift in one unit the 200 hashes of its sub-range (about 2 KB), only when a
// report differed.
func drillGroupSize(n, min int) int {
	return max(min, (n+drillRanges-1)/drillRanges)
}

// drillDown is the log's record of the drill-down into st's report of frame, made for it if
// the log has already dropped it.
func (s *Server) drillDown(now time.Time, st *seat, frame uint32) *SyncRecord {
	if r := findRecord(s.drift.log.records, st.idx, frame, ActionDrillDown); r != nil {
		return r
	}
	s.drift.log.records = pushRecord(s.drift.log.records, SyncRecord{When: now, Seat: st.idx, Frame: frame, Action: ActionDrillDown})
	return &s.drift.log.records[len(s.drift.log.records)-1]
}

// closeDrillDown records how the drill-down into st's report of frame ended when its answer
// led to no comparison, if the log still has it.
func (s *Server) closeDrillDown(st *seat, frame uint32, action string, at uint32) {
	if r := findRecord(s.drift.log.records, st.idx, frame, ActionDrillDown); r != nil {
		r.Action, r.At = action, at
	}
}

// unitMismatches describes for the log the units a drill-down found: ids the server has at
// the checked frame (mine), removed the ones only the client has (theirs).
func unitMismatches(mine []world.UnitHash, theirs map[uint32]uint64, ids, removed []uint32) []UnitMismatch {
	out := make([]UnitMismatch, 0, len(ids)+len(removed))
	for _, id := range ids {
		server, _ := hashOf(mine, id) // ids come from mine
		local, has := theirs[id]
		out = append(out, UnitMismatch{ID: id, Local: local, Server: server, NoLocal: !has, LocalKnown: true})
	}
	for _, id := range removed {
		out = append(out, UnitMismatch{ID: id, Local: theirs[id], NoServer: true, LocalKnown: true})
	}
	return out
}

// answerComparison is what a drill-down's answer showed: the ranges it answers, the client's
// hash of each unit in them, the units of the server's that differ there or that the client
// lacks (ids), and the units only the client has (removed), both in id order.
type answerComparison struct {
	answered     []IDRange
	theirs       map[uint32]uint64
	ids, removed []uint32
}

// compareAnswer compares the answer u to a drill-down into the ranges asked with the server's
// unit hashes of its frame (mine, id order), in the ranges the answer covers alone
// (answeredRanges).
func compareAnswer(mine []world.UnitHash, asked []IDRange, u *UnitHashes) answerComparison {
	c := answerComparison{answered: answeredRanges(asked, u.Skipped), theirs: make(map[uint32]uint64, len(u.Hashes))}
	for _, h := range u.Hashes {
		if inRanges(c.answered, h.ID) {
			c.theirs[h.ID] = h.Hash
		}
	}
	for _, h := range mine {
		if !inRanges(c.answered, h.ID) {
			continue
		}
		if th, ok := c.theirs[h.ID]; !ok || th != h.Hash {
			c.ids = append(c.ids, h.ID)
		}
	}
	for _, h := range u.Hashes {
		if _, found := hashOf(mine, h.ID); !found && inRanges(c.answered, h.ID) {
			c.removed = append(c.removed, h.ID)
		}
	}
	slices.Sort(c.removed) // an honest client's are in order already; a unit listed twice counts once
	c.removed = slices.Compact(c.removed)
	return c
}

// answeredRanges are the ranges of a drill-down request (asked) that its answer covers: all but
// those it lists as skipped, because their hashes matched. Only a range of the request, exactly,
// is skipped: an answer cannot leave out part of a range, or ids it was not asked about.
func answeredRanges(asked, skipped []IDRange) []IDRange {
	if len(skipped) == 0 {
		return asked
	}
	out := make([]IDRange, 0, len(asked))
	for _, r := range asked {
		if !slices.Contains(skipped, r) {
			out = append(out, r)
		}
	}
	return out
}

func inRanges(rs []IDRange, id uint32) bool {
	for _, r := range rs {
		if id >= r.Start && id <= r.End {
			return true
		}
	}
	return false
}

// unitHashes compares a client's per-unit hashes with the server's and repairs the units that
// differ, with the world's state if the report that led to the drill-down found it different
// (decideRepair). It compares only the ranges the answer covers (answeredRanges): a unit of a
// range the client skipped, its hashes equal, is not missing there, and a unit only the client
// has, or only the server has, is found in a range it answers.
func (s *Server) unitHashes(now time.Time, st *seat, u *UnitHashes) {
	if s.drift.pause != nil {
		// The stop-the-world under way compares every unit anyway.
		s.closeDrillDown(st, u.Frame, ActionStopWorld, s.drift.pause.frame)
		return
	}
	mine, ok := s.drift.hist.at(u.Frame)
	if !ok {
		s.stats.HashReportsTooOld++
		s.closeDrillDown(st, u.Frame, ActionNoDrillDown, 0)
		return
	}
	q, ok := st.sync.request(u.Frame)
	if !ok {
		s.closeDrillDown(st, u.Frame, ActionNoDrillDown, 0)
		return // an answer to a request already answered, or never made
	}
	// The first answer decides: the other requests' reports predate the repair it leads to.
	req, state := q.req, q.state
	st.sync.requests = st.sync.requests[:0]
	compared := compareAnswer(mine, req.Ranges, u)
	s.decideRepair(now, st, u.Frame, mine, driftFound{
		ids: compared.ids, removed: compared.removed, units: unitMismatches(mine, compared.theirs, compared.ids, compared.removed),
		answered: compared.answered, state: state})
}

// driftFound is what a check of a player's frame found: the units of the server's that differ
// or that the client lacks (ids) and the ones only the client has (removed), both in id
// order, with their hashes for the log (units); the ranges the drill-down's answer covered; and
// the world's state, if it differed.
type driftFound struct {
	ids, removed []uint32
	units        []UnitMismatch
	answered     []IDRange
	state        *StateMismatch
}

// decideRepair repairs what the check of st's frame checked found, and records the decision
// on the check's record: a real-time re-sync (the server's state of the units and of the world's
// state, applied at a frame every client reaches after the update arrives), at most one a
// second for one player. If units repaired recently still differ, or too many differ, it stops
// the world instead, whose last batch carries the whole state. What already has a repair on
// its way, taking effect after the checked frame, is no new mismatch: the report predates the
// repair.
func (s *Server) decideRepair(now time.Time, st *seat, checked uint32, mine []world.UnitHash, d driftFound) {
	found, state := d.units, d.state
	// decide records how the check ended: the ranges the answer covers, what it found.
	decide := func(action string, at uint32) {
		rec := s.drillDown(now, st, checked)
		rec.Groups = slices.Clone(d.answered)
		rec.setUnits(found)
		rec.State = copyState(state)
		rec.Action, rec.At = action, at
	}
	if len(found) == 0 && state == nil {
		decide(ActionNoneDiffered, 0)
		return
	}
	repairing := func(id uint32) bool { return s.drift.fixAt[id] > checked }
	ids := slices.DeleteFunc(d.ids, repairing)
	removed := slices.DeleteFunc(d.removed, repairing)
	stateRepairing := state != nil && s.drift.stateFixAt > checked
	if len(ids)+len(removed) == 0 && (state == nil || stateRepairing) {
		decide(ActionNoneLeft, 0)
		return
	}
	found = slices.DeleteFunc(found, func(m UnitMismatch) bool { return repairing(m.ID) })
	if stateRepairing {
		state = nil
	}
	s.stats.MismatchedUnits += uint64(len(ids) + len(removed))
	if state != nil {
		s.stats.MismatchedStates++
	}
	if r := s.round.next; r != nil {
		// A repair would land in the new round, and put an old unit into it.
		decide(ActionNewRound, r.Frame)
		return
	}
	again := 0
	for _, id := range ids {
		if s.drift.repairFailed(id, checked) {
			again++ // repaired recently, and wrong again: the real-time re-sync did not hold
		}
	}
	again, piece := s.againTooSoon(now, st, again, len(ids)+len(removed))
	if again < 0 {
		return // the client left the game
	}
	if piece {
		ids, removed = firstUnits(ids, removed, s.cfg.RealtimeMax)
	}
	if again > 0 || len(ids)+len(removed) > s.cfg.RealtimeMax {
		st.sync.stoppedWorld = now
		s.event(now, "stop the world", "seat", st.idx, "units", len(ids)+len(removed), "failed real-time re-syncs", again)
		s.pauseWorld(now, append(ids, removed...))
		decide(ActionStopWorld, s.drift.pause.frame)
		st.sync.lastHash = fmt.Sprintf("stop-the-world at frame %d", s.drift.pause.frame)
		return
	}
	if !st.sync.repairs.take(now, realtimeRate) {
		// A report can be made up: repairing on every one would let a client make the server
		// send up to RealtimeMax units, and its state, to every player ten times a second. An
		// honest client's next report comes within a second, and is repaired then.
		decide(ActionTooSoon, 0)
		s.stats.RepairsDeferred++
		return
	}
	at := s.realtimeResync(now, st, checked, mine, ids, removed, state)
	// The reports of the frames before it, and the drill-downs into them, show nothing new.
	st.sync.repairAt, st.sync.requests = at, st.sync.requests[:0]
	decide(ActionRealtime, at)
	st.sync.lastHash = fmt.Sprintf("real-time re-sync at frame %d", at)
}

// realtimeResync repairs units, and the world's state if state is not nil, without stopping:
// every host, the server included, puts the server's current state of the units, and its core
// state (the id counters, the random generator, the attacks in flight: world.CoreState), in
// place at the next frame, the earliest every host can have it: the update reaches the clients
// half a round trip later, after they ran that frame, and each runs the frames since again with
// it (resim.go), as it does any late event. So the repair lands at the same frame everywhere,
// as soon as it can, and waits for no lead time. Under LateFastForward too: the hosts
// fast-forward late commands, but run a late repair again (resim.go), since an update applied
// late by the fast-forward would be a drift of its own. (Where a client gets it later than its
// re-run window, the update is fast-forwarded, and the next report shows what that left.)
// What is repaired loses a frame of progress on every host alike, which keeps them equal: the
// units stand where they stood, the generator draws its numbers again, the attacks fly from
// where they were, and the counters hand out those ids again. Hosts whose world was right get the update too: otherwise
// they would now differ.
//
// The update also carries st's seat, the checked frame and the server's hashes then (mine
// holds the units'; state the state's), so that every client can show what differed. It
// returns the frame the repair takes effect at.
func (s *Server) realtimeResync(now time.Time, st *seat, checked uint32, mine []world.UnitHash, ids, removed []uint32, state *StateMismatch) uint32 {
	f := s.w.Frame()
	// One update per player per frame: a frame's updates run in the order of their seats on
	// every host (the event's seat), so that two players' drifts found together are both
	// repaired at the next frame.
	at := max(f+1, st.sync.repairAt+1)
	s.drift.lastFix = max(s.drift.lastFix, at)
	up := &UnitUpdate{Frame: at, Seat: st.idx, Checked: checked}
	for _, id := range ids {
		if unit, ok := s.w.Unit(id); ok {
			up.Units = append(up.Units, unit)
		} else {
			up.Removed = append(up.Removed, id)
		}
		if h, ok := hashOf(mine, id); ok { // ids come from mine: ascending, as the message wants
			up.Hashes = append(up.Hashes, world.UnitHash{ID: id, Hash: h})
		}
	}
	up.Removed = append(up.Removed, removed...)
	if state != nil {
		// A state the codec cannot carry (a world past a billion attacks) is left out: the
		// next report shows the difference again.
		if b, err := s.w.AppendCoreState(nil); err != nil {
			s.cfg.Logger.Error("the world's state cannot be sent", "err", err)
		} else {
			up.State, up.StateHash = b, state.Server
			s.drift.stateFixAt = at
		}
	}
	for _, id := range ids {
		s.drift.fixAt[id] = at
	}
	for _, id := range removed {
		s.drift.fixAt[id] = at
	}
	for id, fa := range s.drift.fixAt { // forget old repairs (bookkeeping, not simulation)
		if fa+realtimeRecheckSpan < f {
			delete(s.drift.fixAt, id)
		}
	}
	s.sched.add(event{frame: at, kind: evUpdate, seat: up.Seat, update: up})
	s.stats.RealtimeResyncs++
	s.stats.lastResync = at
	s.event(now, "real-time re-sync", "seat", st.idx, "units", len(up.Units), "removed", len(up.Removed), "state", len(up.State) > 0, "at frame", at)
	for d := range s.seats.following {
		s.send(d, now, up)
	}
	return at
}

// pauseWorld schedules a stop-the-world pause far enough ahead that every client has the order
// in time. The units in known are sent to every player as soon as the server reaches the pause,
// without waiting for the hashes.
func (s *Server) pauseWorld(now time.Time, known []uint32) {
	if s.drift.pause != nil {
		return
	}
	p := &pause{frame: s.w.Frame() + 2*s.lead.cur + pauseMarginFrames, known: make(map[uint32]bool)}
	for _, id := range known {
		p.known[id] = true
	}
	s.drift.pause = p
	s.stats.StopWorldResyncs++
	s.drift.log.pauses = pushRecord(s.drift.log.pauses, PauseRecord{Frame: p.frame, Running: true})
	// The spectators pause too, so that their worlds stop at the same frame; the server sends
	// them the paused world and waits for none of them (spectate.go).
	for d := range s.seats.following {
		s.sendPause(d, now, nil)
	}
}

// sendPause orders d to pause at the pause's frame, after the messages after: a sync message,
// stop-and-wait on its connection.
func (s *Server) sendPause(d *downlink, now time.Time, after []*depgraph.Dependency) {
	d.drift.pause = &clientPause{applied: make(map[uint32]bool)}
	s.sendAfter(d, now, &Pause{Frame: s.drift.pause.frame}, after, &d.drift.pause.pauseDep)
}

// Nobody waits forever. A stop-the-world waits for every client's hashes and for every
// client to apply its batches, but only until the pause's deadline: then the clients still
// missing are dropped from the round (they get the Resume all the same, so an honest client
// that was merely slow goes on, and its next hash reports show what still differs), and the
// others resume. The deadline leaves the whole pause, the Resume's wait included, under
// pauseLimit. A client dropped from maxPauseMisses rounds in a row, or whose report stops the
// world again within stopWorldSpan of the last time it did, leaves the game: one client must
// not be able to freeze everybody's game, and a rejoin gives it a fresh copy of the world.
const (
	// realtimeEvery: at most one real-time re-sync a second for the units one player reports,
	// after a burst of realtimeBurst (realtimeRate): drifts come in clusters (a late command
	// and the fights it changed; the start of a game, while the lead rises), and each one
	// deferred waits up to a second more.
	realtimeEvery  = time.Second
	realtimeBurst  = 3
	pauseLimit     = 2 * time.Second
	pauseMinWait   = 600 * time.Millisecond // the least a pause waits for the clients
	maxPauseMisses = 2
	stopWorldSpan  = 30 * time.Second
)

// againTooSoon decides for a client whose report would stop the world again within
// stopWorldSpan of the last time it did (n units differ; again of them were repaired recently):
// stopping every player again would let one client freeze the game at will. If the units are
// few enough, they are repaired in real time instead (it returns 0 for again). If not, under
// rollback the client leaves the game (it returns -1), and a rejoin gives it a fresh copy of
// the world: its world cannot hold. Under LateFastForward every host's world drifts by design
// with each command it gets late, and a squad's order can move more units than a real-time
// re-sync carries: the first RealtimeMax of them are repaired in real time, and the next reports
// name the rest (it returns 0, and piece reports true). Otherwise it returns again unchanged.
func (s *Server) againTooSoon(now time.Time, st *seat, again, n int) (_ int, piece bool) {
	if (again == 0 && n <= s.cfg.RealtimeMax) || st.sync.stoppedWorld.IsZero() || now.Sub(st.sync.stoppedWorld) >= stopWorldSpan {
		return again, false
	}
	if n <= s.cfg.RealtimeMax || s.drift.rw.mode == LateFastForward {
		s.event(now, "no second stop-the-world so soon", "seat", st.idx, "units", n)
		return 0, n > s.cfg.RealtimeMax
	}
	s.dropFromGame(now, st, "its world drifted too far again right after a stop-the-world re-sync")
	return -1, false
}

// firstUnits keeps the first most of the units in ids, then of those in removed (both in the
// order of their ids, as the repair wants them).
func firstUnits(ids, removed []uint32, most int) ([]uint32, []uint32) {
	ids = ids[:min(len(ids), most)]
	return ids, removed[:min(len(removed), most-len(ids))]
}

// pauseDeadline is when the clients still missing from a pause reached at reached are
// dropped from it, for a Resume that waits after, in a game of frames of frame.
func pauseDeadline(reached time.Time, after, frame time.Duration) time.Time {
	return reached.Add(max(pauseMinWait, pauseLimit-after-frame))
}

// pauseOverdue drops from the pause the clients that have not finished by its deadline, and
// resumes the others.
func (s *Server) pauseOverdue(now time.Time) {
	p := s.drift.pause
	if p == nil || p.deadline.IsZero() || now.Before(p.deadline) || !s.drift.resumeAt.IsZero() {
		return
	}
	for _, st := range s.seats.players {
		if st == nil || st.peer == nil || st.drift.pause == nil || st.drift.pause.dropped {
			continue
		}
		cp := st.drift.pause
		if cp.hashes && uint32(len(cp.applied)) >= cp.sent {
			continue
		}
		cp.dropped = true
		st.sync.pauseMisses++
		s.stats.PauseDropouts++
		s.event(now, "dropped from the re-sync", "seat", st.idx, "name", st.name, "hashes", cp.hashes,
			"batches applied", len(cp.applied), "of", cp.sent, "rounds missed", st.sync.pauseMisses)
		if st.sync.pauseMisses >= maxPauseMisses {
			s.dropFromGame(now, st, "did not take part in the stop-the-world re-syncs")
		}
	}
	s.checkResume(now)
}

// dropFromGame disconnects a client that keeps the game from going on; its seat is held for it
// as for any player who left, and a rejoin gets a fresh copy of the world.
func (s *Server) dropFromGame(now time.Time, st *seat, why string) {
	s.stats.PlayersDropped++
	s.event(now, "player dropped", "seat", st.idx, "name", st.name, "why", why)
	if p := st.peer; p != nil {
		s.tr.Kick(p, now, why) // onDisconnect frees the connection and tells the others
	}
}

// reachPause: the server's world is at the paused frame. The updates it already knows are
// needed go out at once, without waiting for the clients' hashes.
func (s *Server) reachPause(now time.Time) {
	p := s.drift.pause
	p.reached = now
	p.deadline = pauseDeadline(now, time.Duration(s.lead.cur)*s.cfg.Frame, s.cfg.Frame)
	if pr := s.runningPause(); pr != nil {
		pr.Start = now
	}
	// Late events for frames before the pause (they reached the server after their frame) are
	// applied now, so the state the clients receive holds them; later ones are refused
	// (dropBefore sets the floor): a client may have applied them on time, and the re-sync
	// now decides what their units are.
	for _, e := range s.sched.runLate(s.w, p.frame) {
		s.countRefused(e, false)
		s.stats.CommandsLate++
	}
	s.sched.dropBefore(p.frame)
	s.drift.rw.reset(p.frame) // the clients get this state: nothing before it runs again
	s.event(now, "paused", "frame", p.frame)
	ids := make([]uint32, 0, len(p.known))
	for _, u := range s.w.Units() {
		if p.known[u.ID] {
			ids = append(ids, u.ID)
		}
	}
	for _, st := range s.seats.players {
		if st != nil && st.drift.pause != nil && st.peer != nil && len(ids) > 0 {
			s.sendBatches(now, &st.downlink, worldPart{ids: ids, repair: true})
		}
	}
	s.spectatorsPaused(now)
	s.checkResume(now)
}

// worldHashes: a client's hashes of its whole paused world. The server sends every unit that
// differs, the ones the client lacks, the removal of the ones it should not have, and the
// complete state (attacks in flight, counters) in the last batch.
func (s *Server) worldHashes(now time.Time, st *seat, wh *WorldHashes) {
	cp := st.drift.pause
	if cp == nil || s.drift.pause == nil || wh.Frame != s.drift.pause.frame || cp.hashes {
		return
	}
	if s.drift.pause.reached.IsZero() {
		// The server has not reached the frame yet (its clock runs a little ahead of most
		// clients, but not always); it answers once it has.
		s.drift.pendingHashes = append(s.drift.pendingHashes, pendingHashes{st, wh})
		return
	}
	cp.hashes = true
	theirs := make(map[uint32]uint64, len(wh.Hashes))
	for _, h := range wh.Hashes {
		theirs[h.ID] = h.Hash
	}
	var ids, removed []uint32
	rec := SyncRecord{When: now, Seat: st.idx, Frame: s.drift.pause.frame, Action: ActionStopWorld, At: s.drift.pause.frame}
	for _, u := range s.w.Units() {
		if h, ok := theirs[u.ID]; !ok || h != u.Hash() {
			ids = append(ids, u.ID)
			rec.addUnit(UnitMismatch{ID: u.ID, Local: h, Server: u.Hash(), NoLocal: !ok, LocalKnown: true})
		}
	}
	for _, h := range wh.Hashes {
		if _, ok := s.w.Unit(h.ID); !ok {
			removed = append(removed, h.ID)
			rec.addUnit(UnitMismatch{ID: h.ID, Local: h.Hash, NoServer: true, LocalKnown: true})
		}
	}
	if len(ids)+len(removed) > 0 {
		s.drift.log.records = pushRecord(s.drift.log.records, rec)
		st.sync.lastHash = fmt.Sprintf("stop-the-world at frame %d", s.drift.pause.frame)
	}
	for _, id := range ids {
		if !s.drift.pause.known[id] {
			s.stats.MismatchedUnits++ // the known ones were counted when they were found
		}
	}
	s.stats.MismatchedUnits += uint64(len(removed))
	s.sendBatches(now, &st.downlink, worldPart{ids: ids, removed: removed, complete: true, repair: true})
}

type pendingHashes struct {
	st *seat
	wh *WorldHashes
}

// worldPart is what the batches of a stop-the-world re-sync carry to one client.
type worldPart struct {
	ids, removed []uint32 // the units to put in place, and the ones to remove
	// complete: the last batch carries the whole world's state (the attacks in flight, the
	// counters, the random generator), and with it the client's world is the server's.
	complete bool
	// repair: the units repair a player's drift, and count in the pause's record (a
	// spectator's copy of the world is not one).
	repair bool
}

// sendBatches sends d, in a stop-the-world re-sync, the server's state of part in batches of
// resyncBatchUnits units, each after the Pause.
func (s *Server) sendBatches(now time.Time, d *downlink, part worldPart) {
	cp := d.drift.pause
	ids, removed, final := part.ids, part.removed, part.complete
	for i := 0; i < len(ids) || (final && i == 0) || (i == 0 && len(removed) > 0); i += resyncBatchUnits {
		b := &ResyncBatch{Frame: s.drift.pause.frame, Batch: cp.sent}
		for _, id := range ids[min(i, len(ids)):min(i+resyncBatchUnits, len(ids))] {
			if u, ok := s.w.Unit(id); ok {
				b.Units = append(b.Units, u)
			}
		}
		last := i+resyncBatchUnits >= len(ids)
		if last {
			b.Removed = removed
			if final {
				// A state the codec cannot carry (a world past a billion frames or attacks)
				// leaves the batch without one: the client keeps its own, and the next hash
				// report shows the difference.
				state, err := s.w.AppendState(nil)
				if err != nil {
					s.cfg.Logger.Error("resync state", "err", err)
				}
				b.HasAttacks, b.Attacks, b.State = true, slices.Clone(s.w.Attacks()), state
			}
		}
		cp.sent++
		if pr := s.runningPause(); pr != nil && part.repair {
			pr.Units += len(b.Units) + len(b.Removed)
		}
		out := new(depgraph.Dependency)
		cp.batchDeps = append(cp.batchDeps, out)
		s.sendAfter(d, now, b, []*depgraph.Dependency{&cp.pauseDep}, out)
		if last {
			break
		}
	}
}

// checkResume resumes once every client sent its hashes and applied every batch.
func (s *Server) checkResume(now time.Time) {
	p := s.drift.pause
	if p == nil || p.reached.IsZero() || !s.drift.resumeAt.IsZero() {
		return
	}
	for _, ph := range s.drift.pendingHashes {
		s.worldHashes(now, ph.st, ph.wh)
	}
	s.drift.pendingHashes = nil
	for _, st := range s.seats.players {
		if st == nil || st.peer == nil || st.drift.pause == nil || st.drift.pause.dropped {
			continue
		}
		cp := st.drift.pause
		if !cp.hashes || uint32(len(cp.applied)) < cp.sent {
			return
		}
	}
	// Everybody is in sync: resume after the lead time, so that the Resume reaches every
	// client about when the server goes on.
	after := time.Duration(s.lead.cur) * s.cfg.Frame
	for _, st := range s.seats.players {
		if st == nil || st.peer == nil || st.drift.pause == nil {
			continue
		}
		deps := st.drift.pause.batchDeps
		if st.drift.pause.dropped {
			// A client dropped from the round resumes with the others, whatever it applied.
			deps = []*depgraph.Dependency{&st.drift.pause.pauseDep}
		} else {
			st.sync.pauseMisses = 0
		}
		s.sendAfter(st, now, &Resume{Frame: p.frame, AfterMillis: uint32(after / time.Millisecond)}, deps, nil)
	}
	s.resumeSpectators(now, &Resume{Frame: p.frame, AfterMillis: uint32(after / time.Millisecond)})
	s.drift.resumeAt = now.Add(after)
}

func (s *Server) resume(now time.Time) {
	p := s.drift.pause
	length := now.Sub(p.reached)
	s.stats.PauseMillis = appendBounded(s.stats.PauseMillis, length.Milliseconds(), maxPausesKept)
	if pr := s.runningPause(); pr != nil {
		pr.Millis, pr.Running = length.Milliseconds(), false
	}
	s.stats.lastResync = p.frame
	s.event(now, "resumed", "frame", p.frame, "pause", length.Round(time.Millisecond))
	for d := range s.seats.connected {
		d.drift.pause = nil
	}
	for _, st := range s.seats.players {
		if st != nil {
			st.drift.pause = nil // a seat whose player left during the pause too
		}
	}
	s.drift.pause, s.drift.resumeAt = nil, time.Time{}
	s.clock.nextFrame = now
}

// runningPause is the log's record of the pause under way, or nil.
func (s *Server) runningPause() *PauseRecord {
	if s.drift.pause == nil || len(s.drift.log.pauses) == 0 {
		return nil
	}
	if pr := &s.drift.log.pauses[len(s.drift.log.pauses)-1]; pr.Running && pr.Frame == s.drift.pause.frame {
		return pr
	}
	return nil
}

// maxEarlyReports bounds the reports waiting on one connection for their frame to settle: one
// every hashReportEvery frames for as long as a frame can take to settle, and one more.
const maxEarlyReports = maxResimWindow/hashReportEvery + 2

// settled reports whether the server's frame f can be checked: the world is settle frames
// past it (resim.go).
func (s *Server) settled(f uint32) bool {
	cur := s.w.Frame()
	return f+s.drift.rw.settle(cur) <= cur
}

// checkEarly checks the reports, the players' and the spectators', that came before their
// frame settled on the server and whose frame has settled since.
func (s *Server) checkEarly(now time.Time) {
	for _, st := range s.seats.players {
		if st != nil {
			s.checkSettled(&st.downlink, func(r *HashReport) { s.checkHashReport(now, st, r) })
		}
	}
	for _, sp := range s.seats.spectators {
		if sp != nil {
			s.checkSettled(&sp.downlink, func(r *HashReport) { s.checkSpectatorReport(now, sp, r) })
		}
	}
}

// checkSettled checks (with check) the reports waiting on d that are due now (reportDue), in
// the order they came, drops those that never will be, and keeps the others waiting.
func (s *Server) checkSettled(d *downlink, check func(*HashReport)) {
	keep := d.drift.early[:0]
	for _, r := range d.drift.early {
		switch s.reportDue(d, r) {
		case reportCheck:
			check(r)
		case reportOtherInputs:
			s.stats.HashReportsOtherInputs++
		default:
			keep = append(keep, r)
		}
	}
	clear(d.drift.early[len(keep):])
	d.drift.early = keep
}
