package lesson

import (
	"fmt"
	"time"
)

// Runner walks a script's steps. It does no I/O and keeps no clock: each call brings the time
// and the counters of that moment, and it answers with what the game is to do now. Whoever
// owns it (the screen, a headless loop, a test in virtual time) reads the game, calls Advance
// and hands the actions to the game's loops.
//
// A step begins with its do actions. An until line "+N" is met once its counter has grown by
// N since the step before was met (since the start, for the first step), ">=N" once it has
// reached N. The step ends when every until line is met and it has been up for its read
// time; the next one begins at the same call. Its every lines come due again and again while
// it is up. A lesson tells a chain of events, and the next link may come while the step
// before is still up to be read: it counts. The first step begins once the game has started
// (game-started).
type Runner struct {
	s       *Script
	cur     int // the step up; len(s.Steps) once the lesson is over
	begun   bool
	at      time.Time   // when the current step began
	base    Counters    // the counters its +N count from
	metAt   Counters    // the counters when its until lines were first all met (nil: not yet)
	next    []time.Time // when each of its every lines is due
	reached []time.Time // when each step began (zero: not yet)
}

// NewRunner returns a runner at the start of s.
func NewRunner(s *Script) *Runner {
	return &Runner{s: s, reached: make([]time.Time, len(s.Steps))}
}

// Script is the script the runner walks.
func (r *Runner) Script() *Script { return r.s }

// Step is the index of the step up, len(Script().Steps) once the lesson is over.
func (r *Runner) Step() int { return r.cur }

// Begun reports whether the first step has begun (the game has started).
func (r *Runner) Begun() bool { return r.begun }

// Done reports whether every step has ended.
func (r *Runner) Done() bool { return r.cur >= len(r.s.Steps) }

// Reached is when step i began, zero if it has not.
func (r *Runner) Reached(i int) time.Time { return r.reached[i] }

// Advance takes the counters c at now and returns the actions due: the do lines of a step
// that begins, and the every lines whose time has come. The runner keeps c: it must not be
// changed after.
func (r *Runner) Advance(now time.Time, c Counters) []Action {
	if !r.begun {
		if c[Key{Event: "game-started"}] == 0 {
			return nil // the game's hosts take no orders before the start
		}
		r.begun = true
		return r.begin(0, now, c)
	}
	if r.Done() {
		return nil
	}
	if r.metAt == nil && r.met(now, c) {
		r.metAt = c
	}
	if r.metAt != nil && now.Sub(r.at) >= r.s.Steps[r.cur].Read {
		return r.begin(r.cur+1, now, r.metAt)
	}
	var due []Action
	for i, rep := range r.s.Steps[r.cur].Every {
		if !now.Before(r.next[i]) {
			due = append(due, rep.Action)
			r.next[i] = now.Add(rep.Every)
		}
	}
	return due
}

// begin puts step i up at now, its +N counting from base.
func (r *Runner) begin(i int, now time.Time, base Counters) []Action {
	r.cur, r.at, r.base, r.metAt = i, now, base, nil
	if r.Done() {
		return nil
	}
	r.reached[i] = now
	st := &r.s.Steps[i]
	r.next = r.next[:0]
	due := append([]Action(nil), st.Do...)
	for _, rep := range st.Every {
		// The first comes with the step's do lines: a step that repeats something starts
		// doing it at once.
		due = append(due, rep.Action)
		r.next = append(r.next, now.Add(rep.Every))
	}
	return due
}

// value is the counter of k at now, and its baseline: seconds count from the step's start.
func (r *Runner) value(now time.Time, c Counters, k Key) (v, base uint64) {
	if k.Event == secondsEvent {
		return uint64(max(now.Sub(r.at), 0) / time.Second), 0
	}
	return c[k], r.base[k]
}

func (r *Runner) goalMet(now time.Time, c Counters, g Goal) bool {
	v, base := r.value(now, c, g.Key)
	if g.AtLeast {
		return v >= g.N
	}
	return v >= base && v-base >= g.N
}

func (r *Runner) met(now time.Time, c Counters) bool {
	for _, g := range r.s.Steps[r.cur].Until {
		if !r.goalMet(now, c, g) {
			return false
		}
	}
	return true
}

// Progress is what the lesson panel shows: an immutable copy.
type Progress struct {
	Number int
	Title  string
	Steps  []string // the titles
	// Current is the step up, len(Steps) once the lesson is over (Done).
	Current int
	Done    bool
	// The current step's text, things to try and until lines.
	Text, Try []string
	Goals     []GoalProgress
	// Show is the counters the script asks to show, the lesson's and the step's.
	Show []Reading
	// Note is what the meter last saw of the current step's first until event, "" if
	// nothing ("KillEnemy #57 waited 84 ms for #55").
	Note string
	// Err is the latest action the game refused, "" for none.
	Err string
}

// GoalProgress is one until line and how far it has come.
type GoalProgress struct {
	Label string // what the counter is
	Have  uint64 // for +N: grown since the step began; for >=N: the value
	Want  uint64
	Unit  string
	Met   bool
}

// Reading is one counter shown.
type Reading struct {
	Label string
	Value string
}

// Progress describes the lesson at now with the counters c; note names what the meter last
// saw of a counter (Meter.Note, nil for none).
func (r *Runner) Progress(now time.Time, c Counters, note func(Key) string) Progress {
	p := Progress{Number: r.s.Number, Title: r.s.Title, Current: r.cur, Done: r.Done()}
	for _, st := range r.s.Steps {
		p.Steps = append(p.Steps, st.Title)
	}
	show := r.s.Show
	if !p.Done && r.begun {
		st := &r.s.Steps[r.cur]
		p.Text, p.Try = st.Text, st.Try
		for _, g := range st.Until {
			v, base := r.value(now, c, g.Key)
			gp := GoalProgress{Label: Label(g.Key), Want: g.N, Unit: Unit(g.Key), Met: r.goalMet(now, c, g), Have: v}
			if !g.AtLeast {
				gp.Have = v - min(base, v)
			}
			p.Goals = append(p.Goals, gp)
		}
		if note != nil && len(st.Until) > 0 {
			p.Note = note(st.Until[0].Key)
		}
		show = append(show[:len(show):len(show)], st.Show...)
	}
	for _, k := range show {
		v, _ := r.value(now, c, k)
		p.Show = append(p.Show, Reading{Label: Label(k), Value: ValueText(v, Unit(k))})
	}
	return p
}

// ValueText writes a counter's value with its unit: "42", "180 ms".
func ValueText(v uint64, unit string) string {
	if unit == "" {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%d %s", v, unit)
}
