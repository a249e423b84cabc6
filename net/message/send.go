package message

import (
	"time"

	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/wire"
)

// maxFragments is the most fragments one message may be split into (the count is one byte).
const maxFragments = 255

// outMsg is a guaranteed message on the sending side, from SendGuaranteed until every one of
// its units is acknowledged.
type outMsg struct {
	seq       uint16
	kind      sendKind // plain, sync (stop-and-wait), urgent (each send three times) or timely (each resend twice)
	payload   []byte   // owned copy; kept (with its capacity) when the outMsg is recycled
	chunk     int      // fragment size; len(payload) when the message goes whole
	units     []unit   // one for a whole message, one per fragment otherwise
	nextUnit  int      // the first unit never sent yet
	acked     int      // units acknowledged
	firstSent time.Time
	hist      histRef // its entry in the history (Config.History)
	// generation changes every time the outMsg is recycled, so that references to its previous
	// life (in the resend queue) are recognised as stale.
	generation uint64
}

func (m *outMsg) gen() uint64 { return m.generation }

// unit is one piece that is sent and acknowledged on its own: a whole message or one fragment.
type unit struct {
	firstSent time.Time
	lastSent  time.Time
	lastPkt   uint16 // the packet of the latest send
	tryPkt    uint16 // the packet of the latest try's first send: its copies went after it
	sends     int
	acked     bool
	lost      bool // the packet of the latest send can no longer be acknowledged
	// copyAt is when the next copy of its latest resend is due, and copiesLeft how many are
	// still owed (copyAfter).
	copyAt     time.Time
	copiesLeft int
}

func (m *outMsg) fragmented() bool { return len(m.units) > 1 }

// unitPayload is the slice of the payload that unit i carries.
func (m *outMsg) unitPayload(i int) []byte {
	if !m.fragmented() {
		return m.payload
	}
	lo := i * m.chunk
	hi := min(lo+m.chunk, len(m.payload))
	return m.payload[lo:hi]
}

func (c *Conn) newOutMsg() *outMsg {
	if n := len(c.free); n > 0 {
		m := c.free[n-1]
		c.free = c.free[:n-1]
		return m
	}
	return &outMsg{}
}

// recycle keeps m's buffers for a later message. Only messages that nothing refers to any more
// come here: fully acknowledged, out of the queue; stale references in the resend queue are
// recognised by their sequence number and send count.
func (c *Conn) recycle(m *outMsg) {
	payload, units, gen := m.payload[:0], m.units[:0], m.generation+1
	*m = outMsg{payload: payload, units: units, generation: gen}
	c.free = append(c.free, m)
}

// unitRef names a unit in the resend queue. It is stale (and skipped) when the unit was acked,
// sent again since (sends differs), or its outMsg was recycled for another message (seq or
// generation differs).
type unitRef struct {
	m     *outMsg
	seq   uint16
	idx   uint8
	sends int
	gen   uint64
}

