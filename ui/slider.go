package ui

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Slider is a one-line control for a whole number in [min, max], drawn as
//
//	loss  [#######-------]  30%
//
// The network lab has four of them (loss, latency, jitter, duplication), so a
// student can make the link worse while the game runs and watch the protocol
// cope. tview has no slider; this one is a plain primitive built on a Box.
//
// When focused, '[', '-' and Left step the value down; ']', '+' and Right step
// it up; '{' and Shift+Left take a big step down, '}' and Shift+Right a big step
// up (see SetBigStep); Home and End jump to the ends. A left click on the bar sets the value
// in proportion to where it landed, and dragging with the button held keeps
// setting it. Every value is clamped to [min, max] and snapped to a whole
// number of steps above min (max itself is always allowed, even when the range
// is not a multiple of the step).
type Slider struct {
	valueWidth int // see SetValueWidth
	*tview.Box

	label      string
	labelWidth int // cells for the label; 0 means the label's length plus two
	unit       string
	min, max   int
	step       int
	bigStep    int // a big step: a whole number of steps (SetBigStep); 0 for none
	value      int
	changed    func(value int)

	dragging bool // the left button went down on the bar and is still held

	// Where the bar was last drawn, for the mouse: screen column of its first
	// cell, its row, and its width in cells (without the brackets).
	barX, barY, barWidth int
}

// NewSlider returns a slider over [min, max] that moves in steps of step
// (values below 1 are taken as 1). It starts at min. If max < min, the two are
// swapped.
func NewSlider(label string, lo, hi, step int) *Slider {
	if hi < lo {
		lo, hi = hi, lo
	}
	if step < 1 {
		step = 1
	}
	return &Slider{
		Box:   tview.NewBox(),
		label: label,
		min:   lo,
		max:   hi,
		step:  step,
		value: lo,
	}
}

// SetBigStep sets the size of a big step ('{' '}' and Shift with an arrow): the
// change a class talks about (10% of loss, 50 ms of latency), where the small
// steps are for fine tuning. It is rounded to a whole number of steps, at least
// one; 0 (the default) makes a big step a small one.
func (s *Slider) SetBigStep(big int) *Slider {
	s.bigStep = 0
	if big > 0 {
		s.bigStep = max((big+s.step/2)/s.step, 1) * s.step
	}
	return s
}

// Label returns the slider's label.
func (s *Slider) Label() string { return s.label }

// SetLabelWidth sets how many cells the label takes, so that a column of
// sliders lines its bars up. 0 (the default) fits the label plus two spaces.
func (s *Slider) SetLabelWidth(width int) *Slider {
	s.labelWidth = max(width, 0)
	return s
}

// SetUnit sets the text drawn right after the number, such as "%" or "ms".
func (s *Slider) SetUnit(unit string) *Slider {
	s.unit = unit
	return s
}

// Unit returns the unit text.
func (s *Slider) Unit() string { return s.unit }

// Range returns the slider's bounds and step.
func (s *Slider) Range() (lo, hi, step int) { return s.min, s.max, s.step }

// Value returns the current value.
func (s *Slider) Value() int { return s.value }

// SetValue sets the value, clamped and snapped. The changed callback runs if
// the value actually changed.
func (s *Slider) SetValue(v int) *Slider {
	v = s.snap(v)
	if v == s.value {
		return s
	}
	s.value = v
	if s.changed != nil {
		s.changed(v)
	}
	return s
}

// SetChangedFunc sets the function called with the new value whenever it
// changes, by key, by mouse or by SetValue. It runs on the goroutine that
// changed the value (the application's event loop for user input), so it
// should only hand the value on, never block.
func (s *Slider) SetChangedFunc(changed func(value int)) *Slider {
	s.changed = changed
	return s
}

// snap clamps v to [min, max] and rounds it to the nearest step above min.
func (s *Slider) snap(v int) int {
	if v <= s.min {
		return s.min
	}
	if v >= s.max {
		return s.max
	}
	k := (v - s.min + s.step/2) / s.step
	return min(s.min+k*s.step, s.max)
}

// stepDown and stepUp move one step; from max (which may sit off the step
// grid) a step down lands on the grid point below.
func (s *Slider) stepDown() { s.stepsDown(s.step) }

func (s *Slider) stepUp() { s.SetValue(s.value + s.step) }

// stepsDown moves down by by (a step or a big step), from max as from the grid
// point below it.
func (s *Slider) stepsDown(by int) {
	if s.value == s.max && (s.max-s.min)%s.step != 0 {
		s.SetValue(s.min + (s.max-s.min)/s.step*s.step - (by - s.step))
		return
	}
	s.SetValue(s.value - by)
}

// big is the size of a big step.
func (s *Slider) big() int { return max(s.bigStep, s.step) }

// valueText is the number and unit, padded on the left to the width of the
// widest value so that the bar does not jump as the number grows.
func (s *Slider) valueText() string {
	width := max(len(strconv.Itoa(s.min)), len(strconv.Itoa(s.max)))
	num := strconv.Itoa(s.value)
	text := strings.Repeat(" ", width-len(num)) + num + s.unit
	return strings.Repeat(" ", max(s.valueWidth-len(text), 0)) + text
}

