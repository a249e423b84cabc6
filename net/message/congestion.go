package message

import (
	"time"

	"github.com/ackattack/ackattack/net/packet"
)

// Congestion control: how much a connection may have in flight, and how fast it may send it.
// Everything is counted in bytes of datagrams that carry messages ("content" packets):
// keepalives and ack-only packets are never held back and never counted.
//
// Why: a connection that always kept 32 packets in flight would fill the queue of every slow
// link it crossed, lose packets for everybody behind that queue, and make its own game messages
// wait in it. A game must not pay for any of this: the window never shrinks below 4 full
// packets (4.8 kB), and it counts bytes, not packets, so a game's few kB a second (a few hundred
// bytes in flight on a LAN, under 4.8 kB on a one-second round trip) are never held back by the
// window, only by the link. The window cannot grow past 32 packets either (an ack covers 32),
// which caps a bulk transfer at 32 × MTU per round trip: 384 kB a second at 100 ms.
// BENCHMARKS.md ("Congestion") measures it on a simulated bottleneck (net/linksim's
// Bottleneck), alone and against TCP.
//
// The peer helps by acknowledging a bulk sender promptly: once two large packets with messages
// (half the MTU or more) arrived, the ack leaves at once (TCP's "every second full-sized
// segment") instead of after the ack delay. A window clocked by acks would otherwise stall for
// the ack delay whenever it held fewer than 16 packets, and those held acks would read as a
// queue.
//
// "Shows a queue": a round trip whose smallest RTT sample is at least 4 ms, and twice the RTT's
// own variation, above the smallest ever (jitter alone lifts a round's best sample a little),
// and where the window times that excess over the sample (Vegas's estimate of our bytes queued)
// is 3 packets or more.
//
// The window is the sum of two parts, as in Compound TCP:
//
//   - cwnd, the loss-based part, is Reno's congestion avoidance: it starts at the ceiling of 32
//     packets, grows by one packet per round trip (one per two round trips while the round
//     trip shows a queue), and a loss cuts it once per round trip. A loss that comes while the round trip
//     shows a queue (the RTT has grown) is congestion and halves it; one that comes on a link
//     without a queue is taken for noise (a radio link, the teacher's loss slider) and takes a
//     fifth. Both refinements are TCP Veno's.
//   - dwnd, the delay-based part, grows by an eighth of the window per round trip while the
//     round trip shows no queue, and shrinks by the estimated queue when it does: it is what
//     backs off as the RTT grows. Against a flow that fills the queue (TCP) it shrinks to
//     nothing, and what remains is Reno, which shares the link with Reno fairly.
//
// Packets leave paced, at 1.25 times the window per smoothed RTT, in bursts of at most ten
// packets or two milliseconds of that rate (quic-go's pacer), so that a window opened by one
// ack does not hit the bottleneck's queue all at once. Before the first RTT sample there is no
// rate to pace at, and the window alone decides.
//
// There is no slow start. The window starts where quic-go's does, at 32 packets, which is also
// the most the protocol allows (an ack covers 32 packets): a game's connection is mostly idle
// and then sends a burst (a joining player's world, a re-sync batch of 20 kB), and a window
// that had to grow from 10 packets would hold every such burst back a round trip or two, since
// an idle connection never grows it.
const (
	initialWindowPackets = 32
	// minWindowPackets is the least the window shrinks to: four full packets. A game sends
	// small packets, a few kB a second, and has fewer bytes than that in flight even on a
	// one-second round trip, so congestion control never holds its messages back.
	minWindowPackets = 4
	// queueTarget: a round trip that shows more of the window than this queued at the
	// bottleneck (Vegas's estimate) has a queue. Three packets, as in TCP Veno.
	queueTarget = 3
	// queueMinDelay: and a queue means a round trip at least this much longer than the
	// smallest one (the least threshold of TCP's HyStart). Below it, the RTT's jitter on a busy host
	// looks like a queue where there is none.
	queueMinDelay = 4 * time.Millisecond
	// betaCongestion and betaNoise are what a loss leaves of the window, in tenths: half after
	// congestion, four fifths after a loss on a link without a queue.
	betaCongestion = 5
	betaNoise      = 8
	// pacingGain, in quarters: the pacer sends at 1.25 times the window per round trip, so
	// that it never holds back a window that acks have opened.
	pacingGain = 5
	// maxBurstPackets and minPacingDelay shape the pacer's bursts: at most ten packets, or
	// what the rate sends in 2 ms if that is more, and no wait shorter than 1 ms (a host's
	// timer cannot be more precise).
	maxBurstPackets = 10
	minPacingDelay  = time.Millisecond
)

