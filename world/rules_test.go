package world

import (
	"errors"
	"slices"
	"testing"
)

// hpDrops steps w n times and returns the frames (Frame() after the step) at
// which unit id lost hit points.
func hpDrops(t *testing.T, w *World, id uint32, n int) []uint32 {
	t.Helper()
	var frames []uint32
	hp := mustUnit(t, w, id).HP
	for range n {
		w.Step()
		u, ok := w.Unit(id)
		if !ok {
			break
		}
		if u.HP < hp {
			frames = append(frames, w.Frame())
		}
		hp = u.HP
	}
	return frames
}

func TestMeleeAndCooldown(t *testing.T) {
	w := tinyWorld(t,
		"1.......",
		"........",
		"........",
	)
	player(t, w, 1, 0, "soldier", 2, 1)
	enemy(t, w, FirstEnemyID, "ogre", 3, 1)
	soldier, ogre := kind(t, "soldier"), kind(t, "ogre")

	w.Step()
	s, o := mustUnit(t, w, 1), mustUnit(t, w, FirstEnemyID)
	// Both strike in the first step: the soldier sees the ogre (idle units
	// fight what they see), the ogre hunts the soldier.
	if s.TargetID != FirstEnemyID || o.TargetID != 1 {
		t.Fatalf("targets: soldier %d, ogre %d", s.TargetID, o.TargetID)
	}
	if lost := ogre.HP - o.HP; lost < soldier.Damage || lost > soldier.Damage+soldier.Damage/4 {
		t.Errorf("ogre lost %d hp, want %d..%d", lost, soldier.Damage, soldier.Damage+soldier.Damage/4)
	}
	if lost := soldier.HP - s.HP; lost < ogre.Damage || lost > ogre.Damage+ogre.Damage/4 {
		t.Errorf("soldier lost %d hp, want %d..%d", lost, ogre.Damage, ogre.Damage+ogre.Damage/4)
	}
	if s.Cooldown != soldier.Cooldown || o.Cooldown != ogre.Cooldown {
		t.Errorf("cooldowns %d and %d, want %d and %d", s.Cooldown, o.Cooldown, soldier.Cooldown, ogre.Cooldown)
	}
	if s.X != 2 || o.X != 3 {
		t.Errorf("units in range moved: soldier x %d, ogre x %d", s.X, o.X)
	}
	// Then one blow per cooldown: the ogre (cooldown 25) strikes at frames
	// 1, 26, 51; the soldier (60 hp) falls to the third.
	if got, want := hpDrops(t, w, 1, 80), []uint32{26}; !slices.Equal(got, want) {
		t.Errorf("soldier hit at frames %v, want %v and then dead", got, want)
	}
	if _, ok := w.Unit(1); ok {
		t.Errorf("a player unit at 0 hp is still in the world")
	}
	if w.Frame() != 51 {
		t.Errorf("soldier died at frame %d, want 51", w.Frame())
	}
}

// A player unit that dies still lands the blow it struck in the same step.
func TestSimultaneousBlows(t *testing.T) {
	w := tinyWorld(t, "1...", "....", "....")
	k := kind(t, "soldier")
	if err := w.SetUnit(Unit{ID: 1, Owner: 0, Kind: k.ID, X: 1, Y: 1, HP: 1}); err != nil {
		t.Fatal(err)
	}
	enemy(t, w, FirstEnemyID, "ogre", 2, 1)
	w.Step()
	if _, ok := w.Unit(1); ok {
		t.Fatal("soldier at 0 hp not removed at the end of the step")
	}
	if o := mustUnit(t, w, FirstEnemyID); o.HP == kind(t, "ogre").HP {
		t.Error("the soldier's blow in its last step did not land")
	}
}

// The island map: an archer on the west bank, an enemy on the east bank that
// cannot walk across, 5 cells away (the archer's range).
func islandWorld(t *testing.T) *World {
	w := tinyWorld(t,
		"1.~~..",
		"..~~..",
		"..~~..",
	)
	player(t, w, 1, 0, "archer", 0, 1)
	enemy(t, w, FirstEnemyID, "goblin", 5, 1)
	return w
}

