package game

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/wire"
)

// kickedFor checks that client i's connection ended kicked with KickedText, which its Ended
// (what the client shows and exits on) says.
func kickedFor(t *testing.T, g *vgame, i int) {
	t.Helper()
	c := g.clients[i]
	g.waitFor(5*time.Second, c.cfg.Name+"'s connection to end", func() bool { return c.Ended() != nil })
	if st := c.Transport().Stats(); st.Reason != wire.DisconnectKicked || st.Text != KickedText {
		t.Errorf("%s: connection ended %v %q, want kicked %q", c.cfg.Name, st.Reason, st.Text, KickedText)
	}
	if err := c.Ended(); !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "kicked: "+KickedText) {
		t.Errorf("%s: Ended says %v, want the teacher's kick", c.cfg.Name, err)
	}
}

// TestKickFreesTheSeatAtOnce: the teacher kicks a player, in virtual time. The seat is free at
// the kick's own instant, not held SeatHold; the player's client ends with the reason; the
// next player to join takes the seat (and the units with it) at once; the other player plays
// on. A spectator kicked leaves its place free and ends the same way.
func TestKickFreesTheSeatAtOnce(t *testing.T) {
	t.Parallel()
	human := func(c *ClientConfig) { c.Bot, c.NoDirect = false, true }
	g := newVGame(t, vspec{seed: 51, bots: 1, clients: 2, client: func(i int, c *ClientConfig) {
		human(c)
		if i < 2 {
			c.Name = []string{"ann", "bob"}[i]
		}
	}})
	watcher := g.joinWatcher(func(c *ClientConfig) { c.Name, c.Spectate = "watcher", true })
	ann, bob := g.clients[0], g.clients[1]
	g.waitFor(10*time.Second, "ann, bob and the watcher in the game", func() bool {
		return clientRunning(ann) && clientRunning(bob) && clientRunning(g.clients[watcher])
	})
	seat := bob.role.seat
	if err := g.srv.Kick(g.now, KickTarget{Seat: seat, Player: bob.cfg.PlayerID}); err != nil {
		t.Fatal(err)
	}
	if st := g.srv.seats.players[seat]; st != nil {
		t.Fatalf("seat %d right after the kick: held for %s (%s), want free", seat, st.name, st.gone)
	}
	if g.srv.freeSeat(g.now) != int(seat) {
		t.Errorf("the lowest free seat is %d, want bob's %d", g.srv.freeSeat(g.now), seat)
	}
	kickedFor(t, g, 1)
	g.vanish(1) // the client exits on it

	kickedAt := g.now
	cat := g.join(func(c *ClientConfig) { human(c); c.Name = "cat" })
	g.waitFor(5*time.Second, "cat to play", func() bool { return clientRunning(g.clients[cat]) })
	if got := g.clients[cat].role.seat; got != seat || g.clients[cat].role.kind != rolePlayer {
		t.Errorf("cat took seat %d (%v), want the kicked player's seat %d", got, g.clients[cat].role.kind, seat)
	}
	if waited := g.now.Sub(kickedAt); waited >= g.srv.cfg.Places.SeatHold {
		t.Errorf("cat played after %v, not before the %v a seat is held", waited, g.srv.cfg.Places.SeatHold)
	}
	if ann.Ended() != nil || !clientRunning(ann) {
		t.Errorf("ann was not kicked and plays on: ended %v, phase %v", ann.Ended(), ann.phase)
	}

	num := uint16(g.clients[watcher].role.spectate.Number)
	leaves := g.srv.stats.SpectatorLeaves
	if err := g.srv.Kick(g.now, KickTarget{Spectator: num, Player: g.clients[watcher].cfg.PlayerID}); err != nil {
		t.Fatal(err)
	}
	if sp := g.srv.seats.spectators[num-1]; sp != nil {
		t.Errorf("spectator %d's place right after the kick: %s's, want free", num, sp.name)
	}
	kickedFor(t, g, watcher)
	if s := g.srv.stats; s.Kicks != 2 || s.SeatsFreed != 1 || s.SpectatorLeaves != leaves+1 {
		t.Errorf("kicks %d, seats freed %d, spectator leaves %d; want 2, 1, %d", s.Kicks, s.SeatsFreed, s.SpectatorLeaves, leaves+1)
	}
}

// TestKickRefused: the teacher's kick names a place and its player as the screen saw them;
// a place that holds nobody, somebody else or a bot is refused, and nothing changes.
func TestKickRefused(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 52, bots: 1, clients: 1, client: func(_ int, c *ClientConfig) { c.Bot, c.NoDirect = false, true }})
	c := g.clients[0]
	g.waitFor(10*time.Second, "the client to play", func() bool { return clientRunning(c) })
	seat := c.role.seat
	bot := g.srv.seats.players[0]
	for _, k := range []struct {
		name string
		to   KickTarget
	}{
		{"the server's bot", KickTarget{Seat: 0, Player: bot.player}},
		{"another player's id", KickTarget{Seat: seat, Player: uuid.New()}},
		{"an empty seat", KickTarget{Seat: 5, Player: c.cfg.PlayerID}},
		{"no such seat", KickTarget{Seat: 200, Player: c.cfg.PlayerID}},
		{"an empty spectator's place", KickTarget{Spectator: 3, Player: c.cfg.PlayerID}},
		{"no such spectator", KickTarget{Spectator: MaxSpectatorNumber + 1, Player: c.cfg.PlayerID}},
	} {
		if err := g.srv.Kick(g.now, k.to); !errors.Is(err, ErrKickTarget) {
			t.Errorf("%s: %v, want %v", k.name, err, ErrKickTarget)
		}
	}
	g.run(time.Second)
	if c.Ended() != nil || g.srv.seats.players[seat] == nil || g.srv.stats.Kicks != 0 || g.srv.stats.SeatsFreed != 0 {
		t.Errorf("after refused kicks: client ended %v, seat taken %v, %d kicks, %d seats freed", c.Ended(), g.srv.seats.players[seat] != nil, g.srv.stats.Kicks, g.srv.stats.SeatsFreed)
	}
}
