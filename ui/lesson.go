package ui

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game/lesson"
)

// LessonPanel is the panel of a lesson (game/lesson): the lesson's steps, the step up unfolded
// with its text, things to try and the events it waits for, and the counters the script
// shows. A step done is ticked, the one up marked, the ones to come listed:
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
// things to try. On a short panel the steps done and the steps to come shrink to a line each
// ("✓ steps 1-2 done", "· next: Only B waited"), and then the lines that matter least go
// first: the counters, the note, those two lines, the end of the step's text (its last line
// kept ends in "…"). The step up, what to try and the events it waits for always stay: they
// are what the student acts on.
type LessonPanel struct {
	*tview.Box
	p lesson.Progress
	// script is the lesson's every step as it begins, for Need; need caches Need's answer.
	script []lesson.Progress
	need   map[int]int
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

// SetScript gives the panel the lesson it shows, so that Need can say how tall its steps are.
func (l *LessonPanel) SetScript(sc *lesson.Script) {
	l.script, l.need = nil, nil
	for i := range sc.Steps {
		l.script = append(l.script, stepProgress(sc, i))
	}
}

// stepProgress is step i of sc as the panel shows it when the step begins: its text, what to
// try, its events at zero and the counters the script shows (a short value in place of theirs).
func stepProgress(sc *lesson.Script, i int) lesson.Progress {
	st := &sc.Steps[i]
	p := lesson.Progress{Number: sc.Number, Title: sc.Title, Current: i, Text: st.Text, Try: st.Try}
	for _, s := range sc.Steps {
		p.Steps = append(p.Steps, s.Title)
	}
	for _, g := range st.Until {
		p.Goals = append(p.Goals, lesson.GoalProgress{Label: lesson.Label(g.Key), Want: g.N, Unit: lesson.Unit(g.Key)})
	}
	for _, k := range slices.Concat(sc.Show, st.Show) {
		p.Show = append(p.Show, lesson.Reading{Label: lesson.Label(k), Value: lesson.ValueText(0, lesson.Unit(k))})
	}
	return p
}

// Need is how many rows the tallest step of the lesson takes at width, every line shown
// (0 before SetScript): the height a layout gives the panel when it has the room.
func (l *LessonPanel) Need(width int) int {
	if n, ok := l.need[width]; ok {
		return n
	}
	n := 0
	for _, p := range l.script {
		n = max(n, len(progressLines(p, width, false)))
	}
	if l.need == nil || len(l.need) >= maxNeedWidths {
		l.need = map[int]int{} // a terminal resized again and again: start over
	}
	l.need[width] = n
	return n
}

// maxNeedWidths bounds Need's cache: a layout asks for two widths a terminal size.
const maxNeedWidths = 8

// panelLine is one line of the panel, and how much it matters (the lowest go first when the
// panel is too short).
type panelLine struct {
	styledLine
	keep int
}

// How much a line matters, from the lines that go first on a short panel to those that stay.
const (
	keepCounters = iota // the counters the script shows
	keepNote            // what the meter last saw
	keepSteps           // the steps done and to come
	keepText            // the step's text, dropped from its end
	keepMost            // the step up, what to try, its events, the end of the lesson, a refusal
)

// lines lays the progress out at width; compact shrinks the steps done and to come to a line
// each.
func (l *LessonPanel) lines(width int, compact bool) []panelLine {
	return progressLines(l.p, width, compact)
}

func progressLines(p lesson.Progress, width int, compact bool) []panelLine {
	var out []panelLine
	add := func(text, indent string, style span, keep int) {
		for _, w := range wrapWords(text, max(width-utf8.RuneCountInString(indent), 1)) {
			style.text = indent + w
			out = append(out, panelLine{styledLine{style}, keep})
		}
	}
	base := span{}
	done, toCome := span{color: tcell.ColorGreen}, span{color: ageColor}
	if compact && p.Current > 0 {
		steps := "step 1"
		if last := min(p.Current, len(p.Steps)); last > 1 {
			steps = fmt.Sprintf("steps 1-%d", last)
		}
		add("✓ "+steps+" done", "", done, keepSteps)
	}
	for i, title := range p.Steps {
		switch {
		case i < p.Current && !compact:
			add("✓ "+title, "", done, keepSteps)
		case i > p.Current && !compact:
			add("· "+title, "", toCome, keepSteps)
		case i == p.Current:
			add(fmt.Sprintf("▶ %s (%d of %d)", title, i+1, len(p.Steps)), "", span{color: tcell.ColorYellow, bold: true}, keepMost)
			// A script breaks its text into lines as it likes: the panel joins them into one
			// paragraph and wraps it to its own width, and the things to try into another.
			if len(p.Text) > 0 {
				add(strings.Join(p.Text, " "), "  ", base, keepText)
			}
			if len(p.Try) > 0 {
				add("try: "+strings.Join(p.Try, " "), "  ", span{color: tcell.ColorAqua}, keepMost)
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
				add(p.Note, "    ", span{color: ageColor}, keepNote)
			}
		}
	}
	if next := p.Current + 1; compact && next < len(p.Steps) {
		more := ""
		if n := len(p.Steps) - next - 1; n > 0 {
			more = fmt.Sprintf(" (+%d more)", n)
		}
		add("· next: "+p.Steps[next]+more, "", toCome, keepSteps)
	}
	if p.Done {
		add(fmt.Sprintf("✓ lesson %d done. F4: the lessons", p.Number), "", span{color: tcell.ColorGreen, bold: true}, keepMost)
	}
	for _, r := range p.Show {
		add(r.Label+": "+r.Value, "  ", base, keepCounters)
	}
	if p.Err != "" {
		add("refused: "+p.Err, "  ", span{color: tcell.ColorRed}, keepMost)
	}
	return out
}

// fit drops lines, the ones that matter least and then the lowest of them first, until at
// most height are left. When the step's text lost its end, its last line left ends in "…".
func fit(lines []panelLine, height, width int) []panelLine {
	cut := false
	for keep := keepCounters; len(lines) > height && keep <= keepMost; keep++ {
		for i := len(lines) - 1; i >= 0 && len(lines) > height; i-- {
			if lines[i].keep == keep {
				lines = append(lines[:i], lines[i+1:]...)
				cut = cut || keep == keepText
			}
		}
	}
	if cut {
		for i := len(lines) - 1; i >= 0; i-- {
			if lines[i].keep == keepText {
				lines[i] = panelLine{ellipsis(lines[i].styledLine, width), keepText}
				break
			}
		}
	}
	return lines
}

// ellipsis ends a one-span line in "…", within width cells.
func ellipsis(l styledLine, width int) styledLine {
	s := l[0]
	r := []rune(s.text)
	if len(r)+2 > width {
		r = r[:max(width-1, 0)]
		s.text = string(r) + "…"
	} else {
		s.text += " …"
	}
	return styledLine{s}
}

// Draw draws the panel: every line when they fit, else the steps done and to come shrunk
// and the lines that matter least left out.
func (l *LessonPanel) Draw(screen tcell.Screen) {
	drawFrame(screen, l.Box, l)
	x, y, width, height := l.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	lines := l.lines(width, false)
	if len(lines) > height {
		lines = fit(l.lines(width, true), height, width)
	}
	for i, ln := range lines {
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
