package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
)

var graphBase = time.Unix(1_000_000, 0)

// classroom is a short exchange between a server's connection and a client's, both keeping
// the history a debug panel asks for, scripted on a lossy link the way a class sees one at
// 10% loss. The client's snapshots are taken after every step, as its transport publishes
// them, so tests can feed them to the panel one by one.
//
// The server sends SpawnEnemy, lost; a Command; and KillEnemy, which depends on the spawn
// and so waits on the client until the spawn's resend arrives 80 ms later. The client sends
// a chat line, acknowledged and executed; a second one, whose dependency on the first is
// pruned (the client's own graph executed the first, so the wire carries none), lost; a
// third, which depends on the second and waits; then a Command, lost, and a UnitHashes that
// is still queued when the story ends.
type classroom struct {
	t        *testing.T
	srv, cli *message.Conn
	now      time.Time
	snaps    []transport.PeerStats // the client's link, after each step
	times    []time.Time
}

func payload(t game.MsgType, rest string) []byte { return append([]byte{byte(t)}, rest...) }

func newClassroom(t *testing.T) *classroom {
	t.Helper()
	cfg := message.Config{History: message.DefaultHistory}
	ignore := func(*message.Message) {}
	c := &classroom{t: t, srv: message.New(cfg, ignore), cli: message.New(cfg, ignore), now: graphBase}

	// The datagrams of one step, each delivered or lost.
	send := func(from, to *message.Conn, force, lost bool) {
		t.Helper()
		d, ok := from.AppendPacket(nil, c.now, force)
		if !ok {
			t.Fatalf("no packet at %v", c.now.Sub(graphBase))
		}
		if !lost {
			if err := to.Receive(c.now.Add(20*time.Millisecond), d); err != nil {
				t.Fatal(err)
			}
		}
	}
	step := func(ms int, f func()) {
		c.now = graphBase.Add(time.Duration(ms) * time.Millisecond)
		f()
		c.snapshot()
	}
	sendMsg := func(conn *message.Conn, p []byte, deps []*depgraph.Dependency, out *depgraph.Dependency) {
		t.Helper()
		if _, err := conn.SendGuaranteed(c.now, p, deps, out); err != nil {
			t.Fatal(err)
		}
	}
	var spawn depgraph.Dependency
	var chat message.Chain
	say := func(text string) {
		t.Helper()
		if _, err := chat.Send(c.cli, c.now, payload(game.MsgChat, text)); err != nil {
			t.Fatal(err)
		}
	}
	step(0, func() {
		sendMsg(c.srv, payload(game.MsgSpawnEnemy, "17"), nil, &spawn)
		send(c.srv, c.cli, false, true) // the spawn: lost
		say("hi")
		send(c.cli, c.srv, false, false)
	})
	step(10, func() {
		sendMsg(c.srv, payload(game.MsgCommand, "move"), nil, nil)
		send(c.srv, c.cli, false, false)
	})
	step(20, func() {
		sendMsg(c.srv, payload(game.MsgKillEnemy, "17"), []*depgraph.Dependency{&spawn}, nil)
		send(c.srv, c.cli, false, false) // arrives at 40 and waits for the spawn
	})
	step(40, func() {}) // the kill has arrived and waits; the chat's ack is in the server's next packet
	step(45, func() {
		send(c.srv, c.cli, true, false) // the server's acks: the client's first line executes there
	})
	step(70, func() {
		say("again") // the first line executed: the dependency is pruned
		send(c.cli, c.srv, false, true)
	})
	step(75, func() {
		say("third") // depends on "again", unacknowledged: on the wire
		send(c.cli, c.srv, false, false)
	})
	step(80, func() {
		send(c.cli, c.srv, true, false) // the client's acks: the spawn's packet is lost
	})
	step(100, func() {
		send(c.srv, c.cli, false, false) // the spawn again, with the acks of the chat lines: the kill runs
	})
	step(120, func() {
		send(c.srv, c.cli, true, false)
	})
	step(130, func() {
		sendMsg(c.cli, payload(game.MsgCommand, "stop"), nil, nil)
		send(c.cli, c.srv, false, true) // the resent "again" and the command: lost
		sendMsg(c.cli, payload(game.MsgUnitHashes, "h"), nil, nil)
	})
	return c
}

