package transport

import (
	"crypto/hmac"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// ServerConfig configures a Server. The zero value of each field means its default.
type ServerConfig struct {
	Config
	// MaxClients bounds the connections open at once. Default 8, at most MaxClients. (Seats
	// are the game's: a transport has connections, each named by its player id.)
	MaxClients int
	// MaxPendingHandshakes bounds the key exchanges per ChallengeTTL in all: the handshakes
	// that returned a valid challenge and get a key pair and a connection. A valid response
	// beyond it gets no answer (and is counted); the client sends it again. Only addresses
	// that receive what the server sends them spend it: a challenge nobody returns does not
	// (budget.go). Default 64.
	MaxPendingHandshakes int
	// MaxHandshakesPerAddress and MaxHandshakesPerPrefix bound the challenges handed out per
	// ChallengeTTL to one source address and to one prefix (a /24 of IPv4, a /64 of IPv6), so
	// that a flood from one address or one network costs the server little and makes it send
	// little (budget.go). Challenges have no budget in all: they keep no state, so a flood
	// from everywhere gets its challenges and honest clients get theirs. Defaults 16 and 32.
	MaxHandshakesPerAddress int
	MaxHandshakesPerPrefix  int
	// ChallengeTTL is how long a challenge stays valid, and how long each secret of the
	// challenges serves before the next one takes over (challenge.go). Default 5 s.
	ChallengeTTL time.Duration
	// Admit, if set, is asked whether a player may connect, at its request and again at its
	// challenge response (a seat may have been taken in between); false is answered "server
	// full". It must change nothing: a request creates no state.
	//
	// A player id is public (every client of a game learns every other's), so it is no
	// credential: a connection with the id of a connection that is still open does not replace
	// it. Both stay open, and the owner decides which one lives: it asks the newcomer for a
	// proof of its own and ends one of them (Drop, Kick).
	Admit func(player uuid.UUID, now time.Time) bool
}

// MaxClients is the most connections a server holds at once: a lecture hall's spectators
// and the seats with room to spare (game's sizeTransport), each a few kilobytes of state.
const MaxClients = 1024

func (c ServerConfig) withDefaults() ServerConfig {
	c.Config = c.Config.withDefaults()
	if c.MaxClients <= 0 {
		c.MaxClients = 8
	}
	if c.MaxClients > MaxClients {
		c.MaxClients = MaxClients
	}
	if c.MaxPendingHandshakes <= 0 {
		c.MaxPendingHandshakes = 64
	}
	if c.MaxHandshakesPerAddress <= 0 {
		c.MaxHandshakesPerAddress = 16
	}
	if c.MaxHandshakesPerPrefix <= 0 {
		c.MaxHandshakesPerPrefix = 32
	}
	if c.ChallengeTTL <= 0 {
		c.ChallengeTTL = 5 * time.Second
	}
	return c
}

// Server serves many clients on one UDP socket. Apart from Stats, SetLink, LocalAddr and
// Close, its methods belong to the one goroutine that owns it (see Run).
//
// The handshake. A UDP server must not become a weapon: anybody can send it a datagram with a
// forged source address, and if the reply were larger than the request the server would
// amplify an attack on the forged address. So:
//
//	client                                     server
//	ConnectRequest (padded to 1200 bytes)  ─►  no state; a challenge: HMAC(secret, address,
//	                                           time, player id), 29 bytes (challenge.go)
//	ChallengeResponse (echo, 1200 bytes,   ◄─  Challenge
//	  + the client's X25519 public key)    ─►  checks the HMAC and its age: only now does the
//	                                           client get state, and the server a key pair
//	every packet sealed with the keys      ◄─  Accepted (the server's public key)
//
// The request is padded so that no answer is ever larger than what provoked it. The challenge
// costs the server no memory: it recomputes the HMAC when the response comes (challenge.go),
// so a flood of requests from forged addresses creates nothing, and a client that cannot
// receive at its claimed address never learns the challenge. A used challenge is remembered
// until it expires, so a replay is refused. Challenges are rationed per address and per
// network, and key exchanges in all (budget.go), so a flood of requests from everywhere
// spends nothing an honest client needs. A server with MaxClients connections, or whose
// owner's Admit refuses the player, answers "server full". The client's handshake says what it asks to be (wire.Role: a player,
// or an observer that only watches); the transport hands that to its owner (Peer.Role) and
// acts on it no further.
//
// A player id names a connection but proves nothing (every player of a game learns every
// other's): a client that connects with the id of an open connection gets a connection of its
// own beside it, and the owner decides which one stays (Drop with DisconnectReplaced, or Kick).
// A new connection from the address of an open one does replace it: the challenge showed that
// it receives at that address. Seats are not the transport's business: the game above keeps
// them, and Accepted carries only the server's half of the key exchange.
type Server struct {
	host
	cfg     ServerConfig
	secrets *challengeSecrets // the challenges' (challenge.go)

	peers   []*Peer // connected, in the order they connected
	ticking []*Peer // Tick's copy of peers
	byAddr  map[netip.AddrPort]*Peer

	budgets  budgets                // the handshake budgets (budget.go)
	usedTags map[[16]byte]time.Time // accepted challenges, until they expire: a replay is refused
	counters serverCounters
	ended    PeerTotals // the counters of every connection that ended
	// closed lately: their packets still in flight are told from junk (AfterClose)
	recent     [16]endedConn
	recentNext int
	rejects    rejectLog
	stats      atomic.Pointer[ServerStats]
	closed     bool
}

type serverCounters struct {
	requests, challenges, accepted, denied, timeouts uint64
}

// ServerStats is a snapshot of the server, safe to read from any goroutine.
type ServerStats struct {
	At         time.Time
	Peers      []PeerStats // connected clients, in the order they connected
	Requests   uint64      // connection requests received
	Challenges uint64      // challenges sent
	Accepted   uint64
	Denied     uint64 // "server full" and other refusals sent
	Timeouts   uint64 // connections closed because the client went silent
	SendErrors uint64
	// Rejected counts every datagram the server dropped, by reason, over its whole life: those
	// that belong to no connection, and those of every connection, open or ended.
	Rejected Rejections
	// Ended sums the counters of every connection that has ended (Peers has the open ones).
	Ended PeerTotals
}

// Listen opens a UDP socket on addr ("127.0.0.1:7777", "127.0.0.1:0" for any free port) and
// starts its reader goroutine. The caller's loop then drives the server (see Run).
func Listen(addr string, cfg ServerConfig) (*Server, error) {
	sock, err := OpenSocket(addr, cfg.SocketOptions())
	if err != nil {
		return nil, err
	}
	s := NewServer(cfg, sock)
	s.own(sock)
	return s, nil
}

// Serve is Listen on a socket the caller opened.
func Serve(pc net.PacketConn, cfg ServerConfig) *Server {
	sock := NewSocket(pc, cfg.SocketOptions())
	s := NewServer(cfg, sock)
	s.own(sock)
	return s
}

// NewServer returns a server that sends through out and owns no socket: its owner reads the
// socket (or a simulated network) and hands every datagram to Handle. That is how a game host
// serves several kinds of traffic on one socket, and how a test runs it in virtual time.
func NewServer(cfg ServerConfig, out Writer) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, byAddr: make(map[netip.AddrPort]*Peer), usedTags: make(map[[16]byte]time.Time)}
	s.host.cfg = cfg.Config
	var secret [32]byte
	if _, err := io.ReadFull(cfg.Rand, secret[:]); err != nil {
		panic("transport: no randomness for the server secret: " + err.Error())
	}
	s.budgets = newBudgets(cfg, secret[:])
	s.secrets = newChallengeSecrets(cfg.Rand, cfg.ChallengeTTL, deriveKey(secret[:], "challenge secret"))
	s.init(out, nil)
	s.stats.Store(&ServerStats{})
	return s
}

