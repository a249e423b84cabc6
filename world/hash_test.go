package world

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// canonicalUnit is the 40-byte encoding the unit hash is defined over,
// written out field by field as the package documentation lays it out.
func canonicalUnit(u Unit) []byte {
	b := make([]byte, 0, 40)
	for _, v := range []uint32{u.ID, uint32(u.X), uint32(u.Y), uint32(u.HP), uint32(u.TargetX), uint32(u.TargetY), u.TargetID, uint32(u.Cooldown), uint32(u.MoveProgress)} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	dead := byte(0)
	if u.Dead {
		dead = 1
	}
	return append(b, u.Owner, u.Kind, byte(u.Order), dead)
}

// wordFNV is FNV-1a over 8-byte little-endian words, then the finalizer.
func wordFNV(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for len(b) > 0 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 1099511628211
		b = b[8:]
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func randomUnit(rng *rand.Rand) Unit {
	return Unit{
		ID: rng.Uint32(), Owner: uint8(rng.Uint32()), Kind: uint8(rng.Uint32()),
		X: int32(rng.Uint32()), Y: int32(rng.Uint32()), HP: int32(rng.Uint32()),
		Order: Order(rng.IntN(3)), TargetX: int32(rng.Uint32()), TargetY: int32(rng.Uint32()), TargetID: rng.Uint32(),
		Cooldown: int32(rng.Uint32()), MoveProgress: int32(rng.Uint32()), Dead: rng.IntN(2) == 0,
	}
}

func TestUnitHashIsOverTheCanonicalEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	units := []Unit{{}, {ID: 1, HP: 60}, {ID: FirstEnemyID, Owner: EnemyOwner, Kind: 3, X: 5, Y: 6, Dead: true}}
	for range 1000 {
		units = append(units, randomUnit(rng))
	}
	for _, u := range units {
		if got, want := u.Hash(), wordFNV(canonicalUnit(u)); got != want {
			t.Fatalf("%+v: Hash %#x, want %#x", u, got, want)
		}
	}
	// Attacks the same way.
	a := Attack{ID: 1, Owner: 2, From: 3, Target: 4, X: -5, Y: 6, Damage: 7, Speed: 150}
	var b []byte
	for _, v := range []uint32{a.ID, a.From, a.Target, uint32(a.X), uint32(a.Y), uint32(a.Damage), uint32(a.Speed)} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	b = append(b, a.Owner, 0, 0, 0)
	if got, want := a.Hash(), wordFNV(b); got != want {
		t.Errorf("attack hash %#x, want %#x", got, want)
	}
}

// Every bit of every field changes the hash: nothing that matters is left out.
func TestUnitHashCoversEveryBit(t *testing.T) {
	base := Unit{ID: 17, Owner: 2, Kind: 1, X: 40, Y: 12, HP: 33, Order: OrderMove, TargetX: 50, TargetY: 3, Cooldown: 4, MoveProgress: 60}
	h := base.Hash()
	fields := []struct {
		name string
		bits int
		flip func(u *Unit, bit int)
	}{
		{"ID", 32, func(u *Unit, b int) { u.ID ^= 1 << b }},
		{"Owner", 8, func(u *Unit, b int) { u.Owner ^= 1 << b }},
		{"Kind", 8, func(u *Unit, b int) { u.Kind ^= 1 << b }},
		{"X", 32, func(u *Unit, b int) { u.X ^= 1 << b }},
		{"Y", 32, func(u *Unit, b int) { u.Y ^= 1 << b }},
		{"HP", 32, func(u *Unit, b int) { u.HP ^= 1 << b }},
		{"Order", 8, func(u *Unit, b int) { u.Order ^= 1 << b }},
		{"TargetX", 32, func(u *Unit, b int) { u.TargetX ^= 1 << b }},
		{"TargetY", 32, func(u *Unit, b int) { u.TargetY ^= 1 << b }},
		{"TargetID", 32, func(u *Unit, b int) { u.TargetID ^= 1 << b }},
		{"Cooldown", 32, func(u *Unit, b int) { u.Cooldown ^= 1 << b }},
		{"MoveProgress", 32, func(u *Unit, b int) { u.MoveProgress ^= 1 << b }},
		{"Dead", 1, func(u *Unit, b int) { u.Dead = !u.Dead }},
	}
	for _, f := range fields {
		for bit := range f.bits {
			u := base
			f.flip(&u, bit)
			if u.Hash() == h {
				t.Errorf("flipping %s bit %d leaves the hash unchanged", f.name, bit)
			}
		}
	}
}

