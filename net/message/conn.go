package message

import (
	"errors"
	"fmt"
	"time"

	"github.com/ackattack/ackattack/internal/int30"
	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/wire"
)

// Errors a Conn reports. Connection errors (ErrResendLimit, depgraph.ErrExpired and
// ErrReassemblyExpired) are sticky: once Err returns one, the connection sends and
// delivers nothing more, and the caller should disconnect with that reason.
var (
	// ErrBackpressure: the next 15-bit sequence number would be depgraph.Window or more ahead
	// of the oldest message the sender's local graph has not executed (the window rule,
	// depgraph.Window). Sending it could let the receiver confuse a new message with an old
	// one, so the send is refused; try again once acknowledgements have come in.
	//
	// Why numbers are freed by knowledge and not by time. The receiver tells a new message from
	// a copy of one it executed by the number alone, so a number must not come back while the
	// receiver could still take the new message for the old one, or a copy of the old one for
	// the new. Freeing numbers by time (node expiry: the receiver forgets an executed message
	// Timeout + 1 s after executing it, and the sender reuses its number only then) is safe but
	// caps the sender at 32,768 messages per 6 s, 5,461 a second (5,788 measured over 70,000
	// messages, the first 32,768 being free); above 50,000 a second the guard would have to be
	// under 0.66 s, shorter than any connection timeout a game can live with. With the window
	// the sustained ceiling is depgraph.Window messages per the time the oldest outstanding one
	// takes to execute locally: on a clean link a round trip plus the ack delay (about a million
	// a second measured on a loopback, where the CPU binds first), 16,383 per 0.11 s on a
	// 100 ms link. A message held back by repeated loss holds the window, and nothing more.
	//
	// The window rule speaks of messages; copies are the packet layer's part. Every copy of the
	// old message left while it was unacknowledged, so before the first send of the message
	// Window after it, which cannot go out until the old one executed. The new number goes out
	// only after the message 32,768 − Window numbers after the old one was acknowledged, in a
	// packet that the receiver accepted and that left after every copy of the old message; the
	// receiver drops any packet older than one it accepted (the stale-packet rule), so no copy
	// can arrive once the number is back. (That relies on packet numbers not wrapping while a
	// copy is in flight: 32,768 packets, seconds even at the highest rates; the sealed frame of
	// net/transport refuses such a packet on its own.) The time rule stays for what the window
	// does not reach: the resend limit keeps every copy within Timeout of the first send, and a
	// message that waits Timeout + 1 s without executing is still a connection error.
	ErrBackpressure = errors.New("message: back-pressure: the next sequence number is still in use")
	// ErrTooLarge: the message does not fit in the largest allowed message (guaranteed) or in one
	// packet (unreliable).
	ErrTooLarge = errors.New("message: message too large")
	// ErrResendLimit: a guaranteed message went unacknowledged for longer than ResendLimit.
	ErrResendLimit = errors.New("message: guaranteed message not acknowledged within the resend limit")
	// ErrReassemblyExpired: a fragmented message was still incomplete when its time ran out.
	ErrReassemblyExpired = errors.New("message: fragmented message not completed in time")
	// ErrClosed: the connection already failed; Err says why.
	ErrClosed = errors.New("message: connection failed")
)