// Stats returns the latest snapshot (refreshed by Tick, at most every 100 ms). Safe from any
// goroutine; it never waits for the loop.
func (s *Server) Stats() ServerStats { return *s.stats.Load() }

// Peers returns the connected clients in the order they connected. Owner loop only.
func (s *Server) Peers() []*Peer { return s.peers }

// Handle processes one datagram from the socket (owner loop only). Every datagram that does
// not belong to a connection or to the handshake is dropped and counted.
func (s *Server) Handle(now time.Time, d Datagram) {
	defer s.release(d)
	if s.closed {
		return
	}
	s.now = now
	if p := s.byAddr[d.From]; p != nil {
		first := p.unheard()
		body, err := p.seal.open(s.rbuf[:0], d.Data)
		if err == nil {
			if first {
				// What we sent before now may have waited at the client for the Accepted:
				// its acks would measure that wait, not the path.
				p.conn.DiscardRTTSamples()
			}
			if bye := s.receive(p, now, body, len(d.Data)); bye != nil {
				s.drop(p, now, bye.Reason, bye.Text, false)
			}
			s.checkConn(p, now)
			s.looked(p, now)
			return
		}
		if err == errReplay {
			p.replayed++
			return
		}
		// Not this connection's: a handshake packet (the client did not get Accepted and asks
		// again), or a datagram that does not belong to the connection.
		if body, err := wire.OpenDatagram(d.Data, 0); err == nil {
			if typ, _ := wire.PeekType(body); typ == wire.TypeChallengeResponse || typ == wire.TypeConnectRequest {
				s.handshake(now, d.From, body)
				return
			}
		}
		p.spoofed++
		return
	}
	body, err := wire.OpenDatagram(d.Data, 0)
	if err != nil {
		if e := s.endedLately(now, d); e != nil {
			s.rejected.AfterClose++
			if e.seal != nil && e.repeats < disconnectCopies {
				e.repeats++
				s.sendControl(e.addr, e.seal, 1, func(b []byte) ([]byte, error) { return wire.AppendDisconnect(b, &e.bye) })
			}
		} else {
			s.rejected.Malformed++
		}
		return
	}
	s.handshake(now, d.From, body)
}

