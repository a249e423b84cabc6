package game

import (
	"errors"
	"slices"

	"github.com/ackattack/ackattack/world"
)

// event is something every host applies to its world at the start of a frame: a spawn, a
// kill, a unit update or a command. Hosts agree on the order of a frame's events whatever order
// they arrived in: by kind, then seat, then id.
type event struct {
	frame uint32
	kind  eventKind
	seat  uint8
	id    uint32
	// ranAt is the frame a late event was fast-forwarded at (0 for one that ran at its own
	// frame): a re-run that passes it applies it there again, fast-forwarded alike, so that
	// the re-run gives back the world it replaces, and no event is lost between a copy taken
	// before it ran and its own earlier frame.
	ranAt uint32

	cmd       *Command
	spawn     *SpawnEnemy
	update    *UnitUpdate
	reinforce *Reinforce
	round     *NewRound
}

type eventKind uint8

// The order within a frame: a new round first (it empties the world, and the frame's other
// events happen in the new one); enemies appear and vanish, and squads land, before anybody
// acts on them; server corrections come before the commands that act on the corrected units.
const (
	evRound eventKind = iota + 1
	evSpawn
	evKill
	evReinforce
	evUpdate
	evCommand
)

func (e *event) less(f *event) bool {
	if e.frame != f.frame {
		return e.frame < f.frame
	}
	if e.kind != f.kind {
		return e.kind < f.kind
	}
	if e.seat != f.seat {
		return e.seat < f.seat
	}
	return e.id < f.id
}

// schedule holds the events not yet applied, sorted, and remembers which commands were
// already taken so that a command that arrives twice (from the server and straight from its
// player) runs once. It also keeps the events of the last historyFrames frames after they ran,
// so that a host whose world is put back to an earlier frame (a re-sync that came late) can run
// them again.
type schedule struct {
	pending []event
	done    []event
	buf     []event           // runUpTo's, kept for its memory
	ran     []dueEvent        // the events of the frame being run (runDue)
	seen    map[cmdKey]uint32 // command → its frame; forgotten seenFrames after that frame
	floor   uint32            // events for earlier frames are refused (the last re-sync's frame)
	inputs  inputLog          // what ran for each recent frame, for the hash reports' digest
	// copyFloor is the frame of the world copy this host took last (worldCopied): the
	// digest counts no event for an earlier frame.
	copyFloor uint32
}

// seenFrames is how long a command's key is remembered after its frame: far longer than any
// duplicate can trail the original (a relay, a direct link, a resend), and short enough that a
// player who comes back with a new client may count its commands from 1 again.
const seenFrames = 3 * historyFrames

type cmdKey struct {
	seat uint8
	id   uint32
}

func newSchedule() *schedule { return &schedule{seen: make(map[cmdKey]uint32)} }

// add inserts e in order. A command already seen is dropped and add reports false, and so is
// any event for a frame before the floor (see dropBefore).
func (s *schedule) add(e event) bool {
	if e.frame < s.floor {
		return false
	}
	if e.kind == evCommand {
		k := cmdKey{e.seat, e.id}
		if _, dup := s.seen[k]; dup {
			return false
		}
		s.seen[k] = e.frame
	}
	s.insert(e)
	return true
}

// insert puts e into the pending events in order.
func (s *schedule) insert(e event) {
	i, _ := slices.BinarySearchFunc(s.pending, e, func(a, b event) int {
		switch {
		case a.less(&b):
			return -1
		case b.less(&a):
			return 1
		}
		return 0
	})
	s.pending = slices.Insert(s.pending, i, e)
}

// each calls f with every event kept: the ones that have run and may still run again
// (done, oldest first), then the pending ones in order.
func (s *schedule) each(f func(*event)) {
	for i := range s.done {
		f(&s.done[i])
	}
	for i := range s.pending {
		f(&s.pending[i])
	}
}

// due removes and returns the events for frames up to and including frame, in order, to run at
// frame at: one for an earlier frame is fast-forwarded there (ranAt). An event fast-forwarded
// at a later frame waits for that frame when it runs again.
func (s *schedule) due(frame, at uint32, dst []event) []event {
	n := 0
	for n < len(s.pending) && s.pending[n].frame <= frame {
		n++
	}
	keep := s.pending[:0]
	for _, e := range s.pending[:n] {
		if e.ranAt > frame {
			keep = append(keep, e) // in order still: the pending events stay sorted
			continue
		}
		if e.frame < at {
			e.ranAt = at
		}
		dst = append(dst, e)
		s.done = append(s.done, e)
	}
	s.pending = slices.Delete(s.pending, len(keep), n)
	// Forget what is too old to run again, and keys too old to be duplicated.
	k := 0
	for k < len(s.done) && max(s.done[k].frame, s.done[k].ranAt)+historyFrames < frame {
		k++
	}
	s.done = slices.Delete(s.done, 0, k)
	if frame%historyFrames == 0 {
		for key, f := range s.seen { // bookkeeping only: the order of deletion changes nothing
			if f+seenFrames < frame {
				delete(s.seen, key)
			}
		}
	}
	return dst
}