// Config sets up a Conn. The zero value of each field means its default.
type Config struct {
	// MTU is the largest datagram the Conn writes, frame and header included. Default 1200,
	// small enough to pass through nearly every path on the Internet without IP fragmentation.
	MTU int
	// Timeout is the connection timeout of the transport above. A node of the receiver's
	// dependency graph that waits unexecuted for Timeout + 1 s (Expiry) is a connection error:
	// its message or a dependency never came. Default 5 s.
	Timeout time.Duration
	// ResendLimit: a guaranteed message (or any of its fragments) still unacknowledged this long
	// after it was first sent fails the connection with ErrResendLimit. Default and maximum:
	// Timeout. The maximum keeps a message from being chased longer than the connection would
	// live. (Under node expiry by time alone, where the receiver forgot an executed message
	// Timeout + 1 s after executing it, it was also what kept exactly-once delivery safe; the
	// window of net/depgraph keeps that now.)
	ResendLimit time.Duration
	// MaxInFlight caps the packets with content that may be unacknowledged at once. An ack
	// covers the newest 32 packets (net/packet), so a sender that runs further ahead than that
	// in one round trip has packets that arrived declared lost and sent again. Default and
	// maximum 32; keepalives (force) still go out at the cap, empty. Congestion control keeps
	// the bytes in flight within a window of at most MaxInFlight full packets (congestion.go).
	MaxInFlight int
	// FixedWindow turns congestion control off: the window stays at MaxInFlight packets and
	// nothing is paced, whatever the link does. For experiments that compare; a connection on
	// a shared link should never set it.
	FixedWindow bool
	// MaxMessageSize bounds one guaranteed message (fragmented when it does not fit a packet).
	// Default and maximum: what 255 fragments carry at this MTU (about 299 KB at 1200 bytes).
	// A very large message may still fail to arrive in time on a slow link: at most MaxInFlight
	// fragments travel per round trip, and all of them must arrive within Timeout + 1 s.
	MaxMessageSize int
	// MaxReassemblyBytes bounds the memory held by incomplete fragmented messages on the
	// receiving side; fragments beyond it are dropped (counted) and arrive again later.
	// Default 4 MiB.
	MaxReassemblyBytes int
	// Keepalive: a connection that sent nothing for this long sends an empty packet, so that
	// the peer knows it is alive. A connection that carries messages never needs one (every
	// packet it sends, and every ack it owes, speaks for it), and neither does one whose
	// transport speaks for it (Spoke: a ping or its answer). Acks do not wait for it: an ack
	// owed goes within AckDelay, and a sender whose acks were lost probes (AppendPacket). So
	// nothing but the peer's liveness depends on it. Default 1 s.
	Keepalive time.Duration
	// AckDelay: when packets with guaranteed messages arrived (or a packet after a gap) and
	// nothing is going out, an ack-only packet leaves after at most this long. Waiting a
	// little lets the ack ride on the next message instead of costing a packet of its own.
	// Default and maximum: MaxAckDelay, which the peer's resend delay allows for. (Packets of
	// unreliable messages alone wait up to Keepalive: AckLazy.)
	AckDelay time.Duration
	// Frame seals every datagram the Conn writes and opens every one Receive reads. Default:
	// PlainFrame{} (a CRC-32C checksum, no secrecy). A transport gives each connection the
	// sealed frame of its keys.
	Frame Frame
	// History: how many guaranteed messages of each direction the connection remembers, with
	// their dependencies and the times of their steps, for a debug view (Debug.Outgoing and
	// Debug.Incoming; history.go). 0, the default, remembers none and costs nothing; at most
	// MaxHistory.
	History int
	// Packet configures the packet layer (initial RTT).
	Packet packet.Config
}

// inflightSlots is the size of the table of messages in flight: the first power of two above
// depgraph.Window.
const inflightSlots = depgraph.Window + 1

// MaxAckDelay is the longest a receiver holds the acknowledgement of a packet with messages,
// a constant of the protocol: both sides know it without telling each other, and each adds
// it to its resend delay (packet.Config.PeerMaxAckDelay), so that an ack the peer delayed on
// purpose is never taken for a loss. Config.AckDelay may be shorter, never longer.
const MaxAckDelay = 10 * time.Millisecond

// DefaultKeepalive is Config.Keepalive's default: the longest an idle connection stays silent.
// (It was 100 ms, when keepalives also carried the acks that freed a full window; see probeDue.)
const DefaultKeepalive = time.Second

// MinMTU is the smallest MTU a Conn accepts (an IPv4 host must accept 576-byte datagrams).
const MinMTU = 576