// endedConn is a connection that ended, remembered for a Timeout: the key of its client's
// datagrams, and where their counter had got to.
type endedConn struct {
	addr  netip.AddrPort
	recv  *wire.SealKey
	next  uint64
	until time.Time

	// The Disconnect is not acknowledged: all its copies may be lost. A client that goes on
	// sending on the ended connection gets it again, once per datagram, up to
	// disconnectCopies times more (nil seal: we ended it without a word, a Timeout).
	seal    *sealer
	bye     wire.Disconnect
	repeats int
	// A connection ended before a single sealed datagram came from its client (a join the
	// owner refused at once) may have ended before the client got our Accepted: a lost
	// Accepted brings the same challenge response again. The server answers it again with
	// the same Accepted and the Disconnect, so that the client reads why instead of guessing.
	unheard   bool
	tag       [16]byte
	clientKey wire.PublicKey
	serverKey wire.PublicKey
}

// endedLately finds the connection from d's address, ended less than a Timeout ago, whose key
// d is sealed with (nil: none).
func (s *Server) endedLately(now time.Time, d Datagram) *endedConn {
	for i := range s.recent {
		e := &s.recent[i]
		if e.addr == d.From && now.Before(e.until) {
			if _, _, err := e.recv.Open(s.rbuf[:0], d.Data, e.next); err == nil {
				return e
			}
		}
	}
	return nil
}

// handshake answers the packets of a client that has no connection (yet).
func (s *Server) handshake(now time.Time, from netip.AddrPort, body []byte) {
	typ, err := wire.PeekType(body)
	if err != nil {
		s.rejected.Malformed++
		return
	}
	switch typ {
	case wire.TypeConnectRequest:
		req, err := wire.ParseConnectRequest(body)
		if err != nil {
			s.rejected.Malformed++
			return
		}
		s.counters.requests++
		if req.Version != wire.ProtocolVersion {
			s.deny(from, wire.DenyVersion)
			return
		}
		if !s.admits(uuid.UUID(req.Player), now) {
			s.deny(from, wire.DenyServerFull)
			return
		}
		switch s.budgets.takeChallenge(from.Addr(), now) {
		case overAddress:
			s.rejected.ThrottledAddress++
			return
		case overPrefix:
			s.rejected.ThrottledPrefix++
			return
		}
		s.secrets.rotate(now)
		ch := wire.Challenge{Issued: uint64(now.UnixMilli())}
		ch.Tag, _ = s.secrets.tag(from, ch.Issued, req.Player) // the current period's: always there
		s.counters.challenges++
		s.sendControl(from, nil, 1, func(b []byte) ([]byte, error) { return wire.AppendChallenge(b, &ch), nil })
	case wire.TypeChallengeResponse:
		resp, err := wire.ParseChallengeResponse(body)
		if err != nil {
			s.rejected.Malformed++
			return
		}
		s.accept(now, from, resp)
	default:
		// Data, pings or a disconnect from an address with no connection: a client that timed
		// out on our side, or somebody guessing.
		s.rejected.Unexpected++
	}
}

