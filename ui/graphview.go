package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/net/depgraph"
)

// GraphView draws the messages that wait on a dependency, one line each:
//
//	receiver
//	#812 waits for #811 #809   (0.4 s)
//	#811 (not arrived)   (0.6 s)
//	sender
//	#905 unacked, waits for #904   (0.1 s)
//	#904 unacked   (0.2 s)
//
// A message that depends on another may not run before it, so one lost packet
// holds back everything that depends on what it carried. This view makes that
// visible: a student sees which message blocks which, how long each has been
// held, and on the receiver which dependencies are only known by name because
// the message itself has not arrived ("(not arrived)"). The sender's half
// shows its messages not yet acknowledged or still waiting themselves.
//
// When there are more lines than rows, the last row says how many were left
// out.
type GraphView struct {
	*tview.Box
	receiver, sender []depgraph.Waiting
	names            WaitNames
	pruned           uint64
	unacked          []string
	now              time.Time
}

// WaitNames name the waiting messages by sequence number, one map per side (the message
// layer does not know what a message is; the game does). A message without a name shows
// only its sequence number.
type WaitNames struct {
	Receiver, Sender map[uint16]string
}

// SetNames sets the names drawn after each sequence number ("#7 Chat").
func (g *GraphView) SetNames(n WaitNames) *GraphView {
	g.names = n
	return g
}

// SetUnacked sets the lines describing the sender's messages still unacknowledged (those with
// no dependency in either direction are not in its graph, but are what a lossy link delays).
func (g *GraphView) SetUnacked(lines []string) *GraphView {
	g.unacked = append(g.unacked[:0], lines...)
	return g
}

// SetPruned sets how many dependencies the sender has left off the wire because its local
// graph had already executed them (acknowledged, and their own dependencies done): the
// savings that make a dependency cost nothing in steady state.
func (g *GraphView) SetPruned(n uint64) *GraphView {
	g.pruned = n
	return g
}

// NewGraphView returns an empty view.
func NewGraphView() *GraphView {
	return &GraphView{Box: tview.NewBox()}
}

// SetWaiting replaces what the view draws: the receiver's and the sender's
// unexecuted messages (as returned by their Waiting methods) and the time the
// ages are measured against. The slices are copied.
func (g *GraphView) SetWaiting(receiver, sender []depgraph.Waiting, now time.Time) *GraphView {
	g.receiver = cloneWaiting(receiver)
	g.sender = cloneWaiting(sender)
	g.now = now
	return g
}

// Lines returns the text the view draws, one entry per line, before cutting
// to the view's size.
func (g *GraphView) Lines() []string {
	lines := []string{"receiver"}
	if len(g.receiver) == 0 {
		lines = append(lines, "  nothing waiting")
	}
	for _, w := range g.receiver {
		lines = append(lines, waitingLine(w, g.names.Receiver, g.now, false))
	}
	lines = append(lines, "sender")
	if len(g.sender) == 0 {
		lines = append(lines, "  nothing waiting")
	}
	for _, w := range g.sender {
		lines = append(lines, waitingLine(w, g.names.Sender, g.now, true))
	}
	if g.pruned > 0 {
		lines = append(lines, fmt.Sprintf("  %d dependencies pruned (already acked, never sent)", g.pruned))
	}
	if len(g.unacked) > 0 {
		lines = append(lines, fmt.Sprintf("unacked (%d), no dependency either way", len(g.unacked)))
		lines = append(lines, g.unacked...)
	}
	return lines
}

// waitingLine describes one message. On the sender, Arrived means that the
// peer acknowledged it.
func waitingLine(w depgraph.Waiting, names map[uint16]string, now time.Time, sender bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d", w.Seq)
	if name := names[w.Seq]; name != "" {
		b.WriteString(" " + name)
	}
	var status string
	switch {
	case w.Placeholder:
		status = "(not arrived)"
	case sender && w.Arrived:
		status = "acked"
	case sender:
		status = "unacked"
	case !w.Arrived:
		status = "(not arrived)"
	}
	if status != "" {
		b.WriteString(" " + status)
	}
	if len(w.WaitsFor) > 0 {
		if status != "" && status[0] != '(' {
			b.WriteByte(',')
		}
		b.WriteString(" waits for")
		for _, dep := range w.WaitsFor {
			fmt.Fprintf(&b, " #%d", dep)
		}
	}
	fmt.Fprintf(&b, "   (%s)", age(now.Sub(w.Since)))
	return b.String()
}

