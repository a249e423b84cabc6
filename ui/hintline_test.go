package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
)

// TestHintLine: a hint line leaves out whole parts that do not fit, the last but one first,
// "? help" last; only a first part wider than the line alone is cut, at a word.
func TestHintLine(t *testing.T) {
	parts := []string{"serving on 192.168.1.20:7777", "8 player(s)", "[aqua]round 2[-]", "Tab focus", "? help"}
	for _, c := range []struct {
		width int
		want  string
	}{
		{0, "serving on 192.168.1.20:7777  ·  8 player(s)  ·  [aqua]round 2[-]  ·  Tab focus  ·  ? help"},
		{200, "serving on 192.168.1.20:7777  ·  8 player(s)  ·  [aqua]round 2[-]  ·  Tab focus  ·  ? help"},
		{75, "serving on 192.168.1.20:7777  ·  8 player(s)  ·  [aqua]round 2[-]  ·  ? help"}, // tags take no room
		{62, "serving on 192.168.1.20:7777  ·  8 player(s)  ·  ? help"},
		{51, "serving on 192.168.1.20:7777  ·  ? help"},
		{30, "serving on 192.168.1.20:7777"},
		{20, "serving on…"},
	} {
		if got := hintLine(c.width, parts...); got != c.want {
			t.Errorf("width %d: %q, want %q", c.width, got, c.want)
		}
	}
}

// untagged is a part of a hint line as the screen shows it, without its colour tags.
func untagged(part string) string {
	return tview.NewTextView().SetDynamicColors(true).SetText(part).GetText(true)
}

// checkWholeHints fails unless the screen's row is made of whole parts of a hint line, "? help"
// among them, fewer than all of them (the line was too long: the test shows something).
func checkWholeHints(t *testing.T, row string, parts []string) {
	t.Helper()
	var whole []string
	for _, p := range parts {
		whole = append(whole, untagged(p))
	}
	shown := strings.Split(strings.TrimRight(row, " "), hintSep)
	if len(shown) >= len(whole) {
		t.Fatalf("the line %q fits whole: the test shows nothing", row)
	}
	for _, p := range shown {
		if !slices.Contains(whole, p) {
			t.Errorf("the line %q holds %q, not a whole hint of %q", row, p, whole)
		}
	}
	if shown[len(shown)-1] != "? help" {
		t.Errorf("the line %q does not end with ? help", row)
	}
}

// TestServerScreenHintsWhole: the line above the server's status line, when a class fills it
// (a round, the teacher's lead, spectators), leaves out whole hints at 120, 100 and 80 columns,
// never cuts one.
func TestServerScreenHintsWhole(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {100, 30}, {80, 24}} {
		t.Run(sizeName(size.w, size.h), func(t *testing.T) {
			f := newFakeServer(t)
			fullClass(f, 5)
			f.mu.Lock()
			f.snap.Round, f.snap.LeadSetting = 2, game.FixedLead(300*time.Millisecond)
			f.mu.Unlock()
			sa, ss := fakeServerScreen(t, f, size.w, size.h)
			sa.do(func() { ss.noticeAt = fakeNow.Add(-time.Minute) })
			waitText(sa, "the class's line", "serving on 127.0.0.1:7777  ·  8 player(s)")
			var parts []string
			var row string
			sa.waitFor("the line and its hints", func() bool {
				parts = ss.hints(f.Snapshot(), fakeNow)
				rows := strings.Split(screenText(sa), "\n")
				row = rows[size.h-2]
				return strings.HasPrefix(row, "serving on")
			})
			checkWholeHints(t, row, parts)
		})
	}
}

// TestClientScreenHintsWhole: the line under the client's map, a spectator's with its cursor
// on a unit and a round on its way, leaves out whole hints at 120 and 80 columns.
func TestClientScreenHintsWhole(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 36}, {80, 24}} {
		t.Run(sizeName(size.w, size.h), func(t *testing.T) {
			f := newFakeClient(t)
			f.snap.Spectator = &game.Spectate{Number: 3, Why: game.SpectateSeatsFull}
			f.snap.NewRound = f.snap.Frame + 40
			sa, cs := fakeClientScreen(t, f, size.w, size.h)
			u := f.snap.Units[0]
			sa.do(func() { cs.MapView().SetCursor(u.X, u.Y) })
			var parts []string
			var row string
			sa.waitFor("the line with the cursor on a unit", func() bool {
				parts = cs.orderParts(f.Snapshot())
				rows := strings.Split(screenText(sa), "\n")
				row = rows[size.h-2]
				// The screen shows these parts (drawn since the cursor moved).
				return strings.Contains(untagged(strings.Join(parts, hintSep)), fmt.Sprintf("cursor %d,%d ", u.X, u.Y)) &&
					strings.TrimRight(row, " ") == untagged(hintLine(size.w, parts...))
			})
			checkWholeHints(t, row, parts)
		})
	}
}
