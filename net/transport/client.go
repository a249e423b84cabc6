package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// ClientConfig configures a Client. The zero value of each field means its default.
type ClientConfig struct {
	Config
	// PlayerID identifies the player across reconnects. It is public, not a credential: a new
	// connection with the id of an open one does not replace it, and whoever owns the server
	// decides (a game asks for a proof that only the player can give). Default: a new random id.
	PlayerID uuid.UUID
	// Name is the player's name, 1 to 32 bytes of UTF-8 without control characters.
	Name string
	// Role is what the client asks to be (wire.Role): a player (the default) or an observer,
	// which the server's owner may let watch without taking part.
	Role wire.Role
	// ConnectTimeout bounds the handshake. Default 10 s: at the class's 30% preset on every
	// process (51% lost each way) a request and its challenge both cross one try in four, and
	// the handshake needs that and a response through; in 5 s of tries 1 client in 100 failed
	// the first step alone, in 10 s about 1 in 15,000.
	ConnectTimeout time.Duration
	// Retry is how long the client waits for an answer before it sends a handshake packet
	// again: each wait is Retry stretched by up to a quarter (retryWait), so that clients
	// started together do not stay in step. Default 250 ms.
	Retry time.Duration
	// OnDenied is called when the server refuses the connection.
	OnDenied func(reason wire.DenyReason, now time.Time)
}

// ClientState is where a client is in its life.
type ClientState uint8

const (
	Connecting   ClientState = iota + 1 // sending connection requests
	Challenged                          // echoing the server's challenge
	Connected                           // the connection is up
	Disconnected                        // it ended; Reason says why
)

func (s ClientState) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Challenged:
		return "challenged"
	case Connected:
		return "connected"
	case Disconnected:
		return "disconnected"
	}
	return fmt.Sprintf("ClientState(%d)", s)
}

// ErrDenied is the handshake's end when the server refused; errors.Is works on the client's
// Err.
var ErrDenied = errors.New("transport: connection refused by the server")

// Client is one connection to a server. Apart from Stats, SetLink, LocalAddr and Close, its
// methods belong to the one goroutine that owns it (see Run).
type Client struct {
	host
	cfg    ClientConfig
	server netip.AddrPort

	state     ClientState
	started   time.Time
	nextTry   time.Time // when the handshake packet goes again (zero: at once)
	tries     uint64    // handshake packets sent
	challenge wire.Challenge
	answered  bool    // a Challenge or a Denied came: the server exists and speaks the protocol
	keys      keyPair // the client's half of the key exchange, for this connection only
	peer      *Peer
	err       error
	reason    wire.DisconnectReason
	text      string
	closed    bool
	rejects   rejectLog
	// early is one sealed datagram that came before our Accepted did (a reordered or lost
	// Accepted): the server's first packets, or its Disconnect when it refused the player at
	// once. It is opened once the key is known, so that the reason is not lost.
	early []byte

	stats atomic.Pointer[ClientStats]
}

// ClientStats is a snapshot of the client, safe to read from any goroutine.
type ClientStats struct {
	At         time.Time
	State      ClientState
	Reason     wire.DisconnectReason // why it ended, once Disconnected
	Text       string
	Err        string
	Server     PeerStats // the connection to the server, once Connected
	SendErrors uint64
	// Rejected counts every datagram the client dropped, by reason: before the connection
	// and on it.
	Rejected Rejections
}

// Dial opens a UDP socket and starts connecting to the server at addr. The handshake runs in
// the owner loop (Tick sends the requests; Handle takes the answers); OnConnect fires when it
// completes.
func Dial(addr string, cfg ClientConfig) (*Client, error) {
	server, err := ResolveServer(addr)
	if err != nil {
		return nil, err
	}
	sock, err := OpenSocket(LocalFor(server), cfg.SocketOptions())
	if err != nil {
		return nil, fmt.Errorf("transport: open a socket: %w", err)
	}
	return onSocket(sock, server, cfg)
}

