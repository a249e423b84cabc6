package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
)

// What the graph view knows and how it turns it into a graph. The message layer keeps the
// latest guaranteed messages of each direction of a connection, each with the time of every
// step of its life (message.Record), and the transport copies them into its snapshots a few
// times a second. graphHistory merges those snapshots into one list per direction, so that
// a message the connection's ring has already let go stays here while the view is frozen.
// A moment picks the instant the graph shows: live (everything known), or a point in time
// the freeze and step keys move through. graphAt builds the graph of one direction at a
// moment: a node per message in the state it had then, and an edge per dependency.
//
// The store is bounded both ways. Live, it keeps the latest graphKept records of each
// direction. Frozen, it keeps every record it had (the moment shown, and what Scroll reaches
// back to) and takes in graphAhead more of each direction, the messages Step moves through,
// however long the game has run; records beyond those are dropped and counted (held), and
// going live trims the store to graphKept again.

// graphKept bounds the records the view keeps per direction while live: several snapshots'
// worth, and the most a frozen view keeps from before its moment.
const graphKept = 256

// graphAhead is how many records per direction a frozen view takes in after it froze: the
// messages Step can reach, a few seconds of a busy class game.
const graphAhead = 256

// graphNodes is how many of the latest messages per direction make the graph: the history
// a connection keeps (message.DefaultHistory), and at least the 24 a class reads.
const graphNodes = message.DefaultHistory

// graphHistory is the records of one connection's snapshots, merged by serial.
type graphHistory struct {
	out, in []message.Record // oldest first (by serial)
	source  string           // which connection they come from
	last    *message.Debug   // the latest snapshot merged
	none    bool             // the latest snapshot had no history (the debug views keep none)
	held    int              // records not kept because the store was full while frozen
	// heldTop is, per direction, the latest serial counted in held: the snapshots overlap,
	// and a record dropped from one comes again in the next ones, to be counted once.
	heldTop [2]uint64 // out, in
}

// reset forgets every record.
func (h *graphHistory) reset(source string) {
	*h = graphHistory{source: source, out: h.out[:0], in: h.in[:0]}
}

// merge adds a snapshot's records. hold (a frozen view) keeps the records already there, the
// moment it shows, and takes new ones up to graphAhead past graphKept per direction; beyond
// that they are dropped and counted.
func (h *graphHistory) merge(source string, d *message.Debug, hold bool) {
	if source != h.source {
		h.reset(source)
	}
	if d == nil || d == h.last {
		h.none = h.none || d == nil
		return
	}
	h.last = d
	h.none = d.Outgoing == nil && d.Incoming == nil
	// A connection numbers its records from 1: a smaller latest serial is a new connection.
	if newest := max(lastSerial(d.Outgoing), lastSerial(d.Incoming)); newest > 0 && newest < max(lastSerial(h.out), lastSerial(h.in)) {
		h.reset(source)
		h.last = d
	}
	h.out = h.mergeSide(h.out, d.Outgoing, hold, &h.heldTop[0])
	h.in = h.mergeSide(h.in, d.Incoming, hold, &h.heldTop[1])
}

func lastSerial(recs []message.Record) uint64 {
	if len(recs) == 0 {
		return 0
	}
	return recs[len(recs)-1].Serial
}

// mergeSide puts each record in its place by serial, replacing the older copy of it. A record
// dropped because hold is on is counted in held once, however many snapshots bring it: top is
// the latest serial of the side counted.
func (h *graphHistory) mergeSide(side, recs []message.Record, hold bool, top *uint64) []message.Record {
	for _, r := range recs {
		i := sort.Search(len(side), func(i int) bool { return side[i].Serial >= r.Serial })
		switch {
		case i < len(side) && side[i].Serial == r.Serial:
			side[i] = r
		case hold && len(side) >= graphKept+graphAhead:
			if r.Serial > *top {
				*top = r.Serial
				h.held++
			}
		default:
			side = slices.Insert(side, i, r)
		}
	}
	if extra := len(side) - graphKept; extra > 0 && !hold {
		side = append(side[:0], side[extra:]...)
	}
	return side
}

