package ui

import (
	"strings"

	"github.com/rivo/tview"
)

// fitHints joins hints (text with tview's colour tags, the most important first) with sep
// into a line of at most width cells. A hint that does not fit is left out whole, never cut
// mid-word, and a shorter one after it may still fit ("? help" at the end of a long line).
// The first hint is kept even when it alone is wider than the line (the view then cuts it):
// the line says what matters most rather than nothing. width <= 0: no limit.
func fitHints(hints []string, sep string, width int) string {
	if width <= 0 {
		return strings.Join(hints, sep)
	}
	sepWidth := tview.TaggedStringWidth(sep)
	var kept []string
	used := 0
	for i, h := range hints {
		w := tview.TaggedStringWidth(h)
		if len(kept) > 0 {
			w += sepWidth
		}
		if i > 0 && used+w > width {
			continue
		}
		kept = append(kept, h)
		used += w
	}
	return strings.Join(kept, sep)
}