// AppendPacket writes the next datagram to send into b (appended) and reports whether it wrote
// one. A packet is written when there is something to send: a guaranteed unit whose resend time
// has come (its packet was lost, or the link fell silent for a resend delay: see resendAt) or
// the copy of a resend (copyAfter), a guaranteed message not yet sent (unless a sync message
// is waiting for its ack), an unreliable message, a keepalive or an ack that is due
// (Config.Keepalive, Config.AckDelay), or when force is set (the caller wants a packet that
// carries the acks now). Call it in a loop until it reports false to drain everything that is
// due now. The first call starts the keepalive clock.
//
// Packing order: resends first (they have waited longest), then the copies of resends that are
// due (copyAfter), then new guaranteed messages in the order they were queued, then unreliable
// messages, each as long as it fits the MTU.
func (c *Conn) AppendPacket(b []byte, now time.Time, force bool) ([]byte, bool) {
	if c.err != nil {
		return b, false
	}
	c.Poll(now)
	if c.err != nil {
		return b, false
	}
	if c.lastSend.IsZero() {
		c.lastSend = now
	}
	force = force || c.packetDue(now)
	start := len(b)
	heldBy := c.held(now)
	paced := heldBy != holdNone
	probe := false
	if paced {
		if due := c.contentDue(now); !due.IsZero() && !due.After(now) {
			c.cc.countHold(heldBy) // a packet with messages that has to wait
		}
		probe = heldBy == holdWindow && c.probeDue(now)
		if !force && !probe {
			return b, false // wait for acks (or the pacer) before more content goes out
		}
	}
	b = c.cfg.Frame.Begin(b)
	h := c.pkt.NextHeader()
	b = wire.AppendHeader(b, h)
	_, back := c.cfg.Frame.Overhead()
	limit := start + c.cfg.MTU - back
	c.items = c.items[:0]
	records := 0

	// 1. Resends, oldest send first.
	for !paced && c.trimResend() {
		ref := c.resend.front()
		m := ref.m
		u := &m.units[ref.idx]
		if now.Before(c.resendAt(u)) {
			break
		}
		nb, ok := c.appendUnit(b, limit, m, int(ref.idx))
		if !ok {
			break // packet full; the rest go in the next packet
		}
		b = nb
		c.resend.pop()
		c.resent(m)
		c.sentUnit(now, h.Seq, m, int(ref.idx))
		u.tryPkt = h.Seq
		records++
		if now.Sub(u.firstSent) >= c.copyAfter() {
			// Old enough to be at risk of the limit: the same try goes again, in later packets
			// of their own (copyGap).
			u.copiesLeft = copiesPerTry
			c.owe(now, m, ref.idx)
		} else if n := copiesOf(m); n > 0 {
			u.copiesLeft = n
			c.owe(now, m, ref.idx)
		}
	}

	// 1b. The copies of those resends, each once its gap has passed.
	for !paced && c.trimCopies() {
		ref := c.copies.front()
		m := ref.m
		u := &m.units[ref.idx]
		if now.Before(u.copyAt) {
			break
		}
		nb, ok := c.appendUnit(b, limit, m, int(ref.idx))
		if !ok {
			break
		}
		b = nb
		c.copies.pop()
		u.copyAt = time.Time{}
		c.resent(m)
		c.stats.ResendCopies++
		c.sentUnit(now, h.Seq, m, int(ref.idx))
		records++
		if u.copiesLeft--; u.copiesLeft > 0 {
			c.owe(now, m, ref.idx)
		}
	}

	// 1c. A probe: the oldest unit waiting for its ack goes again past the full window, so that
	// the peer, which owes an ack for every packet with messages, tells what became of the
	// window (probeDue).
	if probe && c.trimResend() {
		ref := c.resend.front()
		if nb, ok := c.appendUnit(b, limit, ref.m, int(ref.idx)); ok {
			b = nb
			c.resend.pop()
			c.resent(ref.m)
			c.stats.Probes++
			c.sentUnit(now, h.Seq, ref.m, int(ref.idx))
			ref.m.units[ref.idx].tryPkt = h.Seq
			c.lastProbe = now
			records++
		}
	}

	// 2. New guaranteed messages, unless a sync message is still waiting for its ack.
	for !paced && !c.syncBlocking() && c.queue.len() > 0 {
		m := c.queue.front()
		full := false
		for m.nextUnit < len(m.units) {
			nb, ok := c.appendUnit(b, limit, m, m.nextUnit)
			if !ok {
				full = true
				break
			}
			b = nb
			if m.nextUnit == 0 {
				m.firstSent = now
				c.stats.GuaranteedSent++
			}
			m.units[m.nextUnit].firstSent = now
			m.units[m.nextUnit].tryPkt = h.Seq
			c.sentOrder.push(unitRef{m: m, seq: m.seq, idx: uint8(m.nextUnit), gen: m.gen()})
			if m.fragmented() {
				c.stats.FragmentsSent++
			}
			c.sentUnit(now, h.Seq, m, m.nextUnit)
			if m.kind == sendUrgent {
				m.units[m.nextUnit].copiesLeft = urgentCopies
				c.owe(now, m, uint8(m.nextUnit))
			}
			m.nextUnit++
			records++
		}
		if full {
			break
		}
		c.queue.pop()
		if m.kind == sendSync {
			c.syncBlock = m // stop and wait: nothing new goes out until it is acked (resends still do)
			c.stats.SyncSent++
		}
	}

	// 3. Unreliable messages: sent once, in the order they were queued.
	for !paced && len(c.unrel) > 0 {
		rec := wire.Record{Kind: wire.KindUnreliable, Payload: c.unrel[0]}
		if len(b)+rec.Size() > limit {
			break
		}
		b, _ = wire.AppendRecord(b, &rec)
		c.unrelLen -= len(c.unrel[0])
		c.unrel[0] = nil
		c.unrel = c.unrel[1:]
		records++
	}
	if len(c.unrel) == 0 {
		c.unrel = c.unrel[:0:0]
	}

	if records == 0 && !force {
		return b[:start], false
	}
	b = c.cfg.Frame.Seal(b, start)
	c.pkt.Sent(now, h, len(b)-start, c.items)
	if records > 0 {
		c.content[h.Seq%packet.SentRingSize] = int32(len(b) - start)
		c.contentInFlight++
		c.lastContent = now
		if len(c.items) > 0 {
			c.lastGuaranteed, c.lastGuaranteedSeq = now, h.Seq
		}
		c.cc.sent(now, h.Seq, len(b)-start, c.pacingRTT())
	}
	if c.stats.ackOwed && c.pkt.LossSeen() {
		c.ackRepeatAt = now.Add(c.cfg.AckDelay) // the first ack of these packets: owe a repeat (packetDue)
	} else {
		c.ackRepeatAt = time.Time{} // this packet repeats the ack
	}
	c.stats.ackOwed, c.stats.ackLazy = false, false
	c.stats.unackedPackets, c.stats.unackedFull = 0, 0
	c.lastSend = now
	return b, true
}