// Frame is how a connection's datagrams are framed and sealed: what goes before and after
// each packet, and the check that tells the peer's datagrams from anything else. AppendPacket
// calls Begin, appends the packet, then Seal; Receive calls Open. The frame's bytes count
// against the MTU. A Frame belongs to its connection's goroutine.
type Frame interface {
	// Overhead is how many bytes the frame puts before a packet (Begin) and after it (Seal).
	Overhead() (front, back int)
	// Begin appends the front of a datagram to b.
	Begin(b []byte) []byte
	// Seal seals the datagram that starts at b[start] and returns b with the back appended.
	Seal(b []byte, start int) []byte
	// Open checks the datagram d and returns its packet, from the type byte on. It may
	// decrypt d in place; after an error d's bytes are of no use.
	Open(d []byte) ([]byte, error)
}

// PlainFrame is the frame without secrecy: a CRC-32C checksum keyed with Key
// (wire.SealDatagram), the frame of the handshake's packets. It tells datagrams of another
// program or another connection from the peer's, not an attacker's.
type PlainFrame struct{ Key uint64 }

// Overhead is the checksum's 4 bytes in front.
func (f PlainFrame) Overhead() (front, back int) { return wire.ChecksumSize, 0 }

// Begin appends room for the checksum.
func (f PlainFrame) Begin(b []byte) []byte { return wire.BeginDatagram(b) }

// Seal writes the checksum.
func (f PlainFrame) Seal(b []byte, start int) []byte {
	wire.SealDatagram(b[start:], f.Key)
	return b
}

// Open verifies the checksum.
func (f PlainFrame) Open(d []byte) ([]byte, error) { return wire.OpenDatagram(d, f.Key) }

func (c Config) withDefaults() Config {
	if c.Frame == nil {
		c.Frame = PlainFrame{}
	}
	if c.MTU <= 0 {
		c.MTU = 1200
	}
	c.MTU = min(max(c.MTU, MinMTU), wire.MaxDatagram)
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.ResendLimit <= 0 || c.ResendLimit > c.Timeout {
		c.ResendLimit = c.Timeout
	}
	if c.MaxInFlight <= 0 || c.MaxInFlight > packet.AckWindow {
		c.MaxInFlight = packet.AckWindow
	}
	if largest := maxFragments * maxChunk(c.room(), 0, wire.MaxMessageSize); c.MaxMessageSize <= 0 || c.MaxMessageSize > largest {
		c.MaxMessageSize = largest
	}
	if c.Keepalive <= 0 {
		c.Keepalive = DefaultKeepalive
	}
	if c.AckDelay <= 0 || c.AckDelay > MaxAckDelay {
		c.AckDelay = MaxAckDelay
	}
	if c.MaxReassemblyBytes <= 0 {
		c.MaxReassemblyBytes = 4 << 20
	}
	c.MaxReassemblyBytes = max(c.MaxReassemblyBytes, c.MaxMessageSize) // room for the largest message
	c.History = min(max(c.History, 0), MaxHistory)
	return c
}

// room is the room for message records in an empty packet: the MTU less the frame and the
// largest header.
func (c Config) room() int {
	front, back := c.Frame.Overhead()
	return c.MTU - front - back - wire.MaxHeaderSize
}

// maxChunk is the largest fragment payload that fits an empty packet with room for records,
// for a message of total bytes with nDeps dependencies: the room less the fragment record's
// overhead (kind, sequence list, index, count, total length, payload length).
func maxChunk(room, nDeps, total int) int {
	return room - (1 + wire.SeqListSize(nDeps) + 2 + int30.SizeUInt30(uint32(total)) + 2)
}

// Expiry is the node expiry of the dependency graphs: the connection timeout plus one second of
// padding. An unexecuted node of the receiver's graph that reaches it is a connection error,
// and an incomplete message whose fragments stopped coming that long is one too.
func (c Config) Expiry() time.Duration { return c.withDefaults().Timeout + time.Second }

// Message is one delivered message. It and its slices are only valid during the delivery call.
type Message struct {
	Guaranteed bool
	Sync       bool
	Seq        uint16   // guaranteed messages only
	Deps       []uint16 // the dependencies the packet carried (after the sender's pruning)
	Payload    []byte
	Fragments  int // how many fragments it arrived in (0 = one piece)
}

