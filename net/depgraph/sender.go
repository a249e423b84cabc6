package depgraph

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// noCopy makes go vet's copylocks check report any copy of a struct that embeds it.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Dependency is a handle to a sent guaranteed message, to name it as a dependency of later
// messages. Its zero value is unbound and ready to use.
//
// The sender's local graph keeps a pointer to the handle and sets it executed when the
// message executes locally; from then on, naming it as a dependency costs nothing on the
// wire. Because of that pointer a handle must not be copied (go vet reports copies), and
// binding it to a new message detaches it from the old one. Release detaches it for good.
type Dependency struct {
	noCopy   noCopy
	s        *Sender
	seq      uint16
	bound    bool
	executed bool
}

// Executed reports whether the sender's local graph executed the message: the receiver is
// known to have executed it, so later messages need not name it.
func (d *Dependency) Executed() bool { return d.bound && d.executed }

// Seq returns the sequence number of the message the handle is bound to, and whether it is
// bound at all.
func (d *Dependency) Seq() (uint16, bool) { return d.seq, d.bound }

// Bound reports whether the handle names a sent message.
func (d *Dependency) Bound() bool { return d.bound }

// Release unbinds the handle and removes the sender's reference to it: the explicit form of
// the destructor a handle would have in a language with destructors. A released handle may be
// bound again, to any Sender.
func (d *Dependency) Release() {
	if d.s != nil {
		d.s.detach(d)
	}
	d.s, d.seq, d.bound, d.executed = nil, 0, false, false
}

// SenderStats are the running totals of a Sender.
type SenderStats struct {
	Graph    Stats  // the local graph's totals (Executed counts local executions)
	Sent     uint64 // messages registered by Send
	WireDeps uint64 // dependencies put on the wire by Send
	Pruned   uint64 // dependencies left off because they had executed locally
}

// Sender is the sender's local copy of the dependency graph. A message's node is created when
// it is sent, marked arrived when a packet carrying it is acknowledged, and executes when it
// has arrived and its dependencies have executed locally, exactly as on the receiver. An
// executed node is therefore known to have executed on the receiver, and dependencies on it
// are pruned from later messages.
//
// Why: dependencies cost two bytes each on the wire, and one that names an old message is wrong
// after the sequence numbers wrap ("kill enemy 17" an hour after its spawn: the old-dependency
// problem). Both go away if the sender leaves out every dependency it knows the receiver has
// executed. An acknowledged message may still wait on the receiver for a dependency that was
// lost, so its local node waits too, and executes only once its dependencies have. In steady
// state every message is acknowledged within a round trip, so dependency lists shrink to
// nothing and a guaranteed message costs two bytes, as on an ordered channel.
//
// A sequence number may be reused only once Free says so: its old node has left the sender's
// graph, which happens after the receiver's left (NewSender), or the window rule holds
// (NewWindowSender).
type Sender struct {
	// OnExecuted, if set, is called when a message executes locally (for the message layer to
	// drop its resend buffer entry: such a message is never resent).
	OnExecuted func(seq uint16)

	g      *Graph[*Dependency]
	sent   uint64
	onWire uint64
	pruned uint64

	// The window rule (NewWindowSender): order holds the sent messages in the order they
	// were sent, so that its front, once executed and removed ones are dropped, is the
	// oldest message not executed yet.
	window bool
	order  fifo
	last   uint16 // the latest sequence number sent
}

// NewSender returns an empty local graph whose executed nodes leave after expiry (the
// receiver's expiry: connection timeout plus one second). Unexecuted nodes never expire here.
// A sequence number is free again once its node expired.
func NewSender(expiry time.Duration) *Sender {
	s := &Sender{}
	s.g = New(Config{Expiry: expiry, KeepUnexecuted: true}, s.executed)
	return s
}

// NewWindowSender is NewSender with the window rule (see Window): sequence numbers go out in increasing order, a new one only
// while every message sent Window or more before it has executed locally, and a number is
// free again as soon as that holds, without waiting for its old node to expire. Its receiver
// must run a Graph with Config.Window.
func NewWindowSender(expiry time.Duration) *Sender {
	s := &Sender{window: true, last: SeqMask} // the first message is 0
	s.g = New(Config{Expiry: expiry, KeepUnexecuted: true, Window: true}, s.executed)
	return s
}

