package ui

import (
	"strings"

	"github.com/rivo/tview"
)

// The player table's columns at any width: each as wide as its widest cell while the table
// fits; where it does not, the columns are cut down, then left out, in a fixed order, so that a
// column is never cut off on the right without a sign. From 80 columns on, with the sliders
// moved above the event log (narrow), a class's eight seats show every column.

// The player table's columns.
const (
	colSeat = iota
	colName
	colState
	colRTT
	colLoss
	colHash
	colLead
	colAddr
	tableColumns
)

// playerColumns are the columns' headers, and the narrowest each is cut down to (with "…").
var playerColumns = [tableColumns]struct {
	head string
	min  int
}{
	colSeat:  {"seat", 4},
	colName:  {"name", 6},
	colState: {"state", 8},
	colRTT:   {"rtt", 6},
	colLoss:  {"loss", 5},
	colHash:  {"last hash", 12},
	colLead:  {"lead", 6},
	colAddr:  {"address", 21},
}

// fitSteps are what makes a table that is too wide narrower, in order, until it fits: the
// texts that run long first (a repair, then a spectator's or a leave's reason) said in fewer
// words, then cut; then the names, then the addresses, cut.
var fitSteps = []struct {
	col   int
	short func(string) string // nil: cut the column down to its min
}{
	{colHash, shortHash}, {colHash, nil}, {colState, shortState}, {colState, nil}, {colName, nil}, {colAddr, nil},
}

// dropOrder is the order in which the columns go when cutting was not enough, the least read
// first: the lead (the same for everybody, and on the status line), the hash, the loss and the
// round trip, the address (also in the debug panel's title), the state. The seat and the name
// always stay.
var dropOrder = []int{colLead, colHash, colLoss, colRTT, colAddr, colState}

// tableWidth is the player table's width inside its border.
func (s *ServerScreen) tableWidth() int {
	w := s.width
	if !s.narrow() {
		w -= s.sideWidth()
	}
	return max(w-2, 0)
}

// cellWidth is how many cells text takes on the screen.
func cellWidth(text string) int { return tview.TaggedStringWidth(tview.Escape(text)) }

// fitColumns sizes the table's columns (rows[0] the headers) to width cells, a space between
// two, saying some cells in fewer words (fitSteps): the width of each column, 0 for one left
// out.
func fitColumns(rows [][tableColumns]string, width int) [tableColumns]int {
	var w [tableColumns]int
	measure := func(c int) {
		w[c] = 0
		for _, r := range rows {
			w[c] = max(w[c], cellWidth(r[c]))
		}
	}
	for c := range tableColumns {
		measure(c)
	}
	total := func() int {
		t, n := 0, 0
		for _, cw := range w {
			if cw > 0 {
				t, n = t+cw, n+1
			}
		}
		return t + max(n-1, 0)
	}
	var cut []int // the columns cut, in order
	for _, st := range fitSteps {
		over := total() - width
		switch {
		case over <= 0:
		case st.short != nil:
			for i := 1; i < len(rows); i++ {
				rows[i][st.col] = st.short(rows[i][st.col])
			}
			measure(st.col)
		default:
			w[st.col] = max(min(playerColumns[st.col].min, w[st.col]), w[st.col]-over)
			cut = append(cut, st.col)
		}
	}
	for _, c := range dropOrder {
		if total() > width {
			w[c] = 0
		}
	}
	// A later step may have made more room than it needed: the columns cut (and still shown)
	// get it back, the last cut first.
	for i := len(cut) - 1; i >= 0; i-- {
		if room := width - total(); room > 0 && w[cut[i]] > 0 {
			c, cw := cut[i], w[cut[i]]
			measure(c)
			w[c] = min(w[c], cw+room)
		}
	}
	return w
}

// cutLeft cuts an address on the left to width cells, "…" first: the port and the end of the
// address stay, which tell two students on one network apart.
func cutLeft(text string, width int) string {
	if cellWidth(text) <= width || width <= 0 {
		return text
	}
	r := []rune(text)
	for len(r) > 0 && cellWidth(string(r))+1 > width {
		r = r[1:]
	}
	return "…" + string(r)
}

// shortState is a state in fewer words, for a narrow column: a spectator's reason left to its
// row's label, a leave's reason to the event log.
func shortState(state string) string {
	if i := strings.Index(state, " ("); i > 0 && strings.HasPrefix(state, "watching") {
		return state[:i]
	}
	if strings.HasPrefix(state, "disconnected: ") {
		return "disconnected"
	}
	return state
}

// shortHash is a hash result in fewer words: "ok 410", "real-time re-sync 405".
func shortHash(hash string) string { return strings.Replace(hash, " at frame ", " ", 1) }
