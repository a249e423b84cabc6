package ui

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// KeyHelp is one row of the help: the keys, and what they do.
type KeyHelp struct {
	Keys, What string
}

// ClientKeys are the client screen's keys, as the help lists them.
var ClientKeys = []KeyHelp{
	{"arrows h j k l", "move the cursor"},
	{"H J K L", "move the cursor 8 cells"},
	{"space", "select the unit under the cursor"},
	{"+", "add/remove the unit under the cursor"},
	{"v", "start/finish a box selection at the cursor"},
	{"g 1-9", "store the selection as group 1-9"},
	{"1-9", "recall group"},
	{"m", "move the selection to the cursor"},
	{"a", "attack the nearest enemy within 2 cells"},
	{"s", "stop the selection"},
	{"Esc", "clear the selection (or close a panel)"},
	{"mouse left", "select (drag: box)"},
	{"mouse right", "move (on an enemy: attack)"},
	{"Enter", "chat (Enter sends, Esc cancels)"},
	{"Tab", "focus: map / sliders / debug panel"},
	{"[ ] - + ← →", "change the focused slider"},
	{"{ } Shift+← →", "(sliders) big steps: 10%, 50 ms"},
	{"↑ ↓ Home End", "(sliders) pick one; lowest, highest"},
	{"F5-F9", "clean, 10% loss, 30% loss, 150ms RTT, Wi-Fi"},
	{"0-4", "(sliders) the link presets of F5-F9"},
	{"d F2", "debug panel on/off"},
	{"n F3", "next debug view"},
	{"f", "freeze the dependency graph (again: live)"},
	{". >", "step the frozen graph (> to the next wait)"},
	{"↑ ↓ Home End", "(debug panel) scroll the graph"},
	{"x", "export the dependency graph as Graphviz DOT"},
	{"i", "inject a desync (corrupt one of your units)"},
	{"F4 c", "the lessons (each runs a game of its own)"},
	{"? F1", "this help"},
	{"q Ctrl+C", "quit"},
}

// ServerKeys are the server screen's keys, as the help lists them.
var ServerKeys = []KeyHelp{
	{"Tab", "focus: players / map / sliders / debug panel / log"},
	{"↑ ↓", "(players) select the player the debug panel shows"},
	{"arrows h j k l", "(map) move the cursor"},
	{"[ ] - + ← →", "change the focused slider"},
	{"{ } Shift+← →", "(sliders) big steps: 10%, 50 ms"},
	{"↑ ↓ Home End", "(sliders) pick one; lowest, highest"},
	{"F5-F9", "clean, 10% loss, 30% loss, 150ms RTT, Wi-Fi"},
	{"0-4", "(sliders) the link presets of F5-F9"},
	{"c", "sliders: the server's own link / every client's"},
	{"d F2", "debug panel on/off"},
	{"n F3", "next debug view"},
	{"f", "freeze the dependency graph (again: live)"},
	{". >", "step the frozen graph (> to the next wait)"},
	{"↑ ↓ Home End", "(debug panel) scroll the graph"},
	{"x", "export the dependency graph as DOT"},
	{"PgUp PgDn Home End", "scroll the event log; End follows the newest"},
	{"R", "start a new round: fresh worlds, fresh squads"},
	{"s", "spectators' chat off / on"},
	{"t", "command lead time: auto, 100 ms, 300 ms, 1 s, 2 s"},
	{"w", "waves of kills right behind their spawns: on/off"},
	{"K", "kick the selected player or spectator (K/y: yes)"},
	{"? F1", "this help"},
	{"q Ctrl+C", "quit"},
}

// helpMore is the last row of a help that does not fit, in place of the rows
// below it.
const helpMore = "more… (↓ PgDn)"

// HelpOverlay is a bordered box, titled " keys ", centred over whatever is
// drawn below it, that lists keys and what they do in two columns:
//
//	┌──────────────────── keys ────────────────────┐
//	│ AckAttack client                             │
//	│                                              │
//	│ arrows h j k l  move the cursor              │
//	│ H J K L         move the cursor 8 cells      │
//	│ more… (↓ PgDn)                               │
//	└──────────────────────────────────────────────┘
//
// It is meant for the top page of a tview.Pages, added with resize set: it
// is given the whole screen but draws only its box, so the game stays visible
// around it. When the box is taller than the screen, it shows the rows that
// fit and "more…" as its last row; Up, Down, PageUp, PageDown, Home, End and
// the mouse wheel scroll. A mouse event anywhere on the screen goes to the
// overlay, so a click meant to close it cannot give an order on the map
// below.
type HelpOverlay struct {
	*tview.Box

	lines    []KeyHelp // a row with empty Keys is drawn as a heading
	keyWidth int       // the keys column, in cells, including the gap after it
	area     overlayArea
	offset   int // the first row shown
	rows     int // how many rows were shown the last time it was drawn
}

