package game

import (
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// Peer-to-peer (seed 002's hybrid). The server hosts the game and relays every command, but a
// command relayed by the server travels two hops. So each client also takes direct
// connections from the other clients, tells the server where (Peers, client → server), learns
// where the others are (Peers, server → client), and the client with the higher seat dials
// the one with the lower. Commands then go straight to every directly connected player as well
// as to the server; every host takes a command once, whichever path brought it first, and
// validates it the same way (a player commands only its own units).
//
// A client has one socket for all of it. Its direct links are transport endpoints without a
// socket of their own that write through the client's writer: a transport.Server that accepts
// the players with a higher seat, and a transport.Client per lower seat. A datagram is handed
// to the one its source address belongs to: the server's address to the server connection, a
// dialled player's address to that dial, anything else to the acceptor (whose handshake
// refuses strangers, and which admits only the players of this game).

// p2p holds a client's direct links, indexed by seat.
type p2p struct {
	acceptor *transport.Server
	addr     netip.AddrPort                      // where the others reach us (our socket)
	dials    [world.MaxPlayers]*transport.Client // our connection to a lower seat's player
	links    [world.MaxPlayers]*transport.Peer   // a connected direct link (either direction)
	outs     [world.MaxPlayers]outbox            // each link's back-pressure (outbox.go)
	known    [world.MaxPlayers]netip.AddrPort    // where each player is, as the server said
	// redialAt is when a dial that ended (refused, timed out, closed) is tried again, and
	// backoff the wait before that try: it doubles from a second up to maxRedialBackoff.
	redialAt [world.MaxPlayers]time.Time
	backoff  [world.MaxPlayers]time.Duration
	told     bool             // our address went to the server
	out      transport.Writer // the client's one socket
	cfg      transport.Config // for the dials
}

// openP2P makes the acceptor for direct links; dials come when the server says where the
// lower seats are.
func (c *Client) openP2P(out transport.Writer, local netip.AddrPort) {
	cfg := transport.ServerConfig{MaxClients: world.MaxPlayers}
	cfg.Rand = c.cfg.Transport.Rand
	cfg.KeyLog = c.cfg.Transport.KeyLog
	cfg.Logger = c.cfg.Logger
	cfg.Admit = c.admitsDirect
	cfg.OnConnect = c.onDirectConnect
	cfg.OnDisconnect = c.onDirectDisconnect
	cfg.OnMessage = c.onDirect
	c.p2p = &p2p{acceptor: transport.NewServer(cfg, out), addr: local, out: out, cfg: cfg.Config}
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

// tellServer sends the server our address for direct links once our seat is known.
func (c *Client) tellServer(now time.Time) {
	if c.p2p == nil || c.p2p.told || c.tr.Peer() == nil || !c.p2p.addr.IsValid() {
		return
	}
	c.p2p.told = true
	c.sendGuaranteed(now, &Peers{List: []PeerAddr{{Seat: c.seat, Addr: c.p2p.addr}}}, nil)
}

// peers: where the other players are. Dial the ones with a lower seat.
func (c *Client) peers(now time.Time, ps *Peers) {
	if c.p2p == nil {
		return
	}
	for _, pa := range ps.List {
		if pa.Addr != c.tr.Server() {
			c.p2p.known[pa.Seat] = pa.Addr
		}
	}
	c.dialLower(now)
}

// dialLower dials each player with a lower seat whose address is known and not yet dialled
// (or dialled at an older address). It runs when the server says where players are and when
// this client learns its own seat: the two messages may arrive in either order.
func (c *Client) dialLower(now time.Time) {
	if c.p2p == nil || !c.seatKnown {
		return
	}
	for s := range c.seat {
		addr := c.p2p.known[s]
		if !addr.IsValid() || (c.p2p.dials[s] != nil && c.p2p.dials[s].Server() == addr) {
			continue
		}
		c.p2p.backoff[s] = 0
		c.dial(now, s)
	}
}

// maxRedialBackoff bounds the wait between two tries of a direct link that keeps failing.
const maxRedialBackoff = 8 * time.Second

// dial opens (or opens again) the direct link to seat, at the address the server gave.
func (c *Client) dial(now time.Time, seat uint8) {
	if old := c.p2p.dials[seat]; old != nil {
		old.Shutdown(now)
		c.dropLink(seat, nil)
		c.p2p.dials[seat] = nil
	}
	c.p2p.redialAt[seat] = time.Time{}
	cfg := transport.ClientConfig{Config: c.p2p.cfg, Name: c.cfg.Name, PlayerID: c.cfg.PlayerID}
	cfg.OnConnect = func(p *transport.Peer, _ time.Time) {
		c.p2p.links[seat] = p
		c.p2p.backoff[seat] = 0
		c.stats.DirectLinks++
	}
	cfg.OnDisconnect = func(p *transport.Peer, _ time.Time, _ wire.DisconnectReason, _ string) { c.dropLink(seat, p) }
	cfg.OnMessage = c.onDirect
	d, err := transport.NewClient(c.p2p.known[seat], cfg, c.p2p.out)
	if err != nil {
		c.cfg.Logger.Warn("direct link", "seat", seat, "err", err)
		return
	}
	c.p2p.dials[seat] = d
}

// redial tries again, after a growing wait, each dial that ended: the other player may have
// refused it because it had not yet heard of us from the server, or the handshake may have
// been lost on a lossy link. The server relays every command anyway, so a missing direct link
// only costs time.
func (c *Client) redial(now time.Time) {
	for s, d := range c.p2p.dials {
		if d == nil || d.State() != transport.Disconnected || !c.p2p.known[s].IsValid() {
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

// admitsDirect is the acceptor's Admit: only a player of this game with a higher seat dials
// us. Anybody else is refused in the handshake, before it has a connection.
func (c *Client) admitsDirect(player uuid.UUID, _ time.Time) bool {
	s, ok := c.seatOfPlayer(player)
	return ok && s > c.seat
}

func (c *Client) onDirectConnect(p *transport.Peer, now time.Time) {
	s, ok := c.seatOfPlayer(p.PlayerID())
	if !ok || s <= c.seat {
		// Admitted at its request, but the seats changed since: it should not dial us.
		c.p2p.acceptor.Kick(p, now, "not a player of this game")
		return
	}
	c.p2p.links[s] = p
	c.stats.DirectLinks++
}

func (c *Client) onDirectDisconnect(p *transport.Peer, _ time.Time, _ wire.DisconnectReason, _ string) {
	for s := range c.p2p.links {
		c.dropLink(uint8(s), p)
	}
}

// onDirect: a message on a direct link. Only commands travel there, and only the player's own.
func (c *Client) onDirect(p *transport.Peer, _ time.Time, m *message.Message) {
	if !p.Connected() {
		return
	}
	msg, err := ParseMsg(m.Payload)
	cmd, ok := msg.(*Command)
	if err != nil || !ok {
		c.stats.BadMessages++
		return
	}
	seat, known := c.seatOfPlayer(p.PlayerID())
	if !known || cmd.Seat != seat {
		c.stats.BadMessages++ // a player may only send its own commands
		return
	}
	if c.schedule(event{frame: cmd.Frame, kind: evCommand, seat: cmd.Seat, id: cmd.ID, cmd: cmd}) {
		c.stats.CommandsDirectFirst++
	}
}

// sendDirect sends a command payload on every direct link, through each link's outbox. A
// refusal loses nothing: the server relays every command too. It is counted.
func (c *Client) sendDirect(now time.Time, payload []byte) {
	if c.p2p == nil {
		return
	}
	for s, p := range c.p2p.links {
		if p != nil && p.Connected() {
			if err := c.p2p.outs[s].send(p.Conn(), now, payload, nil, nil, false); err != nil {
				c.stats.SendsRefused++
			}
		}
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
		}
	}
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
	for s, d := range c.p2p.dials {
		if d != nil {
			next = transport.Earliest(next, d.NextTick(now))
			if d.State() == transport.Disconnected && c.p2p.known[s].IsValid() {
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
