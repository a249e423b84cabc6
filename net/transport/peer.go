package transport

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// Peer is the other end of one established connection: for a server, one client; for a
// client, the server. It is owned by the loop that owns its Server or Client: call its methods
// only from there (Stats has a copy that is safe anywhere).
type Peer struct {
	debug  bool // Config.DebugViews
	addr   netip.AddrPort
	seal   *sealer // the connection's keys, counter and replay record
	player uuid.UUID
	name   string
	role   wire.Role
	conn   *message.Conn

	// server side: the challenge this connection was accepted with, and the two public keys
	// of its key exchange, to answer a repeated ChallengeResponse with the same Accepted
	tag                  [16]byte
	clientKey, serverKey wire.PublicKey
	// acceptedAgain is when the Accepted goes again while the client is unheard
	// (acceptedRepeat); zero on a client's side.
	acceptedAgain time.Time

	connectedAt time.Time
	lastRecv    time.Time

	// pings
	nextPing    time.Time
	pingID      uint32
	pingSent    time.Time     // when the ping numbered pingID left
	pingRTT     time.Duration // latest
	pingMin     time.Duration
	pingMax     time.Duration
	pingAvg     time.Duration // exponential average, 1/8 gain
	pingSamples int
	clockOffset time.Duration // peer's clock minus ours, from the latest pong
	// ackSamples is the connection's round-trip samples from acknowledgements when a ping was
	// last due (Config.PingIdleOnly); pingsSkipped counts the pings that more samples made
	// needless.
	ackSamples   uint64
	pingsSkipped uint64

	// counters the message layer does not see
	spoofed  uint64 // datagrams from this peer's address that failed the connection's key
	replayed uint64 // datagrams of the connection opened before, or older than the replay window
	pings    uint64
	pongs    uint64

	rates rateMeter

	// server side: when the connection next needs the server's Tick (nextWake), as of the
	// server's latest look at it, and its connection's Queued count then. Tick passes over a
	// connection whose wake has not come and on which nothing was queued since, so that a
	// server with hundreds of connections does not poll every one of them on every Tick
	// (zero: due at once).
	wake   time.Time
	queued uint64

	gone   bool
	reason wire.DisconnectReason
	text   string
}

// unheard reports, on the server's side, whether no sealed datagram of the client has come
// yet: it may still be waiting for our Accepted (acceptedRepeat).
func (p *Peer) unheard() bool { return !p.acceptedAgain.IsZero() && p.seal.seen.next == 0 }

// Addr is the peer's UDP address.
func (p *Peer) Addr() netip.AddrPort { return p.addr }

// PlayerID is the client's player id (on a client: its own).
func (p *Peer) PlayerID() uuid.UUID { return p.player }

// Name is the client's player name (on a client: its own).
func (p *Peer) Name() string { return p.name }

// Role is what the client asked to be in its handshake (on a client: its own). The transport
// does not act on it: the owner decides.
func (p *Peer) Role() wire.Role { return p.role }

// Conn is the connection's message layer: send guaranteed, unreliable and sync messages through
// it. Only from the owner loop.
func (p *Peer) Conn() *message.Conn { return p.conn }

// LastHeard is when the last datagram from the peer arrived (its connection's start before
// one did). A game reads a quiet link from it long before the Timeout ends the connection.
func (p *Peer) LastHeard() time.Time { return p.lastRecv }

// Connected reports whether the connection is still up.
func (p *Peer) Connected() bool { return !p.gone }

// Reason is why the connection ended (zero while it is up), with the text that came with it.
func (p *Peer) Reason() (wire.DisconnectReason, string) { return p.reason, p.text }

func (p *Peer) String() string {
	return fmt.Sprintf("%s (%s, %s)", p.name, p.addr, p.player)
}

// pong takes the answer to a ping: its round trip and the clock offset, NTP style: t0 ping
// sent (our clock), t1 ping received and t2 pong sent (their clock), t3 pong received (our
// clock). The round trip also goes to the packet layer's estimate (message.Conn.SampleRTT),
// so that every connection has a live one, whatever it carries.
//
// Only the answer to the latest ping counts, and only if it echoes that ping's t0: the time the
// round trip runs from is our own record of the send, never what the peer says it was. The
// time the peer says it held the ping (t2 − t1) is taken as at most message.MaxAckDelay: a
// peer answers at once, and one that claims more is not believed.
func (p *Peer) pong(t3 time.Time, m wire.Pong) {
	if m.ID != p.pingID || m.T0 != p.pingSent.UnixNano() {
		return // an old pong (its ping was replaced by a newer one), or not an answer to ours
	}
	p.pongs++
	held := min(max(time.Duration(m.T2-m.T1), 0), message.MaxAckDelay)
	total := t3.Sub(p.pingSent)
	rtt := max(total-held, 0)
	p.clockOffset = time.Duration(((m.T1 - m.T0) + (m.T2 - t3.UnixNano())) / 2)
	p.pingRTT = rtt
	if p.pingSamples == 0 {
		p.pingMin, p.pingMax, p.pingAvg = rtt, rtt, rtt
	} else {
		p.pingMin = min(p.pingMin, rtt)
		p.pingMax = max(p.pingMax, rtt)
		p.pingAvg += (rtt - p.pingAvg) / 8
	}
	p.pingSamples++
	p.conn.SampleRTT(total, held)
}

