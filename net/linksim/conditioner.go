package linksim

import (
	"container/heap"
	"math/rand/v2"
	"time"
)

// pcgStream is the second PCG seed word. It is fixed so that a Conditioner is fully described
// by the one seed its constructor takes.
const pcgStream = 0x6c696e6b73696d00 // "linksim\x00"

// maxFree bounds the free list of recycled buffers so a burst of Recycle calls cannot pin an
// unbounded amount of memory.
const maxFree = 1024

// Stats counts what a Conditioner has done since it was created.
//
// Every offered datagram is either dropped or scheduled, and a duplicated one is scheduled
// twice, so Offered - Dropped + Duplicated == Delivered + Queued always holds.
type Stats struct {
	Offered      uint64 // datagrams passed to Send
	Dropped      uint64 // datagrams lost, by either kind of loss
	BurstDropped uint64 // the part of Dropped lost in the Gilbert-Elliott bad state
	Duplicated   uint64 // datagrams scheduled a second time
	Reordered    uint64 // deliveries held back by ReorderDelay
	Delivered    uint64 // deliveries handed out by Deliver
	Queued       int    // deliveries scheduled but not yet handed out
}

// delivery is one scheduled arrival of a datagram.
type delivery struct {
	at   time.Duration // since the conditioner's epoch
	seq  uint64        // send order; breaks ties between equal times
	data []byte
}

// before orders deliveries by time, then by send order.
func (d delivery) before(e delivery) bool {
	if d.at != e.at {
		return d.at < e.at
	}
	return d.seq < e.seq
}

// deliveryQueue is a min-heap of deliveries for container/heap. Elements are added with
// append + heap.Fix and removed by hand (see push and pop) rather than through heap.Push and
// heap.Pop, whose `any` arguments would box a delivery on every call.
type deliveryQueue []delivery

func (q deliveryQueue) Len() int           { return len(q) }
func (q deliveryQueue) Less(i, j int) bool { return q[i].before(q[j]) }
func (q deliveryQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *deliveryQueue) Push(x any)        { *q = append(*q, x.(delivery)) }
func (q *deliveryQueue) Pop() any {
	old := *q
	d := old[len(old)-1]
	old[len(old)-1] = delivery{}
	*q = old[:len(old)-1]
	return d
}

// push adds d. Fixing the last index is exactly heap.Push's sift-up.
func (q *deliveryQueue) push(d delivery) {
	*q = append(*q, d)
	heap.Fix(q, len(*q)-1)
}

// pop removes and returns the earliest delivery; the queue must not be empty.
func (q *deliveryQueue) pop() delivery {
	old := *q
	d := old[0]
	last := len(old) - 1
	old[0] = old[last]
	old[last] = delivery{} // drop the reference so the buffer is not kept alive
	*q = old[:last]
	if last > 0 {
		heap.Fix(q, 0)
	}
	return d
}

// Conditioner impairs one direction of a link. It holds the datagrams in flight in a queue
// ordered by delivery time; Send schedules, Deliver hands out whatever is due.
//
// A Conditioner never reads the clock and starts no goroutines: time is whatever the caller
// passes as now. Two Conditioners built with the same seed and given the same calls produce
// the same deliveries. It is not safe for concurrent use.
type Conditioner struct {
	rng    *rand.Rand
	s      Settings
	bad    bool    // Gilbert-Elliott state: true while in a loss burst
	seq    *uint64 // next send-order number; shared by all links of a Network
	ownSeq uint64
	// Delivery times are kept as offsets from epoch, the first time the conditioner was
	// given: a Duration compares faster than a time.Time and holds no pointer. A Network
	// gives all its links the same epoch so their times can be merged.
	epoch    time.Time
	hasEpoch bool
	queue    deliveryQueue
	free     freeList // recycled buffers, reused by Send
	stats    Stats
}

// NewConditioner returns a Conditioner whose random choices come from a PCG generator seeded
// with seed. It panics if s is invalid (see Settings.Validate): settings are normally
// literals in a test or a program, and a wrong literal is a bug to be fixed, not handled.
func NewConditioner(seed uint64, s Settings) *Conditioner {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	c := &Conditioner{
		rng: rand.New(rand.NewPCG(seed, pcgStream)),
		s:   s,
	}
	c.seq = &c.ownSeq
	return c
}

// SetSettings replaces the settings. Datagrams already in flight keep the delivery times they
// were given; the new settings apply to datagrams sent afterwards. Turning burst loss off also
// ends a burst in progress. Invalid settings are rejected and the old ones kept.
func (c *Conditioner) SetSettings(s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	c.s = s
	if s.BurstLossPercent == 0 {
		c.bad = false
	}
	return nil
}

