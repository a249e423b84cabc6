package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game/lesson"
)

// LessonPanel is the side panel of a lesson (game/lesson): the lesson's steps, the step up
// unfolded with its text, things to try and the events it waits for, and the counters the
// script shows. A step done is ticked, the one up marked, the ones to come listed:
//
//	┌─ lesson 2: Out of order ────────┐
//	│✓ A, then B                      │
//	│▶ B overtakes A (2 of 3)         │
//	│  The link loses 30% of the      │
//	│  packets. Now and then ...      │
//	│  try: f freezes the graph       │
//	│  ◻ messages that waited (Kill…) │
//	│    0 of 1                       │
//	│· Only B waited                  │
//	│messages received: 57            │
//	└─────────────────────────────────┘
//
// The step's text lines are one paragraph, wrapped to the panel's width, and so are its
// things to try. On a short panel the lines that matter least go first: the steps to come,
// the steps done, the counters, the hints; the step up's text and its events stay.
type LessonPanel struct {
	*tview.Box
	p lesson.Progress
}

// NewLessonPanel returns an empty panel.
func NewLessonPanel() *LessonPanel {
	p := &LessonPanel{Box: tview.NewBox()}
	p.SetBorder(true).SetTitle(" lesson ")
	return p
}

// SetProgress shows p.
func (l *LessonPanel) SetProgress(p lesson.Progress) {
	l.p = p
	l.SetTitle(fmt.Sprintf(" lesson %d: %s ", p.Number, p.Title))
}

// panelLine is one line of the panel, and how much it matters (the lowest go first when the
// panel is too short).
type panelLine struct {
	styledLine
	keep int
}

const (
	keepLeast = iota // steps to come, steps done
	keepSome         // hints, notes, counters
	keepMost         // the step up, its text and its events
)

// lines lays the progress out at width.
func (l *LessonPanel) lines(width int) []panelLine {
	p := l.p
	var out []panelLine
	add := func(text, indent string, style span, keep int) {
		for _, w := range wrapWords(text, max(width-utf8.RuneCountInString(indent), 1)) {
			style.text = indent + w
			out = append(out, panelLine{styledLine{style}, keep})
		}
	}
	base := span{}
	for i, title := range p.Steps {
		switch {
		case i < p.Current:
			add("✓ "+title, "", span{color: tcell.ColorGreen}, keepLeast)
		case i > p.Current:
			add("· "+title, "", span{color: ageColor}, keepLeast)
		default:
			add(fmt.Sprintf("▶ %s (%d of %d)", title, i+1, len(p.Steps)), "", span{color: tcell.ColorYellow, bold: true}, keepMost)
			// A script breaks its text into lines as it likes: the panel joins them into one
			// paragraph and wraps it to its own width, and the things to try into another.
			if len(p.Text) > 0 {
				add(strings.Join(p.Text, " "), "  ", base, keepMost)
			}
			if len(p.Try) > 0 {
				add("try: "+strings.Join(p.Try, " "), "  ", span{color: tcell.ColorAqua}, keepSome)
			}
			for _, g := range p.Goals {
				mark, style := "◻ ", span{color: tcell.ColorYellow}
				if g.Met {
					mark, style = "☑ ", span{color: tcell.ColorGreen}
				}
				// Past the goal the count says no more than "done": the counters shown say how far.
				have := min(g.Have, g.Want)
				add(fmt.Sprintf("%s%s: %s of %s", mark, g.Label, lesson.ValueText(have, g.Unit), lesson.ValueText(g.Want, g.Unit)), "    ", style, keepMost)
			}
			if p.Note != "" {
				add(p.Note, "    ", span{color: ageColor}, keepSome)
			}
		}
	}
	if p.Done {
		add(fmt.Sprintf("✓ lesson %d done. F4: the lessons", p.Number), "", span{color: tcell.ColorGreen, bold: true}, keepMost)
	}
	for _, r := range p.Show {
		add(r.Label+": "+r.Value, "  ", base, keepSome)
	}
	if p.Err != "" {
		add("refused: "+p.Err, "  ", span{color: tcell.ColorRed}, keepMost)
	}
	return out
}

// fit drops lines, the ones that matter least and then the lowest of them first, until at
// most height are left.
func fit(lines []panelLine, height int) []panelLine {
	for keep := keepLeast; len(lines) > height && keep <= keepMost; keep++ {
		for i := len(lines) - 1; i >= 0 && len(lines) > height; i-- {
			if lines[i].keep == keep {
				lines = append(lines[:i], lines[i+1:]...)
			}
		}
	}
	return lines
}

