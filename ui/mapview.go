package ui

import (
	"slices"

	"github.com/ackattack/ackattack/world"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// The colours of the map. Own units stand out from allies, and enemies are
// red so the eye finds them first; a dead enemy is dimmed because it can no
// longer act or be hit but still occupies its cell until it is removed.
var (
	styleGround    = tcell.StyleDefault.Foreground(tcell.ColorDarkOliveGreen)
	styleWall      = tcell.StyleDefault.Foreground(tcell.ColorGray)
	styleWater     = tcell.StyleDefault.Foreground(tcell.ColorRoyalBlue)
	styleOwnUnit   = tcell.StyleDefault.Foreground(tcell.ColorLime).Bold(true)
	styleAllyUnit  = tcell.StyleDefault.Foreground(tcell.ColorYellow).Bold(true)
	styleEnemy     = tcell.StyleDefault.Foreground(tcell.ColorRed).Bold(true)
	styleDeadEnemy = tcell.StyleDefault.Foreground(tcell.ColorMaroon).Dim(true)
	styleSelected  = tcell.StyleDefault.Background(tcell.ColorNavy).Underline(true)
	styleBox       = tcell.StyleDefault.Background(tcell.ColorDarkSlateGray)
	styleMark      = tcell.StyleDefault.Foreground(tcell.ColorAqua)
)

// mapScrollMargin is how many cells the view keeps between the cursor and
// the edge of the view, where the map allows it, so the player sees what the
// cursor is about to move into.
const mapScrollMargin = 4

// MapView draws a world's map and the units on it, with a cursor that picks
// cells for orders. It holds a copy of the last units it was given and never
// looks at the world's live state: the terrain does not change during a game,
// and the units come from the frame's snapshot through SetUnits.
//
// When focused, the arrow keys and h, j, k, l move the cursor one cell;
// H, J, K, L move it eight. A map larger than the view scrolls so the cursor
// stays at least mapScrollMargin cells from the view's edges (less when the
// view is too small for that); the view only scrolls when the cursor pushes
// against the margin, so the picture stays still while the cursor moves
// inside it.
type MapView struct {
	*tview.Box

	world    *world.World
	units    []world.Unit
	ownSeat  uint8
	selected map[uint32]bool

	cursorX, cursorY int32
	offsetX, offsetY int32 // map cell drawn at the inner rectangle's top-left

	cursorMoved func(x, y int32)

	attacks []world.Attack
	marks   []MapMark
	box     *mapBox // the box selection being drawn, if any
	legend  bool    // draw the legend on the bottom border (legend.go)

	// Mouse: a left press starts a possible drag; its release is a click (same cell) or a box.
	dragFrom *[2]int32
	onClick  func(x, y int32, add bool)
	onBox    func(x0, y0, x1, y1 int32, add bool)
	onRight  func(x, y int32)
}

// MapMark is a cell to mark on the map, such as the destination of an order still pending.
type MapMark struct {
	X, Y   int32
	Letter rune
}

type mapBox struct{ x0, y0, x1, y1 int32 }

// NewMapView returns a view of w's map with no units and the cursor at the
// map's top-left cell.
func NewMapView(w *world.World) *MapView {
	return &MapView{Box: tview.NewBox(), world: w}
}

// SetUnits replaces the units to draw. ownSeat is the local player's seat; its
// units get their own colour. The slice is copied, so the caller may reuse it.
func (m *MapView) SetUnits(units []world.Unit, ownSeat uint8) *MapView {
	m.units = append(m.units[:0], units...)
	m.ownSeat = ownSeat
	return m
}

// SetLegend shows or hides the legend of the letters on the map's bottom border (legend.go).
func (m *MapView) SetLegend(on bool) *MapView {
	m.legend = on
	return m
}

// SetAttacks replaces the attacks in flight to draw (as '*' in their shooter's colour, under
// the units). The slice is copied.
func (m *MapView) SetAttacks(attacks []world.Attack) *MapView {
	m.attacks = append(m.attacks[:0], attacks...)
	return m
}

// SetMarks replaces the marked cells (drawn on empty ground only, so a mark never hides a unit).
func (m *MapView) SetMarks(marks []MapMark) *MapView {
	m.marks = append(m.marks[:0], marks...)
	return m
}

// SetBox shows a box selection from (x0, y0) to (x1, y1) (any two opposite corners); ClearBox
// hides it.
func (m *MapView) SetBox(x0, y0, x1, y1 int32) *MapView {
	m.box = &mapBox{min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)}
	return m
}

