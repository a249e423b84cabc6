package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/world"
)

// span is a run of text in one style, and styledLine a row made of spans. The
// sync views build their rows this way so that a word keeps its colour (the
// action taken on a mismatch, a pause that is still running) wherever the row
// is wrapped or cut.
type span struct {
	text  string
	color tcell.Color // tcell.ColorDefault means the primary text colour
	bold  bool
}

type styledLine []span

// String is the row's text without styles.
func (l styledLine) String() string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.text)
	}
	return b.String()
}

// draw writes the row at (x, y), cut at width cells, on the background bg.
func (l styledLine) draw(screen tcell.Screen, x, y, width int, bg tcell.Color) {
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(bg)
	col := 0
	for _, s := range l {
		style := base
		if s.color != tcell.ColorDefault {
			style = style.Foreground(s.color)
		}
		if s.bold {
			style = style.Bold(true)
		}
		col += printRunes(screen, x+col, y, width-col, s.text, style)
	}
}

// plain is a row of one span in the primary text colour.
func plain(text string) styledLine { return styledLine{{text: text}} }

// fitLines keeps the lines that fit in height rows. When some are left out,
// the last row says how many ("... 3 more lines"), so a student knows the
// list goes on. (GraphView, which scrolls, says it in its title instead:
// "(12 of 30)".)
func fitLines(lines []styledLine, height int) []styledLine {
	if height <= 0 {
		return nil
	}
	if len(lines) <= height {
		return lines
	}
	more := len(lines) - height + 1
	return append(lines[:height-1:height-1], plain(fmt.Sprintf("... %d more lines", more)))
}

// wrapFields lays fields out on rows of at most width cells, two spaces
// between fields, starting a new row (indented by indent) when the next field
// would not fit. A field longer than a row gets a row of its own and is cut
// when drawn. Wrapping between fields rather than cutting the row keeps the
// end of a long header, the action taken, on the screen of a narrow panel.
func wrapFields(fields []span, width int, indent string) []styledLine {
	return wrapFieldsBy(fields, width, indent, "  ")
}