// NewHelpOverlay returns an overlay listing keys under the heading title
// (leading and trailing spaces are dropped; "" for none).
func NewHelpOverlay(title string, keys []KeyHelp) *HelpOverlay {
	h := &HelpOverlay{Box: tview.NewBox()}
	h.SetBorder(true).SetTitle(" keys ").SetBorderPadding(0, 0, 1, 1)
	if title = strings.TrimSpace(title); title != "" {
		h.lines = append(h.lines, KeyHelp{What: title}, KeyHelp{})
	}
	for _, k := range keys {
		h.keyWidth = max(h.keyWidth, utf8.RuneCountInString(k.Keys)+2)
	}
	h.lines = append(h.lines, keys...)
	h.area.x, h.area.y, h.area.width, h.area.height = h.Box.GetRect()
	h.layout()
	return h
}

// SetIntro puts lines (what the screen is for, say) under the heading, above the keys.
func (h *HelpOverlay) SetIntro(lines ...string) *HelpOverlay {
	at := 0
	if len(h.lines) > 0 && h.lines[0].Keys == "" {
		at = 2 // below the heading and its blank row
	}
	intro := make([]KeyHelp, 0, len(lines)+1)
	for _, l := range lines {
		intro = append(intro, KeyHelp{What: l})
	}
	h.lines = slices.Insert(h.lines, at, append(intro, KeyHelp{})...)
	h.layout()
	return h
}

// lineWidth is how many cells a row takes.
func (h *HelpOverlay) lineWidth(k KeyHelp) int {
	if k.Keys == "" {
		return utf8.RuneCountInString(k.What)
	}
	return h.keyWidth + utf8.RuneCountInString(k.What)
}

// SetRect sets the area the overlay is centred in. The box itself takes only
// as much of it as the rows need.
func (h *HelpOverlay) SetRect(x, y, width, height int) {
	h.area.x, h.area.y, h.area.width, h.area.height = x, y, width, height
	h.layout()
}

// layout places the box in the middle of the area: as wide as the widest row
// and as tall as all rows (plus border and padding), or the whole area when
// that is smaller.
func (h *HelpOverlay) layout() {
	inner := 0
	for _, l := range h.lines {
		inner = max(inner, h.lineWidth(l))
	}
	h.area.centre(h.Box, inner+4, len(h.lines)+2)
}

// scroll moves the first row shown by delta rows, within the rows there are.
func (h *HelpOverlay) scroll(delta int) {
	h.offset = min(max(h.offset+delta, 0), max(len(h.lines)-h.rows, 0))
}

// Draw draws the box and the rows that fit.
func (h *HelpOverlay) Draw(screen tcell.Screen) {
	h.DrawForSubclass(screen, h)
	x, y, width, height := h.GetInnerRect()
	if width <= 0 || height <= 0 {
		h.rows = 0
		return
	}
	h.rows = height
	h.scroll(0) // the area may have grown since the last scroll
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(h.GetBackgroundColor())
	keyStyle := base.Foreground(tview.Styles.SecondaryTextColor)
	shown := h.lines[h.offset:]
	more := len(shown) > height
	if more {
		shown = shown[:height-1]
	}
	for i, l := range shown {
		if l.Keys == "" {
			printRunes(screen, x, y+i, width, l.What, base.Bold(true))
			continue
		}
		printRunes(screen, x, y+i, width, l.Keys, keyStyle)
		if width > h.keyWidth {
			printRunes(screen, x+h.keyWidth, y+i, width-h.keyWidth, l.What, base)
		}
	}
	if more {
		printRunes(screen, x, y+height-1, width, helpMore, base.Foreground(ageColor))
	}
}

// InputHandler scrolls the rows.
func (h *HelpOverlay) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return h.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		page := max(h.rows-1, 1)
		switch event.Key() {
		case tcell.KeyUp:
			h.scroll(-1)
		case tcell.KeyDown:
			h.scroll(1)
		case tcell.KeyPgUp:
			h.scroll(-page)
		case tcell.KeyPgDn:
			h.scroll(page)
		case tcell.KeyHome:
			h.scroll(-len(h.lines))
		case tcell.KeyEnd:
			h.scroll(len(h.lines))
		}
	})
}

// MouseHandler takes every mouse event in the overlay's area: the wheel
// scrolls, the rest is swallowed.
func (h *HelpOverlay) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return h.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
		if !h.area.contains(event.Position()) {
			return false, nil
		}
		switch action {
		case tview.MouseScrollUp:
			h.scroll(-1)
		case tview.MouseScrollDown:
			h.scroll(1)
		}
		return true, nil
	})
}

// overlayArea is the rectangle an overlay is given, the whole screen but the status line,
// and draws its box in the middle of.
type overlayArea struct{ x, y, width, height int }

// centre places box in the middle of a: width×height cells, or the whole area when that is
// smaller.
func (a overlayArea) centre(box *tview.Box, width, height int) {
	width, height = min(width, a.width), min(height, a.height)
	box.SetRect(a.x+(a.width-width)/2, a.y+(a.height-height)/2, max(width, 0), max(height, 0))
}

// contains reports whether the cell (x, y) is in a.
func (a overlayArea) contains(x, y int) bool {
	return x >= a.x && y >= a.y && x < a.x+a.width && y < a.y+a.height
}
