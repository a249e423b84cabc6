package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestSliderSnap(t *testing.T) {
	tests := []struct {
		lo, hi, step int
		in, want     int
	}{
		{0, 100, 5, -10, 0},
		{0, 100, 5, 0, 0},
		{0, 100, 5, 2, 0},
		{0, 100, 5, 3, 5},
		{0, 100, 5, 97, 95},
		{0, 100, 5, 98, 100},
		{0, 100, 5, 150, 100},
		{0, 10, 4, 9, 8},   // off-grid max: 9 rounds to the grid point 8
		{0, 10, 4, 10, 10}, // but max itself is allowed
		{0, 10, 4, 11, 10},
		{20, 500, 10, 34, 30},
		{20, 500, 10, 36, 40},
		{-50, 50, 25, -20, -25},
		{0, 10, 0, 7, 7}, // a step below 1 is taken as 1
	}
	for _, tt := range tests {
		s := NewSlider("x", tt.lo, tt.hi, tt.step)
		s.SetValue(tt.in)
		if got := s.Value(); got != tt.want {
			t.Errorf("[%d,%d] step %d: SetValue(%d) gives %d, want %d", tt.lo, tt.hi, tt.step, tt.in, got, tt.want)
		}
	}
}

func TestSliderStepsOffGridMax(t *testing.T) {
	s := NewSlider("x", 0, 10, 4).SetValue(10)
	var got []int
	for range 4 {
		s.stepDown()
		got = append(got, s.Value())
	}
	if want := []int{8, 4, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("stepping down from an off-grid max: %v, want %v", got, want)
	}
}

// newLossSlider returns the slider the screen tests use: on a 35-column
// screen its bar is 21 cells wide (6 for "loss  ", 2 brackets, 6 for
// "  100%"), so each bar cell is worth exactly 5%.
func newLossSlider(changes *[]int) *Slider {
	return NewSlider("loss", 0, 100, 5).SetUnit("%").SetValue(30).SetChangedFunc(func(v int) {
		*changes = append(*changes, v)
	})
}

const lossBarX = 7 // screen column of the bar's first cell

func TestSliderKeys(t *testing.T) {
	var changes []int
	s := newLossSlider(&changes)
	sa := runApp(t, s, 35, 1)
	checkGolden(t, "slider_30", sa.text())

	steps := []struct {
		key  tcell.Key
		r    rune
		want int
	}{
		{tcell.KeyRune, ']', 35},
		{tcell.KeyRune, '+', 40},
		{tcell.KeyRight, 0, 45},
		{tcell.KeyRune, '[', 40},
		{tcell.KeyRune, '-', 35},
		{tcell.KeyLeft, 0, 30},
		{tcell.KeyLeft, 0, 25},
		{tcell.KeyEnd, 0, 100},
		{tcell.KeyHome, 0, 0},
	}
	for _, st := range steps {
		sa.screen.InjectKey(st.key, st.r, tcell.ModNone)
		sa.waitFor("slider value", func() bool { return s.Value() == st.want })
	}
	// The value is clamped: more steps down from min change nothing, which the
	// next step up (to 5, not to something above) shows.
	sa.rune('-')
	sa.rune(']')
	sa.waitFor("slider at 5", func() bool { return s.Value() == 5 })

	if want := []int{35, 40, 45, 40, 35, 30, 25, 100, 0, 5}; !slices.Equal(changes, want) {
		t.Errorf("changed callback got %v, want %v", changes, want)
	}
	if got, want := strings.TrimSpace(sa.text()), "loss  [#--------------------]    5%"; got != want {
		t.Errorf("drawn:\n%q\nwant\n%q", got, want)
	}
}

func TestSliderMouseDrag(t *testing.T) {
	var changes []int
	s := newLossSlider(&changes)
	sa := runApp(t, s, 35, 1)

	// Press on the bar's fifth cell, drag to its eleventh, then on past its
	// end, and let go.
	sa.screen.InjectMouse(lossBarX+4, 0, tcell.ButtonPrimary, tcell.ModNone)
	sa.waitFor("press to set 20", func() bool { return s.Value() == 20 })
	sa.screen.InjectMouse(lossBarX+10, 0, tcell.ButtonPrimary, tcell.ModNone)
	sa.waitFor("drag to set 50", func() bool { return s.Value() == 50 })
	checkGolden(t, "slider_drag_50", sa.text())
	sa.screen.InjectMouse(34, 0, tcell.ButtonPrimary, tcell.ModNone)
	sa.waitFor("drag past the end to set 100", func() bool { return s.Value() == 100 })
	sa.screen.InjectMouse(34, 0, tcell.ButtonNone, tcell.ModNone)

	// With the button up, moving over the bar changes nothing: the key that
	// follows steps down from 100, not from wherever the pointer went.
	sa.screen.InjectMouse(lossBarX+1, 0, tcell.ButtonNone, tcell.ModNone)
	sa.rune('[')
	sa.waitFor("key after the drag", func() bool { return s.Value() == 95 })

	if want := []int{20, 50, 100, 95}; !slices.Equal(changes, want) {
		t.Errorf("changed callback got %v, want %v", changes, want)
	}
	checkGolden(t, "slider_drag_95", sa.text())

	// A click off the bar (on the label) leaves the value alone; a click on
	// the bar's first cell sets min.
	sa.screen.InjectMouse(1, 0, tcell.ButtonPrimary, tcell.ModNone)
	sa.screen.InjectMouse(1, 0, tcell.ButtonNone, tcell.ModNone)
	sa.screen.InjectMouse(lossBarX, 0, tcell.ButtonPrimary, tcell.ModNone)
	sa.screen.InjectMouse(lossBarX, 0, tcell.ButtonNone, tcell.ModNone)
	sa.waitFor("click at the bar's start", func() bool { return s.Value() == 0 })
	if want := []int{20, 50, 100, 95, 0}; !slices.Equal(changes, want) {
		t.Errorf("changed callback got %v, want %v", changes, want)
	}
}

// TestSliderBigSteps: { } and Shift with an arrow move by the big step, rounded to whole
// steps and clamped at the ends; without one a big step is a step.
func TestSliderBigSteps(t *testing.T) {
	s := NewSlider("latency", 0, 1000, 5).SetBigStep(50)
	s.SetValue(75)
	sa := runApp(t, s, 40, 1)
	for _, st := range []struct {
		key  tcell.Key
		r    rune
		mod  tcell.ModMask
		want int
	}{
		{tcell.KeyRune, '}', 0, 125},
		{tcell.KeyRight, 0, tcell.ModShift, 175},
		{tcell.KeyRune, '{', 0, 125},
		{tcell.KeyLeft, 0, tcell.ModShift, 75},
		{tcell.KeyRune, '{', 0, 25},
		{tcell.KeyRune, '{', 0, 0},
		{tcell.KeyEnd, 0, 0, 1000},
		{tcell.KeyRune, '}', 0, 1000},
		{tcell.KeyRune, '[', 0, 995},
	} {
		sa.screen.InjectKey(st.key, st.r, st.mod)
		sa.waitFor("the slider's value", func() bool { return s.Value() == st.want })
	}
	if NewSlider("x", 0, 100, 3).SetBigStep(10).big() != 9 || NewSlider("x", 0, 100, 3).big() != 3 {
		t.Error("a big step is not a whole number of steps")
	}
}
