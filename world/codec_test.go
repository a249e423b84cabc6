package world

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/internal/codectest"
	"github.com/ackattack/ackattack/internal/int30"
)

var unhex = codectest.Unhex

var unitEncodings = []struct {
	name string
	unit Unit
	hex  string
}{
	// id | owner | kind | flags | x | y | hp
	{"fresh soldier", Unit{ID: 1, HP: 60}, "01 00 00 00 00 00 3c"},
	{
		"moving archer",
		Unit{ID: 300, Owner: 3, Kind: 1, X: 150, Y: 7, HP: 35, Order: OrderMove, TargetX: 199, TargetY: 0, Cooldown: 5, MoveProgress: 80},
		// id 300 | owner | kind | flags move+cell+cooldown+progress | x 150 | y 7 | hp 35 | target 199,0 | cooldown 5 | progress 80
		"812c 03 01 69 8096 07 23 80c7 00 05 8050",
	},
	{
		"dead enemy",
		Unit{ID: FirstEnemyID, Owner: EnemyOwner, Kind: 3, X: 5, Y: 6, Dead: true},
		// id 10000 | enemy | kind 3 | flags dead | x 5 | y 6 | hp 0
		"a710 ff 03 04 05 06 00",
	},
	{
		"attacking knight",
		Unit{ID: 2, Owner: 7, Kind: 2, X: -1, Y: 2, HP: 1, Order: OrderAttack, TargetID: FirstEnemyID + 1},
		// id 2 | owner 7 | kind 2 | flags attack+target id | x −1 | y 2 | hp 1 | target 10001
		"02 07 02 12 41 02 01 a711",
	},
	{
		"extremes",
		Unit{ID: MaxUnitID, Owner: 0, X: -int30.MaxInt30, Y: int30.MaxInt30, HP: -1, TargetX: 0, TargetY: -1, TargetID: MaxUnitID, Cooldown: -int30.MaxInt30, MoveProgress: int30.MaxInt30},
		"ffffffff 00 00 78 ffffffff dfffffff 41 00 41 ffffffff ffffffff dfffffff",
	},
}

// mustAppendUnit encodes a unit the test knows is valid.
func mustAppendUnit(t testing.TB, b []byte, u *Unit) []byte {
	t.Helper()
	b, err := AppendUnit(b, u)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUnitCodec(t *testing.T) {
	for _, c := range unitEncodings {
		t.Run(c.name, func(t *testing.T) {
			want := unhex(t, c.hex)
			got := mustAppendUnit(t, []byte{0xee}, &c.unit)
			if !bytes.Equal(got[1:], want) || got[0] != 0xee {
				t.Fatalf("AppendUnit = % x, want % x", got[1:], want)
			}
			u, n, err := ParseUnit(append(want, 0xaa, 0xbb))
			if err != nil || n != len(want) || u != c.unit {
				t.Fatalf("ParseUnit = %+v, %d, %v; want %+v, %d", u, n, err, c.unit, len(want))
			}
			for i := range want {
				if _, _, err := ParseUnit(want[:i]); !errors.Is(err, int30.ErrShort) {
					t.Errorf("%d of %d bytes: %v, want ErrShort", i, len(want), err)
				}
			}
		})
	}
}

func TestUnitCodecRejects(t *testing.T) {
	for _, c := range []struct {
		name, hex string
		want      error
	}{
		{"id zero", "00 00 00 00 00 00 3c", int30.ErrRange},
		{"id in two bytes", "8001 00 00 00 00 00 3c", int30.ErrNonCanonical},
		{"id cut", "c000", int30.ErrShort},
		{"owner 8", "01 08 00 00 00 00 3c", int30.ErrRange},
		{"order 3", "01 00 00 03 00 00 3c", int30.ErrRange},
		{"reserved flag", "01 00 00 80 00 00 3c", int30.ErrNonCanonical},
		{"x in two bytes", "01 00 00 00 8000 00 3c", int30.ErrNonCanonical},
		{"x negative zero", "01 00 00 00 40 00 3c", int30.ErrNonCanonical},
		{"target cell present but zero", "01 00 00 09 00 00 3c 00 00", int30.ErrNonCanonical},
		{"target id zero", "01 00 00 12 00 00 3c 00", int30.ErrRange},
		{"cooldown present but zero", "01 00 00 20 00 00 3c 00", int30.ErrNonCanonical},
		{"progress present but zero", "01 00 00 40 00 00 3c 00", int30.ErrNonCanonical},
		{"empty", "", int30.ErrShort},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, n, err := ParseUnit(unhex(t, c.hex))
			if !errors.Is(err, c.want) || n != 0 {
				t.Errorf("ParseUnit = %d, %v; want %v", n, err, c.want)
			}
		})
	}
}

