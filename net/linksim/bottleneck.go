package linksim

import (
	"errors"
	"fmt"
	"time"
)

// BottleneckSettings describe a link of limited capacity with a queue in front of it: the
// slowest hop of a path, where the traffic of several flows meets. The zero value is invalid
// (a link must move some bytes).
type BottleneckSettings struct {
	// Rate is how many bytes a second the link sends. A datagram of n bytes occupies it for
	// n / Rate seconds, and whatever arrives meanwhile waits in the queue.
	Rate int
	// Queue is how many bytes may wait, counting the datagram being sent. A datagram that would
	// make the backlog exceed it is dropped: a drop-tail queue, as in most routers.
	Queue int
	// Latency is the propagation delay after a datagram has been sent onto the link.
	Latency time.Duration
}

// Validate reports every out-of-range field, joined into one error wrapping
// ErrInvalidSettings.
func (s BottleneckSettings) Validate() error {
	var errs []error
	if s.Rate <= 0 {
		errs = append(errs, fmt.Errorf("%w: Rate is %d bytes/s, want > 0", ErrInvalidSettings, s.Rate))
	}
	if s.Queue < 0 {
		errs = append(errs, fmt.Errorf("%w: Queue is %d bytes, want >= 0", ErrInvalidSettings, s.Queue))
	}
	if s.Latency < 0 {
		errs = append(errs, fmt.Errorf("%w: Latency is %v, want >= 0", ErrInvalidSettings, s.Latency))
	}
	return errors.Join(errs...)
}

// BottleneckStats count what a Bottleneck did, in all or for one flow.
type BottleneckStats struct {
	Offered, Dropped, Delivered                uint64 // datagrams
	OfferedBytes, DroppedBytes, DeliveredBytes uint64
	// QueueDelay is the total time the delivered datagrams waited in the queue before the
	// link began to send them (divide by Delivered for the mean).
	QueueDelay time.Duration
	// MaxBacklog is the most bytes that waited at once (all flows; 0 in a flow's stats).
	MaxBacklog int
	Queued     int // datagrams accepted and not yet delivered (all flows; 0 in a flow's)
}

// BottleneckDelivery is one datagram out of a Bottleneck, with the flow it was sent on.
type BottleneckDelivery struct {
	Flow int
	Data []byte // owned by the caller
	// Waited is how long it spent in the queue before the link began to send it.
	Waited time.Duration
}

// bnPacket is a datagram on its way through the bottleneck.
type bnPacket struct {
	at     time.Duration // delivery time, since the epoch
	flow   int
	waited time.Duration
	data   []byte
}

// Bottleneck is one direction of a link with a rate and a queue, shared by any number of
// flows: the place where a congestion controller's decisions meet those of other flows. The
// impairments of Settings strike each datagram on its own, whatever is sent; a real path has a
// slowest hop and a queue in front of it: send faster than it drains and the queue grows (the
// round trip with it) until it is full and drops whatever comes next. That is the only signal
// a congestion controller has that the link is shared, and the only place where two flows can
// be unfair to each other. A Bottleneck has a Rate in bytes a second, a drop-tail Queue in
// bytes and a Latency after it, and counts per flow (numbered by the caller) what was offered,
// dropped and delivered and how long it waited, which is what a test of fairness reads.
// Datagrams leave in the order they arrived, each after the ones before it were sent, so the
// delay a flow sees is the backlog every flow built; a full queue drops whoever arrives next.
//
// Like a Conditioner it never reads the clock and starts no goroutines, and it is not safe
// for concurrent use. It draws no random numbers: the same calls give the same deliveries.
// Put a Conditioner in front of it (or after it) for loss, jitter and the rest.
type Bottleneck struct {
	s         BottleneckSettings
	epoch     time.Time
	hasEpoch  bool
	busyUntil time.Duration // when the link has sent everything accepted so far
	fifo      []bnPacket    // accepted, in delivery order (arrival order: one queue, one rate)
	head      int
	free      freeList
	stats     BottleneckStats
	flows     []BottleneckStats // by flow number
}

// NewBottleneck returns an idle bottleneck. It panics if s is invalid (see
// BottleneckSettings.Validate), like NewConditioner.
func NewBottleneck(s BottleneckSettings) *Bottleneck {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	return &Bottleneck{s: s}
}