// XORed together, the hashes of units that differ only in small numbers
// still look random: each output bit is set about half the time. Without the
// finalizer the low bits would depend only on the low bits of each field.
func TestUnitHashBitsBalanced(t *testing.T) {
	var counts [64]int
	n := 0
	for id := uint32(1); id <= 64; id++ {
		for hp := int32(1); hp <= 64; hp++ {
			h := Unit{ID: id, HP: hp, X: 3, Y: 4}.Hash()
			for b := range 64 {
				counts[b] += int(h >> b & 1)
			}
			n++
		}
	}
	for b, c := range counts {
		if c < n*45/100 || c > n*55/100 {
			t.Errorf("bit %d set in %d of %d hashes", b, c, n)
		}
	}
}

// sampleWorld returns a copy of a busy world: a scenario on the large map run
// for at least 300 frames, and then until the world has attacks in flight and
// player units. It is built once per test binary.
func sampleWorld(t testing.TB) *World {
	t.Helper()
	sample.once.Do(func() {
		w := mustWorld(t, "continent", 5)
		sc := newScenario(5, 8, 60)
		for i := 0; i < 300 || len(w.Attacks()) < 2 || w.Units()[0].IsEnemy(); i++ {
			if i == 5000 {
				t.Fatal("the sample world never got busy")
			}
			apply(t, w, sc.events(w))
			w.Step()
		}
		sample.w = w
	})
	if sample.w == nil {
		t.Fatal("no sample world")
	}
	return sample.w.Clone()
}

var sample struct {
	once sync.Once
	w    *World
}

