package depgraph

import (
	"errors"
	"fmt"
	"time"
)

// SeqSpace is the number of distinct message sequence numbers: they are 15 bits wide because
// the top bit of every 2-byte word on the wire says whether another word follows.
const SeqSpace = 1 << 15

// SeqMask keeps the low 15 bits of a sequence number.
const SeqMask = SeqSpace - 1

var (
	// ErrSeqRange: a sequence number does not fit in 15 bits.
	ErrSeqRange = errors.New("depgraph: sequence number out of range")
	// ErrSelfDependency: a message names itself as a dependency and could never execute.
	ErrSelfDependency = errors.New("depgraph: message depends on itself")
	// ErrExpired: a message (or a dependency some message waits for) was not executed within
	// Config.Expiry of its node's creation. On the receiver this is a connection error.
	ErrExpired = errors.New("depgraph: unexecuted message expired")
	// ErrSeqInUse: the sender tried to reuse a sequence number whose previous message is still
	// in the graph (it may still be in flight).
	ErrSeqInUse = errors.New("depgraph: sequence number still in use")
	// ErrForeignDependency: a Dependency handle bound by another Sender was passed in.
	ErrForeignDependency = errors.New("depgraph: dependency handle belongs to another sender")
	// ErrWindow: the window moved past a message that had not executed (Config.Window). A
	// sender that keeps the window rule never lets that happen, so the peer broke it: on the
	// receiver this is a connection error.
	ErrWindow = errors.New("depgraph: the window moved past an unexecuted message")
)

// Window is how many sequence numbers the window rule spans: a Sender with a window has every
// message sent Window or more messages before the one it sends executed locally, so a receiver
// with Config.Window knows that a message Window or more behind the newest one that arrived has
// executed. It is one less than half the sequence space, which is what lets the receiver tell a
// new message from an old one by its number alone.
//
// Why the window. Waiting for expiry caps a sender at 32,768 messages per expiry: about 5,500 a
// second with the default connection timeout of 5 s plus 1 s. Knowledge frees numbers sooner
// than time can. Call N the newest message the receiver has seen. When the sender sent N,
// everything Window or more behind N had executed locally, so (the pruning rule) on the
// receiver too. A receiver therefore knows, from N alone:
//
//   - a message Window or more behind N has executed: a copy of it is ignored and a dependency
//     on it is met;
//   - every message that has not arrived yet lies fewer than Window numbers behind N or at most
//     Window ahead of it, so on a circle of 32,768 numbers "ahead" and "behind" are never
//     ambiguous: a number ahead of N is a new message.
//
// So an executed message needs no node at all: it leaves the graph as it executes, and one bit
// per sequence number (4 KiB) says "executed" until N moves Window past it. Only messages that
// wait, and placeholders for what they wait for, are nodes. Why reuse is then safe: the sender
// uses number s again only once the message Window numbers before the new s had executed, that
// is 32,768 − Window ≥ Window numbers after the old s; the receiver saw that message, so N had
// passed the old s by Window and its bit was cleared before the new s could arrive. The
// Sender's own graph keeps the same rule, for the same reason. The sender may run Window
// messages ahead of its oldest unexecuted one, and a number returns as soon as its old message
// and the Window − 1 after it executed: the ceiling is Window messages per the time the oldest
// one takes to execute (about a round trip on a clean link), not 32,768 per expiry. What the
// graph cannot see, a copy of the old message still in flight when the number returns, is the
// message layer's to rule out (net/message: the packet layer drops it as stale).
const Window = SeqSpace/2 - 1

// seqDiff is how far a is ahead of b on the circle of sequence numbers: in [-SeqSpace/2,
// SeqSpace/2), negative when a is behind b.
func seqDiff(a, b uint16) int {
	d := int((a - b) & SeqMask)
	if d >= SeqSpace/2 {
		d -= SeqSpace
	}
	return d
}