// Conn is one connection's message layer: it turns messages into packets and packets into
// delivered messages, in dependency order, exactly once. It is sans-IO: it never reads a
// clock or a socket; every method that needs the time takes it as now.
type Conn struct {
	cfg     Config
	deliver func(*Message)

	pkt    *packet.Endpoint
	sender *depgraph.Sender
	recv   *depgraph.Graph[inMsg]

	// sending side
	nextSeq   uint16
	queue     msgQueue      // guaranteed messages with a sequence number, not fully sent yet
	resend    unitQueue     // units already sent, oldest send first
	copies    unitQueue     // resends owed a copy (copyAfter), in the order of their copyAt
	sentOrder ring[unitRef] // units in the order of their first send, for the resend limit
	// content[seq % len] is the size of each of our packets in flight that carries messages
	// (0: none); contentInFlight counts them, for the cap, and cc keeps their bytes, for the
	// window (keepalives and pure acks do not count: losing them costs nothing).
	content         [packet.SentRingSize]int32
	contentInFlight int
	cc              congestion
	// inflight holds the messages sent (or queued) and not yet fully acknowledged, at their
	// sequence number modulo its size: they are all unexecuted in the local graph, so the
	// window rule keeps their numbers within depgraph.Window of each other, and no two share
	// a slot. nInflight counts them.
	inflight  [inflightSlots]*outMsg
	nInflight int
	unrel     [][]byte // unreliable messages waiting for the next packet
	unrelLen  int
	// syncPending counts sync messages queued or unacknowledged; syncBlock is the one that is
	// out and holds back every later guaranteed message until it is acknowledged.
	syncPending int
	syncBlock   *outMsg
	free        []*outMsg // recycled outMsgs (payload buffers kept)
	lastNow     time.Time // the latest now seen, for callbacks that do not carry one
	lastSend    time.Time // when the latest packet left (zero before the first AppendPacket)
	// lastContent is when the latest packet with messages left: resends wait for its ack.
	lastContent time.Time
	// lastGuaranteed is when the latest packet with guaranteed messages left, and
	// lastGuaranteedSeq its number: the tail probe's packet (tailProbeAt).
	lastGuaranteed    time.Time
	lastGuaranteedSeq uint16
	// lastSpoke is when the transport last sent the peer a datagram of its own (Spoke): it
	// keeps the connection alive as well as a keepalive would.
	lastSpoke time.Time
	// lastProbe is when the latest probe left: a resend that went past the full window to get
	// the peer to acknowledge (probeDue).
	lastProbe time.Time
	// ackRepeatAt is when the first ack of packets with messages is sent once more, unless
	// another packet carries it first (zero: no repeat owed). See packetDue.
	ackRepeatAt time.Time

	// receiving side
	reasm      map[uint16]*reassembly
	reasmBytes int
	msg        Message // reused for every delivery
	recs       []wire.Record

	// scratch buffers, reused
	items  []packet.Item
	depBuf []uint16

	// hist is the recent history for a debug view, nil without Config.History; histDeps is
	// its scratch buffer for the dependencies a message is sent with.
	hist     *history
	histDeps []uint16

	err   error
	stats counters
}

// New returns a connection that calls deliver for every message it executes.
func New(cfg Config, deliver func(*Message)) *Conn {
	cfg = cfg.withDefaults()
	c := &Conn{
		cfg:     cfg,
		deliver: deliver,
		reasm:   make(map[uint16]*reassembly),
		depBuf:  make([]uint16, 0, wire.MaxDeps),
		cc:      newCongestion(cfg),
	}
	pc := cfg.Packet
	pc.PeerMaxAckDelay = MaxAckDelay
	pc.OnAcked = c.onPacketAcked
	pc.OnLost = c.onPacketLost
	c.pkt = packet.NewEndpoint(pc)
	c.sender = depgraph.NewWindowSender(cfg.Expiry())
	c.recv = depgraph.New[inMsg](depgraph.Config{Expiry: cfg.Expiry(), Window: true}, c.execute)
	if cfg.History > 0 {
		c.hist = newHistory(cfg.History)
		c.sender.OnExecuted = c.recordLocalExecuted
	}
	return c
}