// wrapFieldsBy is wrapFields with sep between the fields of a row.
func wrapFieldsBy(fields []span, width int, indent, sep string) []styledLine {
	var lines []styledLine
	var cur styledLine
	used := 0
	for _, f := range fields {
		n := len([]rune(f.text))
		switch {
		case len(cur) == 0:
			cur = styledLine{f}
			used = n
		case used+utf8.RuneCountInString(sep)+n <= width:
			cur = append(cur, span{text: sep}, f)
			used += utf8.RuneCountInString(sep) + n
		default:
			lines = append(lines, cur)
			cur = styledLine{{text: indent}, f}
			used = len(indent) + n
		}
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines
}

// ageColor is the colour of "how long ago": present, but quieter than the
// facts next to it.
const ageColor = tcell.ColorGray

// MismatchView lists the hash checks that found a difference, newest first:
//
//	frame 1234  player 2  3 groups [1-16 33-48 97-112]  -> real-time re-sync at frame 1240  2.1s ago
//	  unit 17   local 0123456789abcdef   server fedcba9876543210
//	  unit 40   local missing            server 00000000c0ffee00
//
// Every client reports the root of a hash tree over its units to the server.
// When it differs, the server sends its hashes of up to ten groups of ids (the
// drill-down, "-> asked for unit hashes"; the server's record lists those
// groups), the client answers the hash of every unit in the groups that differ
// from its own (its record, and then the server's, list those), the server finds
// the units that drifted, and repairs them: by sending their state to be applied at a
// frame every host has not reached yet ("-> real-time re-sync", in yellow),
// or, when that frame cannot be reached in time, by pausing the game at a
// frame and re-syncing every host while the world stands still
// ("-> stop-the-world", in red). "missing" means that side has no such unit;
// "unknown", that this host no longer has (or never had) its own hash of the
// unit, as happens to a client that learns of a repair from the server. A
// record lists a bounded number of units; "+N more" counts the rest.
//
// A world is more than its units: the counters that hand out unit and attack
// ids, the random generator and the attacks in flight are checked too, by one
// hash of them all beside the units' ("the world's state" in the header, and a
// "state" row with both hashes). It says that the state differed, not which
// part of it; the repair carries all of it:
//
//	frame 1240  player 2  the world's state  -> real-time re-sync at frame 1246
//	  state     local 0123456789abcdef   server fedcba9876543210  (id counters, generator, attacks in flight)
//
// A header that is wider than the view wraps between its fields, so the
// action stays visible; rows that do not fit at the bottom are left out and
// the last row says how many.
type MismatchView struct {
	*tview.Box
	records []game.SyncRecord // newest first
	now     time.Time
	empty   string // what an empty view says, if not the default
	late    []span // the lead and late-events line at the top (nil for none)
}

// SetLate sets the line at the top of the view that puts the host's command lead time beside
// what it did with the events that came later than it (from its sync report: re-runs, frames
// run again, the latest, those beyond the window), so that a student reads the trade in one
// place: "lead 300 ms (teacher) · late events: 12 re-runs · 47 frames run again · the latest 4
// frames late · 0 beyond the window · hashes checked 5 frames after".
func (v *MismatchView) SetLate(lead Lead, sy game.SyncReport) *MismatchView {
	v.late = lateFields(lead, sy)
	return v
}

// lateSep is what stands between the fields of the late-events line.
const lateSep = " · "

// lateFields is the view's summary of a host's late events, after its lead time: with
// rollback, how often the world went back and how far, and how many came later than the
// window; with the fast-forward, how many events were fast-forwarded. Then how long after a
// frame its hashes are checked.
func lateFields(lead Lead, sy game.SyncReport) []span {
	fs := []span{{text: lead.String(), bold: true}}
	switch {
	case sy.Late == game.LateFastForward:
		fs = append(fs, span{text: fmt.Sprintf("late events: %d fast-forwarded (--late fastforward)", sy.LateBeyondWindow)})
	case sy.Resimulations == 0:
		fs = append(fs, span{text: "late events: 0 re-runs"})
	default:
		fs = append(fs, span{text: "late events: " + plural(int(sy.Resimulations), "re-run")},
			span{text: plural(int(sy.FramesRerun), "frame") + " run again"},
			span{text: fmt.Sprintf("the latest %s late", plural(int(sy.MaxLateFrames), "frame"))})
	}
	switch {
	case sy.Late == game.LateFastForward:
	case sy.LateBeyondWindow > 0:
		fs = append(fs, span{text: fmt.Sprintf("%d beyond the window, fast-forwarded", sy.LateBeyondWindow), color: tcell.ColorYellow})
	default:
		fs = append(fs, span{text: "0 beyond the window"})
	}
	return append(fs, span{text: fmt.Sprintf("hashes checked %s after", plural(int(sy.SettleFrames), "frame")), color: ageColor})
}

// SetEmptyText sets what the view says when it has no record ("" for the default: every
// report matched).
func (v *MismatchView) SetEmptyText(text string) *MismatchView {
	v.empty = text
	return v
}

// NewMismatchView returns an empty view.
func NewMismatchView() *MismatchView {
	return &MismatchView{Box: tview.NewBox()}
}

// SetRecords replaces the records shown. rs is oldest first, as the hosts
// keep their sync log; now is the time the ages are measured against. The
// view keeps its own copy.
func (v *MismatchView) SetRecords(rs []game.SyncRecord, now time.Time) *MismatchView {
	v.records = v.records[:0]
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		r.Groups = slices.Clone(r.Groups)
		r.Units = slices.Clone(r.Units)
		if r.State != nil {
			state := *r.State
			r.State = &state
		}
		v.records = append(v.records, r)
	}
	v.now = now
	return v
}