func TestProjectileHits(t *testing.T) {
	w := islandWorld(t)
	archer := kind(t, "archer")
	w.Step()
	as := w.Attacks()
	want := Attack{ID: 1, Owner: 0, From: 1, Target: FirstEnemyID, X: 50, Y: 150, Speed: archer.ProjectileSpeed}
	if len(as) != 1 {
		t.Fatalf("%d attacks in flight, want 1", len(as))
	}
	want.Damage = as[0].Damage
	if as[0] != want || want.Damage < archer.Damage || want.Damage > archer.Damage+archer.Damage/4 {
		t.Fatalf("attack %+v, want %+v with damage %d..%d", as[0], want, archer.Damage, archer.Damage+archer.Damage/4)
	}
	// 500 hundredths of a cell at 150 a frame: at 200, 350, 500, then the
	// last 50 is within one frame's flight and it hits.
	var xs []int32
	for range 3 {
		w.Step()
		xs = append(xs, w.Attacks()[0].X)
	}
	if !slices.Equal(xs, []int32{200, 350, 500}) {
		t.Errorf("attack x %v, want [200 350 500]", xs)
	}
	if g := mustUnit(t, w, FirstEnemyID); g.HP != kind(t, "goblin").HP {
		t.Errorf("damage before arrival: goblin hp %d", g.HP)
	}
	w.Step()
	if len(w.Attacks()) != 0 {
		t.Errorf("attack still in flight after arriving: %+v", w.Attacks())
	}
	if g := mustUnit(t, w, FirstEnemyID); g.HP != kind(t, "goblin").HP-want.Damage {
		t.Errorf("goblin hp %d after the hit, want %d", g.HP, kind(t, "goblin").HP-want.Damage)
	}
	// The next arrow leaves after the cooldown (15 frames after the first, at
	// frame 0): in the step that ends at frame 16.
	for w.Frame() < 15 {
		w.Step()
		if len(w.Attacks()) != 0 {
			t.Fatalf("frame %d: fired during the cooldown", w.Frame())
		}
	}
	w.Step()
	if len(w.Attacks()) != 1 || w.Attacks()[0].ID != 2 {
		t.Errorf("frame 16: attacks %+v, want the second arrow", w.Attacks())
	}
}

func TestProjectileFizzles(t *testing.T) {
	t.Run("target killed in flight", func(t *testing.T) {
		w := islandWorld(t)
		w.Step()
		if err := w.Kill(FirstEnemyID); err != nil {
			t.Fatal(err)
		}
		w.Step()
		if len(w.Attacks()) != 0 {
			t.Errorf("attack on a removed unit still flying: %+v", w.Attacks())
		}
	})
	t.Run("target died of another arrow", func(t *testing.T) {
		w := islandWorld(t)
		player(t, w, 2, 0, "archer", 1, 1) // 4 cells away: its arrow arrives first
		g := mustUnit(t, w, FirstEnemyID)
		g.HP = 1
		if err := w.SetUnit(g); err != nil {
			t.Fatal(err)
		}
		w.Step() // both fire
		if len(w.Attacks()) != 2 {
			t.Fatalf("%d attacks, want 2", len(w.Attacks()))
		}
		for range 3 {
			w.Step()
		}
		g = mustUnit(t, w, FirstEnemyID)
		if !g.Dead || g.HP != 0 || len(w.Attacks()) != 1 || w.Attacks()[0].From != 1 {
			t.Fatalf("after the near arrow: goblin %+v, attacks %+v", g, w.Attacks())
		}
		w.Step()
		if len(w.Attacks()) != 0 {
			t.Errorf("the far arrow did not fizzle: %+v", w.Attacks())
		}
		if g := mustUnit(t, w, FirstEnemyID); g.HP != 0 {
			t.Errorf("a fizzled arrow did damage: hp %d", g.HP)
		}
	})
}

func TestDeadEnemyWaitsForKill(t *testing.T) {
	w := tinyWorld(t, "1.....", "......", "......")
	player(t, w, 1, 0, "knight", 1, 1)
	player(t, w, 2, 0, "soldier", 1, 2)
	enemy(t, w, FirstEnemyID, "goblin", 2, 1)
	for i := 0; ; i++ {
		if i == 100 {
			t.Fatal("the goblin never fell")
		}
		w.Step()
		if mustUnit(t, w, FirstEnemyID).Dead {
			break
		}
	}
	want := Unit{ID: FirstEnemyID, Owner: EnemyOwner, Kind: kindID(t, "goblin"), X: 2, Y: 1, Dead: true}
	for range 30 {
		if g := mustUnit(t, w, FirstEnemyID); g != want {
			t.Fatalf("frame %d: dead goblin %+v, want it still and unchanged: %+v", w.Frame(), g, want)
		}
		w.Step()
		// The step after the death, the units look for something else.
		for _, id := range []uint32{1, 2} {
			if u := mustUnit(t, w, id); u.TargetID != 0 {
				t.Fatalf("frame %d: unit %d targets %d, a dead enemy", w.Frame(), id, u.TargetID)
			}
		}
	}
	err := w.Apply(Command{Player: 0, Kind: CommandAttack, Units: []uint32{1}, Target: FirstEnemyID})
	if !errors.Is(err, ErrBadTarget) {
		t.Errorf("attack order on a dead enemy: %v, want ErrBadTarget", err)
	}
	if err := w.Kill(FirstEnemyID); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Unit(FirstEnemyID); ok {
		t.Error("killed enemy still there")
	}
	for _, c := range []struct {
		id   uint32
		want error
	}{{FirstEnemyID, ErrUnknownUnit}, {1, ErrNotEnemy}, {0, ErrUnknownUnit}} {
		if err := w.Kill(c.id); !errors.Is(err, c.want) {
			t.Errorf("Kill(%d) = %v, want %v", c.id, err, c.want)
		}
	}
}

