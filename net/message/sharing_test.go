package message

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// Sharing a bottleneck, in virtual time (congestion.go, and the package documentation's
// "Sharing the link"). Flows of three kinds cross one linksim.Bottleneck in the forward
// direction and come back over a clean path of the same latency:
//
//   - bulk: a Conn that always has two messages waiting to go, each filling a packet;
//   - game: a Conn that sends a 40-byte guaranteed message every 33 ms (a lockstep command:
//     1.2 kB/s), whose one-way delivery time is measured message by message;
//   - tcp: a model of a TCP Reno flow (below) that always has data to send.
//
// The bottleneck is 250,000 bytes a second (2 Mbit/s) with 20 ms of latency each way (40 ms
// round trip: 10 kB in flight fill it), and a drop-tail queue of 20 kB (80 ms when full). The
// way back adds up to ±4.8 ms of jitter (see newSharedPath).

const (
	shareRate    = 250_000
	shareLatency = 20 * time.Millisecond
	shareQueue   = 20_000
	shareMTU     = 1200
	shareJitter  = shareMTU * time.Second / shareRate // one packet's time on the link: 4.8 ms
)

// simFlow is one flow across the shared path: a sender at the near end, a receiver at the far
// end.
type simFlow interface {
	// send hands out what the near end sends now (forward, through the bottleneck) and what the
	// far end sends now (back).
	send(now time.Time, forward, back func(d []byte))
	arrive(now time.Time, d []byte, forward bool)
	next(now time.Time) time.Time // the earliest timer of either end (zero: none)
}

// sharedPath runs flows across one bottleneck.
type sharedPath struct {
	now   time.Time
	bn    *linksim.Bottleneck
	back  []*linksim.Conditioner // per flow
	flows []simFlow
	dels  []linksim.BottleneckDelivery
	bufs  [][]byte
}

func newSharedPath(queue int, flows ...simFlow) *sharedPath {
	p := &sharedPath{now: base, flows: flows,
		bn: linksim.NewBottleneck(linksim.BottleneckSettings{Rate: shareRate, Queue: queue, Latency: shareLatency})}
	for i := range flows {
		// Jitter on the way back, as much as the bottleneck takes to send one packet: without
		// it, a flow clocked by its acks sends each packet at the same moment in the link's
		// cycle as the one before, and a drop-tail queue picks on that flow for ever (Floyd and
		// Jacobson's phase effects). Real acks never come that regularly.
		p.back = append(p.back, linksim.NewConditioner(uint64(i+1), linksim.Settings{Latency: shareLatency, Jitter: shareJitter}))
	}
	return p
}

