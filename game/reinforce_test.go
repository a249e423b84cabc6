package game

import (
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// armyWatch follows, frame by frame, how many units each seat has in a host's world, and how
// long each seat went without any.
type armyWatch struct {
	frame    uint32
	emptyAt  [world.MaxPlayers]uint32 // the first frame seen without units, 0 while it has some
	longest  [world.MaxPlayers]uint32 // the longest time without units, in frames
	empties  [world.MaxPlayers]int    // how many times the seat lost its last unit
	squads   int                      // squads seen landing (a seat's count rising by a squad at once)
	last     [world.MaxPlayers]int
	everHeld [world.MaxPlayers]bool
}

// observe looks at w if it moved to a new frame.
func (a *armyWatch) observe(w *world.World) {
	if w == nil || w.Frame() == a.frame {
		return
	}
	a.frame = w.Frame()
	var n [world.MaxPlayers]int
	for _, u := range w.Units() {
		if !u.IsEnemy() {
			n[u.Owner]++
		}
	}
	squad := len(world.StartingSquad())
	for seat := range n {
		switch {
		case n[seat] == 0 && a.everHeld[seat] && a.emptyAt[seat] == 0:
			a.emptyAt[seat] = a.frame
			a.empties[seat]++
		case n[seat] > 0 && a.emptyAt[seat] != 0:
			a.longest[seat] = max(a.longest[seat], a.frame-a.emptyAt[seat])
			a.emptyAt[seat] = 0
		}
		if n[seat] >= a.last[seat]+squad && a.everHeld[seat] {
			a.squads++
		}
		a.everHeld[seat] = a.everHeld[seat] || n[seat] > 0
		a.last[seat] = n[seat]
	}
}

// settledSoFar compares the world hashes of every live client with the server's at the
// frames both recorded that are old enough to have settled (the hash checks would have seen a
// difference): the frames compared, and those that differ.
func settledSoFar(g *vgame, seen map[string]bool) (compared, differ int) {
	sh := g.srv.stats.hashes.report(g.srv.w.Frame())
	for i, c := range g.clients {
		if g.gone[i] || c.w == nil {
			continue
		}
		for f, h := range c.drift.hashes.report(c.w.Frame()) {
			n, _ := strconv.Atoi(f)
			s, ok := sh[f]
			key := c.cfg.Name + "@" + f
			if !ok || seen[key] || uint32(n)+detectionFrames > g.srv.w.Frame() {
				continue
			}
			seen[key] = true
			compared++
			if s != h {
				differ++
			}
		}
	}
	return compared, differ
}

// lastsFor is how long the long games of the tests play: d, or d/4 under the race detector
// or with -short; seedsFor how many seeds a sweep plays: n, or a third of them (at least one).
//
// The race detector makes a game in virtual time ten to thirty times slower, and it has
// nothing to find in package game: the sessions start no goroutine (TestSansIO), and a game in
// virtual time runs on the test's own. So under it the long games play less of the same, with
// every check the same; `go test ./game` plays them all, in full, in under a minute, and CI
// runs it beside the README's command. A quarter of four minutes still sees squads land again
// and again; a quarter of half an hour, seats emptied and filled dozens of times.
func lastsFor(d time.Duration) time.Duration {
	if raceEnabled || testing.Short() {
		return d / 4
	}
	return d
}

// onlyInFull skips t under the race detector: a game whose check needs its whole size or
// length (a class of 41 hosts, a sweep whose share is a statistic, thirty joins in a row),
// which the detector, with nothing to find in package game, would make a third of the whole
// suite's time. `go test ./game` plays it, and CI runs that beside the README's command.
func onlyInFull(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("played in full without the race detector: go test ./game")
	}
}

func seedsFor(n uint64) uint64 {
	if raceEnabled || testing.Short() {
		return max(n/3, 1)
	}
	return n
}

// TestReinforcementsKeepTheGameGoing: four minutes of a game at 10% loss, two of the server's
// bots and two bot clients (a minute under the race detector). Armies fall and are reinforced again and again, nobody goes
// without units for longer than the announced delay (and the frame the server noticed in),
// every client took every squad the server announced, and the worlds agree at every settled
// frame.
func TestReinforcementsKeepTheGameGoing(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}
	g := newVGame(t, vspec{seed: 21, bots: 2, clients: 2, link: lossy,
		// More enemies, sooner, so that armies fall within the test's minutes.
		server: func(c *ServerConfig) { c.EnemyEvery, c.MaxEnemies = time.Second, 60 }})
	var watch armyWatch
	seen := map[string]bool{}
	compared, differ := 0, 0
	for end := g.now.Add(lastsFor(4 * time.Minute)); g.now.Before(end); {
		g.runUntil(g.now.Add(5*time.Second), func() bool { watch.observe(g.srv.w); return false })
		c, d := settledSoFar(g, seen)
		compared, differ = compared+c, differ+d
	}
	res := g.result()
	logReports(t, res)
	delay := g.srv.reinforceDelay()
	t.Logf("squads announced %d, seen landing %d; seats emptied %v times, longest without units %v frames (delay %d)",
		res.server.Game.Reinforcements, watch.squads, watch.empties, watch.longest, delay)
	if res.server.Game.Reinforcements < 5 || watch.squads == 0 {
		t.Errorf("%d squads announced, %d seen landing: the armies were hardly reinforced", res.server.Game.Reinforcements, watch.squads)
	}
	for seat, l := range watch.longest {
		if l > delay+1 {
			t.Errorf("seat %d went %d frames without units, the delay is %d", seat, l, delay)
		}
	}
	for _, r := range res.clients {
		// Every client got every Reinforce (a last one may still be on its way).
		if got, want := r.Game.Reinforcements, res.server.Game.Reinforcements; got+uint64(len(g.clients)+2) < want || got > want {
			t.Errorf("%s received %d squads, the server announced %d", r.Name, got, want)
		}
	}
	if compared == 0 || differ != 0 {
		t.Errorf("the worlds differed at %d of %d settled frames", differ, compared)
	}
	checkHashesAfterResync(t, res)
	checkKillsAfterSpawns(t, res)
}