// refusal is a change that makes a valid value one its Append must refuse,
// with the error it must wrap.
type refusal[T any] struct {
	name   string
	change func(*T)
	want   error
}

// checkRefusals applies each change to a fresh valid value and checks that
// encode refuses the result with the refusal's error, and returns b as it
// was without writing a byte, not even in its spare capacity.
func checkRefusals[T any](t *testing.T, valid func() T, encode func([]byte, *T) ([]byte, error), refusals []refusal[T]) {
	t.Helper()
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			v := valid()
			r.change(&v)
			b := make([]byte, 1, 1024)
			got, err := encode(b, &v)
			if !errors.Is(err, r.want) {
				t.Errorf("error %v, want %v", err, r.want)
			}
			if len(got) != 1 || &got[0] != &b[0] || slices.ContainsFunc(got[:cap(got)], func(c byte) bool { return c != 0 }) {
				t.Errorf("wrote % x before it failed", got[:cap(got)])
			}
		})
	}
}

// TestAppendUnitRejects: AppendUnit refuses every unit that ParseUnit would
// refuse or read back as another, before it writes a byte.
func TestAppendUnitRejects(t *testing.T) {
	valid := func() Unit { return unitEncodings[1].unit }
	checkRefusals(t, valid, AppendUnit, []refusal[Unit]{
		{"id zero", func(u *Unit) { u.ID = 0 }, int30.ErrRange},
		{"id beyond MaxUnitID", func(u *Unit) { u.ID = MaxUnitID + 1 }, int30.ErrRange},
		{"owner 8", func(u *Unit) { u.Owner = 8 }, int30.ErrRange},
		{"order 3", func(u *Unit) { u.Order = 3 }, int30.ErrRange},
		{"order 4, whose low bits are OrderNone", func(u *Unit) { u.Order = 4 }, int30.ErrRange},
		{"x beyond an Int30", func(u *Unit) { u.X = int30.MaxInt30 + 1 }, int30.ErrRange},
		{"y most negative", func(u *Unit) { u.Y = math.MinInt32 }, int30.ErrRange},
		{"hp below an Int30", func(u *Unit) { u.HP = -int30.MaxInt30 - 1 }, int30.ErrRange},
		{"target x beyond an Int30", func(u *Unit) { u.TargetX = math.MaxInt32 }, int30.ErrRange},
		{"target y beyond an Int30", func(u *Unit) { u.TargetY = int30.MaxInt30 + 1 }, int30.ErrRange},
		{"target id beyond MaxUnitID", func(u *Unit) { u.TargetID = MaxUnitID + 1 }, int30.ErrRange},
		{"cooldown beyond an Int30", func(u *Unit) { u.Cooldown = int30.MaxInt30 + 1 }, int30.ErrRange},
		{"move progress beyond an Int30", func(u *Unit) { u.MoveProgress = math.MinInt32 }, int30.ErrRange},
	})
}

