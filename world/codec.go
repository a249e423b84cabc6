package world

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// The re-sync codec: units, attacks and the rest of the state as bytes. The
// layouts are in the package documentation ("The re-sync codec").
//
// When hashes show that a client's unit went out of sync, the server sends
// that unit's whole state and the client puts it in place with SetUnit. In a
// stop-the-world re-sync the server also sends the rest of the world's state
// (AppendState), so the client can drop the units the server no longer has.

const (
	flagOrder        = 0x03
	flagDead         = 0x04
	flagTargetXY     = 0x08
	flagTargetID     = 0x10
	flagCooldown     = 0x20
	flagMoveProgress = 0x40
	flagReserved     = 0x80
)

// AppendUnit appends the encoding of u to b.
func AppendUnit(b []byte, u *Unit) []byte {
	flags := byte(u.Order) & flagOrder
	if u.Dead {
		flags |= flagDead
	}
	if u.TargetX != 0 || u.TargetY != 0 {
		flags |= flagTargetXY
	}
	if u.TargetID != 0 {
		flags |= flagTargetID
	}
	if u.Cooldown != 0 {
		flags |= flagCooldown
	}
	if u.MoveProgress != 0 {
		flags |= flagMoveProgress
	}
	b = binary.AppendUvarint(b, uint64(u.ID))
	b = append(b, u.Owner, u.Kind, flags)
	b = binary.AppendVarint(b, int64(u.X))
	b = binary.AppendVarint(b, int64(u.Y))
	b = binary.AppendVarint(b, int64(u.HP))
	if flags&flagTargetXY != 0 {
		b = binary.AppendVarint(b, int64(u.TargetX))
		b = binary.AppendVarint(b, int64(u.TargetY))
	}
	if flags&flagTargetID != 0 {
		b = binary.AppendUvarint(b, uint64(u.TargetID))
	}
	if flags&flagCooldown != 0 {
		b = binary.AppendVarint(b, int64(u.Cooldown))
	}
	if flags&flagMoveProgress != 0 {
		b = binary.AppendVarint(b, int64(u.MoveProgress))
	}
	return b
}

// reader reads varints from a byte slice and remembers the first error, so
// a parser reads straight through and checks once.
type reader struct {
	b    []byte
	n    int
	err  error
	what string
}

func (r *reader) fail(err error, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("world: %s: %s: %w", r.what, fmt.Sprintf(format, args...), err)
	}
}

func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func (r *reader) uvarint(field string, lo, hi uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.n:])
	switch {
	case n == 0:
		r.fail(ErrShort, "%s", field)
		return 0
	case n < 0:
		r.fail(ErrRange, "%s overflows 64 bits", field)
		return 0
	case n != uvarintLen(v):
		r.fail(ErrNonCanonical, "%s %d in %d bytes", field, v, n)
		return 0
	case v < lo || v > hi:
		r.fail(ErrRange, "%s %d not in %d..%d", field, v, lo, hi)
		return 0
	}
	r.n += n
	return v
}

func (r *reader) varint(field string, lo, hi int64) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.n:])
	switch {
	case n == 0:
		r.fail(ErrShort, "%s", field)
		return 0
	case n < 0:
		r.fail(ErrRange, "%s overflows 64 bits", field)
		return 0
	case n != uvarintLen(uint64(v<<1)^uint64(v>>63)):
		r.fail(ErrNonCanonical, "%s %d in %d bytes", field, v, n)
		return 0
	case v < lo || v > hi:
		r.fail(ErrRange, "%s %d not in %d..%d", field, v, lo, hi)
		return 0
	}
	r.n += n
	return v
}

func (r *reader) byte(field string) byte {
	if r.err != nil {
		return 0
	}
	if r.n >= len(r.b) {
		r.fail(ErrShort, "%s", field)
		return 0
	}
	r.n++
	return r.b[r.n-1]
}

func (r *reader) int32(field string) int32 {
	return int32(r.varint(field, -1<<31, 1<<31-1))
}

// nonZero marks a present field that holds its default: it should have been left out.
func (r *reader) nonZero(field string, zero bool) {
	if zero {
		r.fail(ErrNonCanonical, "%s present but zero", field)
	}
}