func (s *Sender) executed(seq uint16, d *Dependency) {
	if d != nil {
		d.executed = true
	}
	if s.OnExecuted != nil {
		s.OnExecuted(seq)
	}
}

// detach removes the local graph's pointer to d, so that its message's execution no longer
// touches d.
func (s *Sender) detach(d *Dependency) {
	if !d.bound || d.executed {
		return // an executed node no longer holds its handle
	}
	if i := s.g.lookup(d.seq); i >= 0 && s.g.node(i).v == d {
		s.g.node(i).v = nil
	}
}

// Free reports whether seq may be used for a new message now: no node with that seq is
// present (after lazily expiring it). With the window rule (NewWindowSender) seq must also be
// ahead of the latest number sent, fewer than Window numbers after the oldest message not
// executed locally; its old message, executed long before, is only a bit. The message layer
// stalls (back-pressure) instead of reusing a sequence number whose previous message the
// receiver could still confuse with the new one.
func (s *Sender) Free(now time.Time, seq uint16) bool {
	if seq > SeqMask {
		return false
	}
	s.g.clock(now)
	if s.window {
		if seqDiff(seq, s.last) <= 0 {
			return false
		}
		if o, ok := s.oldestPending(); ok && seqDiff(seq, o.seq) >= Window {
			return false
		}
		// The graph forgot the number's old message when its newest moved Window past it,
		// and it is the same graph: adding seq moves it on.
	}
	return s.g.current(seq) < 0
}

// oldestPending is the oldest message sent that has not executed locally (window rule).
func (s *Sender) oldestPending() (link, bool) {
	for {
		l, ok := s.order.peek()
		if !ok {
			return l, false
		}
		if n := s.g.node(l.idx); n.gen == l.gen && n.flags&flagExecuted == 0 {
			return l, true
		}
		s.order.pop()
	}
}

// Send registers a new message seq with the dependencies given as handles, and returns its
// wire dependency list, appended to wireDeps[:0]: the seqs of the bound handles not yet
// executed, once each. Nil and unbound handles are skipped; executed ones are pruned (and
// counted). A handle bound by another Sender is ErrForeignDependency and a seq still present
// is ErrSeqInUse; on error nothing changes.
//
// If out is non-nil it is bound to the new message. Rebinding a handle detaches it from its
// previous message, whose later execution no longer touches it. out may be one of deps (a
// chain: the new message depends on the one out named): deps are read before out is rebound.
func (s *Sender) Send(now time.Time, seq uint16, deps []*Dependency, out *Dependency, wireDeps []uint16) ([]uint16, error) {
	wireDeps = wireDeps[:0]
	if seq > SeqMask {
		return wireDeps, fmt.Errorf("%w: message %d", ErrSeqRange, seq)
	}
	if out != nil && out.s != nil && out.s != s {
		return wireDeps, fmt.Errorf("%w: output handle for message %d", ErrForeignDependency, seq)
	}
	for _, d := range deps {
		if d != nil && d.s != nil && d.s != s {
			return wireDeps, fmt.Errorf("%w: dependency of message %d", ErrForeignDependency, seq)
		}
	}
	if !s.Free(now, seq) {
		return wireDeps, fmt.Errorf("%w: message %d", ErrSeqInUse, seq)
	}
	for _, d := range deps {
		if d == nil || !d.bound {
			continue
		}
		wireDeps = s.appendPending(wireDeps, d.executed, d.seq)
	}
	return s.register(now, seq, wireDeps, out)
}

// SendSeqs is Send with the dependencies given as sequence numbers of messages this Sender
// sent, such as those Outstanding returns (a barrier). A sequence number that has no
// unexecuted node is pruned.
func (s *Sender) SendSeqs(now time.Time, seq uint16, deps []uint16, out *Dependency, wireDeps []uint16) ([]uint16, error) {
	wireDeps = wireDeps[:0]
	if seq > SeqMask {
		return wireDeps, fmt.Errorf("%w: message %d", ErrSeqRange, seq)
	}
	if out != nil && out.s != nil && out.s != s {
		return wireDeps, fmt.Errorf("%w: output handle for message %d", ErrForeignDependency, seq)
	}
	if !s.Free(now, seq) {
		return wireDeps, fmt.Errorf("%w: message %d", ErrSeqInUse, seq)
	}
	for _, d := range deps {
		wireDeps = s.appendPending(wireDeps, false, d)
	}
	return s.register(now, seq, wireDeps, out)
}

