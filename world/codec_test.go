package world

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var unitEncodings = []struct {
	name string
	unit Unit
	hex  string
}{
	{"fresh soldier", Unit{ID: 1, HP: 60}, "01 00 00 00 00 00 78"},
	{
		"moving archer",
		Unit{ID: 300, Owner: 3, Kind: 1, X: 150, Y: 7, HP: 35, Order: OrderMove, TargetX: 199, TargetY: 0, Cooldown: 5, MoveProgress: 80},
		// id 300 | owner | kind | flags move+cell+cooldown+progress | x 150 | y 7 | hp 35 | target 199,0 | cooldown 5 | progress 80
		"ac02 03 01 69 ac02 0e 46 8e03 00 0a a001",
	},
	{
		"dead enemy",
		Unit{ID: FirstEnemyID, Owner: EnemyOwner, Kind: 3, X: 5, Y: 6, Dead: true},
		"904e ff 03 04 0a 0c 00",
	},
	{
		"attacking knight",
		Unit{ID: 2, Owner: 7, Kind: 2, X: -1, Y: 2, HP: 1, Order: OrderAttack, TargetID: FirstEnemyID + 1},
		"02 07 02 12 01 04 02 914e",
	},
	{
		"extremes",
		Unit{ID: MaxUnitID, Owner: 0, X: -1 << 31, Y: 1<<31 - 1, HP: -1, TargetX: 0, TargetY: -1, TargetID: MaxUnitID, Cooldown: -1 << 31, MoveProgress: 1<<31 - 1},
		"ffffffff03 00 00 78 ffffffff0f feffffff0f 01 00 01 ffffffff03 ffffffff0f feffffff0f",
	},
}

func TestUnitCodec(t *testing.T) {
	for _, c := range unitEncodings {
		t.Run(c.name, func(t *testing.T) {
			want := unhex(t, c.hex)
			got := AppendUnit([]byte{0xee}, &c.unit)
			if !bytes.Equal(got[1:], want) || got[0] != 0xee {
				t.Fatalf("AppendUnit = % x, want % x", got[1:], want)
			}
			u, n, err := ParseUnit(append(want, 0xaa, 0xbb))
			if err != nil || n != len(want) || u != c.unit {
				t.Fatalf("ParseUnit = %+v, %d, %v; want %+v, %d", u, n, err, c.unit, len(want))
			}
			for i := range want {
				if _, _, err := ParseUnit(want[:i]); !errors.Is(err, ErrShort) {
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
		{"id zero", "00 00 00 00 00 00 78", ErrRange},
		{"id too big", "8080808004 00 00 00 00 00 78", ErrRange},
		{"id in two bytes", "8100 00 00 00 00 00 78", ErrNonCanonical},
		{"id overflows 64 bits", "ffffffffffffffffffff01 00 00 00 00 00 78", ErrRange},
		{"owner 8", "01 08 00 00 00 00 78", ErrRange},
		{"order 3", "01 00 00 03 00 00 78", ErrRange},
		{"reserved flag", "01 00 00 80 00 00 78", ErrNonCanonical},
		{"x in two bytes", "01 00 00 00 8000 00 78", ErrNonCanonical},
		{"x beyond int32", "01 00 00 00 8080808010 00 78", ErrRange},
		{"target cell present but zero", "01 00 00 09 00 00 78 00 00", ErrNonCanonical},
		{"target id zero", "01 00 00 12 00 00 78 00", ErrRange},
		{"cooldown present but zero", "01 00 00 20 00 00 78 00", ErrNonCanonical},
		{"progress present but zero", "01 00 00 40 00 00 78 00", ErrNonCanonical},
		{"empty", "", ErrShort},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, n, err := ParseUnit(unhex(t, c.hex))
			if !errors.Is(err, c.want) || n != 0 {
				t.Errorf("ParseUnit = %d, %v; want %v", n, err, c.want)
			}
		})
	}
}

// Every unit of a busy world goes through the codec unchanged.
func TestUnitCodecRoundTripWorld(t *testing.T) {
	w := sampleWorld(t)
	var b []byte
	for i := range w.Units() {
		b = AppendUnit(b, &w.Units()[i])
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
	want := unhex(t, "01 00 01 904e 64 ac02 0e ac02")
	if got := AppendAttack(nil, &a); !bytes.Equal(got, want) {
		t.Fatalf("AppendAttack = % x, want % x", got, want)
	}
	got, n, err := ParseAttack(want)
	if err != nil || n != len(want) || got != a {
		t.Fatalf("ParseAttack = %+v, %d, %v", got, n, err)
	}
	for i := range want {
		if _, _, err := ParseAttack(want[:i]); !errors.Is(err, ErrShort) {
			t.Errorf("%d bytes: %v, want ErrShort", i, err)
		}
	}
	for _, c := range []struct {
		name, hex string
		want      error
	}{
		{"id zero", "00 00 01 904e 64 ac02 0e ac02", ErrRange},
		{"owner 9", "01 09 01 904e 64 ac02 0e ac02", ErrRange},
		{"target zero", "01 00 01 00 64 ac02 0e ac02", ErrRange},
		{"long from", "01 00 8100 904e 64 ac02 0e ac02", ErrNonCanonical},
	} {
		if _, _, err := ParseAttack(unhex(t, c.hex)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestStateCodec(t *testing.T) {
	w := sampleWorld(t)
	b := AppendState([]byte{1, 2}, w)[2:]
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
	// Hand-made states.
	rng := "14 706367" + strings.Repeat("3a", 1) + strings.Repeat("00", 16)
	for _, c := range []struct {
		name, hex string
		want      error
	}{
		{"empty world", "00 01 01 " + rng + " 00 00", nil},
		{"ids 1, 2, 10000", "05 04 01 " + rng + " 03 01 01 8e4e 00", nil},
		{"id step zero", "05 04 01 " + rng + " 02 01 00 00", ErrRange},
		{"count beyond the input", "05 04 01 " + rng + " 7f 01", ErrRange},
		{"attack count beyond the input", "05 04 01 " + rng + " 00 05 01", ErrRange},
		{"attacks out of order", "05 04 05 " + rng + " 00 02" + " 02 00 01 904e 64 ac02 0e ac02" + " 01 00 01 904e 64 ac02 0e ac02", ErrNonCanonical},
		{"generator too long", "05 04 01 41" + strings.Repeat("00", 65) + " 00 00", ErrTooLong},
		{"generator garbage", "05 04 01 03 616263 00 00", ErrRange},
		{"next id in the enemies' range", "05 914e 01 " + rng + " 00 00", ErrRange},
		{"next id zero", "05 00 01 " + rng + " 00 00", ErrRange},
	} {
		_, _, err := ParseState(unhex(t, c.hex))
		if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// A stop-the-world re-sync, end to end through the codec: a client that went
// wrong (a command reached it late, and it lost track of some arrows) gets
// the server's state and the units that differ, and is equal again, and stays
// equal.
func TestResync(t *testing.T) {
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
	msg := AppendState(nil, server)
	sent := 0
	for _, u := range server.Units() {
		i, found := slices.BinarySearchFunc(theirs, u.ID, func(h UnitHash, id uint32) int { return int(h.ID) - int(id) })
		if !found || theirs[i].Hash != u.Hash() {
			msg = AppendUnit(msg, &u)
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