func TestEnemyHuntsNearestByWalking(t *testing.T) {
	t.Run("around a wall", func(t *testing.T) {
		w := tinyWorld(t,
			"1..#....",
			"...#....",
			"...#....",
			"........",
		)
		player(t, w, 1, 0, "soldier", 4, 0) // 2 cells away as the crow flies, 7 on foot
		player(t, w, 2, 0, "soldier", 0, 3) // 3 cells away on foot
		enemy(t, w, FirstEnemyID, "goblin", 2, 0)
		w.Step()
		if g := mustUnit(t, w, FirstEnemyID); g.TargetID != 2 {
			t.Errorf("goblin hunts %d, want 2 (nearest on foot)", g.TargetID)
		}
	})
	t.Run("ties go to the lower id", func(t *testing.T) {
		w := tinyWorld(t,
			"1.......",
			"........",
			"........",
		)
		player(t, w, 7, 0, "soldier", 0, 1)
		player(t, w, 3, 0, "soldier", 6, 1)
		enemy(t, w, FirstEnemyID, "goblin", 3, 1)
		var xs []int32
		for range 3 {
			w.Step()
			g := mustUnit(t, w, FirstEnemyID)
			if g.TargetID != 3 {
				t.Fatalf("goblin hunts %d, want 3", g.TargetID)
			}
			xs = append(xs, g.X)
		}
		// Speed 45: the first cell after three frames.
		if !slices.Equal(xs, []int32{3, 3, 4}) {
			t.Errorf("goblin x %v, want it walking east towards unit 3: [3 3 4]", xs)
		}
	})
	t.Run("nobody reachable", func(t *testing.T) {
		w := islandWorld(t)
		w.Step()
		if g := mustUnit(t, w, FirstEnemyID); g.TargetID != 0 || g.X != 5 || g.MoveProgress != 0 {
			t.Errorf("goblin with nobody to reach: %+v, want it standing", g)
		}
	})
}

func TestIdleUnitsFightWhatTheySee(t *testing.T) {
	w := tinyWorld(t,
		"1.~~.........",
		"..~~.........",
		"..~~.........",
	)
	sight := kind(t, "soldier").Sight
	player(t, w, 1, 0, "soldier", 0, 1)
	enemy(t, w, FirstEnemyID, "goblin", sight+1, 1) // across the water, out of sight
	w.Step()
	if s := mustUnit(t, w, 1); s.TargetID != 0 {
		t.Errorf("soldier targets %d, out of sight", s.TargetID)
	}
	if err := w.Kill(FirstEnemyID); err != nil {
		t.Fatal(err)
	}
	enemy(t, w, FirstEnemyID+1, "goblin", sight, 1) // in sight, out of reach
	w.Step()
	if s := mustUnit(t, w, 1); s.TargetID != FirstEnemyID+1 || s.X != 0 || s.MoveProgress != 0 {
		t.Errorf("soldier %+v, want it watching the goblin it cannot reach", s)
	}
}