// congestion is one connection's congestion controller. It is sans-IO like the rest of the
// Conn: the times come in as arguments.
type congestion struct {
	fixed  bool // Config.FixedWindow: no control at all
	mtu    int  // a full packet, the unit of the window
	maxWnd int  // MaxInFlight full packets: the protocol's ceiling

	cwnd, dwnd int // bytes: the loss-based and the delay-based part

	inFlight int // bytes of content packets neither acknowledged nor lost

	// Rounds: a round trip ends when a packet sent after it began is acknowledged.
	newest   uint16 // the latest content packet sent
	sentAny  bool
	roundEnd uint16        // the round ends when this packet, or a later one, is acknowledged
	roundMin time.Duration // the smallest RTT sample of the round so far (0: none)
	limited  bool          // the window, not the application, limited the round
	queue    bool          // the latest complete round showed a queue
	samples  uint64        // the packet layer's sample count when last seen

	// Recovery: losses of packets sent before the last cut belong to the same event.
	recovering  bool
	recoveryEnd uint16

	// The pacer: a bucket of bytes that fills at the pacing rate.
	budget   int
	lastSend time.Time

	stats CongestionStats
}

// CongestionStats are a congestion controller's counts and its state, in Stats.
type CongestionStats struct {
	Window        int // bytes the connection may have in flight now
	DelayWindow   int // of which the delay-based part
	BytesInFlight int // bytes of content packets in flight
	// CongestionCuts counts losses taken for congestion (the window halved), NoiseCuts those
	// taken for noise on a link without a queue (a fifth off), DelayBackoffs the round trips
	// whose queue shrank the delay-based part.
	CongestionCuts, NoiseCuts, DelayBackoffs uint64
	// WindowWaits counts the packets with messages due that the window (or the cap on packets
	// in flight) held back, PacedWaits those the pacer held back while the window had room:
	// one for each AppendPacket that had something to send and did not send it.
	WindowWaits, PacedWaits uint64
}

func newCongestion(cfg Config) congestion {
	cc := congestion{fixed: cfg.FixedWindow, mtu: cfg.MTU, maxWnd: cfg.MaxInFlight * cfg.MTU}
	cc.cwnd = min(initialWindowPackets*cc.mtu, cc.maxWnd)
	return cc
}

// window is the bytes the connection may have in flight.
func (cc *congestion) window() int {
	if cc.fixed {
		return cc.maxWnd
	}
	return max(min(cc.cwnd+cc.dwnd, cc.maxWnd), minWindowPackets*cc.mtu)
}

// rate is the pacing rate, bytes per second, for a smoothed RTT of srtt.
func (cc *congestion) rate(srtt time.Duration) int {
	srtt = max(srtt, time.Microsecond)
	return int(int64(cc.window()) * pacingGain / 4 * int64(time.Second) / int64(srtt))
}

// maxBurst is the most the pacer lets go at once.
func (cc *congestion) maxBurst(srtt time.Duration) int {
	return max(maxBurstPackets*cc.mtu, cc.rate(srtt)*int(2*minPacingDelay)/int(time.Second))
}

// fill is the pacer's budget at now.
func (cc *congestion) fill(now time.Time, srtt time.Duration) int {
	burst := cc.maxBurst(srtt)
	if cc.lastSend.IsZero() {
		return burst
	}
	d := now.Sub(cc.lastSend)
	if d <= 0 {
		return cc.budget
	}
	if d >= time.Second {
		return burst
	}
	return min(burst, cc.budget+int(int64(cc.rate(srtt))*int64(d)/int64(time.Second)))
}

// hold is what keeps a content packet from leaving.
type hold uint8

const (
	holdNone   hold = iota
	holdWindow      // the window is full (or the packets in flight are at the cap)
	holdPacer       // the window has room, but the pacer has less than a packet's budget
)

// holds reports what keeps a content packet from leaving now: nothing if the window has room
// and the pacer has a packet's worth of budget. srtt is the smoothed round trip, 0 before the
// first sample: without a measured round trip there is no rate to pace at, and the window
// alone decides. It only looks: AppendPacket, which knows whether there is a packet to hold,
// counts it (countHold).
func (cc *congestion) holds(now time.Time, srtt time.Duration) hold {
	switch {
	case cc.fixed:
		return holdNone
	case cc.inFlight >= cc.window():
		return holdWindow
	case srtt > 0 && cc.fill(now, srtt) < cc.mtu:
		return holdPacer
	}
	return holdNone
}

// countHold counts a packet with messages due that h held back.
func (cc *congestion) countHold(h hold) {
	switch h {
	case holdWindow:
		cc.stats.WindowWaits++
	case holdPacer:
		cc.stats.PacedWaits++
	}
}

// nextSend is when the pacer will let the next packet go (zero: now, or only once an ack
// makes room in the window, which a datagram brings, not the clock).
func (cc *congestion) nextSend(now time.Time, srtt time.Duration) time.Time {
	if cc.fixed || srtt == 0 || cc.inFlight >= cc.window() {
		return time.Time{}
	}
	budget := cc.fill(now, srtt)
	if budget >= cc.mtu {
		return time.Time{}
	}
	wait := time.Duration(int64(cc.mtu-budget) * int64(time.Second) / int64(max(cc.rate(srtt), 1)))
	return now.Add(max(wait, minPacingDelay))
}