// Err is the connection error, or nil while the connection is healthy.
func (c *Conn) Err() error { return c.err }

func (c *Conn) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// budget is the room for message records in an empty packet, assuming the largest header.
func (c *Conn) budget() int { return c.cfg.room() }

// SendUnreliable queues a message that is sent once, in the next packet, and never again: news
// that the next message of its kind replaces anyway. It must fit one packet: it is never
// fragmented.
func (c *Conn) SendUnreliable(payload []byte) error {
	if c.err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, c.err)
	}
	rec := wire.Record{Kind: wire.KindUnreliable, Payload: payload}
	if rec.Size() > c.budget() {
		return fmt.Errorf("%w: %d-byte unreliable message, at most %d fit a packet", ErrTooLarge, len(payload), c.budget()-rec.Size()+len(payload))
	}
	c.unrel = append(c.unrel, append([]byte(nil), payload...))
	c.unrelLen += len(payload)
	c.stats.UnreliableSent++
	return nil
}

// SendGuaranteed queues a message that is sent until acknowledged and executed on the other
// side only after every message in deps. If out is non-nil it is bound to the new message, so
// that later messages can depend on it (and stop carrying that dependency once the sender's
// local graph knows it executed). out may be one of deps: that is how a chain is built.
//
// The message keeps its 15-bit sequence number on every send, which is how the receiver
// recognises a copy it already executed and ignores it. On the wire it carries that number and
// the numbers of its dependencies, 2 + 2n bytes, less the dependencies the local graph has seen
// executed (pruning): a kill sent an hour after its spawn carries no dependency at all, and the
// spawn's number may have been reused many times without harm. A message too large for one
// packet goes in fragments (splitUnits). One that stays unacknowledged for ResendLimit fails
// the connection loudly (ErrResendLimit) rather than silently losing game data.
func (c *Conn) SendGuaranteed(now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency) (uint16, error) {
	return c.send(now, payload, deps, nil, out, sendPlain)
}

// SendTimely queues a guaranteed message each of whose resends goes twice: the copy copyGap
// later, in a packet of its own. Its first send goes once. It is for a message worth less the
// later it comes, such as a command for a frame that every host must run by then: a message
// that needed a resend is late already, and a second loss of the same try would cost it a
// resend delay more (at 10% loss on each end, one resend in five). The copies cost a packet for
// each resend, and nothing on a link that loses nothing. Otherwise it is SendGuaranteed.
func (c *Conn) SendTimely(now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency) (uint16, error) {
	return c.send(now, payload, deps, nil, out, sendTimely)
}

// SendUrgent queues a guaranteed message each of whose sends goes three times: then twice
// more, copyGap apart, each in a packet of its own, so that a lost packet or two do not cost
// it a resend delay (urgentCopies). It is for the rare message whose lateness costs more than
// its bytes: a repair that every host applies at the next frame, where a lost one leaves the
// world drifted for a round trip more (at 10% loss on each end, one in five). Otherwise it is
// SendGuaranteed.
func (c *Conn) SendUrgent(now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency) (uint16, error) {
	return c.send(now, payload, deps, nil, out, sendUrgent)
}

// SendSync queues a sync message: stop-and-wait. Until every piece of it is
// acknowledged no guaranteed message queued after it goes out, and WaitingForSync reports true,
// so the game can show the host as waiting. Messages queued before it go out first. Messages
// already sent before it keep being resent meanwhile, when their resend delay comes: they are
// in flight, the receiver may need them, and holding them back would only make them later. So
// a sync message orders what follows it, not what went before; to order those too, make it
// depend on them. It keeps its sequence number on every retransmission, like every guaranteed
// message.
func (c *Conn) SendSync(now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency) (uint16, error) {
	return c.send(now, payload, deps, nil, out, sendSync)
}

