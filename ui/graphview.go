package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/net/message"
)

// GraphView draws a connection's latest guaranteed messages as a dependency graph, the sent
// ones on the left and the received ones on the right:
//
//	sent · 12 deps pruned          │received
//	╭▶#40 Chat    executed         │╭▶#302 SpawnEnemy not arrived
//	┆ #41 Command in flight        ││ #303 Command    executed
//	╰┄#42 Chat    acked            │╰─#304 KillEnemy  waits on #302
//	FROZEN +0.120 s  .: step  f: live
//	in #304 KillEnemy: arrived
//
// Each row is a message: its sequence number, its type (the game names it from the first
// byte of its payload, which the message layer keeps without knowing what it means) and its
// state at the moment shown. A sent message is queued, in flight (resent, if it had to be),
// acked, and executed once the sender's own copy of the graph has run it, which means the
// receiver has; a received one waits on the dependencies that have not executed, and says
// how long it waited once it ran. A dependency that has not arrived gets a row of its own.
// The lines on the left are the edges, from a message to the dependency it names (the arrow
// points at the dependency): red while the dependency has not executed, dotted when the
// sender pruned it, that is, left it off the wire because its local graph had executed it
// already. An edge to a message outside the rows is written after the state instead.
//
// The view updates with every snapshot. Freeze (f) stops it at the latest step, so a class
// can read it; Step (.) then moves it to the next step one message took (queued, sent,
// acked, arrived, executed), with the messages' states as they were at that moment (every
// record carries the time of each step), and the last row says what happened. Snapshots go
// on being collected while frozen, so there is something to step into: the frozen view keeps
// the moment it froze and takes in the next graphAhead messages of each direction (a few
// seconds of a class's game), however long the game has run; the footer counts the newer
// ones it had no room for. f again goes live, and f once more freezes at the latest.
//
// When there are more messages than rows, the latest are shown, and Scroll (the arrow keys
// on a focused panel) moves back to earlier ones; DOT writes all of them.
type GraphView struct {
	*tview.Box
	hist   graphHistory
	name   func(first int16) string
	pruned uint64

	scroll   int // rows scrolled back from the latest messages (Scroll)
	maxBack  int // how far back Scroll can go: the rows hidden at the last draw
	frozen   bool
	at       moment    // the moment shown while frozen
	frozenAt time.Time // the moment of the freeze, for the "+0.120 s" of the steps
	stepped  string    // what happened at the moment shown
	stepKey  rune      // the key that steps it, for the footer ('.' unless a screen says)
}

// graphMinColumn is the narrowest column for one direction; a view narrower than two of
// them puts the received messages under the sent ones.
const graphMinColumn = 32

// graphMaxLanes is how many edges may run side by side; the others are written as text.
const graphMaxLanes = 4

// NewGraphView returns an empty view whose nodes are named by their first payload byte.
func NewGraphView() *GraphView {
	return &GraphView{Box: tview.NewBox(), stepKey: '.', name: func(first int16) string {
		if first < 0 {
			return ""
		}
		return fmt.Sprintf("0x%02x", first)
	}}
}

// SetStepKey sets the key the footer names for Step, for a screen whose '.' does something
// else (a replay's steps a datagram).
func (g *GraphView) SetStepKey(key rune) *GraphView {
	g.stepKey = key
	return g
}

// SetNamer sets how a message is named from the first byte of its payload (-1: empty), such
// as a game's message type; "" leaves the node with its sequence number only.
func (g *GraphView) SetNamer(name func(first int16) string) *GraphView {
	g.name = name
	return g
}

// SetHistory merges a snapshot of the connection named source (another source starts the
// graph again): its message history (nil: no debug views) and how many dependencies the
// sender has pruned so far. The snapshot is only read, and may be kept (snapshots are never
// changed once published).
func (g *GraphView) SetHistory(source string, d *message.Debug, pruned uint64) *GraphView {
	if source != g.hist.source {
		g.frozen, g.stepped = false, ""
	}
	g.hist.merge(source, d, g.frozen)
	if !g.frozen {
		g.pruned = pruned // a frozen view keeps the count of its moment
	}
	return g
}

// Frozen reports whether the view is frozen.
func (g *GraphView) Frozen() bool { return g.frozen }

// Freeze stops the view at the latest step it knows (on), or makes it live again.
func (g *GraphView) Freeze(on bool) {
	g.frozen, g.stepped, g.hist.held, g.hist.heldTop = on, "", 0, [2]uint64{}
	if on {
		g.at = g.hist.latest()
		g.frozenAt = g.at.t
	}
}

