package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// chrome is what the client and the server screen share around their own widgets: the help
// overlay over the main page, the debug panel and whether it is open, the ring of widgets Tab
// walks through, and the keys that work the same on both (quit, help, debug panel, Tab).
type chrome struct {
	pages *tview.Pages
	root  *layeredPages
	help  *HelpOverlay
	debug *DebugPanel

	focus    []tview.Primitive // the Tab ring; focus[0] is "home", where Esc returns
	setFocus func(p tview.Primitive)
	// widgets lists every widget that can hold the focus, for focused.
	widgets func() []tview.Primitive
	// refocus: the focused widget left the layout; the first of the ring takes the focus at
	// the next key or frame (layout may run inside tview's draw, where calling the
	// application would deadlock).
	refocus   bool
	helpOpen  bool
	debugOpen bool
	width     int
	height    int
	relayout  func()
	exports   string // directory for DOT files
	who       string // "client" or "server", in DOT file names
	now       time.Time
	tell      func(msg string)
	clock     func() time.Time // replaces the frame's time in tests, for screens that never change
	// preset applies link preset i (F5 to F9): to the link the screen's sliders drive.
	preset func(i int)
	// overlays are a screen's own pages over the main one, below the help (the client's
	// lesson menu); register them before the root is made.
	overlays []overlay
}

// overlay is a page drawn over the main one while shown says so.
type overlay struct {
	page  tview.Primitive
	shown func() bool
}

// frameTime is the time a frame is drawn for: now, or the test's frozen clock.
func (c *chrome) frameTime(now time.Time) time.Time {
	if c.clock != nil {
		return c.clock()
	}
	return now
}

func newChrome(main tview.Primitive, title string, keys []KeyHelp, setFocus func(p tview.Primitive)) chrome {
	c := chrome{help: NewHelpOverlay(title, keys), debug: NewDebugPanel(), setFocus: setFocus}
	c.pages = tview.NewPages().AddPage("main", main, true, true).AddPage("help", c.help, true, false)
	return c
}

// rootOf is the screen's root primitive: the pages, drawn without a fill.
func (c *chrome) rootOf() tview.Primitive {
	if c.root == nil {
		pages := []tview.Primitive{c.pages.GetPage("main")}
		for _, o := range c.overlays {
			pages = append(pages, o.page)
		}
		pages = append(pages, c.help)
		c.root = &layeredPages{Pages: c.pages, pages: pages, shown: func(i int) bool {
			switch {
			case i == 0:
				return true
			case i <= len(c.overlays):
				return c.overlays[i-1].shown()
			}
			return c.helpOpen
		}}
	}
	return c.root
}

// focused returns the widget with the focus, asking the widgets rather than the application
// (which may be inside its draw, holding its lock).
func (c *chrome) focused() tview.Primitive {
	for _, p := range c.widgets() {
		if p != nil && p.HasFocus() {
			return p
		}
	}
	return nil
}

// checkFocus notes whether the focus fell out of the ring (after a layout); keep lists the
// widgets outside the ring that may keep it.
func (c *chrome) checkFocus(keep ...tview.Primitive) {
	if f := c.focused(); f == nil || !slices.Contains(c.focus, f) && !slices.Contains(keep, f) && f != c.help {
		c.refocus = true
	}
}

// mendFocus applies a pending refocus; call it outside tview's draw.
func (c *chrome) mendFocus(keep ...tview.Primitive) {
	if !c.refocus {
		return
	}
	c.refocus = false
	if f := c.focused(); !c.helpOpen && (f == nil || !slices.Contains(c.focus, f) && !slices.Contains(keep, f)) {
		c.setFocus(c.focus[0])
	}
}

// cycleFocus moves the focus along the Tab ring.
func (c *chrome) cycleFocus(back bool) {
	i := slices.Index(c.focus, c.focused())
	switch {
	case i < 0:
		i = 0
	case back:
		i = (i + len(c.focus) - 1) % len(c.focus)
	default:
		i = (i + 1) % len(c.focus)
	}
	c.setFocus(c.focus[i])
}

func (c *chrome) showHelp(on bool) {
	c.helpOpen = on
	if on {
		c.pages.ShowPage("help")
		c.setFocus(c.help)
		return
	}
	c.pages.HidePage("help")
	c.setFocus(c.focus[0])
}