// Config sets the lifetime rules of a Graph.
type Config struct {
	// Expiry (node expiry): a node leaves the graph this long after it executed; an unexecuted
	// node that has existed this long is a connection error (ErrExpired): a message or a
	// dependency never came. Nodes cannot stay forever: the sequence space wraps, and a stale
	// executed node would make a new message with the same number look like a duplicate.
	// net/message uses the connection timeout plus one second (message.Config.Expiry), by which
	// time no copy of the old message can still be in flight. It must be positive: a node that
	// left the graph at once could not recognise a duplicate of its message, which would then
	// execute twice. (With Window, executed nodes leave as they execute, and Expiry applies to
	// unexecuted ones only.)
	Expiry time.Duration
	// KeepUnexecuted: unexecuted nodes never expire (the sender's local graph, whose unacked
	// messages are governed by the message layer's resend threshold instead).
	KeepUnexecuted bool
	// Window: the graph keeps the window rule (see Window), as the receiver of a Sender made
	// with NewWindowSender, and as that
	// Sender's own graph. A message Window or more behind the newest one added has executed:
	// a copy of it is ignored and a dependency on it is met. An executed message needs no
	// node: it leaves the graph as it executes, and one bit per sequence number remembers it
	// until the newest message moves Window past it. Expiry then applies to unexecuted nodes
	// only. A node the window passes unexecuted is ErrWindow.
	Window bool
}

// Stats are running totals of a Graph, for tests and the debug panel.
type Stats struct {
	Added             uint64 // messages inserted (new nodes and filled placeholders)
	Placeholders      uint64 // nodes created because a message named an unknown dependency
	Executed          uint64 // messages executed
	Ignored           uint64 // Add calls for a message that had already executed
	Duplicates        uint64 // Add calls for a message present but not yet executed
	Expired           uint64 // executed nodes removed after Expiry
	Forgotten         uint64 // executed messages the window passed (Config.Window), no longer remembered
	ExpiredUnexecuted uint64 // unexecuted nodes removed after Expiry (errors on the receiver)
	MaxLen            int    // the most nodes present at once
}

// node flags.
const (
	flagLive     = 1 << iota // the slab slot holds a node
	flagFilled               // the message itself was added (not just named as a dependency)
	flagArrived              // the message may execute once its dependencies have
	flagExecuted             // the message has executed
)

// link names a node by slab index and generation, so that a link to a node that has since
// been removed (and whose slot was reused) is recognised as stale instead of followed.
type link struct {
	idx int32
	gen uint32
	seq uint16
}

// lostIdx marks a dependency link whose node expired without executing: the dependent can
// never run, and the link still reports the seq it waits for.
const lostIdx = -1

// edgeList is a singly linked list of edges in the graph's shared edge pool. Keeping every
// node's lists in one pool, rather than a slice per node, means that in steady state no list
// ever grows: the pool reaches the most edges alive at once and then only recycles.
type edgeList struct{ head, tail int32 }

var emptyList = edgeList{none, none}

const none = -1

type edge struct {
	to   link
	next int32
}

type node[T any] struct {
	v          T
	succ       edgeList // dependents still waiting for this node (released when it executes)
	deps       edgeList // dependencies that had not executed when this message was added
	created    int64    // graph clock, ns
	executedAt int64
	birth      uint64 // creation order, for "oldest first"
	gen        uint32
	pending    int32 // dependencies not executed yet
	seq        uint16
	flags      uint8
}

