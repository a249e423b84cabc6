package game

import (
	"io"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// Direct links: client-server and peer-to-peer at once. The server hosts the game and relays commands, but a
// command relayed by the server travels two hops. So each client also takes direct
// connections from the other clients, tells the server that it does (an empty Peers, client →
// server), learns where the others are (Peers, server → client: the addresses the server sees
// their connections come from, identity.go), and the client with the higher seat dials the
// one with the lower. Commands then go straight to every directly connected player as well
// as to the server; every host takes a command once, whichever path brought it first, and
// validates it the same way (a player commands only its own units).
//
// The point of the links is that the server need not relay (its bytes are the class's
// bytes too): a command says which players it went to directly (Command.Direct), and the
// server relays it to the rest only. A link is a guaranteed connection, so only its end can
// lose a command, and the server must then hear of it: a link that is quiet for linkQuiet,
// whose oldest command goes unacknowledged for stallAfter, or that ends, is told to the server
// in a LinkLost (p2p_server.go, linkLost), and carries no command until it is healthy again.
//
// A client has one socket for all of it. Its direct links are transport endpoints without a
// socket of their own that write through the client's writer: a transport.Server that accepts
// the players with a higher seat, and a transport.Client per lower seat. A datagram is handed
// to the one its source address belongs to: the server's address to the server connection, a
// dialled player's address to that dial, anything else to the acceptor (whose handshake
// refuses strangers, and which admits only the players of this game).
//
// A player id is public, so the acceptor's admission proves nothing about who dialled. Each
// side of a new connection sends the other a Challenge and answers the other's with a Proof
// under the key the server gave the pair (identity.go). Until the other side has proved, the
// connection is no link: it carries no command, and a player who dialled as somebody else
// stands beside the real link without touching it. One that has not proved within
// linkProofDeadline, or proved wrong, is dropped and counted (direct_refused).

// p2p holds a client's direct links, indexed by seat.
type p2p struct {
	acceptor *transport.Server
	dials    [world.MaxPlayers]*transport.Client // our connection to a lower seat's player
	links    [world.MaxPlayers]*transport.Peer   // a connected direct link (either direction)
	outs     [world.MaxPlayers]outbox            // each link's back-pressure (send.go)
	known    [world.MaxPlayers]PeerAddr          // where each player is, and our key with it, as the server said (zero: not listed)
	dialed   [world.MaxPlayers]PeerAddr          // what each dial was made for
	// conns is every direct connection, proved or not (links holds the proved ones). Its size
	// is bounded by the acceptor's MaxClients and the dials.
	conns []*linkConn
	// silent: the dial to known[s] ended without a word from that address, so it is not tried
	// again until the server lists the seat anew (identity.go: nothing bulky to an address
	// that never answered).
	silent [world.MaxPlayers]bool
	// redialAt is when a dial that ended (refused, timed out, closed) is tried again, and
	// backoff the wait before that try: it doubles from a second up to maxRedialBackoff.
	redialAt [world.MaxPlayers]time.Time
	backoff  [world.MaxPlayers]time.Duration
	told     bool // our address went to the server
	// quiet[s]: the link with seat s has been quiet for linkQuiet, and the server was told
	// (LinkLost); cleared when it is heard again.
	quiet [world.MaxPlayers]bool
	// sent[s] are the commands sent over seat s's link and not yet seen acknowledged, oldest
	// first (at most maxWatchedSends); stalled[s]: the oldest went unacknowledged for
	// stallAfter, and the server was told (LinkLost). Cleared when every one is acknowledged.
	sent    [world.MaxPlayers][]directSend
	stalled [world.MaxPlayers]bool
	// cmdRate: each seat's commands over its link, held to the rate the server holds the seat
	// to (commands.go).
	cmdRate [world.MaxPlayers]rateBucket
	out     transport.Writer // the client's one socket
	cfg     transport.Config // for the dials
}

// openP2P makes the acceptor for direct links; dials come when the server says where the
// lower seats are.
func (c *Client) openP2P(out transport.Writer) {
	// A connection per other player, and room for the ones still to prove themselves, one
	// more than their bound so that a new one can push the oldest out.
	cfg := transport.ServerConfig{MaxClients: world.MaxPlayers + maxUnprovedLinks + 1}
	cfg.Rand = c.cfg.Transport.Rand
	cfg.KeyLog = c.cfg.Transport.KeyLog
	cfg.Logger = c.cfg.Logger
	cfg.Admit = c.admitsDirect
	cfg.OnConnect = c.onDirectConnect
	cfg.OnDisconnect = c.onDirectDisconnect
	cfg.OnMessage = c.onDirect
	// A direct link carries a player's commands, and its round trip only sets their resend
	// delay: while commands flow, their acks measure it, and the pings would be two more
	// datagrams a second each way on each of seven links. An idle link pings as any does.
	cfg.PingIdleOnly = true
	c.p2p = &p2p{acceptor: transport.NewServer(cfg, out), out: out, cfg: cfg.Config}
}

// handle gives a datagram that did not come from the server to the direct link it belongs to.
func (p *p2p) handle(now time.Time, d transport.Datagram) {
	for _, dl := range p.dials {
		if dl != nil && dl.Server() == d.From {
			dl.Handle(now, d)
			return
		}
	}
	p.acceptor.Handle(now, d)
}

func (c *Client) closeP2P(now time.Time) {
	if c.p2p == nil {
		return
	}
	c.p2p.acceptor.Shutdown(now)
	for _, d := range c.p2p.dials {
		if d != nil {
			d.Shutdown(now)
		}
	}
}

// tellServer tells the server, once our seat is known, that we take direct links: an empty
// Peers. Where, the server sees: the address our connection comes from, our one socket.
func (c *Client) tellServer(now time.Time) {
	if c.p2p == nil || c.p2p.told || c.tr.Peer() == nil {
		return
	}
	c.p2p.told = true
	c.send(now, &Peers{})
}

// peers: where the other players are, as the server saw them. Dial the ones with a lower
// seat; forget the ones no longer listed (they left).
func (c *Client) peers(now time.Time, ps *Peers) {
	if c.p2p == nil {
		return
	}
	var listed [world.MaxPlayers]bool
	for _, pa := range ps.List {
		if pa.Seat == c.role.seat || pa.Addr == c.tr.Server() {
			continue
		}
		listed[pa.Seat] = true
		if c.p2p.known[pa.Seat] != pa {
			c.p2p.known[pa.Seat], c.p2p.silent[pa.Seat] = pa, false
		}
	}
	for s := range c.p2p.known {
		if !listed[s] && c.p2p.known[s].Addr.IsValid() {
			c.p2p.known[s], c.p2p.silent[s] = PeerAddr{}, false
			if d := c.p2p.dials[s]; d != nil {
				d.Shutdown(now)
				c.dropLink(uint8(s), nil)
				c.p2p.dials[s] = nil
			}
		}
	}
	c.dialLower(now)
}

// dialLower dials each player with a lower seat whose address is known and not yet dialled
// (or dialled at an older address). It runs when the server says where players are and when
// this client learns its own seat: the two messages may arrive in either order.
func (c *Client) dialLower(now time.Time) {
	if c.p2p == nil || c.role.kind != rolePlayer {
		return
	}
	for s := range c.role.seat {
		if !c.p2p.known[s].Addr.IsValid() || (c.p2p.dials[s] != nil && c.p2p.dialed[s] == c.p2p.known[s]) {
			continue
		}
		c.p2p.backoff[s] = 0
		c.dial(now, s)
	}
}

// maxRedialBackoff bounds the wait between two tries of a direct link that keeps failing.
const maxRedialBackoff = 8 * time.Second

// A dial sends a connection request (1200 bytes, padded so that the other side can never be
// an amplifier) every directRetry until it is answered, for at most directConnectTimeout:
// five requests to an address that never answers, and that address is not dialled again
// until the server lists it anew.
const (
	directRetry          = time.Second
	directConnectTimeout = 4 * time.Second
)

// dial opens (or opens again) the direct link to seat, at the address the server gave.
func (c *Client) dial(now time.Time, seat uint8) {
	if old := c.p2p.dials[seat]; old != nil {
		old.Shutdown(now)
		c.dropLink(seat, nil)
		c.p2p.dials[seat] = nil
	}
	c.p2p.redialAt[seat] = time.Time{}
	cfg := transport.ClientConfig{Config: c.p2p.cfg, Name: c.cfg.Name, PlayerID: c.cfg.PlayerID,
		Retry: directRetry, ConnectTimeout: directConnectTimeout}
	cfg.OnConnect = func(p *transport.Peer, now time.Time) { c.startProof(now, p, seat, true) }
	cfg.OnDisconnect = c.onDirectDisconnect
	cfg.OnMessage = c.onDirect
	d, err := transport.NewClient(c.p2p.known[seat].Addr, cfg, c.p2p.out)
	if err != nil {
		c.cfg.Logger.Warn("direct link", "seat", seat, "err", err)
		return
	}
	c.p2p.dials[seat], c.p2p.dialed[seat] = d, c.p2p.known[seat]
}

// redial tries again, after a growing wait, each dial that ended: the other player may have
// refused it because it had not yet heard of us from the server, or the handshake may have
// been lost on a lossy link. A dial that no answer ever came to is not tried again: the
// address is silent until the server lists it anew. The server relays the commands of a player
// without a link, so a missing direct link only costs time.
func (c *Client) redial(now time.Time) {
	for s, d := range c.p2p.dials {
		if d == nil || d.State() != transport.Disconnected || !c.p2p.known[s].Addr.IsValid() || c.p2p.silent[s] {
			continue
		}
		if !d.Answered() {
			c.p2p.silent[s] = true
			c.stats.DirectSilent++
			continue
		}
		switch {
		case c.p2p.redialAt[s].IsZero():
			b := min(max(2*c.p2p.backoff[s], time.Second), maxRedialBackoff)
			c.p2p.backoff[s] = b
			c.p2p.redialAt[s] = now.Add(b)
		case !now.Before(c.p2p.redialAt[s]):
			c.stats.DirectRedials++
			c.dial(now, uint8(s))
		}
	}
}

// dropLink forgets seat's direct link if it is p (nil: whatever it is).
func (c *Client) dropLink(seat uint8, p *transport.Peer) {
	if q := c.p2p.links[seat]; q != nil && (p == nil || q == p) {
		c.p2p.links[seat] = nil
		c.p2p.outs[seat].reset()
	}
}

// seatOfPlayer finds the seat of a player id among the known players.
func (c *Client) seatOfPlayer(id uuid.UUID) (uint8, bool) {
	for i, pi := range c.players {
		if pi.Name != "" && uuid.UUID(pi.Player) == id {
			return uint8(i), true
		}
	}
	return 0, false
}

// admitsDirect is the acceptor's Admit: only a player of this game with a higher seat, whose
// key the server gave us, dials us. Anybody else is refused in the handshake, before it has a
// connection. Whoever passes still has to prove the key (startProof).
func (c *Client) admitsDirect(player uuid.UUID, _ time.Time) bool {
	s, ok := c.seatOfPlayer(player)
	return ok && s > c.role.seat && c.p2p.known[s].Addr.IsValid()
}

func (c *Client) onDirectConnect(p *transport.Peer, now time.Time) {
	s, ok := c.seatOfPlayer(p.PlayerID())
	if !ok || s <= c.role.seat || !c.p2p.known[s].Addr.IsValid() {
		// Admitted at its request, but the seats changed since: it should not dial us.
		c.p2p.acceptor.Kick(p, now, "not a player of this game")
		return
	}
	c.startProof(now, p, s, false)
}

func (c *Client) onDirectDisconnect(p *transport.Peer, now time.Time, _ wire.DisconnectReason, _ string) {
	for s := range c.p2p.links {
		c.dropLink(uint8(s), p)
	}
	if lc := c.linkConnOf(p); lc != nil {
		c.forgetLinkConn(now, lc)
	}
}

// The proof of a direct link (identity.go).

// linkProofDeadline is how long a new direct connection has to prove the pair's key;
// maxUnprovedLinks bounds the accepted connections that have not yet.
const (
	linkProofDeadline = 3 * time.Second
	maxUnprovedLinks  = 4
)

// linkConn is one direct connection: the seat it says it is, what we asked it, and how far
// the proofs went.
type linkConn struct {
	peer     *transport.Peer
	seat     uint8
	dialled  bool // we dialled it (else our acceptor took it)
	nonce    Nonce
	deadline time.Time
	proved   bool // it proved the key: the link counts
	answered bool // we answered its Challenge (once per connection)
	// held are the commands that came before it proved the key: the other side may have
	// taken our proof first and sent at once, and the server did not relay those to us. They
	// run once it proves (at most maxHeldCommands), and count as bad messages if it never
	// does (then the link is lost, and LinkLost has the server send them).
	held []*Command
}

// maxHeldCommands bounds the commands a direct connection may bring before it proved the
// key. An honest player sends a few in the round trip of the proofs; more are refused and
// counted as bad messages (a drift they leave, the hashes find and repair).
const maxHeldCommands = 64

// startProof begins the proofs of a new direct connection with seat: our Challenge goes out,
// and the connection carries nothing else until the other side has answered it.
func (c *Client) startProof(now time.Time, p *transport.Peer, seat uint8, dialled bool) {
	lc := &linkConn{peer: p, seat: seat, dialled: dialled, deadline: now.Add(linkProofDeadline)}
	if _, err := io.ReadFull(c.cfg.Transport.Rand, lc.nonce[:]); err != nil {
		c.cfg.Logger.Error("direct link: no randomness for a nonce", "err", err)
		c.endLinkConn(now, lc, "no randomness")
		return
	}
	c.p2p.conns = append(c.p2p.conns, lc)
	if !dialled {
		// Too many accepted connections waiting to prove: the oldest from the same IP goes, or
		// else the oldest, so that one source cannot keep a real player's link out.
		var waiting []*linkConn
		for _, o := range c.p2p.conns {
			if !o.dialled && !o.proved {
				waiting = append(waiting, o)
			}
		}
		if len(waiting) > maxUnprovedLinks {
			out := toPushOut(waiting[:len(waiting)-1], p, func(lc *linkConn) *transport.Peer { return lc.peer })
			c.refuseLink(now, out, "too many direct connections waiting to prove themselves")
		}
	}
	sendFirst(lc.peer.Conn(), now, &Challenge{Nonce: lc.nonce}, &c.stats.SendsRefused)
}

// linkConnOf is the direct connection p, or nil.
func (c *Client) linkConnOf(p *transport.Peer) *linkConn {
	for _, lc := range c.p2p.conns {
		if lc.peer == p {
			return lc
		}
	}
	return nil
}

// linkProved: the other side of lc proved the pair's key. It becomes seat's link, in place of
// an older one, which ends.
func (c *Client) linkProved(now time.Time, lc *linkConn) {
	lc.proved = true
	s := lc.seat
	if old := c.p2p.links[s]; old != nil && old != lc.peer {
		if olc := c.linkConnOf(old); olc != nil {
			c.endLinkConn(now, olc, "replaced by a newer link")
		}
		c.dropLink(s, old)
	}
	c.p2p.links[s] = lc.peer
	c.p2p.outs[s].reset()
	c.p2p.quiet[s], c.p2p.stalled[s], c.p2p.sent[s] = false, false, c.p2p.sent[s][:0]
	c.p2p.backoff[s] = 0
	c.stats.DirectLinks++
	for _, v := range lc.held {
		c.directCommand(now, v)
	}
	lc.held = nil
}

// directCommand schedules a command that came over a proved direct link from its player. The
// link is held to what the server holds that seat to (commands.go): a command for a frame
// after the lead and the re-run window from the frame the game should be at, or over the
// seat's rate, is a bad message and runs nowhere here (an honest player sends neither; one who
// does makes its own units here drift, until the hashes repair them). So is one that does not
// name this seat among those it went to directly (Command.Direct), as an honest player's
// always does: the server relays it here too, and were it to refuse it, it would count it in
// this host's digest only when Direct says it came here (refusedRan). A late one is run as
// any late event is: it runs at once, and is kept no longer.
func (c *Client) directCommand(now time.Time, v *Command) {
	if v.Direct&(1<<c.role.seat) == 0 {
		c.stats.BadMessages++
		return
	}
	if c.w != nil {
		_, last := commandFrames(max(c.w.Frame(), c.target(now)), c.lead.latestFrames(), c.drift.rw.windowFrames())
		if v.Frame > last {
			c.stats.BadMessages++
			return
		}
	}
	if !c.p2p.cmdRate[v.Seat].takeN(now, serverCommands, commandTokens(v)) {
		c.stats.BadMessages++
		return
	}
	if c.schedule(event{frame: v.Frame, kind: evCommand, seat: v.Seat, id: v.ID, cmd: v}) {
		c.stats.CommandsDirectFirst++
	}
}

// forgetLinkConn removes a direct connection that ended. If it was a link (it proved the
// key), the commands its player sent over it and we never got were not relayed to us either
// (Command.Direct), so the server is told (LinkLost): it sends that player's recent commands
// again, and relays the next ones. One that never proved tells nothing: anybody can dial as a
// player, and its end must not spend our LinkLosts; what the real player sent over it before
// we refused it, that player's own end of the connection reports when it ends.
func (c *Client) forgetLinkConn(now time.Time, lc *linkConn) {
	n := len(c.p2p.conns)
	c.p2p.conns = slices.DeleteFunc(c.p2p.conns, func(o *linkConn) bool { return o == lc })
	if len(c.p2p.conns) == n || !lc.proved {
		return // already forgotten, or never a link
	}
	c.stats.DirectLost++
	c.send(now, &LinkLost{Seat: lc.seat, Why: LinkEnded})
}

// refuseLink ends a direct connection that did not prove the pair's key, and counts it.
func (c *Client) refuseLink(now time.Time, lc *linkConn, why string) {
	c.stats.DirectRefused++
	c.stats.BadMessages += uint64(len(lc.held))
	c.cfg.Logger.Warn("direct link refused", "seat", lc.seat, "addr", lc.peer.Addr(), "why", why)
	c.endLinkConn(now, lc, why)
}

// endLinkConn ends a direct connection: our dial disconnects (and is dialled again later), an
// accepted one is kicked.
func (c *Client) endLinkConn(now time.Time, lc *linkConn, why string) {
	c.forgetLinkConn(now, lc)
	c.dropLink(lc.seat, lc.peer)
	if !lc.dialled {
		c.p2p.acceptor.Kick(lc.peer, now, why)
		return
	}
	for _, d := range c.p2p.dials {
		if d != nil && d.Peer() == lc.peer {
			d.Disconnect(now, why)
		}
	}
}

// expireLinkProofs refuses the direct connections whose deadline to prove passed.
func (c *Client) expireLinkProofs(now time.Time) {
	for _, lc := range slices.Clone(c.p2p.conns) {
		if !lc.proved && !now.Before(lc.deadline) {
			c.refuseLink(now, lc, "no proof of the link's key within "+linkProofDeadline.String())
		}
	}
}

// onDirect: a message on a direct connection. Its Challenge and Proof, and once it proved
// the pair's key, the commands of its player, nothing else.
func (c *Client) onDirect(p *transport.Peer, now time.Time, m *message.Message) {
	lc := c.linkConnOf(p)
	if !p.Connected() || lc == nil {
		return
	}
	msg, err := ParseMsg(m.Payload)
	if err != nil {
		c.stats.BadMessages++
		return
	}
	key := c.p2p.known[lc.seat].Key
	switch v := msg.(type) {
	case *Challenge:
		if lc.answered || !c.p2p.known[lc.seat].Addr.IsValid() {
			c.stats.BadMessages++
			return
		}
		lc.answered = true
		sendFirst(lc.peer.Conn(), now, &Proof{MAC: linkMAC(key, c.role.seat, lc.seat, v.Nonce)}, &c.stats.SendsRefused)
	case *Proof:
		switch {
		case lc.proved:
			c.stats.BadMessages++
		case !c.p2p.known[lc.seat].Addr.IsValid() || !macEqual(v.MAC, linkMAC(key, lc.seat, c.role.seat, lc.nonce)):
			c.refuseLink(now, lc, "a wrong proof of the link's key")
		default:
			c.linkProved(now, lc)
		}
	case *Command:
		// The link's seat, as proved, not its peer's player id (on a link this client dialled,
		// the transport names the peer with our own id).
		switch {
		case !lc.proved && v.Seat == lc.seat:
			if len(lc.held) < maxHeldCommands {
				lc.held = append(lc.held, v)
			} else {
				c.stats.BadMessages++
			}
			return
		case !lc.proved || c.p2p.links[lc.seat] != p || v.Seat != lc.seat:
			c.stats.BadMessages++ // another player's command
			return
		}
		c.directCommand(now, v)
	default:
		c.stats.BadMessages++
	}
}

// directSeats are the seats a command issued now goes to over a direct link: every proved,
// connected link whose outbox has room (so that sendDirect cannot refuse it) and that is not
// quiet (linkQuiet: the other side may be gone, and the server's relay is the sure way). The
// command says so (Command.Direct), and the server does not relay it to them.
func (c *Client) directSeats(now time.Time) uint8 {
	var seats uint8
	if c.p2p == nil {
		return 0
	}
	for s, p := range c.p2p.links {
		if p != nil && p.Connected() && !c.p2p.outs[s].full() && now.Sub(p.LastHeard()) < linkQuiet && !c.p2p.stalled[s] {
			seats |= 1 << s
		}
	}
	return seats
}

// sendDirect sends the payload of our command id on the direct links of seats (directSeats),
// through each link's outbox. The server relays the command to every other client.
func (c *Client) sendDirect(now time.Time, id uint32, payload []byte, seats uint8) {
	if c.p2p == nil {
		return
	}
	for s, p := range c.p2p.links {
		if seats&(1<<s) == 0 || p == nil {
			continue
		}
		seq, went, err := c.p2p.outs[s].sendSeq(p.Conn(), now, payload, Guaranteed, nil, nil)
		switch {
		case err != nil:
			// directSeats saw room; nothing between the two calls takes it. Should it happen,
			// the command is missing at that seat until the hashes find the drift.
			c.stats.SendsRefused++
			c.cfg.Logger.Error("direct send refused after directSeats", "seat", s, "err", err)
		case went:
			w := c.p2p.sent[s]
			if len(w) == maxWatchedSends {
				w = append(w[:0], w[1:]...) // the oldest goes unwatched; the quiet still shows a dead link
			}
			c.p2p.sent[s] = append(w, directSend{seq: seq, id: id, at: now})
		}
	}
}

// linkQuiet is how long a direct link may go without a datagram before this client stops
// sending commands over it and tells the server (LinkLost), which then relays the other
// side's commands again. A live link carries pings every second each way and the acks of its
// commands, so 1.5 s of silence is three missed pings; the transport would wait 5 s to end
// it, and a command that late is past the 3 s a host can still run again exactly (resim.go).
const linkQuiet = 1500 * time.Millisecond

// directSend is a command sent over a direct link: its message's sequence number, the
// command's id, and when.
type directSend struct {
	seq uint16
	id  uint32
	at  time.Time
}

// maxWatchedSends bounds the commands watched per link.
const maxWatchedSends = 64

// stallAfter is how long a command may go unacknowledged on the direct link p before the link
// counts as stalled: the command lead time, at least 200 ms, and never less than the time the
// link's own resend of a lost command takes to be acknowledged (its resend delay and a round
// trip). The server is the other way to the player when the link fails, not a second copy of
// the link's resend: at 10% loss one command or ack in five is lost once, and a stall at the
// first resend delay sent each of them again through the server, where the resend was already
// on its way and came sooner than the server's copy would. An acknowledgement takes a whole
// round trip where the command took half: on a link slower than the lead (two students at
// 150 ms each way, F8) a command arrives in time and its ack after the lead, and a link that
// delivers is not stalled.
func (c *Client) stallAfter(p *transport.Peer) time.Duration {
	return max(time.Duration(c.lead.cur)*c.clock.frameDur, 200*time.Millisecond, p.Conn().ResendDelay()+p.Conn().SmoothedRTT())
}

// watchStall tells the server once when the oldest command sent over seat's link p went
// unacknowledged for stallAfter: the link may have died, with that command and the ones after
// it, which the server did not relay (LinkLost has it send them). The link carries no command
// until everything sent over it is acknowledged.
func (c *Client) watchStall(now time.Time, seat uint8, p *transport.Peer) {
	w := c.p2p.sent[seat]
	n := 0
	for n < len(w) && !p.Conn().Unacknowledged(w[n].seq) {
		n++
	}
	if n > 0 {
		w = append(w[:0], w[n:]...)
		c.p2p.sent[seat] = w
	}
	switch {
	case len(w) == 0:
		c.p2p.stalled[seat] = false
	case !c.p2p.stalled[seat] && now.Sub(w[0].at) >= c.stallAfter(p):
		c.p2p.stalled[seat] = true
		c.stats.DirectStalled++
		// The ones before w[0] were acknowledged, and none goes over the link after w's last
		// until all of w are: the server sends again and relays these alone.
		c.send(now, &LinkLost{Seat: seat, Why: LinkStalled, From: w[0].id, To: w[len(w)-1].id})
	}
}

// watchQuiet tells the server once when seat's link p falls quiet, and forgets it once the
// link is heard again.
func (c *Client) watchQuiet(now time.Time, seat uint8, p *transport.Peer) {
	switch quiet := now.Sub(p.LastHeard()) >= linkQuiet; {
	case quiet && !c.p2p.quiet[seat]:
		c.p2p.quiet[seat] = true
		c.stats.DirectQuiet++
		c.send(now, &LinkLost{Seat: seat, Why: LinkQuiet})
	case !quiet:
		c.p2p.quiet[seat] = false
	}
}

// tickP2P runs the direct links' timers and outboxes.
func (c *Client) tickP2P(now time.Time) {
	if c.p2p == nil {
		return
	}
	for s, p := range c.p2p.links {
		if p != nil && p.Connected() {
			c.p2p.outs[s].flush(p.Conn(), now)
			c.watchQuiet(now, uint8(s), p)
			c.watchStall(now, uint8(s), p)
		}
	}
	c.expireLinkProofs(now)
	c.p2p.acceptor.Tick(now)
	for _, d := range c.p2p.dials {
		if d != nil {
			d.Tick(now)
		}
	}
	c.redial(now)
}

// nextP2P is when the direct links next need a Tick (zero: never).
func (c *Client) nextP2P(now time.Time) time.Time {
	if c.p2p == nil {
		return time.Time{}
	}
	next := c.p2p.acceptor.NextTick(now)
	for _, lc := range c.p2p.conns {
		if !lc.proved {
			next = transport.Earliest(next, lc.deadline)
		}
	}
	for s, p := range c.p2p.links {
		if p != nil && p.Connected() && !c.p2p.quiet[s] {
			next = transport.Earliest(next, p.LastHeard().Add(linkQuiet))
		}
		if w := c.p2p.sent[s]; p != nil && len(w) > 0 && !c.p2p.stalled[s] {
			next = transport.Earliest(next, w[0].at.Add(c.stallAfter(p)))
		}
	}
	for s, d := range c.p2p.dials {
		if d != nil {
			next = transport.Earliest(next, d.NextTick(now))
			if d.State() == transport.Disconnected && c.p2p.known[s].Addr.IsValid() && !c.p2p.silent[s] {
				at := c.p2p.redialAt[s]
				if at.IsZero() {
					at = now // redial sets the time
				}
				next = transport.Earliest(next, at)
			}
		}
	}
	return next
}
