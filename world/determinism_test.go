package world

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// lockstepFrames is how long the lockstep test runs: the full 10,000 frames
// (16 minutes of play), or 600 under the race detector, which is ten times
// slower, or with -short.
func lockstepFrames() int {
	if raceEnabled || testing.Short() {
		return 600
	}
	return 10000
}

// Two worlds fed the same calls stay equal at every frame: the large map,
// eight players' squads, a few hundred enemies spawned over time, random
// orders, kills a few frames after each death, reinforcements.
func TestLockstep(t *testing.T) {
	t.Parallel()
	a := mustWorld(t, "continent", 2026)
	b := mustWorld(t, "continent", 2026)
	sc := newScenario(2026, 8, 300)
	frames := lockstepFrames()
	var spawned, killed, commands, maxUnits, maxAttacks int
	for range frames {
		evs := sc.events(a)
		for _, ev := range evs {
			switch {
			case ev.spawn != nil:
				spawned++
			case ev.kill != 0:
				killed++
			case ev.cmd != nil:
				commands++
			}
		}
		apply(t, a, evs)
		apply(t, b, evs)
		a.Step()
		b.Step()
		if a.Hash() != b.Hash() {
			t.Fatalf("frame %d: hashes differ", a.Frame())
		}
		maxUnits = max(maxUnits, len(a.Units()))
		maxAttacks = max(maxAttacks, len(a.Attacks()))
	}
	if !slices.Equal(a.Units(), b.Units()) || !slices.Equal(a.Attacks(), b.Attacks()) {
		t.Fatal("equal hashes, different worlds")
	}
	t.Logf("%d frames: %d enemies spawned, %d killed, %d commands; at most %d units and %d attacks at once",
		frames, spawned, killed, commands, maxUnits, maxAttacks)
	// The run must have exercised the rules, or equality proves little.
	if spawned < min(300, frames/4) || killed < frames/100 || maxAttacks < 5 {
		t.Errorf("too quiet a game to prove anything")
	}
}

// A clone stepped on another goroutine, alongside the original, stays equal
// to it. Under the race detector this also proves that the two share nothing
// they write.
func TestCloneInParallel(t *testing.T) {
	t.Parallel()
	orig := mustWorld(t, "continent", 77)
	sc := newScenario(77, 8, 200)
	for range 300 {
		apply(t, orig, sc.events(orig))
		orig.Step()
	}
	clone := orig.Clone()
	if clone.Hash() != orig.Hash() {
		t.Fatal("clone differs at once")
	}
	frames := 1500
	if raceEnabled || testing.Short() {
		frames = 200
	}
	events := make(chan []event, 16)
	hashes := make(chan uint64, frames)
	errs := make(chan error, 1)
	go func() {
		defer close(hashes)
		for evs := range events {
			if err := applyErr(clone, evs); err != nil {
				errs <- err
				return
			}
			clone.Step()
			hashes <- clone.Hash()
		}
	}()
	var want []uint64
	for range frames {
		evs := sc.events(orig)
		events <- evs
		apply(t, orig, evs)
		orig.Step()
		want = append(want, orig.Hash())
	}
	close(events)
	i := 0
	for h := range hashes {
		if h != want[i] {
			t.Fatalf("frame %d: the clone's hash differs", 301+i)
		}
		i++
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if i != frames {
		t.Fatalf("the clone stepped %d frames, want %d", i, frames)
	}
	// And a clone is a copy: changing it leaves the original alone.
	c := orig.Clone()
	h := orig.Hash()
	c.Step()
	if len(c.Units()) > 0 {
		c.RemoveUnit(c.Units()[0].ID)
	}
	if orig.Hash() != h {
		t.Error("changing a clone changed the original")
	}
	// CopyFrom gives the same world as Clone.
	var d World
	d.CopyFrom(orig)
	if d.Hash() != h {
		t.Error("CopyFrom differs from the original")
	}
}

func applyErr(w *World, evs []event) (err error) {
	for _, ev := range evs {
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
			return fmt.Errorf("frame %d: %w", w.Frame(), err)
		}
	}
	return nil
}

// The world hash every 100 frames of a fixed game, against the file. A change
// here means the rules changed (then run with -update and say so in the
// change), or the simulation is not the same on this machine: a float, a map
// iteration or an uninitialised value crept in.
func TestGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "lockstep.golden")
	var got strings.Builder
	fmt.Fprintln(&got, "# world hash of the continent game, seed 1, 8 players, up to 200 enemies")
	w := mustWorld(t, "continent", 1)
	sc := newScenario(1, 8, 200)
	for range 600 {
		apply(t, w, sc.events(w))
		w.Step()
		if w.Frame()%50 == 0 {
			fmt.Fprintf(&got, "frame %4d units %3d attacks %2d hash %016x\n", w.Frame(), len(w.Units()), len(w.Attacks()), w.Hash())
		}
	}
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./world -run TestGolden -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("the game differs from %s:\ngot:\n%swant:\n%s", path, got.String(), want)
	}
}