// Every unit of a busy world goes through the codec unchanged.
func TestUnitCodecRoundTripWorld(t *testing.T) {
	t.Parallel()
	w := sampleWorld(t)
	var b []byte
	for i := range w.Units() {
		b = mustAppendUnit(t, b, &w.Units()[i])
	}
	t.Logf("%d units in %d bytes (%.1f a unit)", len(w.Units()), len(b), float64(len(b))/float64(len(w.Units())))
	for i, want := range w.Units() {
		u, n, err := ParseUnit(b)
		if err != nil || u != want {
			t.Fatalf("unit %d: %+v, %v; want %+v", i, u, err, want)
		}
		b = b[n:]
	}
	if len(b) != 0 {
		t.Errorf("%d bytes left", len(b))
	}
}

func TestAttackCodec(t *testing.T) {
	a := Attack{ID: 1, Owner: 0, From: 1, Target: FirstEnemyID, X: 50, Y: 150, Damage: 7, Speed: 150}
	// id 1 | owner 0 | from 1 | target 10000 | x 50 | y 150 | damage 7 | speed 150
	want := unhex(t, "01 00 01 a710 32 8096 07 8096")
	if got, err := AppendAttack(nil, &a); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AppendAttack = % x, %v; want % x", got, err, want)
	}
	got, n, err := ParseAttack(want)
	if err != nil || n != len(want) || got != a {
		t.Fatalf("ParseAttack = %+v, %d, %v", got, n, err)
	}
	for i := range want {
		if _, _, err := ParseAttack(want[:i]); !errors.Is(err, int30.ErrShort) {
			t.Errorf("%d bytes: %v, want ErrShort", i, err)
		}
	}
	for _, c := range []struct {
		name, hex string
		want      error
	}{
		{"id zero", "00 00 01 a710 32 8096 07 8096", int30.ErrRange},
		{"id beyond MaxAttackID", "ffffffff 00 01 a710 32 8096 07 8096", int30.ErrRange},
		{"owner 9", "01 09 01 a710 32 8096 07 8096", int30.ErrRange},
		{"target zero", "01 00 01 00 32 8096 07 8096", int30.ErrRange},
		{"long from", "01 00 8001 a710 32 8096 07 8096", int30.ErrNonCanonical},
		{"speed negative zero", "01 00 01 a710 32 8096 07 40", int30.ErrNonCanonical},
	} {
		if _, _, err := ParseAttack(unhex(t, c.hex)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	checkRefusals(t, func() Attack { return a }, AppendAttack, []refusal[Attack]{
		{"id zero", func(a *Attack) { a.ID = 0 }, int30.ErrRange},
		{"id beyond MaxAttackID", func(a *Attack) { a.ID = MaxAttackID + 1 }, int30.ErrRange},
		{"owner 9", func(a *Attack) { a.Owner = 9 }, int30.ErrRange},
		{"from beyond MaxUnitID", func(a *Attack) { a.From = MaxUnitID + 1 }, int30.ErrRange},
		{"target zero", func(a *Attack) { a.Target = 0 }, int30.ErrRange},
		{"target beyond MaxUnitID", func(a *Attack) { a.Target = math.MaxUint32 }, int30.ErrRange},
		{"x beyond an Int30", func(a *Attack) { a.X = int30.MaxInt30 + 1 }, int30.ErrRange},
		{"y most negative", func(a *Attack) { a.Y = math.MinInt32 }, int30.ErrRange},
		{"damage beyond an Int30", func(a *Attack) { a.Damage = math.MaxInt32 }, int30.ErrRange},
		{"speed beyond an Int30", func(a *Attack) { a.Speed = -int30.MaxInt30 - 1 }, int30.ErrRange},
	})
}

func TestStateCodec(t *testing.T) {
	w := sampleWorld(t)
	b, err := w.AppendState([]byte{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	b = b[2:]
	s, n, err := ParseState(append(slices.Clone(b), 0xff))
	if err != nil || n != len(b) {
		t.Fatalf("ParseState: %d of %d bytes, %v", n, len(b), err)
	}
	want := w.State()
	if s.Frame != want.Frame || s.NextID != want.NextID || s.NextAttackID != want.NextAttackID ||
		!bytes.Equal(s.RNG, want.RNG) || !slices.Equal(s.UnitIDs, want.UnitIDs) || !slices.Equal(s.Attacks, want.Attacks) {
		t.Fatalf("ParseState = %+v, want %+v", s, want)
	}
	t.Logf("state of %d units and %d attacks in %d bytes", len(s.UnitIDs), len(s.Attacks), len(b))
	for i := range b {
		if _, _, err := ParseState(b[:i]); err == nil {
			t.Fatalf("%d of %d bytes parsed", i, len(b))
		}
	}
	// Hand-made states: frame | next id | next attack id | generator | unit ids | attacks.
	rng, attack1, attack2 := handRNG, handAttack1, handAttack2
	checkHandMade(t, ParseState, appendState, []handMade{
		{"empty world", "00 01 01 " + rng + " 00 00", nil},
		{"ids 1, 2, 10000", "05 04 01 " + rng + " 03 01 01 a70e 00", nil},
		{"two attacks", "05 04 03 " + rng + " 00 02" + attack1 + attack2, nil},
		{"frame in a longer form", "8005 04 01 " + rng + " 00 00", int30.ErrNonCanonical},
		{"id step zero", "05 04 01 " + rng + " 02 01 00 00", int30.ErrRange},
		{"count beyond the input", "05 04 01 " + rng + " 7f 01", int30.ErrShort},
		{"attack count beyond the input", "05 04 01 " + rng + " 00 05 01", int30.ErrShort},
		{"attacks out of order", "05 04 05 " + rng + " 00 02" + attack2 + attack1, int30.ErrNonCanonical},
		{"generator too long", "05 04 01 41" + strings.Repeat("00", 65) + " 00 00", int30.ErrTooLong},
		{"generator garbage", "05 04 01 03 616263 00 00", int30.ErrRange},
		{"next id in the enemies' range", "05 a711 01 " + rng + " 00 00", int30.ErrRange},
		{"next id zero", "05 00 01 " + rng + " 00 00", int30.ErrRange},
	})
}

// The pieces of the hand-made states: a generator's 20 bytes ("pcg:" and two zero words) and
// two attacks, ids 1 and 2.
const (
	handRNG     = "14 7063673a 0000000000000000 0000000000000000"
	handAttack1 = " 01 00 01 a710 32 8096 07 8096"
	handAttack2 = " 02 00 01 a710 32 8096 07 8096"
)

// handMade is an encoding written by hand, and the error its parser must refuse it with (nil:
// none).
type handMade struct {
	name, hex string
	want      error
}

// checkHandMade parses each case with parse, and encodes what parses back with encode: the
// same bytes.
func checkHandMade[T any](t *testing.T, parse func([]byte) (T, int, error), encode func([]byte, *T) ([]byte, error), cases []handMade) {
	t.Helper()
	for _, c := range cases {
		v, _, err := parse(unhex(t, c.hex))
		if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
			continue
		}
		if err != nil {
			continue
		}
		if again, err := encode(nil, &v); err != nil || !bytes.Equal(again, unhex(t, c.hex)) {
			t.Errorf("%s: encodes back as % x, %v", c.name, again, err)
		}
	}
}

// TestAppendStateRejects: a State that ParseState would refuse is not
// written, and neither is a world whose state the codec cannot carry.
func TestAppendStateRejects(t *testing.T) {
	good := sampleWorld(t).State()
	if len(good.UnitIDs) < 2 || len(good.Attacks) < 2 {
		t.Fatalf("the sample world has %d units and %d attacks, want two of each", len(good.UnitIDs), len(good.Attacks))
	}
	valid := func() State {
		s := good
		s.UnitIDs, s.Attacks = slices.Clone(good.UnitIDs), slices.Clone(good.Attacks)
		return s
	}
	checkRefusals(t, valid, appendState, []refusal[State]{
		{"frame beyond a UInt30", func(s *State) { s.Frame = int30.MaxUInt30 + 1 }, int30.ErrRange},
		{"next id zero", func(s *State) { s.NextID = 0 }, int30.ErrRange},
		{"next id in the enemies' range", func(s *State) { s.NextID = FirstEnemyID + 1 }, int30.ErrRange},
		{"next attack id beyond a UInt30", func(s *State) { s.NextAttackID = int30.MaxUInt30 + 1 }, int30.ErrRange},
		{"generator garbage", func(s *State) { s.RNG = []byte("abc") }, int30.ErrRange},
		{"generator too long", func(s *State) { s.RNG = make([]byte, maxRNGState+1) }, int30.ErrTooLong},
		{"unit id zero", func(s *State) { s.UnitIDs[0] = 0 }, int30.ErrRange},
		{"unit ids descending", func(s *State) { s.UnitIDs[0], s.UnitIDs[1] = s.UnitIDs[1], s.UnitIDs[0] }, int30.ErrRange},
		{"unit id twice", func(s *State) { s.UnitIDs[1] = s.UnitIDs[0] }, int30.ErrRange},
		{"attack out of range", func(s *State) { s.Attacks[0].X = math.MaxInt32 }, int30.ErrRange},
		{"attacks descending", func(s *State) { s.Attacks[0], s.Attacks[1] = s.Attacks[1], s.Attacks[0] }, int30.ErrNonCanonical},
	})

	// A world that ran beyond the codec's frames.
	w := sampleWorld(t)
	w.frame = int30.MaxUInt30 + 1
	if got, err := w.AppendState([]byte{0xee}); !errors.Is(err, int30.ErrRange) || !bytes.Equal(got, []byte{0xee}) {
		t.Errorf("World.AppendState past the last frame: % x, %v", got, err)
	}
}

// TestCoreStateCodec: a world's CoreState goes through its codec unchanged, its bytes are
// State's without the frame and the unit ids, and the codec's rules hold (one encoding, no
// value out of range, no count beyond the input).
func TestCoreStateCodec(t *testing.T) {
	w := sampleWorld(t)
	b, err := w.AppendCoreState([]byte{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	b = b[2:]
	s, n, err := ParseCoreState(append(slices.Clone(b), 0xff))
	if err != nil || n != len(b) {
		t.Fatalf("ParseCoreState: %d of %d bytes, %v", n, len(b), err)
	}
	if want := w.CoreState(); s.NextID != want.NextID || s.NextAttackID != want.NextAttackID ||
		!bytes.Equal(s.RNG, want.RNG) || !slices.Equal(s.Attacks, want.Attacks) {
		t.Fatalf("ParseCoreState = %+v, want %+v", s, want)
	}
	// State's bytes: the frame, the counters and the generator, the unit ids, the attacks.
	state, err := w.AppendState(nil)
	if err != nil {
		t.Fatal(err)
	}
	counters := encodeCounters(nil, &s)
	ids := encodeState(nil, &State{CoreState: CoreState{NextID: s.NextID, NextAttackID: s.NextAttackID, RNG: s.RNG}, UnitIDs: w.State().UnitIDs})
	ids = ids[1+len(counters) : len(ids)-1] // without the frame 0, the counters and the count of no attacks
	frame := appendUInt30(nil, w.Frame())
	if want := slices.Concat(frame, counters, ids, b[len(counters):]); !bytes.Equal(state, want) {
		t.Errorf("the state is\n% x\nwant the frame, the core state's counters, the unit ids and its attacks\n% x", state, want)
	}
	t.Logf("core state of %d attacks in %d bytes; the state of %d units in %d", len(s.Attacks), len(b), len(w.Units()), len(state))
	for i := range b {
		if _, _, err := ParseCoreState(b[:i]); err == nil {
			t.Fatalf("%d of %d bytes parsed", i, len(b))
		}
	}
	// Hand-made core states: next id | next attack id | generator | attacks.
	rng, attack1, attack2 := handRNG, handAttack1, handAttack2
	checkHandMade(t, ParseCoreState, appendCoreState, []handMade{
		{"a fresh world", "01 01 " + rng + " 00", nil},
		{"two attacks", "04 03 " + rng + " 02" + attack1 + attack2, nil},
		{"next id in a longer form", "8004 01 " + rng + " 00", int30.ErrNonCanonical},
		{"next id zero", "00 01 " + rng + " 00", int30.ErrRange},
		{"next id in the enemies' range", "a711 01 " + rng + " 00", int30.ErrRange},
		{"next attack id zero", "04 00 " + rng + " 00", int30.ErrRange},
		{"attack count beyond the input", "04 01 " + rng + " 05 01", int30.ErrShort},
		{"attacks out of order", "04 05 " + rng + " 02" + attack2 + attack1, int30.ErrNonCanonical},
		{"generator too long", "04 01 41" + strings.Repeat("00", 65) + " 00", int30.ErrTooLong},
		{"generator garbage", "04 01 03 616263 00", int30.ErrRange},
		{"no attack count", "04 01 " + rng, int30.ErrShort},
	})
}

// TestAppendCoreStateRejects: a CoreState that ParseCoreState would refuse is not written.
func TestAppendCoreStateRejects(t *testing.T) {
	good := sampleWorld(t).CoreState()
	valid := func() CoreState {
		s := good
		s.Attacks = slices.Clone(good.Attacks)
		return s
	}
	checkRefusals(t, valid, appendCoreState, []refusal[CoreState]{
		{"next id zero", func(s *CoreState) { s.NextID = 0 }, int30.ErrRange},
		{"next id in the enemies' range", func(s *CoreState) { s.NextID = FirstEnemyID + 1 }, int30.ErrRange},
		{"next attack id beyond a UInt30", func(s *CoreState) { s.NextAttackID = int30.MaxUInt30 + 1 }, int30.ErrRange},
		{"generator garbage", func(s *CoreState) { s.RNG = []byte("abc") }, int30.ErrRange},
		{"generator too long", func(s *CoreState) { s.RNG = make([]byte, maxRNGState+1) }, int30.ErrTooLong},
		{"attack out of range", func(s *CoreState) { s.Attacks[0].X = math.MaxInt32 }, int30.ErrRange},
		{"attacks descending", func(s *CoreState) { s.Attacks[0], s.Attacks[1] = s.Attacks[1], s.Attacks[0] }, int30.ErrNonCanonical},
	})
}

// TestApplyCoreState: a world whose counters, generator and attacks drifted takes the server's
// core state and is equal to the server again, hash for hash, without a unit or its frame
// touched; it stays equal; a state the world's rules refuse changes nothing; and the next id
// never falls to an id a player unit has.
func TestApplyCoreState(t *testing.T) {
	server := sampleWorld(t)
	for _, c := range []struct {
		name  string
		drift func(w *World)
	}{
		{"generator", func(w *World) { w.rng.Uint64() }},
		{"next id", func(w *World) { w.nextID++ }},
		{"next attack id", func(w *World) { w.nextAttackID++ }},
		{"an attack in flight", func(w *World) { w.attacks[0].Damage++ }},
		{"an attack lost", func(w *World) { w.attacks = w.attacks[1:] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			client := server.Clone()
			c.drift(client)
			if client.StateHash() == server.StateHash() {
				t.Fatal("the state hashes are equal after the drift")
			}
			units := slices.Clone(client.Units())
			b, err := server.AppendCoreState(nil)
			if err != nil {
				t.Fatal(err)
			}
			s, _, err := ParseCoreState(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := client.ApplyCoreState(s); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(client.Units(), units) || client.Frame() != server.Frame() {
				t.Fatal("ApplyCoreState changed the units or the frame")
			}
			if client.StateHash() != server.StateHash() || client.Hash() != server.Hash() {
				t.Fatal("the worlds differ after the repair")
			}
			for range 100 {
				server.Step()
				client.Step()
			}
			if client.Hash() != server.Hash() {
				t.Fatal("the worlds differ 100 frames after the repair")
			}
			server = sampleWorld(t)
		})
	}

	w := sampleWorld(t)
	before := w.Hash()
	bad := w.CoreState()
	bad.Attacks = append(slices.Clone(bad.Attacks), Attack{ID: bad.NextAttackID, Target: 1, Speed: 150})
	if err := w.ApplyCoreState(bad); !errors.Is(err, ErrBadAttack) || w.Hash() != before {
		t.Errorf("an attack with an id the counter has not handed out: %v, and the world changed: %v", err, w.Hash() != before)
	}

	// A counter of a few frames before a squad landed: the squad's ids stay its own.
	w = mustWorld(t, "skirmish", 1)
	old := w.CoreState()
	if _, err := w.AddPlayerUnits(0); err != nil {
		t.Fatal(err)
	}
	if err := w.ApplyCoreState(old); err != nil {
		t.Fatal(err)
	}
	if w.NextID() != 6 {
		t.Errorf("next id %d after a squad of ids 1-5, want 6", w.NextID())
	}
}

// A stop-the-world re-sync, end to end through the codec: a client that went
// wrong (a command reached it late, and it lost track of some arrows) gets
// the server's state and the units that differ, and is equal again, and stays
// equal.
func TestResync(t *testing.T) {
	t.Parallel()
	server := sampleWorld(t)
	client := server.Clone()
	// The player with the most units orders them all across the map.
	var count [MaxPlayers]int
	for _, u := range server.Units() {
		if !u.IsEnemy() {
			count[u.Owner]++
		}
	}
	seat := uint8(0)
	for s := range count {
		if count[s] > count[seat] {
			seat = uint8(s)
		}
	}
	var mine []uint32
	for _, u := range server.Units() {
		if u.Owner == seat {
			mine = append(mine, u.ID)
		}
	}
	sx, sy, _ := server.Spawn((seat + 4) % MaxPlayers)
	cmd := Command{Player: seat, Kind: CommandMove, Units: mine, X: sx, Y: sy}
	mustApply(t, server, cmd)
	client.attacks = client.attacks[:len(client.attacks)/2]
	for i := range 40 {
		if i == 5 {
			mustApply(t, client, cmd) // five frames late
		}
		server.Step()
		client.Step()
	}
	if server.Hash() == client.Hash() {
		t.Fatal("the worlds did not diverge")
	}

	// The client sends the hash of every unit; the server answers with its
	// state and every unit the client holds differently or lacks.
	theirs := client.UnitHashes(0, MaxUnitID, nil)
	msg, err := server.AppendState(nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, u := range server.Units() {
		i, found := slices.BinarySearchFunc(theirs, u.ID, func(h UnitHash, id uint32) int { return int(h.ID) - int(id) })
		if !found || theirs[i].Hash != u.Hash() {
			msg = mustAppendUnit(t, msg, &u)
			sent++
		}
	}
	t.Logf("re-sync: %d of %d units sent, %d bytes", sent, len(server.Units()), len(msg))

	// The client applies it.
	s, n, err := ParseState(msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.ApplyState(s); err != nil {
		t.Fatal(err)
	}
	for rest := msg[n:]; len(rest) > 0; {
		u, n, err := ParseUnit(rest)
		if err != nil {
			t.Fatal(err)
		}
		if err := client.SetUnit(u); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if server.Hash() != client.Hash() {
		t.Fatal("worlds differ after the re-sync")
	}
	for range 200 {
		server.Step()
		client.Step()
		if server.Hash() != client.Hash() {
			t.Fatalf("frame %d: worlds differ again", server.Frame())
		}
	}
}

func TestSetUnitRejects(t *testing.T) {
	w := tinyWorld(t, "1.~.", "....", "....")
	player(t, w, 1, 0, "soldier", 0, 0)
	good := mustUnit(t, w, 1)
	soldier := kind(t, "soldier")
	for _, c := range []struct {
		name   string
		change func(u *Unit)
	}{
		{"id zero", func(u *Unit) { u.ID = 0 }},
		{"player id in the enemies' range", func(u *Unit) { u.ID = FirstEnemyID }},
		{"enemy id in the players' range", func(u *Unit) { u.Owner = EnemyOwner }},
		{"owner 8", func(u *Unit) { u.Owner = 8 }},
		{"unknown kind", func(u *Unit) { u.Kind = 200 }},
		{"in water", func(u *Unit) { u.X = 2 }},
		{"outside", func(u *Unit) { u.Y = 3 }},
		{"no hp", func(u *Unit) { u.HP = 0 }},
		{"dead player unit", func(u *Unit) { u.HP, u.Dead = 0, true }},
		{"order 3", func(u *Unit) { u.Order = 3 }},
		{"move into water", func(u *Unit) { u.Order, u.TargetX = OrderMove, 2 }},
		{"target cell when idle", func(u *Unit) { u.TargetX = 1 }},
		{"attack without a target", func(u *Unit) { u.Order = OrderAttack }},
		{"move with a target unit", func(u *Unit) { u.Order, u.TargetX, u.TargetID = OrderMove, 1, 5 }},
		{"cooldown too long", func(u *Unit) { u.Cooldown = soldier.Cooldown + 1 }},
		{"negative cooldown", func(u *Unit) { u.Cooldown = -1 }},
		{"progress of a whole cell", func(u *Unit) { u.MoveProgress = CellSize }},
	} {
		u := good
		c.change(&u)
		if err := w.SetUnit(u); !errors.Is(err, ErrBadUnit) {
			t.Errorf("%s: %v, want ErrBadUnit", c.name, err)
		}
	}
	if !slices.Equal(w.Units(), []Unit{good}) {
		t.Errorf("rejected units changed the world: %+v", w.Units())
	}
	dead := Unit{ID: FirstEnemyID, Owner: EnemyOwner, Kind: kindID(t, "goblin"), X: 3, Y: 2, Dead: true}
	if err := w.SetUnit(dead); err != nil {
		t.Errorf("a dead enemy: %v", err)
	}
	dead.Cooldown = 1
	if err := w.SetUnit(dead); !errors.Is(err, ErrBadUnit) {
		t.Errorf("a dead enemy that acts: %v", err)
	}
	if !w.RemoveUnit(FirstEnemyID) || w.RemoveUnit(FirstEnemyID) {
		t.Error("RemoveUnit")
	}
	if err := w.SetAttacks([]Attack{{ID: 5, Target: 1, X: 10, Y: 10, Damage: 1, Speed: 150}, {ID: 5, Target: 1, X: 10, Y: 10, Damage: 1, Speed: 150}}); !errors.Is(err, ErrBadAttack) {
		t.Errorf("duplicate attack ids: %v", err)
	}
	if err := w.SetAttacks([]Attack{{ID: 7, Target: 1, X: 10, Y: 10, Damage: 1, Speed: 150}, {ID: 3, Target: 1, X: 10, Y: 10, Damage: 1, Speed: 150}}); err != nil {
		t.Fatal(err)
	}
	if as := w.Attacks(); len(as) != 2 || as[0].ID != 3 || w.nextAttackID != 8 {
		t.Errorf("SetAttacks: %+v, next id %d", as, w.nextAttackID)
	}
}