// moment is the instant a graph shows. Live shows everything known. Otherwise a record is
// shown once it entered the history (queued or arrived) before t, or at t with a serial up to
// serial, and each of its steps counts once its time is not after t.
type moment struct {
	live   bool
	t      time.Time
	serial uint64
}

var liveMoment = moment{live: true}

// entered is when r entered the history: queued (sent messages) or arrived (received ones).
func entered(r *message.Record) time.Time {
	if r.Outgoing {
		return r.Queued
	}
	return r.Arrived
}

func (m moment) shows(r *message.Record) bool {
	if m.live {
		return true
	}
	e := entered(r)
	return e.Before(m.t) || e.Equal(m.t) && r.Serial <= m.serial
}

// reached reports whether a step that happened at t (zero: not yet) has happened at m.
func (m moment) reached(t time.Time) bool { return !t.IsZero() && (m.live || !t.After(m.t)) }

// latest is the moment of the latest step any record took: what a view frozen now shows.
func (h *graphHistory) latest() moment {
	var t time.Time
	h.each(func(r *message.Record) {
		for _, s := range steps(r) {
			if s.After(t) {
				t = s
			}
		}
	})
	return moment{t: t, serial: math.MaxUint64}
}

// each calls f for every record, sent ones first.
func (h *graphHistory) each(f func(r *message.Record)) {
	for i := range h.out {
		f(&h.out[i])
	}
	for i := range h.in {
		f(&h.in[i])
	}
}

// steps are the times of r's steps, zero for those that have not happened.
func steps(r *message.Record) [4]time.Time {
	if r.Outgoing {
		return [4]time.Time{r.Queued, r.Sent, r.Acked, r.Executed}
	}
	return [4]time.Time{r.Arrived, r.Executed}
}

// next is the moment of the step after m: the next message that entered at m's time, or else
// the earliest step after it (with the first message that entered then, if one did). It
// reports false when nothing happened after m.
func (h *graphHistory) next(m moment) (moment, bool) {
	best := uint64(math.MaxUint64)
	h.each(func(r *message.Record) {
		if entered(r).Equal(m.t) && r.Serial > m.serial && r.Serial < best {
			best = r.Serial
		}
	})
	if best != math.MaxUint64 {
		return moment{t: m.t, serial: best}, true
	}
	var t time.Time
	h.each(func(r *message.Record) {
		for _, s := range steps(r) {
			if s.After(m.t) && (t.IsZero() || s.Before(t)) {
				t = s
			}
		}
	})
	if t.IsZero() {
		return m, false
	}
	h.each(func(r *message.Record) {
		if entered(r).Equal(t) && r.Serial < best {
			best = r.Serial
		}
	})
	return moment{t: t, serial: best}, true
}

// events describes what happened at exactly m: "in #811 SpawnEnemy: arrived, executed". The
// message that entered at m comes first, with every step it took then; the other messages'
// steps at m's time are described at the first moment of that time.
func (h *graphHistory) events(m moment, name func(int16) string) string {
	if m.live {
		return ""
	}
	first := true
	h.each(func(r *message.Record) {
		if entered(r).Equal(m.t) && r.Serial < m.serial {
			first = false
		}
	})
	var parts []string
	describe := func(dir string, r *message.Record) {
		entry := entered(r).Equal(m.t) && r.Serial == m.serial
		if !m.shows(r) || !first && !entry {
			return
		}
		var what []string
		switch {
		case entry && !r.Outgoing:
			what = append(what, "arrived")
		case entry && !r.Sent.Equal(m.t):
			what = append(what, "queued")
		}
		for _, st := range []struct {
			t    time.Time
			verb string
		}{{r.Sent, "sent"}, {r.Acked, "acked"}, {r.Executed, "executed"}} {
			if st.t.Equal(m.t) {
				what = append(what, st.verb)
			}
		}
		if len(what) > 0 {
			part := fmt.Sprintf("%s #%d%s: %s", dir, r.Seq, nameSuffix(name(r.First)), strings.Join(what, ", "))
			if entry {
				parts = slices.Insert(parts, 0, part)
			} else {
				parts = append(parts, part)
			}
		}
	}
	for i := range h.out {
		describe("out", &h.out[i])
	}
	for i := range h.in {
		describe("in", &h.in[i])
	}
	return strings.Join(parts, "; ")
}