// age formats how long a message has waited in seconds with one decimal.
func age(d time.Duration) string {
	return fmt.Sprintf("%.1f s", max(d, 0).Seconds())
}

// Draw draws the lines into the inner rectangle, cut at its width.
func (g *GraphView) Draw(screen tcell.Screen) {
	drawFrame(screen, g.Box, g)
	x, y, width, height := g.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(g.GetBackgroundColor())
	heading := base.Foreground(tview.Styles.SecondaryTextColor)
	lines := g.Lines()
	if len(lines) > height {
		more := len(lines) - height + 1
		lines = append(lines[:height-1], fmt.Sprintf("... %d more", more))
	}
	for i, line := range lines {
		style := base
		if line == "receiver" || line == "sender" || strings.HasPrefix(line, "unacked (") {
			style = heading
		}
		printRunes(screen, x, y+i, width, line, style)
	}
}

// DOT returns the waiting messages as a Graphviz digraph: a node per message,
// an edge from each message to every dependency it waits for. The receiver's
// and the sender's messages are numbered independently, so each side is its
// own cluster and its node IDs carry an "r" or "s" prefix. Nodes and edges are
// sorted by sequence number, so the same state always gives the same text.
// Render it with, for example, dot -Tsvg.
func DOT(receiver, sender []depgraph.Waiting) string {
	return NamedDOT(receiver, sender, WaitNames{})
}

// NamedDOT is DOT with each node's name (its message type) under its sequence number.
func NamedDOT(receiver, sender []depgraph.Waiting, names WaitNames) string {
	var b strings.Builder
	b.WriteString("digraph waits {\n\trankdir=LR;\n\tnode [shape=box];\n")
	dotCluster(&b, "receiver", "r", receiver, names.Receiver, false)
	dotCluster(&b, "sender", "s", sender, names.Sender, true)
	b.WriteString("}\n")
	return b.String()
}

func dotCluster(b *strings.Builder, name, prefix string, ws []depgraph.Waiting, names map[uint16]string, sender bool) {
	ws = cloneWaiting(ws)
	slices.SortStableFunc(ws, func(a, b depgraph.Waiting) int { return cmp.Compare(a.Seq, b.Seq) })
	fmt.Fprintf(b, "\tsubgraph cluster_%s {\n\t\tlabel=%q;\n", name, name)
	for _, w := range ws {
		label := fmt.Sprintf("#%d", w.Seq)
		if n := names[w.Seq]; n != "" {
			label += `\n` + n
		}
		attrs := ""
		switch {
		case w.Placeholder || (!sender && !w.Arrived):
			label += `\n(not arrived)`
			attrs = ", style=dashed"
		case sender && !w.Arrived:
			label += `\nunacked`
		}
		fmt.Fprintf(b, "\t\t%s%d [label=\"%s\"%s];\n", prefix, w.Seq, label, attrs)
	}
	type edge struct{ from, to uint16 }
	var edges []edge
	for _, w := range ws {
		for _, dep := range w.WaitsFor {
			edges = append(edges, edge{w.Seq, dep})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	})
	edges = slices.Compact(edges)
	for _, e := range edges {
		fmt.Fprintf(b, "\t\t%s%d -> %s%d;\n", prefix, e.from, prefix, e.to)
	}
	b.WriteString("\t}\n")
}

// cloneWaiting copies ws deeply enough that the caller may reuse its buffers.
func cloneWaiting(ws []depgraph.Waiting) []depgraph.Waiting {
	out := make([]depgraph.Waiting, len(ws))
	for i, w := range ws {
		w.WaitsFor = slices.Clone(w.WaitsFor)
		out[i] = w
	}
	return out
}
