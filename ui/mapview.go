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
}

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
	m.DrawForSubclass(screen, m)
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
			screen.SetContent(x+int(dx), y+int(dy), rune(t), nil, style)
		}
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
			screen.SetContent(sx, sy, letter, nil, style)
		}
	}

	if sx, sy, ok := toScreen(m.cursorX, m.cursorY); ok {
		r, _, style, _ := screen.GetContent(sx, sy)
		if m.HasFocus() {
			style = style.Reverse(true)
		} else {
			style = style.Underline(true)
		}
		screen.SetContent(sx, sy, r, nil, style)
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
