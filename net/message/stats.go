package message

import (
	"time"

	"github.com/ackattack/ackattack/net/packet"
)

// counters are the message layer's own counts; Stats adds the packet layer's.
type counters struct {
	UnreliableSent     uint64
	UnreliableReceived uint64
	GuaranteedQueued   uint64
	GuaranteedSent     uint64 // first sends
	GuaranteedResent   uint64 // units sent again (whole messages or fragments)
	// ResendCopies counts the resends (in GuaranteedResent) that were copies of a try: a unit
	// unacknowledged for a tenth of the resend limit goes three times per try (copyAfter).
	ResendCopies uint64
	// SpuriousResends counts units resent although a send of an earlier try arrived: its ack
	// came after the resend left (once per unit, however many times it went again). A try is a
	// first send or a resend with the copies that follow it (ResendCopies, SendUrgent,
	// SendTimely): a copy whose try arrived is redundancy the sender chose, not a resend in vain.
	SpuriousResends uint64
	// LostWithMessages counts this side's packets that carried guaranteed messages and were
	// lost: each needs a resend, so GuaranteedResent / LostWithMessages is the resends per loss.
	LostWithMessages uint64
	// Probes counts units sent again past a full window because their acks were overdue and
	// the link had fallen silent (probeDue); they are counted in GuaranteedResent too.
	Probes uint64
	// TailProbes counts the empty packets sent because the ack of the last packet with
	// messages before a silence was late (tailProbeAt).
	TailProbes         uint64
	GuaranteedExecuted uint64 // executed by the receiver's graph (delivered)
	DuplicatesIgnored  uint64 // guaranteed messages or fragments that arrived again after arriving once
	DependencyBytes    uint64 // bytes of dependency words sent (2 per dependency per send)
	SequenceBytes      uint64 // bytes of message sequence words sent (2 per guaranteed record)
	FragmentsSent      uint64
	FragmentsResent    uint64
	FragmentsReceived  uint64
	FragmentsDropped   uint64 // no reassembly room; the sender sends them again
	Backpressure       uint64 // sends refused because the window of outstanding numbers was full
	// Waited counts received guaranteed messages that arrived before one of their
	// dependencies had executed, and so waited in the receiver's graph for it: the kill that
	// overtook its spawn, the chat line whose predecessor was lost.
	Waited uint64
	// Sync messages (stop-and-wait): SyncSent counts those sent whole, SyncAcked those
	// acknowledged, SyncWait the time from a sync message's first send to its ack, summed, and
	// HeldBySync the guaranteed messages that were queued behind one when its ack came: each
	// waited for that ack before its first send.
	SyncSent, SyncAcked uint64
	SyncWait            time.Duration
	HeldBySync          uint64

	ackOwed        bool
	ackLazy        bool // only unreliable messages arrived since this side last sent a packet
	unackedPackets int  // accepted packets since this side last sent one
	unackedFull    int  // those of them with messages and at least half the MTU long
}

// Stats is a snapshot of one connection's counters and estimates.
type Stats struct {
	counters
	Packet packet.Stats

	PendingGuaranteed int    // guaranteed messages queued or sent and not yet acknowledged
	QueuedUnreliable  int    // unreliable messages waiting for a packet
	ReceiverGraph     int    // nodes in the receiver's graph: messages waiting for a dependency, and placeholders (executed ones are bits)
	ReceiverWaiting   int    // of those, messages that arrived and wait for a dependency
	SenderGraph       int    // nodes in the sender's local graph
	PrunedDeps        uint64 // dependencies left off the wire because the local graph had executed them
	Reassembling      int    // fragmented messages partly received
	WaitingForSync    bool
	ResendDelay       time.Duration
	Congestion        CongestionStats
	Err               error
}

// Pending is the number of guaranteed messages queued or sent and not yet acknowledged
// (Stats.PendingGuaranteed), without the rest of a Stats: cheap enough to watch every tick.
func (c *Conn) Pending() int { return c.nInflight }

