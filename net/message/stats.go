package message

import (
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/packet"
)

// counters are the message layer's own counts; Stats adds the packet layer's.
type counters struct {
	UnreliableSent     uint64
	UnreliableReceived uint64
	GuaranteedQueued   uint64
	GuaranteedSent     uint64 // first sends
	GuaranteedResent   uint64 // units sent again (whole messages or fragments)
	// SpuriousResends counts units resent although an earlier copy arrived: the ack of that
	// copy came after the resend left (once per unit, however many times it went again).
	SpuriousResends uint64
	// LostWithMessages counts this side's packets that carried guaranteed messages and were
	// lost: each needs a resend, so GuaranteedResent / LostWithMessages is the resends per loss.
	LostWithMessages   uint64
	GuaranteedExecuted uint64 // executed by the receiver's graph (delivered)
	DuplicatesIgnored  uint64 // guaranteed messages or fragments that arrived again after arriving once
	DependencyBytes    uint64 // bytes of dependency words sent (2 per dependency per send)
	SequenceBytes      uint64 // bytes of message sequence words sent (2 per guaranteed record)
	FragmentsSent      uint64
	FragmentsResent    uint64
	FragmentsReceived  uint64
	FragmentsDropped   uint64 // no reassembly room; the sender sends them again
	Backpressure       uint64 // sends refused because the next sequence number was still in use

	ackOwed        bool
	unackedPackets int // accepted packets since this side last sent one
}

// Stats is a snapshot of one connection's counters and estimates.
type Stats struct {
	counters
	Packet packet.Stats

	PendingGuaranteed int    // guaranteed messages queued or sent and not yet acknowledged
	QueuedUnreliable  int    // unreliable messages waiting for a packet
	ReceiverGraph     int    // nodes in the receiver's graph (executed ones stay until they expire)
	ReceiverWaiting   int    // of those, messages that arrived and wait for a dependency
	SenderGraph       int    // nodes in the sender's local graph
	PrunedDeps        uint64 // dependencies left off the wire because the local graph had executed them
	Reassembling      int    // fragmented messages partly received
	WaitingForSync    bool
	ResendDelay       time.Duration
	Err               error
}

// PacketsAccepted is the number of packets the packet layer accepted (not stale, not duplicate,
// not malformed): cheap, for a transport that wants to know whether a datagram counted.
func (c *Conn) PacketsAccepted() uint64 { return c.pkt.Accepted() }

// Stats returns a snapshot of the connection's counters. It allocates nothing, but it counts
// the receiver graph's waiting messages by a scan: call it for statistics, not per message.
func (c *Conn) Stats() Stats {
	return Stats{
		counters:          c.stats,
		Packet:            c.pkt.Stats(),
		PendingGuaranteed: len(c.inflight),
		QueuedUnreliable:  len(c.unrel),
		ReceiverGraph:     c.recv.Len(),
		ReceiverWaiting:   c.recv.WaitingCount(),
		SenderGraph:       c.sender.Len(),
		PrunedDeps:        c.sender.Pruned(),
		Reassembling:      len(c.reasm),
		WaitingForSync:    c.WaitingForSync(),
		ResendDelay:       c.pkt.ResendDelay(),
		Err:               c.err,
	}
}

// NextDeadline is the earliest time at which Poll or AppendPacket has work that no incoming
// datagram will trigger: a message waiting to go out (now), a resend coming due, a keepalive or
// a delayed ack, a graph node or reassembly expiring, the resend limit. The zero Time means
// nothing is scheduled (before the first AppendPacket). A transport sleeps until then or until
// a datagram arrives, and needs no timers of its own for the connection.
func (c *Conn) NextDeadline(now time.Time) time.Time {
	var next time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	// While the packets in flight are at the cap, neither a resend nor anything new can go
	// out (AppendPacket waits for acks, which come as datagrams): reporting them as due would
	// wake the transport in a busy loop that starves the very goroutines bringing the acks.
	if paced := c.contentInFlight >= c.cfg.MaxInFlight; !paced {
		if c.trimResend() {
			ref := c.resend.front()
			at := c.resendAt(&ref.m.units[ref.idx])
			if at.Before(now) {
				at = now // lost: due at once
			}
			earliest(at)
		}
		if (c.queue.len() > 0 && !c.syncBlocking()) || len(c.unrel) > 0 {
			earliest(now) // something new to send right away
		}
	}
	earliest(c.ackDeadline())
	earliest(c.recv.NextExpiry())
	for _, re := range c.reasm {
		earliest(re.progress.Add(c.cfg.Expiry()))
	}
	if m, i, ok := c.oldestUnacked(); ok {
		earliest(m.units[i].firstSent.Add(c.cfg.ResendLimit))
	}
	return next
}

