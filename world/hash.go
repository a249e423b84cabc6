package world

// The unit hash. A unit's hash is FNV-1a run over the unit's canonical 40-byte
// encoding, eight bytes at a time, followed by a finalizer:
//
//	offset  size  field (little-endian)
//	0       4     ID
//	4       4     X
//	8       4     Y
//	12      4     HP
//	16      4     TargetX
//	20      4     TargetY
//	24      4     TargetID
//	28      4     Cooldown
//	32      4     MoveProgress
//	36      1     Owner
//	37      1     Kind
//	38      1     Order
//	39      1     Dead (0 or 1)
//
// Each 8-byte word w goes through FNV-1a's step h = (h ^ w) * prime, from
// FNV's offset basis. Byte by byte, FNV-1a would chain 40 multiplications
// (about 60 ns a unit); five take a few nanoseconds. Each step is a bijection
// of h for a given word, so two units that differ in one word always hash
// differently. Multiplication only carries bits upwards, though, so the low
// bits of h would depend only on the low bits of each word; the finalizer
// (MurmurHash3's fmix64) folds the high bits back down so that every output
// bit depends on every input bit. That matters for the grouped hashes: with
// weak low bits, two unrelated differences XORed together could cancel.
// game/PROTOCOL.md (section 5) gives the same recipe to another
// implementation.

const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

func fnvWord(h, w uint64) uint64 { return (h ^ w) * fnvPrime64 }

// Mix64 is the finalizer of the world's hashes (MurmurHash3's fmix64): every output bit
// depends on every input bit. Other layers mix what they hash of the game with it, so that a
// recipe given to another implementation names one function.
func Mix64(h uint64) uint64 { return fmix64(h) }

func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Hash returns the unit's 64-bit hash, over every field (see the layout
// above). Hosts compare these to find units that went out of sync.
func (u Unit) Hash() uint64 {
	h := uint64(fnvOffset64)
	h = fnvWord(h, uint64(u.ID)|uint64(uint32(u.X))<<32)
	h = fnvWord(h, uint64(uint32(u.Y))|uint64(uint32(u.HP))<<32)
	h = fnvWord(h, uint64(uint32(u.TargetX))|uint64(uint32(u.TargetY))<<32)
	h = fnvWord(h, uint64(u.TargetID)|uint64(uint32(u.Cooldown))<<32)
	h = fnvWord(h, uint64(uint32(u.MoveProgress))|uint64(u.Owner)<<32|uint64(u.Kind)<<40|uint64(u.Order)<<48|b2u(u.Dead)<<56)
	return fmix64(h)
}

// Hash returns the attack's 64-bit hash, the same way over its canonical
// 32-byte encoding: ID, From, Target, X, Y, Damage, Speed (4 bytes each,
// little-endian), Owner, 3 zero bytes.
func (a Attack) Hash() uint64 {
	h := uint64(fnvOffset64)
	h = fnvWord(h, uint64(a.ID)|uint64(a.From)<<32)
	h = fnvWord(h, uint64(a.Target)|uint64(uint32(a.X))<<32)
	h = fnvWord(h, uint64(uint32(a.Y))|uint64(uint32(a.Damage))<<32)
	h = fnvWord(h, uint64(uint32(a.Speed))|uint64(a.Owner)<<32)
	return fmix64(h)
}

func hashString(s string) uint64 {
	h := uint64(fnvOffset64)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime64
	}
	return h
}

// Hash returns a hash of the whole world state: the map, the frame, the
// counters that hand out ids, the random generator's state, every unit and
// every attack in flight, in id order. Two worlds with equal hashes will
// stay equal when given the same calls.
func (w *World) Hash() uint64 {
	h := uint64(fnvOffset64)
	h = fnvWord(h, w.lv.nameHash)
	h = fnvWord(h, uint64(w.frame)|uint64(w.nextID)<<32)
	h = fnvWord(h, uint64(w.nextAttackID))
	h = w.hashGenerator(h)
	h = fnvWord(h, uint64(len(w.units)))
	for i := range w.units {
		h = fnvWord(h, w.units[i].Hash())
	}
	return fmix64(w.hashAttacks(h))
}

// StateHash returns a hash of the world's state other than its units and its frame: the map,
// the counters that hand out ids, the random generator's state and every attack in flight, in
// id order. It is what Hash covers besides the units and the frame, so two worlds at one frame
// with equal unit hashes (GroupHashes) and equal state hashes have equal Hashes. A client
// reports it beside the root of its unit hashes, and the server repairs a difference with its
// CoreState. The words, after FNV's offset basis:
//
//	the map's name hash (FNV-1a over its bytes)
//	next id | next attack id << 32
//	the generator's MarshalBinary form, 8 bytes at a time, big-endian (the last word shorter)
//	the count of attacks, then each attack's hash, ids ascending
//
// then the finalizer, as for a unit (game/PROTOCOL.md, section 5).
func (w *World) StateHash() uint64 {
	h := uint64(fnvOffset64)
	h = fnvWord(h, w.lv.nameHash)
	h = fnvWord(h, uint64(w.nextID)|uint64(w.nextAttackID)<<32)
	h = w.hashGenerator(h)
	return fmix64(w.hashAttacks(h))
}