// snapshot records the client's link as its transport would publish it.
func (c *classroom) snapshot() {
	d := c.cli.Debug()
	c.snaps = append(c.snaps, transport.PeerStats{Connected: true, Message: c.cli.Stats(), Debug: &d})
	c.times = append(c.times, c.now)
}

// last is the final snapshot.
func (c *classroom) last() transport.PeerStats { return c.snaps[len(c.snaps)-1] }

// panelData is the frame of snapshot i.
func (c *classroom) panelData(i int) DebugData {
	return DebugData{Peer: c.snaps[i], HasPeer: true, Title: "server link", Now: c.times[i]}
}

// nodeOf finds seq among nodes.
func nodeOf(t *testing.T, nodes []graphNode, seq uint16) graphNode {
	t.Helper()
	for _, n := range nodes {
		if n.seq == seq {
			return n
		}
	}
	t.Fatalf("no node #%d in %+v", seq, nodes)
	return graphNode{}
}

// TestGraphAtStates: the graph of the story's end, and of the moment the kill arrived.
func TestGraphAtStates(t *testing.T) {
	c := newClassroom(t)
	var h graphHistory
	for _, s := range c.snaps {
		h.merge("link", s.Debug, false)
	}
	out := graphAt(h.out, true, liveMoment, msgName)
	in := graphAt(h.in, false, liveMoment, msgName)
	want := []struct {
		nodes []graphNode
		seq   uint16
		text  string
	}{
		{out, 0, "executed"},
		{out, 1, "in flight, resent 1"},
		{out, 2, "acked, waits on #1"},
		{out, 3, "in flight"},
		{out, 4, "queued"},
		{in, 0, "executed"},
		{in, 1, "executed"},
		{in, 2, "executed, waited 80 ms"},
	}
	for _, w := range want {
		if n := nodeOf(t, w.nodes, w.seq); n.stateText() != w.text {
			t.Errorf("#%d %s: %q, want %q", w.seq, n.name, n.stateText(), w.text)
		}
	}
	if e := nodeOf(t, out, 1).edges; len(e) != 1 || e[0].to != 0 || !e[0].pruned {
		t.Errorf("the second chat line's edges %+v, want #0, pruned", e)
	}
	if e := nodeOf(t, out, 2).edges; len(e) != 1 || e[0].to != 1 || e[0].pruned || e[0].done {
		t.Errorf("the third chat line's edges %+v, want #1, on the wire, not done", e)
	}
	if n := nodeOf(t, in, 2); n.name != "KillEnemy" || len(n.edges) != 1 || n.edges[0].to != 0 || !n.edges[0].done {
		t.Errorf("the kill: %+v, want KillEnemy depending on #0, done", n)
	}

	// At the moment the kill arrived (40 ms), it waits on the spawn, which has not arrived.
	at := moment{t: graphBase.Add(40 * time.Millisecond), serial: ^uint64(0)}
	in = graphAt(h.in, false, at, msgName)
	if kill := nodeOf(t, in, 2); kill.stateText() != "waits on #0" {
		t.Errorf("the kill at 40 ms: %q, want it waiting on the spawn", kill.stateText())
	}
	if spawn := nodeOf(t, in, 0); !spawn.placeholder || spawn.stateText() != "not arrived" {
		t.Errorf("the spawn at 40 ms: %+v, want a placeholder, not arrived", spawn)
	}
	if got := graphAt(h.in, false, moment{t: graphBase}, msgName); got != nil {
		t.Errorf("before anything arrived: %+v, want no node", got)
	}
}