// Graph is a message dependency graph: it executes each message exactly once, and only after
// every message it depends on has executed. The zero value is not usable; call New.
//
// Why a graph: a guaranteed message that is lost is sent again in a later packet, so "spawn
// enemy 17" may reach the peer after "kill enemy 17". An ordered channel (message N waits for
// every message before it) is TCP again: one lost chat line holds up every spawn behind it.
// Each message should wait only for the messages it needs: "kill enemy 17" for "spawn enemy
// 17", "start game" for the N "player info" messages, ten spawns for nothing, so losing the
// first holds up none of the others. A channel is the special case where every message depends
// on the one before it (net/message's Chain). The relations form a directed acyclic graph:
//
//	sender                              receiver graph
//	A (seq 7)            ──── lost ──X
//	B (seq 8, deps [7])  ────────────►  [7 placeholder] ──► [8 B, waiting]
//	A (seq 7, resent)    ────────────►  [7 A] executes, then releases
//	                                    [8 B] executes
//
// Executing a node releases its successors, which may execute in turn; that cascade runs as a
// loop over an explicit queue, not as recursion, so a chain as long as the sequence space
// unwinds without deepening the call stack.
//
// Cost: lookup by sequence number is one array index (index, 128 KiB per graph) into a slab
// of nodes recycled through a free list, in pages that never move. Successor and dependency
// lists keep their capacity when a slot is reused, and expiry walks two FIFO queues (by
// creation time and by execution time, both in order because time never goes back), so in
// steady state adding, executing and expiring allocate nothing and never scan the graph; the
// window forgets one number per number it moves.
//
// A Graph is not safe for concurrent use. The execute callback may call back into the Graph
// (for example to Add a message produced by the one being executed); such calls only queue
// work, which the outer call finishes, still in dependency order.
type Graph[T any] struct {
	cfg     Config
	execute func(seq uint16, v T)

	index [SeqSpace]int32 // seq → slab index + 1; 0 means no node (128 KiB, the fixed cost)
	// pages are the slab, in pages of pageSize nodes allocated as the slab grows to the most
	// nodes ever present at once. A page never moves: growing the slab by appending to one
	// slice copied every node at each growth, which was most of the time a receiver spent
	// on a burst of new messages.
	pages [SeqSpace / pageSize]*[pageSize]node[T]
	slots int32   // slab slots in use or freed: the next new slot's index
	free  []int32 // free slab slots
	edges []edge  // the edge pool; grows to the most edges ever alive at once
	freeE int32   // head of the free edge list

	created  fifo // unexecuted nodes by creation time (unused when KeepUnexecuted)
	executed fifo // executed nodes by execution time
	ready    []link
	running  bool
	scratch  []int32 // slab indices of the dependencies being added

	// newest is the newest message added, for the window rule (Config.Window): it starts one
	// before 0, where a sender's first message is numbered. done has a bit set for every
	// message that executed and is less than Window behind newest.
	newest uint16
	done   [SeqSpace / 64]uint64

	epoch    time.Time // the first time seen; the clock counts ns from here
	epochSet bool
	lastNow  time.Time // the argument of the last call, to skip recomputing the clock
	now      int64     // the latest time seen; time never goes back
	births   uint64
	live     int
	err      error // an expiry error found lazily, returned by the next Expire
	stats    Stats
}

// New returns an empty Graph. execute is called once for each message when it executes; it
// may be nil. New panics if cfg.Expiry is not positive.
func New[T any](cfg Config, execute func(seq uint16, v T)) *Graph[T] {
	if cfg.Expiry <= 0 {
		panic("depgraph: Config.Expiry must be positive")
	}
	return &Graph[T]{cfg: cfg, execute: execute, freeE: none, newest: SeqMask}
}

// appendEdge adds an edge to l, taking it from the pool.
func (g *Graph[T]) appendEdge(l *edgeList, to link) {
	e := g.freeE
	if e != none {
		g.freeE = g.edges[e].next
		g.edges[e] = edge{to: to, next: none}
	} else {
		g.edges = append(g.edges, edge{to: to, next: none})
		e = int32(len(g.edges) - 1)
	}
	if l.tail == none {
		l.head = e
	} else {
		g.edges[l.tail].next = e
	}
	l.tail = e
}

// releaseEdges returns the whole list to the pool in O(1).
func (g *Graph[T]) releaseEdges(l *edgeList) {
	if l.head != none {
		g.edges[l.tail].next = g.freeE
		g.freeE = l.head
	}
	*l = emptyList
}

// clock converts now to the graph's clock and advances it. A now earlier than one already
// seen counts as the latest one, which keeps the expiry queues in order.
func (g *Graph[T]) clock(now time.Time) int64 {
	if g.epochSet && now == g.lastNow {
		// The same value as last time (one packet's messages are handled at one now):
		// skip the comparatively costly Sub. == compares representations, which is exactly
		// what a cache key needs.
		return g.now
	}
	if !g.epochSet {
		g.epoch, g.epochSet = now, true
	}
	g.lastNow = now
	if t := int64(now.Sub(g.epoch)); t > g.now {
		g.now = t
	}
	return g.now
}

func (g *Graph[T]) wall(t int64) time.Time { return g.epoch.Add(time.Duration(t)) }

// lookup returns the slab index of seq's node, or -1.
func (g *Graph[T]) lookup(seq uint16) int32 {
	if seq > SeqMask {
		return -1
	}
	return g.index[seq] - 1
}

