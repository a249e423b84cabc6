package game

import (
	"cmp"
	"slices"
	"sort"

	"github.com/ackattack/ackattack/world"
)

// historyFrames is how many recent frames of hashes a host keeps (each unit's, and the rest
// of the world's state): long enough for a frame to settle (at most the longest re-run window,
// resim.go), and for its hash report to cross the network and come back with a drill-down
// request (9.6 s at 10 frames a second).
const historyFrames = 96

// hashHistory keeps the hash of every unit, and the hash of the rest of the world's state
// (world.World.StateHash), at each of the last historyFrames frames, so that a report about
// frame F can be checked against F, not against now.
type hashHistory struct {
	frames [historyFrames]uint32
	hashes [historyFrames][]world.UnitHash
	states [historyFrames]uint64
	inputs [historyFrames]inputDigests // the inputs' digests (schedule.inputDigests) when the frame was recorded
	valid  [historyFrames]bool
}

// record stores w's hashes for its current frame (the state at the start of the frame, after
// its events), and the digests of the inputs that made it.
func (h *hashHistory) record(w *world.World, inputs inputDigests) {
	f := w.Frame()
	i := f % historyFrames
	h.frames[i], h.valid[i] = f, true
	h.hashes[i] = w.UnitHashes(1, world.MaxUnitID, h.hashes[i][:0])
	h.states[i] = w.StateHash()
	h.inputs[i] = inputs
}

// inputsAt returns the inputs' digest of frame f from floor on (inputDigests.from), if
// still kept.
func (h *hashHistory) inputsAt(f, floor uint32) (uint32, bool) {
	i := f % historyFrames
	if !h.valid[i] || h.frames[i] != f {
		return 0, false
	}
	return h.inputs[i].from(f, floor), true
}

// at returns the unit hashes of frame f, if still kept.
func (h *hashHistory) at(f uint32) ([]world.UnitHash, bool) {
	i := f % historyFrames
	if !h.valid[i] || h.frames[i] != f {
		return nil, false
	}
	return h.hashes[i], true
}

// stateAt returns the state hash of frame f, if still kept.
func (h *hashHistory) stateAt(f uint32) (uint64, bool) {
	i := f % historyFrames
	if !h.valid[i] || h.frames[i] != f {
		return 0, false
	}
	return h.states[i], true
}

// clear forgets everything (after a re-sync rewrites the past).
func (h *hashHistory) clear() { h.valid = [historyFrames]bool{} }

// rangeHash is the XOR of the hashes of units with ids in [start, end] (the group hash). hs
// is in id order, as the history keeps it, so the range is found by a binary search: a check
// costs log n plus the units in the range, not a pass over the world per group.
func rangeHash(hs []world.UnitHash, start, end uint32) uint64 {
	var x uint64
	for _, h := range unitsIn(hs, start, end) {
		x ^= h.Hash
	}
	return x
}

// unitsIn is the part of hs (in id order) with ids in [start, end], found by binary search.
func unitsIn(hs []world.UnitHash, start, end uint32) []world.UnitHash {
	i, _ := slices.BinarySearchFunc(hs, start, func(u world.UnitHash, id uint32) int { return cmp.Compare(u.ID, id) })
	j := i + sort.Search(len(hs)-i, func(k int) bool { return hs[i+k].ID > end })
	return hs[i:j]
}

// The locator. A report's root says that some unit differs, and a drill-down asks which: a
// round trip. The locator names it in the report itself when it is the only one, as a drift
// mostly is (one corrupted unit, one command missed). For each of the low locatorBits bits of
// the unit hashes, it holds the XOR of the ids of the units whose hash has that bit set. If one
// unit differs between two worlds, the two roots differ by its two hashes XORed (delta), and
// the locators differ by its id at each bit where delta is set, and not at all where it is
// not: the server reads the id there and checks that every bit agrees (locate). A drift of
// several units rarely passes that check, and the drill-down names them; one whose delta has
// none of the bits set (1 in 2^locatorBits) is drilled into too.
const locatorBits = 6

// locator is the locator of the unit hashes hs.
func locator(hs []world.UnitHash) (l [locatorBits]uint32) {
	for _, h := range hs {
		for b := range locatorBits {
			if h.Hash>>b&1 != 0 {
				l[b] ^= h.ID
			}
		}
	}
	return l
}

// rootHash is the root of the hash tree over the unit hashes hs: the XOR of them all (0 for
// none), the hash of the id range 1 to world.MaxUnitID.
func rootHash(hs []world.UnitHash) uint64 {
	var root uint64
	for _, h := range hs {
		root ^= h.Hash
	}
	return root
}

// locate names the one unit that makes a report's root (theirs, with their locator) differ
// from the server's units of the same frame (mine, id order), with the reporter's hash of it (0:
// the reporter lacks it) and whether the server has it; ok is false when the locator cannot
// name exactly one unit.
func locate(mine []world.UnitHash, theirs uint64, loc [locatorBits]uint32) (id uint32, their uint64, serverHas bool, ok bool) {
	delta := rootHash(mine) ^ theirs
	if delta == 0 {
		return 0, 0, false, false
	}
	mineLoc := locator(mine)
	for b := range locatorBits {
		if delta>>b&1 != 0 {
			id = loc[b] ^ mineLoc[b]
			break
		}
	}
	if id == 0 || id > world.MaxUnitID {
		return 0, 0, false, false
	}
	for b := range locatorBits {
		want := uint32(0)
		if delta>>b&1 != 0 {
			want = id
		}
		if loc[b]^mineLoc[b] != want {
			return 0, 0, false, false
		}
	}
	h, has := hashOf(mine, id)
	return id, h ^ delta, has, true
}
