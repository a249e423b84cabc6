package message

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/wire"
)

// ErrMalformed wraps every reason a datagram is refused before any of it is used.
var ErrMalformed = errors.New("message: malformed datagram")

// inMsg is a received guaranteed message in the receiver's graph.
type inMsg struct {
	payload []byte
	deps    []uint16
	sync    bool
	frags   int
	hist    histRef // its entry in the history (Config.History)
}

// reassembly collects the fragments of one message.
type reassembly struct {
	seq      uint16
	count    int
	total    int
	chunk    int
	have     [maxFragments]bool
	got      int
	buf      []byte
	progress time.Time // when the last new fragment arrived
}

// Receive processes one datagram from the peer. The whole datagram is checked first: the
// frame (Config.Frame), the header and every record. A datagram that fails any check is dropped
// whole and counted (the error says why), so a half-parsed packet never executes anything, and
// since it is never acknowledged everything it carried is sent again. A datagram older than the
// newest one received is dropped too (the stale-packet rule) and counted as stale or duplicate,
// returning nil.
//
// Then the acknowledgements it carries are processed, and its messages are delivered:
// unreliable ones at once, guaranteed ones when the receiver's graph executes them, in
// dependency order and exactly once.
func (c *Conn) Receive(now time.Time, datagram []byte) error {
	if c.err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, c.err)
	}
	body, err := c.cfg.Frame.Open(datagram)
	if err != nil {
		c.lastNow = now
		c.pkt.Malformed(len(datagram))
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return c.ReceivePacket(now, body, len(datagram))
}

// ReceivePacket is Receive for a datagram whose frame the caller has opened already (a
// transport that must know the packet's type first): body is the Data packet from its type
// byte on, size the whole datagram's size for the byte counters. The packet's bytes are only
// borrowed for the call: delivered messages point into them, and what has to wait is copied.
func (c *Conn) ReceivePacket(now time.Time, body []byte, size int) error {
	if c.err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, c.err)
	}
	c.lastNow = now
	h, n, err := wire.ParseHeader(body)
	if err != nil {
		c.pkt.Malformed(size)
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	// Pass 1: parse every record before anything is acted on.
	c.recs = c.recs[:0]
	for rest := body[n:]; len(rest) > 0; {
		c.recs = append(c.recs, wire.Record{Deps: c.takeDepBuf()})
		r := &c.recs[len(c.recs)-1]
		k, err := wire.ParseRecord(rest, r)
		if err == nil {
			err = c.checkRecord(r)
		}
		if err != nil {
			c.pkt.Malformed(size)
			return fmt.Errorf("%w: record %d: %w", ErrMalformed, len(c.recs)-1, err)
		}
		rest = rest[k:]
	}
	// Expire old nodes first: a sequence number may have come round again, and the node of its
	// previous message must be gone before the new one is looked up.
	c.Poll(now)
	if c.err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, c.err)
	}
	// Fragments that would start a reassembly beyond the memory bound: the whole datagram is
	// refused unacknowledged, so the sender sends all of it again later. (Acks are per packet;
	// accepting the packet and dropping one fragment would lose that fragment for good.)
	if need := c.newReassemblyBytes(); need > 0 && c.reasmBytes+need > c.cfg.MaxReassemblyBytes {
		c.stats.FragmentsDropped++
		return nil
	}
	switch c.pkt.Received(now, h, size) {
	case packet.Stale, packet.Duplicate:
		return nil
	}
	c.stats.unackedPackets++
	if c.pkt.Gap() {
		// A packet came after a gap: the peer's packet before it was lost, and the peer learns
		// it only from an ack of this one. Without messages (the peer's tail probe, tailProbeAt)
		// it would owe nothing, and a message lost as the last before a silence would wait for
		// its resend delay. A chain of these acks lasts only while packets keep getting lost.
		c.stats.ackOwed = true
	}
	if len(c.recs) > 0 {
		// Guaranteed messages are owed a prompt ack: the sender resends without it. A packet
		// of unreliable messages alone is never resent, and its ack waits for a packet that
		// goes anyway (AckLazy).
		if slices.ContainsFunc(c.recs, func(r wire.Record) bool { return r.Kind != wire.KindUnreliable }) {
			c.stats.ackOwed = true
		} else {
			c.stats.ackLazy = true
		}
		if 2*size >= c.cfg.MTU {
			c.stats.unackedFull++
		}
	}
	// Pass 2: deliver.
	for i := range c.recs {
		if c.err != nil {
			break
		}
		r := &c.recs[i]
		switch r.Kind {
		case wire.KindUnreliable:
			c.stats.UnreliableReceived++
			c.msg = Message{Payload: r.Payload}
			c.deliver(&c.msg)
		case wire.KindGuaranteed:
			c.addGuaranteed(now, r.Seq, r.Deps, r.Payload, r.Sync, 0, false)
		case wire.KindFragment:
			c.addFragment(now, r)
		}
	}
	return nil
}

