package ui

import (
	"errors"
	"sync"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/hostloop"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// ClientHost is what the client screen needs from a game client: snapshots to read and intents
// to send. Every method is safe from the UI's goroutine and returns at once: an intent is handed
// to the host's loop (false when its queue is full, and the screen says so), never run here.
// GameClient adapts a game client run by hostloop; tests may use a fake.
type ClientHost interface {
	Snapshot() *game.ClientSnapshot
	// Peer returns the latest statistics of the connection to the server (false before it
	// exists).
	Peer() (transport.PeerStats, bool)
	// Link returns the link conditioner's settings (false: the client has none, so the
	// sliders cannot act).
	Link() (linksim.Settings, bool)
	SetLink(s linksim.Settings) error
	// Ended says why the connection ended ("" while it has not).
	Ended() string
	// Order hands an order to the host; the ticket tells the frame it was scheduled for once
	// the host has taken it (nil, false: the host's queue was full).
	Order(kind world.CommandKind, units []uint32, x, y int32, target uint32) (*OrderTicket, bool)
	// Say hands a chat line to the host; the ticket settles with nil once the host took it,
	// or with the reason it refused it (nil, false: the host's queue was full).
	Say(text string) (*OrderTicket, bool)
	// InjectDesync asks the host to corrupt one of the player's units; the ticket's frame is
	// the number of units corrupted (0, with an error, when there was none to corrupt).
	InjectDesync() (*OrderTicket, bool)
}

// GameClient returns the ClientHost of c.
func GameClient(c *hostloop.Client) ClientHost { return gameClient{c} }

type gameClient struct{ c *hostloop.Client }

func (g gameClient) Snapshot() *game.ClientSnapshot { return g.c.Snapshot() }

func (g gameClient) Peer() (transport.PeerStats, bool) {
	st := g.c.Stats()
	return st.Server, st.State == transport.Connected || st.Server.PacketsSent > 0
}

func (g gameClient) Ended() string {
	st := g.c.Stats()
	if st.State != transport.Disconnected {
		return ""
	}
	switch {
	case st.Err != "":
		return st.Err
	case st.Text != "":
		return st.Reason.String() + ": " + st.Text
	}
	return st.Reason.String()
}

func (g gameClient) Link() (linksim.Settings, bool) {
	ls, ok := g.c.Link()
	return ls.Out, ok
}

// SetLink applies s in both directions: the sliders describe the link, not one way of it.
func (g gameClient) SetLink(s linksim.Settings) error {
	return g.c.SetLink(transport.LinkSettings{Out: s, In: s})
}

func (g gameClient) Order(kind world.CommandKind, units []uint32, x, y int32, target uint32) (*OrderTicket, bool) {
	units = append([]uint32(nil), units...)
	t := &OrderTicket{}
	ok := g.c.TryDo(func(c *game.Client, now time.Time) {
		frame, err := c.Command(now, kind, units, x, y, target)
		t.settle(frame, err)
	})
	if !ok {
		return nil, false
	}
	return t, true
}

func (g gameClient) Say(text string) (*OrderTicket, bool) {
	t := &OrderTicket{}
	ok := g.c.TryDo(func(c *game.Client, now time.Time) { t.settle(0, c.Say(now, text)) })
	if !ok {
		return nil, false
	}
	return t, true
}

func (g gameClient) InjectDesync() (*OrderTicket, bool) {
	t := &OrderTicket{}
	ok := g.c.TryDo(func(c *game.Client, _ time.Time) {
		if n := c.InjectDesync(1); n == 0 {
			t.settle(0, errNothingToCorrupt)
		} else {
			t.settle(uint32(n), nil)
		}
	})
	if !ok {
		return nil, false
	}
	return t, true
}

var errNothingToCorrupt = errors.New("no unit of yours to corrupt (none left with hit points to spare)")

// OrderTicket is an order on its way into the host: the host's loop settles it with the frame
// the order was scheduled for (or why it was refused), and the screen reads it on its next frame.
type OrderTicket struct {
	mu      sync.Mutex
	settled bool
	frame   uint32
	err     error
}

func (t *OrderTicket) settle(frame uint32, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.settled, t.frame, t.err = true, frame, err
}

// Result returns the frame the order runs at, or the host's refusal; ok is false until the
// host has taken the order.
func (t *OrderTicket) Result() (frame uint32, err error, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.frame, t.err, t.settled
}

// ServerHost is what the server screen needs from a game server.
type ServerHost interface {
	Snapshot() *game.ServerSnapshot
	Peers() []transport.PeerStats
	Link() (linksim.Settings, bool)
	SetLink(s linksim.Settings) error
	// NewRound asks the server to start a new round; the ticket's frame is the frame it starts
	// at, or the error why not (nil, false: the host's queue was full).
	NewRound() (*OrderTicket, bool)
	// SetWaves sends the teacher's waves every every, or stops them (0): game.Stage.SetWaves,
	// kills right behind their spawns and the bots' lines a packet each, so that messages
	// wait in the students' graphs. The ticket settles with the server's refusal, if any (nil,
	// false: the host's queue was full); the snapshot shows the change.
	SetWaves(every time.Duration) (*OrderTicket, bool)
	// PushLink gives every client the link settings s (game.Server.PushLink) and returns them
	// as the clients will have them (rounded to the wire's units, game.ClassLinkOf); the error
	// is a setting beyond the sliders' ranges, or a host too busy to take it.
	PushLink(s linksim.Settings) (linksim.Settings, error)
	// SetSpectatorChat turns the spectators' chat on or off (game.Server.SetSpectatorChat);
	// the error is a host too busy to take it. The snapshot shows the change.
	SetSpectatorChat(on bool) error
	// SetLead sets who sets the command lead time (game.Server.SetLead): the server's policy
	// (game.LeadAuto), or a lead the teacher fixes. The ticket settles with the server's
	// refusal, if any (nil, false: the host's queue was full); the snapshot shows the change.
	SetLead(l game.LeadSetting) (*OrderTicket, bool)
	// Kick removes a player or a spectator from the game (game.Server.Kick): the teacher's K.
	// The ticket settles with the server's refusal, if any (nil, false: the host's queue was
	// full); the snapshot shows the place free.
	Kick(k game.KickTarget) (*OrderTicket, bool)
}

// GameServer returns the ServerHost of s.
func GameServer(s *hostloop.Server) ServerHost { return gameServer{s} }

type gameServer struct{ s *hostloop.Server }

func (g gameServer) Snapshot() *game.ServerSnapshot { return g.s.Snapshot() }
func (g gameServer) Peers() []transport.PeerStats   { return g.s.Stats().Peers }
func (g gameServer) SetLink(s linksim.Settings) error {
	return g.s.SetLink(transport.LinkSettings{Out: s, In: s})
}
func (g gameServer) Link() (linksim.Settings, bool) {
	ls, ok := g.s.Link()
	return ls.Out, ok
}

func (g gameServer) NewRound() (*OrderTicket, bool) {
	t := &OrderTicket{}
	if !g.s.TryDo(func(s *game.Server, now time.Time) { t.settle(s.NewRound(now)) }) {
		return nil, false
	}
	return t, true
}

func (g gameServer) PushLink(ls linksim.Settings) (linksim.Settings, error) {
	// Checked here, where the screen can say at once what is refused: the owner loop's
	// PushLink runs later, and its check of these rounded settings cannot fail.
	m, err := game.ClassLinkOf(ls)
	if err != nil {
		return linksim.Settings{}, err
	}
	ls = m.Settings()
	if !g.s.TryDo(func(s *game.Server, now time.Time) { s.PushLink(now, ls) }) {
		return linksim.Settings{}, errBusy
	}
	return ls, nil
}

func (g gameServer) SetSpectatorChat(on bool) error {
	if !g.s.TryDo(func(s *game.Server, now time.Time) { s.SetSpectatorChat(now, on); s.Intent(now) }) {
		return errBusy
	}
	return nil
}

func (g gameServer) SetLead(l game.LeadSetting) (*OrderTicket, bool) {
	t := &OrderTicket{}
	ok := g.s.TryDo(func(s *game.Server, now time.Time) {
		_, err := s.SetLead(now, l)
		s.Intent(now)
		t.settle(0, err)
	})
	if !ok {
		return nil, false
	}
	return t, true
}

func (g gameServer) Kick(k game.KickTarget) (*OrderTicket, bool) {
	t := &OrderTicket{}
	ok := g.s.TryDo(func(s *game.Server, now time.Time) {
		err := s.Kick(now, k)
		s.Intent(now)
		t.settle(0, err)
	})
	if !ok {
		return nil, false
	}
	return t, true
}

var errBusy = errors.New("the game is busy: try again")
