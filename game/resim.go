package game

import (
	"fmt"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Late events, run again exactly.
//
// An event (a command, a spawn, a kill, a unit update) names the frame it runs at. One that
// arrives after its host ran that frame is late. The classic lockstep answer (the fast-forward)
// applies it at once and fast-forwards its units' walking over the frames they missed;
// everything else those frames did (who shot whom, who was in the way) stays as it was without
// the event, so the host's world can differ from the hosts that had it in time, and the hash
// checks must repair it.
//
// The exact answer re-simulates. Every host keeps a copy of its world every resimEvery frames
// for the frames of the re-run window, and the schedule keeps the events it applied over the same
// frames. A late event within the window puts the world back to the copy before the event's
// frame, puts the events since then back into the schedule together with the late one, and
// runs the frames again up to where the host was. The result is the world of a host that had
// the event in time, bit for bit; only the frames' effects that left the host (hash reports,
// bots' orders, enemy spawns) are not taken back, and they did not depend on the late event's
// frames anyway, or are checked again (hash reports: the drill-down reads the history, which
// the re-run rewrites). An event later than the window, or older than the last re-sync that
// put the world in place, falls back to the fast-forward, and is counted.
//
// LateFastForward keeps the fast-forward for every late event, so that a class can watch the
// difference (the --late flag); only the server's repairs of a drift (real-time re-syncs) are
// still run again from the copies, so that a repair lands at the same frame on every host as
// soon as it can, rather than a lead time ahead.
//
// A re-run gives back the world it replaces: an event that was fast-forwarded (later than the
// window, or before the last re-sync) is applied again at the frame it ran at, fast-forwarded
// alike (event.ranAt), and everything else at its own frame.

// LateMode is what a host does with an event that arrives for a frame it already ran.
type LateMode uint8

const (
	LateRollback    LateMode = iota // re-simulate from before the event's frame (within the window)
	LateFastForward                 // apply it at once and fast-forward its units
)

func (m LateMode) String() string {
	switch m {
	case LateRollback:
		return "rollback"
	case LateFastForward:
		return "fastforward"
	}
	return fmt.Sprintf("LateMode(%d)", uint8(m))
}

// MarshalText and UnmarshalText make a LateMode a flag value (--late).
func (m LateMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

func (m *LateMode) UnmarshalText(b []byte) error {
	v, err := ParseLateMode(string(b))
	if err == nil {
		*m = v
	}
	return err
}

// ParseLateMode reads "rollback" or "fastforward".
func ParseLateMode(s string) (LateMode, error) {
	switch s {
	case "rollback":
		return LateRollback, nil
	case "fastforward":
		return LateFastForward, nil
	}
	return 0, fmt.Errorf("late mode %q: rollback or fastforward", s)
}

// The re-run window: how far back a late event is run again exactly. The lead covers the usual
// delivery only (lead.go), so the window must cover the rest: at least resimWindow frames (3 s
// at 10 frames a second), and more on a path whose measured resends need it (windowFor), up to
// maxResimWindow. Every host sizes its own from what it measures: a host that cannot run an
// event again exactly fast-forwards it, and the hash checks repair what that changed.
const (
	resimWindow    = 30
	maxResimWindow = 60
	// resimEvery is how often a copy of the world is kept: a late event re-runs at most this
	// many frames more than it needs. The copies of the longest window bound the memory:
	// resimCopies copies of the world, each the size of the world (BENCHMARKS.md measures it).
	resimEvery  = 5
	resimCopies = maxResimWindow/resimEvery + 1
	// windowResends is how many resends the window covers beyond the lead: a relayed event
	// crosses two connections, and at one datagram lost in two on each (the class's 30% preset
	// on every process loses 55%), it needs sixteen sends or more in about one case in a
	// thousand.
	windowResends = 16
)

// windowFor is the re-run window, in frames of frame, for a path whose commands run lead
// frames after they are issued and whose lost messages are sent again after resend: the lead
// and windowResends resends, at least resimWindow and at most maxResimWindow.
func windowFor(frame time.Duration, lead uint32, resend time.Duration) uint32 {
	d := time.Duration(lead)*frame + windowResends*resend
	w := uint32((d + frame - 1) / frame)
	return min(max(w, resimWindow), maxResimWindow)
}

// ResimStats count what the re-simulation did.
type ResimStats struct {
	Resimulations    uint64 // times the world was put back and run again
	FramesRerun      uint64 // frames run again in all
	MaxLateFrames    uint32 // the latest event run again exactly, in frames after its frame
	LateRerun        uint64 // late events run again exactly
	LateBeyondWindow uint64 // late events that fell back to the fast-forward
}

// rewinder keeps the copies of the world and decides where a late event sends it back to.
type rewinder struct {
	mode   LateMode
	window uint32 // frames; 0 means resimWindow (setWindow)
	copies [resimCopies]*world.World
	valid  [resimCopies]bool // a reset invalidates the copies but keeps their memory
	floor  uint32            // no copy before this frame counts: a re-sync put the world in place there
	from   uint32            // the earliest frame a late event since the last rewind needs
	due    bool              // a rewind is due
	stats  ResimStats
	// lateMax is the latest event run again in each of the last lateSpans spans of
	// lateSpanFrames frames (lateSpan says which span a slot holds): what settle measures.
	lateMax  [lateSpans]uint32
	lateSpan [lateSpans]uint32
}

// The settling of a frame. A frame's hashes are final once no late event can change it any
// more, and a late event changes frames until it is a window late. Waiting that long
// before every hash check would find an injected desync 3 s late; so a host waits as long as
// the events of the last 30 s came late, plus a frame: settle. With a lead time that covers
// the link, events are rarely late and a frame is checked one frame after it ran.
const (
	lateSpanFrames = 50 // 5 s
	lateSpans      = 6  // 30 s
)

// noteLate records an event run again lateBy frames after its frame, at frame now.
func (r *rewinder) noteLate(now, lateBy uint32) {
	span := now / lateSpanFrames
	i := span % lateSpans
	if r.lateSpan[i] != span {
		r.lateSpan[i], r.lateMax[i] = span, 0
	}
	r.lateMax[i] = max(r.lateMax[i], lateBy)
}

// settle is how many frames after a frame ran its hashes are checked (reported by a client,
// compared by the server): one more than the latest event run again in the last 30 s, at
// most the window. With the fast-forward only repairs are run again, and a frame is final at
// once: 1.
func (r *rewinder) settle(now uint32) uint32 {
	var late uint32
	span := now / lateSpanFrames
	for i := range r.lateMax {
		if span-r.lateSpan[i] < lateSpans {
			late = max(late, r.lateMax[i])
		}
	}
	return min(late+1, r.windowFrames())
}

// windowFrames is the re-run window in force.
func (r *rewinder) windowFrames() uint32 {
	if r.window == 0 {
		return resimWindow
	}
	return r.window
}

// setWindow sets the re-run window (windowFor). A longer window runs events again from the
// copies as they are kept; a shorter one fast-forwards what it no longer covers.
func (r *rewinder) setWindow(frames uint32) {
	r.window = min(max(frames, resimWindow), maxResimWindow)
}

// keep stores a copy of w at the start of its frame (before the frame's events), every
// resimEvery frames, and at the floor's frame: without it, the late events for the frames
// between a re-sync and the next usual copy would all be fast-forwarded, each a drift.
func (r *rewinder) keep(w *world.World) {
	if w.Frame()%resimEvery != 0 && w.Frame() != r.floor {
		return
	}
	// A re-run replaces the copies it passes: they were taken without the late event. The
	// copy reuses the memory of the one it replaces: a copy every half second of a world of
	// thousands of units would otherwise be a megabyte of garbage a second.
	i := (w.Frame() / resimEvery) % resimCopies
	if r.copies[i] == nil {
		r.copies[i] = w.Clone()
	} else {
		r.copies[i].CopyFrom(w)
	}
	r.valid[i] = true
}

// late takes an event of kind for frame that arrived when the world was at now (the next
// frame to run). It reports whether a rewind will run it exactly; if not, the fast-forward
// will. Under LateFastForward only a repair (evUpdate) runs again: it makes the host's world
// the server's, and fast-forwarded it would be a drift of its own.
func (r *rewinder) late(kind eventKind, frame, now uint32) bool {
	if frame >= now {
		return false // not late
	}
	if (r.mode == LateRollback || kind == evUpdate) && now-frame <= r.windowFrames() && frame >= r.floor {
		if _, ok := r.copyFor(frame); ok {
			if !r.due || frame < r.from {
				r.from = frame
			}
			r.due = true
			r.stats.MaxLateFrames = max(r.stats.MaxLateFrames, now-frame)
			r.stats.LateRerun++
			if r.mode == LateRollback {
				// A repair that comes late under the fast-forward changes frames already
				// reported too, but the reports of those frames without it have other inputs
				// (the repair is one): nobody need wait for it.
				r.noteLate(now, now-frame)
			}
			return true
		}
	}
	r.stats.LateBeyondWindow++
	return false
}

// copyFor is the latest copy at or before frame (and not before the floor).
func (r *rewinder) copyFor(frame uint32) (*world.World, bool) {
	var best *world.World
	for i, c := range r.copies {
		if r.valid[i] && c.Frame() <= frame && c.Frame() >= r.floor && (best == nil || c.Frame() > best.Frame()) {
			best = c
		}
	}
	return best, best != nil
}

// reset forgets every copy: the world was put in place at frame (a re-sync, a snapshot), and
// nothing before it may be run again.
func (r *rewinder) reset(frame uint32) {
	r.valid = [resimCopies]bool{}
	r.floor, r.due = frame, false
}

// rewind returns the world to run again from and the frame to run it up to, if a rewind is
// due; the caller puts the schedule back (schedule.rewind) and runs the frames.
func (r *rewinder) rewind(now uint32) (*world.World, bool) {
	if !r.due {
		return nil, false
	}
	r.due = false
	c, ok := r.copyFor(r.from)
	if !ok {
		return nil, false
	}
	r.stats.Resimulations++
	r.stats.FramesRerun += uint64(now - c.Frame())
	return c.Clone(), true
}

// rerun does a due rewind for a host whose world is cur: set puts the copy in its place as
// the host's world, the schedule gets back the events run since, and frame (the host's re-run
// of one frame) runs until the world is where it was.
func (r *rewinder) rerun(cur *world.World, sched *schedule, set func(*world.World), frame func()) bool {
	to := cur.Frame()
	w, ok := r.rewind(to)
	if !ok {
		return false
	}
	set(w)
	sched.rewind(w.Frame())
	for w.Frame() < to {
		frame()
	}
	return true
}
