package game

import (
	"testing"

	"github.com/ackattack/ackattack/world"
)

// unitHashesOf is a world's unit hashes as the history keeps them: n units with ids 1..n.
func unitHashesOf(n int) []world.UnitHash {
	hs := make([]world.UnitHash, n)
	for i := range hs {
		hs[i] = world.UnitHash{ID: uint32(i + 1), Hash: uint64(i+1) * 0x9e3779b97f4a7c15}
	}
	return hs
}

// TestRangeHash: the group hash of a range is the XOR of the units in it, wherever the range
// falls: before the first unit, across gaps, past the last.
func TestRangeHash(t *testing.T) {
	hs := []world.UnitHash{{ID: 3, Hash: 1}, {ID: 5, Hash: 2}, {ID: 9, Hash: 4}, {ID: 10, Hash: 8}}
	tests := []struct {
		start, end uint32
		want       uint64
	}{
		{1, world.MaxUnitID, 15},
		{1, 2, 0},
		{3, 3, 1},
		{4, 9, 6},
		{6, 8, 0},
		{10, 10, 8},
		{11, world.MaxUnitID, 0},
		{5, 5, 2},
	}
	for _, tt := range tests {
		if got := rangeHash(hs, tt.start, tt.end); got != tt.want {
			t.Errorf("rangeHash(%d, %d) = %d, want %d", tt.start, tt.end, got, tt.want)
		}
	}
	if got := rangeHash(nil, 1, world.MaxUnitID); got != 0 {
		t.Errorf("rangeHash of no units = %d", got)
	}
}

// BenchmarkCheckReport: the cost of checking one hash report against a world of 2000 units,
// with the drill-down request it leads to: an honest one whose root matches, and the same
// with a drifted unit (the server splits its units into ten sub-ranges and hashes each). A
// report carries one root, so any report, made up or not, costs a pass over the units at most.
func BenchmarkCheckReport(b *testing.B) {
	mine := unitHashesOf(2000)
	for _, c := range []struct {
		name string
		root uint64
	}{{"honest", rootHash(mine)}, {"drifted", rootHash(mine) ^ 1}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if ranges := mismatchedRanges(mine, c.root); len(ranges) > 0 {
					drillRequest(1, mine, ranges, DefaultGroupSize)
				}
			}
		})
	}
}