// mismatchAction is the "-> ..." text for a record's action and its colour.
func mismatchAction(r game.SyncRecord) span {
	switch r.Action {
	case game.ActionRealtime:
		return span{text: fmt.Sprintf("-> real-time re-sync at frame %d", r.At), color: tcell.ColorYellow}
	case game.ActionStopWorld:
		return span{text: fmt.Sprintf("-> stop-the-world, pause at frame %d", r.At), color: tcell.ColorRed}
	case game.ActionDrillDown:
		return span{text: "-> asked for unit hashes", color: tcell.ColorAqua}
	case "":
		return span{}
	}
	// ActionNoneLeft, ActionNoDrillDown and any later action: its own words.
	return span{text: "-> " + r.Action}
}

// idRanges formats id ranges as "1-16 33-48 97", a single id standing alone.
func idRanges(rs []game.IDRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strconv.FormatUint(uint64(r.Start), 10)
		switch {
		case r.End >= world.MaxUnitID:
			parts[i] += "+" // the last group runs to the highest id there can be
		case r.End != r.Start:
			parts[i] += "-" + strconv.FormatUint(uint64(r.End), 10)
		}
	}
	return strings.Join(parts, " ")
}

// plural is "1 group", "3 groups".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// unitHash is a unit's hash as 16 hex digits, or "missing" when that side has
// no such unit.
func unitHash(h uint64, missing bool) string {
	if missing {
		return "missing"
	}
	return fmt.Sprintf("%016x", h)
}

// lines builds every row for a view width cells wide.
func (v *MismatchView) lines(width int) []styledLine {
	var lines []styledLine
	if v.late != nil {
		lines = append(lines, wrapFieldsBy(v.late, width, "    ", lateSep)...)
	}
	if len(v.records) == 0 {
		if v.empty != "" {
			return append(lines, plain(v.empty))
		}
		return append(lines, plain("no hash mismatch yet: every report matched the server"))
	}
	for _, r := range v.records {
		fields := []span{
			{text: fmt.Sprintf("frame %d", r.Frame), bold: true},
			{text: fmt.Sprintf("player %d", r.Seat)},
		}
		switch {
		case len(r.Groups) == 1 && r.Groups[0].Start <= 1 && r.Groups[0].End >= world.MaxUnitID:
			// A stop-the-world compares every unit: one "group" from the first id to the last.
			fields = append(fields, span{text: "whole world"})
		case len(r.Groups) > 0:
			fields = append(fields, span{text: fmt.Sprintf("%s [%s]", plural(len(r.Groups), "group"), idRanges(r.Groups))})
		}
		if r.State != nil {
			fields = append(fields, span{text: "the world's state"})
		}
		if a := mismatchAction(r); a.text != "" {
			fields = append(fields, a)
		}
		if !r.When.IsZero() {
			fields = append(fields, span{text: fmt.Sprintf("%.1fs ago", max(v.now.Sub(r.When), 0).Seconds()), color: ageColor})
		}
		lines = append(lines, wrapFields(fields, width, "    ")...)
		for _, u := range r.Units {
			local := "unknown"
			if u.LocalKnown {
				local = unitHash(u.Local, u.NoLocal)
			}
			lines = append(lines, plain(fmt.Sprintf("  unit %-4d local %-16s   server %s",
				u.ID, local, unitHash(u.Server, u.NoServer))))
		}
		if r.More > 0 {
			lines = append(lines, plain(fmt.Sprintf("  +%d more", r.More)))
		}
		if m := r.State; m != nil {
			local := "unknown"
			if m.LocalKnown {
				local = fmt.Sprintf("%016x", m.Local)
			}
			lines = append(lines, plain(fmt.Sprintf("  state     local %-16s   server %016x  (id counters, generator, attacks in flight)", local, m.Server)))
		}
	}
	return lines
}