// run moves time to end, one event after the other.
func (p *sharedPath) run(t *testing.T, end time.Time) {
	for p.now.Before(end) {
		for i, f := range p.flows {
			f.send(p.now, func(d []byte) { p.bn.Send(p.now, i, d) }, func(d []byte) { p.back[i].Send(p.now, d) })
		}
		next := end
		earliest := func(at time.Time, ok bool) {
			if ok && at.Before(next) {
				next = at
			}
		}
		earliest(p.bn.NextDelivery())
		for i, f := range p.flows {
			earliest(p.back[i].NextDelivery())
			at := f.next(p.now)
			earliest(at, !at.IsZero())
		}
		if !next.After(p.now) {
			next = p.now.Add(100 * time.Microsecond) // due now but held (the pacer): look again soon
		}
		p.now = next
		p.dels = p.bn.Deliver(p.now, p.dels[:0])
		for _, d := range p.dels {
			p.flows[d.Flow].arrive(p.now, d.Data, true)
			p.bn.Recycle(d.Data)
		}
		for i, c := range p.back {
			p.bufs = c.Deliver(p.now, p.bufs[:0])
			for _, d := range p.bufs {
				p.flows[i].arrive(p.now, d, false)
				c.Recycle(d)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}
}

// connFlow is a pair of Conns, a sending to b.
type connFlow struct {
	t    *testing.T
	a, b *Conn
	buf  []byte
	// bulk: keep this many unsent messages of bulkSize queued (0: not a bulk flow)
	bulk, bulkSize int
	// game: one message of gameSize every gameEvery, stamped with its index
	gameEvery time.Duration
	gameNext  time.Time
	gameSent  []time.Time
	latency   []time.Duration // one-way delivery time of each game message, by index
	delivered int
	payload   []byte
}

func newConnFlow(t *testing.T, cfg Config) *connFlow {
	f := &connFlow{t: t}
	cfg.MTU = shareMTU
	f.a = New(cfg, func(*Message) {})
	f.b = New(cfg, func(m *Message) {
		f.delivered++
		if f.gameEvery > 0 {
			i := binary.BigEndian.Uint32(m.Payload)
			f.latency[i] = f.b.lastNow.Sub(f.gameSent[i])
		}
	})
	return f
}

func bulkFlow(t *testing.T, cfg Config) *connFlow {
	f := newConnFlow(t, cfg)
	// Messages that fill a packet: the same 1,200-byte datagrams as the TCP model's segments.
	f.bulk, f.bulkSize = 2, cfg.withDefaults().room()-5
	f.payload = make([]byte, f.bulkSize)
	return f
}

const gameSize = 40

func gameFlow(t *testing.T) *connFlow {
	f := newConnFlow(t, Config{})
	f.gameEvery, f.gameNext = 33*time.Millisecond, base
	f.payload = make([]byte, gameSize)
	return f
}

func (f *connFlow) send(now time.Time, forward, back func([]byte)) {
	for f.bulk > 0 {
		st := f.a.Stats()
		if int(st.GuaranteedQueued-st.GuaranteedSent) >= f.bulk {
			break
		}
		if _, err := f.a.SendGuaranteed(now, f.payload, nil, nil); err != nil {
			if !errors.Is(err, ErrBackpressure) {
				f.t.Fatal(err)
			}
			break
		}
	}
	for f.gameEvery > 0 && !now.Before(f.gameNext) {
		binary.BigEndian.PutUint32(f.payload, uint32(len(f.gameSent)))
		if _, err := f.a.SendGuaranteed(now, f.payload, nil, nil); err != nil {
			f.t.Fatal(err)
		}
		f.gameSent = append(f.gameSent, now)
		f.latency = append(f.latency, -1)
		f.gameNext = f.gameNext.Add(f.gameEvery)
	}
	for _, side := range []struct {
		c   *Conn
		out func([]byte)
	}{{f.a, forward}, {f.b, back}} {
		for {
			d, ok := side.c.AppendPacket(f.buf[:0], now, false)
			if !ok {
				break
			}
			f.buf = d
			side.out(d)
		}
		if err := side.c.Err(); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *connFlow) arrive(now time.Time, d []byte, forward bool) {
	c := f.a
	if forward {
		c = f.b
	}
	if err := c.Receive(now, d); err != nil {
		f.t.Fatal(err)
	}
}

func (f *connFlow) next(now time.Time) time.Time {
	next := earlier(f.a.NextDeadline(now), f.b.NextDeadline(now))
	if f.gameEvery > 0 {
		next = earlier(next, f.gameNext)
	}
	return next
}

func earlier(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// tcpFlow is a model of one TCP connection with an endless supply of data, as a modern stack
// runs Reno: slow start and congestion avoidance (RFC 5681, counting acked segments), loss
// recovery from SACK information (RFC 6675: in recovery the window is halved once and the
// sender keeps its "pipe", the segments in the network, at the window, retransmitting the
// lost ones first) with RACK's rule for what is lost (RFC 8985: a segment is lost once a
// segment sent after it was delivered; this path never reorders, so no reordering window),
// the RTO of RFC 6298 with Linux's floor (the SRTT plus at least 200 ms), and a tail loss probe. The receiver acknowledges every second
// segment or after 40 ms, at once when a segment arrives out of order or fills a hole; every
// ack carries the cumulative ack and what arrived beyond it (the SACK blocks, here as the set
// of segment numbers). Segments are shareMTU bytes on the wire. It is the reference a fair
// congestion controller shares a link with; Cubic and pacing are left out.
type tcpFlow struct {
	// sender
	nextSeq, una int
	cwnd         float64 // segments
	ssthresh     float64
	recovering   bool
	recover      int // recovery ends when everything up to here is acknowledged
	seg          []tcpSeg
	srtt, rttvar time.Duration
	rto          time.Duration
	rtoAt        time.Time
	tlpAt        time.Time // the tail loss probe (zero: none armed)
	// receiver
	rcvNext int
	got     map[int]bool // received beyond rcvNext
	unacked int
	ackAt   time.Time // the delayed ack's deadline (zero: none pending)
	ackNow  bool
	buf     []byte
	// Retransmits, Probes and Timeouts count what the sender had to do again.
	Retransmits, Probes, Timeouts int
}

// tcpSeg is the sender's record of one segment.
type tcpSeg struct {
	sentAt     time.Time // zero after a retransmission (Karn: no RTT sample from it)
	lastSent   time.Time // the latest send, retransmissions included (RACK)
	sacked     bool
	lost       bool
	retransmit bool // sent again since it was marked lost
}

func newTCPFlow() *tcpFlow {
	return &tcpFlow{cwnd: 10, ssthresh: 1e9, rto: time.Second, got: map[int]bool{}, buf: make([]byte, shareMTU)}
}

// pipe is RFC 6675's estimate of the segments in the network.
func (f *tcpFlow) pipe() int {
	n := 0
	for s := f.una; s < f.nextSeq; s++ {
		g := &f.seg[s]
		if !g.sacked && (!g.lost || g.retransmit) {
			n++
		}
	}
	return n
}

func (f *tcpFlow) transmit(now time.Time, s int, forward func([]byte)) {
	for len(f.seg) <= s {
		f.seg = append(f.seg, tcpSeg{})
	}
	g := &f.seg[s]
	g.sentAt, g.lastSent = now, now
	if s < f.nextSeq {
		g.sentAt, g.retransmit = time.Time{}, true
		f.Retransmits++
	}
	binary.BigEndian.PutUint64(f.buf, uint64(s))
	forward(f.buf)
	if f.rtoAt.IsZero() {
		f.rtoAt = now.Add(f.rto)
	}
	f.armProbe(now)
}

// armProbe sets the tail loss probe two round trips from now (RFC 8985's PTO), when it comes
// before the RTO: a loss at the end of a flight, which no later segment can reveal, costs a
// round trip or two instead of a timeout and a slow start.
func (f *tcpFlow) armProbe(now time.Time) {
	f.tlpAt = time.Time{}
	if f.srtt > 0 && f.una < f.nextSeq {
		if at := now.Add(2 * f.srtt); at.Before(f.rtoAt) {
			f.tlpAt = at
		}
	}
}

func (f *tcpFlow) send(now time.Time, forward, back func([]byte)) {
	if !f.tlpAt.IsZero() && !now.Before(f.tlpAt) {
		// The probe: the last segment sent goes again; its ack tells RACK what was lost.
		f.Probes++
		f.tlpAt = time.Time{}
		f.transmit(now, f.nextSeq-1, forward)
	}
	if !f.rtoAt.IsZero() && !now.Before(f.rtoAt) {
		// Timeout: everything in flight is presumed lost; start over from one segment.
		f.Timeouts++
		f.ssthresh = max(f.cwnd/2, 2) // Linux's Reno: half the window, not half the pipe
		f.cwnd, f.recovering = 1, false
		for s := f.una; s < f.nextSeq; s++ {
			if !f.seg[s].sacked {
				f.seg[s].lost, f.seg[s].retransmit = true, false
			}
		}
		f.rto = min(2*f.rto, 60*time.Second)
		f.rtoAt = time.Time{}
	}
	for float64(f.pipe()) < f.cwnd {
		s := f.una
		for s < f.nextSeq && (!f.seg[s].lost || f.seg[s].retransmit || f.seg[s].sacked) {
			s++
		}
		f.transmit(now, s, forward)
		if s == f.nextSeq {
			f.nextSeq++
		}
	}
	if f.ackNow || !f.ackAt.IsZero() && !now.Before(f.ackAt) {
		// The ack: the cumulative ack, then the segments received beyond it.
		b := binary.BigEndian.AppendUint64(f.buf[:0], uint64(f.rcvNext))
		for s := f.rcvNext + 1; s < f.rcvNext+200; s++ {
			if f.got[s] {
				b = binary.BigEndian.AppendUint64(b, uint64(s))
			}
		}
		back(b)
		f.buf = f.buf[:shareMTU]
		f.ackNow, f.ackAt, f.unacked = false, time.Time{}, 0
	}
}

func (f *tcpFlow) arrive(now time.Time, d []byte, forward bool) {
	n := int(binary.BigEndian.Uint64(d))
	if forward { // the receiver
		switch {
		case n == f.rcvNext:
			f.rcvNext++
			for f.got[f.rcvNext] {
				delete(f.got, f.rcvNext)
				f.rcvNext++
				f.ackNow = true // a hole filled: say so at once
			}
			f.unacked++
			if f.unacked >= 2 {
				f.ackNow = true
			} else if f.ackAt.IsZero() {
				f.ackAt = now.Add(40 * time.Millisecond)
			}
		case n > f.rcvNext:
			f.got[n] = true
			f.ackNow = true // out of order: at once
		default:
			f.ackNow = true
		}
		return
	}
	// The sender: the cumulative ack and the SACKed segments. delivered is the latest send of
	// a segment this ack reports for the first time (RACK).
	var delivered time.Time
	for s := f.una; s < min(n, f.nextSeq); s++ {
		if !f.seg[s].sacked && f.seg[s].lastSent.After(delivered) {
			delivered = f.seg[s].lastSent
		}
	}
	if n > f.una {
		if s := n - 1; !f.seg[s].sentAt.IsZero() {
			f.sample(now.Sub(f.seg[s].sentAt))
		}
		acked := n - f.una
		f.una = n
		if !f.recovering {
			if f.cwnd < f.ssthresh {
				f.cwnd += float64(acked)
			} else {
				f.cwnd += float64(acked) / f.cwnd
			}
		} else if n > f.recover {
			f.recovering = false
		}
		f.rtoAt = time.Time{}
		if f.una < f.nextSeq {
			f.rtoAt = now.Add(f.rto)
		}
		f.armProbe(now)
	}
	for k := 8; k+8 <= len(d); k += 8 {
		s := int(binary.BigEndian.Uint64(d[k:]))
		if s < f.nextSeq && !f.seg[s].sacked {
			f.seg[s].sacked = true
			if f.seg[s].lastSent.After(delivered) {
				delivered = f.seg[s].lastSent
			}
		}
	}
	// RACK: a segment sent before one that was delivered is lost (a lost retransmission
	// too), unless it is already waiting to go again.
	lostNow := false
	for s := f.una; s < f.nextSeq; s++ {
		g := &f.seg[s]
		if !g.sacked && g.lastSent.Before(delivered) && !(g.lost && !g.retransmit) {
			g.lost, g.retransmit = true, false
			lostNow = true
		}
	}
	if lostNow && !f.recovering {
		f.ssthresh = max(f.cwnd/2, 2) // Linux's Reno: half the window, not half the pipe
		f.cwnd = f.ssthresh
		f.recovering, f.recover = true, f.nextSeq-1
	}
}

func (f *tcpFlow) sample(r time.Duration) {
	if f.srtt == 0 {
		f.srtt, f.rttvar = r, r/2
	} else {
		f.rttvar += (max(f.srtt-r, r-f.srtt) - f.rttvar) / 4
		f.srtt += (r - f.srtt) / 8
	}
	f.rto = f.srtt + max(4*f.rttvar, 200*time.Millisecond) // Linux: 200 ms on top of the SRTT
}

func (f *tcpFlow) next(time.Time) time.Time { return earlier(earlier(f.rtoAt, f.ackAt), f.tlpAt) }

// shareResult is what one run of flows across the path measured.
type shareResult struct {
	bytes    []uint64        // per flow: bytes delivered through the bottleneck while measured
	waited   []time.Duration // per flow: mean wait in the bottleneck's queue
	dropped  []float64       // per flow: share of its datagrams the queue dropped
	game     []time.Duration // the game flow's one-way delivery times, sorted (nil: no game)
	gameLost int             // game messages never delivered
	gameHeld uint64          // times the game's own window or pacer held a packet back
}

// runShared runs flows for warm + measure of virtual time and measures the second part.
func runShared(t *testing.T, queue int, warm, measure time.Duration, flows ...simFlow) shareResult {
	p := newSharedPath(queue, flows...)
	p.run(t, base.Add(warm))
	before := make([]linksim.BottleneckStats, len(flows))
	for i := range flows {
		before[i] = p.bn.FlowStats(i)
	}
	p.run(t, base.Add(warm+measure))
	var r shareResult
	for i, f := range flows {
		st := p.bn.FlowStats(i)
		r.bytes = append(r.bytes, st.DeliveredBytes-before[i].DeliveredBytes)
		n := st.Delivered - before[i].Delivered
		r.waited = append(r.waited, (st.QueueDelay-before[i].QueueDelay)/time.Duration(max(n, 1)))
		offered := st.Offered - before[i].Offered
		r.dropped = append(r.dropped, float64(st.Dropped-before[i].Dropped)/float64(max(offered, 1)))
		if g, ok := f.(*connFlow); ok && g.gameEvery > 0 {
			// Messages sent in the last second may still be on their way; the rest must have
			// arrived.
			for i, l := range g.latency {
				if l < 0 && g.gameSent[i].Before(p.now.Add(-time.Second)) {
					r.gameLost++
				}
				if l >= 0 && !g.gameSent[i].Before(base.Add(warm)) {
					r.game = append(r.game, l)
				}
			}
			slices.Sort(r.game)
			r.gameHeld = g.a.cc.stats.WindowWaits + g.a.cc.stats.PacedWaits
		}
	}
	return r
}

// share is flow i's part of the bytes all flows delivered.
func (r shareResult) share(i int) float64 {
	var sum uint64
	for _, b := range r.bytes {
		sum += b
	}
	return float64(r.bytes[i]) / float64(max(sum, 1))
}

// jain is Jain's fairness index of the flows' bytes: 1 when equal, 1/n when one takes all.
func (r shareResult) jain() float64 {
	var sum, sq float64
	for _, b := range r.bytes {
		sum += float64(b)
		sq += float64(b) * float64(b)
	}
	return sum * sum / (float64(len(r.bytes)) * sq)
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)*p/100, len(d)-1)]
}

// TestSharingReport prints the tables of BENCHMARKS.md's "Congestion" section (run it with -v;
// the simulation is in virtual time, so the numbers are the same on any machine). Each row is
// 10 s of warm-up and 60 s measured on the bottleneck described at the top of this file.
func TestSharingReport(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("the report runs eight minutes of virtual time; TestSharingFair and TestSharingGame check the rows that matter")
	}
	const warm, measure = 10 * time.Second, 60 * time.Second
	var out strings.Builder
	fmt.Fprintf(&out, "\n| flows | queue | shares of the bottleneck | Jain's index | mean wait in the queue | datagrams dropped |\n| --- | --- | --- | --- | --- | --- |\n")
	type row struct {
		name  string
		queue int
		flows func() []simFlow
		names []string
	}
	for _, rw := range []row{
		{"TCP + TCP", shareQueue, func() []simFlow { return []simFlow{newTCPFlow(), newTCPFlow()} }, []string{"tcp", "tcp"}},
		{"AckAttack + TCP", shareQueue, func() []simFlow { return []simFlow{bulkFlow(t, Config{}), newTCPFlow()} }, []string{"ackattack", "tcp"}},
		{"AckAttack + TCP", 2 * shareQueue, func() []simFlow { return []simFlow{bulkFlow(t, Config{}), newTCPFlow()} }, []string{"ackattack", "tcp"}},
		{"AckAttack + TCP", shareQueue / 2, func() []simFlow { return []simFlow{bulkFlow(t, Config{}), newTCPFlow()} }, []string{"ackattack", "tcp"}},
		{"AckAttack fixed window + TCP", shareQueue, func() []simFlow { return []simFlow{bulkFlow(t, Config{FixedWindow: true}), newTCPFlow()} }, []string{"ackattack fixed", "tcp"}},
		{"AckAttack + AckAttack", shareQueue, func() []simFlow { return []simFlow{bulkFlow(t, Config{}), bulkFlow(t, Config{})} }, []string{"ackattack", "ackattack"}},
	} {
		r := runShared(t, rw.queue, warm, measure, rw.flows()...)
		var shares, waits, drops []string
		for i := range r.bytes {
			shares = append(shares, fmt.Sprintf("%s %.0f%% (%.0f kB/s)", rw.names[i], 100*r.share(i), float64(r.bytes[i])/measure.Seconds()/1000))
			waits = append(waits, fmt.Sprintf("%s %.0f ms", rw.names[i], float64(r.waited[i])/float64(time.Millisecond)))
			drops = append(drops, fmt.Sprintf("%s %.1f%%", rw.names[i], 100*r.dropped[i]))
		}
		fmt.Fprintf(&out, "| %s | %d kB | %s | %.3f | %s | %s |\n", rw.name, rw.queue/1000, strings.Join(shares, ", "), r.jain(), strings.Join(waits, ", "), strings.Join(drops, ", "))
	}
	fmt.Fprintf(&out, "\n| the game's connection shares the bottleneck with | game messages one-way p50 | p99 | max | lost | held back by its own window or pacer | bulk flows' shares |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, rw := range []row{
		{"nothing", shareQueue, func() []simFlow { return []simFlow{gameFlow(t)} }, nil},
		{"a TCP flow", shareQueue, func() []simFlow { return []simFlow{gameFlow(t), newTCPFlow()} }, []string{"tcp"}},
		{"an AckAttack bulk flow", shareQueue, func() []simFlow { return []simFlow{gameFlow(t), bulkFlow(t, Config{})} }, []string{"ackattack"}},
		{"an AckAttack bulk flow with a fixed window", shareQueue, func() []simFlow { return []simFlow{gameFlow(t), bulkFlow(t, Config{FixedWindow: true})} }, []string{"ackattack fixed"}},
		{"a TCP flow and an AckAttack bulk flow", shareQueue, func() []simFlow { return []simFlow{gameFlow(t), newTCPFlow(), bulkFlow(t, Config{})} }, []string{"tcp", "ackattack"}},
	} {
		r := runShared(t, rw.queue, warm, measure, rw.flows()...)
		var shares []string
		for i, n := range rw.names {
			shares = append(shares, fmt.Sprintf("%s %.0f%%", n, 100*r.share(i+1)))
		}
		ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
		fmt.Fprintf(&out, "| %s | %s | %s | %s | %d of %d | %d | %s |\n", rw.name, ms(pct(r.game, 50)), ms(pct(r.game, 99)), ms(pct(r.game, 100)),
			r.gameLost, len(r.game), r.gameHeld, strings.Join(shares, ", "))
	}
	t.Log(out.String())
}