// Step moves a frozen view to the next step a message took and returns what happened then;
// a live view is frozen first. It returns "" when nothing happened after the moment shown
// (yet: the view keeps collecting snapshots while frozen).
func (g *GraphView) Step() string {
	if !g.frozen {
		g.Freeze(true)
	}
	next, ok := g.hist.next(g.at)
	if !ok {
		return ""
	}
	if g.at.t.IsZero() {
		g.frozenAt = next.t // frozen before anything happened: count from the first step
	}
	g.at = next
	g.stepped = g.hist.events(next, g.name)
	return g.stepped
}

// Scroll moves the rows shown delta messages back (towards older ones; negative: forward),
// between the latest ones and the first of the graph. The view keeps the same distance from
// the latest messages as new ones come.
func (g *GraphView) Scroll(delta int) {
	g.scroll = min(max(g.scroll+delta, 0), g.maxBack)
}

// moment is the moment the view shows.
func (g *GraphView) moment() moment {
	if g.frozen {
		return g.at
	}
	return liveMoment
}

// graphs returns both directions' graphs at the moment shown.
func (g *GraphView) graphs() (out, in []graphNode) {
	m := g.moment()
	return graphAt(g.hist.out, true, m, g.name), graphAt(g.hist.in, false, m, g.name)
}

// DOT returns the graph shown, every message of it, in Graphviz form (see graphDOT); title
// says which link it is (a comment in the file).
func (g *GraphView) DOT(title string) string {
	out, in := g.graphs()
	if g.frozen {
		title = strings.TrimSpace(title + fmt.Sprintf(" (frozen, %s)", g.since()))
	}
	return graphDOT(title, out, in)
}

// since is how far the moment shown is from the moment of the freeze.
func (g *GraphView) since() string {
	return fmt.Sprintf("+%.3f s", max(g.at.t.Sub(g.frozenAt), 0).Seconds())
}

// Draw draws both directions and the footer.
func (g *GraphView) Draw(screen tcell.Screen) {
	drawFrame(screen, g.Box, g)
	x, y, width, height := g.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(g.GetBackgroundColor())
	footer := g.footer(width)
	if len(footer) >= height {
		footer = footer[:max(height-1, 0)]
	}
	for i, f := range footer {
		style := base.Foreground(ageColor)
		if g.frozen {
			style = base.Foreground(tcell.ColorYellow)
		}
		printRunes(screen, x, y+height-len(footer)+i, width, f, style)
	}
	height -= len(footer)
	if height <= 0 {
		return
	}
	out, in := g.graphs()
	g.maxBack = 0
	sent := "sent"
	if g.pruned > 0 {
		sent += fmt.Sprintf(" · %d deps pruned", g.pruned)
	}
	if g.hist.none {
		printRunes(screen, x, y, width, "no message history (the debug views keep none)", base)
		return
	}
	if width >= 2*graphMinColumn+1 {
		left := (width - 1) / 2
		g.drawSide(screen, base, x, y, left, height, sent, out)
		for row := range height {
			screen.SetContent(x+left, y+row, '│', nil, base.Foreground(tview.Styles.BorderColor))
		}
		g.drawSide(screen, base, x+left+1, y, width-left-1, height, "received", in)
		return
	}
	top := height / 2
	g.drawSide(screen, base, x, y, width, top, sent, out)
	g.drawSide(screen, base, x, y+top, width, height-top, "received", in)
}

// footer is the last rows: how to freeze, or the frozen moment and what happened then,
// wrapped between messages to width, in at most graphStepRows rows.
func (g *GraphView) footer(width int) []string {
	if !g.frozen {
		return []string{fmt.Sprintf("live  f: freeze  %c: step   ─▶ depends on  ┄ pruned (left off the wire)", g.stepKey)}
	}
	lines := []string{fmt.Sprintf("FROZEN %s  %c: step  f: live", g.since(), g.stepKey)}
	if g.hist.held > 0 {
		lines[0] += fmt.Sprintf("  (%d newer messages not kept)", g.hist.held)
	}
	line := ""
	for _, part := range strings.Split(g.stepped, "; ") {
		switch {
		case part == "":
		case line == "":
			line = part
		case len([]rune(line))+2+len([]rune(part)) <= width:
			line += "; " + part
		default:
			lines = append(lines, line+";")
			line = part
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines[:min(len(lines), 1+graphStepRows)]
}

// graphStepRows bounds the rows that say what happened at a step.
const graphStepRows = 3

// laneEdge is an edge drawn in a lane between two rows.
type laneEdge struct {
	from, to int // rows of the dependent message and of its dependency
	lane     int
	pruned   bool
	done     bool
}

func (e laneEdge) span() (top, bottom int) { return min(e.from, e.to), max(e.from, e.to) }

// assignLanes gives each edge a lane, the shortest edges nearest the text, no two edges of a
// lane sharing more than an end row; edges beyond graphMaxLanes get lane -1 (not drawn). It
// returns the number of lanes used.
func assignLanes(edges []laneEdge) int {
	order := make([]int, len(edges))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ta, ba := edges[a].span()
		tb, bb := edges[b].span()
		if d := (ba - ta) - (bb - tb); d != 0 {
			return d
		}
		return ta - tb
	})
	var lanes [graphMaxLanes][][2]int
	used := 0
	for _, i := range order {
		top, bottom := edges[i].span()
		edges[i].lane = -1
		for l := range lanes {
			free := true
			for _, iv := range lanes[l] {
				// Edges may meet at a row (a chain: ├ joins them), not share rows.
				if top < iv[1] && iv[0] < bottom {
					free = false
					break
				}
			}
			if free {
				lanes[l] = append(lanes[l], [2]int{top, bottom})
				edges[i].lane = l
				used = max(used, l+1)
				break
			}
		}
	}
	return used
}

