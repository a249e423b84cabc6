package ui

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// TestNewWidgetsAnySize draws every debug and lab widget, full of data, at
// sizes from 0x0 up (every size where a border and one row or column make
// the difference, a few beyond), with and without a border, in the middle of
// a larger screen: none may panic, and none may draw outside its rectangle.
func TestNewWidgetsAnySize(t *testing.T) {
	widgets := []struct {
		name string
		make func() tview.Primitive
	}{
		{"MismatchView", func() tview.Primitive { return NewMismatchView().SetRecords(sampleRecords(), syncNow) }},
		{"PauseView", func() tview.Primitive { return NewPauseView().SetPauses(samplePauses(), syncNow) }},
		{"DebugPanel graph", func() tview.Primitive { return NewDebugPanel().SetData(sampleDebugData()) }},
		{"DebugPanel acks", func() tview.Primitive { return NewDebugPanel().SetData(sampleDebugData()).SetView(DebugAcks) }},
		{"DebugPanel hashes", func() tview.Primitive { return NewDebugPanel().SetData(sampleDebugData()).SetView(DebugHashes) }},
		{"DebugPanel pauses", func() tview.Primitive { return NewDebugPanel().SetData(sampleDebugData()).SetView(DebugPauses) }},
		{"LinkPanel", func() tview.Primitive { return NewLinkPanel().SetTitleLine("link") }},
		{"HelpOverlay", func() tview.Primitive { return NewHelpOverlay("keys", ClientKeys) }},
	}
	const screenW, screenH, x0, y0 = 40, 30, 5, 3
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	defer screen.Fini()
	screen.SetSize(screenW, screenH)
	for _, w := range widgets {
		for _, border := range []bool{false, true} {
			for _, width := range []int{0, 1, 2, 3, 4, 5, 6, 8, 12, 20, 30} {
				for _, height := range []int{0, 1, 2, 3, 4, 5, 6, 8, 12} {
					p := w.make()
					if b, ok := p.(interface{ SetBorder(bool) *tview.Box }); ok {
						b.SetBorder(border)
					}
					screen.Clear()
					p.SetRect(x0, y0, width, height)
					p.Draw(screen)
					screen.Show()
					cells, sw, _ := screen.GetContents()
					blank := cells[0] // (0, 0) is outside every rectangle tried
					for i, c := range cells {
						x, y := i%sw, i/sw
						inside := x >= x0 && x < x0+width && y >= y0 && y < y0+height
						if !inside && (string(c.Runes) != string(blank.Runes) || c.Style != blank.Style) {
							t.Fatalf("%s (border %v) at %dx%d drew %q at (%d, %d), outside its rectangle at (%d, %d)",
								w.name, border, width, height, c.Runes[0], x, y, x0, y0)
						}
					}
				}
			}
		}
	}
}
