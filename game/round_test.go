package game

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// TestNewRoundMidGame: the teacher starts a new round a minute into a game at 10% loss (two of
// the server's bots, two bot clients; the times are a quarter under the race detector). A client that joins just as it is announced gets the
// announcement with the other pending events, one that joins after it gets the new world, and
// every host comes out of the round's frame with the same fresh world: the squads of the seats
// that play, with ids from 1 again. The worlds agree at every settled frame before and after,
// and the game goes on (armies reinforced in the new round too).
func TestNewRoundMidGame(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}
	g := newVGame(t, vspec{seed: 23, bots: 2, clients: 2, link: lossy,
		server: func(c *ServerConfig) { c.EnemyEvery, c.MaxEnemies = time.Second, 60 }})
	if _, err := g.srv.NewRound(g.now); err == nil {
		t.Error("a new round before the game started")
	}
	seen := map[string]bool{}
	compared, differ := 0, 0
	play := func(d time.Duration, watch func() bool) {
		for end := g.now.Add(d); g.now.Before(end); {
			g.runUntil(minTime(g.now.Add(5*time.Second), end), watch)
			c, dd := settledSoFar(g, seen)
			compared, differ = compared+c, differ+dd
		}
	}
	play(lastsFor(time.Minute), nil)
	squadsBefore := g.srv.stats.Squads

	at, err := g.srv.NewRound(g.now)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := g.srv.NewRound(g.now); !errors.Is(err, errRoundAnnounced) || again != at {
		t.Errorf("a second new round while one is announced: frame %d, %v", again, err)
	}
	if want := g.srv.w.Frame() + uint32(roundNotice/DefaultFrame); at < want {
		t.Errorf("the round starts at frame %d, less than %v after frame %d", at, roundNotice, g.srv.w.Frame())
	}
	seats := g.srv.round.next.Seats
	between := g.join(nil)
	var announcedFirst bool // the client that joined in between had the round before its frame
	var fresh []world.Unit  // the server's world right after the round's frame
	play(lastsFor(30*time.Second), func() bool {
		if c := g.clients[between]; c.w != nil && c.phase != phaseAwaitingWorld && c.w.Frame() < at && c.nextRound() == at {
			announcedFirst = true
		}
		if fresh == nil && g.srv.w.Frame() == at+1 {
			fresh = append([]world.Unit(nil), g.srv.w.Units()...)
		}
		return false
	})
	after := g.join(nil)
	play(lastsFor(30*time.Second), nil)

	if !announcedFirst {
		t.Errorf("the client that joined as the round was announced never held it before frame %d", at)
	}
	if g.srv.round.current != 2 || g.srv.round.next != nil {
		t.Errorf("the server plays round %d (announced %+v), want 2", g.srv.round.current, g.srv.round.next)
	}
	squad := uint32(len(world.StartingSquad()))
	players := 0
	for _, u := range fresh {
		if u.IsEnemy() {
			continue
		}
		players++
		if u.ID > squad*uint32(len(seats)) || !slices.Contains(seats, u.Owner) {
			t.Errorf("after the round's frame, unit %d of seat %d: not one of the new squads of seats %v", u.ID, u.Owner, seats)
		}
	}
	if players == 0 {
		t.Errorf("no player unit after the round's frame: %v", fresh)
	}
	if g.srv.stats.Squads == squadsBefore {
		t.Error("no reinforcements in the new round")
	}
	res := g.result()
	logReports(t, res)
	t.Logf("round at frame %d for seats %v; settled frames compared %d; clients %d (in between) and %d (after) joined", at, seats, compared, between, after)
	for i, r := range res.clients {
		if i != after && r.Game.NewRounds != 1 {
			t.Errorf("%s was announced %d new rounds, want 1", r.Name, r.Game.NewRounds)
		}
	}
	if compared == 0 || differ != 0 {
		t.Errorf("the worlds differed at %d of %d settled frames", differ, compared)
	}
	checkHashesAfterResync(t, res)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestNewRoundWhenIDsRunOut: a world hands out each player unit id once; when the next squads
// would take the ids past the last, the server starts a new round instead, which starts them
// from 1 again.
func TestNewRoundWhenIDsRunOut(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 25, bots: 2,
		server: func(c *ServerConfig) { c.EnemyEvery, c.MaxEnemies = 500*time.Millisecond, 80 }})
	g.waitFor(5*time.Second, "the game to start", func() bool { return g.srv.clock.running })
	// Move the world's next unit id near the end: room for one squad, not two.
	b, err := g.srv.w.AppendState(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := world.ParseState(b)
	if err != nil {
		t.Fatal(err)
	}
	st.NextID = world.FirstEnemyID - uint32(len(world.StartingSquad())) - 1
	if err := g.srv.w.ApplyState(st); err != nil {
		t.Fatal(err)
	}
	g.waitFor(10*time.Minute, "a new round", func() bool { return g.srv.round.current == 2 })
	if g.srv.stats.Rounds != 1 || g.srv.w.NextID() >= st.NextID {
		t.Errorf("%d rounds announced; the world's next unit id is %d", g.srv.stats.Rounds, g.srv.w.NextID())
	}
}