// rateMeter turns running byte and packet counters into per-second rates, refreshed once a
// second.
type rateMeter struct {
	at                                       time.Time
	pktIn, pktOut, bytesIn, bytesOut         uint64
	pktInPS, pktOutPS, bytesInPS, bytesOutPS float64
}

func (r *rateMeter) update(now time.Time, pktIn, pktOut, bytesIn, bytesOut uint64) {
	if r.at.IsZero() {
		r.at, r.pktIn, r.pktOut, r.bytesIn, r.bytesOut = now, pktIn, pktOut, bytesIn, bytesOut
		return
	}
	dt := now.Sub(r.at)
	if dt < time.Second {
		return
	}
	s := dt.Seconds()
	r.pktInPS = float64(pktIn-r.pktIn) / s
	r.pktOutPS = float64(pktOut-r.pktOut) / s
	r.bytesInPS = float64(bytesIn-r.bytesIn) / s
	r.bytesOutPS = float64(bytesOut-r.bytesOut) / s
	r.at, r.pktIn, r.pktOut, r.bytesIn, r.bytesOut = now, pktIn, pktOut, bytesIn, bytesOut
}

// PeerStats is a snapshot of one connection, safe to read from any goroutine.
type PeerStats struct {
	Addr      netip.AddrPort
	PlayerID  uuid.UUID
	Name      string
	Connected bool
	Since     time.Time

	RTT, MinRTT, MaxRTT, Jitter time.Duration // the packet layer's estimates, from acks and pings
	PingRTT, PingMin, PingMax   time.Duration // from the once-a-second pings
	PingAvg                     time.Duration
	// PingsSent counts this side's pings; PingsSkipped those it left out because the
	// connection measured its round trip from acknowledgements (Config.PingIdleOnly).
	PingsSent, PingsSkipped uint64
	ClockOffset             time.Duration // peer's clock minus ours
	LossPercent             float64

	PacketsInPerSec, PacketsOutPerSec float64
	BytesInPerSec, BytesOutPerSec     float64

	PacketsSent, PacketsReceived, BytesSent, BytesReceived uint64
	Stale, Duplicate, Malformed, Spoofed                   uint64
	// Replayed counts the connection's datagrams refused because their counter was accepted
	// before (a copy: an attacker's, or the link's duplication) or is older than the replay
	// window. Copies never reach the packet layer, so Duplicate stays 0 on a sealed connection.
	Replayed                                             uint64
	GuaranteedSent, GuaranteedResent, GuaranteedExecuted uint64
	SpuriousResends                                      uint64
	DuplicatesIgnored, DependencyBytes                   uint64
	PendingGuaranteed, ReceiverGraph, ReceiverWaiting    int
	SenderGraph                                          int
	WaitingForSync                                       bool

	// Message is the message layer's full snapshot, for the debug panel.
	Message message.Stats
	// Debug is the message layer's debug views (ack cells, waiting messages), for the panel;
	// nil unless Config.DebugViews. Like the rest of the snapshot it is never changed after it
	// is published.
	Debug *message.Debug
}

func (p *Peer) snapshot() PeerStats { return p.stats(p.debug) }

// stats is the connection's snapshot, with the debug views if debug.
func (p *Peer) stats(debug bool) PeerStats {
	m := p.conn.Stats()
	pk := m.Packet
	st := PeerStats{
		Addr: p.addr, PlayerID: p.player, Name: p.name, Connected: !p.gone, Since: p.connectedAt,
		RTT: pk.RTT, MinRTT: pk.MinRTT, MaxRTT: pk.MaxRTT, Jitter: pk.Jitter,
		PingRTT: p.pingRTT, PingMin: p.pingMin, PingMax: p.pingMax, PingAvg: p.pingAvg, ClockOffset: p.clockOffset,
		PingsSent: p.pings, PingsSkipped: p.pingsSkipped,
		LossPercent:     pk.LossPercent,
		PacketsInPerSec: p.rates.pktInPS, PacketsOutPerSec: p.rates.pktOutPS,
		BytesInPerSec: p.rates.bytesInPS, BytesOutPerSec: p.rates.bytesOutPS,
		PacketsSent: pk.PacketsSent, PacketsReceived: pk.PacketsReceived, BytesSent: pk.BytesSent, BytesReceived: pk.BytesReceived,
		Stale: pk.Stale, Duplicate: pk.Duplicate, Malformed: pk.Malformed, Spoofed: p.spoofed, Replayed: p.replayed,
		GuaranteedSent: m.GuaranteedSent, GuaranteedResent: m.GuaranteedResent, GuaranteedExecuted: m.GuaranteedExecuted,
		SpuriousResends:   m.SpuriousResends,
		DuplicatesIgnored: m.DuplicatesIgnored, DependencyBytes: m.DependencyBytes,
		PendingGuaranteed: m.PendingGuaranteed, ReceiverGraph: m.ReceiverGraph, ReceiverWaiting: m.ReceiverWaiting,
		SenderGraph: m.SenderGraph, WaitingForSync: m.WaitingForSync,
		Message: m,
	}
	if debug {
		st.Debug = ptr(p.conn.Debug())
	}
	return st
}

func ptr[T any](v T) *T { return &v }