// TestSharingFair: an AckAttack bulk flow and a TCP flow share the bottleneck about evenly
// (Jain's index at least 0.95, each between 35% and 65%), as two TCP flows do; and the same
// measurement finds the old fixed window unfair (it takes nearly everything), so it can tell.
func TestSharingFair(t *testing.T) {
	const warm, measure = 10 * time.Second, 60 * time.Second
	tcp := runShared(t, shareQueue, warm, measure, newTCPFlow(), newTCPFlow())
	r := runShared(t, shareQueue, warm, measure, bulkFlow(t, Config{}), newTCPFlow())
	t.Logf("AckAttack %.0f%%, TCP %.0f%% (Jain %.3f); two TCP flows: Jain %.3f", 100*r.share(0), 100*r.share(1), r.jain(), tcp.jain())
	if r.jain() < 0.95 || r.share(0) < 0.35 || r.share(0) > 0.65 {
		t.Errorf("AckAttack %.0f%% of the bottleneck against TCP's %.0f%% (Jain's index %.3f), want each 35-65%% and at least 0.95",
			100*r.share(0), 100*r.share(1), r.jain())
	}
	fixed := runShared(t, shareQueue, warm, measure, bulkFlow(t, Config{FixedWindow: true}), newTCPFlow())
	if fixed.jain() > 0.7 {
		t.Errorf("the fixed window shares fairly (Jain's index %.3f): the measurement cannot tell", fixed.jain())
	}
}