// appendPending appends dep to wireDeps if it still has to go on the wire: it has not executed
// locally (executed ones are pruned and counted) and is not listed already.
func (s *Sender) appendPending(wireDeps []uint16, executed bool, dep uint16) []uint16 {
	if executed || !s.pendingLocally(dep) {
		s.pruned++
		return wireDeps
	}
	if !slices.Contains(wireDeps, dep) {
		wireDeps = append(wireDeps, dep)
	}
	return wireDeps
}

// register adds the message seq with its wire dependencies to the local graph and binds out.
func (s *Sender) register(now time.Time, seq uint16, wireDeps []uint16, out *Dependency) ([]uint16, error) {
	if out != nil {
		s.detach(out)
	}
	if _, err := s.g.Add(now, seq, wireDeps, out, false); err != nil {
		// Unreachable: seq is free and in range, and no unexecuted handle can name it.
		return wireDeps[:0], err
	}
	if s.window {
		i := s.g.lookup(seq)
		s.order.push(link{idx: i, gen: s.g.node(i).gen, seq: seq})
		s.last = seq
	}
	if out != nil {
		out.s, out.seq, out.bound, out.executed = s, seq, true, false
	}
	s.sent++
	s.onWire += uint64(len(wireDeps))
	return wireDeps, nil
}

// pendingLocally reports whether seq has a node that has not executed. A bound, unexecuted
// handle always has one (unexecuted nodes never expire here); the check keeps a stray handle
// from naming a sequence number that no longer means its message.
func (s *Sender) pendingLocally(seq uint16) bool {
	i := s.g.lookup(seq)
	return i >= 0 && s.g.node(i).flags&flagExecuted == 0
}

// Acked records that a packet carrying seq was acknowledged (for a fragmented message: its
// last fragment). The message executes locally if its dependencies have, and so may messages
// waiting for it; handles are marked and OnExecuted is called for each.
func (s *Sender) Acked(now time.Time, seq uint16) { s.g.Arrive(now, seq) }

// WireDeps appends to dst the dependencies of seq not yet executed locally: what a resend of
// the message carries now (it shrinks as acknowledgements come in).
func (s *Sender) WireDeps(seq uint16, dst []uint16) []uint16 { return s.g.PendingDeps(seq, dst) }

// Outstanding appends to dst the seqs of sent messages not yet executed locally, oldest first
// (for barriers: a message that must wait for everything sent so far).
func (s *Sender) Outstanding(dst []uint16) []uint16 {
	start := len(dst)
	for i := range s.g.slots {
		n := s.g.node(i)
		if n.flags&flagLive != 0 && n.flags&flagExecuted == 0 {
			dst = append(dst, n.seq)
		}
	}
	slices.SortFunc(dst[start:], func(a, b uint16) int {
		return cmp.Compare(s.birth(a), s.birth(b))
	})
	return dst
}

func (s *Sender) birth(seq uint16) uint64 { return s.g.node(s.g.lookup(seq)).birth }

// Executed reports whether seq's node is present and executed locally.
func (s *Sender) Executed(seq uint16) bool { return s.g.Executed(seq) }

// Expire removes executed nodes whose time has come, freeing their sequence numbers.
func (s *Sender) Expire(now time.Time) { _ = s.g.Expire(now) }

// NextExpiry is the earliest time at which Expire has work, or the zero Time if none.
func (s *Sender) NextExpiry() time.Time { return s.g.NextExpiry() }

// Len is the number of messages in the local graph.
func (s *Sender) Len() int { return s.g.Len() }

// Pruned is the number of dependencies left off the wire because they had executed locally.
func (s *Sender) Pruned() uint64 { return s.pruned }

// Stats returns the running totals.
func (s *Sender) Stats() SenderStats {
	return SenderStats{Graph: s.g.Stats(), Sent: s.sent, WireDeps: s.onWire, Pruned: s.pruned}
}

// Graph exposes the local graph for inspection (Arrived, PendingDeps, Stats). Adding to it
// directly would bypass the handles; use Send and Acked.
func (s *Sender) Graph() *Graph[*Dependency] { return s.g }