// Draw draws the panel.
func (l *LessonPanel) Draw(screen tcell.Screen) {
	drawFrame(screen, l.Box, l)
	x, y, width, height := l.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	for i, ln := range fit(l.lines(width), height) {
		ln.draw(screen, x, y+i, width, l.GetBackgroundColor())
	}
}

// wrapWords breaks text into lines of at most width characters, at spaces; a word longer
// than a line is cut.
func wrapWords(text string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		for utf8.RuneCountInString(w) > width {
			if line != "" {
				out, line = append(out, line), ""
			}
			r := []rune(w)
			out, w = append(out, string(r[:width])), string(r[width:])
		}
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			out, line = append(out, line), w
		}
	}
	if line != "" || len(out) == 0 {
		out = append(out, line)
	}
	return out
}

// LessonMenu is the list of lessons, drawn centred over the game (F4): a row per lesson, the
// picked one highlighted with what it is about below the list, and how to start it. A lesson
// runs its own embedded game, so starting one ends the game on screen; elsewhere says where
// the player plays now ("" when the game on screen is already an embedded one).
type LessonMenu struct {
	*tview.Box
	scripts   []*lesson.Script
	picked    int
	running   *lesson.Script // the lesson on screen, nil for none
	elsewhere string         // the server the player plays on, if not an embedded game
	area      overlayArea
}

// NewLessonMenu returns a menu of scripts.
func NewLessonMenu(scripts []*lesson.Script) *LessonMenu {
	m := &LessonMenu{Box: tview.NewBox(), scripts: scripts}
	m.SetBorder(true).SetTitle(" lessons ").SetBorderPadding(0, 0, 1, 1)
	return m
}

// Picked is the lesson highlighted, nil for an empty menu.
func (m *LessonMenu) Picked() *lesson.Script {
	if len(m.scripts) == 0 {
		return nil
	}
	return m.scripts[m.picked]
}

// Move moves the highlight by delta rows, within the list.
func (m *LessonMenu) Move(delta int) {
	m.picked = min(max(m.picked+delta, 0), max(len(m.scripts)-1, 0))
}

// Number returns the lesson numbered n, if the menu has it (the first, if a teacher's file
// has the number of a built-in lesson).
func (m *LessonMenu) Number(n int) (*lesson.Script, bool) {
	for _, s := range m.scripts {
		if s.Number == n {
			return s, true
		}
	}
	return nil, false
}

// rows is what the menu shows.
func (m *LessonMenu) rows() []string {
	rows := []string{"↑ ↓ pick, Enter or the number starts, Esc closes", ""}
	for _, s := range m.scripts {
		mark := "  "
		if s == m.running {
			mark = "▶ "
		}
		rows = append(rows, fmt.Sprintf("%s%2d  %s", mark, s.Number, s.Title))
	}
	rows = append(rows, "")
	if s := m.Picked(); s != nil {
		rows = append(rows, s.About...)
		rows = append(rows, "")
	}
	if m.elsewhere != "" {
		rows = append(rows, "You play on "+m.elsewhere+". A lesson runs its own game",
			"here, with bots: starting one leaves this game.")
	} else {
		rows = append(rows, "A lesson starts a new game here, with bots.")
	}
	return rows
}

// SetRect sets the area the menu is centred in.
func (m *LessonMenu) SetRect(x, y, width, height int) {
	m.area = overlayArea{x, y, width, height}
	inner := 0
	rows := m.rows()
	for _, r := range rows {
		inner = max(inner, utf8.RuneCountInString(r))
	}
	m.area.centre(m.Box, inner+4, len(rows)+2)
}

// Draw draws the box over what lies below it.
func (m *LessonMenu) Draw(screen tcell.Screen) {
	m.SetRect(m.area.x, m.area.y, m.area.width, m.area.height) // the rows may have changed
	m.DrawForSubclass(screen, m)
	x, y, width, height := m.GetInnerRect()
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(m.GetBackgroundColor())
	for i, r := range m.rows() {
		if i >= height {
			break
		}
		style := base
		switch {
		case i == 0:
			style = base.Foreground(ageColor)
		case i == m.picked+2:
			style = base.Reverse(true)
		}
		printRunes(screen, x, y+i, width, r, style)
	}
}

// MouseHandler takes every mouse event in the menu's area (so that a click cannot give an
// order on the map below); a click on a row picks it.
func (m *LessonMenu) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return m.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
		_, y := event.Position()
		if !m.area.contains(event.Position()) {
			return false, nil
		}
		_, iy, _, _ := m.GetInnerRect()
		if row := y - iy - 2; action == tview.MouseLeftClick && row >= 0 && row < len(m.scripts) {
			m.picked = row
		}
		return true, nil
	})
}