// TestSharingGame: a game's connection, 40-byte messages 30 times a second, shares the
// bottleneck with a bulk flow. Its own window and pacer never hold a packet back, every message
// arrives, none takes longer than the link's latency plus the longest the bottleneck's queue
// can hold it (80 ms) and a packet's time on the link, and beside an AckAttack bulk flow it
// waits no longer (median within 5 ms) than beside a TCP flow: what delay there is comes from
// the queue they share. Beside the old fixed window, which keeps the queue full, the median is
// at least 10 ms worse, which shows the measurement can tell.
func TestSharingGame(t *testing.T) {
	const warm, measure = 10 * time.Second, 60 * time.Second
	limit := shareLatency + shareQueue*time.Second/shareRate + shareJitter
	p50 := map[string]time.Duration{}
	for _, tt := range []struct {
		name  string
		flows func() []simFlow
	}{
		{"nothing", func() []simFlow { return []simFlow{gameFlow(t)} }},
		{"tcp", func() []simFlow { return []simFlow{gameFlow(t), newTCPFlow()} }},
		{"ackattack", func() []simFlow { return []simFlow{gameFlow(t), bulkFlow(t, Config{})} }},
		{"fixed window", func() []simFlow { return []simFlow{gameFlow(t), bulkFlow(t, Config{FixedWindow: true})} }},
	} {
		r := runShared(t, shareQueue, warm, measure, tt.flows()...)
		worst := pct(r.game, 100)
		p50[tt.name] = pct(r.game, 50)
		t.Logf("beside %s: one-way p50 %v, p99 %v, max %v; %d held back, %d lost; %.1f%% of its datagrams dropped",
			tt.name, p50[tt.name], pct(r.game, 99), worst, r.gameHeld, r.gameLost, 100*r.dropped[0])
		if r.gameHeld != 0 || r.gameLost != 0 || len(r.game) < 1800 || worst > limit {
			t.Errorf("beside %s: %d messages arrived (%d lost), %d times held back by its own connection, slowest %v (limit %v)",
				tt.name, len(r.game), r.gameLost, r.gameHeld, worst, limit)
		}
	}
	if p50["ackattack"] > p50["tcp"]+5*time.Millisecond {
		t.Errorf("median %v beside an AckAttack bulk flow, %v beside a TCP flow", p50["ackattack"], p50["tcp"])
	}
	if p50["fixed window"] < p50["tcp"]+10*time.Millisecond {
		t.Errorf("median %v beside the fixed window, %v beside a TCP flow: the measurement cannot tell", p50["fixed window"], p50["tcp"])
	}
}