// dueEvent is an event run at its frame, with the world's verdict on it.
type dueEvent struct {
	event
	err error // why the world refused it (a command for another seat's units, a gone enemy)
}

// runDue runs on w the events due by frame f, in order, and returns them with the world's
// verdicts. An event for an earlier frame (late, and no re-run covers it) is fast-forwarded:
// its units walk the frames they missed (world.FastForward), which can leave this world
// different from the hosts that had it in time, for the hash checks to find. The slice is
// reused by the next call.
func (s *schedule) runDue(w *world.World, f uint32) []dueEvent {
	s.inputs.begin(f) // the frame runs (again): its own events are counted anew
	return s.runUpTo(w, f, f)
}

// runLate runs on w every event still waiting for a frame before f, where w is: a host that
// reached a stop-the-world pause at f applies the late ones now, fast-forwarded to f.
func (s *schedule) runLate(w *world.World, f uint32) []dueEvent { return s.runUpTo(w, f-1, f) }

func (s *schedule) runUpTo(w *world.World, through, at uint32) []dueEvent {
	s.buf = s.due(through, at, s.buf[:0])
	s.ran = s.ran[:0]
	for i := range s.buf {
		e := &s.buf[i]
		err := apply(w, e)
		s.inputs.ran(e, at)
		if e.frame < at {
			w.FastForward(unitsOf(e), int(at-e.frame))
		}
		s.ran = append(s.ran, dueEvent{event: *e, err: err})
	}
	return s.ran
}

// rewind puts back the events that ran at or after frame, for their frames or fast-forwarded
// (ranAt): the world was put back to frame and must run them again.
func (s *schedule) rewind(frame uint32) {
	keep := s.done[:0]
	for _, e := range s.done {
		if max(e.frame, e.ranAt) >= frame {
			s.insert(e)
		} else {
			keep = append(keep, e)
		}
	}
	s.done = keep
}

// dropBefore removes the pending events for frames before frame: a stop-the-world re-sync
// made the world equal the server's as of frame, which already holds whatever the server applied
// before it; a late event for an earlier frame would now be applied twice, or where the server
// never will.
func (s *schedule) dropBefore(frame uint32) int {
	n := 0
	for n < len(s.pending) && s.pending[n].frame < frame {
		n++
	}
	s.pending = slices.Delete(s.pending, 0, n)
	s.floor = max(s.floor, frame)
	return n
}

// all returns every pending event (for a client joining late: events whose frame has passed but
// that have not run yet, late commands, run at the next step on every host alike).
func (s *schedule) all() []event { return slices.Clone(s.pending) }

// apply runs one event on w. Errors are the world's verdicts (an invalid command, a kill of an
// enemy that does not exist); every host reaches the same verdict.
func apply(w *world.World, e *event) error {
	switch e.kind {
	case evRound:
		w.Reset(e.round.Seed)
		return addSquads(w, e.round.Seats)
	case evSpawn:
		k, _ := world.KindOf(e.spawn.Kind)
		return w.SpawnEnemy(e.spawn.ID, k.Name, e.spawn.X, e.spawn.Y)
	case evKill:
		return w.Kill(e.id)
	case evReinforce:
		return addSquads(w, e.reinforce.Seats)
	case evUpdate:
		return applyUpdate(w, e.update)
	case evCommand:
		c := e.cmd
		return w.Apply(world.Command{Player: c.Seat, Kind: c.Kind, Units: c.Units, X: c.X, Y: c.Y, Target: c.Target})
	}
	return nil
}