// SetValueWidth pads the number and unit on the left to at least width cells, so that a column
// of sliders with different units ("60%", "1000ms") ends every bar and every number in the
// same column.
func (s *Slider) SetValueWidth(width int) *Slider {
	s.valueWidth = width
	return s
}

// Draw draws the slider on the first line of its inner rectangle.
func (s *Slider) Draw(screen tcell.Screen) {
	drawFrame(screen, s.Box, s)
	x, y, width, height := s.GetInnerRect()
	s.barWidth = 0
	if width <= 0 || height <= 0 {
		return
	}

	labelStyle := tcell.StyleDefault.Foreground(tview.Styles.SecondaryTextColor).Background(s.GetBackgroundColor())
	if s.HasFocus() {
		labelStyle = labelStyle.Reverse(true)
	}
	labelWidth := s.labelWidth
	if labelWidth == 0 {
		labelWidth = len(s.label) + 2
	}
	label := s.label
	if len(label) > labelWidth {
		label = label[:labelWidth]
	}
	labelWidth = min(labelWidth, width)
	printText(screen, x, y, labelWidth, label, labelStyle)

	text := "  " + s.valueText()
	barWidth := width - labelWidth - 2 - len(text)
	if barWidth < 1 {
		// Too narrow for a bar: show just the number.
		printText(screen, x+labelWidth, y, width-labelWidth, s.valueText(), tcell.StyleDefault)
		return
	}

	barStyle := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(s.GetBackgroundColor())
	fillStyle := barStyle.Foreground(tview.Styles.TertiaryTextColor)
	bx := x + labelWidth
	screen.SetContent(bx, y, '[', nil, barStyle)
	filled := 0
	if s.max > s.min {
		filled = ((s.value-s.min)*barWidth + (s.max-s.min)/2) / (s.max - s.min)
	}
	for i := range barWidth {
		if i < filled {
			screen.SetContent(bx+1+i, y, '#', nil, fillStyle)
		} else {
			screen.SetContent(bx+1+i, y, '-', nil, barStyle)
		}
	}
	screen.SetContent(bx+1+barWidth, y, ']', nil, barStyle)
	printText(screen, bx+2+barWidth, y, len(text), text, barStyle)

	s.barX, s.barY, s.barWidth = bx+1, y, barWidth
}

// printText writes plain ASCII text, cut at width cells.
func printText(screen tcell.Screen, x, y, width int, text string, style tcell.Style) {
	for i := 0; i < len(text) && i < width; i++ {
		screen.SetContent(x+i, y, rune(text[i]), nil, style)
	}
}

// valueAt is the value for a mouse at screen column col: the bar's first cell
// is min, its last max, and columns beyond either end clamp.
func (s *Slider) valueAt(col int) int {
	if s.barWidth <= 1 {
		if col < s.barX {
			return s.min
		}
		return s.max
	}
	i := min(max(col-s.barX, 0), s.barWidth-1)
	span := s.max - s.min
	return s.min + (i*span+(s.barWidth-1)/2)/(s.barWidth-1)
}

// onBar reports whether a mouse position is on the bar or its brackets.
func (s *Slider) onBar(x, y int) bool {
	return s.barWidth > 0 && y == s.barY && x >= s.barX-1 && x <= s.barX+s.barWidth
}

// InputHandler handles the keys that step the value.
func (s *Slider) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return s.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		shift := event.Modifiers()&tcell.ModShift != 0
		switch event.Key() {
		case tcell.KeyLeft:
			if shift {
				s.stepsDown(s.big())
			} else {
				s.stepDown()
			}
		case tcell.KeyRight:
			if shift {
				s.SetValue(s.value + s.big())
			} else {
				s.stepUp()
			}
		case tcell.KeyHome:
			s.SetValue(s.min)
		case tcell.KeyEnd:
			s.SetValue(s.max)
		case tcell.KeyRune:
			switch event.Rune() {
			case '[', '-':
				s.stepDown()
			case ']', '+':
				s.stepUp()
			case '{':
				s.stepsDown(s.big())
			case '}':
				s.SetValue(s.value + s.big())
			}
		}
	})
}

// MouseHandler sets the value from a click or drag on the bar. While the left
// button is held after going down on the bar, the slider captures the mouse,
// so a drag that wanders off the bar keeps moving the value (clamped at the
// ends) instead of being sent to whatever lies under the pointer.
func (s *Slider) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return s.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
		x, y := event.Position()
		switch action {
		case tview.MouseLeftDown:
			if !s.InRect(x, y) {
				return false, nil
			}
			setFocus(s)
			if s.onBar(x, y) {
				s.dragging = true
				s.SetValue(s.valueAt(x))
				return true, s
			}
			return true, nil
		case tview.MouseMove:
			if s.dragging && event.Buttons()&tcell.ButtonPrimary != 0 {
				s.SetValue(s.valueAt(x))
				return true, s
			}
			s.dragging = false
		case tview.MouseLeftUp:
			if s.dragging {
				s.dragging = false
				return true, nil
			}
		}
		return false, nil
	})
}