// ClearBox hides the box selection.
func (m *MapView) ClearBox() *MapView {
	m.box = nil
	return m
}

// UnitAt returns the unit drawn at map cell (x, y): a living one before a dead enemy.
func (m *MapView) UnitAt(x, y int32) (world.Unit, bool) {
	var found world.Unit
	ok := false
	for _, u := range m.units {
		if u.X == x && u.Y == y && (!ok || found.Dead) {
			found, ok = u, true
		}
	}
	return found, ok
}

// EnemyNear returns the living enemy nearest (x, y) within radius cells (the larger of the
// horizontal and vertical distance, as the game measures ranges): the nearest by that
// distance, then by the straight-line distance, then the lowest id, so that the same units
// always give the same answer.
func (m *MapView) EnemyNear(x, y, radius int32) (world.Unit, bool) {
	var best world.Unit
	bestCheb, bestSq, ok := int32(0), int64(0), false
	for _, u := range m.units { // ordered by id: a tie keeps the first
		if !u.IsEnemy() || u.Dead {
			continue
		}
		dx, dy := u.X-x, u.Y-y
		cheb := max(dx, -dx, dy, -dy)
		if cheb > radius {
			continue
		}
		sq := int64(dx)*int64(dx) + int64(dy)*int64(dy)
		if !ok || cheb < bestCheb || cheb == bestCheb && sq < bestSq {
			best, bestCheb, bestSq, ok = u, cheb, sq, true
		}
	}
	return best, ok
}

// Units returns the units as last set (do not modify).
func (m *MapView) Units() []world.Unit { return m.units }

// CellAt returns the map cell drawn at screen position (sx, sy), as of the last draw.
func (m *MapView) CellAt(sx, sy int) (x, y int32, ok bool) {
	ix, iy, width, height := m.GetInnerRect()
	dx, dy := sx-ix, sy-iy
	if dx < 0 || dy < 0 || dx >= width || dy >= height {
		return 0, 0, false
	}
	x, y = m.offsetX+int32(dx), m.offsetY+int32(dy)
	if x >= m.world.Width() || y >= m.world.Height() {
		return 0, 0, false
	}
	return x, y, true
}

// SetMouseFuncs sets what mouse gestures on the map do: click is a left click on a cell (add:
// with Shift or Ctrl held, to add to the selection), box a left drag from one cell to another,
// right a right click. Each also moves the cursor there.
func (m *MapView) SetMouseFuncs(click func(x, y int32, add bool), box func(x0, y0, x1, y1 int32, add bool), right func(x, y int32)) *MapView {
	m.onClick, m.onBox, m.onRight = click, box, right
	return m
}

// MouseHandler turns clicks and drags into the gestures set with SetMouseFuncs. A left press
// captures the mouse so the drag goes on outside the map's rectangle.
func (m *MapView) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return m.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
		sx, sy := event.Position()
		x, y, in := m.CellAt(sx, sy)
		add := event.Modifiers()&(tcell.ModShift|tcell.ModCtrl) != 0
		switch action {
		case tview.MouseLeftDown:
			if !in {
				return false, nil
			}
			setFocus(m)
			m.dragFrom = &[2]int32{x, y}
			m.SetCursor(x, y)
			return true, m
		case tview.MouseMove:
			if m.dragFrom == nil {
				return false, nil
			}
			if in && (x != m.dragFrom[0] || y != m.dragFrom[1]) {
				m.SetBox(m.dragFrom[0], m.dragFrom[1], x, y)
				m.SetCursor(x, y)
			}
			return true, m
		case tview.MouseLeftUp:
			if m.dragFrom == nil {
				return false, nil
			}
			from := *m.dragFrom
			m.dragFrom = nil
			m.ClearBox()
			if !in {
				return true, nil
			}
			if x == from[0] && y == from[1] {
				if m.onClick != nil {
					m.onClick(x, y, add)
				}
			} else if m.onBox != nil {
				m.onBox(from[0], from[1], x, y, add)
			}
			return true, nil
		case tview.MouseLeftClick:
			return in, nil // handled on the release
		case tview.MouseRightDown:
			// On the press, as RTS games do (and tview reports a second click soon after the
			// first as a double click, whichever button it was).
			if !in {
				return false, nil
			}
			setFocus(m)
			m.SetCursor(x, y)
			if m.onRight != nil {
				m.onRight(x, y)
			}
			return true, nil
		}
		return false, nil
	})
}

