package world

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ackattack/ackattack/internal/int30"
)

// The re-sync codec: units, attacks and the rest of the state as bytes
// (game/PROTOCOL.md, section 5, is the reference for another implementation):
//
//	Unit:
//	u30   ID (1..MaxUnitID)
//	byte  Owner (0..7, or 255 for enemies)
//	byte  Kind
//	byte  flags: bits 0-1 Order (0 none, 1 move, 2 attack), bit 2 Dead,
//	      bit 3 TargetX/TargetY present, bit 4 TargetID present,
//	      bit 5 Cooldown present, bit 6 MoveProgress present, bit 7 reserved (0)
//	i30   X, i30 Y, i30 HP
//	i30   TargetX, i30 TargetY    if bit 3 (not both 0)
//	u30   TargetID                if bit 4 (not 0)
//	i30   Cooldown                if bit 5 (not 0)
//	i30   MoveProgress            if bit 6 (not 0)
//
//	Attack:
//	u30   ID (1..MaxAttackID)
//	byte  Owner
//	u30   From (0..MaxUnitID)
//	u30   Target (1..MaxUnitID)
//	i30   X, i30 Y, i30 Damage, i30 Speed
//
//	State:
//	u30   Frame
//	u30   NextID (1..FirstEnemyID)
//	u30   NextAttackID (1..MaxAttackID+1)
//	u30   n (at most 64), then n bytes: the generator in its MarshalBinary form
//	      ("pcg:" and two 64-bit words, 20 bytes)
//	u30   count of unit ids, then the ids ascending: the first, then each one's
//	      difference from the one before (at least 1)
//	u30   count of attacks, then each attack as above, ids ascending
//
//	CoreState: State without the frame and the unit ids:
//	u30   NextID, u30 NextAttackID, u30 n and the generator's n bytes, as above
//	u30   count of attacks, then each attack as above, ids ascending
//
// The price of the protocol's integers is range: a field holds ±536,870,911
// signed or 0..1,073,741,823 unsigned, not all of int32 and uint32. No value a
// game produces comes near that (cells, hit points from the unit table,
// cooldowns, hundredths of a cell on a map), but the counters of a world that
// never stops do: a world past int30.MaxUInt30 frames (three years at 10 a
// second) or MaxAttackID attacks can no longer send its state. A unit of a busy
// world takes about 10 bytes. Every value has exactly one encoding: an integer
// longer than needed, negative zero, a present field holding its default, or a
// reserved bit set is rejected (int30.ErrNonCanonical), so parse-then-append
// gives back the input. Parse functions never panic and never allocate more
// than the input can justify. ParseUnit checks the encoding; SetUnit checks the
// unit against the rules of the world it goes into.
//
// When hashes show that a client's unit went out of sync, the server sends
// that unit's whole state and the client puts it in place with SetUnit. In a
// stop-the-world re-sync the server also sends the rest of the world's state
// (World.AppendState), so the client can drop the units the server no longer has. When a
// client's state hash (World.StateHash) differs from the server's, a real-time re-sync carries
// the server's CoreState (World.AppendCoreState), which every host puts in place with
// ApplyCoreState, its units untouched.
//
// The integers are internal/int30's UInt30 and Int30, the protocol's own, and every
// error wraps one of int30's sentinels (which net/wire's are), so a unit inside a
// game message is read and refused
// exactly like the message around it. Each Append… checks its value against
// the same rules its Parse… applies before it appends anything: whatever an
// Append… writes, the Parse… reads back as the same value.

const (
	flagOrder        = 0x03
	flagDead         = 0x04
	flagTargetXY     = 0x08
	flagTargetID     = 0x10
	flagCooldown     = 0x20
	flagMoveProgress = 0x40
	flagReserved     = 0x80
)

const (
	// minAttackSize is the smallest attack, in bytes: eight fields of one
	// byte or more. ParseState compares a count of attacks times this with
	// the bytes left before it allocates, so a forged count costs nothing.
	minAttackSize = 8
	// maxRNGState is the longest generator state a State may carry; a PCG's
	// MarshalBinary form is 20 bytes.
	maxRNGState = 64
)