// TestGraphViewGolden: the panel's graph view of the story's end, side by side and, on a
// narrow panel, one direction above the other.
func TestGraphViewGolden(t *testing.T) {
	c := newClassroom(t)
	for _, size := range []struct {
		name          string
		width, height int
	}{{"graphview_80", 80, 14}, {"graphview_44", 44, 24}} {
		g := NewGraphView().SetNamer(msgName)
		for _, s := range c.snaps {
			g.SetHistory("link", s.Debug, s.Message.PrunedDeps)
		}
		got, _ := drawText(t, g, size.width, size.height)
		checkGolden(t, size.name, got)
	}
	// Every state is in it, and the pruned edge is drawn dotted.
	g := NewGraphView().SetNamer(msgName).SetHistory("link", c.last().Debug, 1)
	got, _ := drawText(t, g, 80, 14)
	for _, want := range []string{"queued", "in flight", "acked, waits on #1", "executed, waited 80 ms", "┄", "1 deps pruned"} {
		if !strings.Contains(got, want) {
			t.Errorf("the view lacks %q:\n%s", want, got)
		}
	}
}

// TestGraphViewFreezeAndStep drives the panel with the story's snapshots as they come, on a
// simulated screen: frozen at the moment the kill waits, the view holds it while snapshots
// go on arriving, and steps one message at a time to the spawn's arrival.
func TestGraphViewFreezeAndStep(t *testing.T) {
	c := newClassroom(t)
	p := NewDebugPanel()
	sa := runApp(t, p, 80, 16)
	feed := func(i int) {
		sa.do(func() { p.SetData(c.panelData(i)) })
		sa.app.Draw()
	}
	// Up to the kill's arrival (the snapshot at 40 ms).
	for i := range 4 {
		feed(i)
	}
	sa.waitFor("the kill waiting", func() bool { return strings.Contains(screenString(sa.screen), "waits on #0") })
	sa.rune('f')
	sa.waitFor("the freeze", func() bool { return p.graph.Frozen() })
	for i := 4; i < len(c.snaps); i++ { // the story goes on behind the frozen view
		feed(i)
	}
	sa.waitFor("the frozen view drawn", func() bool { return strings.Contains(screenString(sa.screen), "FROZEN +0.000 s") })
	frozen := sa.text()
	checkGolden(t, "graphview_frozen", frozen)
	if !strings.Contains(frozen, "KillEnemy") || !strings.Contains(frozen, "not arrived") {
		t.Errorf("the frozen view does not show the kill waiting for the spawn:\n%s", frozen)
	}

	// Step until the spawn arrives: each step is one message's step, in order.
	var stepsSeen []string
	for range 20 {
		sa.rune('.')
		var what string
		sa.waitFor("a step", func() bool {
			what = p.graph.stepped
			return what != "" && (len(stepsSeen) == 0 || what != stepsSeen[len(stepsSeen)-1])
		})
		stepsSeen = append(stepsSeen, what)
		if strings.Contains(what, "in #0 SpawnEnemy: arrived") {
			break
		}
	}
	last := stepsSeen[len(stepsSeen)-1]
	if !strings.HasPrefix(last, "in #0 SpawnEnemy: arrived, executed") || !strings.Contains(last, "in #2 KillEnemy: executed") {
		t.Fatalf("steps %q: the last one %q, want the spawn arriving and the kill executing with it", stepsSeen, last)
	}
	sa.waitFor("the step drawn", func() bool { return strings.Contains(screenString(sa.screen), "waited 80 ms") })
	checkGolden(t, "graphview_stepped", sa.text())
	// The steps in between: the client's second and third chat lines going out.
	if want := []string{"out #1 Chat: queued, sent", "out #2 Chat: queued, sent"}; len(stepsSeen) != 3 || stepsSeen[0] != want[0] && stepsSeen[0] != "out #1 Chat: sent" {
		t.Errorf("steps %q: want the two chat lines sent, then the spawn", stepsSeen)
	}

	// f goes live again: the story's end.
	sa.rune('f')
	sa.waitFor("live", func() bool { return !p.graph.Frozen() })
	sa.waitFor("the live view", func() bool { return strings.Contains(screenString(sa.screen), "queued") })
}