// onSocket is a client of server on sock, which it owns (and closes if it cannot start).
func onSocket(sock *Socket, server netip.AddrPort, cfg ClientConfig) (*Client, error) {
	c, err := NewClient(server, cfg, sock)
	if err != nil {
		sock.Close()
		return nil, err
	}
	c.own(sock)
	return c, nil
}

// ResolveServer turns a server address ("127.0.0.1:7777", "localhost:7777") into an address
// and port, IPv4-mapped addresses unmapped.
func ResolveServer(addr string) (netip.AddrPort, error) {
	server, err := netip.ParseAddrPort(addr)
	if err != nil {
		ua, rerr := net.ResolveUDPAddr("udp", addr)
		if rerr != nil {
			return netip.AddrPort{}, fmt.Errorf("transport: server address %q: %w", addr, rerr)
		}
		server = ua.AddrPort()
	}
	return netip.AddrPortFrom(server.Addr().Unmap(), server.Port()), nil
}

// LocalFor is the local address a client of server listens on, any free port: the server's
// own loopback address for a loopback server (nothing else can reach it), or else the address
// of the interface the system routes datagrams for the server through, the one the server will
// see them come from (no datagram is sent to find it). Only when the system knows no route to
// the server does it listen on every interface.
func LocalFor(server netip.AddrPort) string {
	if server.Addr().IsLoopback() {
		return netip.AddrPortFrom(server.Addr(), 0).String()
	}
	if c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(server)); err == nil {
		local := c.LocalAddr().(*net.UDPAddr).AddrPort().Addr()
		c.Close()
		if local.IsValid() && !local.IsUnspecified() {
			return netip.AddrPortFrom(local.Unmap(), 0).String()
		}
	}
	if server.Addr().Is6() {
		return "[::]:0"
	}
	return "0.0.0.0:0"
}

// DialOn is Dial on a socket the caller opened.
func DialOn(pc net.PacketConn, server netip.AddrPort, cfg ClientConfig) (*Client, error) {
	return onSocket(NewSocket(pc, cfg.SocketOptions()), server, cfg)
}

// NewClient returns a client of server that sends through out and owns no socket: its owner
// reads the socket (or a simulated network) and hands the server's datagrams to Handle. The
// error is a player name that a ConnectRequest cannot carry.
func NewClient(server netip.AddrPort, cfg ClientConfig, out Writer) (*Client, error) {
	cfg.Config = cfg.Config.withDefaults()
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 250 * time.Millisecond
	}
	if cfg.PlayerID == uuid.Nil {
		cfg.PlayerID = uuid.New()
	}
	if _, err := wire.AppendConnectRequest(wire.BeginDatagram(nil), &wire.ConnectRequest{Version: wire.ProtocolVersion, Player: wire.PlayerID(cfg.PlayerID), Name: cfg.Name}); err != nil {
		return nil, fmt.Errorf("transport: player name %q: %w", cfg.Name, err)
	}
	c := &Client{cfg: cfg, server: server, state: Connecting}
	c.host.cfg = cfg.Config
	c.keys = newKeyPair(cfg.Rand)
	c.init(out, nil)
	c.stats.Store(&ClientStats{State: Connecting})
	return c, nil
}

// Server is the address of the server this client connects to.
func (c *Client) Server() netip.AddrPort { return c.server }

// State is where the client is. Owner loop only (Stats has a copy for other goroutines).
func (c *Client) State() ClientState { return c.state }

// Peer is the connection to the server once Connected (nil before). Owner loop only.
func (c *Client) Peer() *Peer { return c.peer }

// Answered reports whether the server ever answered the handshake (a Challenge or a Denied):
// a client that ends without an answer sent nothing but connection requests to an address
// that may have nobody behind it. Owner loop only.
func (c *Client) Answered() bool { return c.answered }

// Err says why the client ended: denied, handshake timeout, or the disconnect reason.
func (c *Client) Err() error { return c.err }

// Stats returns the latest snapshot. Safe from any goroutine.
func (c *Client) Stats() ClientStats { return *c.stats.Load() }