// deadline is when node n leaves the graph, and whether it ever does.
func (g *Graph[T]) deadline(n *node[T]) (int64, bool) {
	if n.flags&flagExecuted != 0 {
		return n.executedAt + int64(g.cfg.Expiry), true
	}
	if g.cfg.KeepUnexecuted {
		return 0, false
	}
	return n.created + int64(g.cfg.Expiry), true
}

// current returns seq's node, first removing it if its time has come (lazy expiry: a
// sequence number can be reused as soon as its old node has expired, even before Expire runs).
func (g *Graph[T]) current(seq uint16) int32 {
	i := g.lookup(seq)
	if i < 0 {
		return -1
	}
	if d, ok := g.deadline(g.node(i)); ok && d <= g.now {
		g.expireNode(i)
		return -1
	}
	return i
}

// pageSize is how many nodes one page of the slab holds.
const pageSize = 512

// node is the node in slab slot i.
func (g *Graph[T]) node(i int32) *node[T] { return &g.pages[i/pageSize][i%pageSize] }

func (g *Graph[T]) alloc(seq uint16, flags uint8) int32 {
	var i int32
	if k := len(g.free); k > 0 {
		i = g.free[k-1]
		g.free = g.free[:k-1]
	} else {
		// A slot is taken only while its sequence number has a node, so the slab never holds
		// more than SeqSpace nodes and the pages never run out.
		i = g.slots
		g.slots++
		if g.pages[i/pageSize] == nil {
			g.pages[i/pageSize] = new([pageSize]node[T])
		}
	}
	n := g.node(i)
	n.seq, n.flags, n.pending = seq, flagLive|flags, 0
	n.succ, n.deps = emptyList, emptyList
	n.created, n.executedAt = g.now, 0
	g.births++
	n.birth = g.births
	g.index[seq] = i + 1
	g.live++
	g.stats.MaxLen = max(g.stats.MaxLen, g.live)
	if !g.cfg.KeepUnexecuted {
		g.created.push(link{idx: i, gen: n.gen, seq: seq})
	}
	return i
}

func (g *Graph[T]) remove(i int32) {
	n := g.node(i)
	g.index[n.seq] = 0
	var zero T
	n.v = zero
	g.releaseEdges(&n.succ)
	g.releaseEdges(&n.deps)
	n.flags, n.pending = 0, 0
	n.gen++
	g.free = append(g.free, i)
	g.live--
}

// expireNode removes node i whose time has come.
func (g *Graph[T]) expireNode(i int32) {
	n := g.node(i)
	if n.flags&flagExecuted != 0 {
		g.stats.Expired++
		g.remove(i)
		return
	}
	g.stats.ExpiredUnexecuted++
	if g.err == nil {
		g.err = fmt.Errorf("%w: %s %d not executed within %v", ErrExpired, g.what(n), n.seq, g.cfg.Expiry)
	}
	g.removeUnexecuted(i)
}

// what names an unexecuted node in an error.
func (g *Graph[T]) what(n *node[T]) string {
	if n.flags&flagFilled == 0 {
		return "dependency (never arrived)"
	}
	return "message"
}

// removeUnexecuted removes node i, which never executed.
func (g *Graph[T]) removeUnexecuted(i int32) {
	n := g.node(i)
	// Its dependents can never run now; mark their links so they still report what they
	// wait for, instead of silently forgetting it.
	for e := n.succ.head; e != none; e = g.edges[e].next {
		to := g.edges[e].to
		s := g.node(to.idx)
		if s.gen != to.gen {
			continue
		}
		for d := s.deps.head; d != none; d = g.edges[d].next {
			if dl := &g.edges[d].to; dl.idx == i && dl.gen == n.gen {
				dl.idx = lostIdx
			}
		}
	}
	g.remove(i)
}

// behindWindow reports whether seq is Window or more behind the newest message added, on a
// graph with the window rule: such a message has executed.
func (g *Graph[T]) behindWindow(seq uint16) bool {
	return g.cfg.Window && seqDiff(seq, g.newest) <= -Window
}

// isDone reports whether seq's bit says it executed (window rule).
func (g *Graph[T]) isDone(seq uint16) bool { return g.done[seq>>6]&(1<<(seq&63)) != 0 }