func TestGroupHashes(t *testing.T) {
	w := tinyWorld(t, "1...", "....", "....")
	var ids []uint32
	for i := range 12 {
		id := uint32(i*3 + 1)
		player(t, w, id, 0, "soldier", int32(i%4), int32(i/4))
		ids = append(ids, id)
	}
	xor := func(from, to int) uint64 {
		var x uint64
		for _, u := range w.Units()[from:to] {
			x ^= u.Hash()
		}
		return x
	}
	for _, c := range []struct {
		size int
		want []GroupHash
	}{
		{5, []GroupHash{{1, 13, xor(0, 5)}, {14, 28, xor(5, 10)}, {29, MaxUnitID, xor(10, 12)}}},
		{12, []GroupHash{{1, MaxUnitID, xor(0, 12)}}},
		{100, []GroupHash{{1, MaxUnitID, xor(0, 12)}}},
		{0, nil}, // counts as 1, checked below
	} {
		got := w.GroupHashes(c.size, nil)
		if c.size == 0 {
			if len(got) != 12 || got[3] != (GroupHash{8, 10, w.Units()[3].Hash()}) {
				t.Errorf("size 0: %v", got)
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("size %d: %v, want %v", c.size, got, c.want)
		}
		if kept := GroupUnitHashes(w.UnitHashes(1, MaxUnitID, nil), c.size, nil); !slices.Equal(kept, got) {
			t.Errorf("size %d: from kept unit hashes %v, from the world %v", c.size, kept, got)
		}
		for _, g := range got {
			if r := w.RangeHash(g.Start, g.End); r != g.Hash {
				t.Errorf("RangeHash(%d,%d) = %#x, group says %#x", g.Start, g.End, r, g.Hash)
			}
		}
	}
	buf := make([]GroupHash, 0, 8)
	if got := w.GroupHashes(5, buf); &got[0] != &buf[:1][0] {
		t.Error("GroupHashes did not reuse dst")
	}
	if got := w.UnitHashes(2, 10, nil); !slices.Equal(got, []UnitHash{{4, w.Units()[1].Hash()}, {7, w.Units()[2].Hash()}, {10, w.Units()[3].Hash()}}) {
		t.Errorf("UnitHashes(2,10) = %v", got)
	}
	if got := w.UnitHashes(35, 100, nil); len(got) != 0 || w.RangeHash(35, 100) != 0 {
		t.Errorf("past the last unit: %v", got)
	}
	if got := tinyWorld(t, "1..", "...", "...").GroupHashes(10, nil); len(got) != 0 {
		t.Errorf("empty world: %v", got)
	}
}

// TestGroupUnitHashesIn: the groups of one id range tile it exactly, from its first id to its
// last, whatever ids its units have; a range without units makes no group.
func TestGroupUnitHashesIn(t *testing.T) {
	hs := []UnitHash{{ID: 20, Hash: 1}, {ID: 21, Hash: 2}, {ID: 25, Hash: 4}, {ID: 30, Hash: 8}, {ID: 31, Hash: 16}}
	for _, c := range []struct {
		name        string
		hs          []UnitHash
		first, last uint32
		size        int
		want        []GroupHash
	}{
		{"two per group", hs, 11, 40, 2, []GroupHash{{11, 21, 3}, {22, 30, 12}, {31, 40, 16}}},
		{"one group", hs, 20, 31, 5, []GroupHash{{20, 31, 31}}},
		{"size 0 counts as 1", hs[:2], 1, MaxUnitID, 0, []GroupHash{{1, 20, 1}, {21, MaxUnitID, 2}}},
		{"no units", nil, 5, 9, 3, nil},
	} {
		got := GroupUnitHashesIn(c.hs, c.first, c.last, c.size, nil)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if whole, in := GroupUnitHashes(hs, 2, nil), GroupUnitHashesIn(hs, 1, MaxUnitID, 2, nil); !slices.Equal(whole, in) {
		t.Errorf("the whole id space: %v, GroupUnitHashes says %v", in, whole)
	}
}

// The server's drill-down: compare a client's groups against its own world
// over the same id ranges, then compare per-unit hashes in the groups that
// differ. It finds exactly the changed unit and the missing one, wherever the
// missing one sat (first, last, or at a group's edge).
func TestGroupHashesFindTheDesync(t *testing.T) {
	server := sampleWorld(t)
	n := len(server.Units())
	for _, missingAt := range []int{0, 9, 10, 11, 19, n / 3, n - 1} {
		client := server.Clone()
		units := client.Units()
		changed := units[n/2]
		missing := units[missingAt]
		changed.HP--
		if err := client.SetUnit(changed); err != nil {
			t.Fatal(err)
		}
		client.RemoveUnit(missing.ID)
		// And a unit the server does not have.
		extra := Unit{ID: MaxUnitID, Owner: EnemyOwner, Kind: kindID(t, "goblin"), X: changed.X, Y: changed.Y, HP: 1}
		if err := client.SetUnit(extra); err != nil {
			t.Fatal(err)
		}

		var suspects []uint32
		for _, g := range client.GroupHashes(10, nil) {
			if server.RangeHash(g.Start, g.End) == g.Hash {
				continue
			}
			mine := server.UnitHashes(g.Start, g.End, nil)
			theirs := client.UnitHashes(g.Start, g.End, nil)
			for _, uh := range mine {
				i := slices.IndexFunc(theirs, func(o UnitHash) bool { return o.ID == uh.ID })
				if i < 0 || theirs[i].Hash != uh.Hash {
					suspects = append(suspects, uh.ID)
				}
			}
			for _, uh := range theirs { // units the client has and the server does not
				if !slices.ContainsFunc(mine, func(o UnitHash) bool { return o.ID == uh.ID }) {
					suspects = append(suspects, uh.ID)
				}
			}
		}
		slices.Sort(suspects)
		want := []uint32{missing.ID, changed.ID, extra.ID}
		slices.Sort(want)
		if !slices.Equal(suspects, want) {
			t.Errorf("missing unit %d of %d: drill-down found %v, want %v", missingAt, n, suspects, want)
		}
	}
}

func TestWorldHash(t *testing.T) {
	w := sampleWorld(t)
	h := w.Hash()
	if c := w.Clone(); c.Hash() != h {
		t.Fatal("a clone hashes differently")
	}
	for _, c := range []struct {
		name   string
		change func(w *World)
	}{
		{"frame", func(w *World) { w.frame++ }},
		{"generator", func(w *World) { w.rng.Uint64() }},
		{"next id", func(w *World) { w.nextID++ }},
		{"next attack id", func(w *World) { w.nextAttackID++ }},
		{"a unit", func(w *World) { w.units[3].Cooldown++ }},
		{"a unit removed", func(w *World) { w.RemoveUnit(w.units[0].ID) }},
		{"an attack", func(w *World) {
			w.attacks = append(w.attacks, Attack{ID: w.nextAttackID, Target: 1, Speed: 150})
		}},
	} {
		c2 := w.Clone()
		c.change(c2)
		if c2.Hash() == h {
			t.Errorf("changing the %s leaves the world hash unchanged", c.name)
		}
	}
	a, _ := NewWorld("skirmish", 1)
	b, _ := NewWorld("continent", 1)
	d, _ := NewWorld("skirmish", 2)
	if a.Hash() == b.Hash() || a.Hash() == d.Hash() {
		t.Error("empty worlds on different maps or seeds hash the same")
	}
	if bits.OnesCount64(a.Hash()^d.Hash()) < 10 {
		t.Error("seeds 1 and 2 give nearly equal hashes")
	}
}

// TestStateHash: the state hash covers what the world hash covers besides the units and the
// frame (the counters, the generator, the attacks in flight), and nothing else; two worlds at
// one frame with the same units and the same state hash have the same world hash.
func TestStateHash(t *testing.T) {
	w := sampleWorld(t)
	h := w.StateHash()
	for _, c := range []struct {
		name    string
		change  func(w *World)
		changes bool
	}{
		{"generator", func(w *World) { w.rng.Uint64() }, true},
		{"next id", func(w *World) { w.nextID++ }, true},
		{"next attack id", func(w *World) { w.nextAttackID++ }, true},
		{"an attack", func(w *World) { w.attacks[0].Damage++ }, true},
		{"an attack more", func(w *World) {
			w.attacks = append(w.attacks, Attack{ID: w.nextAttackID, Target: 1, Speed: 150})
		}, true},
		{"an attack less", func(w *World) { w.attacks = w.attacks[1:] }, true},
		{"frame", func(w *World) { w.frame++ }, false},
		{"a unit", func(w *World) { w.units[3].Cooldown++ }, false},
		{"a unit removed", func(w *World) { w.RemoveUnit(w.units[0].ID) }, false},
	} {
		c2 := w.Clone()
		c.change(c2)
		if changed := c2.StateHash() != h; changed != c.changes {
			t.Errorf("changing the %s changes the state hash: %v, want %v", c.name, changed, c.changes)
		}
	}
	a, _ := NewWorld("skirmish", 1)
	b, _ := NewWorld("continent", 1)
	if a.StateHash() == b.StateHash() {
		t.Error("empty worlds on different maps have the same state hash")
	}
}

// TestResetStartsAFreshRound: two worlds with different pasts, one busy with units and attacks
// in flight and one empty, reset at the same frame with the same seed, are equal from then on;
// ids start again from the first, and only the frame counter remembers the past.
func TestResetStartsAFreshRound(t *testing.T) {
	busy := sampleWorld(t)
	quiet := mustWorld(t, "continent", 9)
	for quiet.Frame() < busy.Frame() {
		quiet.Step()
	}
	if busy.Hash() == quiet.Hash() {
		t.Fatal("the two worlds are equal before the reset: the test proves nothing")
	}
	frame := busy.Frame()
	for _, w := range []*World{busy, quiet} {
		w.Reset(42)
		if w.Frame() != frame || len(w.Units()) != 0 || len(w.Attacks()) != 0 || w.NextID() != 1 {
			t.Fatalf("after Reset: frame %d (want %d), %d units, %d attacks, next id %d", w.Frame(), frame, len(w.Units()), len(w.Attacks()), w.NextID())
		}
	}
	fresh := mustWorld(t, "continent", 42)
	for seat := range uint8(2) {
		want, _ := fresh.AddPlayerUnits(seat)
		for _, w := range []*World{busy, quiet} {
			if ids, err := w.AddPlayerUnits(seat); err != nil || !slices.Equal(ids, want) {
				t.Fatalf("seat %d's squad after Reset: ids %v (%v), a new world's %v", seat, ids, err, want)
			}
		}
	}
	for range 100 {
		if busy.Hash() != quiet.Hash() {
			t.Fatalf("frame %d: the worlds differ after the same reset", busy.Frame())
		}
		busy.Step()
		quiet.Step()
	}
}