// ParseUnit reads one unit from the front of b and returns it with the number
// of bytes used. It checks the encoding only; SetUnit checks the unit against
// the world's rules.
func ParseUnit(b []byte) (Unit, int, error) {
	r := reader{b: b, what: "unit"}
	var u Unit
	u.ID = uint32(r.uvarint("id", 1, MaxUnitID))
	u.Owner = r.byte("owner")
	u.Kind = r.byte("kind")
	flags := r.byte("flags")
	if r.err == nil {
		switch {
		case u.Owner >= MaxPlayers && u.Owner != EnemyOwner:
			r.fail(ErrRange, "owner %d", u.Owner)
		case flags&flagReserved != 0:
			r.fail(ErrNonCanonical, "reserved flag set")
		case Order(flags&flagOrder) > OrderAttack:
			r.fail(ErrRange, "order %d", flags&flagOrder)
		}
	}
	u.Order = Order(flags & flagOrder)
	u.Dead = flags&flagDead != 0
	u.X = r.int32("x")
	u.Y = r.int32("y")
	u.HP = r.int32("hp")
	if flags&flagTargetXY != 0 {
		u.TargetX = r.int32("target x")
		u.TargetY = r.int32("target y")
		r.nonZero("target cell", u.TargetX == 0 && u.TargetY == 0)
	}
	if flags&flagTargetID != 0 {
		u.TargetID = uint32(r.uvarint("target id", 1, MaxUnitID))
	}
	if flags&flagCooldown != 0 {
		u.Cooldown = r.int32("cooldown")
		r.nonZero("cooldown", u.Cooldown == 0)
	}
	if flags&flagMoveProgress != 0 {
		u.MoveProgress = r.int32("move progress")
		r.nonZero("move progress", u.MoveProgress == 0)
	}
	if r.err != nil {
		return Unit{}, 0, r.err
	}
	return u, r.n, nil
}

// AppendAttack appends the encoding of a to b.
func AppendAttack(b []byte, a *Attack) []byte {
	b = binary.AppendUvarint(b, uint64(a.ID))
	b = append(b, a.Owner)
	b = binary.AppendUvarint(b, uint64(a.From))
	b = binary.AppendUvarint(b, uint64(a.Target))
	b = binary.AppendVarint(b, int64(a.X))
	b = binary.AppendVarint(b, int64(a.Y))
	b = binary.AppendVarint(b, int64(a.Damage))
	b = binary.AppendVarint(b, int64(a.Speed))
	return b
}

// ParseAttack reads one attack from the front of b.
func ParseAttack(b []byte) (Attack, int, error) {
	r := reader{b: b, what: "attack"}
	a := r.attack()
	if r.err != nil {
		return Attack{}, 0, r.err
	}
	return a, r.n, nil
}

func (r *reader) attack() Attack {
	var a Attack
	a.ID = uint32(r.uvarint("id", 1, 1<<32-2))
	a.Owner = r.byte("owner")
	if r.err == nil && a.Owner >= MaxPlayers && a.Owner != EnemyOwner {
		r.fail(ErrRange, "owner %d", a.Owner)
	}
	a.From = uint32(r.uvarint("from", 0, MaxUnitID))
	a.Target = uint32(r.uvarint("target", 1, MaxUnitID))
	a.X = r.int32("x")
	a.Y = r.int32("y")
	a.Damage = r.int32("damage")
	a.Speed = r.int32("speed")
	return a
}

// State is the part of a world that is not units: what a stop-the-world
// re-sync sends besides the units that differ.
type State struct {
	Frame        uint32
	NextID       uint32
	NextAttackID uint32
	RNG          []byte   // the random generator, in its MarshalBinary form
	UnitIDs      []uint32 // every unit that exists, players' and enemies', ascending
	Attacks      []Attack // the attacks in flight, by ascending id
}

const maxRNGState = 64

// AppendState appends the encoding of w's State to b.
func AppendState(b []byte, w *World) []byte {
	b = binary.AppendUvarint(b, uint64(w.frame))
	b = binary.AppendUvarint(b, uint64(w.nextID))
	b = binary.AppendUvarint(b, uint64(w.nextAttackID))
	n := len(b)
	b = append(b, 0)
	b, _ = w.rng.AppendBinary(b) // cannot fail
	b[n] = byte(len(b) - n - 1)
	b = binary.AppendUvarint(b, uint64(len(w.units)))
	prev := uint32(0)
	for i := range w.units {
		b = binary.AppendUvarint(b, uint64(w.units[i].ID-prev))
		prev = w.units[i].ID
	}
	b = binary.AppendUvarint(b, uint64(len(w.attacks)))
	for i := range w.attacks {
		b = AppendAttack(b, &w.attacks[i])
	}
	return b
}