// advance makes seq, ahead of the newest message, the newest one, and forgets what the window
// passes on the way: one sequence number per step, so the cost is one bit per message. A node
// passed unexecuted is ErrWindow, reported by the next Expire.
func (g *Graph[T]) advance(seq uint16) {
	for g.newest != seq {
		g.newest = (g.newest + 1) & SeqMask
		out := (g.newest - Window) & SeqMask
		if w, bit := &g.done[out>>6], uint64(1)<<(out&63); *w&bit != 0 {
			*w &^= bit
			g.stats.Forgotten++
		}
		i := g.lookup(out)
		if i < 0 {
			continue
		}
		n := g.node(i)
		if g.err == nil {
			g.err = fmt.Errorf("%w: %s %d, now %d behind message %d", ErrWindow, g.what(n), n.seq, Window, g.newest)
		}
		g.removeUnexecuted(i)
	}
}

// Add inserts the message seq carrying v, with its dependencies.
//
// On a graph with the window rule (Config.Window) a message Window or more behind the newest
// one that arrived is ignored like an executed one, and a dependency on one is met.
//
// If the message already executed (and its node has not expired) the call is ignored and
// returns (false, nil): a resent copy must not execute twice. If the message is present but
// waiting, the call is a duplicate and is ignored too (the first v wins), except that
// arrived=true marks a waiting sender-side node as arrived, like Arrive.
//
// Otherwise the node is created (or, if another message named seq as a dependency, the
// placeholder is filled in) and added is true. Each dependency that has not executed gets an
// edge to the new node; a dependency with no node gets a placeholder. If arrived is true and
// every dependency has executed, the message executes at once, followed by every waiting
// message this made ready, in dependency order. If arrived is false (the sender's local
// graph) the node waits for Arrive.
//
// A dependency naming seq itself is ErrSelfDependency; a seq or dependency above SeqMask is
// ErrSeqRange; in both cases nothing changes. Repeated dependencies count once.
func (g *Graph[T]) Add(now time.Time, seq uint16, deps []uint16, v T, arrived bool) (added bool, err error) {
	if seq > SeqMask {
		return false, fmt.Errorf("%w: message %d", ErrSeqRange, seq)
	}
	for _, d := range deps {
		if d > SeqMask {
			return false, fmt.Errorf("%w: dependency %d of message %d", ErrSeqRange, d, seq)
		}
		if d == seq {
			return false, fmt.Errorf("%w: message %d", ErrSelfDependency, seq)
		}
	}
	g.clock(now)
	if g.cfg.Window {
		if seqDiff(seq, g.newest) > 0 {
			g.advance(seq)
		} else if g.behindWindow(seq) || g.isDone(seq) {
			g.stats.Ignored++
			return false, nil
		}
	}

	i := g.current(seq)
	if i >= 0 {
		n := g.node(i)
		switch {
		case n.flags&flagExecuted != 0:
			g.stats.Ignored++
			return false, nil
		case n.flags&flagFilled != 0:
			g.stats.Duplicates++
			if arrived && n.flags&flagArrived == 0 {
				g.arrive(i)
			}
			return false, nil
		}
		// A placeholder: fill it in below. It keeps its creation time, so a dependency that
		// was awaited too long is still an error even if it shows up at the last moment.
	}

	// Resolve the dependencies first, so that placeholders are older than the message that
	// named them: if they expire, the error names the missing message, not its dependent.
	g.scratch = g.scratch[:0]
	for _, d := range deps {
		if g.cfg.Window && (g.behindWindow(d) || g.isDone(d)) {
			g.scratch = append(g.scratch, none) // executed
			continue
		}
		j := g.current(d)
		if j < 0 {
			j = g.alloc(d, 0)
			g.stats.Placeholders++
		}
		g.scratch = append(g.scratch, j)
	}
	if i < 0 {
		i = g.alloc(seq, flagFilled)
	} else {
		g.node(i).flags |= flagFilled
	}
	g.stats.Added++
	n := g.node(i)
	n.v = v
	for k, d := range deps {
		j := g.scratch[k]
		if j == none {
			continue
		}
		dn := g.node(j)
		if dn.flags&flagExecuted != 0 || g.listHas(n.deps, d) {
			continue // already satisfied (no edge), or named twice
		}
		g.appendEdge(&n.deps, link{idx: j, gen: dn.gen, seq: d})
		g.appendEdge(&dn.succ, link{idx: i, gen: n.gen, seq: seq})
		n.pending++
	}
	if arrived {
		g.arrive(i)
	}
	return true, nil
}