// Handle processes one datagram from the socket (owner loop only).
func (c *Client) Handle(now time.Time, d Datagram) {
	defer c.release(d)
	if c.closed {
		return
	}
	if c.state == Disconnected {
		c.rejected.AfterClose++
		return
	}
	c.now = now
	if d.From != c.server {
		c.rejected.Unexpected++
		return
	}
	if c.peer != nil {
		body, err := c.peer.seal.open(c.rbuf[:0], d.Data)
		if err == nil {
			if bye := c.receive(c.peer, now, body, len(d.Data)); bye != nil {
				c.end(now, bye.Reason, bye.Text, false)
				return
			}
			c.checkConn(now)
			return
		}
		if err == errReplay {
			c.peer.replayed++
			return
		}
	}
	body, err := wire.OpenDatagram(d.Data, 0)
	if err != nil {
		switch {
		case c.peer != nil:
			c.peer.spoofed++
		case c.state == Challenged && len(d.Data) <= wire.MaxDatagram:
			// Perhaps sealed with the key our lost Accepted carries: kept (the last one only)
			// until it comes, and counted only if it never opens.
			if len(c.early) > 0 {
				c.rejected.Unexpected++ // the one it replaces
			}
			c.early = append(c.early[:0], d.Data...)
		default:
			c.rejected.Malformed++
		}
		return
	}
	typ, _ := wire.PeekType(body)
	switch {
	case typ == wire.TypeChallenge && c.state == Connecting:
		ch, err := wire.ParseChallenge(body)
		if err != nil {
			c.rejected.Malformed++
			return
		}
		c.challenge, c.state, c.answered = ch, Challenged, true
		c.sendResponse(now)
	case typ == wire.TypeAccepted && c.state == Challenged:
		acc, err := wire.ParseAccepted(body)
		if err != nil {
			c.rejected.Malformed++
			return
		}
		keys, err := c.keys.connKeys(c.server, &acc.PublicKey, true)
		if err != nil {
			// A key that gives no secret: not the server's answer (anybody can send a plain
			// Accepted). The response goes on until the right one comes.
			c.rejected.Malformed++
			return
		}
		c.connected(now, keys)
	case typ == wire.TypeDenied && c.state != Connected:
		den, err := wire.ParseDenied(body)
		if err != nil {
			c.rejected.Malformed++
			return
		}
		c.err = fmt.Errorf("%w: %s", ErrDenied, den.Reason)
		c.state, c.answered = Disconnected, true
		c.dropEarly()
		c.publish(now)
		if c.cfg.OnDenied != nil {
			c.cfg.OnDenied(den.Reason, now)
		}
	default:
		// A late challenge or a repeated Accepted after we connected: harmless, counted.
		c.rejected.Unexpected++
	}
}

func (c *Client) sendRequest(now time.Time) {
	req := wire.ConnectRequest{Version: wire.ProtocolVersion, Player: wire.PlayerID(c.cfg.PlayerID), Name: c.cfg.Name, Role: c.cfg.Role}
	c.sendControl(c.server, nil, 1, func(b []byte) ([]byte, error) { return wire.AppendConnectRequest(b, &req) })
	c.tried(now)
}

func (c *Client) sendResponse(now time.Time) {
	resp := wire.ChallengeResponse{Version: wire.ProtocolVersion, Player: wire.PlayerID(c.cfg.PlayerID), Name: c.cfg.Name, Challenge: c.challenge, PublicKey: c.keys.public, Role: c.cfg.Role}
	c.sendControl(c.server, nil, 1, func(b []byte) ([]byte, error) { return wire.AppendChallengeResponse(b, &resp) })
	c.tried(now)
}

// tried schedules the next handshake packet after one went out.
func (c *Client) tried(now time.Time) {
	c.nextTry = now.Add(c.retryWait(c.tries))
	c.tries++
}