// SendBarrier queues a guaranteed message that depends on every guaranteed message sent before
// it that the local graph has not executed yet: the receiver executes it only after all of them.
func (c *Conn) SendBarrier(now time.Time, payload []byte, out *depgraph.Dependency) (uint16, error) {
	seqs := c.sender.Outstanding(nil)
	return c.send(now, payload, nil, seqs, out, sendPlain)
}

// sendKind is how a guaranteed message goes: SendGuaranteed's, SendSync's (stop-and-wait),
// SendUrgent's (each send three times) or SendTimely's (each resend twice).
type sendKind uint8

const (
	sendPlain sendKind = iota
	sendSync
	sendUrgent
	sendTimely
)

func (c *Conn) send(now time.Time, payload []byte, deps []*depgraph.Dependency, depSeqs []uint16, out *depgraph.Dependency, kind sendKind) (uint16, error) {
	if c.err != nil {
		return 0, fmt.Errorf("%w: %w", ErrClosed, c.err)
	}
	if len(payload) > c.cfg.MaxMessageSize {
		return 0, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(payload), c.cfg.MaxMessageSize)
	}
	if now.After(c.lastNow) {
		c.lastNow = now
	}
	// Every check that can refuse the message comes before the sender's local graph learns of
	// it: a node registered there for a message that never goes out would never execute.
	nDeps := 0
	for _, d := range deps {
		if d != nil && d.Bound() && !d.Executed() {
			nDeps++
		}
	}
	for _, s := range depSeqs {
		if !c.sender.Executed(s) {
			nDeps++
		}
	}
	if nDeps > wire.MaxDeps {
		return 0, fmt.Errorf("%w: %d dependencies, at most %d", wire.ErrTooLong, nDeps, wire.MaxDeps)
	}
	seq := c.nextSeq
	if !c.sender.Free(now, seq) {
		c.stats.Backpressure++
		return 0, ErrBackpressure
	}
	m := c.newOutMsg()
	m.seq = seq
	m.kind = kind
	m.payload = append(m.payload[:0], payload...)
	if !c.splitUnits(m, nDeps) {
		c.recycle(m)
		return 0, fmt.Errorf("%w: %d bytes need more than %d fragments", ErrTooLarge, len(payload), maxFragments)
	}
	if c.hist != nil {
		c.histDeps = namedDeps(c.histDeps[:0], deps, depSeqs) // before out is bound to this message
	}
	var err error
	var wireDeps []uint16
	if depSeqs != nil {
		wireDeps, err = c.sender.SendSeqs(now, seq, depSeqs, out, c.depBuf[:0])
	} else {
		wireDeps, err = c.sender.Send(now, seq, deps, out, c.depBuf[:0])
	}
	if err != nil {
		c.recycle(m)
		return 0, err
	}
	if c.hist != nil {
		c.recordQueued(now, m, c.histDeps, wireDeps)
	}
	c.nextSeq = (seq + 1) & wire.SeqMask
	c.inflight[seq&(inflightSlots-1)] = m
	c.nInflight++
	c.queue.push(m)
	if m.kind == sendSync {
		c.syncPending++
	}
	c.stats.GuaranteedQueued++
	return seq, nil
}

// splitUnits decides whether m goes whole or in fragments: up to maxFragments of equal size
// (the last one shorter). Each fragment is a guaranteed unit of its own, acknowledged alone and,
// when lost, sent again alone; the receiver reassembles them and only then hands the whole
// message to its graph. (Resending every fragment when one is lost is the classic mistake this
// avoids: at 30% loss a send of 18 fragments would almost never arrive whole.) The fragment size is computed with
// the dependency count at send time (dependencies only ever get pruned, never added) and the
// largest packet header, so every unit always fits an empty packet. It reports false when the
// message would need more than maxFragments fragments.
func (c *Conn) splitUnits(m *outMsg, nDeps int) bool {
	whole := wire.Record{Kind: wire.KindGuaranteed, Seq: m.seq, Payload: m.payload}
	overhead := whole.Size() - len(m.payload) + 2*nDeps
	room := c.budget()
	m.units = m.units[:0]
	if overhead+len(m.payload) <= room {
		m.chunk = len(m.payload)
		m.units = append(m.units, unit{})
		return true
	}
	chunk := maxChunk(c.budget(), nDeps, len(m.payload))
	count := (len(m.payload) + chunk - 1) / chunk
	if count > maxFragments {
		return false
	}
	m.chunk = (len(m.payload) + count - 1) / count
	for range count {
		m.units = append(m.units, unit{})
	}
	return true
}