func (g *Graph[T]) listHas(l edgeList, seq uint16) bool {
	for e := l.head; e != none; e = g.edges[e].next {
		if g.edges[e].to.seq == seq {
			return true
		}
	}
	return false
}

// Arrive marks a sender-side node as arrived (a packet carrying it was acknowledged) and
// executes it if its dependencies have executed, then every message this made ready. An
// unknown seq, a placeholder or an executed node is left alone.
func (g *Graph[T]) Arrive(now time.Time, seq uint16) {
	g.clock(now)
	i := g.current(seq)
	if i < 0 {
		return
	}
	n := g.node(i)
	if n.flags&flagFilled == 0 || n.flags&(flagExecuted|flagArrived) != 0 {
		return
	}
	g.arrive(i)
}

func (g *Graph[T]) arrive(i int32) {
	n := g.node(i)
	n.flags |= flagArrived
	if n.pending == 0 {
		g.ready = append(g.ready, link{idx: i, gen: n.gen, seq: n.seq})
		g.run()
	}
}

// run executes the ready queue. It is a loop over an explicit queue rather than recursion, so
// a chain as long as the sequence space unwinds without growing the call stack, and a node is
// queued only when its last dependency executed, so the queue order is a dependency order.
// A nested call (from inside the execute callback) leaves the work to the outer loop.
func (g *Graph[T]) run() {
	if g.running {
		return
	}
	g.running = true
	for k := 0; k < len(g.ready); k++ {
		r := g.ready[k]
		n := g.node(r.idx)
		if n.gen != r.gen || n.flags&flagExecuted != 0 {
			continue
		}
		n.flags |= flagExecuted
		n.executedAt = g.now
		if !g.cfg.Window {
			g.executed.push(r)
		}
		g.stats.Executed++
		v := n.v
		var zero T
		n.v = zero // the payload is not needed any more; do not keep it alive
		if g.execute != nil {
			g.execute(n.seq, v)
		}
		n = g.node(r.idx) // the callback may have removed the node (its generation changes)
		if n.gen != r.gen {
			continue
		}
		for e := n.succ.head; e != none; e = g.edges[e].next {
			to := g.edges[e].to
			s := g.node(to.idx)
			if s.gen != to.gen || s.flags&flagExecuted != 0 {
				continue
			}
			s.pending--
			if s.pending == 0 && s.flags&flagArrived != 0 {
				g.ready = append(g.ready, to)
			}
		}
		g.releaseEdges(&n.succ)
		g.releaseEdges(&n.deps)
		if g.cfg.Window {
			// Under the window rule an executed message is one bit, not a node.
			g.done[r.seq>>6] |= 1 << (r.seq & 63)
			g.remove(r.idx)
		}
	}
	g.ready = g.ready[:0]
	g.running = false
}

// Expire removes the nodes whose time has come: executed nodes Expiry after they executed,
// unexecuted ones Expiry after they were created (unless KeepUnexecuted). If an unexecuted
// node expired, here or lazily since the last call, it returns an error wrapping ErrExpired
// that names the first such seq: on the receiver that is a connection error.
func (g *Graph[T]) Expire(now time.Time) error {
	t := g.clock(now)
	for {
		l, ok := g.headCreated()
		if !ok || g.node(l.idx).created+int64(g.cfg.Expiry) > t {
			break
		}
		g.created.pop()
		g.expireNode(l.idx)
	}
	for {
		l, ok := g.headExecuted()
		if !ok || g.node(l.idx).executedAt+int64(g.cfg.Expiry) > t {
			break
		}
		g.executed.pop()
		g.expireNode(l.idx)
	}
	err := g.err
	g.err = nil
	return err
}

// headCreated drops stale entries (removed or executed nodes) and returns the oldest
// unexecuted node still waiting.
func (g *Graph[T]) headCreated() (link, bool) {
	for {
		l, ok := g.created.peek()
		if !ok {
			return l, false
		}
		n := g.node(l.idx)
		if n.gen == l.gen && n.flags&flagExecuted == 0 {
			return l, true
		}
		g.created.pop()
	}
}