// Draw draws the newest records from the top of the inner rectangle down.
func (v *MismatchView) Draw(screen tcell.Screen) {
	drawFrame(screen, v.Box, v)
	x, y, width, height := v.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	for i, l := range fitLines(v.lines(width), height) {
		l.draw(screen, x, y+i, width, v.GetBackgroundColor())
	}
}

// PauseView lists the stop-the-world re-syncs, newest first, under a summary
// of the finished ones:
//
//	3 pauses, p50 480 ms, max 910 ms
//	frame    length     units  state
//	2210     1.2s…      -      in progress
//	1240     480ms      3      done
//
// While a pause is in progress its length is a running timer (red, because
// the game stands still for every player), or "on its way" until this host's
// world reaches the paused frame. The median and the maximum tell a student
// what a stop-the-world costs on the current link: roughly a round trip to
// every client plus the time to send them the units.
type PauseView struct {
	*tview.Box
	pauses []game.PauseRecord // newest first
	now    time.Time
}

// NewPauseView returns an empty view.
func NewPauseView() *PauseView {
	return &PauseView{Box: tview.NewBox()}
}

// SetPauses replaces the pauses shown. ps is oldest first, as the hosts keep
// their sync log; now is the time running timers are measured against.
func (v *PauseView) SetPauses(ps []game.PauseRecord, now time.Time) *PauseView {
	v.pauses = v.pauses[:0]
	for i := len(ps) - 1; i >= 0; i-- {
		v.pauses = append(v.pauses, ps[i])
	}
	v.now = now
	return v
}

// pauseColumns are the widths of the frame, length and units columns.
const pauseColumns = "%-9s%-11s%-7s"

// pauseSummary is the count of pauses and the median and longest of the
// finished ones. The median is the nearest-rank one: a length that some pause
// really had.
func pauseSummary(ps []game.PauseRecord) string {
	var done []int64
	for _, p := range ps {
		if !p.Running {
			done = append(done, p.Millis)
		}
	}
	head := plural(len(ps), "pause")
	if len(done) == 0 {
		return head + ", none finished yet"
	}
	slices.Sort(done)
	return fmt.Sprintf("%s, p50 %d ms, max %d ms", head, done[(len(done)+1)/2-1], done[len(done)-1])
}

// lines builds every row.
func (v *PauseView) lines() []styledLine {
	if len(v.pauses) == 0 {
		return []styledLine{plain("no stop-the-world pause yet")}
	}
	lines := []styledLine{
		plain(pauseSummary(v.pauses)),
		{{text: fmt.Sprintf(pauseColumns+"%s", "frame", "length", "units", "state"), color: tview.Styles.SecondaryTextColor}},
	}
	for _, p := range v.pauses {
		frame := strconv.FormatUint(uint64(p.Frame), 10)
		switch {
		case p.Running && p.Start.IsZero():
			lines = append(lines, styledLine{
				{text: fmt.Sprintf(pauseColumns, frame, "on its way", "-")},
				{text: "in progress", color: tcell.ColorRed},
			})
		case p.Running:
			timer := fmt.Sprintf("%.1fs…", max(v.now.Sub(p.Start), 0).Seconds())
			lines = append(lines, styledLine{
				{text: fmt.Sprintf("%-9s", frame)},
				{text: fmt.Sprintf("%-11s", timer), color: tcell.ColorRed},
				{text: fmt.Sprintf("%-7s", "-")},
				{text: "in progress", color: tcell.ColorRed},
			})
		default:
			lines = append(lines, plain(fmt.Sprintf(pauseColumns+"%s", frame, fmt.Sprintf("%dms", p.Millis), strconv.Itoa(p.Units), "done")))
		}
	}
	return lines
}

// Draw draws the summary, the column header and the newest pauses that fit.
func (v *PauseView) Draw(screen tcell.Screen) {
	drawFrame(screen, v.Box, v)
	x, y, width, height := v.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	for i, l := range fitLines(v.lines(), height) {
		l.draw(screen, x, y+i, width, v.GetBackgroundColor())
	}
}