func nameSuffix(n string) string {
	if n == "" {
		return ""
	}
	return " " + n
}

// nodeState is where a message stands at the moment the graph shows.
type nodeState uint8

const (
	nodeQueued     nodeState = iota // sent side: waiting for a packet
	nodeInFlight                    // sent, not acknowledged
	nodeAcked                       // acknowledged; the local graph waits for a dependency
	nodeExecuted                    // executed (on the sent side: known executed by the peer)
	nodeWaiting                     // received, waits for a dependency
	nodeNotArrived                  // named as a dependency, not arrived
	nodeEarlier                     // an earlier message, outside the graph, not yet executed
)

// graphNode is one message of the graph.
type graphNode struct {
	seq         uint16
	name        string
	state       nodeState
	placeholder bool // only known as somebody's dependency
	edges       []graphEdge
	moreDeps    int           // dependencies the history did not keep
	waits       []uint16      // dependencies not executed at the moment
	waited      time.Duration // received and executed: how long it waited for a dependency
	resent      int           // sends beyond one per piece (live only: the count is the latest)
}

// graphEdge is a dependency.
type graphEdge struct {
	to     uint16
	pruned bool // left off the wire: the sender's local graph had executed it
	done   bool // executed at the moment
}

// stateText is the node's state in words, as the view and the DOT labels write it.
func (n *graphNode) stateText() string {
	waits := func(prefix string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for _, w := range n.waits {
			fmt.Fprintf(&b, " #%d", w)
		}
		return b.String()
	}
	switch n.state {
	case nodeQueued:
		return "queued"
	case nodeInFlight:
		if n.resent > 0 {
			return fmt.Sprintf("in flight, resent %d", n.resent)
		}
		return "in flight"
	case nodeAcked:
		if len(n.waits) > 0 {
			return waits("acked, waits on")
		}
		return "acked"
	case nodeExecuted:
		if n.waited > 0 {
			return fmt.Sprintf("executed, waited %d ms", n.waited.Milliseconds())
		}
		return "executed"
	case nodeWaiting:
		return waits("waits on")
	case nodeNotArrived:
		return "not arrived"
	default:
		return "earlier, not executed"
	}
}

// graphAt builds one direction's graph at m from recs (oldest first): the latest graphNodes
// messages shown at m, and a node for each dependency not among them that has not executed:
// in the state its record has at m when recs hold it (a received one that arrived and waits),
// else a placeholder, not arrived (received side) or earlier (sent side). Nodes are in
// sequence order, oldest first, across a wrap of the 15-bit numbers.
func graphAt(recs []message.Record, outgoing bool, m moment, name func(int16) string) []graphNode {
	var shown []*message.Record
	for i := range recs {
		if m.shows(&recs[i]) {
			shown = append(shown, &recs[i])
		}
	}
	if len(shown) > graphNodes {
		shown = shown[len(shown)-graphNodes:]
	}
	if len(shown) == 0 {
		return nil
	}
	// The latest record of each sequence number, shown or not: a dependency whose message
	// arrives later than m is not done at m.
	bySeq := make(map[uint16]*message.Record, len(recs))
	for i := range recs {
		bySeq[recs[i].Seq] = &recs[i]
	}
	node := func(r *message.Record) graphNode {
		n := graphNode{seq: r.Seq, name: name(r.First), moreDeps: r.MoreDeps}
		for _, e := range r.Deps {
			done := e.Done
			if d := bySeq[e.Seq]; d != nil {
				done = m.shows(d) && m.reached(d.Executed)
			}
			n.edges = append(n.edges, graphEdge{to: e.Seq, pruned: outgoing && e.Pruned, done: done})
			if !done {
				n.waits = append(n.waits, e.Seq)
			}
		}
		switch {
		case m.reached(r.Executed):
			n.state = nodeExecuted
			if !outgoing {
				n.waited = r.Executed.Sub(r.Arrived)
			}
		case !outgoing:
			n.state = nodeWaiting
		case m.reached(r.Acked):
			n.state = nodeAcked
		case m.reached(r.Sent):
			n.state = nodeInFlight
			if m.live {
				n.resent = max(r.Sends-r.Pieces, 0)
			}
		default:
			n.state = nodeQueued
		}
		return n
	}
	nodes := make([]graphNode, 0, len(shown))
	have := make(map[uint16]bool, len(shown))
	for _, r := range shown {
		have[r.Seq] = true
		nodes = append(nodes, node(r))
	}
	for _, n := range slices.Clone(nodes) {
		for _, w := range n.waits {
			if have[w] {
				continue
			}
			have[w] = true
			if d := bySeq[w]; d != nil && m.shows(d) {
				nodes = append(nodes, node(d)) // older than the messages shown, and known
				continue
			}
			p := graphNode{seq: w, placeholder: true, state: nodeNotArrived}
			if outgoing {
				p.state = nodeEarlier
			}
			nodes = append(nodes, p)
		}
	}
	// In sequence order around the latest message's number: within half the sequence space
	// before or after it, as the numbers wrap.
	ref := shown[len(shown)-1].Seq
	offset := func(seq uint16) int { return int((seq-ref+depgraph.SeqSpace/2)&depgraph.SeqMask) - depgraph.SeqSpace/2 }
	slices.SortStableFunc(nodes, func(a, b graphNode) int { return cmp.Compare(offset(a.seq), offset(b.seq)) })
	return nodes
}

