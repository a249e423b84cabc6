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
	valid  [historyFrames]bool
}

// record stores w's hashes for its current frame (the state at the start of the frame).
func (h *hashHistory) record(w *world.World) {
	f := w.Frame()
	i := f % historyFrames
	h.frames[i], h.valid[i] = f, true
	h.hashes[i] = w.UnitHashes(1, world.MaxUnitID, h.hashes[i][:0])
	h.states[i] = w.StateHash()
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
