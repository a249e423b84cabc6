package replay

import (
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// historyKept is how many guaranteed messages of each direction a connection's snapshot
// holds: twice what a live connection's debug views keep (message.DefaultHistory), so that
// the graph view has the latest 32 and the ones just before them.
const historyKept = 2 * message.DefaultHistory

// rttKept is how many round-trip samples a connection keeps for the ack view's sparkline.
const rttKept = 32

// maxSeqGap bounds the sent packets a connection makes up for when the capture misses some
// (the recorder's queue was full): the packet layer's sequence numbers are 16 bits.
const maxSeqGap = 1 << 16

// outMsg is one guaranteed message the recorded host sent, followed from its packets.
type outMsg struct {
	rec     message.Record
	sends   []int    // per piece: how many times it went
	lastPkt []uint16 // per piece: the packet of its latest send
	acked   []bool   // per piece
	pieces  [][]byte // per piece: its bytes, to read the message once all are seen
	nAcked  int
	decoded bool
	spur    bool // counted as a spurious resend once
}

// conn is the state of one connection of the recorded host, rebuilt from the capture.
type conn struct {
	peer   netip.AddrPort
	name   string
	player uuid.UUID
	since  time.Time
	closed string // why it ended, "" while it is up
	now    time.Time

	ep   *packet.Endpoint         // the packet layer, both directions
	in   *message.Conn            // the receiving half of the message layer
	seen transport.ReplayRecord   // the counters of the datagrams the host accepted
	out  map[uint16]*outMsg       // the latest sent message with each sequence number
	hist []*outMsg                // the latest sent messages, oldest first
	loc  *depgraph.Graph[*outMsg] // the sender's local graph
	inSN map[uint64]uint64        // the message layer's serials of received messages → ours
	last uint64                   // the message layer's latest serial seen
	sn   uint64                   // the serial of the latest record, either way
	rtts []time.Duration

	counts  connCounts
	opening opening
	decode  func(c *conn, out bool, payload []byte)
	inErr   error
}

// connCounts are a connection's counters, as the recording shows them: data datagrams each way,
// the ones refused (replayed, sealed with no key, malformed) or that left a gap, guaranteed
// messages and fragments sent and resent, resends that were spurious, lost packets that carried
// messages, and dependencies the sender's local graph pruned.
type connCounts struct {
	dataSent, dataReceived                   uint64
	replayed, sealedNoKey, malformed, gapped uint64
	sent, resent, fragSent, fragResent       uint64
	spurious, lostWithMessages, pruned       uint64
	pingRTT                                  time.Duration // the latest ping's round trip
}

// opening is how far the connection's handshake went in the recording.
type opening struct {
	client   bool   // the recorded host is this connection's client
	accepted bool   // its Accepted came
	early    *early // a sealed datagram kept until the Accepted came
	hasData  bool   // a data datagram passed, either way
}

func newConn(peer netip.AddrPort, decode func(c *conn, out bool, payload []byte)) *conn {
	c := &conn{peer: peer, out: map[uint16]*outMsg{}, inSN: map[uint64]uint64{}, decode: decode}
	c.ep = packet.NewEndpoint(packet.Config{
		PeerMaxAckDelay: message.MaxAckDelay,
		OnAcked:         c.onAcked,
		OnLost: func(p *packet.SentPacket) {
			if len(p.Items) > 0 {
				c.counts.lostWithMessages++
			}
		},
	})
	cfg := message.Config{History: historyKept}
	c.in = message.New(cfg, func(m *message.Message) { c.decode(c, false, m.Payload) })
	// The sender's local graph keeps its unacknowledged messages (the message layer's resend
	// limit governs them) and lets executed ones go as the receiver's graph does. It keeps the
	// window rule, as the message layer's sender does (depgraph.NewWindowSender): a host that
	// sends fast reuses a number long before its old node would expire.
	c.loc = depgraph.New(depgraph.Config{Expiry: cfg.Expiry(), KeepUnexecuted: true, Window: true}, func(seq uint16, m *outMsg) {
		m.rec.Executed = c.now
	})
	return c
}

func (c *conn) serial() uint64 { c.sn++; return c.sn }

// sentData applies a Data packet the host sent (whatever the link did with it).
func (c *conn) sentData(now time.Time, d *Datagram) {
	c.now, c.opening.hasData = now, true
	c.counts.dataSent++
	for n := 0; c.ep.NextHeader().Seq != d.Header.Seq && n < maxSeqGap; n++ {
		// Packets the capture missed: the host sent them, nothing is known of what they held.
		c.ep.Sent(now, c.ep.NextHeader(), 0, nil)
		c.counts.gapped++
	}
	var items []packet.Item
	for i := range d.Records {
		r := &d.Records[i]
		if r.Kind == wire.KindUnreliable {
			c.decode(c, true, r.payload)
			continue
		}
		m := c.sentUnit(now, d.Header.Seq, r)
		items = append(items, packet.Item{Seq: r.Seq, Frag: r.FragIndex})
		if !m.decoded && !slices.ContainsFunc(m.pieces, func(p []byte) bool { return p == nil }) {
			m.decoded = true
			c.decode(c, true, slices.Concat(m.pieces...))
		}
	}
	c.ep.Sent(now, d.Header, d.Size, items)
}

// sentUnit notes one send of a guaranteed message or fragment and returns its message.
func (c *conn) sentUnit(now time.Time, pkt uint16, r *Record) *outMsg {
	pieces, idx := 1, 0
	if r.Kind == wire.KindFragment {
		pieces, idx = int(r.FragCount), int(r.FragIndex)
	}
	m := c.out[r.Seq]
	if m == nil || !m.rec.Acked.IsZero() || len(m.sends) != pieces {
		// A new message: the number is free again once its last message was acknowledged.
		m = &outMsg{sends: make([]int, pieces), lastPkt: make([]uint16, pieces), acked: make([]bool, pieces), pieces: make([][]byte, pieces)}
		m.rec = message.Record{Serial: c.serial(), Seq: r.Seq, Outgoing: true, First: -1, Sync: r.Sync, Pieces: pieces, Queued: now, Sent: now}
		for _, dep := range r.Deps {
			m.rec.Deps = append(m.rec.Deps, message.Edge{Seq: dep})
		}
		c.out[r.Seq] = m
		c.hist = append(c.hist, m)
		if len(c.hist) > historyKept {
			old := c.hist[0]
			c.hist = slices.Delete(c.hist, 0, 1)
			if c.out[old.rec.Seq] == old && !old.rec.Acked.IsZero() {
				delete(c.out, old.rec.Seq)
			}
		}
		c.counts.sent++
		c.loc.Expire(now)
		_, _ = c.loc.Add(now, r.Seq, r.Deps, m, false) // a number still in use stays the old message's
	}
	if r.Type != 0 && idx == 0 {
		m.rec.First = int16(r.Type)
	}
	if m.sends[idx] > 0 {
		r.Again = true
		c.counts.resent++
		if pieces > 1 {
			c.counts.fragResent++
		}
	} else if pieces > 1 {
		c.counts.fragSent++
	}
	m.sends[idx]++
	m.rec.Sends++
	m.lastPkt[idx] = pkt
	m.pieces[idx] = r.payload
	// A dependency a send leaves off was pruned: the sender's local graph had executed it.
	for i := range m.rec.Deps {
		if e := &m.rec.Deps[i]; !e.Pruned && !slices.Contains(r.Deps, e.Seq) {
			e.Pruned = true
			c.counts.pruned++
		}
	}
	return m
}

// onAcked is the packet layer's news that a sent packet arrived: its units are acknowledged.
func (c *conn) onAcked(p *packet.SentPacket) {
	for _, it := range p.Items {
		m := c.out[it.Seq]
		if m == nil || int(it.Frag) >= len(m.acked) || m.acked[it.Frag] {
			continue
		}
		m.acked[it.Frag] = true
		m.nAcked++
		if m.lastPkt[it.Frag] != p.Seq && !m.spur {
			m.spur = true // it went again after this packet, which arrived: in vain
			c.counts.spurious++
		}
		if m.nAcked == len(m.acked) {
			m.rec.Acked = c.now
			c.loc.Arrive(c.now, it.Seq)
		}
	}
}

// receivedData applies a Data packet that reached the host, and says what the host did with it.
func (c *conn) receivedData(now time.Time, d *Datagram, packetBytes []byte) string {
	c.now, c.opening.hasData = now, true
	if d.Sealed && !c.seen.Accept(d.Counter) {
		c.counts.replayed++
		return "a copy, refused as a replay"
	}
	c.counts.dataReceived++
	samples := c.ep.Stats().RTTSamples
	verdict := c.ep.Received(now, d.Header, d.Size)
	if c.inErr == nil {
		if err := c.in.ReceivePacket(now, packetBytes, d.Size); err != nil {
			c.inErr = err
		}
	}
	if st := c.ep.Stats(); st.RTTSamples > samples {
		c.rtts = append(c.rtts, st.LatestRTT)
		if len(c.rtts) > rttKept {
			c.rtts = slices.Delete(c.rtts, 0, 1)
		}
	}
	hist := c.in.Debug().Incoming
	c.mapSerials(hist)
	switch verdict {
	case packet.Stale:
		return "stale (older than the newest packet received): dropped, not acknowledged"
	case packet.Duplicate:
		return "duplicate: dropped"
	}
	for i := range d.Records {
		if r := &d.Records[i]; r.Kind != wire.KindUnreliable && c.arrivedBefore(hist, r) {
			r.Again = true
		}
	}
	return "accepted"
}

// arrivedBefore reports whether a received record's message had arrived whole before this
// packet: its record in the history arrived earlier than now.
func (c *conn) arrivedBefore(hist []message.Record, r *Record) bool {
	for i := len(hist) - 1; i >= 0; i-- {
		if in := &hist[i]; in.Seq == r.Seq {
			return in.Arrived.Before(c.now)
		}
	}
	return false
}

// mapSerials gives the messages the message layer recorded since the last call serials of
// this connection's count, so that sent and received records are ordered as they happened.
func (c *conn) mapSerials(hist []message.Record) {
	for _, r := range hist {
		if r.Serial > c.last {
			c.inSN[r.Serial] = c.serial()
			c.last = r.Serial
		}
	}
	if len(c.inSN) > 2*historyKept && len(hist) > 0 {
		for s := range c.inSN {
			if s < hist[0].Serial {
				delete(c.inSN, s)
			}
		}
	}
}

// stats is the connection's snapshot, in the form a live transport gives the debug panel.
func (c *conn) stats() transport.PeerStats {
	ms := c.in.Stats()
	pk := c.ep.Stats()
	ms.Packet = pk
	ms.GuaranteedSent, ms.GuaranteedResent = c.counts.sent, c.counts.resent
	ms.FragmentsSent, ms.FragmentsResent = c.counts.fragSent, c.counts.fragResent
	ms.SpuriousResends, ms.LostWithMessages = c.counts.spurious, c.counts.lostWithMessages
	ms.PrunedDeps, ms.SenderGraph = c.counts.pruned, c.loc.Len()
	ms.PendingGuaranteed = 0
	for _, m := range c.out {
		if m.rec.Acked.IsZero() {
			ms.PendingGuaranteed++
		}
	}
	ms.ResendDelay = c.ep.ResendDelay()
	ms.Err = c.inErr
	d := c.in.Debug()
	dbg := &message.Debug{History: c.ep.History(nil)}
	for _, r := range d.Incoming {
		if sn, ok := c.inSN[r.Serial]; ok {
			r.Serial = sn
			dbg.Incoming = append(dbg.Incoming, r)
		}
	}
	for _, m := range c.hist {
		r := m.rec
		r.Deps = slices.Clone(r.Deps)
		for i := range r.Deps {
			r.Deps[i].Done = !c.loc.Present(r.Deps[i].Seq) || c.loc.Executed(r.Deps[i].Seq)
		}
		dbg.Outgoing = append(dbg.Outgoing, r)
	}
	return transport.PeerStats{
		Addr: c.peer, PlayerID: c.player, Name: c.name, Connected: c.closed == "" && c.opening.hasData, Since: c.since,
		RTT: pk.RTT, MinRTT: pk.MinRTT, MaxRTT: pk.MaxRTT, Jitter: pk.Jitter, PingRTT: c.counts.pingRTT,
		LossPercent: pk.LossPercent, PacketsSent: pk.PacketsSent, PacketsReceived: pk.PacketsReceived,
		BytesSent: pk.BytesSent, BytesReceived: pk.BytesReceived, Stale: pk.Stale, Duplicate: pk.Duplicate,
		Malformed: c.counts.malformed, Replayed: c.counts.replayed,
		GuaranteedSent: c.counts.sent, GuaranteedResent: c.counts.resent, GuaranteedExecuted: ms.GuaranteedExecuted,
		SpuriousResends: c.counts.spurious, DuplicatesIgnored: ms.DuplicatesIgnored, DependencyBytes: ms.DependencyBytes,
		PendingGuaranteed: ms.PendingGuaranteed, ReceiverGraph: ms.ReceiverGraph, ReceiverWaiting: ms.ReceiverWaiting,
		SenderGraph: ms.SenderGraph, Message: ms, Debug: dbg,
	}
}
