package world

import (
	"math/rand/v2"
	"testing"
)

// benchWorld builds the large map with units players' units in squads around
// the eight spawn points and as many enemies scattered over the reachable
// ground, then steps it a few frames so that the fighting has started.
func benchWorld(b *testing.B, units int) *World {
	w := mustWorld(b, "continent", 42)
	rng := rand.New(rand.NewPCG(42, 42))
	for len(w.Units()) < units/2 {
		if _, err := w.AddPlayerUnits(uint8(len(w.Units()) / 5 % 8)); err != nil {
			b.Fatal(err)
		}
	}
	sx, sy, _ := w.Spawn(0)
	kinds := []string{"goblin", "goblin", "hurler", "ogre"}
	for id := uint32(FirstEnemyID); len(w.Units()) < units; id++ {
		x, y := rng.Int32N(w.Width()), rng.Int32N(w.Height())
		if !w.Reachable(sx, sy, x, y) {
			continue
		}
		if err := w.SpawnEnemy(id, kinds[rng.IntN(len(kinds))], x, y); err != nil {
			b.Fatal(err)
		}
	}
	for range 20 {
		w.Step()
	}
	return w
}

// BenchmarkStep steps a world of 2000 units (1000 players', 1000 enemies) on
// the large map. Every 50 steps it starts again from a copy of the same
// world, so the armies do not wear down. It reports ns per unit per step.
func BenchmarkStep(b *testing.B) {
	base := benchWorld(b, 2000)
	w := base.Clone()
	unitSteps := 0
	b.ReportAllocs()
	for b.Loop() {
		if w.Frame()-base.Frame() == 50 {
			w.CopyFrom(base)
		}
		unitSteps += len(w.Units())
		w.Step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(unitSteps), "ns/unit")
}

// perUnit reports the time per unit of an operation run over n units per op.
func perUnit(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
}

// BenchmarkUnitHash hashes every unit of the 2000-unit world once per op.
func BenchmarkUnitHash(b *testing.B) {
	w := benchWorld(b, 2000)
	units := w.Units()
	var sink uint64
	b.ReportAllocs()
	for b.Loop() {
		for i := range units {
			sink ^= units[i].Hash()
		}
	}
	perUnit(b, len(units))
	if sink == 1 {
		b.Log(sink)
	}
}

// BenchmarkWorldHash hashes the whole 2000-unit world.
func BenchmarkWorldHash(b *testing.B) {
	w := benchWorld(b, 2000)
	b.ReportAllocs()
	for b.Loop() {
		w.Hash()
	}
	perUnit(b, len(w.Units()))
}

// BenchmarkGroupHashes computes the groups of 10 over the 2000-unit world,
// what a client sends the server: 200 groups.
func BenchmarkGroupHashes(b *testing.B) {
	w := benchWorld(b, 2000)
	dst := make([]GroupHash, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		dst = w.GroupHashes(10, dst)
	}
	perUnit(b, len(w.Units()))
}

// BenchmarkAppendUnit encodes every unit of the 2000-unit world into one
// reused buffer.
func BenchmarkAppendUnit(b *testing.B) {
	w := benchWorld(b, 2000)
	units := w.Units()
	buf := make([]byte, 0, 64*len(units))
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i := range units {
			var err error
			if buf, err = AppendUnit(buf, &units[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	perUnit(b, len(units))
	b.ReportMetric(float64(len(buf))/float64(len(units)), "bytes/unit")
}

// BenchmarkParseUnit parses those encodings back.
func BenchmarkParseUnit(b *testing.B) {
	w := benchWorld(b, 2000)
	var buf []byte
	for i := range w.Units() {
		buf = mustAppendUnit(b, buf, &w.Units()[i])
	}
	b.ReportAllocs()
	for b.Loop() {
		for rest := buf; len(rest) > 0; {
			_, n, err := ParseUnit(rest)
			if err != nil {
				b.Fatal(err)
			}
			rest = rest[n:]
		}
	}
	perUnit(b, len(w.Units()))
}

// BenchmarkCopyFrom copies the 2000-unit world into a reused one, as a
// server keeping a history of frames would.
func BenchmarkCopyFrom(b *testing.B) {
	w := benchWorld(b, 2000)
	var dst World
	b.ReportAllocs()
	for b.Loop() {
		dst.CopyFrom(w)
	}
}
