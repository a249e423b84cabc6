package ui

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// maxLogLines bounds the server screen's event log. A game of two bots and six players logs
// about 41 lines a minute, most of them an enemy's spawn and kill every 3 s (measured in
// virtual time, 5 minutes at 0, 10 and 30% loss; lines of about 60 bytes): the snapshot's 200
// are 5 minutes, a 45-minute class about 1850 lines. The log keeps the newest 2000 (some
// 150 kB) and says how many older ones it let go; the server's log file has every one.
const maxLogLines = 2000

// eventRing is the newest event lines, oldest first, at most limit, and a count of the older
// ones it let go.
type eventRing struct {
	limit int
	lines []string // a ring: the oldest at start once it is full
	start int
	seen  uint64 // the snapshots' count of lines (ServerSnapshot.EventsTotal) taken so far
	letGo uint64 // older lines pushed out
}

// take adds the lines of a snapshot that it has not seen: the last total−seen of lines, the
// snapshot's latest of total lines ever logged (where those are more than lines, a line that
// says how many it missed first). It returns how many lines it added.
func (r *eventRing) take(lines []string, total uint64) int {
	if total < r.seen {
		r.seen = 0 // another server's count: all of its lines are new
	}
	fresh := total - r.seen
	r.seen = total
	if fresh == 0 {
		return 0
	}
	n := int(fresh)
	if fresh > uint64(len(lines)) {
		// More lines came between two frames than a snapshot carries: the gap says so.
		n = len(lines) + 1
		r.push(fmt.Sprintf("… %d lines came and went between two frames (the server's log has every one)", fresh-uint64(len(lines))))
		fresh = uint64(len(lines))
	}
	for _, l := range lines[len(lines)-int(fresh):] {
		r.push(l)
	}
	return n
}

func (r *eventRing) push(line string) {
	if len(r.lines) < r.limit {
		r.lines = append(r.lines, line)
		return
	}
	r.lines[r.start] = line
	r.start = (r.start + 1) % len(r.lines)
	r.letGo++
}

// len is how many lines the ring holds.
func (r *eventRing) len() int { return len(r.lines) }

// at is the i-th line, oldest first.
func (r *eventRing) at(i int) string { return r.lines[(r.start+i)%len(r.lines)] }

// eventLogView is the server's event log: the newest lines at the bottom, wrapped at words,
// following the newest unless the teacher scrolled back. Scrolled back, it stays still while
// lines come in below (its title counts them) until End, or PgDn to the bottom, follows again.
// PgUp, PgDn, Home and End reach it from anywhere on the screen (ServerScreen.HandleKey); with
// the focus it also scrolls a row with ↑ ↓, and with the mouse wheel.
type eventLogView struct {
	*tview.Box
	ring eventRing
	// back is how many rows the view is scrolled back from the newest (0: it follows); newer
	// counts the lines that came in below while it was.
	back, newer int
	width, rows int // the inner size at the last draw
}

func newEventLogView() *eventLogView {
	v := &eventLogView{Box: tview.NewBox(), ring: eventRing{limit: maxLogLines}}
	v.SetBorder(true)
	return v
}

// take adds the snapshot's lines the view has not seen (eventRing.take); scrolled back, the
// view moves back by the rows they take, so that what the teacher reads stays where it is.
func (v *eventLogView) take(lines []string, total uint64) {
	n := v.ring.take(lines, total)
	if n == 0 || v.back == 0 {
		return
	}
	v.newer += n
	for i := v.ring.len() - n; i < v.ring.len(); i++ {
		v.back += len(v.wrap(v.ring.at(i), v.width))
	}
}

// following: the view shows the newest lines.
func (v *eventLogView) following() bool { return v.back == 0 }

// scroll moves the view delta rows back (negative: forward, towards the newest). Draw keeps it
// within the rows there are.
func (v *eventLogView) scroll(delta int) {
	v.back = max(v.back+delta, 0)
	if v.back == 0 {
		v.newer = 0
	}
}

