package message

import (
	"slices"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
)

// The history: what a debug view draws as the connection's dependency graph.
//
// A Conn with Config.History set remembers its most recent guaranteed messages in each
// direction, in two rings of that many entries: the ones it sent and the ones it received.
// An entry holds the message's sequence number, its dependencies (on the sending side with
// the ones the local graph pruned), the first byte of its payload (which the layer above can
// name: a game's message type) and the time of each step of its life: queued, sent, acked and
// executed on the sending side; arrived and executed on the receiving side. With the times, a
// view can show the graph as it stood at any moment the entries cover, and step through it one
// event at a time, which the snapshots a few times a second alone could not: a resend often
// arrives within the same tenth of a second as the message that waited for it.
//
// Recording costs a few stores per step, into entries allocated once, and an entry is found
// again without a search (the sender's outMsg and the receiver's graph value carry its slot),
// except when the sender's local graph executes a message, which looks for it from the oldest
// entry not executed yet, where it nearly always is. Without Config.History none of it runs.

// DefaultHistory is the history a transport asks for when its debug views are on: how many
// guaranteed messages of each direction a connection remembers (Config.History).
const DefaultHistory = 32

// MaxHistory bounds Config.History.
const MaxHistory = 1024

// RecordDeps is how many dependencies an entry of the history keeps; a message that names more
// (a barrier, a "resume" after many re-sync batches) keeps the first ones and counts the rest.
const RecordDeps = 8

// Edge is one dependency of a recorded message.
type Edge struct {
	Seq uint16
	// Pruned (sent messages only): the dependency was left off the wire at the message's
	// latest send, because the sender's local graph had executed it: the receiver has it
	// already, and naming it would only cost two bytes (and mean another message once the
	// sequence numbers wrap).
	Pruned bool
	// Done: the dependency had executed in this side's graph when the snapshot was taken (for
	// a sent message, the local graph, which executes after the receiver's), or is gone from it
	// because it executed long ago.
	Done bool
}

// Record is one guaranteed message of the history. A zero time means the step has not
// happened (yet).
type Record struct {
	// Serial orders the entries of both directions of the connection by when they were
	// recorded, from 1: a message sent after another one was received has a larger serial.
	Serial uint64
	Seq    uint16
	// Outgoing: a message this side sent (false: one it received).
	Outgoing bool
	// First is the first byte of the payload, -1 for an empty one. This layer does not know
	// what it means; the one above does (a game's message type), and names the node with it.
	First int16
	Sync  bool
	// Pieces is the number of fragments, 1 for a message sent whole.
	Pieces int
	// Sends counts the sends of its pieces (sent messages only): more than Pieces means resent.
	Sends int
	// Deps are its dependencies, in the order they were named, at most RecordDeps of them;
	// MoreDeps counts those left out. For a received message they are the ones its packet
	// carried (the sender's pruned ones never arrive).
	Deps     []Edge
	MoreDeps int

	// Sent messages: queued by SendGuaranteed, first sent, acknowledged (every piece), executed
	// by the local graph (so the receiver executed it too).
	Queued, Sent, Acked time.Time
	// Received messages: arrived whole (every fragment).
	Arrived time.Time
	// Executed, on either side.
	Executed time.Time
	// Waited (received messages): it arrived before one of its dependencies had executed, and
	// waited in the graph for it, until Executed (zero: it waits still). Stats.Waited counts
	// them.
	Waited bool
}

// Waited counts the received messages of the history (Incoming) that waited in the graph for
// a dependency, or wait still (Record.Waited): what a debug view's graph shows as "waits on",
// or "waited" once they ran.
func (d *Debug) Waited() int {
	n := 0
	for i := range d.Incoming {
		if d.Incoming[i].Waited {
			n++
		}
	}
	return n
}

// histEntry is a Record in a ring, its dependencies kept in place so that recording allocates
// nothing.
type histEntry struct {
	Record
	deps  [RecordDeps]Edge
	nDeps uint8
}

// histRing is one direction's history: a ring of entries allocated once.
type histRing struct {
	buf  []histEntry
	next int // the slot the next entry takes
	n    int
	// executedFront counts the entries, from the oldest on, that unexecuted looks past: every
	// one of them has executed. Messages execute about in the order they were sent, so the
	// one that executes next is nearly always the first after them.
	executedFront int
}

// history is a connection's two rings and the serial counter they share.
type history struct {
	out, in histRing
	serial  uint64
}

func newHistory(size int) *history {
	size = min(size, MaxHistory)
	return &history{out: histRing{buf: make([]histEntry, size)}, in: histRing{buf: make([]histEntry, size)}}
}

// histRef names an entry: its slot, and its serial to tell it from a later entry in that slot.
type histRef struct {
	slot   int32
	serial uint64
}

// add starts a new entry in r, overwriting the oldest when the ring is full.
func (h *history) add(r *histRing, seq uint16, payload []byte, sync bool, pieces int) (*histEntry, histRef) {
	h.serial++
	slot := r.next
	e := &r.buf[slot]
	*e = histEntry{Record: Record{Serial: h.serial, Seq: seq, First: -1, Sync: sync, Pieces: pieces}}
	if len(payload) > 0 {
		e.First = int16(payload[0])
	}
	if r.n == len(r.buf) {
		r.executedFront = max(r.executedFront-1, 0) // the oldest entry made room
	}
	r.next = (r.next + 1) % len(r.buf)
	r.n = min(r.n+1, len(r.buf))
	return e, histRef{int32(slot), h.serial}
}

// addDep appends a dependency to e, or counts it when e has no room left.
func (e *histEntry) addDep(d Edge) {
	for _, have := range e.deps[:e.nDeps] {
		if have.Seq == d.Seq {
			return
		}
	}
	if int(e.nDeps) == len(e.deps) {
		e.MoreDeps++
		return
	}
	e.deps[e.nDeps] = d
	e.nDeps++
}

