package ui

import (
	"fmt"
	"testing"

	"github.com/ackattack/ackattack/world"
	"github.com/gdamore/tcell/v2"
)

func mustWorld(t *testing.T, mapName string) *world.World {
	t.Helper()
	w, err := world.NewWorld(mapName, 1)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustKind(t *testing.T, name string) uint8 {
	t.Helper()
	k, ok := world.KindByName(name)
	if !ok {
		t.Fatalf("no unit kind %q", name)
	}
	return k.ID
}

func TestScrollAxis(t *testing.T) {
	tests := []struct {
		offset, cursor, view, mapSize int32
		want                          int32
	}{
		{0, 0, 80, 60, 0},        // map fits: never scrolls
		{5, 59, 80, 60, 0},       // even with a stale offset
		{0, 10, 80, 200, 0},      // cursor well inside
		{0, 75, 80, 200, 0},      // at the margin exactly
		{0, 76, 80, 200, 1},      // one past it: scroll by one
		{0, 199, 80, 200, 120},   // far end: clamped to the map
		{100, 103, 80, 200, 99},  // pushing against the top margin
		{100, 130, 80, 200, 100}, // moving inside the view: no scroll
		{50, 0, 80, 200, 0},
		{0, 5, 3, 10, 4}, // a tiny view: the margin shrinks to fit
	}
	for _, tt := range tests {
		if got := scrollAxis(tt.offset, tt.cursor, tt.view, tt.mapSize); got != tt.want {
			t.Errorf("scrollAxis(%d, %d, %d, %d) = %d, want %d", tt.offset, tt.cursor, tt.view, tt.mapSize, got, tt.want)
		}
	}
}

func TestMapViewSkirmish(t *testing.T) {
	w := mustWorld(t, "skirmish")
	units := []world.Unit{
		{ID: 1, Owner: 0, Kind: mustKind(t, "soldier"), X: 3, Y: 2, HP: 60},
		{ID: 2, Owner: 0, Kind: mustKind(t, "archer"), X: 4, Y: 2, HP: 35},
		{ID: 6, Owner: 1, Kind: mustKind(t, "knight"), X: 56, Y: 17, HP: 140},
		{ID: world.FirstEnemyID, Owner: world.EnemyOwner, Kind: mustKind(t, "ogre"), X: 30, Y: 14, HP: 160},
		{ID: world.FirstEnemyID + 1, Owner: world.EnemyOwner, Kind: mustKind(t, "goblin"), X: 31, Y: 14, Dead: true},
	}
	m := NewMapView(w).SetCursor(10, 5)
	m.SetUnits(units, 0).SetSelected([]uint32{2})
	sa := runApp(t, m, int(w.Width()), int(w.Height()))
	checkGolden(t, "map_skirmish", sa.text())

	cellTests := []struct {
		x, y   int
		letter rune
		fg     tcell.Color
		dim    bool
		bg     tcell.Color
	}{
		{3, 2, 's', tcell.ColorLime, false, tcell.ColorDefault},
		{4, 2, 'a', tcell.ColorLime, false, tcell.ColorNavy}, // selected
		{56, 17, 'k', tcell.ColorYellow, false, tcell.ColorDefault},
		{30, 14, 'O', tcell.ColorRed, false, tcell.ColorDefault},
		{31, 14, 'g', tcell.ColorMaroon, true, tcell.ColorDefault},
		{0, 0, '#', tcell.ColorGray, false, tcell.ColorDefault},
		{30, 1, '~', tcell.ColorRoyalBlue, false, tcell.ColorDefault},
	}
	for _, ct := range cellTests {
		r, style := sa.cell(ct.x, ct.y)
		fg, bg, attr := style.Decompose()
		if r != ct.letter || fg != ct.fg || bg != ct.bg || (attr&tcell.AttrDim != 0) != ct.dim {
			t.Errorf("cell (%d, %d) = %q fg %v bg %v attr %v; want %q fg %v bg %v dim %v",
				ct.x, ct.y, r, fg, bg, attr, ct.letter, ct.fg, ct.bg, ct.dim)
		}
	}

	// The cursor starts where it was set and is drawn reversed (the view has
	// focus).
	if _, style := sa.cell(10, 5); !reverse(style) {
		t.Errorf("cursor cell (10, 5) not reversed: %v", style)
	}

	moves := []struct {
		key  tcell.Key
		r    rune
		x, y int32
	}{
		{tcell.KeyRune, 'l', 11, 5},
		{tcell.KeyRune, 'j', 11, 6},
		{tcell.KeyRight, 0, 12, 6},
		{tcell.KeyDown, 0, 12, 7},
		{tcell.KeyRune, 'h', 11, 7},
		{tcell.KeyRune, 'k', 11, 6},
		{tcell.KeyLeft, 0, 10, 6},
		{tcell.KeyUp, 0, 10, 5},
		{tcell.KeyRune, 'L', 18, 5},
		{tcell.KeyRune, 'J', 18, 13},
		{tcell.KeyRune, 'J', 18, 19}, // clamped at the bottom edge
		{tcell.KeyRune, 'K', 18, 11},
		{tcell.KeyRune, 'H', 10, 11},
		{tcell.KeyRune, 'H', 2, 11},
		{tcell.KeyRune, 'H', 0, 11}, // clamped at the left edge
	}
	for _, mv := range moves {
		sa.screen.InjectKey(mv.key, mv.r, tcell.ModNone)
		sa.waitFor(fmt.Sprintf("cursor at (%d, %d)", mv.x, mv.y), func() bool {
			x, y := m.Cursor()
			return x == mv.x && y == mv.y
		})
		if _, style := sa.cell(int(mv.x), int(mv.y)); !reverse(style) {
			t.Errorf("cursor cell (%d, %d) not reversed", mv.x, mv.y)
		}
	}
	// The old cursor cell is plain again.
	if _, style := sa.cell(10, 5); reverse(style) {
		t.Error("cell (10, 5) still drawn as the cursor")
	}
	sa.do(func() {
		if x, y := m.Offset(); x != 0 || y != 0 {
			t.Errorf("a map that fits scrolled to (%d, %d)", x, y)
		}
	})
}

func TestMapViewContinentScrolls(t *testing.T) {
	const screenW, screenH = 80, 24
	w := mustWorld(t, "continent")
	if w.Width() <= screenW || w.Height() <= screenH {
		t.Fatalf("continent is %dx%d, not larger than the screen", w.Width(), w.Height())
	}
	// A unit far from the start, drawn only once the view scrolls to it.
	m := NewMapView(w).SetUnits([]world.Unit{{ID: 1, Owner: 0, Kind: mustKind(t, "knight"), X: 100, Y: 30, HP: 140}}, 0)
	sa := runApp(t, m, screenW, screenH)

	// checkView checks that the cursor is in view, and at least the scroll
	// margin from each edge the map lets it be away from, and that the screen
	// shows the map from the view's offset.
	checkView := func() {
		t.Helper()
		var cx, cy, ox, oy int32
		sa.do(func() {
			cx, cy = m.Cursor()
			ox, oy = m.Offset()
		})
		for _, axis := range []struct {
			name              string
			cursor, off, view int32
			size              int32
		}{
			{"x", cx, ox, screenW, w.Width()},
			{"y", cy, oy, screenH, w.Height()},
		} {
			rel := axis.cursor - axis.off
			lo := min(int32(mapScrollMargin), axis.cursor)
			hi := max(axis.view-1-mapScrollMargin, axis.view-1-(axis.size-1-axis.cursor))
			if rel < lo || rel > hi || axis.off < 0 || axis.off > axis.size-axis.view {
				t.Fatalf("%s: cursor %d, offset %d: on screen at %d, want %d..%d", axis.name, axis.cursor, axis.off, rel, lo, hi)
			}
		}
		_, style := sa.cell(int(cx-ox), int(cy-oy))
		if !reverse(style) {
			t.Errorf("cursor (%d, %d) not drawn at screen (%d, %d)", cx, cy, cx-ox, cy-oy)
		}
		for _, p := range [][2]int32{{0, 0}, {screenW - 1, 0}, {0, screenH - 1}, {screenW - 1, screenH - 1}, {cx - ox, cy - oy}} {
			if r, _ := sa.cell(int(p[0]), int(p[1])); r != rune(w.Terrain(ox+p[0], oy+p[1])) {
				t.Errorf("screen (%d, %d) = %q, want the terrain of map cell (%d, %d) %q",
					p[0], p[1], r, ox+p[0], oy+p[1], rune(w.Terrain(ox+p[0], oy+p[1])))
			}
		}
	}
	checkView()
	checkGolden(t, "map_continent_0_0", sa.text())

	press := func(r rune, n int) {
		t.Helper()
		for range n {
			var x, y int32
			sa.do(func() { x, y = m.Cursor() })
			sa.rune(r)
			sa.waitFor("cursor to move", func() bool {
				nx, ny := m.Cursor()
				return nx != x || ny != y
			})
			checkView()
		}
	}
	press('L', 12) // x 96: scrolled right
	press('J', 4)  // y 32: scrolled down
	sa.do(func() {
		if x, y := m.Offset(); x == 0 || y == 0 {
			t.Errorf("offset (%d, %d) after moving to (96, 32): the view did not scroll", x, y)
		}
	})
	checkGolden(t, "map_continent_96_32", sa.text())
	var ox, oy int32
	sa.do(func() { ox, oy = m.Offset() })
	if r, _ := sa.cell(int(100-ox), int(30-oy)); r != 'k' {
		t.Errorf("knight at map (100, 30) = screen (%d, %d): drawn %q", 100-ox, 30-oy, r)
	}
	press('l', 20)
	press('h', 30) // back left inside the view, then pushing its left margin
	press('L', 14) // x 198
	press('l', 1)  // the map's last column: the view stops at the map's edge
	sa.do(func() {
		if x, _ := m.Offset(); x != w.Width()-screenW {
			t.Errorf("offset x %d at the right edge, want %d", x, w.Width()-screenW)
		}
	})
}

func reverse(style tcell.Style) bool {
	_, _, attr := style.Decompose()
	return attr&tcell.AttrReverse != 0
}

// TestEnemyNear: the living enemy nearest a cell within a radius, measured as the game measures
// ranges (the larger of the two distances), then the straight line, then the lowest id; a
// dead enemy, a player's unit or an enemy beyond the radius is never picked.
func TestEnemyNear(t *testing.T) {
	enemy := func(id uint32, x, y int32) world.Unit {
		return world.Unit{ID: id, Owner: world.EnemyOwner, X: x, Y: y, HP: 10}
	}
	dead := enemy(world.FirstEnemyID+9, 10, 10)
	dead.Dead = true
	for _, tt := range []struct {
		name   string
		units  []world.Unit
		x, y   int32
		want   uint32 // 0: none
		radius int32
	}{
		{"under the cursor", []world.Unit{enemy(10001, 10, 10)}, 10, 10, 10001, 2},
		{"a cell off", []world.Unit{enemy(10001, 11, 9)}, 10, 10, 10001, 2},
		{"two cells off", []world.Unit{enemy(10001, 12, 8)}, 10, 10, 10001, 2},
		{"three cells off", []world.Unit{enemy(10001, 13, 10)}, 10, 10, 0, 2},
		{"the nearer of two", []world.Unit{enemy(10001, 12, 10), enemy(10002, 11, 10)}, 10, 10, 10002, 2},
		{"the same ring: the straight line decides", []world.Unit{enemy(10001, 12, 12), enemy(10002, 12, 11)}, 10, 10, 10002, 2},
		{"a tie: the lowest id", []world.Unit{enemy(10001, 9, 10), enemy(10002, 11, 10)}, 10, 10, 10001, 2},
		{"a dead one on the cursor, a living one beside", []world.Unit{enemy(10001, 11, 10), dead}, 10, 10, 10001, 2},
		{"only a dead one", []world.Unit{dead}, 10, 10, 0, 2},
		{"a player's unit", []world.Unit{{ID: 1, Owner: 0, X: 10, Y: 10, HP: 60}}, 10, 10, 0, 2},
		{"radius 0: the cell only", []world.Unit{enemy(10001, 11, 10)}, 10, 10, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMapView(mustWorld(t, "skirmish"))
			m.SetUnits(tt.units, 0)
			u, ok := m.EnemyNear(tt.x, tt.y, tt.radius)
			if got := map[bool]uint32{true: u.ID}[ok]; got != tt.want {
				t.Errorf("EnemyNear(%d, %d, %d) = %d (%v), want %d", tt.x, tt.y, tt.radius, u.ID, ok, tt.want)
			}
		})
	}
}