// checker applies the codec's rules to values and keeps the first failure,
// so a check reads straight through its fields and is looked at once. The
// writers check a value with it before they append; the reader (which embeds
// it) applies the same checks to what it read, so both sides refuse the same
// values with the same errors.
type checker struct {
	what string // "unit", "attack" or "state", for the errors
	err  error
}

func (c *checker) fail(sentinel error, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("world: %s: %s: %w", c.what, fmt.Sprintf(format, args...), sentinel)
	}
}

// within requires lo <= v <= hi. Every unsigned field has hi <= int30.MaxUInt30,
// so a value within its range is also one a UInt30 holds.
func (c *checker) within(field string, v, lo, hi uint32) {
	if c.err == nil && (v < lo || v > hi) {
		c.fail(int30.ErrRange, "%s %d not in %d..%d", field, v, lo, hi)
	}
}

// int30 requires v to fit an Int30: ±int30.MaxInt30.
func (c *checker) int30(field string, v int32) {
	if c.err == nil && int30.SizeInt30(v) == 0 {
		c.fail(int30.ErrRange, "%s %d outside ±%d", field, v, int30.MaxInt30)
	}
}

// owner requires a player's seat or EnemyOwner.
func (c *checker) owner(v uint8) {
	if c.err == nil && v >= MaxPlayers && v != EnemyOwner {
		c.fail(int30.ErrRange, "owner %d", v)
	}
}

// order requires one of the orders the flags' two bits can name.
func (c *checker) order(o Order) {
	if c.err == nil && o > OrderAttack {
		c.fail(int30.ErrRange, "order %d", o)
	}
}

// appendUInt30 and appendInt30 append a value that a checker has passed, so
// wire's error, a value out of range, cannot happen here.
func appendUInt30(b []byte, v uint32) []byte {
	b, _ = int30.AppendUInt30(b, v)
	return b
}

func appendInt30(b []byte, v int32) []byte {
	b, _ = int30.AppendInt30(b, v)
	return b
}

// appendChecked is every Append…: it runs check over v and appends v's
// encoding only if the check passed, so nothing is written that the parser
// would refuse, and b comes back unchanged, capacity included, on an error.
func appendChecked[T any](b []byte, v *T, what string, check func(*checker, *T), encode func([]byte, *T) []byte) ([]byte, error) {
	c := checker{what: what}
	if check(&c, v); c.err != nil {
		return b, c.err
	}
	return encode(b, v), nil
}

// unit applies ParseUnit's rules to u. The flags are computed from the
// fields, so only the order and the values themselves can be out of reach.
func (c *checker) unit(u *Unit) {
	c.within("id", u.ID, 1, MaxUnitID)
	c.owner(u.Owner)
	c.order(u.Order)
	c.int30("x", u.X)
	c.int30("y", u.Y)
	c.int30("hp", u.HP)
	c.int30("target x", u.TargetX)
	c.int30("target y", u.TargetY)
	c.within("target id", u.TargetID, 0, MaxUnitID)
	c.int30("cooldown", u.Cooldown)
	c.int30("move progress", u.MoveProgress)
}

// AppendUnit appends the encoding of u to b. It fails, and returns b
// unchanged, if ParseUnit would refuse u or read it back as another unit: an
// id of 0 or above MaxUnitID, an owner that is neither a seat nor
// EnemyOwner, an order above OrderAttack, or a number beyond ±int30.MaxInt30.
// The error wraps int30.ErrRange.
func AppendUnit(b []byte, u *Unit) ([]byte, error) {
	return appendChecked(b, u, "unit", (*checker).unit, encodeUnit)
}

// encodeUnit appends a unit that a checker has passed: the bytes, no checks.
func encodeUnit(b []byte, u *Unit) []byte {
	flags := byte(u.Order)
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
	b = appendUInt30(b, u.ID)
	b = append(b, u.Owner, u.Kind, flags)
	b = appendInt30(b, u.X)
	b = appendInt30(b, u.Y)
	b = appendInt30(b, u.HP)
	if flags&flagTargetXY != 0 {
		b = appendInt30(b, u.TargetX)
		b = appendInt30(b, u.TargetY)
	}
	if flags&flagTargetID != 0 {
		b = appendUInt30(b, u.TargetID)
	}
	if flags&flagCooldown != 0 {
		b = appendInt30(b, u.Cooldown)
	}
	if flags&flagMoveProgress != 0 {
		b = appendInt30(b, u.MoveProgress)
	}
	return b
}