// Debug is what a debug panel shows of a connection: the state of the last 32 packets sent,
// the messages the receiver's graph holds back waiting for a dependency, and the sender's
// messages its local graph has not executed (unacknowledged, or acknowledged but waiting).
// Everything is a copy. It scans both graphs: call it a few times a second, not per packet.
type Debug struct {
	History       []packet.PacketState
	ReceiverWaits []depgraph.Waiting
	SenderWaits   []depgraph.Waiting
	// ReceiverFirst and SenderFirst hold, for each entry of ReceiverWaits and SenderWaits, the
	// first byte of its message's payload, or -1 when the message is not at hand (only named
	// as a dependency, or an empty payload). This layer does not know what the byte means;
	// the one above (a game's message type) does, and names the nodes of the panel's graph.
	ReceiverFirst []int16
	SenderFirst   []int16
	// Unacked lists the guaranteed messages sent and not yet fully acknowledged, oldest first
	// send first: with or without dependencies, whether or not anything depends on it.
	Unacked []Unacked
	// Outgoing and Incoming are the history (Config.History; nil without it): the latest
	// guaranteed messages sent and received, oldest first, with their dependencies and the
	// times of their steps.
	Outgoing, Incoming []Record
}

// Unacked is one guaranteed message still waiting for its acknowledgement.
type Unacked struct {
	Seq       uint16
	First     int16 // first payload byte, -1 for an empty payload (see Debug)
	FirstSent time.Time
	Pieces    int // fragments (1 for a whole message)
	Acked     int // pieces acknowledged so far
	Sync      bool
}

// DebugLimit is how many entries each list of Debug holds at most: more than a panel shows,
// few enough that a snapshot of a connection with tens of thousands of messages in flight
// stays cheap (it is taken a few times a second, in the owner's loop).
const DebugLimit = 64

// Debug returns a fresh copy of the connection's debug views, each list cut at DebugLimit.
func (c *Conn) Debug() Debug {
	d := Debug{
		History:       c.pkt.History(nil),
		ReceiverWaits: c.recv.WaitingUpTo(nil, DebugLimit),
		SenderWaits:   c.sender.WaitingUpTo(nil, DebugLimit),
	}
	d.ReceiverFirst = make([]int16, len(d.ReceiverWaits))
	for i, w := range d.ReceiverWaits {
		d.ReceiverFirst[i] = -1
		if m, ok := c.recv.Value(w.Seq); ok && len(m.payload) > 0 {
			d.ReceiverFirst[i] = int16(m.payload[0])
		}
	}
	d.SenderFirst = make([]int16, len(d.SenderWaits))
	for i, w := range d.SenderWaits {
		d.SenderFirst[i] = -1
		if m := c.inflight[w.Seq]; m != nil && len(m.payload) > 0 {
			d.SenderFirst[i] = int16(m.payload[0])
		}
	}
	// Oldest first send first, from the ring the resend limit uses; a message is listed once
	// (with fragments it appears there once per fragment).
	listed := make(map[*outMsg]bool)
	for i := 0; i < c.sentOrder.len() && len(d.Unacked) < DebugLimit; i++ {
		ref := c.sentOrder.at(i)
		m := ref.m
		if ref.gen != m.gen() || m.units[ref.idx].acked || listed[m] {
			continue
		}
		listed[m] = true
		u := Unacked{Seq: m.seq, First: -1, FirstSent: m.firstSent, Pieces: len(m.units), Acked: m.acked, Sync: m.sync}
		if len(m.payload) > 0 {
			u.First = int16(m.payload[0])
		}
		d.Unacked = append(d.Unacked, u)
	}
	c.historyViews(&d)
	return d
}