// WaitingForSync reports whether a sync message is queued or unacknowledged, holding back every
// later guaranteed message.
func (c *Conn) WaitingForSync() bool { return c.syncPending > 0 }

// AckOwed reports whether packets with guaranteed messages (or fragments) arrived since the
// last packet this side sent, so the peer is waiting to hear about them. The transport sends an
// ack-only packet soon when nothing else goes out. (Packets without messages, such as
// keepalives, owe nothing: two idle peers would otherwise acknowledge each other's
// acknowledgements forever. Packets of unreliable messages alone owe a lazy ack: AckLazy.)
func (c *Conn) AckOwed() bool { return c.stats.ackOwed }

// DiscardRTTSamples: the packets in flight now give no round-trip sample when acknowledged,
// since the peer may have held them before it could read them (packet.Endpoint's).
func (c *Conn) DiscardRTTSamples() { c.pkt.DiscardRTTSamples() }

// AckLazy reports whether packets with unreliable messages alone arrived since the last packet
// this side sent. They are acknowledged too (the peer's loss estimate and congestion window
// count them), but nothing waits on that ack: it rides on the next packet that goes anyway, and
// only if none went for Keepalive does an ack-only packet carry it. (A game's frame sync and hash
// reports, one a second each way, drew an ack-only packet each.)
func (c *Conn) AckLazy() bool { return c.stats.ackLazy }

// ackUrgentAfter: after this many packets received since this side last sent one, the ack must
// go out at once. An ack covers the newest 32 packets; acknowledging every 16 keeps every
// packet that arrived inside some ack even when the peer sends in bursts.
const ackUrgentAfter = 16

// ackUrgentFull: once this many large packets with messages (half the MTU or more) arrived
// since this side last sent one, the ack goes out at once too: TCP's delayed-ack rule, "at
// least every second full-sized segment" (RFC 5681). A bulk sender's window is clocked by
// acks, and its congestion controller reads the queue from round trips: an ack held for the
// ack delay would stall the one and look like a queue to the other. A game's packets are
// small, and their acks still wait to ride on the game's own packets.
const ackUrgentFull = 2

// AckUrgent reports whether so much arrived since this side last sent a packet that an ack
// should leave now rather than after a delay.
func (c *Conn) AckUrgent() bool {
	return c.stats.unackedPackets >= ackUrgentAfter || c.stats.unackedFull >= ackUrgentFull
}

// packetDue reports whether a packet must leave now even with nothing in it but the header:
// a keepalive (nothing sent for Keepalive, the transport's pings included: Spoke), an ack that
// cannot wait (AckUrgent), an owed ack whose AckDelay ran out, a lazy ack (AckLazy) after
// Keepalive, or the repeat of an ack (below). This is the whole of the keepalive
// and ack policy; NextDeadline reports the same times, so a loop that sleeps until
// NextDeadline never misses one.
//
// The repeat: the first packet that acknowledges a packet with messages is followed by a
// second one, unless some other packet goes out first (every packet carries the ack bitfield,
// so any later packet repeats the ack). The peer resends a message when its ack does not come
// within its resend delay, and that delay only allows for our ack delay: if the one packet
// carrying the ack is lost and the next packet would leave later than that, the peer resends a
// message that had arrived. The repeat leaves AckDelay after the first ack: late enough that
// jitter rarely lets it overtake the first (the peer drops a packet older than one it
// accepted), early enough to land within the peer's allowance for jitter (twice the round
// trip's variation) and ack delay. Both are lost together only as often as two packets are
// (1% at 10% loss instead of 10%). It costs one header-only datagram where the link would
// otherwise be silent, so it is owed only while this side's packets get lost (one of the last
// 256 was): a clean link carries no repeats. Stats.SpuriousResends counts the resends that
// still happen in vain.
func (c *Conn) packetDue(now time.Time) bool {
	if c.lastSend.IsZero() {
		return false // the first AppendPacket starts the clock (see AppendPacket)
	}
	since := now.Sub(c.lastSend)
	if at := c.tailProbeAt(); !at.IsZero() && !now.Before(at) {
		c.stats.TailProbes++
		return true
	}
	return !now.Before(c.keepaliveAt()) || c.AckUrgent() || (c.AckOwed() && since >= c.cfg.AckDelay) ||
		(c.AckLazy() && since >= c.cfg.Keepalive) ||
		(!c.ackRepeatAt.IsZero() && !now.Before(c.ackRepeatAt))
}

