package transport

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// ErrClosed is returned by Run when the host's socket closed.
var ErrClosed = errors.New("transport: closed")

// Config is what servers and clients share. The zero value of each field means its default.
type Config struct {
	// Timeout: a connection that hears nothing from its peer for this long is closed with
	// DisconnectTimeout. Default 5 s. "Hears" is a datagram of the connection that
	// authenticates and is used: a Data packet the packet layer accepts (not stale), a Ping or
	// a Pong; a replay or a stale packet keeps no dead connection open. The dependency graphs'
	// node expiry is Timeout + 1 s, and the message layer's resend limit Timeout.
	Timeout time.Duration
	// Keepalive: a connection that sent the peer nothing for this long sends an empty packet.
	// Default 1 s (message.DefaultKeepalive). A connection that carries messages sends none,
	// and neither does one that pings (PingInterval at most Keepalive): a ping and its answer
	// count as speaking (message.Conn.Spoke). So an idle connection sends about one datagram
	// of its own a second, and answers the peer's. (The policy itself is the message layer's:
	// message.Config.Keepalive.)
	Keepalive time.Duration
	// AckDelay: when packets with guaranteed messages arrived and nothing is going out, an
	// ack-only packet leaves after at most this long. Default and maximum 10 ms
	// (message.MaxAckDelay, which the peer's resend delay allows for).
	AckDelay time.Duration
	// PingInterval: how often each side pings the other for RTT and clock offset. Default 1 s.
	PingInterval time.Duration
	// PingIdleOnly: a side skips its ping when its connection took a round-trip sample from
	// acknowledgements since its last ping was due: a connection that carries messages both
	// ways measures its round trip already, and hears the peer in every packet. An idle
	// connection pings as usual. The ping's own figures (PeerStats.PingAvg, PingMin, PingMax,
	// ClockOffset) then stay as the last ping left them: a connection that sets it reads the
	// packet layer's (RTT, MinRTT, MaxRTT, Jitter), which every sample feeds. The game sets it
	// on every connection: its lead reads the packet layer's round trip (game/lead.go).
	PingIdleOnly bool
	// Message configures each connection's message layer (MTU, resend limit, ...). Its Timeout,
	// Keepalive, AckDelay and Frame are set by the transport.
	Message message.Config
	// Link, if set, puts a link conditioner (net/linksim) under the socket that Listen or Dial
	// opens, with these settings for outgoing and incoming datagrams; SetLink changes them
	// while running. (An endpoint made with NewServer or NewClient has no socket: its owner's
	// socket has the conditioner.)
	Link *LinkSettings
	// LinkSeed seeds the conditioner (default 1).
	LinkSeed uint64
	// Tap, if set, is shown every datagram of the socket that Listen or Dial opens: sent,
	// received, and dropped by the link conditioner (tap.go). A recorder of captures is one
	// (net/record). Like Link, it belongs to the socket: an endpoint made with NewServer or
	// NewClient has none of its own.
	Tap Tap
	// Rand is where the key pairs of the handshake and the server's secret come from. Default
	// crypto/rand; a test that wants the same run twice gives a seeded source.
	Rand io.Reader
	// KeyLog, if set, is told the keys of every connection the endpoint opens, as soon as it
	// has them, so that a capture of the traffic can be decoded (net/PROTOCOL.md section 3): a
	// test that taps a simulated network, or somebody debugging, as TLS's key log files serve.
	// Whoever holds the keys can read and forge the connection's datagrams: a real game leaves
	// it unset.
	KeyLog func(k ConnKeys)
	// DebugViews puts the message layer's debug views (message.Debug: ack cells, waiting and
	// unacknowledged messages, and the history of the latest guaranteed messages each way)
	// into every PeerStats snapshot, for a debug panel, and has each connection keep that
	// history (Message.History, message.DefaultHistory unless set). Off by default: copying
	// them costs a walk of the dependency graphs several times a second.
	DebugViews bool
	// Callbacks are called from the owner loop, during Handle, Tick or an intent, with the
	// time that call was given.
	OnConnect    func(p *Peer, now time.Time)
	OnDisconnect func(p *Peer, now time.Time, reason wire.DisconnectReason, text string)
	OnMessage    func(p *Peer, now time.Time, m *message.Message)
	// Logger receives connection events, and at most every 10 s a line with the datagrams
	// rejected since the last one, by reason (default: discard).
	Logger *slog.Logger
	// CountSocket, for an endpoint made with NewServer or NewClient, is the socket its owner
	// reads: its counters (datagrams dropped because the loop fell behind, or too long) go
	// into this endpoint's Rejections. Give it to one endpoint per socket, so that they are
	// counted once. (An endpoint with a socket of its own counts that one.)
	CountSocket *Socket
}