// applyUpdate puts a real-time re-sync in place: it removes the units the server no longer
// has, puts the server's units in place, then its core state (the id counters, the random
// generator, the attacks in flight), which leaves the units alone. A unit or a state the
// world's rules refuse is skipped, and the refusals are the event's verdict, the same on every
// host.
func applyUpdate(w *world.World, up *UnitUpdate) error {
	var errs []error
	for _, id := range up.Removed {
		w.RemoveUnit(id)
	}
	for _, u := range up.Units {
		if err := w.SetUnit(u); err != nil {
			errs = append(errs, err)
		}
	}
	if len(up.State) > 0 {
		s, _, err := world.ParseCoreState(up.State) // the message's parse checked it already
		if err == nil {
			err = w.ApplyCoreState(s)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// addSquads gives each seat a starting squad, in the order of seats.
func addSquads(w *world.World, seats []uint8) error {
	var errs []error
	for _, seat := range seats {
		if _, err := w.AddPlayerUnits(seat); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// unitsOf lists the units an event touches, for fast-forwarding after a late one.
func unitsOf(e *event) []uint32 {
	switch e.kind {
	case evCommand:
		return e.cmd.Units
	case evUpdate:
		ids := make([]uint32, 0, len(e.update.Units))
		for _, u := range e.update.Units {
			ids = append(ids, u.ID)
		}
		return ids
	case evSpawn:
		return []uint32{e.id}
	}
	return nil
}

// The inputs' digest. A hash report describes a recent frame, which a late event may still
// change; the server compares it only when both hosts ran the same inputs up to it: then the
// same world must have come out, and a difference is a drift, whatever is still on its way
// (drift_server.go, reportDue). The digest of frame f is the XOR of a hash of every event
// for the frames of the inputs' window up to f (inputWindow frames, no earlier than the
// digest's floor) that the host had run by the time it recorded f, its own frame or late,
// re-run or fast-forwarded. A late event that a host has not had yet makes the digests differ
// until it has; one later than the window has left it, so that an event lost for good hides a
// drift for no longer than that.
//
// The floor is the frame from which both hosts had every event: where a world was put in
// place whole, the events before it are in that world, and the host that took the copy never
// ran them. On every host it is the last stop-the-world's frame (the schedule's floor); on a
// client, also the frame of the world copy it took (a game joined while running, a
// spectator's own copy: worldCopied); the server compares a client's report with its own
// digest from that client's floor (drift_server.go, reportDue), and so keeps each frame's
// digest from every floor the window allows (inputDigests).
const (
	// inputWindow is the frames a digest covers: as long as the longest re-run window, so
	// that an event a host may still run again for frame f is in f's digest.
	inputWindow = maxResimWindow
	inputSlots  = 2 * inputWindow // a slot per frame, and room for events fast-forwarded late
)

// inputLog keeps, for each recent frame, the XOR of the hashes of the events for it that ran.
type inputLog struct {
	frames [inputSlots]uint32
	sums   [inputSlots]uint64
	valid  [inputSlots]bool
}

// begin starts the count of frame f's own events: it runs, or runs again.
func (l *inputLog) begin(f uint32) {
	i := f % inputSlots
	l.frames[i], l.sums[i], l.valid[i] = f, 0, true
}

// ran counts e, run at frame at (its own, or later: fast-forwarded).
func (l *inputLog) ran(e *event, at uint32) {
	if at-e.frame >= inputWindow {
		return // in no digest any more: its slot may be another frame's now
	}
	i := e.frame % inputSlots
	if !l.valid[i] || l.frames[i] != e.frame {
		l.frames[i], l.sums[i], l.valid[i] = e.frame, 0, true
	}
	l.sums[i] ^= e.digest()
}

// inputDigests are the inputs' digests of one frame f from each floor the window allows: the
// k-th covers the events for frames f-k to f (and none before the floor the host had when it
// recorded f).
type inputDigests [inputWindow]uint32

// digests are the inputs' digests of frame f, the events for frames before floor left out.
func (l *inputLog) digests(f, floor uint32) inputDigests {
	var d inputDigests
	var x uint64
	for k := range uint32(inputWindow) {
		if g := f - k; k <= f && g >= floor {
			if i := g % inputSlots; l.valid[i] && l.frames[i] == g {
				x ^= l.sums[i]
			}
		}
		d[k] = fold(x)
	}
	return d
}

// from is the digest of frame f from floor on: the events for frames from max(f-inputWindow+1,
// floor) to f (0, the digest of no event, for a floor past f).
func (d *inputDigests) from(f, floor uint32) uint32 {
	if floor > f {
		return 0
	}
	return d[min(f-floor, inputWindow-1)]
}

// fold folds a sum of event hashes to the 32 bits of a digest, the high half XORed into the
// low: the XOR of folded hashes is the fold of their XOR.
func fold(x uint64) uint32 { return uint32(x ^ x>>32) }

// inputDigests are frame f's inputs' digests as the schedule has them now, from its floor.
func (s *schedule) inputDigests(f uint32) inputDigests {
	return s.inputs.digests(f, max(s.floor, s.copyFloor))
}

// worldCopied: a copy of the world at frame was put in place (a game joined while running). The
// events before it are in the copy, and this host never ran them: the digest leaves them out
// from now on, as the server does for this host, though a late one still runs (the server runs
// it too, and sent it along).
func (s *schedule) worldCopied(frame uint32) { s.copyFloor = max(s.copyFloor, frame) }

// digest is a hash of what names e on every host: its frame, kind, seat and id, mixed by the
// world's finalizer (world.Mix64), so that every bit of the event reaches every bit of the
// digest.
func (e *event) digest() uint64 {
	x := uint64(e.frame)<<32 | uint64(e.kind)<<24 | uint64(e.seat)<<16
	return world.Mix64(x ^ uint64(e.id)*0x9e3779b97f4a7c15)
}