// reader reads fields from b[n:] and checks them with its checker, so a
// parser reads straight through and looks at the error once; after an error
// every read returns a zero value.
type reader struct {
	checker
	b []byte
	n int
}

// wrap records an error of wire's parsers with the field it was reading.
func (r *reader) wrap(field string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("world: %s: %s: %w", r.what, field, err)
	}
}

// u30 reads a UInt30 in lo..hi.
func (r *reader) u30(field string, lo, hi uint32) uint32 {
	if r.err != nil {
		return 0
	}
	v, n, err := int30.ParseUInt30(r.b[r.n:])
	if err != nil {
		r.wrap(field, err)
		return 0
	}
	if r.within(field, v, lo, hi); r.err != nil {
		return 0
	}
	r.n += n
	return v
}

// i30 reads an Int30.
func (r *reader) i30(field string) int32 {
	if r.err != nil {
		return 0
	}
	v, n, err := int30.ParseInt30(r.b[r.n:])
	if err != nil {
		r.wrap(field, err)
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
		r.fail(int30.ErrShort, "%s", field)
		return 0
	}
	r.n++
	return r.b[r.n-1]
}

// count reads the length of a list whose elements take at least minSize
// bytes each; a count the bytes left cannot hold is ErrShort.
func (r *reader) count(field string, minSize int) int {
	c := r.u30(field, 0, int30.MaxUInt30)
	if left := len(r.b) - r.n; r.err == nil && int64(c)*int64(minSize) > int64(left) {
		r.fail(int30.ErrShort, "%d %s of at least %d bytes, %d bytes left", c, field, minSize, left)
	}
	if r.err != nil {
		return 0
	}
	return int(c)
}

// nonZero marks a present field that holds its default: it should have been left out.
func (r *reader) nonZero(field string, zero bool) {
	if zero {
		r.fail(int30.ErrNonCanonical, "%s present but zero", field)
	}
}

// ParseUnit reads one unit from the front of b and returns it with the number
// of bytes used. It checks the encoding only; SetUnit checks the unit against
// the world's rules.
func ParseUnit(b []byte) (Unit, int, error) {
	r := reader{checker: checker{what: "unit"}, b: b}
	var u Unit
	u.ID = r.u30("id", 1, MaxUnitID)
	u.Owner = r.byte("owner")
	u.Kind = r.byte("kind")
	flags := r.byte("flags")
	r.owner(u.Owner)
	if r.err == nil && flags&flagReserved != 0 {
		r.fail(int30.ErrNonCanonical, "reserved flag set")
	}
	u.Order = Order(flags & flagOrder)
	r.order(u.Order)
	u.Dead = flags&flagDead != 0
	u.X = r.i30("x")
	u.Y = r.i30("y")
	u.HP = r.i30("hp")
	if flags&flagTargetXY != 0 {
		u.TargetX = r.i30("target x")
		u.TargetY = r.i30("target y")
		r.nonZero("target cell", u.TargetX == 0 && u.TargetY == 0)
	}
	if flags&flagTargetID != 0 {
		u.TargetID = r.u30("target id", 1, MaxUnitID)
	}
	if flags&flagCooldown != 0 {
		u.Cooldown = r.i30("cooldown")
		r.nonZero("cooldown", u.Cooldown == 0)
	}
	if flags&flagMoveProgress != 0 {
		u.MoveProgress = r.i30("move progress")
		r.nonZero("move progress", u.MoveProgress == 0)
	}
	if r.err != nil {
		return Unit{}, 0, r.err
	}
	return u, r.n, nil
}

// attack applies ParseAttack's rules to a.
func (c *checker) attack(a *Attack) {
	c.within("id", a.ID, 1, MaxAttackID)
	c.owner(a.Owner)
	c.within("from", a.From, 0, MaxUnitID)
	c.within("target", a.Target, 1, MaxUnitID)
	c.int30("x", a.X)
	c.int30("y", a.Y)
	c.int30("damage", a.Damage)
	c.int30("speed", a.Speed)
}

