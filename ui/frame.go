package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// The screens draw on the terminal's own background: every widget is created with it, and the
// application clears the whole screen to it before each frame. A widget's box would then fill
// its rectangle with blanks the clear has just written; on a 200×60 screen those fills were
// more than half of a frame's cost. drawFrame draws a widget's border and title without them.
func init() {
	tview.Styles.PrimitiveBackgroundColor = tcell.ColorDefault
}

// drawFrame draws box's border and title for p, skipping the background fill (see above). Use
// it only for widgets that are drawn on a freshly cleared area (not for an overlay, which must
// blank what lies under it).
func drawFrame(screen tcell.Screen, box *tview.Box, p tview.Primitive) {
	box.DrawForSubclass(blankless{screen}, p)
}

// blankless is a screen that ignores writes of a plain blank in the default style: exactly the
// fill of a box whose background is the terminal's.
type blankless struct{ tcell.Screen }

func (s blankless) SetContent(x, y int, primary rune, combining []rune, style tcell.Style) {
	if primary == ' ' && len(combining) == 0 && style == tcell.StyleDefault {
		return
	}
	s.Screen.SetContent(x, y, primary, combining, style)
}

// layeredPages is the screens' root: tview's Pages, drawn without filling the screen first
// (its pages cover it, and the application has cleared it).
type layeredPages struct {
	*tview.Pages
	pages []tview.Primitive // in drawing order
	shown func(i int) bool
}

// Draw draws the visible pages, bottom first, each over the whole area.
func (p *layeredPages) Draw(screen tcell.Screen) {
	x, y, width, height := p.GetInnerRect()
	for i, page := range p.pages {
		if p.shown(i) {
			page.SetRect(x, y, width, height)
			page.Draw(screen)
		}
	}
}