// LinkSettings are the conditioner settings for the two directions of a socket.
type LinkSettings struct {
	Out, In linksim.Settings
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.Keepalive <= 0 {
		c.Keepalive = message.DefaultKeepalive
	}
	if c.AckDelay <= 0 || c.AckDelay > message.MaxAckDelay {
		c.AckDelay = message.MaxAckDelay
	}
	if c.PingInterval <= 0 {
		c.PingInterval = time.Second
	}
	if c.LinkSeed == 0 {
		c.LinkSeed = 1
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Message.Timeout = c.Timeout
	c.Message.Keepalive = c.Keepalive
	c.Message.AckDelay = c.AckDelay
	if c.DebugViews && c.Message.History == 0 {
		c.Message.History = message.DefaultHistory
	}
	return c
}

// disconnectCopies: a Disconnect is not acknowledged, so it is sent this many times.
const disconnectCopies = 3

// host is what Server and Client share: where datagrams go, the write buffer, the peers'
// packet pumping, pings and timeouts.
type host struct {
	cfg  Config
	out  Writer
	sock *Socket // the socket Listen or Dial opened; nil for NewServer and NewClient
	// counted is the socket whose counters are this endpoint's: its own, or CountSocket.
	counted *Socket
	buf     []byte // where datagrams are built
	rbuf    []byte // where sealed datagrams are opened: the datagram itself stays as it came
	// rejected counts the datagrams that belong to no connection, and those of a connection
	// that fail before its message layer sees them.
	rejected  Rejections
	sendErrs  atomic.Uint64
	published time.Time
	// now is the time of the Handle, Tick or intent being run, for the message layer's
	// delivery callback (which carries none).
	now time.Time
}

func (h *host) init(out Writer, sock *Socket) {
	h.out, h.sock, h.counted = out, sock, h.cfg.CountSocket
	h.buf = make([]byte, 0, wire.MaxDatagram)
	h.rbuf = make([]byte, 0, wire.MaxDatagram)
}

// own makes sock the endpoint's own socket (Listen, Dial), the one it counts.
func (h *host) own(sock *Socket) { h.sock, h.counted = sock, sock }

// Datagrams is the channel of datagrams read from the socket, for the owner loop; nil for an
// endpoint without a socket of its own. It is closed when the socket closes.
func (h *host) Datagrams() <-chan Datagram {
	if h.sock == nil {
		return nil
	}
	return h.sock.Datagrams()
}

// LocalAddr is the socket's address (the zero value without a socket of its own).
func (h *host) LocalAddr() netip.AddrPort {
	if h.sock == nil {
		return netip.AddrPort{}
	}
	return h.sock.LocalAddr()
}

// SetLink changes the link conditioner's settings at run time (safe from any goroutine). It
// fails if the host was not started with a Link.
func (h *host) SetLink(s LinkSettings) error {
	if h.sock == nil {
		return errors.New("transport: no socket of its own (its owner's socket has the link)")
	}
	return h.sock.SetLink(s)
}

// Link returns the conditioner's settings and whether there is one.
func (h *host) Link() (LinkSettings, bool) {
	if h.sock == nil {
		return LinkSettings{}, false
	}
	return h.sock.Link()
}

// release gives a datagram's buffer back when it came from the host's own socket.
func (h *host) release(d Datagram) {
	if h.sock != nil {
		h.sock.Release(d)
	}
}

// rejections are the endpoint's own rejections and its socket's.
func (h *host) rejections() Rejections {
	r := h.rejected
	ss := h.socketStats()
	r.Overflow += ss.Overflow
	r.Oversize += ss.Oversize
	return r
}

func (h *host) socketStats() SocketStats {
	if h.counted == nil {
		return SocketStats{}
	}
	return h.counted.Stats()
}

func (h *host) send(b []byte, to netip.AddrPort) {
	if err := h.out.WriteTo(b, to); err != nil {
		h.sendErrs.Add(1)
	}
}

// connected derives a new connection's sealer from the keys and tells the key log.
func (h *host) connected(k ConnKeys) *sealer {
	if h.cfg.KeyLog != nil {
		h.cfg.KeyLog(k)
	}
	return newSealer(&k.Send, &k.Recv)
}

// sendControl builds a packet with build (which appends the type byte and body), frames it
// and sends it: sealed with the connection's keys, or in the plain frame of the handshake
// (key 0) when s is nil. Copies of a sealed packet are one datagram sent again, not sealed
// again: whichever arrives first counts, the others are replays.
func (h *host) sendControl(to netip.AddrPort, s *sealer, copies int, build func(b []byte) ([]byte, error)) {
	begin := wire.BeginDatagram
	if s != nil {
		begin = wire.BeginSealed
	}
	d, err := build(begin(h.buf[:0]))
	if err != nil {
		h.cfg.Logger.Error("building a control packet", "err", err)
		return
	}
	if s != nil {
		d = s.Seal(d, 0)
	} else {
		wire.SealDatagram(d, 0)
	}
	for range copies {
		h.send(d, to)
	}
}

// pump sends what p's connection has due: resends, new messages, and a keepalive or ack-only
// packet when one is needed; pings once per PingInterval (each of which stands for a
// keepalive).
func (h *host) pump(p *Peer, now time.Time) {
	if p.gone {
		return
	}
	for {
		d, ok := p.conn.AppendPacket(h.buf[:0], now, false)
		if !ok {
			break
		}
		h.send(d, p.addr)
	}
	if !now.Before(p.nextPing) && h.cfg.PingIdleOnly {
		// Samples from acknowledgements since the last ping was due: every accepted pong added
		// one too (Peer.pong), so they are the samples less the pongs.
		acked := p.conn.RTTSamples() - p.pongs
		if acked != p.ackSamples {
			p.ackSamples = acked
			p.pingsSkipped++
			p.nextPing = now.Add(h.cfg.PingInterval)
		}
	}
	// A server pings no client it has not heard on the connection: a client that has not got
	// the Accepted yet cannot open the ping, keeps it, and answers it once an Accepted comes, so
	// that its round trip would take in the wait for the Accepted (390 ms instead of 200 at the
	// class's 30% preset), and as the first sample it would set the average that the lead
	// follows for the next 10 s.
	if !p.unheard() && !now.Before(p.nextPing) {
		p.pingID++
		p.pings++
		p.pingSent = now
		id, t0 := p.pingID, now.UnixNano()
		h.sendControl(p.addr, p.seal, 1, func(b []byte) ([]byte, error) {
			return wire.AppendPing(b, &wire.Ping{ID: id, T0: t0}), nil
		})
		p.conn.Spoke(now)
		p.nextPing = now.Add(h.cfg.PingInterval)
	}
}

// nextWake is when p next needs the loop's attention if no datagram arrives.
func (h *host) nextWake(p *Peer, now time.Time) time.Time {
	next := p.lastRecv.Add(h.cfg.Timeout)
	if !p.unheard() {
		next = Earliest(next, p.nextPing)
	}
	if d := p.conn.NextDeadline(now); !d.IsZero() {
		next = Earliest(next, d)
	}
	return next
}

// Earliest is the earlier of two times, a zero Time meaning "nothing scheduled": for owner
// loops that combine NextTick deadlines.
func Earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// receive handles a packet of p's connection, opened from a datagram of size bytes (it passed
// the keys and the replay record): data, ping, pong or disconnect. It reports a disconnect the
// peer asked for.
func (h *host) receive(p *Peer, now time.Time, body []byte, size int) (bye *wire.Disconnect) {
	typ, err := wire.PeekType(body)
	if err != nil {
		h.rejected.Malformed++
		return nil
	}
	switch typ {
	case wire.TypeData:
		// Only a packet the packet layer accepts shows the peer is alive: a stale one (older
		// than one accepted) must not keep a dead connection open.
		before := p.conn.PacketsAccepted()
		if err := p.conn.ReceivePacket(now, body, size); err != nil && !errors.Is(err, message.ErrMalformed) {
			h.cfg.Logger.Debug("receive", "peer", p.String(), "err", err)
		}
		if p.conn.PacketsAccepted() != before {
			p.lastRecv = now
		}
	case wire.TypePing:
		m, err := wire.ParsePing(body)
		if err != nil {
			h.rejected.Malformed++
			return nil
		}
		p.lastRecv = now
		t1 := now.UnixNano()
		h.sendControl(p.addr, p.seal, 1, func(b []byte) ([]byte, error) {
			return wire.AppendPong(b, &wire.Pong{ID: m.ID, T0: m.T0, T1: t1, T2: t1}), nil
		})
		p.conn.Spoke(now)
	case wire.TypePong:
		m, err := wire.ParsePong(body)
		if err != nil {
			h.rejected.Malformed++
			return nil
		}
		p.lastRecv = now
		p.pong(now, m)
	case wire.TypeDisconnect:
		m, err := wire.ParseDisconnect(body)
		if err != nil {
			h.rejected.Malformed++
			return nil
		}
		return &m
	default:
		h.rejected.Malformed++
	}
	return nil
}

// maxBatch bounds the datagrams Run handles between two Ticks, so that a flood cannot hold
// off resends, acks and timeouts for long. It stays well under the 16 packets after which a
// receiver owes an ack at once: with 64, a receiver handled a sender's whole 32-packet window
// before acknowledging any of it, and at 10% loss on loopback throughput fell from about
// 130,000 to 38,000 messages a second, p99 from 25 ms to 126 ms
// (net/transport/compare, loss=10/ackattack).
const maxBatch = 8

// Host is what Run drives: a *Server or a *Client.
type Host interface {
	Datagrams() <-chan Datagram
	Handle(now time.Time, d Datagram)
	Tick(now time.Time)
	NextTick(now time.Time) time.Time
}

// Run is a ready-made owner loop for a Server or Client: it hands every datagram to Handle,
// calls Tick when time makes work due, and runs the functions sent on do (the owner's intents:
// sending messages, kicking a player) on the loop, so that every piece of connection state is
// touched by this one goroutine. It returns when ctx is done or the socket closed.
func Run(ctx context.Context, h Host, do <-chan func(now time.Time)) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		h.Tick(now)
		wait := h.NextTick(now).Sub(time.Now())
		if wait < time.Millisecond {
			wait = time.Millisecond
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case d, ok := <-h.Datagrams():
			if !ok {
				return ErrClosed
			}
			h.Handle(time.Now(), d)
			// Whatever else is already waiting is handled before the next Tick: a loop that
			// fell behind catches up in batches instead of paying a Tick (every peer's
			// resends, acks and keepalives) per datagram, which would only let the queue grow.
		drain:
			for range maxBatch - 1 {
				select {
				case d, ok := <-h.Datagrams():
					if !ok {
						return ErrClosed
					}
					h.Handle(time.Now(), d)
				default:
					break drain
				}
			}
		case f := <-do:
			f(time.Now())
		case <-timer.C:
		}
	}
}