// deny refuses a handshake packet, counted under its reason.
func (s *Server) deny(to netip.AddrPort, r wire.DenyReason) {
	s.counters.denied++
	switch r {
	case wire.DenyVersion:
		s.rejected.WrongVersion++
	case wire.DenyChallenge:
		s.rejected.BadChallenge++
	case wire.DenyBadRequest:
		s.rejected.Malformed++
	default:
		s.rejected.ServerFull++
	}
	s.sendControl(to, nil, 1, func(b []byte) ([]byte, error) { return wire.AppendDenied(b, &wire.Denied{Reason: r}) })
}

// accept checks a challenge response and, if it is good, creates the connection.
func (s *Server) accept(now time.Time, from netip.AddrPort, resp wire.ChallengeResponse) {
	s.secrets.rotate(now)
	want, ok := s.secrets.tag(from, resp.Challenge.Issued, resp.Player)
	issued := time.UnixMilli(int64(resp.Challenge.Issued))
	if !ok || !hmac.Equal(want[:], resp.Challenge.Tag[:]) || now.Sub(issued) > s.cfg.ChallengeTTL || issued.After(now.Add(time.Second)) {
		s.deny(from, wire.DenyChallenge)
		return
	}
	player := uuid.UUID(resp.Player)
	if p := s.byAddr[from]; p != nil && p.player == player && p.tag == resp.Challenge.Tag && p.clientKey == resp.PublicKey {
		// The client did not get our Accepted and asks again with the same challenge: answer
		// again, with the same key. No new state.
		s.sendAccepted(p.addr, p.serverKey)
		return
	}
	if e := s.endedUnheard(now, from, resp); e != nil {
		s.sendAccepted(from, e.serverKey)
		s.sendControl(from, e.seal, disconnectCopies, func(b []byte) ([]byte, error) { return wire.AppendDisconnect(b, &e.bye) })
		return
	}
	if _, used := s.usedTags[resp.Challenge.Tag]; used {
		s.deny(from, wire.DenyChallenge)
		return
	}
	if resp.Version != wire.ProtocolVersion {
		s.deny(from, wire.DenyVersion)
		return
	}
	if !s.admits(player, now) {
		s.deny(from, wire.DenyServerFull)
		return
	}
	// The expensive step, for an address that proved itself: it has the global budget. Over
	// it, no answer: the client sends its response again, and the challenge stays valid.
	if !s.budgets.takeExchange(now) {
		s.rejected.ThrottledGlobal++
		return
	}
	// Our half of the key exchange: a fresh key pair for this connection alone.
	kp := newKeyPair(s.cfg.Rand)
	keys, err := kp.connKeys(from, &resp.PublicKey, false)
	if err != nil {
		s.deny(from, wire.DenyBadRequest)
		return
	}
	s.usedTags[resp.Challenge.Tag] = issued.Add(s.cfg.ChallengeTTL)
	if old := s.byAddr[from]; old != nil {
		s.drop(old, now, wire.DisconnectReplaced, "a new connection from the same address", true)
	}
	p := &Peer{debug: s.cfg.DebugViews, addr: from, seal: s.connected(keys), player: player, name: resp.Name, role: resp.Role, connectedAt: now, lastRecv: now, nextPing: now,
		tag: resp.Challenge.Tag, clientKey: resp.PublicKey, serverKey: kp.public}
	mc := s.cfg.Message
	mc.Frame = p.seal
	p.conn = message.New(mc, func(m *message.Message) {
		if s.cfg.OnMessage != nil {
			s.cfg.OnMessage(p, s.now, m)
		}
	})
	s.byAddr[from] = p
	s.peers = append(s.peers, p)
	s.counters.accepted++
	s.sendAccepted(p.addr, p.serverKey)
	p.acceptedAgain = now.Add(acceptedRepeat)
	s.cfg.Logger.Info("client connected", "peer", p.String())
	if s.cfg.OnConnect != nil {
		s.cfg.OnConnect(p, now)
	}
}

// acceptedRepeat: until the first sealed datagram of a new connection's client arrives, the
// server sends its Accepted again this often, as often as a client repeats its response
// (ClientConfig.Retry's default). The client is connected only once an Accepted reaches it;
// answering each response alone, a lost Accepted cost a whole round trip of the client's, and
// at the class's 30% preset on every process (51% lost each way) a response and its answer both
// crossed one try in four: with the request and its challenge as hard, 5% of the clients there
// gave up after a connect timeout of 5 s (TestJoinsAtClassLoss). The address proved itself with
// the challenge, and the repeats end with the connection's timeout: at most 20 datagrams of
// about 40 bytes.
const acceptedRepeat = 250 * time.Millisecond

