package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// The client screen over a fake host whose clock is frozen: every screen it draws is the same
// in every run, so the screens are golden files.

func TestClientScreenStartShowsMapAndStatus(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 36}, {80, 24}, {250, 70}} {
		t.Run(sizeName(size.w, size.h), func(t *testing.T) {
			f := newFakeClient(t)
			sa, cs := fakeClientScreen(t, f, size.w, size.h)
			sa.waitFor("the map, focused, and the status line", func() bool {
				txt := screenText(sa)
				return strings.Contains(txt, "RUNNING") && strings.Contains(txt, "map skirmish") &&
					cs.MapView() != nil && cs.MapView().HasFocus() && strings.Contains(txt, "╔")
			})
			txt := sa.text()
			lines := strings.Split(strings.TrimRight(txt, "\n"), "\n")
			last := lines[len(lines)-1]
			for _, want := range []string{"frame 100", "RUNNING"} {
				if !strings.Contains(last, want) {
					t.Errorf("status line %q lacks %q", last, want)
				}
			}
			checkGolden(t, "client_"+sizeName(size.w, size.h), txt)
		})
	}
}

func sizeName(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }

// screenText reads the screen's text; for use inside waitFor's condition, which already runs
// on the event loop.
func screenText(sa *screenApp) string {
	cells, w, h := sa.screen.GetContents()
	var b strings.Builder
	for y := range h {
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteString(string(c.Runes))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ownUnit returns the first unit of seat 0 in the fake's world.
func ownUnit(t *testing.T, f *fakeClient) world.Unit {
	t.Helper()
	for _, u := range f.Snapshot().Units {
		if u.Owner == 0 {
			return u
		}
	}
	t.Fatal("no unit of seat 0")
	return world.Unit{}
}

// TestClientScreenSelectAndMovePending: the cursor starts on the player's first unit; space
// selects it, the cursor keys move away, m orders the move, and the order shows at once as
// pending until its frame.
func TestClientScreenSelectAndMovePending(t *testing.T) {
	f := newFakeClient(t)
	sa, cs := fakeClientScreen(t, f, 120, 36)
	u := ownUnit(t, f)
	sa.waitFor("the map", func() bool { return cs.MapView() != nil })
	sa.do(func() {
		if x, y := cs.MapView().Cursor(); x != u.X || y != u.Y {
			t.Errorf("cursor at %d,%d, want the first own unit at %d,%d", x, y, u.X, u.Y)
		}
	})
	sa.rune(' ')
	sa.waitFor("the unit selected", func() bool {
		sel := cs.MapView().Selected()
		return len(sel) == 1 && sel[0] == u.ID
	})
	// Walk the cursor to open ground a few cells away.
	var tx, ty int32
	sa.do(func() {
		w := cs.MapView().world
		for d := int32(3); d < 20; d++ {
			if w.Terrain(u.X+d, u.Y) == world.Ground {
				tx, ty = u.X+d, u.Y
				if _, busy := cs.MapView().UnitAt(tx, ty); !busy {
					return
				}
			}
		}
		t.Fatal("no open ground to the right of the unit")
	})
	for range tx - u.X {
		sa.rune('l')
	}
	sa.rune('m')
	waitText(sa, "the order pending", "pending until frame 102")
	o, ok := f.lastOrder()
	if !ok || o.Kind != world.CommandMove || len(o.Units) != 1 || o.Units[0] != u.ID || o.X != tx || o.Y != ty {
		t.Fatalf("order %+v (%v), want a move of unit %d to %d,%d", o, ok, u.ID, tx, ty)
	}
	// The destination is marked on the map.
	sa.do(func() {
		x0, y0 := cs.MapView().Offset()
		ix, iy, _, _ := cs.MapView().GetInnerRect()
		cells, w, _ := sa.screen.GetContents()
		c := cells[(iy+int(ty-y0))*w+ix+int(tx-x0)]
		if len(c.Runes) == 0 || c.Runes[0] != 'x' {
			t.Errorf("destination cell shows %q, want the pending mark x", string(c.Runes))
		}
	})
	checkGolden(t, "client_move_pending", sa.text())
}

// TestClientScreenBoxSelectAndGroups: v…v selects the own units in a box; g 1 stores them as a
// group, Esc clears the selection and 1 brings it back.
func TestClientScreenBoxSelectAndGroups(t *testing.T) {
	f := newFakeClient(t)
	sa, cs := fakeClientScreen(t, f, 120, 36)
	sa.waitFor("the map", func() bool { return cs.MapView() != nil })
	var want []uint32
	for _, u := range f.Snapshot().Units {
		if u.Owner == 0 {
			want = append(want, u.ID)
		}
	}
	// A box around every own unit: from the top-left of their bounding box to its bottom-right.
	units := f.Snapshot().Units
	minX, minY, maxX, maxY := int32(1<<30), int32(1<<30), int32(-1), int32(-1)
	for _, u := range units {
		if u.Owner == 0 {
			minX, minY, maxX, maxY = min(minX, u.X), min(minY, u.Y), max(maxX, u.X), max(maxY, u.Y)
		}
	}
	sa.do(func() { cs.MapView().SetCursor(minX, minY) })
	sa.rune('v')
	for range maxX - minX {
		sa.rune('l')
	}
	for range maxY - minY {
		sa.rune('j')
	}
	sa.rune('v')
	sa.waitFor("the box selection", func() bool { return len(cs.MapView().Selected()) == len(want) })
	sa.rune('g')
	sa.rune('1')
	sa.key(tcell.KeyEscape)
	sa.waitFor("the selection cleared", func() bool { return len(cs.MapView().Selected()) == 0 })
	sa.rune('1')
	sa.waitFor("group 1 recalled", func() bool { return len(cs.MapView().Selected()) == len(want) })
	sa.waitFor("the group on the orders line", func() bool { return strings.Contains(screenText(sa), "selected group 1") })
}

// TestClientScreenMouse: a left click selects the unit under it, a right click on open ground
// orders the selection there.
func TestClientScreenMouse(t *testing.T) {
	f := newFakeClient(t)
	sa, cs := fakeClientScreen(t, f, 120, 36)
	u := ownUnit(t, f)
	sa.waitFor("the map drawn", func() bool { return cs.MapView() != nil && strings.Contains(screenText(sa), "map skirmish") })
	var sx, sy int
	var gx int32
	sa.do(func() {
		x0, y0 := cs.MapView().Offset()
		ix, iy, _, _ := cs.MapView().GetInnerRect()
		sx, sy = ix+int(u.X-x0), iy+int(u.Y-y0)
		w := cs.MapView().world
		for gx = u.X + 3; w.Terrain(gx, u.Y) != world.Ground; gx++ {
		}
	})
	sa.screen.InjectMouse(sx, sy, tcell.Button1, tcell.ModNone)
	sa.screen.InjectMouse(sx, sy, tcell.ButtonNone, tcell.ModNone)
	sa.waitFor("the clicked unit selected", func() bool {
		sel := cs.MapView().Selected()
		return len(sel) == 1 && sel[0] == u.ID
	})
	gsx := sx + int(gx-u.X)
	sa.screen.InjectMouse(gsx, sy, tcell.Button2, tcell.ModNone)
	sa.screen.InjectMouse(gsx, sy, tcell.ButtonNone, tcell.ModNone)
	sa.waitFor("the move order", func() bool { o, ok := f.lastOrder(); return ok && o.X == gx && o.Y == u.Y })
}

// TestClientScreenChat: Enter opens the input line, Enter sends; the line comes back in the
// pane with the tag shown as typed.
func TestClientScreenChat(t *testing.T) {
	f := newFakeClient(t)
	sa, cs := fakeClientScreen(t, f, 120, 36)
	sa.waitFor("the screen", func() bool { return strings.Contains(screenText(sa), "RUNNING") })
	sa.key(tcell.KeyEnter)
	for _, r := range "gg [red]wp" {
		sa.rune(r)
	}
	sa.key(tcell.KeyEnter)
	sa.waitFor("the line in the pane", func() bool { return strings.Contains(screenText(sa), "ann: gg [red]wp") })
	sa.waitFor("the map focused again", func() bool { return cs.MapView().HasFocus() })
	f.mu.Lock()
	said := append([]string(nil), f.said...)
	f.mu.Unlock()
	if len(said) != 1 || said[0] != "gg [red]wp" {
		t.Fatalf("said %q, want the one line", said)
	}
	// Keys go back to the map: q would quit, d toggles the debug panel.
	sa.rune('d')
	sa.waitFor("the debug panel", func() bool { return strings.Contains(screenText(sa), "1 graph") })
}

// TestClientScreenDebugPanelShowsWaitingMessage: with the receiver holding a message back for a
// lost dependency, the debug panel's graph view shows it waiting.
func TestClientScreenDebugPanelShowsWaitingMessage(t *testing.T) {
	_, sa, _ := heldBackClientScreen(t, 120, 36)
	sa.rune('d')
	sa.waitFor("the waiting message", func() bool { return strings.Contains(screenText(sa), "#7 Chat waits on #5") })
	checkGolden(t, "client_debug_graph", sa.text())
	// n cycles to the ack view.
	sa.rune('n')
	sa.waitFor("the ack view", func() bool {
		return strings.Contains(screenText(sa), "rtt") && strings.Contains(screenText(sa), "acked")
	})
}

// TestClientScreenHelpAndInject: ? shows every key, Esc hides it; i asks the host for a desync.
func TestClientScreenHelpAndInject(t *testing.T) {
	f := newFakeClient(t)
	sa, _ := fakeClientScreen(t, f, 100, 30)
	sa.waitFor("the screen", func() bool { return strings.Contains(screenText(sa), "RUNNING") })
	sa.rune('?')
	sa.waitFor("the help", func() bool { return strings.Contains(screenText(sa), "move the cursor 8 cells") })
	sa.key(tcell.KeyEscape)
	sa.waitFor("the help gone", func() bool { return !strings.Contains(screenText(sa), "move the cursor 8 cells") })
	sa.rune('i')
	sa.waitFor("the desync asked for", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.injects == 1 })
	sa.waitFor("the notice", func() bool { return strings.Contains(screenText(sa), "desync injected") })
}

// TestClientScreenExportDOT: x writes the dependency graph as a DOT file and says where.
func TestClientScreenExportDOT(t *testing.T) {
	_, sa, cs := heldBackClientScreen(t, 160, 40)
	sa.waitFor("the screen", func() bool { return strings.Contains(screenText(sa), "RUNNING") })
	sa.rune('x')
	sa.waitFor("the export notice", func() bool { return strings.Contains(screenText(sa), "dependency graph written to") })
	files, _ := filepath.Glob(filepath.Join(cs.exports, "*.dot"))
	if len(files) != 1 {
		t.Fatalf("DOT files %v, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(b), "digraph") {
		t.Fatalf("DOT file: %v\n%s", err, b)
	}
}

// TestClientScreenStates: the status line follows the host's state.
func TestClientScreenStates(t *testing.T) {
	f := newFakeClient(t)
	sa, _ := fakeClientScreen(t, f, 120, 36)
	f.mu.Lock()
	f.snap.Waiting = true
	f.mu.Unlock()
	sa.waitFor("waiting", func() bool { return strings.Contains(screenText(sa), "WAITING FOR SYNC ACK") })
	f.mu.Lock()
	f.snap.Waiting, f.snap.State = false, transport.Disconnected
	f.mu.Unlock()
	sa.waitFor("disconnected", func() bool { return strings.Contains(screenText(sa), "DISCONNECTED") })
}

// waitText waits until the screen shows want, and prints the screen if it never does.
func waitText(sa *screenApp, what, want string) {
	sa.t.Helper()
	deadline := time.Now().Add(pollLimit)
	for {
		var txt string
		sa.do(func() { txt = screenText(sa) })
		if strings.Contains(txt, want) {
			return
		}
		if time.Now().After(deadline) {
			sa.t.Fatalf("timed out waiting for %s (%q); the screen:\n%s", what, want, txt)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestClientScreenSliders: Tab focuses the sliders, ] raises the loss by a step, and a mouse
// drag along the latency bar sets the latency; the host's link follows each change and the
// status line shows it.
func TestClientScreenSliders(t *testing.T) {
	f := newFakeClient(t)
	sa, _ := fakeClientScreen(t, f, 120, 36)
	waitText(sa, "the sliders", "latency")
	sa.key(tcell.KeyTab)
	sa.rune(']')
	sa.rune(']')
	sa.waitFor("loss 2%", func() bool { ls, _ := f.Link(); return ls.LossPercent == 2 })
	waitText(sa, "the link in the status line", "loss 2%")

	// Find the latency bar: the row with the label, from its '[' to its ']'.
	var row, from, to int
	sa.do(func() {
		cells, w, h := sa.screen.GetContents()
		for y := range h {
			line := ""
			for x := range w {
				r := ' '
				if c := cells[y*w+x]; len(c.Runes) > 0 {
					r = c.Runes[0]
				}
				line += string(r)
			}
			if i := strings.Index(line, "latency  ["); i >= 0 {
				row, from = y, len([]rune(line[:i]))+len("latency  [")
				to = from + strings.Index(line[i+len("latency  ["):], "]")
				return
			}
		}
	})
	if to <= from {
		t.Fatal("no latency bar on the screen")
	}
	sa.screen.InjectMouse(from, row, tcell.Button1, tcell.ModNone)
	mid := from + (to-from)/2
	sa.screen.InjectMouse(mid, row, tcell.Button1, tcell.ModNone)
	sa.screen.InjectMouse(mid, row, tcell.ButtonNone, tcell.ModNone)
	sa.waitFor("the latency set by the drag", func() bool {
		ls, _ := f.Link()
		return ls.Latency >= 400*time.Millisecond && ls.Latency <= 600*time.Millisecond
	})
	ls, _ := f.Link()
	if ls.LossPercent != 2 {
		t.Errorf("loss %v after the drag, want 2 kept", ls.LossPercent)
	}
	waitText(sa, "the latency in the status line", "lat "+itoaMillis(ls.Latency))
}

func itoaMillis(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }

// TestClientScreenInjectWithoutUnits: when the host finds no unit to corrupt, the screen says
// so instead of claiming a desync.
func TestClientScreenInjectWithoutUnits(t *testing.T) {
	f := newFakeClient(t)
	f.injectErr = errNothingToCorrupt
	sa, _ := fakeClientScreen(t, f, 120, 36)
	sa.rune('i')
	waitText(sa, "the refusal", "no desync injected")
	if strings.Contains(sa.text(), "desync injected: one") {
		t.Fatal("the screen claims a desync that did not happen")
	}
}

// TestClientScreenDebugToggleGivesKeysBackToTheMap: on a terminal too short for both, the debug
// panel takes the map's place; closing it must give the keys back to the map, or the arrows
// would move the loss slider instead of the cursor.
func TestClientScreenDebugToggleGivesKeysBackToTheMap(t *testing.T) {
	f := newFakeClient(t)
	sa, cs := fakeClientScreen(t, f, 80, 24)
	var x0 int32
	sa.do(func() { x0, _ = cs.MapView().Cursor() })
	sa.rune('d')
	waitText(sa, "the panel in the map's place", "the map is hidden")
	sa.rune('d')
	sa.key(tcell.KeyRight)
	sa.waitFor("the cursor moved", func() bool { x, _ := cs.MapView().Cursor(); return x == x0+1 })
	if ls, _ := f.Link(); ls.LossPercent != 0 {
		t.Fatalf("the arrow changed the link: %+v", ls)
	}
}

// TestClientScreenNoUnits: a player whose units all fell reads what happens next: the squad of
// reinforcements announced for a frame, and how soon; before the announcement, that one is on
// its way; a new round, when one comes first.
func TestClientScreenNoUnits(t *testing.T) {
	f := newFakeClient(t)
	f.snap.Units = slices.DeleteFunc(slices.Clone(f.snap.Units), func(u world.Unit) bool { return u.Owner == 0 })
	f.snap.FrameDur = 100 * time.Millisecond
	sa, _ := fakeClientScreen(t, f, 120, 36)
	waitText(sa, "no units, nothing announced", "no units: reinforcements on their way")
	for _, tt := range []struct {
		squad, round uint32
		want         string
	}{
		{130, 0, "no units: reinforcements at frame 130 (in 3 s)"},
		{125, 0, "no units: reinforcements at frame 125 (in 3 s)"}, // 2.5 s: rounded up
		{130, 120, "no units: a new round at frame 120 (in 2 s)"},
		{110, 120, "no units: reinforcements at frame 110 (in 1 s)"},
	} {
		f.mu.Lock()
		f.snap.Squad, f.snap.NewRound = tt.squad, tt.round
		f.mu.Unlock()
		waitText(sa, tt.want, tt.want)
	}
	// The round on its way shows for a player with units too.
	f.mu.Lock()
	f.snap.Units = newFakeClient(t).snap.Units
	f.mu.Unlock()
	sa.waitFor("no more \"no units\"", func() bool { return !strings.Contains(screenText(sa), "no units") })
	waitText(sa, "the round for a player with units", "new round at frame 120 (in 2 s)")
}

// TestClientScreenLinkPresets: F6 puts 10% loss on the player's link from anywhere, the
// digits do it on the focused sliders, and { } take big steps; when the teacher sets the
// class's link, the line under the map says so.
func TestClientScreenLinkPresets(t *testing.T) {
	f := newFakeClient(t)
	sa, _ := fakeClientScreen(t, f, 120, 36)
	sa.key(tcell.KeyF6)
	sa.waitFor("10% loss", func() bool { ls, _ := f.Link(); return ls == linksim.Settings{LossPercent: 10} })
	waitText(sa, "the preset in the status line", "link: loss 10%")
	waitText(sa, "the preset's notice", "link preset 10% loss")
	sa.key(tcell.KeyTab) // the sliders
	sa.rune('4')
	sa.waitFor("the bad Wi-Fi", func() bool { ls, _ := f.Link(); return ls == LinkPresets[4].Settings })
	waitText(sa, "the bursts in the status line", "burst 5%")
	sa.rune('}') // loss 2% → 12%
	sa.key(tcell.KeyDown)
	sa.screen.InjectKey(tcell.KeyRight, 0, tcell.ModShift) // latency 20 → 70 ms
	sa.waitFor("the big steps", func() bool {
		ls, _ := f.Link()
		return ls.LossPercent == 12 && ls.Latency == 70*time.Millisecond && ls.BurstLossPercent == 5
	})
	sa.rune('3')
	sa.waitFor("150 ms of round trip", func() bool { ls, _ := f.Link(); return ls == linksim.Settings{Latency: 75 * time.Millisecond} })

	class := linksim.Settings{LossPercent: 30}
	f.mu.Lock()
	f.link = class // the host put it on the link, as hostloop does
	f.snap.ClassLink, f.snap.ClassLinks = &class, 1
	f.mu.Unlock()
	waitText(sa, "the teacher's link", "the teacher set the class's link: link: loss 30%")
	waitText(sa, "the sliders following", "loss 30%")
}

// TestClientScreenLeadBesideLateEvents: the client's debug panel, on its hashes view, puts the
// lead in force beside what it let through, in one line a student reads: the re-runs, the
// frames run again, how late the latest was, and none beyond the window; and the status line
// says the teacher fixed the lead. When the teacher gives it back, both follow.
func TestClientScreenLeadBesideLateEvents(t *testing.T) {
	f := newFakeClient(t)
	f.mu.Lock()
	f.snap.Lead, f.snap.LeadFixed, f.snap.Game.LeadTimeMillis = 3, true, 300
	f.snap.Sync = game.SyncReport{Late: game.LateRollback, Resimulations: 12, FramesRerun: 47, MaxLateFrames: 4, SettleFrames: 5}
	f.mu.Unlock()
	sa, _ := fakeClientScreen(t, f, 200, 40) // the panel wide enough for the line in one row
	waitText(sa, "the status line", "lead 300 ms (teacher)  rtt 40 ms")
	sa.rune('d')
	waitText(sa, "the debug panel", "1 graph")
	sa.rune('n') // the acks view
	sa.rune('n') // the hashes view
	waitText(sa, "the hashes view", "lead 300 ms (teacher) · late events: 12 re-runs · 47 frames run again · the latest 4 frames late · 0 beyond the window")

	f.mu.Lock()
	f.snap.Lead, f.snap.LeadFixed, f.snap.Game.LeadTimeMillis = 2, false, 200
	f.snap.Sync.Resimulations, f.snap.Sync.FramesRerun = 13, 50
	f.mu.Unlock()
	waitText(sa, "the policy's lead in the status line", "lead 200 ms  rtt 40 ms")
	waitText(sa, "the policy's lead beside the late events", "lead 200 ms · late events: 13 re-runs · 50 frames run again")
}

// stripTags is text without tview's colour tags ("[aqua]", "[-]"), as the screen shows it.
func stripTags(text string) string { return colourTag.ReplaceAllString(text, "") }

var colourTag = regexp.MustCompile(`\[[a-zA-Z0-9#:-]*\]`)

// TestClientScreenAttackPicksTheNearestEnemy: with the cursor a cell off the enemy (it moved),
// a orders an attack on it, the same order as with the cursor on it (its id, at its cell), and
// the line under the map names it; with no enemy within two cells, no order and a reason.
func TestClientScreenAttackPicksTheNearestEnemy(t *testing.T) {
	f := newFakeClient(t)
	var enemy world.Unit
	for _, u := range f.Snapshot().Units {
		if u.IsEnemy() {
			enemy = u
		}
	}
	sa, cs := fakeClientScreen(t, f, 120, 36)
	sa.waitFor("the map", func() bool { return cs.MapView() != nil })
	sa.rune(' ')
	sa.waitFor("a unit selected", func() bool { return len(cs.MapView().Selected()) == 1 })
	sa.do(func() { cs.MapView().SetCursor(enemy.X-1, enemy.Y+1) })
	sa.rune('a')
	sa.waitFor("the attack order", func() bool { _, ok := f.lastOrder(); return ok })
	o, _ := f.lastOrder()
	if o.Kind != world.CommandAttack || o.Target != enemy.ID || o.X != enemy.X || o.Y != enemy.Y {
		t.Errorf("order %+v, want an attack on enemy %d at %d,%d", o, enemy.ID, enemy.X, enemy.Y)
	}
	waitText(sa, "the target named", fmt.Sprintf("attack goblin #%d at %d,%d with 1", enemy.ID, enemy.X, enemy.Y))

	sa.do(func() { cs.MapView().SetCursor(enemy.X-3, enemy.Y) })
	sa.rune('a')
	waitText(sa, "the reason", "no living enemy within 2 cells of the cursor")
	f.mu.Lock()
	orders := len(f.orders)
	f.mu.Unlock()
	if orders != 1 {
		t.Errorf("%d orders, want only the first attack", orders)
	}
}

// TestClientScreenShowsTheGoalAndTheLegend: a newcomer who has pressed nothing reads, at 80×24
// and wider, what to do (the goal, on the line under the map) and what the letters are (the
// legend on the map's bottom border, each letter in its colour); ? shows the goal too. The
// goal leaves the line once the player gave an order. A spectator's legend names the players'
// letters, in their yellow, and no goal.
func TestClientScreenShowsTheGoalAndTheLegend(t *testing.T) {
	for _, tt := range []struct {
		name       string
		w, h       int
		spectator  bool
		legend     string
		own, enemy rune
		ownColor   tcell.Color
	}{
		{"player 80x24", 80, 24, false, "you: s a k · enemies: g O h · # wall ~ water", 's', 'g', tcell.ColorLime},
		{"player 120x36", 120, 36, false, "you: s soldier, a archer, k knight · enemies: g goblin, O ogre, h hurler", 's', 'g', tcell.ColorLime},
		{"spectator 80x24", 80, 24, true, "players: s a k · enemies: g O h", 's', 'g', tcell.ColorYellow},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeClient(t)
			if tt.spectator {
				f.snap.Spectator = &game.Spectate{Number: 1, Why: game.SpectateAsked}
			}
			sa, cs := fakeClientScreen(t, f, tt.w, tt.h)
			sa.waitFor("the map", func() bool { return cs.MapView() != nil })
			waitText(sa, "the legend", tt.legend)
			var legendRow, ownCol, enemyCol int
			var ordersRow string
			sa.do(func() {
				rows := screenRows(sa.screen)
				ordersRow = rows[len(rows)-2]
				for y, r := range rows {
					if i := strings.Index(r, tt.legend); i >= 0 {
						legendRow = y
						col := len([]rune(r[:i]))
						ownCol = col + strings.Index(tt.legend, ": ") + 2 // ASCII before the letters
						enemyCol = col + len([]rune(tt.legend[:strings.Index(tt.legend, "enemies: ")+len("enemies: ")]))
					}
				}
			})
			var iy, ih int
			sa.do(func() { _, iy, _, ih = cs.MapView().GetInnerRect() })
			if legendRow != iy+ih {
				t.Errorf("the legend on row %d, want the map's bottom border, row %d", legendRow, iy+ih)
			}
			for _, c := range []struct {
				col   int
				r     rune
				color tcell.Color
			}{{ownCol, tt.own, tt.ownColor}, {enemyCol, tt.enemy, tcell.ColorRed}} {
				r, style := sa.cell(c.col, legendRow)
				if fg, _, _ := style.Decompose(); r != c.r || fg != c.color {
					t.Errorf("legend cell %d shows %q in %v, want %q in %v", c.col, r, fg, c.r, c.color)
				}
			}
			const goal = "goal: defeat the red enemies: space selects your units, a attacks"
			if tt.spectator {
				if strings.Contains(ordersRow, "goal:") {
					t.Errorf("a spectator is given the goal: %q", ordersRow)
				}
				return
			}
			if !strings.Contains(ordersRow, goal) {
				t.Errorf("the line under the map %q lacks the goal %q", ordersRow, goal)
			}
			sa.rune('?')
			waitText(sa, "the goal in the help", "Goal: defeat the red enemies the server sends")
			sa.key(tcell.KeyEscape)
			sa.rune(' ')
			sa.rune('m')
			waitText(sa, "the order", "pending until frame")
			sa.key(tcell.KeyEscape)
			waitText(sa, "the line without the goal", "no selection (space selects)")
		})
	}
}