// headExecuted drops stale entries (nodes removed lazily) and returns the oldest executed node.
func (g *Graph[T]) headExecuted() (link, bool) {
	for {
		l, ok := g.executed.peek()
		if !ok {
			return l, false
		}
		if g.node(l.idx).gen == l.gen {
			return l, true
		}
		g.executed.pop()
	}
}

// NextExpiry is the earliest time at which Expire has work, or the zero Time if none. If an
// expiry error is waiting to be reported it is the latest time seen.
func (g *Graph[T]) NextExpiry() time.Time {
	if g.err != nil {
		return g.wall(g.now)
	}
	var next int64
	found := false
	if l, ok := g.headCreated(); ok {
		next, found = g.node(l.idx).created+int64(g.cfg.Expiry), true
	}
	if l, ok := g.headExecuted(); ok {
		d := g.node(l.idx).executedAt + int64(g.cfg.Expiry)
		if !found || d < next {
			next, found = d, true
		}
	}
	if !found {
		return time.Time{}
	}
	return g.wall(next)
}

// Executed reports whether seq's node is present and executed, or, on a graph with the
// window rule, whether seq is so far behind the newest message that it must have executed.
func (g *Graph[T]) Executed(seq uint16) bool {
	if g.cfg.Window && (g.behindWindow(seq) || g.isDone(seq)) {
		return true
	}
	i := g.lookup(seq)
	return i >= 0 && g.node(i).flags&flagExecuted != 0
}

// Arrived reports whether seq's message is present and waiting to execute (it arrived, or on
// the sender's side was acknowledged, but a dependency has not executed yet).
func (g *Graph[T]) Arrived(seq uint16) bool {
	i := g.lookup(seq)
	return i >= 0 && g.node(i).flags&(flagArrived|flagExecuted) == flagArrived
}

// WaitingCount is the number of messages that arrived and wait for a dependency (placeholders
// not counted). It scans the live nodes; meant for statistics, not for every packet.
func (g *Graph[T]) WaitingCount() int {
	n := 0
	for i := range g.slots {
		if g.node(i).flags&(flagLive|flagArrived|flagExecuted) == flagLive|flagArrived {
			n++
		}
	}
	return n
}

// Present reports whether seq has a node (executed, waiting, or a placeholder).
func (g *Graph[T]) Present(seq uint16) bool { return g.lookup(seq) >= 0 }

// Len is the number of nodes present.
func (g *Graph[T]) Len() int { return g.live }

// Stats returns the running totals.
func (g *Graph[T]) Stats() Stats { return g.stats }

// Config returns the configuration the Graph was made with.
func (g *Graph[T]) Config() Config { return g.cfg }

// PendingDeps appends to dst the dependencies of seq that have not executed yet, in the order
// the message named them: what a copy of the message sent now would have to carry.
func (g *Graph[T]) PendingDeps(seq uint16, dst []uint16) []uint16 {
	i := g.lookup(seq)
	if i < 0 {
		return dst
	}
	for e := g.node(i).deps.head; e != none; e = g.edges[e].next {
		if d := g.edges[e].to; g.depPending(d) {
			dst = append(dst, d.seq)
		}
	}
	return dst
}

func (g *Graph[T]) depPending(d link) bool {
	if d.idx == lostIdx {
		return true
	}
	n := g.node(d.idx)
	// A removed dependency node was executed and expired; an unexecuted one that expired was
	// marked lost above.
	return n.gen == d.gen && n.flags&flagExecuted == 0
}

// fifo is a queue of links on a circular buffer that doubles when full and never shrinks, so
// that in steady state pushing and popping allocate nothing and move nothing.
type fifo struct {
	buf  []link // len is a power of two
	head int
	n    int
}

func (q *fifo) push(l link) {
	if q.n == len(q.buf) {
		nb := make([]link, max(64, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = l
	q.n++
}

func (q *fifo) peek() (link, bool) {
	if q.n == 0 {
		return link{}, false
	}
	return q.buf[q.head], true
}

func (q *fifo) pop() {
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
}