func (s *Server) sendAccepted(to netip.AddrPort, key wire.PublicKey) {
	acc := wire.Accepted{PublicKey: key}
	s.sendControl(to, nil, 1, func(b []byte) ([]byte, error) { return wire.AppendAccepted(b, &acc) })
}

// endedUnheard finds the connection that resp asked for, if it ended lately without a word
// from its client (endedConn).
func (s *Server) endedUnheard(now time.Time, from netip.AddrPort, resp wire.ChallengeResponse) *endedConn {
	for i := range s.recent {
		e := &s.recent[i]
		if e.unheard && e.addr == from && now.Before(e.until) && e.tag == resp.Challenge.Tag && e.clientKey == resp.PublicKey {
			return e
		}
	}
	return nil
}

// admits reports whether player may connect now: it needs a free connection and the owner's
// Admit, whether or not a connection with its player id is open (ServerConfig.Admit). It
// changes nothing: a connection request asks it too, and a request must create no state.
func (s *Server) admits(player uuid.UUID, now time.Time) bool {
	if len(s.peers) >= s.cfg.MaxClients {
		return false
	}
	return s.cfg.Admit == nil || s.cfg.Admit(player, now)
}

// checkConn closes a connection whose message layer failed (an unexecuted dependency expired,
// a message passed the resend limit): the reason reaches both sides.
func (s *Server) checkConn(p *Peer, now time.Time) {
	if err := p.conn.Err(); err != nil && !p.gone {
		s.drop(p, now, wire.DisconnectError, err.Error(), true)
	}
}

// drop ends a connection: tells the peer (several times: a disconnect is not acknowledged)
// and frees the address.
func (s *Server) drop(p *Peer, now time.Time, reason wire.DisconnectReason, text string, notify bool) {
	if p.gone {
		return
	}
	msg := wire.Disconnect{Reason: reason, Text: wire.FitReasonText(text)}
	if notify {
		s.sendControl(p.addr, p.seal, disconnectCopies, func(b []byte) ([]byte, error) { return wire.AppendDisconnect(b, &msg) })
	}
	p.gone, p.reason, p.text = true, reason, text
	s.ended.Add(p.stats(false))
	e := endedConn{addr: p.addr, recv: p.seal.recv, next: p.seal.seen.next, until: now.Add(s.cfg.Timeout)}
	if notify {
		e.seal, e.bye = p.seal, msg
		if e.next == 0 {
			e.unheard, e.tag, e.clientKey, e.serverKey = true, p.tag, p.clientKey, p.serverKey
		}
	}
	s.recent[s.recentNext] = e
	s.recentNext = (s.recentNext + 1) % len(s.recent)
	delete(s.byAddr, p.addr)
	s.peers = slices.DeleteFunc(s.peers, func(q *Peer) bool { return q == p })
	if reason == wire.DisconnectTimeout {
		s.counters.timeouts++
	}
	s.cfg.Logger.Info("client disconnected", "peer", p.String(), "reason", reason.String(), "text", text)
	if s.cfg.OnDisconnect != nil {
		s.cfg.OnDisconnect(p, now, reason, text)
	}
}

// Kick disconnects a client with DisconnectKicked and the given reason text.
func (s *Server) Kick(p *Peer, now time.Time, text string) {
	s.drop(p, now, wire.DisconnectKicked, text, true)
}

// Drop disconnects a client with the given reason and text: DisconnectReplaced when the owner
// lets a newer connection of the same player take its place (ServerConfig.Admit). Like every
// end of a connection it calls OnDisconnect. Owner loop only.
func (s *Server) Drop(p *Peer, now time.Time, reason wire.DisconnectReason, text string) {
	s.drop(p, now, reason, text, true)
}

// Flush sends now what every connection has queued, in as many packets as that takes, as the
// next Tick would: a session that wants the messages it has sent so far to leave in packets of
// their own, apart from those it sends next, calls it between the two. Owner loop only.
func (s *Server) Flush(now time.Time) {
	for _, p := range s.peers {
		s.pump(p, now)
		s.looked(p, now)
	}
}