// copyGap is how long after a resend (or its copy) the next copy leaves: in another packet, so
// that one loss does not take both, and a little later, so that a short burst of losses does
// not either.
const copyGap = 10 * time.Millisecond

// copiesPerTry is how many copies follow each resend of a unit that has waited copyAfter.
const copiesPerTry = 2

// urgentCopies is how many copies follow each send of an urgent message (SendUrgent), and
// timelyCopies each resend of a timely one (SendTimely). An urgent message is one whose every
// moment late costs (a repair the world waits on), and rare: at 19% loss per link a send and
// one copy are both lost about once in 28, which a repair's p95 feels; with two copies once
// in 150.
const (
	urgentCopies = 2
	timelyCopies = 1
)

// copiesOf is how many copies follow a resend of m that is not yet at risk of the limit.
func copiesOf(m *outMsg) int {
	switch m.kind {
	case sendUrgent:
		return urgentCopies
	case sendTimely:
		return timelyCopies
	}
	return 0
}

// copyAfter is how long a unit may wait for its acknowledgement before each of its resends goes
// three times (the resend, then copiesPerTry copies copyGap apart): a tenth of the resend
// limit, 500 ms of the default 5 s. A unit that old is one the link lost twice or more, and the
// limit ends the connection if every try of the rest is lost too. At the class's 30% preset
// (30% on each process's conditioner: 51% lost each way, a round trip of 200 ms) a try (a send
// and its ack) fails a little more than half the time, and the next try waits until the loss
// is seen, a resend delay or more (300 to 800 ms when the acks that would show it are lost
// too): with one send per try a message lost every try for 5 s about once in 20,000 to 50,000,
// and a game of four hosts sends that many in a few minutes. With one copy per try, 1 message
// in 500,000 still did (one of 60 seeded games at that preset); with two, a try fails about one
// time in seven, and of 84,000 messages none waited 3 s (TestResendLimitAtClassLoss). At 51%
// the copies are a quarter of the sends. On a link that loses a tenth almost no unit waits half
// a second, and nothing is copied.
func (c *Conn) copyAfter() time.Duration { return c.cfg.ResendLimit / 10 }

// owe schedules the next copy of unit idx of m, copyGap from now.
func (c *Conn) owe(now time.Time, m *outMsg, idx uint8) {
	u := &m.units[idx]
	u.copyAt = now.Add(copyGap)
	c.copies.push(unitRef{m: m, seq: m.seq, idx: idx, sends: u.sends, gen: m.gen()})
}

// resent counts a unit of m sent again.
func (c *Conn) resent(m *outMsg) {
	c.stats.GuaranteedResent++
	if m.fragmented() {
		c.stats.FragmentsResent++
	}
}

// appendUnit appends the record for unit i of m if it fits below limit. The dependency list is
// asked of the sender's local graph at every send, so a resend carries fewer dependencies than
// the first send once some of them executed.
func (c *Conn) appendUnit(b []byte, limit int, m *outMsg, i int) ([]byte, bool) {
	c.depBuf = c.sender.WireDeps(m.seq, c.depBuf[:0])
	rec := wire.Record{Kind: wire.KindGuaranteed, Sync: m.kind == sendSync, Seq: m.seq, Deps: c.depBuf, Payload: m.unitPayload(i)}
	if m.fragmented() {
		rec.Kind = wire.KindFragment
		rec.FragIndex = uint8(i)
		rec.FragCount = uint8(len(m.units))
		rec.TotalLen = uint32(len(m.payload))
	}
	if len(b)+rec.Size() > limit {
		return b, false
	}
	nb, err := wire.AppendRecord(b, &rec)
	if err != nil {
		// Cannot happen for records this package built; refusing to send beats a corrupt packet.
		c.fail(err)
		return b, false
	}
	c.stats.DependencyBytes += uint64(2 * len(c.depBuf))
	c.stats.SequenceBytes += 2
	return nb, true
}