// Unacknowledged reports whether the guaranteed message seq (as SendGuaranteed returned it)
// is still waiting for its acknowledgement. A game watches the age of the oldest one to tell
// a link that has stopped delivering long before the connection's Timeout.
func (c *Conn) Unacknowledged(seq uint16) bool {
	m := c.inflight[seq&(inflightSlots-1)]
	return m != nil && m.seq == seq
}

// PacketsAccepted is the number of packets the packet layer accepted (not stale, not duplicate,
// not malformed): cheap, for a transport that wants to know whether a datagram counted.
func (c *Conn) PacketsAccepted() uint64 { return c.pkt.Accepted() }

// SampleRTT gives the packet layer a round trip that the transport's ping measured, the
// peer having held the ping for held before it answered (packet.Endpoint.SampleRTT): every
// connection has a live round trip, whether it sends guaranteed messages or not.
func (c *Conn) SampleRTT(rtt, held time.Duration) { c.pkt.SampleRTT(rtt, held) }

// ResendDelay is how long a guaranteed message sent now waits for its acknowledgement before
// it is resent: the round trip, its variation and the peer's ack delay (Stats has it too, with
// the counters; this is the cheap call for a decision per message).
func (c *Conn) ResendDelay() time.Duration { return c.pkt.ResendDelay() }

// SmoothedRTT is the connection's smoothed round trip, as cheap as ResendDelay.
func (c *Conn) SmoothedRTT() time.Duration { return c.pkt.RTT().Smoothed }

// RTTSamples is how many round-trip samples the connection took, from acknowledgements and from
// SampleRTT.
func (c *Conn) RTTSamples() uint64 { return c.pkt.RTT().Samples }

// Stats returns a snapshot of the connection's counters. It allocates nothing, but it counts
// the receiver graph's waiting messages by a scan: call it for statistics, not per message.
func (c *Conn) Stats() Stats {
	return Stats{
		counters:          c.stats,
		Packet:            c.pkt.Stats(),
		PendingGuaranteed: c.nInflight,
		QueuedUnreliable:  len(c.unrel),
		ReceiverGraph:     c.recv.Len(),
		ReceiverWaiting:   c.recv.WaitingCount(),
		SenderGraph:       c.sender.Len(),
		PrunedDeps:        c.sender.Pruned(),
		Reassembling:      len(c.reasm),
		WaitingForSync:    c.WaitingForSync(),
		ResendDelay:       c.pkt.ResendDelay(),
		Congestion:        c.cc.snapshot(),
		Err:               c.err,
	}
}

// Queued counts the messages queued on the connection so far, guaranteed and unreliable. A
// transport that keeps NextDeadline from its last look at the connection knows that look is
// stale when the count moved: its owner queued a message since.
func (c *Conn) Queued() uint64 { return c.stats.GuaranteedQueued + c.stats.UnreliableSent }

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
	// While the packets in flight are at the cap or fill the congestion window, neither a
	// resend nor anything new can go out (AppendPacket waits for acks, which come as
	// datagrams): reporting them as due would wake the transport in a busy loop that starves
	// the very goroutines bringing the acks. While the pacer holds them, they are due when it
	// lets the next packet go.
	if c.contentInFlight < c.cfg.MaxInFlight && c.cc.inFlight < c.cc.window() {
		if due := c.contentDue(now); !due.IsZero() {
			if paced := c.cc.nextSend(now, c.pacingRTT()); paced.After(due) {
				due = paced
			}
			earliest(due)
		}
	} else {
		earliest(c.probeAt()) // a full window whose acks are overdue is probed
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

// Debug is what a debug panel shows of a connection: the state of the last 32 packets sent
// and, with Config.History, the latest guaranteed messages each way. Everything is a copy:
// call it a few times a second, not per packet.
type Debug struct {
	History []packet.PacketState
	// Outgoing and Incoming are the history (Config.History; nil without it): the latest
	// guaranteed messages sent and received, oldest first, with their dependencies and the
	// times of their steps.
	Outgoing, Incoming []Record
}

// Debug returns a fresh copy of the connection's debug views.
func (c *Conn) Debug() Debug {
	d := Debug{History: c.pkt.History(nil)}
	c.historyViews(&d)
	return d
}