// TestGraphViewFrozenBeforeAnything: a view frozen with no message yet steps into the first
// ones as they come, counting from the first.
func TestGraphViewFrozenBeforeAnything(t *testing.T) {
	c := newClassroom(t)
	g := NewGraphView().SetNamer(msgName)
	g.SetHistory("link", &message.Debug{Outgoing: []message.Record{}, Incoming: []message.Record{}}, 0)
	g.Freeze(true)
	if what := g.Step(); what != "" {
		t.Fatalf("a step with nothing known: %q", what)
	}
	g.SetHistory("link", c.snaps[0].Debug, 0)
	if what := g.Step(); !strings.HasPrefix(what, "out #0 Chat: sent") && !strings.HasPrefix(what, "in #") {
		t.Fatalf("the first step: %q, want the first message", what)
	}
	got, _ := drawText(t, g, 80, 6)
	if !strings.Contains(got, "FROZEN +0.000 s") {
		t.Errorf("the first step is not at +0.000 s:\n%s", got)
	}
}

// TestGraphStepsInOrder: stepping from the first moment to the last visits every step of every
// message once, in time order, and the graph never shows a step before its time.
func TestGraphStepsInOrder(t *testing.T) {
	c := newClassroom(t)
	var h graphHistory
	for _, s := range c.snaps {
		h.merge("link", s.Debug, false)
	}
	steps := 0
	h.each(func(r *message.Record) { steps += stepsOf(r) })
	m := moment{t: graphBase.Add(-time.Second), serial: ^uint64(0)}
	var seen []string
	for {
		next, ok := h.next(m)
		if !ok {
			break
		}
		if next.t.Before(m.t) || next.t.Equal(m.t) && next.serial <= m.serial {
			t.Fatalf("step from %v/%d went back to %v/%d", m.t, m.serial, next.t, next.serial)
		}
		m = next
		ev := h.events(m, msgName)
		if ev == "" {
			t.Fatalf("a step at %v with nothing happening", m.t.Sub(graphBase))
		}
		seen = append(seen, ev)
		if len(seen) > 100 {
			t.Fatal("stepping does not end")
		}
	}
	got := 0
	for _, s := range seen {
		got += strings.Count(s, ",") + strings.Count(s, ";") + 1
	}
	if got != steps {
		t.Errorf("the steps described %d things:\n%s\nwant %d (every step of every message once)", got, strings.Join(seen, "\n"), steps)
	}
}

// stepsOf counts the steps a record took (entering the history, and every later step that
// happened at another moment than entering).
func stepsOf(r *message.Record) int {
	n := 0
	for i, s := range steps(r) {
		if s.IsZero() {
			continue
		}
		// A sent message queued and sent at once is described once, as sent.
		if i == 1 && r.Outgoing && s.Equal(r.Queued) {
			continue
		}
		n++
	}
	return n
}

// TestGraphDOTGolden: the DOT export writes the same graph as the view: every message, with its
// state, and the pruned edge dashed.
func TestGraphDOTGolden(t *testing.T) {
	c := newClassroom(t)
	p := NewDebugPanel()
	for i := range c.snaps {
		p.SetData(c.panelData(i))
	}
	dot := p.DOT()
	checkGolden(t, "graph_dot", dot)
	checkDOTSyntax(t, dot)
	for _, want := range []string{"// server link", `o1 -> o0 [style=dashed, label="pruned"];`, "o2 -> o1 [color=red];", `i2 [label="#2\nKillEnemy\nexecuted, waited 80 ms"];`} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
	// Frozen at the kill's arrival, the file is the frozen graph.
	p = NewDebugPanel()
	for i := range 4 {
		p.SetData(c.panelData(i))
	}
	p.ToggleFreeze()
	for i := 4; i < len(c.snaps); i++ {
		p.SetData(c.panelData(i))
	}
	frozen := p.DOT()
	checkDOTSyntax(t, frozen)
	for _, want := range []string{`i0 [label="#0\nnot arrived", style=dashed];`, "i2 -> i0 [color=red];", "(frozen, +0.000 s)"} {
		if !strings.Contains(frozen, want) {
			t.Errorf("the frozen DOT lacks %q:\n%s", want, frozen)
		}
	}
	checkDOTSyntax(t, NewDebugPanel().DOT())
}