// sentUnit records that unit i of m went out now in packet pkt: in the packet's item list (so
// its ack finds it) and at the back of the resend queue.
func (c *Conn) sentUnit(now time.Time, pkt uint16, m *outMsg, i int) {
	u := &m.units[i]
	u.lastSent = now
	u.lastPkt = pkt
	u.lost = false
	u.sends++
	if c.hist != nil {
		c.recordSent(now, m, c.depBuf) // depBuf: the dependencies appendUnit just wrote
	}
	c.items = append(c.items, packet.Item{Seq: m.seq, Frag: uint8(i)})
	c.resend.push(unitRef{m: m, seq: m.seq, idx: uint8(i), sends: u.sends, gen: m.gen()})
}

// probeDue reports whether a probe should go now: the window is full of packets in flight, the
// oldest unit waiting for its ack has waited a resend delay since it (and the latest packet
// with messages) left, and no probe went within a resend delay. Only an ack frees a full
// window, and a peer acknowledges only packets with messages: when the acks of the last packets
// before a silence are lost, the peer has nothing more to say, and without a probe the window
// stays shut until the peer speaks on its own (its keepalive, a second later, or its next
// message). That wait was hidden while keepalives went every 100 ms; a 1 s keepalive showed it
// (BENCHMARKS.md, "Fewer, fuller datagrams"). QUIC's probe timeout does the same: a probe may
// exceed the congestion window. At most one probe goes per resend delay, so a peer that is
// gone costs one packet per resend delay until the resend limit fails the connection.
func (c *Conn) probeDue(now time.Time) bool {
	at := c.probeAt()
	return !at.IsZero() && !now.Before(at)
}

// nextProbe is the earliest time the next probe may leave: a resend delay after the last.
func (c *Conn) nextProbe() time.Time {
	if c.lastProbe.IsZero() {
		return time.Time{}
	}
	return c.lastProbe.Add(c.pkt.ResendDelay())
}

// probeAt is when probeDue turns true with no datagram arriving (zero: no probe waits).
func (c *Conn) probeAt() time.Time {
	if !c.trimResend() {
		return time.Time{}
	}
	ref := c.resend.front()
	u := &ref.m.units[ref.idx]
	if u.lost {
		return time.Time{}
	}
	at := c.resendAt(u)
	if n := c.nextProbe(); n.After(at) {
		at = n
	}
	return at
}

// syncBlocking reports whether a sync message is out and unacknowledged.
func (c *Conn) syncBlocking() bool { return c.syncBlock != nil }

// held reports what makes content wait now: the packets in flight at the cap or the congestion
// window full (holdWindow), or the pacer without budget (holdPacer). Resends wait too: they are
// content.
func (c *Conn) held(now time.Time) hold {
	if c.contentInFlight >= c.cfg.MaxInFlight {
		return holdWindow
	}
	return c.cc.holds(now, c.pacingRTT())
}

