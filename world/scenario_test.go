package world

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// scenario plays the server and the players against a world: it spawns
// enemies over time, kills the dead ones a few frames later (as the server's
// kill message would arrive), gives random players' units random orders, and
// sends reinforcements to players who have lost most of their squad. It
// decides from one world and its own seeded generator, and everything it
// decides is recorded as calls, so the same calls can be made on another
// world.
type scenario struct {
	rng        *rand.PCG
	seats      int
	maxEnemies int
	nextEnemy  uint32
	kills      []pendingKill
	enemyKinds []string
}

type pendingKill struct {
	frame uint32
	id    uint32
}

// event is one call a frame makes on a world before it steps.
type event struct {
	cmd   *Command
	spawn *spawnCall
	kill  uint32
	seat  int // AddPlayerUnits(seat-1) when > 0
}

type spawnCall struct {
	id   uint32
	kind string
	x, y int32
}

func newScenario(seed uint64, seats, maxEnemies int) *scenario {
	return &scenario{
		rng:        rand.NewPCG(seed, 7),
		seats:      seats,
		maxEnemies: maxEnemies,
		nextEnemy:  FirstEnemyID - 1,
		enemyKinds: []string{"goblin", "goblin", "goblin", "hurler", "ogre"},
	}
}

// intn returns a number in [0, n). It uses only the PCG's own output, whose
// algorithm is fixed, so the golden file does not depend on how a Go release
// implements rand.Rand's helpers.
func (sc *scenario) intn(n int) int {
	return int((sc.rng.Uint64() >> 32) * uint64(n) >> 32)
}

func (sc *scenario) randomCell(w *World) (int32, int32) {
	sx, sy, _ := w.Spawn(0)
	for {
		x, y := int32(sc.intn(int(w.Width()))), int32(sc.intn(int(w.Height())))
		if w.Reachable(sx, sy, x, y) {
			return x, y
		}
	}
}

// events returns the calls for w's current frame.
func (sc *scenario) events(w *World) []event {
	var evs []event
	frame := w.Frame()
	if frame == 0 {
		for seat := range sc.seats {
			evs = append(evs, event{seat: seat + 1})
		}
	}
	// Kills: the server saw these dead a few frames ago.
	var killing []uint32
	for len(sc.kills) > 0 && sc.kills[0].frame <= frame {
		evs = append(evs, event{kill: sc.kills[0].id})
		killing = append(killing, sc.kills[0].id)
		sc.kills = sc.kills[1:]
	}
	var live, dead int
	perSeat := make([][]uint32, sc.seats)
	var enemies []uint32
	for _, u := range w.Units() {
		switch {
		case u.Dead:
			dead++
			if !sc.killPending(u.ID) && !slices.Contains(killing, u.ID) {
				sc.kills = append(sc.kills, pendingKill{frame + 3, u.ID})
			}
		case u.IsEnemy():
			live++
			enemies = append(enemies, u.ID)
		case int(u.Owner) < sc.seats:
			perSeat[u.Owner] = append(perSeat[u.Owner], u.ID)
		}
	}
	if frame%10 == 5 && live < sc.maxEnemies {
		for range min(6, sc.maxEnemies-live) {
			x, y := sc.randomCell(w)
			sc.nextEnemy++
			kind := sc.enemyKinds[sc.intn(len(sc.enemyKinds))]
			evs = append(evs, event{spawn: &spawnCall{sc.nextEnemy, kind, x, y}})
		}
	}
	if frame%200 == 100 {
		for seat := range sc.seats {
			if len(perSeat[seat]) < 3 {
				evs = append(evs, event{seat: seat + 1})
			}
		}
	}
	if frame%3 == 0 {
		seat := sc.intn(sc.seats)
		units := perSeat[seat]
		if len(units) > 0 {
			// A random selection; sometimes with a stale id, sometimes a duplicate.
			var sel []uint32
			for _, id := range units {
				if sc.intn(3) > 0 {
					sel = append(sel, id)
				}
			}
			if len(sel) == 0 {
				sel = units[:1]
			}
			if sc.intn(10) == 0 {
				sel = append(sel, sel[0], FirstEnemyID-1)
			}
			cmd := &Command{Player: uint8(seat), Units: sel}
			switch r := sc.intn(10); {
			case r < 5:
				cmd.Kind = CommandMove
				cmd.X, cmd.Y = sc.randomCell(w)
			case r < 9 && len(enemies) > 0:
				cmd.Kind = CommandAttack
				cmd.Target = enemies[sc.intn(len(enemies))]
			default:
				cmd.Kind = CommandStop
			}
			evs = append(evs, event{cmd: cmd})
		}
	}
	return evs
}

func (sc *scenario) killPending(id uint32) bool {
	for _, k := range sc.kills {
		if k.id == id {
			return true
		}
	}
	return false
}

// apply makes the calls on w; every one of them must succeed.
func apply(t testing.TB, w *World, evs []event) {
	t.Helper()
	for _, ev := range evs {
		var err error
		switch {
		case ev.cmd != nil:
			err = w.Apply(*ev.cmd)
		case ev.spawn != nil:
			err = w.SpawnEnemy(ev.spawn.id, ev.spawn.kind, ev.spawn.x, ev.spawn.y)
		case ev.kill != 0:
			err = w.Kill(ev.kill)
		case ev.seat > 0:
			_, err = w.AddPlayerUnits(uint8(ev.seat - 1))
		}
		if err != nil {
			t.Fatalf("frame %d: %v", w.Frame(), err)
		}
	}
}

func mustWorld(t testing.TB, mapName string, seed uint64) *World {
	t.Helper()
	w, err := NewWorld(mapName, seed)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