// TestGraphHistoryBounded: the view keeps at most graphKept records per direction; frozen, it
// keeps the old ones, takes in graphAhead new ones and counts those it could not keep, each
// once.
func TestGraphHistoryBounded(t *testing.T) {
	recs := func(from, n int) *message.Debug {
		d := &message.Debug{Incoming: []message.Record{}}
		for i := range n {
			s := uint64(from + i)
			d.Outgoing = append(d.Outgoing, message.Record{Serial: s, Seq: uint16(s), Outgoing: true, Queued: graphBase.Add(time.Duration(s) * time.Millisecond)})
		}
		return d
	}
	var h graphHistory
	for i := 0; i < 2*graphKept; i += 32 {
		h.merge("link", recs(i+1, 32), false)
	}
	if len(h.out) != graphKept || h.out[0].Serial != graphKept+1 {
		t.Fatalf("%d records from serial %d, want the latest %d", len(h.out), h.out[0].Serial, graphKept)
	}
	// Frozen: the snapshots overlap as a connection's do (each a fresh copy of its latest
	// records), and a record dropped from one is counted once, not again in each later one.
	for from := 2*graphKept + 1; from <= 2*graphKept+graphAhead; from += 32 {
		h.merge("link", recs(from, 32), true)
	}
	if len(h.out) != graphKept+graphAhead || h.out[0].Serial != graphKept+1 || h.held != 0 {
		t.Fatalf("frozen: %d records from serial %d, %d held back; want %d from %d, none held", len(h.out), h.out[0].Serial, h.held, graphKept+graphAhead, graphKept+1)
	}
	next := 2*graphKept + graphAhead + 1
	for _, from := range []int{next, next + 16, next + 16} {
		h.merge("link", recs(from, 32), true)
	}
	if len(h.out) != graphKept+graphAhead || h.out[0].Serial != graphKept+1 || h.held != 48 {
		t.Fatalf("frozen and full: %d records from serial %d, %d held back; want the same records and 48 held", len(h.out), h.out[0].Serial, h.held)
	}
	// Another connection (its serials start again) starts the graph again.
	h.merge("link", recs(1, 3), false)
	if len(h.out) != 3 {
		t.Fatalf("after a new connection: %d records, want its 3", len(h.out))
	}
	h.merge("another", recs(1, 2), false)
	if len(h.out) != 2 {
		t.Fatalf("after another link: %d records, want its 2", len(h.out))
	}
}

// TestAssignLanes: overlapping edges get separate lanes, the shortest nearest the text, and
// edges beyond the lanes there are get none.
func TestAssignLanes(t *testing.T) {
	edges := []laneEdge{{from: 5, to: 0}, {from: 2, to: 1}, {from: 4, to: 2}, {from: 3, to: 2}, {from: 9, to: 8}}
	if n := assignLanes(edges); n != 3 {
		t.Fatalf("%d lanes, want 3", n)
	}
	for i, want := range []int{2, 0, 1, 0, 0} {
		if edges[i].lane != want {
			t.Errorf("edge %+v in lane %d, want %d", edges[i], edges[i].lane, want)
		}
	}
	many := make([]laneEdge, graphMaxLanes+2)
	for i := range many {
		many[i] = laneEdge{from: 10 + i, to: 0}
	}
	assignLanes(many)
	if many[len(many)-1].lane != -1 {
		t.Errorf("the edge beyond %d lanes got lane %d, want none", graphMaxLanes, many[len(many)-1].lane)
	}
}