// State returns the world's State (the same values AppendState encodes).
func (w *World) State() State {
	s := State{Frame: w.frame, NextID: w.nextID, NextAttackID: w.nextAttackID}
	s.RNG, _ = w.rng.MarshalBinary()
	s.UnitIDs = make([]uint32, len(w.units))
	for i := range w.units {
		s.UnitIDs[i] = w.units[i].ID
	}
	s.Attacks = append([]Attack(nil), w.attacks...)
	return s
}

// ParseState reads a State from the front of b.
func ParseState(b []byte) (State, int, error) {
	r := reader{b: b, what: "state"}
	var s State
	s.Frame = uint32(r.uvarint("frame", 0, 1<<32-1))
	s.NextID = uint32(r.uvarint("next id", 1, FirstEnemyID))
	s.NextAttackID = uint32(r.uvarint("next attack id", 1, 1<<32-1))
	n := int(r.byte("generator length"))
	if r.err == nil {
		switch {
		case n > maxRNGState:
			r.fail(ErrTooLong, "generator state of %d bytes", n)
		case len(b)-r.n < n:
			r.fail(ErrShort, "generator state")
		default:
			s.RNG = append([]byte(nil), b[r.n:r.n+n]...)
			r.n += n
			if err := new(rand.PCG).UnmarshalBinary(s.RNG); err != nil {
				r.fail(ErrRange, "generator state: %v", err)
			}
		}
	}
	// Each id takes at least one byte, so a count beyond the bytes left is a lie.
	count := r.uvarint("unit count", 0, uint64(len(b)-r.n))
	if r.err == nil {
		s.UnitIDs = make([]uint32, 0, count)
	}
	prev := uint64(0)
	for i := uint64(0); i < count && r.err == nil; i++ {
		d := r.uvarint("unit id step", 1, MaxUnitID-prev)
		prev += d
		s.UnitIDs = append(s.UnitIDs, uint32(prev))
	}
	count = r.uvarint("attack count", 0, uint64(len(b)-r.n)/8) // an attack takes at least 8 bytes
	if r.err == nil {
		s.Attacks = make([]Attack, 0, count)
	}
	for i := uint64(0); i < count && r.err == nil; i++ {
		a := r.attack()
		if r.err == nil && i > 0 && a.ID <= s.Attacks[i-1].ID {
			r.fail(ErrNonCanonical, "attack %d after attack %d", a.ID, s.Attacks[i-1].ID)
		}
		s.Attacks = append(s.Attacks, a)
	}
	if r.err != nil {
		return State{}, 0, r.err
	}
	return s, r.n, nil
}

// ApplyState makes w's non-unit state equal to s and removes every unit whose
// id s does not list. Units that s lists but w lacks, or holds differently,
// come separately through SetUnit. The world is unchanged if s is invalid.
func (w *World) ApplyState(s State) error {
	var rng rand.PCG
	if err := rng.UnmarshalBinary(s.RNG); err != nil {
		return fmt.Errorf("world: state: generator: %v: %w", err, ErrRange)
	}
	for i := 1; i < len(s.UnitIDs); i++ {
		if s.UnitIDs[i] <= s.UnitIDs[i-1] {
			return fmt.Errorf("world: state: unit ids not ascending: %w", ErrBadID)
		}
	}
	for i := range s.Attacks {
		a := &s.Attacks[i]
		if err := w.checkAttack(a); err != nil {
			return err
		}
		if i > 0 && a.ID <= s.Attacks[i-1].ID || a.ID >= s.NextAttackID {
			return fmt.Errorf("world: state: attack %d out of order: %w", a.ID, ErrBadAttack)
		}
	}
	if s.NextID == 0 || s.NextID > FirstEnemyID || s.NextAttackID == 0 {
		return fmt.Errorf("world: state: counters: %w", ErrRange)
	}
	keep := w.units[:0]
	j := 0
	for _, u := range w.units {
		for j < len(s.UnitIDs) && s.UnitIDs[j] < u.ID {
			j++
		}
		if j < len(s.UnitIDs) && s.UnitIDs[j] == u.ID {
			keep = append(keep, u)
		}
	}
	w.units = keep
	w.frame, w.nextID, w.nextAttackID, w.rng = s.Frame, s.NextID, s.NextAttackID, rng
	w.attacks = append(w.attacks[:0], s.Attacks...)
	return nil
}