// tailProbeAt is when a tail probe is due (zero: none): the latest packet this side sent
// carried guaranteed messages, it is still unacknowledged, and its ack is late: a round trip, the peer's
// ack delay and twice the round trip's variation after it left. The probe is an empty packet.
// The peer owes it no ack, but whatever the peer sends next acknowledges it, and so tells the
// loss of the packet before it at once: the message goes again then, not at its resend delay
// (RACK-TLP's tail loss probe, RFC 8985, without its resend). Only the last packet before a
// silence needs one: a lost packet followed by others is found lost by their acks. While
// keepalives went every 100 ms they did this on the side (a lost message was followed by a
// keepalive within 100 ms, which the peer's next packet acknowledged), and the game's late
// events, and the settling of its hash checks, came to rely on it (BENCHMARKS.md, "Fewer,
// fuller datagrams"). On a clean link an ack is never that late, and no probe goes.
//
// The packet must have carried guaranteed messages. The peer acknowledges a packet of unreliable
// messages alone only with whatever it sends next (AckLazy), so its ack is always "late", and a
// probe after it would go after nearly every such packet for nothing: a hash report five times
// a second cost a player an empty datagram after two of them in five. A lost packet of
// unreliable messages has nothing to resend.
func (c *Conn) tailProbeAt() time.Time {
	if c.lastGuaranteed.IsZero() || !c.lastSend.Equal(c.lastGuaranteed) || c.content[c.lastGuaranteedSeq%packet.SentRingSize] == 0 {
		return time.Time{}
	}
	r := c.pkt.RTT()
	return c.lastGuaranteed.Add(r.Smoothed + MaxAckDelay + max(2*r.Variation, packet.MinResendDelay))
}

// keepaliveAt is when an idle connection next sends an empty packet: Keepalive after the
// latest datagram this side sent, its own or its transport's (Spoke).
func (c *Conn) keepaliveAt() time.Time {
	last := c.lastSend
	if c.lastSpoke.After(last) {
		last = c.lastSpoke
	}
	return last.Add(c.cfg.Keepalive)
}

// Spoke tells the connection that its transport sent the peer a datagram of its own at now (a
// ping, or the answer to one): the peer hears from this side, so no keepalive is due for
// another Keepalive. It carries no acks, so it changes nothing an ack waits for.
func (c *Conn) Spoke(now time.Time) {
	if now.After(c.lastSpoke) {
		c.lastSpoke = now
	}
}

// ackDeadline is when packetDue next turns true with no datagram arriving (zero: not before
// the first AppendPacket).
func (c *Conn) ackDeadline() time.Time {
	if c.lastSend.IsZero() {
		return time.Time{}
	}
	if c.AckUrgent() {
		return c.lastSend
	}
	next := c.keepaliveAt()
	if at := c.lastSend.Add(c.cfg.AckDelay); c.AckOwed() && at.Before(next) {
		next = at
	}
	if at := c.lastSend.Add(c.cfg.Keepalive); c.AckLazy() && at.Before(next) {
		next = at
	}
	if at := c.tailProbeAt(); !at.IsZero() && at.Before(next) {
		next = at
	}
	if !c.ackRepeatAt.IsZero() && c.ackRepeatAt.Before(next) {
		next = c.ackRepeatAt
	}
	return next
}