// TestGraphViewColours: a waiting node and its edge are red; a pruned edge is grey.
func TestGraphViewColours(t *testing.T) {
	c := newClassroom(t)
	g := NewGraphView().SetNamer(msgName)
	for i := range 4 {
		g.SetHistory("link", c.snaps[i].Debug, 0)
	}
	_, screen := drawText(t, g, 80, 10)
	text, _ := drawText(t, g, 80, 10)
	row := strings.Split(text, "\n")
	for y, line := range row {
		if i := strings.Index(line, "waits on #0"); i >= 0 {
			col := len([]rune(line[:i]))
			if _, _, style, _ := screen.GetContent(col, y); foreground(style) != tcell.ColorRed {
				t.Errorf("the waiting state is drawn in %v, want red", foreground(style))
			}
			return
		}
	}
	t.Fatalf("no waiting node:\n%s", text)
}

// checkDOTSyntax checks the shape of the DOT text the way Graphviz would
// reject it: braces and brackets balanced, quotes closed, every statement
// inside a graph ended by a semicolon, and the text opening with a digraph.
func checkDOTSyntax(t *testing.T, dot string) {
	t.Helper()
	body := dot
	for strings.HasPrefix(body, "//") {
		body = body[strings.Index(body, "\n")+1:]
	}
	if !strings.HasPrefix(body, "digraph ") {
		t.Errorf("DOT does not open with a digraph:\n%s", dot)
	}
	depth, brackets := 0, 0
	inQuote, escaped := false, false
	for _, r := range body {
		switch {
		case escaped:
			escaped = false
		case inQuote && r == '\\':
			escaped = true
		case r == '"':
			inQuote = !inQuote
		case inQuote:
		case r == '{':
			depth++
		case r == '}':
			depth--
		case r == '[':
			brackets++
		case r == ']':
			brackets--
		}
		if depth < 0 || brackets < 0 {
			t.Fatalf("unbalanced DOT:\n%s", dot)
		}
	}
	if depth != 0 || brackets != 0 || inQuote {
		t.Errorf("unbalanced DOT (depth %d, brackets %d, open quote %v):\n%s", depth, brackets, inQuote, dot)
	}
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, "{") || line == "}" {
			continue
		}
		if !strings.HasSuffix(line, ";") {
			t.Errorf("DOT statement without a semicolon: %q", line)
		}
	}
}

// fullHistory is a client's link whose history is full both ways: 40 messages each way, every
// other one a chat line (a chain), one packet in five lost.
func fullHistory(tb testing.TB) *message.Debug {
	cfg := message.Config{History: message.DefaultHistory}
	ignore := func(*message.Message) {}
	srv, cli := message.New(cfg, ignore), message.New(cfg, ignore)
	now := graphBase
	var srvChat, cliChat message.Chain
	for i := range 40 {
		now = now.Add(30 * time.Millisecond)
		for _, side := range []struct {
			from, to *message.Conn
			chat     *message.Chain
		}{{srv, cli, &srvChat}, {cli, srv, &cliChat}} {
			var err error
			if i%2 == 0 {
				_, err = side.chat.Send(side.from, now, payload(game.MsgChat, "line"))
			} else {
				_, err = side.from.SendGuaranteed(now, payload(game.MsgCommand, "move"), nil, nil)
			}
			if err != nil {
				tb.Fatal(err)
			}
			for n := 0; ; n++ {
				d, ok := side.from.AppendPacket(nil, now, n == 0)
				if !ok {
					break
				}
				if (i+n)%5 != 4 {
					if err := side.to.Receive(now.Add(10*time.Millisecond), d); err != nil {
						tb.Fatal(err)
					}
				}
			}
		}
	}
	d := cli.Debug()
	if len(d.Outgoing) != message.DefaultHistory || len(d.Incoming) != message.DefaultHistory {
		tb.Fatalf("history of %d and %d records, want full rings", len(d.Outgoing), len(d.Incoming))
	}
	return &d
}