// SetSelected sets which unit ids are highlighted (the player's selection).
func (m *MapView) SetSelected(ids []uint32) *MapView {
	m.selected = make(map[uint32]bool, len(ids))
	for _, id := range ids {
		m.selected[id] = true
	}
	return m
}

// Selected returns the highlighted unit ids in ascending order.
func (m *MapView) Selected() []uint32 {
	ids := make([]uint32, 0, len(m.selected))
	for id := range m.selected {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Cursor returns the cursor's map cell.
func (m *MapView) Cursor() (x, y int32) { return m.cursorX, m.cursorY }

// SetCursor moves the cursor to (x, y), clamped to the map. The view scrolls
// to it on the next draw.
func (m *MapView) SetCursor(x, y int32) *MapView {
	x = min(max(x, 0), max(m.world.Width()-1, 0))
	y = min(max(y, 0), max(m.world.Height()-1, 0))
	if x == m.cursorX && y == m.cursorY {
		return m
	}
	m.cursorX, m.cursorY = x, y
	if m.cursorMoved != nil {
		m.cursorMoved(x, y)
	}
	return m
}

// SetCursorFunc sets the function called with the new cursor cell whenever
// the cursor moves.
func (m *MapView) SetCursorFunc(moved func(x, y int32)) *MapView {
	m.cursorMoved = moved
	return m
}

// Offset returns the map cell drawn at the view's top-left corner as of the
// last draw.
func (m *MapView) Offset() (x, y int32) { return m.offsetX, m.offsetY }

// scrollAxis returns the new offset along one axis: the old one, moved only as
// far as needed to keep the cursor margin cells inside a view of size cells,
// and kept within the map.
func scrollAxis(offset, cursor, view, mapSize int32) int32 {
	if view >= mapSize {
		return 0
	}
	margin := min(int32(mapScrollMargin), (view-1)/2)
	if cursor-offset < margin {
		offset = cursor - margin
	}
	if cursor-offset > view-1-margin {
		offset = cursor - (view - 1 - margin)
	}
	return min(max(offset, 0), mapSize-view)
}

// Draw draws the visible part of the map, then the units, then the cursor.
func (m *MapView) Draw(screen tcell.Screen) {
	drawFrame(screen, m.Box, m)
	x, y, width, height := m.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	mw, mh := m.world.Width(), m.world.Height()
	m.offsetX = scrollAxis(m.offsetX, m.cursorX, int32(width), mw)
	m.offsetY = scrollAxis(m.offsetY, m.cursorY, int32(height), mh)
	viewW, viewH := min(int32(width), mw), min(int32(height), mh)

	// toScreen maps a cell to screen coordinates, if it is in view.
	toScreen := func(cx, cy int32) (int, int, bool) {
		dx, dy := cx-m.offsetX, cy-m.offsetY
		if dx < 0 || dy < 0 || dx >= viewW || dy >= viewH {
			return 0, 0, false
		}
		return x + int(dx), y + int(dy), true
	}

	for dy := range viewH {
		for dx := range viewW {
			t := m.world.Terrain(m.offsetX+dx, m.offsetY+dy)
			style := styleGround
			switch t {
			case world.Wall:
				style = styleWall
			case world.Water:
				style = styleWater
			}
			screen.Put(x+int(dx), y+int(dy), cellText(rune(t)), style)
		}
	}

	if b := m.box; b != nil {
		for cy := b.y0; cy <= b.y1; cy++ {
			for cx := b.x0; cx <= b.x1; cx++ {
				if sx, sy, ok := toScreen(cx, cy); ok {
					r, st, _ := screen.Get(sx, sy)
					_, bg, _ := styleBox.Decompose()
					screen.Put(sx, sy, r, st.Background(bg))
				}
			}
		}
	}
	for _, mk := range m.marks {
		if m.world.Terrain(mk.X, mk.Y) != world.Ground {
			continue
		}
		if sx, sy, ok := toScreen(mk.X, mk.Y); ok {
			_, st, _ := screen.Get(sx, sy)
			_, bg, _ := st.Decompose()
			screen.Put(sx, sy, cellText(mk.Letter), styleMark.Background(bg))
		}
	}
	// Attacks in flight, under the units: an arrow over its target's cell should not hide the
	// target's letter.
	for _, a := range m.attacks {
		sx, sy, ok := toScreen(a.X/world.CellSize, a.Y/world.CellSize)
		if !ok {
			continue
		}
		style := styleAllyUnit
		switch {
		case a.Owner == world.EnemyOwner:
			style = styleEnemy
		case a.Owner == m.ownSeat:
			style = styleOwnUnit
		}
		_, st, _ := screen.Get(sx, sy)
		_, bg, _ := st.Decompose()
		screen.Put(sx, sy, "*", style.Bold(false).Background(bg))
	}

	// Dead enemies first, so a living unit that shares their cell is drawn
	// over them.
	for _, dead := range []bool{true, false} {
		for i := range m.units {
			u := &m.units[i]
			if u.Dead != dead {
				continue
			}
			sx, sy, ok := toScreen(u.X, u.Y)
			if !ok {
				continue
			}
			letter := '?'
			if k, ok := world.KindOf(u.Kind); ok {
				letter = rune(k.Letter)
			}
			style := styleAllyUnit
			switch {
			case u.IsEnemy() && u.Dead:
				style = styleDeadEnemy
			case u.IsEnemy():
				style = styleEnemy
			case u.Owner == m.ownSeat:
				style = styleOwnUnit
			}
			if m.selected[u.ID] {
				_, bg, _ := styleSelected.Decompose()
				style = style.Background(bg).Underline(true)
			}
			screen.Put(sx, sy, cellText(letter), style)
		}
	}

	if sx, sy, ok := toScreen(m.cursorX, m.cursorY); ok {
		r, style, _ := screen.Get(sx, sy)
		if m.HasFocus() {
			style = style.Reverse(true)
		} else {
			style = style.Underline(true)
		}
		screen.Put(sx, sy, r, style)
	}
	if bx, by, bw, bh := m.GetRect(); m.legend && by+bh > y+height {
		drawLegend(screen, bx, by, bw, bh, m.ownSeat < world.MaxPlayers)
	}
}

// InputHandler moves the cursor.
func (m *MapView) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return m.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		var dx, dy int32
		switch event.Key() {
		case tcell.KeyLeft:
			dx = -1
		case tcell.KeyRight:
			dx = 1
		case tcell.KeyUp:
			dy = -1
		case tcell.KeyDown:
			dy = 1
		case tcell.KeyRune:
			switch event.Rune() {
			case 'h':
				dx = -1
			case 'l':
				dx = 1
			case 'k':
				dy = -1
			case 'j':
				dy = 1
			case 'H':
				dx = -8
			case 'L':
				dx = 8
			case 'K':
				dy = -8
			case 'J':
				dy = 8
			}
		}
		if dx != 0 || dy != 0 {
			m.SetCursor(m.cursorX+dx, m.cursorY+dy)
		}
	})
}

// asciiCells holds a one-character string for every ASCII rune, so that drawing a map cell
// does not build a new string each time (the map redraws every cell ten times a second).
var asciiCells = func() (t [128]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

// cellText is the string of one cell's rune.
func cellText(r rune) string {
	if r >= 0 && r < 128 {
		return asciiCells[r]
	}
	return string(r)
}