// drawSide draws one direction in the rectangle: its title, then the latest nodes that fit,
// with their edges in lanes on the left.
func (g *GraphView) drawSide(screen tcell.Screen, base tcell.Style, x, y, width, height int, title string, nodes []graphNode) {
	if height <= 0 || width <= 0 {
		return
	}
	rows := max(height-1, 0)
	shown := nodes
	if len(shown) > rows {
		// The latest rows, or earlier ones as far as the view was scrolled back.
		g.maxBack = max(g.maxBack, len(nodes)-rows)
		back := min(g.scroll, len(nodes)-rows)
		shown = shown[len(nodes)-rows-back : len(nodes)-back]
		title += fmt.Sprintf(" (%d of %d", rows, len(nodes))
		if back > 0 {
			title += fmt.Sprintf(", %d newer below", back)
		}
		title += ")"
	}
	printRunes(screen, x, y, width, title, base.Foreground(tview.Styles.SecondaryTextColor))
	if len(shown) == 0 {
		if rows > 0 && len(nodes) == 0 {
			printRunes(screen, x, y+1, width, "  no guaranteed message yet", base.Foreground(ageColor))
		}
		return
	}
	y++
	rowOf := make(map[uint16]int, len(shown))
	for i, n := range shown {
		rowOf[n.seq] = i
	}
	var edges []laneEdge
	for i, n := range shown {
		for _, e := range n.edges {
			if j, ok := rowOf[e.to]; ok && j != i {
				edges = append(edges, laneEdge{from: i, to: j, pruned: e.pruned, done: e.done})
			}
		}
	}
	lanes := assignLanes(edges)
	textX := 0
	if lanes > 0 {
		textX = lanes + 1
		g.drawLanes(screen, base, x, y, width, lanes, len(shown), edges)
	}
	seqWidth, nameWidth := 0, 0
	for _, n := range shown {
		seqWidth = max(seqWidth, len(fmt.Sprint(n.seq)))
		nameWidth = max(nameWidth, len(n.name))
	}
	for i, n := range shown {
		col := x + textX
		left := width - textX
		if left <= 0 {
			break
		}
		head := fmt.Sprintf("#%-*d %-*s ", seqWidth, n.seq, nameWidth, n.name)
		w := printRunes(screen, col, y+i, left, head, base)
		w += printRunes(screen, col+w, y+i, left-w, n.stateText(), base.Foreground(nodeColor(n.state)))
		var rest strings.Builder
		for _, e := range n.edges {
			if j, ok := rowOf[e.to]; ok && drawnEdge(edges, i, j) {
				continue
			}
			fmt.Fprintf(&rest, " → #%d", e.to)
			if e.pruned {
				rest.WriteString(" pruned")
			}
		}
		if n.moreDeps > 0 {
			fmt.Fprintf(&rest, " +%d more", n.moreDeps)
		}
		printRunes(screen, col+w, y+i, left-w, rest.String(), base.Foreground(ageColor))
	}
}

// drawnEdge reports whether the edge from row i to row j got a lane.
func drawnEdge(edges []laneEdge, i, j int) bool {
	for _, e := range edges {
		if e.from == i && e.to == j {
			return e.lane >= 0
		}
	}
	return false
}

// Cell flags of the lane grid: which ways a cell's line goes.
const (
	lineUp = 1 << iota
	lineDown
	lineRight
	lineLeft
	lineArrow  // the arrow head into a dependency
	lineDashed // a pruned edge
)