// toggleDebug opens or closes the debug panel, and the focus goes home: to the map, or to the
// panel where it took the map's place. Left where it was it could sit on a slider the user
// no longer sees as focused, and the arrow keys would change the link instead of the cursor.
func (c *chrome) toggleDebug() {
	c.debugOpen = !c.debugOpen
	c.relayout()
	c.setFocus(c.focus[0])
}

// resize records the terminal's size and lays the screen out again if it changed.
func (c *chrome) resize(width, height int) {
	if width == c.width && height == c.height {
		return
	}
	c.width, c.height = width, height
	c.relayout()
}

// sideWidth is the width of the right-hand column: a third of the screen, within bounds.
func (c *chrome) sideWidth() int {
	if c.width < sideMinWidth*2 {
		return c.width / 2
	}
	return min(max(c.width/3, sideMinWidth), sideMaxWidth)
}

// commonKey handles the keys both screens share. It returns the event to pass on (nil when it
// used the key) and whether it decided.
func (c *chrome) commonKey(ev *tcell.EventKey, quit func()) (*tcell.EventKey, bool) {
	if c.helpOpen {
		switch {
		case ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyF1 || ev.Rune() == '?' || ev.Rune() == 'q':
			c.showHelp(false)
			return nil, true
		case ev.Key() == tcell.KeyCtrlC:
			quit()
			return nil, true
		}
		return ev, true // the overlay's scrolling keys
	}
	switch ev.Key() {
	case tcell.KeyCtrlC:
		quit()
	case tcell.KeyF1:
		c.showHelp(true)
	case tcell.KeyF2:
		c.toggleDebug()
	case tcell.KeyF3:
		c.debug.NextView()
	case tcell.KeyF5, tcell.KeyF6, tcell.KeyF7, tcell.KeyF8, tcell.KeyF9:
		if c.preset != nil {
			c.preset(int(ev.Key() - tcell.KeyF5))
		}
	case tcell.KeyTab:
		c.cycleFocus(false)
	case tcell.KeyBacktab:
		c.cycleFocus(true)
	case tcell.KeyRune:
		switch ev.Rune() {
		case 'q':
			quit()
		case '?':
			c.showHelp(true)
		case 'd':
			c.toggleDebug()
		case 'n':
			c.debug.NextView()
		case 'f':
			c.tell(c.debug.ToggleFreeze())
		case '.':
			c.tell(c.debug.Step())
		case '>':
			c.tell(c.debug.StepToWait())
		case 'x':
			c.tell(writeDOT(c.exports, c.who, c.debug.DOT(), c.now))
		default:
			return ev, false
		}
	default:
		return ev, false
	}
	return nil, true
}

// writeDOT writes a graph to dir and returns what to tell the user.
func writeDOT(dir, who, dot string, now time.Time) string {
	if dir == "" {
		dir = "."
	}
	name := filepath.Join(dir, fmt.Sprintf("ackattack-%s-graph-%s.dot", who, now.Format("150405.000")))
	if err := os.WriteFile(name, []byte(dot), 0o644); err != nil {
		return "export failed: " + err.Error()
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	return "dependency graph written to " + name + " (dot -Tsvg)"
}

// hintSep separates the parts of a hint line: the line under the client's map, the line
// above the server's status line.
const hintSep = "  ·  "

// hintLine joins the parts of a hint line (most important first, "? help" last; they may hold
// tview's colour tags) into at most width cells (0: any width). A part that does not fit is
// left out whole, never cut mid-word: the last but one first, then the one before it, and
// "? help" only when the first part alone is too wide; that part is then cut at a word,
// ending "…".
func hintLine(width int, parts ...string) string {
	line := strings.Join(parts, hintSep)
	if width <= 0 {
		return line
	}
	keep := slices.Clone(parts)
	for len(keep) > 1 && tview.TaggedStringWidth(line) > width {
		if len(keep) > 2 {
			keep = slices.Delete(keep, len(keep)-2, len(keep)-1)
		} else {
			keep = keep[:1]
		}
		line = strings.Join(keep, hintSep)
	}
	if tview.TaggedStringWidth(line) > width {
		if rows := tview.WordWrap(line, max(width-1, 1)); len(rows) > 0 {
			line = strings.TrimRight(rows[0], " ") + "…"
		}
	}
	return line
}
