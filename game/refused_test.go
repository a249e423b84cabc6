package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// TestCommandForAnotherSeatsUnitsIsCounted: a player's command for a unit of another seat is
// the player's to send (it names its own seat, so it is no bad message), and the world refuses
// it when it runs, on every host alike: each counts it once in commands_refused, a re-run of its
// frame included, and no world moves the unit.
func TestCommandForAnotherSeatsUnitsIsCounted(t *testing.T) {
	g := newVGame(t, vspec{seed: 41, bots: 1, clients: 2, link: linksim.Settings{LossPercent: 10, Latency: 30 * time.Millisecond}, client: func(_ int, c *ClientConfig) { c.Bot = false }})
	g.waitFor(20*time.Second, "the game running on both clients", func() bool {
		return clientRunning(g.clients[0]) && clientRunning(g.clients[1])
	})
	me, other := g.clients[0], g.clients[1]
	var victim world.Unit
	for _, u := range me.w.Units() {
		if u.Owner == other.role.seat && !u.IsEnemy() {
			victim = u
			break
		}
	}
	if victim.ID == 0 {
		t.Fatal("no unit of the other player")
	}
	f, err := me.Command(g.now, world.CommandMove, []uint32{victim.ID}, victim.X+3, victim.Y, 0)
	if err != nil {
		t.Fatal(err)
	}
	g.waitFor(10*time.Second, "every host past the command's frame", func() bool {
		return g.srv.w.Frame() > f+resimWindow && me.w.Frame() > f+resimWindow && other.w.Frame() > f+resimWindow
	})
	for _, h := range []struct {
		name            string
		refused, badMsg uint64
	}{
		{"server", g.srv.stats.CommandsRefused, g.srv.stats.BadMessages},
		{"the ordering client", me.stats.CommandsRefused, me.stats.BadMessages},
		{"the unit's owner", other.stats.CommandsRefused, other.stats.BadMessages},
	} {
		if h.refused != 1 || h.badMsg != 0 {
			t.Errorf("%s: %d commands refused, %d bad messages; want 1 and 0", h.name, h.refused, h.badMsg)
		}
	}
	if g.srv.Report().Game.CommandsRefused != 1 {
		t.Errorf("the server's report says %d commands refused, want 1", g.srv.Report().Game.CommandsRefused)
	}
}