// contentDue is when messages are next due to go out, whatever the window and the pacer say:
// now if a new guaranteed message (not behind a sync message) or an unreliable one waits or a
// resend is overdue, else the time of the next resend; zero if there is nothing to send.
func (c *Conn) contentDue(now time.Time) time.Time {
	if (c.queue.len() > 0 && !c.syncBlocking()) || len(c.unrel) > 0 {
		return now
	}
	var due time.Time
	if c.trimResend() {
		ref := c.resend.front()
		due = c.resendAt(&ref.m.units[ref.idx])
		if due.Before(now) {
			due = now // lost: due at once
		}
	}
	if c.trimCopies() {
		ref := c.copies.front()
		if at := maxTime(ref.m.units[ref.idx].copyAt, now); due.IsZero() || at.Before(due) {
			due = at
		}
	}
	return due
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// pacingRTT is the smoothed round trip the pacer paces by, 0 before the first sample (the
// initial guess is no rate to pace a link at).
func (c *Conn) pacingRTT() time.Duration {
	if r := c.pkt.RTT(); r.Samples > 0 {
		return r.Smoothed
	}
	return 0
}

// resolved notes that one of our packets was acked or lost, and returns its size if it carried
// messages (0: it did not).
func (c *Conn) resolved(seq uint16) int {
	i := seq % packet.SentRingSize
	size := int(c.content[i])
	if size > 0 {
		c.content[i] = 0
		c.contentInFlight--
	}
	return size
}

// resendAt is when unit u, unacknowledged, goes again: the resend rule. At once if the packet
// of its latest send was lost: the peer's acks passed that packet by, and the peer drops a
// packet older than one it accepted, so it can never arrive (net/packet). Otherwise only when
// the peer had time to acknowledge it and everything sent after it: one resend delay (round
// trip, four times its variation and the peer's ack delay) after both its latest send and the
// latest packet with messages. While newer packets are in flight their acks are still to come,
// and each of them would report this one, acked or lost; an ack-only packet of the peer that
// went missing is made good by the next one. Only when the link fell silent does the timer
// alone decide, and only then can a message that arrived be resent: when the ack-only packet
// that answered the last message before a silence is lost, a timer cannot tell that from a
// lost message (QUIC's probe timeout cannot either). On a clean link nothing is ever resent.
func (c *Conn) resendAt(u *unit) time.Time {
	if u.lost {
		return time.Time{}
	}
	last := u.lastSent
	if c.lastContent.After(last) {
		last = c.lastContent
	}
	return last.Add(c.pkt.ResendDelay())
}

// unitIn is the unit that item it of packet p carried, or nil if that unit is acknowledged
// already (or the item names an earlier message with this sequence number).
func (c *Conn) unitIn(p *packet.SentPacket, it packet.Item) (*outMsg, *unit) {
	m := c.inflight[it.Seq&(inflightSlots-1)]
	if m == nil || m.seq != it.Seq || int(it.Frag) >= len(m.units) || m.firstSent.IsZero() || p.Time.Before(m.firstSent) {
		return nil, nil
	}
	if u := &m.units[it.Frag]; !u.acked {
		return m, u
	}
	return nil, nil
}

// onPacketLost is the packet layer's callback for a packet that can no longer be acknowledged:
// the units whose latest send it carried are due again at once.
func (c *Conn) onPacketLost(p *packet.SentPacket) {
	if size := c.resolved(p.Seq); size > 0 {
		c.cc.lost(p.Seq, size, rttOf(c.pkt))
	}
	if len(p.Items) > 0 {
		c.stats.LostWithMessages++
	}
	for _, it := range p.Items {
		if _, u := c.unitIn(p, it); u != nil && u.lastPkt == p.Seq {
			u.lost = true
		}
	}
}

// onPacketAcked is the packet layer's callback: every guaranteed unit that rode in the packet is
// now known to have arrived.
func (c *Conn) onPacketAcked(p *packet.SentPacket) {
	if size := c.resolved(p.Seq); size > 0 {
		c.cc.acked(p.Seq, size, rttOf(c.pkt))
	}
	for _, it := range p.Items {
		m, u := c.unitIn(p, it)
		if u == nil {
			continue // acked before (or a packet of an earlier message with this sequence number)
		}
		if int16(p.Seq-u.tryPkt) < 0 {
			// A send of an earlier try arrived, so the latest try was not needed. Acks are
			// processed oldest packet first, and the peer drops a packet older than one it
			// accepted, so an earlier send that arrived is always reported before a later one.
			// (The copies of a try go after its first send, whichever of them arrives: they are
			// not tries of their own.)
			c.stats.SpuriousResends++
		}
		u.acked = true
		m.acked++
		if m.acked < len(m.units) {
			continue
		}
		// Every unit arrived: the receiver has the message. The sender's local graph now
		// executes it as soon as its dependencies have executed there too.
		c.inflight[m.seq&(inflightSlots-1)] = nil
		c.nInflight--
		if c.hist != nil {
			c.recordAcked(c.lastNow, m)
		}
		c.sender.Acked(c.lastNow, m.seq)
		if c.syncBlock == m {
			c.syncBlock = nil
			c.stats.SyncAcked++
			c.stats.SyncWait += c.lastNow.Sub(m.firstSent)
			c.stats.HeldBySync += uint64(c.queue.len())
		}
		if m.kind == sendSync {
			c.syncPending--
		}
		c.recycle(m)
	}
}

// stale reports whether a resend reference no longer names a unit waiting for its ack.
func (ref unitRef) stale() bool {
	m := ref.m
	return ref.gen != m.gen() || ref.seq != m.seq || m.units[ref.idx].acked || m.units[ref.idx].sends != ref.sends
}

// trimCopies drops the copies that are no longer owed from the front of their queue (the unit
// was acknowledged, or sent again since) and reports whether one remains there.
func (c *Conn) trimCopies() bool { return trimStale(&c.copies) }

// trimResend drops stale references from the front of the resend queue and reports whether a
// live one remains there.
func (c *Conn) trimResend() bool { return trimStale(&c.resend) }

// trimStale drops stale references from the front of q and reports whether a live one remains.
func trimStale(q *unitQueue) bool {
	for q.len() > 0 {
		if !q.front().stale() {
			return true
		}
		q.pop()
	}
	return false
}