// Settings returns the current settings as they were given (a zero ReorderDelay stays zero).
func (c *Conditioner) Settings() Settings { return c.s }

// Send offers a datagram at now. The conditioner copies b, so the caller may reuse it at
// once, and schedules zero, one or two deliveries.
//
// Every call draws the same seven numbers from the generator whatever the settings, so
// changing one impairment does not reshuffle the random outcomes of the others: the datagrams
// that survive 10% loss are a subset of those that survive 5% loss with the same seed, and
// both runs see the same jitter on the datagrams both deliver.
func (c *Conditioner) Send(now time.Time, b []byte) {
	var (
		uBurst      = c.rng.Float64()
		uLoss       = c.rng.Float64()
		uJitter     = c.rng.Float64()
		uReorder    = c.rng.Float64()
		uDup        = c.rng.Float64()
		uDupJitter  = c.rng.Float64()
		uDupReorder = c.rng.Float64()
	)
	c.stats.Offered++

	// Gilbert-Elliott: move between the states first, then lose the datagram if bad. A burst
	// therefore lasts a geometric number of datagrams with mean BurstLength.
	if c.s.BurstLossPercent > 0 {
		if c.bad {
			c.bad = uBurst >= c.s.burstExit()
		} else {
			c.bad = uBurst < c.s.BurstLossPercent/100
		}
	}
	if c.bad {
		c.stats.Dropped++
		c.stats.BurstDropped++
		return
	}
	if uLoss < c.s.LossPercent/100 {
		c.stats.Dropped++
		return
	}

	c.schedule(now, b, uJitter, uReorder)
	if uDup < c.s.DupPercent/100 {
		c.stats.Duplicated++
		c.schedule(now, b, uDupJitter, uDupReorder)
	}
}

// schedule queues one delivery of a copy of b, with the jitter and reorder decision given by
// the uniform numbers uJitter and uReorder in [0, 1).
func (c *Conditioner) schedule(now time.Time, b []byte, uJitter, uReorder float64) {
	delay := c.s.Latency
	if c.s.Jitter > 0 {
		delay += time.Duration((2*uJitter - 1) * float64(c.s.Jitter))
		delay = max(delay, 0)
	}
	if uReorder < c.s.ReorderPercent/100 {
		c.stats.Reordered++
		delay += c.s.reorderDelay()
	}
	if !c.hasEpoch {
		c.epoch, c.hasEpoch = now, true
	}
	buf := append(c.free.take(len(b)), b...)
	c.queue.push(delivery{at: now.Sub(c.epoch) + delay, seq: *c.seq, data: buf})
	*c.seq++
}

// freeList holds recycled buffers (at most maxFree) for a later Send to reuse.
type freeList [][]byte

// take returns an empty slice with room for n bytes, from the list when the buffer on top is
// big enough.
func (l *freeList) take(n int) []byte {
	if k := len(*l) - 1; k >= 0 {
		buf := (*l)[k]
		(*l)[k] = nil
		*l = (*l)[:k]
		if cap(buf) >= n {
			return buf
		}
	}
	return make([]byte, 0, n)
}

// put keeps b for later, unless the list is full.
func (l *freeList) put(b []byte) {
	if cap(b) > 0 && len(*l) < maxFree {
		*l = append(*l, b[:0])
	}
}

// Recycle gives a delivered buffer back so a later Send can reuse it instead of allocating.
// It is optional; the caller must not touch b afterwards.
func (c *Conditioner) Recycle(b []byte) { c.free.put(b) }

// Deliver appends to dst every datagram whose delivery time is at or before now, in
// delivery-time order (ties in send order), and returns the extended slice. The []byte values
// are owned by the caller afterwards.
func (c *Conditioner) Deliver(now time.Time, dst [][]byte) [][]byte {
	for {
		d, ok := c.popDue(now)
		if !ok {
			return dst
		}
		dst = append(dst, d.data)
	}
}

// popDue removes and returns the earliest delivery if it is due at now.
func (c *Conditioner) popDue(now time.Time) (delivery, bool) {
	if len(c.queue) == 0 || c.queue[0].at > now.Sub(c.epoch) {
		return delivery{}, false
	}
	c.stats.Delivered++
	return c.queue.pop(), true
}

// NextDelivery returns the time of the earliest scheduled delivery, and false if nothing is
// in flight. A caller driving the conditioner with a timer sleeps until then.
func (c *Conditioner) NextDelivery() (time.Time, bool) {
	if len(c.queue) == 0 {
		return time.Time{}, false
	}
	return c.epoch.Add(c.queue[0].at), true
}

// Stats returns the counters.
func (c *Conditioner) Stats() Stats {
	s := c.stats
	s.Queued = len(c.queue)
	return s
}