// hashGenerator runs h over the random generator's state: its MarshalBinary form, 8 bytes at
// a time, big-endian.
func (w *World) hashGenerator(h uint64) uint64 {
	var buf [32]byte
	rng, _ := w.rng.AppendBinary(buf[:0]) // cannot fail
	for len(rng) > 0 {
		var v uint64
		n := min(8, len(rng))
		for _, b := range rng[:n] {
			v = v<<8 | uint64(b)
		}
		h = fnvWord(h, v)
		rng = rng[n:]
	}
	return h
}

// hashAttacks runs h over the attacks in flight: their count, then each one's hash.
func (w *World) hashAttacks(h uint64) uint64 {
	h = fnvWord(h, uint64(len(w.attacks)))
	for i := range w.attacks {
		h = fnvWord(h, w.attacks[i].Hash())
	}
	return h
}

// GroupHash covers the units with ids Start..End (inclusive): Hash is the
// XOR of their hashes. A client sends these instead of one hash per unit, so
// a few hundred units cost a few dozen numbers; XOR makes a group's hash
// independent of order and cheap to recompute over any id range.
type GroupHash struct {
	Start, End uint32
	Hash       uint64
}

// GroupHashes appends to dst[:0] one GroupHash per size units, in id order
// (the last group may be smaller), and returns it. A size below 1 counts as 1.
//
// The ranges tile the whole id space with no gaps: the first starts at 1,
// each ends at the id of its last unit, the next starts just after, and the
// last ends at MaxUnitID. So a unit that one world has and the other lacks
// always falls inside some range, and the server can check each range against
// its own world with RangeHash even when the two disagree about which units
// exist.
func (w *World) GroupHashes(size int, dst []GroupHash) []GroupHash {
	return groupHashes(len(w.units), func(i int) (uint32, uint64) { return w.units[i].ID, w.units[i].Hash() }, 1, MaxUnitID, size, dst)
}

// GroupUnitHashes is GroupHashes over unit hashes kept from an earlier frame (hs in id
// order, as UnitHashes returns them): the same groups, without the world of that frame.
func GroupUnitHashes(hs []UnitHash, size int, dst []GroupHash) []GroupHash {
	return GroupUnitHashesIn(hs, 1, MaxUnitID, size, dst)
}

// GroupUnitHashesIn is GroupUnitHashes over the ids first..last alone: hs holds the units
// with ids in that range, in id order, and the groups tile first..last with no gap, the first
// starting at first and the last ending at last. It splits one group that differs into
// smaller ones, a level further down the hash tree, with the same guarantee: a unit only the
// other side has still falls inside some group.
func GroupUnitHashesIn(hs []UnitHash, first, last uint32, size int, dst []GroupHash) []GroupHash {
	return groupHashes(len(hs), func(i int) (uint32, uint64) { return hs[i].ID, hs[i].Hash }, first, last, size, dst)
}

// groupHashes groups n units, the i-th of which has the id and hash unit(i), in id order,
// into groups that tile the ids first..last.
func groupHashes(n int, unit func(i int) (uint32, uint64), first, last uint32, size int, dst []GroupHash) []GroupHash {
	dst = dst[:0]
	size = max(size, 1)
	next := first
	for start := 0; start < n; start += size {
		end := min(start+size, n)
		var x uint64
		for i := start; i < end; i++ {
			_, h := unit(i)
			x ^= h
		}
		upTo, _ := unit(end - 1)
		if end == n {
			upTo = last
		}
		dst = append(dst, GroupHash{Start: next, End: upTo, Hash: x})
		next = upTo + 1
	}
	return dst
}

// RangeHash returns the XOR of the hashes of the units with ids in
// [start, end]; 0 if there are none.
func (w *World) RangeHash(start, end uint32) uint64 {
	var x uint64
	i, _ := w.insertionPoint(start)
	for ; i < len(w.units) && w.units[i].ID <= end; i++ {
		x ^= w.units[i].Hash()
	}
	return x
}

// UnitHash is one unit's id and hash.
type UnitHash struct {
	ID   uint32
	Hash uint64
}

// UnitHashes appends to dst[:0] the hash of every unit with an id in
// [start, end], in id order: the drill-down into a group whose XOR did not
// match.
func (w *World) UnitHashes(start, end uint32, dst []UnitHash) []UnitHash {
	dst = dst[:0]
	i, _ := w.insertionPoint(start)
	for ; i < len(w.units) && w.units[i].ID <= end; i++ {
		dst = append(dst, UnitHash{ID: w.units[i].ID, Hash: w.units[i].Hash()})
	}
	return dst
}