// AppendAttack appends the encoding of a to b. It fails, and returns b
// unchanged, if ParseAttack would refuse a: an id of 0 or above MaxAttackID,
// an owner that is neither a seat nor EnemyOwner, a target of 0, a unit id
// above MaxUnitID, or a number beyond ±int30.MaxInt30. The error wraps
// int30.ErrRange.
func AppendAttack(b []byte, a *Attack) ([]byte, error) {
	return appendChecked(b, a, "attack", (*checker).attack, encodeAttack)
}

// encodeAttack appends an attack that a checker has passed: the bytes, no checks.
func encodeAttack(b []byte, a *Attack) []byte {
	b = appendUInt30(b, a.ID)
	b = append(b, a.Owner)
	b = appendUInt30(b, a.From)
	b = appendUInt30(b, a.Target)
	b = appendInt30(b, a.X)
	b = appendInt30(b, a.Y)
	b = appendInt30(b, a.Damage)
	b = appendInt30(b, a.Speed)
	return b
}

// ParseAttack reads one attack from the front of b.
func ParseAttack(b []byte) (Attack, int, error) {
	r := reader{checker: checker{what: "attack"}, b: b}
	a := r.attack()
	if r.err != nil {
		return Attack{}, 0, r.err
	}
	return a, r.n, nil
}

func (r *reader) attack() Attack {
	var a Attack
	a.ID = r.u30("id", 1, MaxAttackID)
	a.Owner = r.byte("owner")
	r.owner(a.Owner)
	a.From = r.u30("from", 0, MaxUnitID)
	a.Target = r.u30("target", 1, MaxUnitID)
	a.X = r.i30("x")
	a.Y = r.i30("y")
	a.Damage = r.i30("damage")
	a.Speed = r.i30("speed")
	return a
}

// CoreState is the world's state other than its units and its frame: the counters that hand
// out ids, the random generator and the attacks in flight (StateHash hashes the same, and the
// map). A real-time re-sync carries it when a client's state hash differs from the server's,
// and every host puts it in place with ApplyCoreState at the repair's frame, its units
// untouched.
type CoreState struct {
	NextID       uint32
	NextAttackID uint32
	RNG          []byte   // the random generator, in its MarshalBinary form
	Attacks      []Attack // the attacks in flight, by ascending id
}

// State is the part of a world that is not units: what a stop-the-world
// re-sync sends besides the units that differ. It is the CoreState with the
// frame and the ids of every unit.
type State struct {
	Frame uint32
	CoreState
	UnitIDs []uint32 // every unit that exists, players' and enemies', ascending
}

// generator checks the random generator's state as ParseState does: at most
// maxRNGState bytes that a PCG accepts.
func (c *checker) generator(rng []byte) {
	if c.err != nil {
		return
	}
	if len(rng) > maxRNGState {
		c.fail(int30.ErrTooLong, "generator state of %d bytes, at most %d", len(rng), maxRNGState)
		return
	}
	if err := new(rand.PCG).UnmarshalBinary(rng); err != nil {
		c.fail(int30.ErrRange, "generator state: %v", err)
	}
}

// counters applies the parsers' rules to the counters and the generator of s.
func (c *checker) counters(s *CoreState) {
	c.within("next id", s.NextID, 1, FirstEnemyID)
	c.within("next attack id", s.NextAttackID, 1, MaxAttackID+1)
	c.generator(s.RNG)
}

// attackList applies the parsers' rules to a list of attacks: each valid, ids ascending.
func (c *checker) attackList(as []Attack) {
	for i := range as {
		c.attack(&as[i])
		if c.err == nil && i > 0 && as[i].ID <= as[i-1].ID {
			c.fail(int30.ErrNonCanonical, "attack %d after attack %d", as[i].ID, as[i-1].ID)
		}
	}
}

// core applies ParseCoreState's rules to s.
func (c *checker) core(s *CoreState) {
	c.counters(s)
	c.attackList(s.Attacks)
}

// state applies ParseState's rules to s.
func (c *checker) state(s *State) {
	c.within("frame", s.Frame, 0, int30.MaxUInt30)
	c.counters(&s.CoreState)
	prev := uint32(0)
	for _, id := range s.UnitIDs {
		c.within("unit id", id, prev+1, MaxUnitID)
		prev = id
	}
	c.attackList(s.Attacks)
}