// takeDepBuf returns a dependency buffer for the next parsed record, reusing the backing arrays
// of earlier packets so that parsing does not allocate in steady state.
func (c *Conn) takeDepBuf() []uint16 {
	i := len(c.recs)
	if i < cap(c.recs) {
		if d := c.recs[:i+1][i].Deps; cap(d) >= wire.MaxDeps {
			return d[:0]
		}
	}
	return make([]uint16, 0, wire.MaxDeps)
}

// checkRecord applies the rules of this layer on top of the wire format: fragment sizes must be
// exactly the ones the sender computes, and no message may exceed the configured maximum.
func (c *Conn) checkRecord(r *wire.Record) error {
	if r.Kind != wire.KindFragment {
		return nil
	}
	total, count := int(r.TotalLen), int(r.FragCount)
	if total > c.cfg.MaxMessageSize {
		return fmt.Errorf("fragmented message of %d bytes, at most %d", total, c.cfg.MaxMessageSize)
	}
	chunk := (total + count - 1) / count
	want := min(chunk, total-int(r.FragIndex)*chunk)
	if want <= 0 || len(r.Payload) != want {
		return fmt.Errorf("fragment %d/%d of a %d-byte message carries %d bytes, want %d", r.FragIndex, count, total, len(r.Payload), want)
	}
	if re := c.reasm[r.Seq]; re != nil && (re.count != count || re.total != total) {
		return fmt.Errorf("fragment of message %d says %d fragments of %d bytes; earlier fragments said %d of %d", r.Seq, count, total, re.count, re.total)
	}
	return nil
}

// newReassemblyBytes is the memory the fragments of the parsed datagram would claim for
// reassemblies that do not exist yet.
func (c *Conn) newReassemblyBytes() int {
	need := 0
	for i := range c.recs {
		r := &c.recs[i]
		if r.Kind != wire.KindFragment || c.reasm[r.Seq] != nil || c.recv.Executed(r.Seq) || c.recv.Arrived(r.Seq) {
			continue
		}
		first := true // count each new message once, however many of its fragments ride here
		for j := range i {
			if q := &c.recs[j]; q.Kind == wire.KindFragment && q.Seq == r.Seq {
				first = false
				break
			}
		}
		if first {
			need += int(r.TotalLen)
		}
	}
	return need
}

// addGuaranteed hands a complete message to the receiver's graph. The payload is copied only if
// the message has to wait for a dependency; a message that executes at once is delivered
// straight from the datagram.
func (c *Conn) addGuaranteed(now time.Time, seq uint16, deps []uint16, payload []byte, sync bool, frags int, owned bool) {
	if c.recv.Executed(seq) || c.recv.Arrived(seq) {
		c.stats.DuplicatesIgnored++
		return
	}
	if re := c.reasm[seq]; re != nil && frags == 0 {
		// A whole message with the sequence number of a partial reassembly: the whole one
		// wins, and the partial one must not linger (and later expire as an error).
		delete(c.reasm, seq)
		c.reasmBytes -= re.total
	}
	v := inMsg{payload: payload, deps: deps, sync: sync, frags: frags}
	if c.hist != nil {
		v.hist = c.recordArrived(now, seq, deps, payload, sync, frags)
	}
	for _, d := range deps {
		if !c.recv.Executed(d) {
			// It will wait: keep copies that outlive the datagram.
			c.stats.Waited++
			if c.hist != nil {
				c.recordWaits(v.hist)
			}
			if !owned {
				v.payload = append([]byte(nil), payload...)
			}
			v.deps = append([]uint16(nil), deps...)
			break
		}
	}
	if _, err := c.recv.Add(now, seq, deps, v, true); err != nil {
		c.fail(err)
	}
}