// drawLanes draws the edges: lane l runs in the column lanes-1-l, and each edge turns right at
// both of its rows into the text, with an arrow at the dependency.
func (g *GraphView) drawLanes(screen tcell.Screen, base tcell.Style, x, y, maxWidth, lanes, rows int, edges []laneEdge) {
	width := lanes + 1
	grid := make([]uint8, width*rows)
	color := make([]tcell.Color, width*rows)
	set := func(col, row int, f uint8, c tcell.Color) {
		grid[row*width+col] |= f
		if color[row*width+col] == 0 || c == tcell.ColorRed {
			color[row*width+col] = c
		}
	}
	for _, e := range edges {
		if e.lane < 0 {
			continue
		}
		c := tview.Styles.BorderColor
		var dash uint8
		switch {
		case e.pruned:
			c, dash = ageColor, lineDashed
		case !e.done:
			c = tcell.ColorRed
		}
		col := lanes - 1 - e.lane
		top, bottom := e.span()
		set(col, top, lineDown|lineRight|dash, c)
		set(col, bottom, lineUp|lineRight|dash, c)
		for r := top + 1; r < bottom; r++ {
			set(col, r, lineUp|lineDown|dash, c)
		}
		for _, r := range []int{top, bottom} {
			for cc := col + 1; cc < width; cc++ {
				set(cc, r, lineLeft|lineRight|dash, c)
			}
		}
		set(lanes, e.to, lineArrow, c)
	}
	for row := range rows {
		for col := range min(width, maxWidth) {
			f := grid[row*width+col]
			if f == 0 {
				continue
			}
			screen.SetContent(x+col, y+row, laneRune(f), nil, base.Foreground(color[row*width+col]))
		}
	}
}

// laneRune is the box-drawing character for a cell's lines.
func laneRune(f uint8) rune {
	dashed := f&lineDashed != 0
	switch f &^ lineDashed {
	case lineArrow, lineArrow | lineLeft | lineRight:
		return '▶'
	case lineUp | lineDown:
		if dashed {
			return '┆'
		}
		return '│'
	case lineLeft | lineRight:
		if dashed {
			return '┄'
		}
		return '─'
	case lineDown | lineRight:
		return '╭'
	case lineUp | lineRight:
		return '╰'
	case lineUp | lineDown | lineRight:
		return '├'
	case lineDown | lineLeft | lineRight:
		return '┬'
	case lineUp | lineLeft | lineRight:
		return '┴'
	case lineUp | lineDown | lineLeft | lineRight:
		return '┼'
	}
	return '─'
}

// nodeColor is the colour of a node's state: what still moves in yellow, what waits in red, what is
// done in the text's own colour.
func nodeColor(s nodeState) tcell.Color {
	switch s {
	case nodeQueued, nodeInFlight:
		return tcell.ColorYellow
	case nodeAcked:
		return tcell.ColorTeal
	case nodeWaiting, nodeNotArrived, nodeEarlier:
		return tcell.ColorRed
	}
	return tview.Styles.PrimaryTextColor
}

// waitKey names a message of the graph that waits on a dependency: its sequence number and
// its direction.
type waitKey struct {
	seq      uint16
	outgoing bool
}

// waitsShown are the messages of the graph at the moment shown that wait on a dependency: a
// received one that arrived before what it needs ("waits on"), or a sent one the peer acked
// whose dependency the local graph has not executed ("acked, waits on").
func (g *GraphView) waitsShown() map[waitKey]bool {
	out, in := g.graphs()
	w := map[waitKey]bool{}
	for _, side := range []struct {
		nodes    []graphNode
		outgoing bool
	}{{out, true}, {in, false}} {
		for _, n := range side.nodes {
			if len(n.waits) > 0 && (n.state == nodeWaiting || n.state == nodeAcked) {
				w[waitKey{n.seq, side.outgoing}] = true
			}
		}
	}
	return w
}

// StepToWait steps a frozen view (freezing it first) to the next moment a message starts to
// wait on a dependency, at most limit steps: a student looking for a kill that waits on its
// spawn need not press . a hundred times. It returns the steps taken, what happened at the
// last, and whether a new wait is shown there. A wait already shown when it starts does not
// count: it looks for the next one.
func (g *GraphView) StepToWait(limit int) (steps int, what string, found bool) {
	if !g.frozen {
		g.Freeze(true)
	}
	before := g.waitsShown()
	for steps < limit {
		w := g.Step()
		if w == "" {
			return steps, what, false
		}
		steps, what = steps+1, w
		now := g.waitsShown()
		for k := range now {
			if !before[k] {
				return steps, what, true
			}
		}
		before = now
	}
	return steps, what, false
}