// retryWait is how long the client waits after its try-th handshake packet before it sends
// another: Retry, and up to a quarter more, in whole milliseconds. The spread keeps clients that start together (a
// class told "join now", a script) from sending in step; it only ever lengthens the wait, so
// that a client never sends more packets in its ConnectTimeout than one every Retry (a dial
// to an address that never answers is bounded by that count). The spread comes from the
// client's public key and the try's number: it differs from client to client and try to try
// without a draw from Config.Rand, whose stream a seeded test keeps for the keys; the public
// key travels in the clear anyway, and a wait is nothing to hide.
//
// The wait does not grow from try to try (exponential backoff): the server answers every
// request, at no cost to itself, and keeps no state for a client that has not returned its
// challenge, so there is no load to back off from; and fewer tries within the connect
// timeout would lose joins on a lossy link (at 30% loss each way a try's round trip succeeds
// one time in two, and the handshake needs two of them).
func (c *Client) retryWait(try uint64) time.Duration {
	h := mix64(binary.LittleEndian.Uint64(c.keys.public[:8]) ^ mix64(try))
	// In whole milliseconds, as a host loop's timers go (and a virtual clock stays on them).
	spread := uint64(c.cfg.Retry / 4 / time.Millisecond)
	return c.cfg.Retry + time.Duration(h%(spread+1))*time.Millisecond
}

func (c *Client) connected(now time.Time, keys ConnKeys) {
	p := &Peer{debug: c.cfg.DebugViews, addr: c.server, seal: c.host.connected(keys), player: c.cfg.PlayerID, name: c.cfg.Name,
		role: c.cfg.Role, connectedAt: now, lastRecv: now, nextPing: now}
	mc := c.cfg.Message
	mc.Frame = p.seal
	p.conn = message.New(mc, func(m *message.Message) {
		if c.cfg.OnMessage != nil {
			c.cfg.OnMessage(p, c.now, m)
		}
	})
	c.peer, c.state = p, Connected
	c.cfg.Logger.Info("connected", "server", c.server)
	// The first packet goes out now: it tells the server the key works.
	c.pump(p, now)
	c.publish(now)
	if c.cfg.OnConnect != nil {
		c.cfg.OnConnect(p, now)
	}
	if early := c.early; len(early) > 0 && c.state == Connected {
		c.early = early[:0]
		body, err := p.seal.open(c.rbuf[:0], early)
		if err != nil {
			c.rejected.Unexpected++
			return
		}
		if bye := c.receive(p, now, body, len(early)); bye != nil {
			c.end(now, bye.Reason, bye.Text, false)
			return
		}
		c.checkConn(now)
	}
}

// dropEarly counts the sealed datagram kept for a key that never came.
func (c *Client) dropEarly() {
	if len(c.early) > 0 {
		c.rejected.Unexpected++
		c.early = c.early[:0]
	}
}

func (c *Client) checkConn(now time.Time) {
	if c.peer != nil {
		if err := c.peer.conn.Err(); err != nil {
			c.end(now, wire.DisconnectError, err.Error(), true)
		}
	}
}

// end closes the connection with a reason (telling the server if notify).
func (c *Client) end(now time.Time, reason wire.DisconnectReason, text string, notify bool) {
	if c.state == Disconnected {
		return
	}
	p := c.peer
	if p != nil && notify {
		msg := wire.Disconnect{Reason: reason, Text: wire.FitReasonText(text)}
		c.sendControl(c.server, p.seal, disconnectCopies, func(b []byte) ([]byte, error) { return wire.AppendDisconnect(b, &msg) })
	}
	c.state, c.reason, c.text = Disconnected, reason, text
	if c.err == nil {
		c.err = fmt.Errorf("transport: disconnected: %s: %s", reason, text)
	}
	// The server removing the player (a refused name, a full server) is news to the player: it
	// reaches the log at the level the binaries write by default.
	level := slog.LevelInfo
	if reason == wire.DisconnectKicked && !notify {
		level = slog.LevelWarn
	}
	c.cfg.Logger.Log(context.Background(), level, "disconnected", "server", c.server, "reason", reason.String(), "text", text)
	if p != nil {
		p.gone, p.reason, p.text = true, reason, text
	}
	c.publish(now)
	if p != nil && c.cfg.OnDisconnect != nil {
		c.cfg.OnDisconnect(p, now, reason, text)
	}
}