// BenchmarkGraphViewFrame is what the graph view costs a frame with full histories: merging a
// new snapshot (a fresh copy each round, as the transport publishes them) and drawing an
// 80 × 20 panel.
func BenchmarkGraphViewFrame(b *testing.B) {
	d := fullHistory(b)
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		b.Fatal(err)
	}
	defer screen.Fini()
	screen.SetSize(80, 20)
	g := NewGraphView().SetNamer(msgName)
	g.SetRect(0, 0, 80, 20)
	b.ReportAllocs()
	for b.Loop() {
		snap := *d
		g.SetHistory("link", &snap, 12)
		g.Draw(screen)
	}
}

// TestGraphViewScrolls: on a panel too short for the graph, the arrow keys scroll back to the
// earlier messages and End returns to the latest.
func TestGraphViewScrolls(t *testing.T) {
	d := fullHistory(t)
	p := NewDebugPanel()
	sa := runApp(t, p, 80, 12)
	sa.do(func() {
		p.SetData(DebugData{Peer: transport.PeerStats{Connected: true, Debug: d}, HasPeer: true, Title: "server link", Now: graphBase})
	})
	sa.app.Draw()
	waitRows := func(what, want string) {
		t.Helper()
		sa.waitFor(what, func() bool { return strings.Contains(screenString(sa.screen), want) })
	}
	waitRows("the latest messages", "sent (8 of 32)")
	latest := sa.text()
	sa.key(tcell.KeyUp)
	waitRows("one message back", "sent (8 of 32, 1 newer below)")
	sa.key(tcell.KeyHome)
	waitRows("the first messages", "sent (8 of 32, 24 newer below)")
	if txt := sa.text(); !strings.Contains(txt, "#8 ") || strings.Contains(txt, "#39 ") {
		t.Errorf("scrolled to the first messages, the view shows:\n%s", txt)
	}
	sa.key(tcell.KeyDown) // from the first page, one message forward at once
	waitRows("one message forward", "sent (8 of 32, 23 newer below)")
	sa.key(tcell.KeyEnd)
	waitRows("the latest again", "sent (8 of 32)")
	if got := sa.text(); got != latest {
		t.Errorf("End does not return to the latest messages:\n%s\nwant\n%s", got, latest)
	}
}

// TestGraphDependencyOutsideShown: a received message older than the graphNodes shown, which
// arrived and waits on a dependency of its own, is shown as waiting when a later message
// depends on it, not as "not arrived"; one the history does not hold stays a placeholder.
func TestGraphDependencyOutsideShown(t *testing.T) {
	var recs []message.Record
	for seq := range uint16(graphNodes + 1) {
		r := message.Record{Serial: uint64(seq) + 1, Seq: seq, First: int16(game.MsgChat), Pieces: 1,
			Arrived: graphBase.Add(time.Duration(seq) * time.Millisecond)}
		switch seq {
		case 0: // its dependency, #32760, never arrived
			r.Deps = []message.Edge{{Seq: 32760}}
		case graphNodes: // the latest depends on #0, outside the shown ones, and on #32761
			r.Deps = []message.Edge{{Seq: 0}, {Seq: 32761}}
		default:
			r.Executed = r.Arrived
		}
		recs = append(recs, r)
	}
	in := graphAt(recs, false, liveMoment, msgName)
	if n := nodeOf(t, in, 0); n.placeholder || n.stateText() != "waits on #32760" || n.name != "Chat" {
		t.Errorf("#0, arrived and waiting, outside the shown messages: %+v (%q), want it waiting on #32760", n, n.stateText())
	}
	if n := nodeOf(t, in, 32761); !n.placeholder || n.stateText() != "not arrived" {
		t.Errorf("#32761, not in the history: %+v (%q), want a placeholder, not arrived", n, n.stateText())
	}
	if n := nodeOf(t, in, graphNodes); n.stateText() != "waits on #0 #32761" {
		t.Errorf("#%d: %q, want it waiting on #0 and #32761", graphNodes, n.stateText())
	}
}
