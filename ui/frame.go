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

// drawFrame draws box's border and title for p, as tview's Box does, but without filling the
// rectangle first (see above). Use it only for widgets drawn on a freshly cleared area (not for
// an overlay, which must blank what lies under it), with the title centred in the default
// colour and no padding, as every widget here has.
func drawFrame(screen tcell.Screen, box *tview.Box, p tview.Primitive) {
	x, y, width, height := box.GetRect()
	ix, iy, _, _ := box.GetInnerRect()
	if width < 2 || height < 2 || ix == x || iy == y {
		return // no border (the inner rectangle is the whole box)
	}
	b := tview.Borders
	h, v, tl, tr, bl, br := b.Horizontal, b.Vertical, b.TopLeft, b.TopRight, b.BottomLeft, b.BottomRight
	if p.HasFocus() {
		h, v, tl, tr, bl, br = b.HorizontalFocus, b.VerticalFocus, b.TopLeftFocus, b.TopRightFocus, b.BottomLeftFocus, b.BottomRightFocus
	}
	style := tcell.StyleDefault.Foreground(box.GetBorderColor()).Background(box.GetBackgroundColor()).
		Attributes(box.GetBorderAttributes())
	hs, vs := string(h), string(v)
	for cx := x + 1; cx < x+width-1; cx++ {
		screen.Put(cx, y, hs, style)
		screen.Put(cx, y+height-1, hs, style)
	}
	for cy := y + 1; cy < y+height-1; cy++ {
		screen.Put(x, cy, vs, style)
		screen.Put(x+width-1, cy, vs, style)
	}
	screen.Put(x, y, string(tl), style)
	screen.Put(x+width-1, y, string(tr), style)
	screen.Put(x, y+height-1, string(bl), style)
	screen.Put(x+width-1, y+height-1, string(br), style)
	if title := box.GetTitle(); title != "" && width >= 4 {
		align := tview.AlignCenter
		if tview.TaggedStringWidth(title) > width-2 {
			align = tview.AlignLeft // too long: keep its start, where it says what the box is
		}
		printed, _ := tview.Print(screen, title, x+1, y, width-2, align, tview.Styles.TitleColor)
		if len(title)-printed > 0 && printed > 0 {
			tview.Print(screen, string(tview.SemigraphicsHorizontalEllipsis), x+width-2, y, 1, tview.AlignLeft, tview.Styles.TitleColor)
		}
	}
}

// layeredPages is the screens' root: tview's Pages, drawn without filling the screen first
// (its pages cover it, and the application has cleared it).
type layeredPages struct {
	*tview.Pages
	pages []tview.Primitive // in drawing order
	shown func(i int) bool
}

// Draw draws the visible pages, bottom first: the main page over the whole area, the ones
// above it over all but the last row, so an overlay never hides the status line (the state
// of the game must stay in sight).
func (p *layeredPages) Draw(screen tcell.Screen) {
	x, y, width, height := p.GetInnerRect()
	for i, page := range p.pages {
		if !p.shown(i) {
			continue
		}
		if i == 0 {
			page.SetRect(x, y, width, height)
		} else {
			page.SetRect(x, y, width, max(height-1, 0))
		}
		page.Draw(screen)
	}
}
