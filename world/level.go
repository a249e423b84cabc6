package world

import (
	"fmt"
	"math/bits"
	"sort"
	"sync"

	"github.com/ackattack/ackattack/assets"
)

// Terrain is what a map cell is made of; its value is the character that
// draws it (see the assets package).
type Terrain = assets.Terrain

// The kinds of terrain.
const (
	Ground = assets.Ground
	Wall   = assets.Wall
	Water  = assets.Water
)

// The eight directions a walker can step in, in the order that breaks the
// last ties when choosing a step: clockwise from north.
var (
	dirX = [8]int32{0, 1, 1, 1, 0, -1, -1, -1}
	dirY = [8]int32{-1, -1, 0, 1, 1, 1, 0, -1}
)

// level is a map prepared for the rules. It is built once per map and shared,
// read-only, by every world on it.
//
// Cells are indexed in a grid one cell larger on every side than the map,
// filled with wall, so that the neighbours of any map cell are valid indexes
// and the path search needs no bounds checks: cell (x, y) is index
// (y+1)*stride + x+1.
type level struct {
	name     string
	desc     string
	w, h     int32
	stride   int32
	terrain  []Terrain // w*h, row by row, without the border
	moves    []uint8   // per bordered cell: bit d set = a walker may step in direction d
	region   []int32   // per bordered cell: connected area number, 0 for blocked cells
	off      [8]int32  // index offset of a step in each direction
	spawns   []int32   // bordered cell index of each seat's spawn point
	nameHash uint64
}

func (lv *level) cell(x, y int32) int32 { return (y+1)*lv.stride + x + 1 }

func (lv *level) xy(c int32) (x, y int32) { return c%lv.stride - 1, c/lv.stride - 1 }

func (lv *level) inside(x, y int32) bool { return x >= 0 && y >= 0 && x < lv.w && y < lv.h }

// walkable reports whether (x, y) is open ground inside the map.
func (lv *level) walkable(x, y int32) bool {
	return lv.inside(x, y) && lv.terrain[y*lv.w+x] == Ground
}

// buildLevel prepares m: which steps are allowed from each cell, and the
// connected areas. A diagonal step needs both cells it passes between to be
// open, so nobody squeezes between two corners; that rule is symmetric, so a
// path found backwards from a goal is also a path forwards.
func buildLevel(m *assets.Map) (*level, error) {
	lv := &level{
		name:     m.Name,
		desc:     m.Description,
		w:        int32(m.Width),
		h:        int32(m.Height),
		stride:   int32(m.Width) + 2,
		terrain:  append([]Terrain(nil), m.Cells...),
		nameHash: hashString(m.Name),
	}
	n := lv.stride * (lv.h + 2)
	open := make([]bool, n)
	for y := range lv.h {
		for x := range lv.w {
			open[lv.cell(x, y)] = lv.terrain[y*lv.w+x] == Ground
		}
	}
	for d := range 8 {
		lv.off[d] = dirY[d]*lv.stride + dirX[d]
	}
	lv.moves = make([]uint8, n)
	for c := range n {
		if !open[c] {
			continue
		}
		var m uint8
		for d := range 8 {
			if !open[c+lv.off[d]] {
				continue
			}
			if dirX[d] != 0 && dirY[d] != 0 && !(open[c+dirX[d]] && open[c+dirY[d]*lv.stride]) {
				continue
			}
			m |= 1 << d
		}
		lv.moves[c] = m
	}
	// Connected areas, numbered in cell order by a flood fill. Two cells are
	// connected exactly when a walker can get from one to the other (units
	// never block each other), so comparing area numbers answers "is there a
	// path?" without searching.
	lv.region = make([]int32, n)
	var queue []int32
	var regions int32
	for c := range n {
		if !open[c] || lv.region[c] != 0 {
			continue
		}
		regions++
		lv.region[c] = regions
		queue = append(queue[:0], c)
		for len(queue) > 0 {
			cur := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for m := lv.moves[cur]; m != 0; m &= m - 1 {
				next := cur + lv.off[bits.TrailingZeros8(m)]
				if lv.region[next] == 0 {
					lv.region[next] = regions
					queue = append(queue, next)
				}
			}
		}
	}
	for seat, p := range m.Spawns {
		c := lv.cell(int32(p.X), int32(p.Y))
		lv.spawns = append(lv.spawns, c)
		if lv.region[c] != lv.region[lv.spawns[0]] {
			return nil, fmt.Errorf("%s: spawn point %d at (%d,%d) cannot walk to spawn point 1 at (%d,%d)",
				m.File, seat+1, p.X, p.Y, m.Spawns[0].X, m.Spawns[0].Y)
		}
	}
	return lv, nil
}

// catalog is everything the world loads from the assets package, once per
// process: the levels (sorted by name) and the unit kinds.
type catalog struct {
	levels   []*level
	mapsErr  error
	kinds    []Kind
	kindsErr error
}

var loadCatalog = sync.OnceValue(func() *catalog {
	cat := &catalog{}
	maps, err := assets.LoadMaps()
	cat.mapsErr = err
	for _, m := range maps {
		lv, err := buildLevel(m)
		if err != nil {
			cat.mapsErr = err
			continue
		}
		cat.levels = append(cat.levels, lv)
	}
	cat.kinds, cat.kindsErr = loadKinds()
	return cat
})

// Maps returns the names of the maps a world can be built on, sorted.
func Maps() []string {
	cat := loadCatalog()
	names := make([]string, len(cat.levels))
	for i, lv := range cat.levels {
		names[i] = lv.name
	}
	return names
}

// MapDescription returns the description line of a map, and whether the map exists.
func MapDescription(name string) (string, bool) {
	lv := findLevel(name)
	if lv == nil {
		return "", false
	}
	return lv.desc, true
}

func findLevel(name string) *level {
	levels := loadCatalog().levels
	i := sort.Search(len(levels), func(i int) bool { return levels[i].name >= name })
	if i < len(levels) && levels[i].name == name {
		return levels[i]
	}
	return nil
}