// AppendState appends the encoding of w's State to b. It fails, and returns b
// unchanged, if the codec cannot carry the state: only a world that has run
// for more than int30.MaxUInt30 frames or loosed more than MaxAttackID
// attacks, or one given a value out of the codec's range through SetAttacks
// or SetUnit. The error wraps one of wire's sentinels.
func (w *World) AppendState(b []byte) ([]byte, error) {
	s := w.State()
	return appendState(b, &s)
}

// appendState appends the encoding of s, after the checks ParseState makes.
func appendState(b []byte, s *State) ([]byte, error) {
	return appendChecked(b, s, "state", (*checker).state, encodeState)
}

// AppendCoreState appends the encoding of w's CoreState to b: State's encoding without the
// frame and the unit ids. It fails, and returns b unchanged, as AppendState does.
func (w *World) AppendCoreState(b []byte) ([]byte, error) {
	s := w.CoreState()
	return appendCoreState(b, &s)
}

// appendCoreState appends the encoding of s, after the checks ParseCoreState makes.
func appendCoreState(b []byte, s *CoreState) ([]byte, error) {
	return appendChecked(b, s, "core state", (*checker).core, encodeCoreState)
}

// encodeState appends a state that a checker has passed: the bytes, no checks.
func encodeState(b []byte, s *State) []byte {
	b = appendUInt30(b, s.Frame)
	b = encodeCounters(b, &s.CoreState)
	b = appendUInt30(b, uint32(len(s.UnitIDs)))
	prev := uint32(0)
	for _, id := range s.UnitIDs {
		b = appendUInt30(b, id-prev)
		prev = id
	}
	return encodeAttackList(b, s.Attacks)
}

// encodeCoreState appends a core state that a checker has passed.
func encodeCoreState(b []byte, s *CoreState) []byte {
	return encodeAttackList(encodeCounters(b, s), s.Attacks)
}

// encodeCounters appends the counters and the generator: next id, next attack id, the
// generator's length and bytes.
func encodeCounters(b []byte, s *CoreState) []byte {
	b = appendUInt30(b, s.NextID)
	b = appendUInt30(b, s.NextAttackID)
	b = appendUInt30(b, uint32(len(s.RNG)))
	return append(b, s.RNG...)
}

// encodeAttackList appends a count of attacks, then each attack.
func encodeAttackList(b []byte, as []Attack) []byte {
	b = appendUInt30(b, uint32(len(as)))
	for i := range as {
		b = encodeAttack(b, &as[i])
	}
	return b
}

// State returns the world's State (the same values AppendState encodes).
func (w *World) State() State {
	s := State{Frame: w.frame, CoreState: w.CoreState()}
	s.UnitIDs = make([]uint32, len(w.units))
	for i := range w.units {
		s.UnitIDs[i] = w.units[i].ID
	}
	return s
}

// CoreState returns the world's CoreState (the same values AppendCoreState encodes).
func (w *World) CoreState() CoreState {
	s := CoreState{NextID: w.nextID, NextAttackID: w.nextAttackID, Attacks: slices.Clone(w.attacks)}
	s.RNG, _ = w.rng.MarshalBinary()
	return s
}

// ParseState reads a State from the front of b.
func ParseState(b []byte) (State, int, error) {
	r := reader{checker: checker{what: "state"}, b: b}
	var s State
	s.Frame = r.u30("frame", 0, int30.MaxUInt30)
	r.counters(&s.CoreState)
	// Each id step takes at least one byte.
	count := r.count("unit ids", 1)
	if r.err == nil {
		s.UnitIDs = make([]uint32, 0, count)
	}
	prev := uint32(0)
	for i := 0; i < count && r.err == nil; i++ {
		prev += r.u30("unit id step", 1, MaxUnitID-prev)
		s.UnitIDs = append(s.UnitIDs, prev)
	}
	s.Attacks = r.attackList()
	if r.err != nil {
		return State{}, 0, r.err
	}
	return s, r.n, nil
}

// ParseCoreState reads a CoreState from the front of b.
func ParseCoreState(b []byte) (CoreState, int, error) {
	r := reader{checker: checker{what: "core state"}, b: b}
	var s CoreState
	r.counters(&s)
	s.Attacks = r.attackList()
	if r.err != nil {
		return CoreState{}, 0, r.err
	}
	return s, r.n, nil
}