// sent records a content packet of size bytes that left at now.
func (cc *congestion) sent(now time.Time, seq uint16, size int, srtt time.Duration) {
	cc.inFlight += size
	if cc.fixed {
		return
	}
	if srtt > 0 {
		cc.budget = max(cc.fill(now, srtt)-size, 0)
		cc.lastSend = now
	}
	if !cc.sentAny {
		cc.roundEnd = seq
	}
	cc.newest, cc.sentAny = seq, true
}

// windowLimited reports whether, with prior bytes in flight, the window rather than the
// application limits the sending: only then may it grow (quic-go's rule: within 3 packets of
// full).
func (cc *congestion) windowLimited(prior int) bool { return prior >= cc.window()-3*cc.mtu }

// newer reports whether packet a was sent after packet b.
func newer(a, b uint16) bool { return int16(a-b) > 0 }

// rtt is what the controller reads of the packet layer's round-trip estimates.
type rtt struct {
	latest, smallest time.Duration // the latest and the smallest sample
	variation        time.Duration // RTTVAR: how much the samples wander on their own
	samples          uint64        // how many samples so far
}

func rttOf(e *packet.Endpoint) rtt {
	r := e.RTT()
	return rtt{latest: r.Latest, smallest: r.Min, variation: r.Variation, samples: r.Samples}
}

// acked takes the acknowledgement of a content packet of size bytes, with the round-trip
// estimates as they are after the ack's sample (if it gave one).
func (cc *congestion) acked(seq uint16, size int, r rtt) {
	cc.inFlight -= size
	if cc.fixed {
		return
	}
	if r.samples != cc.samples {
		cc.samples = r.samples
		if cc.roundMin == 0 || r.latest < cc.roundMin {
			cc.roundMin = r.latest
		}
	}
	if cc.recovering && !newer(seq, cc.recoveryEnd) {
		// A packet sent before the last cut: the window waits for the recovery to end. The
		// round trips still count, for the queue.
	} else if cc.recovering = false; cc.windowLimited(cc.inFlight + size) {
		cc.limited = true
		switch {
		case cc.queue:
			// Veno: with a queue at the bottleneck, one packet more every other round trip.
			cc.cwnd += max(cc.mtu*size/max(2*cc.cwnd, 1), 1)
		default:
			cc.cwnd += max(cc.mtu*size/max(cc.cwnd, 1), 1)
		}
		cc.cwnd = min(cc.cwnd, cc.maxWnd)
	}
	if !newer(cc.roundEnd, seq) {
		cc.endRound(r)
	}
}

// endRound closes a round trip: it measures the queue and moves the delay-based part.
func (cc *congestion) endRound(r rtt) {
	if cc.roundMin > 0 && r.smallest > 0 {
		var size int
		size, cc.queue = cc.queueAt(cc.roundMin, r)
		if cc.limited && !cc.recovering {
			if cc.queue {
				if cc.dwnd > 0 {
					cc.stats.DelayBackoffs++
				}
				cc.dwnd = max(cc.dwnd-size, 0)
			} else {
				cc.dwnd = min(cc.dwnd+cc.window()/8, cc.maxWnd-cc.cwnd)
			}
		}
	}
	cc.roundEnd, cc.roundMin, cc.limited = cc.newest, 0, false
}

// queueAt estimates, from a round trip of d, the bytes of ours queued at the bottleneck
// (Vegas's estimate: the window's share of d that the smallest round trip does not explain),
// and reports whether that is a queue: d at least queueMinDelay, and twice the samples' own
// variation, above the smallest one (jitter alone lifts the smallest sample of a round that
// far above the smallest of all), with at least queueTarget packets of ours in it.
func (cc *congestion) queueAt(d time.Duration, r rtt) (size int, queued bool) {
	base := r.smallest
	if d == 0 || base == 0 {
		return 0, false
	}
	size = int(int64(cc.window()) * int64(d-base) / int64(d))
	return size, d-base >= max(queueMinDelay, 2*r.variation) && size >= queueTarget*cc.mtu
}

// lost takes the loss of a content packet of size bytes.
func (cc *congestion) lost(seq uint16, size int, r rtt) {
	cc.inFlight -= size
	if cc.fixed || cc.recovering && !newer(seq, cc.recoveryEnd) {
		return // one cut per round trip of losses
	}
	// The freshest evidence: this round's smallest sample, or the latest one if the round
	// has none yet.
	d := cc.roundMin
	if d == 0 {
		d = r.latest
	}
	beta := betaNoise
	if _, queued := cc.queueAt(d, r); queued {
		beta = betaCongestion
		cc.stats.CongestionCuts++
	} else {
		cc.stats.NoiseCuts++
	}
	cc.cwnd = max(cc.cwnd*beta/10, minWindowPackets*cc.mtu)
	cc.dwnd = cc.dwnd * beta / 10
	cc.recovering, cc.recoveryEnd = true, cc.newest
	cc.limited = false // what limited the round before the cut says nothing of the window after it
}

// snapshot is the controller's part of Stats.
func (cc *congestion) snapshot() CongestionStats {
	s := cc.stats
	s.Window, s.DelayWindow, s.BytesInFlight = cc.window(), cc.dwnd, cc.inFlight
	if cc.fixed {
		s.DelayWindow = 0
	}
	return s
}