// at returns the entry ref names, or nil if the slot has been taken by a later one.
func (r *histRing) at(ref histRef) *histEntry {
	if ref.serial == 0 || int(ref.slot) >= len(r.buf) {
		return nil
	}
	if e := &r.buf[ref.slot]; e.Serial == ref.serial {
		return e
	}
	return nil
}

// entry is the i-th oldest entry.
func (r *histRing) entry(i int) *histEntry { return &r.buf[(r.next-r.n+i+len(r.buf))%len(r.buf)] }

// unexecuted returns the entry with sequence number seq that has not executed yet, or nil. (A
// ring holds far fewer entries than there are sequence numbers: one entry at most has seq.)
func (r *histRing) unexecuted(seq uint16) *histEntry {
	for i := r.executedFront; i < r.n; i++ {
		if e := r.entry(i); e.Seq == seq && e.Executed.IsZero() {
			return e
		}
	}
	return nil
}

// executed marks e executed at now and moves executedFront past the executed entries.
func (r *histRing) executed(e *histEntry, now time.Time) {
	e.Executed = now
	for r.executedFront < r.n && !r.entry(r.executedFront).Executed.IsZero() {
		r.executedFront++
	}
}

// snapshot appends the entries of r to dst, oldest first, their dependencies copied into one
// array, each marked done as done says.
func (r *histRing) snapshot(dst []Record, done func(seq uint16) bool) []Record {
	edges := 0
	for i := range r.n {
		edges += int(r.entry(i).nDeps)
	}
	all := make([]Edge, 0, edges)
	for i := range r.n {
		e := r.entry(i)
		rec := e.Record
		start := len(all)
		for _, d := range e.deps[:e.nDeps] {
			d.Done = done(d.Seq)
			all = append(all, d)
		}
		rec.Deps = all[start:len(all):len(all)]
		dst = append(dst, rec)
	}
	return dst
}

// namedDeps appends to dst the sequence numbers of the dependencies a message is sent with, as
// the caller named them: handles bound to a message, or sequence numbers (a barrier). Called
// before the sender's graph binds the new message's handle, which may be one of deps (a chain).
func namedDeps(dst []uint16, deps []*depgraph.Dependency, depSeqs []uint16) []uint16 {
	for _, d := range deps {
		if d == nil {
			continue
		}
		if seq, ok := d.Seq(); ok {
			dst = append(dst, seq)
		}
	}
	return append(dst, depSeqs...)
}

// recordQueued starts the history entry of a message just queued by SendGuaranteed, with the
// dependencies named (namedDeps), those missing from wireDeps marked pruned.
func (c *Conn) recordQueued(now time.Time, m *outMsg, named, wireDeps []uint16) {
	e, ref := c.hist.add(&c.hist.out, m.seq, m.payload, m.kind == sendSync, len(m.units))
	e.Outgoing, e.Queued = true, now
	for _, seq := range named {
		e.addDep(Edge{Seq: seq, Pruned: !slices.Contains(wireDeps, seq)})
	}
	m.hist = ref
}

// recordSent notes a send of one of m's pieces that carried wireDeps: the first send's time,
// the count, and the dependencies the send left off.
func (c *Conn) recordSent(now time.Time, m *outMsg, wireDeps []uint16) {
	e := c.hist.out.at(m.hist)
	if e == nil {
		return
	}
	if e.Sent.IsZero() {
		e.Sent = now
	}
	e.Sends++
	for i := range e.deps[:e.nDeps] {
		if !slices.Contains(wireDeps, e.deps[i].Seq) {
			e.deps[i].Pruned = true
		}
	}
}

// recordAcked notes that every piece of m was acknowledged.
func (c *Conn) recordAcked(now time.Time, m *outMsg) {
	if e := c.hist.out.at(m.hist); e != nil {
		e.Acked = now
	}
}

// recordLocalExecuted is the sender's local graph's callback (set only with a history): seq
// executed there, so the receiver has executed it.
func (c *Conn) recordLocalExecuted(seq uint16) {
	if e := c.hist.out.unexecuted(seq); e != nil {
		c.hist.out.executed(e, c.lastNow)
	}
}

// recordArrived starts the history entry of a received message, complete, with the
// dependencies its packet carried.
func (c *Conn) recordArrived(now time.Time, seq uint16, deps []uint16, payload []byte, sync bool, frags int) histRef {
	e, ref := c.hist.add(&c.hist.in, seq, payload, sync, max(frags, 1))
	e.Arrived = now
	for _, d := range deps {
		e.addDep(Edge{Seq: d})
	}
	return ref
}

// recordWaits notes that the message of ref arrived before a dependency had executed.
func (c *Conn) recordWaits(ref histRef) {
	if e := c.hist.in.at(ref); e != nil {
		e.Waited = true
	}
}

// recordExecuted notes that the receiver's graph executed the message of ref.
func (c *Conn) recordExecuted(ref histRef) {
	if e := c.hist.in.at(ref); e != nil {
		c.hist.in.executed(e, c.lastNow)
	}
}

// historyViews fills d's Outgoing and Incoming from the rings.
func (c *Conn) historyViews(d *Debug) {
	if c.hist == nil {
		return
	}
	d.Outgoing = c.hist.out.snapshot(make([]Record, 0, c.hist.out.n), func(seq uint16) bool {
		g := c.sender.Graph()
		return !g.Present(seq) || g.Executed(seq)
	})
	d.Incoming = c.hist.in.snapshot(make([]Record, 0, c.hist.in.n), func(seq uint16) bool {
		return !c.recv.Present(seq) || c.recv.Executed(seq)
	})
}