// counters reads the counters and the generator into s.
func (r *reader) counters(s *CoreState) {
	s.NextID = r.u30("next id", 1, FirstEnemyID)
	s.NextAttackID = r.u30("next attack id", 1, MaxAttackID+1)
	n := int(r.u30("generator length", 0, int30.MaxUInt30))
	if r.err != nil {
		return
	}
	switch {
	case n > maxRNGState:
		r.fail(int30.ErrTooLong, "generator state of %d bytes, at most %d", n, maxRNGState)
	case len(r.b)-r.n < n:
		r.fail(int30.ErrShort, "generator state")
	default:
		s.RNG = append([]byte(nil), r.b[r.n:r.n+n]...)
		r.n += n
		r.generator(s.RNG)
	}
}

// attackList reads a count of attacks and the attacks, ids ascending.
func (r *reader) attackList() []Attack {
	count := r.count("attacks", minAttackSize)
	if r.err != nil {
		return nil
	}
	as := make([]Attack, 0, count)
	for i := 0; i < count && r.err == nil; i++ {
		a := r.attack()
		if r.err == nil && i > 0 && a.ID <= as[i-1].ID {
			r.fail(int30.ErrNonCanonical, "attack %d after attack %d", a.ID, as[i-1].ID)
		}
		as = append(as, a)
	}
	return as
}

// ApplyState makes w's non-unit state equal to s and removes every unit whose
// id s does not list. Units that s lists but w lacks, or holds differently,
// come separately through SetUnit. The world is unchanged if s is invalid.
func (w *World) ApplyState(s State) error {
	for i := 1; i < len(s.UnitIDs); i++ {
		if s.UnitIDs[i] <= s.UnitIDs[i-1] {
			return fmt.Errorf("world: state: unit ids not ascending: %w", ErrBadID)
		}
	}
	rng, err := w.checkCore(&s.CoreState)
	if err != nil {
		return err
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

// ApplyCoreState makes w's counters, random generator and attacks in flight equal to s, and
// leaves its units and its frame alone: a real-time re-sync of the world's state, which every
// host applies at the repair's frame. The world is unchanged if s is invalid.
//
// The next id is at least one more than the highest player unit's id. The server sends its
// state of a few frames before the repair's frame, and a squad that landed in between took
// the ids from the server's counter on: set back, the counter would hand the same ids out
// again, and the next squad would overwrite those units. Every host holds the same units at
// the repair's frame (the units that differ are repaired in the same update, before the
// state), so every host ends with the same counter.
func (w *World) ApplyCoreState(s CoreState) error {
	rng, err := w.checkCore(&s)
	if err != nil {
		return err
	}
	next := s.NextID
	for i := len(w.units) - 1; i >= 0; i-- {
		if u := &w.units[i]; !u.IsEnemy() {
			next = max(next, u.ID+1)
			break // ids ascend: the last player unit has the highest player id
		}
	}
	w.nextID, w.nextAttackID, w.rng = min(next, FirstEnemyID), s.NextAttackID, rng
	w.attacks = append(w.attacks[:0], s.Attacks...)
	return nil
}

// checkCore checks s against the world's rules before ApplyState or ApplyCoreState puts it in
// place, and returns its random generator.
func (w *World) checkCore(s *CoreState) (rand.PCG, error) {
	var rng rand.PCG
	if err := rng.UnmarshalBinary(s.RNG); err != nil {
		return rng, fmt.Errorf("world: state: generator: %v: %w", err, int30.ErrRange)
	}
	for i := range s.Attacks {
		a := &s.Attacks[i]
		if err := w.checkAttack(a); err != nil {
			return rng, err
		}
		if i > 0 && a.ID <= s.Attacks[i-1].ID || a.ID >= s.NextAttackID {
			return rng, fmt.Errorf("world: state: attack %d out of order: %w", a.ID, ErrBadAttack)
		}
	}
	if s.NextID == 0 || s.NextID > FirstEnemyID || s.NextAttackID == 0 {
		return rng, fmt.Errorf("world: state: counters: %w", int30.ErrRange)
	}
	return rng, nil
}
