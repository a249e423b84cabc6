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
// command relayed by the server travels two hops. So each client also listens for direct
// connections from the other clients, tells the server where (Peers, client → server), learns
// where the others listen (Peers, server → client), and the client with the higher seat dials
// the one with the lower. Commands then go straight to every directly connected player as well
// as to the server; every host takes a command once, whichever path brought it first, and
// validates it the same way (a player commands only its own units).

// endpoint is a transport host the client drives besides its server connection.
type endpoint interface {
	transport.Host
	Close() error
}

// tagged is a datagram from one of the direct-link endpoints.
type tagged struct {
	ep endpoint
	d  transport.Datagram
}

// p2p holds a client's direct links.
type p2p struct {
	listener *transport.Server
	addr     netip.AddrPort
	dials    map[uint8]*transport.Client // seat → our connection to that player's listener
	links    map[uint8]*transport.Peer   // seat → a connected direct link (either direction)
	in       chan tagged
	done     chan struct{}
	known    map[uint8]netip.AddrPort
	told     bool
}

// openP2P starts the client's listener for direct links on the interface its server
// connection uses.
func (c *Client) openP2P() error {
	local := c.tr.LocalAddr()
	cfg := transport.ServerConfig{MaxClients: world.MaxPlayers}
	cfg.Link = c.cfg.Transport.Link
	cfg.Logger = c.cfg.Logger
	cfg.OnConnect = c.onDirectConnect
	cfg.OnDisconnect = c.onDirectDisconnect
	cfg.OnMessage = c.onDirect
	l, err := transport.Listen(netip.AddrPortFrom(local.Addr(), 0).String(), cfg)
	if err != nil {
		return err
	}
	c.p2p = &p2p{listener: l, addr: l.LocalAddr(), dials: map[uint8]*transport.Client{}, links: map[uint8]*transport.Peer{},
		in: make(chan tagged, 256), done: make(chan struct{}), known: map[uint8]netip.AddrPort{}}
	c.forward(l)
	return nil
}

// forward copies an endpoint's datagrams into the client's one channel for direct links.
func (c *Client) forward(ep endpoint) {
	in, done := c.p2p.in, c.p2p.done
	go func() {
		for d := range ep.Datagrams() {
			select {
			case in <- tagged{ep, d}:
			case <-done:
				return
			}
		}
	}()
}

func (c *Client) closeP2P() {
	if c.p2p == nil {
		return
	}
	close(c.p2p.done)
	c.p2p.listener.Close()
	for _, d := range c.p2p.dials {
		d.Close()
	}
}

// tellServer sends the server our listener's address once our seat is known.
func (c *Client) tellServer(now time.Time) {
	if c.p2p == nil || c.p2p.told || c.tr.Peer() == nil {
		return
	}
	c.p2p.told = true
	c.sendGuaranteed(now, &Peers{List: []PeerAddr{{Seat: c.seat, Addr: c.p2p.addr}}}, nil)
}

// peers: where the other players listen. Dial the ones with a lower seat.
func (c *Client) peers(now time.Time, ps *Peers) {
	if c.p2p == nil {
		return
	}
	for _, pa := range ps.List {
		if pa.Seat == c.seat || c.p2p.known[pa.Seat] == pa.Addr {
			continue
		}
		c.p2p.known[pa.Seat] = pa.Addr
		if pa.Seat > c.seat {
			continue // that player dials us
		}
		if old := c.p2p.dials[pa.Seat]; old != nil {
			old.Close()
		}
		seat := pa.Seat
		cfg := transport.ClientConfig{Name: c.cfg.Name, PlayerID: c.cfg.PlayerID}
		cfg.Link = c.cfg.Transport.Link
		cfg.Logger = c.cfg.Logger
		cfg.OnConnect = func(p *transport.Peer) { c.p2p.links[seat] = p; c.stats.DirectLinks++ }
		cfg.OnDisconnect = func(p *transport.Peer, _ wire.DisconnectReason, _ string) {
			if c.p2p.links[seat] == p {
				delete(c.p2p.links, seat)
			}
		}
		cfg.OnMessage = c.onDirect
		d, err := transport.Dial(pa.Addr.String(), cfg)
		if err != nil {
			c.cfg.Logger.Warn("direct link", "seat", seat, "err", err)
			continue
		}
		c.p2p.dials[seat] = d
		c.forward(d)
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

func (c *Client) onDirectConnect(p *transport.Peer) {
	if s, ok := c.seatOfPlayer(p.PlayerID()); ok && s > c.seat {
		c.p2p.links[s] = p
		c.stats.DirectLinks++
		return
	}
	// Not a player of this game, or one that should not dial us: refuse it.
	c.p2p.listener.Kick(p, time.Now(), "not a player of this game")
}

func (c *Client) onDirectDisconnect(p *transport.Peer, _ wire.DisconnectReason, _ string) {
	for s, q := range c.p2p.links {
		if q == p {
			delete(c.p2p.links, s)
		}
	}
}

// onDirect: a message on a direct link. Only commands travel there, and only the player's own.
func (c *Client) onDirect(p *transport.Peer, m *message.Message) {
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
	if c.sched.add(event{frame: cmd.Frame, kind: evCommand, seat: cmd.Seat, id: cmd.ID, cmd: cmd}) {
		c.stats.CommandsDirectFirst++
	}
}

// sendDirect sends a command payload on every direct link.
func (c *Client) sendDirect(now time.Time, payload []byte) {
	if c.p2p == nil {
		return
	}
	for _, p := range c.p2p.links {
		if p.Connected() {
			p.Conn().SendGuaranteed(now, payload, nil, nil)
		}
	}
}

// tickP2P runs the direct links' timers and returns when they next need the loop.
func (c *Client) tickP2P(now time.Time) time.Time {
	if c.p2p == nil {
		return time.Time{}
	}
	c.p2p.listener.Tick(now)
	next := c.p2p.listener.NextTick(now)
	for _, d := range c.p2p.dials {
		d.Tick(now)
		next = transport.Earliest(next, d.NextTick(now))
	}
	return next
}
