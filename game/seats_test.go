package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/transport"
)

// TestSeatMoves: the seat table moves a connection only along the game's paths between roles
// (seatMoves), and a refused move leaves its role as it was.
func TestSeatMoves(t *testing.T) {
	allowed := map[[2]roleKind]bool{
		{roleNone, roleClaiming}:      true, // the id of a seated player: a claim
		{roleNone, rolePlayer}:        true, // a free seat
		{roleNone, roleSpectator}:     true, // asked to watch, or the seats are full
		{roleClaiming, rolePlayer}:    true, // proved, or its seat was freed meanwhile
		{roleClaiming, roleSpectator}: true, // its seat was freed meanwhile, and every seat is taken
		{roleClaiming, roleNone}:      true, // refused, or gone
		{rolePlayer, roleNone}:        true, // left
		{roleSpectator, roleNone}:     true, // left
	}
	kinds := []roleKind{roleNone, roleClaiming, rolePlayer, roleSpectator}
	for _, from := range kinds {
		for _, to := range kinds {
			var tbl seatTable
			p := new(transport.Peer)
			if from != roleNone {
				tbl.roles = map[*transport.Peer]role{p: {kind: from}}
			}
			err := tbl.move(p, role{kind: to})
			want := allowed[[2]roleKind{from, to}]
			switch got := tbl.roleOf(p).kind; {
			case want && (err != nil || got != to):
				t.Errorf("%v → %v: %v, now %v; want allowed", from, to, err, got)
			case !want && (err == nil || got != from):
				t.Errorf("%v → %v: %v, now %v; want refused, staying %v", from, to, err, got, from)
			}
		}
	}
}

// TestSeatTableTracksEveryConnection: through a game with joins, a spectator, a claim and
// leaves, every connection the server's transport has is in the seat table under the role that
// holds it, and nothing else is.
func TestSeatTableTracksEveryConnection(t *testing.T) {
	g := newVGame(t, vspec{seed: 31, bots: 1, clients: 2})
	g.waitFor(10*time.Second, "the game running", func() bool { return g.srv.clock.running })
	check := func(when string) {
		t.Helper()
		live := map[*transport.Peer]bool{}
		for _, p := range g.srv.tr.Peers() {
			live[p] = true
			r := g.srv.seats.roleOf(p)
			switch r.kind {
			case rolePlayer:
				if r.seat.peer != p || g.srv.seats.players[r.seat.idx] != r.seat {
					t.Errorf("%s: %v plays a seat that is not its", when, p)
				}
			case roleSpectator:
				if r.spectator.peer != p || g.srv.seats.spectators[r.spectator.num-1] != r.spectator {
					t.Errorf("%s: %v watches from a place that is not its", when, p)
				}
			case roleClaiming:
				if r.claim.peer != p {
					t.Errorf("%s: %v holds another connection's claim", when, p)
				}
			default:
				t.Errorf("%s: connection %v has no role", when, p)
			}
		}
		for p := range g.srv.seats.roles {
			if !live[p] {
				t.Errorf("%s: a connection that ended still has the role %v", when, g.srv.seats.roles[p].kind)
			}
		}
	}
	check("two players")
	watcher := g.clients[g.join(func(c *ClientConfig) { c.Name, c.Spectate = "watcher", true })]
	g.waitFor(10*time.Second, "the spectator admitted", func() bool { return watcher.role.kind == roleSpectator })
	check("with a spectator")
	ann := g.clients[0]
	g.leave(0)
	g.waitFor(10*time.Second, "ann's seat held", func() bool { return g.srv.seats.players[ann.role.seat].peer == nil })
	check("ann gone")
	back := g.clients[g.join(func(c *ClientConfig) { c.Name, c.PlayerID, c.Secret = ann.cfg.Name, ann.cfg.PlayerID, ann.secret })]
	g.waitFor(10*time.Second, "ann back in her seat", func() bool { return back.role.kind == rolePlayer && back.w != nil })
	check("ann back")
	if g.srv.stats.SeatsReclaimed != 1 || g.srv.stats.SpectatorJoins != 1 || g.srv.stats.Leaves != 1 {
		t.Errorf("the game saw %d reclaims, %d spectators, %d leaves; want one of each", g.srv.stats.SeatsReclaimed, g.srv.stats.SpectatorJoins, g.srv.stats.Leaves)
	}
}