// Settings returns the settings.
func (b *Bottleneck) Settings() BottleneckSettings { return b.s }

func (b *Bottleneck) since(now time.Time) time.Duration {
	if !b.hasEpoch {
		b.epoch, b.hasEpoch = now, true
	}
	return now.Sub(b.epoch)
}

// backlog is how many bytes the link has still to send at t.
func (b *Bottleneck) backlog(t time.Duration) int {
	if b.busyUntil <= t {
		return 0
	}
	return int((int64(b.busyUntil-t)*int64(b.s.Rate) + int64(time.Second) - 1) / int64(time.Second))
}

// flow returns the counters of flow f, growing the table for a new one (flows are small
// numbers a test chooses; a negative one is a bug in the test, and panics).
func (b *Bottleneck) flow(f int) *BottleneckStats {
	if f < 0 {
		panic(fmt.Sprintf("linksim: bottleneck flow %d, want >= 0", f))
	}
	for len(b.flows) <= f {
		b.flows = append(b.flows, BottleneckStats{})
	}
	return &b.flows[f]
}

// Send offers datagram d of flow f (f >= 0) at now. The bottleneck copies it and reports
// whether it was accepted: false means the queue was full and it was dropped.
func (b *Bottleneck) Send(now time.Time, f int, d []byte) bool {
	t := b.since(now)
	fs := b.flow(f)
	n := uint64(len(d))
	b.stats.Offered++
	b.stats.OfferedBytes += n
	fs.Offered++
	fs.OfferedBytes += n
	backlog := b.backlog(t)
	if backlog+len(d) > b.s.Queue {
		b.stats.Dropped++
		b.stats.DroppedBytes += n
		fs.Dropped++
		fs.DroppedBytes += n
		return false
	}
	b.stats.MaxBacklog = max(b.stats.MaxBacklog, backlog+len(d))
	start := max(t, b.busyUntil)
	b.busyUntil = start + time.Duration(int64(len(d))*int64(time.Second)/int64(b.s.Rate))
	buf := append(b.free.take(len(d)), d...)
	if b.head > 0 && (b.head == len(b.fifo) || b.head >= 64 && b.head >= len(b.fifo)/2) {
		// Move what is left to the front, so that a queue that never quite drains does not
		// grow its slice forever.
		n := copy(b.fifo, b.fifo[b.head:])
		clear(b.fifo[n:])
		b.fifo, b.head = b.fifo[:n], 0
	}
	b.fifo = append(b.fifo, bnPacket{at: b.busyUntil + b.s.Latency, flow: f, waited: start - t, data: buf})
	return true
}

// Recycle gives a delivered buffer back for a later Send; optional.
func (b *Bottleneck) Recycle(d []byte) { b.free.put(d) }

// Deliver appends to dst every datagram delivered by now, in order, and returns it.
func (b *Bottleneck) Deliver(now time.Time, dst []BottleneckDelivery) []BottleneckDelivery {
	t := b.since(now)
	for b.head < len(b.fifo) && b.fifo[b.head].at <= t {
		p := b.fifo[b.head]
		b.fifo[b.head] = bnPacket{}
		b.head++
		n := uint64(len(p.data))
		b.stats.Delivered++
		b.stats.DeliveredBytes += n
		b.stats.QueueDelay += p.waited
		fs := b.flow(p.flow)
		fs.Delivered++
		fs.DeliveredBytes += n
		fs.QueueDelay += p.waited
		dst = append(dst, BottleneckDelivery{Flow: p.flow, Data: p.data, Waited: p.waited})
	}
	return dst
}

// NextDelivery returns when the next datagram comes out, and false if none is on its way.
func (b *Bottleneck) NextDelivery() (time.Time, bool) {
	if b.head == len(b.fifo) {
		return time.Time{}, false
	}
	return b.epoch.Add(b.fifo[b.head].at), true
}

// Stats returns the counters of all flows together.
func (b *Bottleneck) Stats() BottleneckStats {
	s := b.stats
	s.Queued = len(b.fifo) - b.head
	return s
}

// FlowStats returns the counters of flow f.
func (b *Bottleneck) FlowStats(f int) BottleneckStats {
	if f < 0 || f >= len(b.flows) {
		return BottleneckStats{}
	}
	return b.flows[f]
}