// graphDOT writes both directions' graphs in Graphviz form: a cluster per direction (their
// sequence numbers are separate, so node IDs carry an "o" or "i"), a node per message with its
// number, type and state, and an edge from each message to each dependency; a pruned edge is
// dashed and labelled, one not yet executed is red, a node not arrived is dashed. A dependency
// outside the graph that has executed gets a dotted node of its own, so that every edge the
// view knows is in the file.
func graphDOT(title string, out, in []graphNode) string {
	var b strings.Builder
	if title != "" {
		// Which link the graph is of, for whoever opens the file later.
		b.WriteString("// " + strings.ReplaceAll(title, "\n", " ") + "\n")
	}
	b.WriteString("digraph messages {\n\trankdir=LR;\n\tnode [shape=box];\n")
	dotSide(&b, "sent", "o", out)
	dotSide(&b, "received", "i", in)
	b.WriteString("}\n")
	return b.String()
}

func dotSide(b *strings.Builder, label, prefix string, nodes []graphNode) {
	fmt.Fprintf(b, "\tsubgraph cluster_%s {\n\t\tlabel=%q;\n", label, label)
	have := make(map[uint16]bool, len(nodes))
	for _, n := range nodes {
		have[n.seq] = true
	}
	for _, n := range nodes {
		lbl := fmt.Sprintf("#%d", n.seq)
		if n.name != "" {
			lbl += `\n` + n.name
		}
		lbl += `\n` + n.stateText()
		attrs := ""
		switch n.state {
		case nodeNotArrived, nodeEarlier:
			attrs = ", style=dashed"
		case nodeWaiting:
			attrs = ", color=red"
		}
		fmt.Fprintf(b, "\t\t%s%d [label=\"%s\"%s];\n", prefix, n.seq, lbl, attrs)
	}
	var outside []uint16
	for _, n := range nodes {
		for _, e := range n.edges {
			if !have[e.to] && !slices.Contains(outside, e.to) {
				outside = append(outside, e.to)
			}
		}
	}
	for _, seq := range outside {
		fmt.Fprintf(b, "\t\t%s%d [label=\"#%d\\nearlier, executed\", style=dotted];\n", prefix, seq, seq)
	}
	for _, n := range nodes {
		for _, e := range n.edges {
			attrs := ""
			switch {
			case e.pruned:
				attrs = ` [style=dashed, label="pruned"]`
			case !e.done:
				attrs = " [color=red]"
			}
			fmt.Fprintf(b, "\t\t%s%d -> %s%d%s;\n", prefix, n.seq, prefix, e.to, attrs)
		}
	}
	b.WriteString("\t}\n")
}