// page is a page of rows: the view's height, less a row kept for context.
func (v *eventLogView) page() int { return max(v.rows-1, 1) }

// scrollKey scrolls for the paging keys; it reports whether key was one.
func (v *eventLogView) scrollKey(key tcell.Key) bool {
	switch key {
	case tcell.KeyPgUp:
		v.scroll(v.page())
	case tcell.KeyPgDn:
		v.scroll(-v.page())
	case tcell.KeyHome:
		v.scroll(maxLogLines * 1000) // beyond any log: Draw stops at its first row
	case tcell.KeyEnd:
		v.scroll(-v.back)
	default:
		return false
	}
	return true
}

// wrap cuts a line into the rows it takes at width cells, at words where it can.
func (v *eventLogView) wrap(line string, width int) []string {
	if width <= 0 {
		return []string{line}
	}
	return tview.WordWrap(tview.Escape(line), width)
}

// letGoText is the first row of a log that let lines go.
func (v *eventLogView) letGoText() string {
	return fmt.Sprintf("… %d older lines let go (the server's log has every one)", v.ring.letGo)
}

// Draw draws the rows that end back rows before the newest.
func (v *eventLogView) Draw(screen tcell.Screen) {
	x, y, width, height := v.GetInnerRect()
	v.width, v.rows = width, height
	// The rows from the newest back, as many as the view shows and the rows scrolled back.
	var rows []string
	need := v.back + max(height, 0)
	for i := v.ring.len() - 1; i >= -1 && len(rows) < need; i-- {
		var line string
		switch {
		case i >= 0:
			line = v.ring.at(i)
		case v.ring.letGo > 0:
			line = v.letGoText()
		default:
			continue
		}
		wrapped := v.wrap(line, width)
		for j := len(wrapped) - 1; j >= 0; j-- {
			rows = append(rows, wrapped[j])
		}
	}
	if len(rows) < need { // the first row is in view: no further back
		v.back = max(len(rows)-height, 0)
		if v.back == 0 {
			v.newer = 0
		}
	}
	switch {
	case v.back == 0:
		v.SetTitle(" events ")
	case v.newer > 0:
		v.SetTitle(fmt.Sprintf(" events: %d newer below (End) ", v.newer))
	default:
		v.SetTitle(" events: scrolled back (End) ")
	}
	v.DrawForSubclass(screen, v)
	if width <= 0 || height <= 0 {
		return
	}
	shown := rows[min(v.back, len(rows)):min(v.back+height, len(rows))]
	// rows runs from the newest up: the first of shown is the bottom row.
	bottom := y + height - 1
	if v.back == 0 && len(shown) < height {
		bottom = y + len(shown) - 1 // a short log starts at the top
	}
	for i, r := range shown {
		tview.Print(screen, r, x, bottom-i, width, tview.AlignLeft, tview.Styles.PrimaryTextColor)
	}
}

// InputHandler scrolls: ↑ ↓ (and k j) a row, and the paging keys.
func (v *eventLogView) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return v.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		switch {
		case v.scrollKey(event.Key()):
		case event.Key() == tcell.KeyUp || event.Key() == tcell.KeyRune && event.Rune() == 'k':
			v.scroll(1)
		case event.Key() == tcell.KeyDown || event.Key() == tcell.KeyRune && event.Rune() == 'j':
			v.scroll(-1)
		}
	})
}

// MouseHandler scrolls with the wheel and takes the focus on a click.
func (v *eventLogView) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return v.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
		if !v.InRect(event.Position()) {
			return false, nil
		}
		switch action {
		case tview.MouseScrollUp:
			v.scroll(3)
		case tview.MouseScrollDown:
			v.scroll(-3)
		case tview.MouseLeftDown:
			setFocus(v)
		default:
			return false, nil
		}
		return true, nil
	})
}