func TestOrders(t *testing.T) {
	t.Run("move ignores enemies", func(t *testing.T) {
		w := tinyWorld(t, "1.........", "..........", "..........")
		player(t, w, 1, 0, "soldier", 0, 0)
		enemy(t, w, FirstEnemyID, "ogre", 5, 1)
		mustApply(t, w, Command{Player: 0, Kind: CommandMove, Units: []uint32{1}, X: 9, Y: 0})
		path := walk(t, w, 1, 100)
		if last := path[len(path)-1]; last != (cell{9, 0}) {
			t.Fatalf("soldier ended at %v", last)
		}
		if o := mustUnit(t, w, FirstEnemyID); o.HP != kind(t, "ogre").HP {
			t.Errorf("the soldier struck on a move order: ogre hp %d", o.HP)
		}
	})
	t.Run("attack chases until the target dies", func(t *testing.T) {
		w := tinyWorld(t, "1.........", "..........", "..........")
		player(t, w, 1, 0, "knight", 0, 0)
		enemy(t, w, FirstEnemyID, "goblin", 9, 2)
		enemy(t, w, FirstEnemyID+1, "goblin", 2, 2) // nearer, but not the target
		mustApply(t, w, Command{Player: 0, Kind: CommandAttack, Units: []uint32{1}, Target: FirstEnemyID})
		for i := 0; mustUnit(t, w, 1).Order == OrderAttack; i++ {
			if i == 300 {
				t.Fatal("the attack never ended")
			}
			if u := mustUnit(t, w, 1); u.TargetID != FirstEnemyID {
				t.Fatalf("frame %d: knight targets %d", w.Frame(), u.TargetID)
			}
			w.Step()
		}
		if g := mustUnit(t, w, FirstEnemyID); !g.Dead {
			t.Errorf("attack order ended with the target alive: %+v", g)
		}
	})
	t.Run("stop", func(t *testing.T) {
		w := tinyWorld(t, "1.........", "..........", "..........")
		player(t, w, 1, 0, "soldier", 0, 0)
		mustApply(t, w, Command{Player: 0, Kind: CommandMove, Units: []uint32{1}, X: 9, Y: 0})
		for range 5 {
			w.Step()
		}
		mustApply(t, w, Command{Player: 0, Kind: CommandStop, Units: []uint32{1}})
		u := mustUnit(t, w, 1)
		if u.Order != OrderNone || u.TargetX != 0 || u.MoveProgress != 0 {
			t.Fatalf("after stop: %+v", u)
		}
		w.Step()
		if v := mustUnit(t, w, 1); v.X != u.X {
			t.Errorf("stopped unit walked on")
		}
	})
}

func TestAddPlayerUnits(t *testing.T) {
	w := mustWorld(t, "skirmish", 1)
	ids, err := w.AddPlayerUnits(2)
	if err != nil {
		t.Fatal(err)
	}
	more, err := w.AddPlayerUnits(2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []uint32{1, 2, 3, 4, 5}) || !slices.Equal(more, []uint32{6, 7, 8, 9, 10}) {
		t.Fatalf("ids %v then %v", ids, more)
	}
	sx, sy, _ := w.Spawn(2)
	seen := map[cell]bool{}
	for i, u := range w.Units() {
		if u.Owner != 2 || u.Kind != kindID(t, StartingSquad()[i%5]) || u.HP != kind(t, StartingSquad()[i%5]).HP {
			t.Errorf("unit %+v", u)
		}
		if seen[cell{u.X, u.Y}] {
			t.Errorf("two units on (%d,%d)", u.X, u.Y)
		}
		seen[cell{u.X, u.Y}] = true
		if max(abs32(u.X-sx), abs32(u.Y-sy)) > 2 {
			t.Errorf("unit %d at (%d,%d), far from the spawn point (%d,%d)", u.ID, u.X, u.Y, sx, sy)
		}
	}
	if u := mustUnit(t, w, 1); u.X != sx || u.Y != sy {
		t.Errorf("first unit at (%d,%d), want the spawn point", u.X, u.Y)
	}
	if _, err := w.AddPlayerUnits(MaxPlayers); !errors.Is(err, ErrNoSpawn) {
		t.Errorf("seat 8: %v, want ErrNoSpawn", err)
	}
	// The same calls give the same units.
	w2 := mustWorld(t, "skirmish", 1)
	w2.AddPlayerUnits(2)
	w2.AddPlayerUnits(2)
	if !slices.Equal(w.Units(), w2.Units()) {
		t.Error("AddPlayerUnits is not deterministic")
	}
}

func TestSpawnEnemyErrors(t *testing.T) {
	w := mustWorld(t, "skirmish", 1)
	enemy(t, w, FirstEnemyID, "goblin", 1, 1)
	for _, c := range []struct {
		name string
		id   uint32
		kind string
		x, y int32
		want error
	}{
		{"player id range", FirstEnemyID - 1, "goblin", 2, 1, ErrBadID},
		{"id zero", 0, "goblin", 2, 1, ErrBadID},
		{"id too big", MaxUnitID + 1, "goblin", 2, 1, ErrBadID},
		{"id in use", FirstEnemyID, "goblin", 2, 1, ErrIDInUse},
		{"unknown kind", FirstEnemyID + 1, "dragon", 2, 1, ErrUnknownKind},
		{"wall", FirstEnemyID + 1, "goblin", 0, 0, ErrBlocked},
		{"water", FirstEnemyID + 1, "goblin", 30, 10, ErrBlocked},
		{"outside", FirstEnemyID + 1, "goblin", -1, 5, ErrBlocked},
		{"outside far", FirstEnemyID + 1, "goblin", 60, 5, ErrBlocked},
	} {
		if err := w.SpawnEnemy(c.id, c.kind, c.x, c.y); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if len(w.Units()) != 1 {
		t.Errorf("failed spawns left units: %+v", w.Units())
	}
}