// Tick does what time makes due (owner loop only): timeouts, resends, keepalives, pings,
// expiry of used challenges, and the stats snapshot.
func (s *Server) Tick(now time.Time) {
	if s.closed {
		return
	}
	s.now = now
	// A copy of the list, since drop removes from it; kept, so that a Tick allocates nothing.
	s.ticking = append(s.ticking[:0], s.peers...)
	for _, p := range s.ticking {
		if !s.due(p, now) {
			continue
		}
		if now.Sub(p.lastRecv) > s.cfg.Timeout {
			s.drop(p, now, wire.DisconnectTimeout, fmt.Sprintf("nothing heard for %v", now.Sub(p.lastRecv).Round(time.Millisecond)), true)
			continue
		}
		if p.unheard() && !now.Before(p.acceptedAgain) {
			s.sendAccepted(p.addr, p.serverKey)
			p.acceptedAgain = now.Add(acceptedRepeat)
		}
		p.conn.Poll(now)
		s.checkConn(p, now)
		s.pump(p, now)
		s.checkConn(p, now)
		s.looked(p, now)
	}
	// Forget the copy's pointers: a peer that has left would otherwise stay reachable from
	// the backing array, and with it its connection's tables, until its slot is overwritten.
	clear(s.ticking)
	for tag, exp := range s.usedTags {
		if now.After(exp) {
			delete(s.usedTags, tag)
		}
	}
	if now.Sub(s.published) >= 100*time.Millisecond {
		s.publish(now)
	}
}

func (s *Server) publish(now time.Time) {
	st := &ServerStats{
		At: now, Requests: s.counters.requests, Challenges: s.counters.challenges, Accepted: s.counters.accepted,
		Denied: s.counters.denied, Timeouts: s.counters.timeouts, SendErrors: s.sendErrs.Load(), Ended: s.ended,
	}
	st.Rejected = s.rejections()
	st.Rejected.addPeer(s.ended)
	for _, p := range s.peers {
		pk := p.conn.Stats().Packet
		p.rates.update(now, pk.PacketsReceived, pk.PacketsSent, pk.BytesReceived, pk.BytesSent)
		ps := p.snapshot()
		st.Peers = append(st.Peers, ps)
		var t PeerTotals
		t.Add(ps)
		st.Rejected.addPeer(t)
	}
	s.stats.Store(st)
	s.published = now
	s.rejects.update(s.cfg.Logger, now, st.Rejected, s.closed)
}

// StatsNow publishes a snapshot of this moment (the latest Handle or Tick) and returns it, for
// a report at exit. Owner loop only.
func (s *Server) StatsNow() ServerStats {
	s.publish(s.now)
	return s.Stats()
}

// NextTick is when Tick next has work if no datagram arrives.
func (s *Server) NextTick(now time.Time) time.Time {
	next := now.Add(time.Second)
	for _, p := range s.peers {
		if s.due(p, now) {
			return now
		}
		next = Earliest(next, p.wake)
	}
	return Earliest(next, s.published.Add(100*time.Millisecond))
}

// looked notes when p next needs Tick, now that the server has handled what it had (Tick, or
// a datagram of its): the cost of a connection's nextWake is paid once per change, not once per
// connection on every Tick of a server with hundreds.
func (s *Server) looked(p *Peer, now time.Time) {
	if !p.gone {
		p.wake, p.queued = s.nextWake(p, now), p.conn.Queued()
		if p.unheard() {
			p.wake = Earliest(p.wake, p.acceptedAgain)
		}
	}
}

// due reports whether Tick has work for p: its wake came (a timeout, a ping, a resend, an
// ack, an expiry), or its owner queued a message on it since the server last looked.
func (s *Server) due(p *Peer, now time.Time) bool {
	return !now.Before(p.wake) || p.conn.Queued() != p.queued
}

// Shutdown tells every client the server is shutting down and stops the server: it handles
// nothing more. Owner loop only.
func (s *Server) Shutdown(now time.Time) {
	if s.closed {
		return
	}
	s.now = now
	for _, p := range slices.Clone(s.peers) {
		s.drop(p, now, wire.DisconnectShutdown, "server shutting down", true)
	}
	s.closed = true
	s.publish(now)
}

// Close is Shutdown now, then closes the server's own socket (Listen, Serve) and waits for its
// reader goroutine to stop. Call it from the owner loop, or after the loop has returned.
func (s *Server) Close() error {
	s.Shutdown(time.Now())
	if s.sock == nil {
		return nil
	}
	return s.sock.Close()
}