// Disconnect ends the connection cleanly: the server is told (DisconnectClosed) and learns the
// text. The socket stays open until Close.
func (c *Client) Disconnect(now time.Time, text string) {
	c.end(now, wire.DisconnectClosed, text, true)
}

// Tick does what time makes due (owner loop only): handshake retries and timeout, and on a
// connection its timeout, resends, keepalives and pings.
func (c *Client) Tick(now time.Time) {
	if c.closed {
		return
	}
	c.now = now
	switch c.state {
	case Connecting, Challenged:
		if c.started.IsZero() {
			c.started = now
		}
		if now.Sub(c.started) > c.cfg.ConnectTimeout {
			c.err = fmt.Errorf("transport: no answer from %s within %v", c.server, c.cfg.ConnectTimeout)
			c.state, c.reason, c.text = Disconnected, wire.DisconnectTimeout, c.err.Error()
			c.dropEarly()
			c.publish(now)
			return
		}
		if c.nextTry.IsZero() || !now.Before(c.nextTry) {
			if c.state == Connecting {
				c.sendRequest(now)
			} else {
				c.sendResponse(now)
			}
		}
	case Connected:
		p := c.peer
		if now.Sub(p.lastRecv) > c.cfg.Timeout {
			c.end(now, wire.DisconnectTimeout, fmt.Sprintf("nothing heard from the server for %v", now.Sub(p.lastRecv).Round(time.Millisecond)), true)
			return
		}
		p.conn.Poll(now)
		c.checkConn(now)
		if c.state == Connected {
			c.pump(p, now)
			c.checkConn(now)
		}
	}
	if now.Sub(c.published) >= 100*time.Millisecond {
		c.publish(now)
	}
}

// NextTick is when Tick next has work if no datagram arrives.
func (c *Client) NextTick(now time.Time) time.Time {
	next := Earliest(now.Add(time.Second), c.published.Add(100*time.Millisecond))
	switch c.state {
	case Connecting, Challenged:
		if c.nextTry.IsZero() {
			return now // the first request is due
		}
		next = Earliest(next, c.nextTry)
	case Connected:
		next = Earliest(next, c.nextWake(c.peer, now))
	}
	return next
}

func (c *Client) publish(now time.Time) {
	st := &ClientStats{At: now, State: c.state, Reason: c.reason, Text: c.text, SendErrors: c.sendErrs.Load(), Rejected: c.rejections()}
	if c.err != nil {
		st.Err = c.err.Error()
	}
	if p := c.peer; p != nil {
		pk := p.conn.Stats().Packet
		p.rates.update(now, pk.PacketsReceived, pk.PacketsSent, pk.BytesReceived, pk.BytesSent)
		st.Server = p.snapshot()
		var t PeerTotals
		t.Add(st.Server)
		st.Rejected.addPeer(t)
	}
	c.stats.Store(st)
	c.published = now
	c.rejects.update(c.cfg.Logger, now, st.Rejected, c.closed)
}

// Shutdown disconnects cleanly if connected (the server learns DisconnectClosed) and stops
// the client: it handles nothing more. Owner loop only.
func (c *Client) Shutdown(now time.Time) {
	if c.closed {
		return
	}
	c.now = now
	if c.state == Connected {
		c.end(now, wire.DisconnectClosed, "client closed", true)
	}
	c.closed = true
	c.publish(now)
}

// Close is Shutdown now, then closes the client's own socket (Dial, DialOn) and waits for its
// reader goroutine. Call it from the owner loop or after it returned.
func (c *Client) Close() error {
	c.Shutdown(time.Now())
	if c.sock == nil {
		return nil
	}
	return c.sock.Close()
}
