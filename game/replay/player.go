package replay

import (
	"fmt"
	"time"
)

// Speeds are the playback speeds, slowest first: a quarter of real time to sixteen times it.
var Speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16}

// normalSpeed is the index of 1× in Speeds.
const normalSpeed = 2

// maxStepsPerAdvance bounds the datagrams one Advance applies, so that a screen stays
// responsive at 16× over a busy capture: the rest follow at the next call.
const maxStepsPerAdvance = 20_000

// Player plays a Model at a speed. It owns no clock: the caller says how much time passed
// (Advance), so a ticker drives it in the binary and a loop of fixed steps in a test.
type Player struct {
	Model   *Model
	playing bool
	speed   int
	// cursor is the capture time played up to: every datagram at or before it is applied.
	cursor time.Time
}

// NewPlayer returns a paused Player at the start of m, at 1×.
func NewPlayer(m *Model) *Player {
	return &Player{Model: m, speed: normalSpeed, cursor: m.Start()}
}

// Playing reports whether the capture plays (false: paused, or at its end).
func (p *Player) Playing() bool { return p.playing }

// Speed is the playback speed, 1 for real time.
func (p *Player) Speed() float64 { return Speeds[p.speed] }

// Cursor is the capture time played up to.
func (p *Player) Cursor() time.Time { return p.cursor }

// Play starts or resumes playing (from the start again at the end).
func (p *Player) Play() {
	if p.Model.Pos() == p.Model.Len() {
		p.Restart()
	}
	p.playing = p.Model.Len() > 0
}

// Pause stops playing where it is.
func (p *Player) Pause() { p.playing = false }

// Toggle plays or pauses.
func (p *Player) Toggle() {
	if p.playing {
		p.Pause()
	} else {
		p.Play()
	}
}

// Faster and Slower move to the next speed; they report false at the fastest or slowest.
func (p *Player) Faster() bool {
	if p.speed == len(Speeds)-1 {
		return false
	}
	p.speed++
	return true
}

// Slower moves to the previous speed.
func (p *Player) Slower() bool {
	if p.speed == 0 {
		return false
	}
	p.speed--
	return true
}

// Advance moves the cursor by elapsed at the speed, while playing, and applies the datagrams
// it passes. It returns how many it applied; at the end of the capture it pauses.
func (p *Player) Advance(elapsed time.Duration) int {
	if !p.playing || elapsed <= 0 {
		return 0
	}
	p.cursor = p.cursor.Add(time.Duration(float64(elapsed) * Speeds[p.speed]))
	m, n := p.Model, 0
	for m.Pos() < m.Len() && !m.At(m.Pos()).After(p.cursor) && n < maxStepsPerAdvance {
		m.Step()
		n++
	}
	if m.Pos() == m.Len() {
		p.playing = false
	}
	return n
}

// Step pauses and applies one datagram; false at the end.
func (p *Player) Step() bool {
	p.playing = false
	if !p.Model.Step() {
		return false
	}
	p.cursor = p.Model.At(p.Model.Pos() - 1)
	return true
}

// SeekResync pauses and applies datagrams up to and including the next one that carries a new
// Pause or UnitUpdate; false, changing nothing, when none is left.
func (p *Player) SeekResync() bool {
	i, ok := p.Model.NextResync()
	if !ok {
		return false
	}
	p.playing = false
	p.Model.Seek(i + 1)
	p.cursor = p.Model.At(i)
	return true
}

// Restart goes back to before the first datagram, paused.
func (p *Player) Restart() {
	p.playing = false
	p.Model.Reset()
	p.cursor = p.Model.Start()
}

// Status is the timeline in one line:
//
//	datagram 812 of 4051 · 12.345 s of 41.200 s · 2× · playing
func (p *Player) Status() string {
	m := p.Model
	state := "paused"
	switch {
	case p.playing:
		state = "playing"
	case m.Len() > 0 && m.Pos() == m.Len():
		state = "at the end"
	}
	return fmt.Sprintf("datagram %d of %d · %.3f s of %.3f s · %s× · %s", m.Pos(), m.Len(),
		p.cursor.Sub(m.Start()).Seconds(), m.End().Sub(m.Start()).Seconds(), speedText(Speeds[p.speed]), state)
}

func speedText(s float64) string {
	return fmt.Sprintf("%g", s)
}
