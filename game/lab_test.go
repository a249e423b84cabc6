package game

import (
	"math/rand/v2"
	"testing"
)

// TestRandomCellGivesUp: a map with no cell that will do (no reachable ground) ends the
// search after spawnTries cells, instead of looping for ever; one that has some finds one.
func TestRandomCellGivesUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tries := 0
	if _, _, ok := randomCell(rng, 50, 20, func(x, y int32) bool { tries++; return false }); ok || tries != spawnTries {
		t.Errorf("no cell will do: found %v after %d tries, want none after %d", ok, tries, spawnTries)
	}
	x, y, ok := randomCell(rng, 50, 20, func(x, y int32) bool { return x == 3 })
	if !ok || x != 3 || y < 0 || y >= 20 {
		t.Errorf("cells with x 3 will do: found %v at (%d, %d)", ok, x, y)
	}
}