// execute is the receiver graph's callback: the message's dependencies have all executed.
func (c *Conn) execute(seq uint16, v inMsg) {
	c.stats.GuaranteedExecuted++
	if c.hist != nil {
		c.recordExecuted(v.hist)
	}
	c.msg = Message{Guaranteed: true, Sync: v.sync, Seq: seq, Deps: v.deps, Payload: v.payload, Fragments: v.frags}
	c.deliver(&c.msg)
}

func (c *Conn) addFragment(now time.Time, r *wire.Record) {
	if c.recv.Executed(r.Seq) || c.recv.Arrived(r.Seq) {
		c.stats.DuplicatesIgnored++
		return
	}
	re := c.reasm[r.Seq]
	if re == nil {
		// Room was checked for the whole datagram before it was accepted.
		re = &reassembly{seq: r.Seq, count: int(r.FragCount), total: int(r.TotalLen)}
		re.chunk = (re.total + re.count - 1) / re.count
		re.buf = make([]byte, re.total)
		c.reasm[r.Seq] = re
		c.reasmBytes += re.total
	}
	if re.have[r.FragIndex] {
		c.stats.DuplicatesIgnored++
		return
	}
	re.have[r.FragIndex] = true
	re.got++
	re.progress = now
	copy(re.buf[int(r.FragIndex)*re.chunk:], r.Payload)
	c.stats.FragmentsReceived++
	if re.got < re.count {
		return
	}
	delete(c.reasm, r.Seq)
	c.reasmBytes -= re.total
	c.addGuaranteed(now, r.Seq, r.Deps, re.buf, r.Sync, re.count, true)
}

// Poll does the work that time alone makes due: it expires old nodes of both graphs (an
// unexecuted node on the receiver that reaches its age is a connection error), expires
// incomplete fragmented messages, and enforces the resend limit. AppendPacket and Receive call
// it; a transport calls it at NextDeadline when nothing else happens.
func (c *Conn) Poll(now time.Time) {
	if c.err != nil {
		return
	}
	if now.After(c.lastNow) {
		c.lastNow = now
	}
	if err := c.recv.Expire(now); err != nil {
		c.fail(err)
		return
	}
	c.sender.Expire(now)
	// An incomplete message that made no progress for the graph's expiry is a connection error,
	// like an unexecuted node. (There are few reassemblies at a time: a scan is cheap.)
	for _, re := range c.reasm {
		if now.Sub(re.progress) >= c.cfg.Expiry() {
			c.fail(fmt.Errorf("%w: message %d had %d of %d fragments, none new for %v", ErrReassemblyExpired, re.seq, re.got, re.count, now.Sub(re.progress).Round(time.Millisecond)))
			return
		}
	}
	// The resend limit, per unit (a whole message or one fragment) from its first send.
	if m, i, ok := c.oldestUnacked(); ok {
		if first := m.units[i].firstSent; now.Sub(first) >= c.cfg.ResendLimit {
			c.fail(fmt.Errorf("%w: message %d (unit %d of %d) unacknowledged for %v (limit %v)", ErrResendLimit, m.seq, i+1, len(m.units), now.Sub(first).Round(time.Millisecond), c.cfg.ResendLimit))
		}
	}
}

// oldestUnacked is the unit sent first of those still unacknowledged. Units enter sentOrder at
// their first send, so once the acknowledged ones are dropped from its front, the front is it.
func (c *Conn) oldestUnacked() (*outMsg, int, bool) {
	for c.sentOrder.len() > 0 {
		ref := c.sentOrder.front()
		if ref.gen != ref.m.gen() || ref.m.units[ref.idx].acked {
			c.sentOrder.pop()
			continue
		}
		return ref.m, int(ref.idx), true
	}
	return nil, 0, false
}
