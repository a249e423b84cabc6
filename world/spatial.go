package world

// spatial indexes the units' positions at the start of a step by cell, so
// that "the nearest enemy within 8 cells" looks at the cells around a unit,
// nearest first, instead of at every unit. It is rebuilt at the start of every
// step; each cell lists its units in id order, so what a query finds never
// depends on how the index was filled.
type spatial struct {
	head []int32 // per map cell (x + y*w): the first unit slot there, or -1
	next []int32 // per unit slot: the next slot in the same cell, or -1
}

func (sp *spatial) build(lv *level, units []Unit, enemies bool) {
	sp.head = resize(sp.head, int(lv.w*lv.h))
	for i := range sp.head {
		sp.head[i] = -1
	}
	sp.next = resize(sp.next, len(units))
	for i := len(units) - 1; i >= 0; i-- { // backwards, so each list ends up in id order
		u := &units[i]
		if u.Dead || u.IsEnemy() != enemies {
			continue
		}
		c := u.Y*lv.w + u.X
		sp.next[i] = sp.head[c]
		sp.head[c] = int32(i)
	}
}

// nearest returns the slot of the unit nearest (x, y) within r cells, or -1.
// Nearest means: smallest Chebyshev distance (the larger of the horizontal
// and vertical distance), then smallest squared Euclidean distance, then
// lowest id. It searches rings of cells at distance 0, 1, 2, ... and stops at
// the first ring holding a unit. Positions are those at the start of the step.
func (sp *spatial) nearest(w *World, x, y, r int32) int {
	lv := w.lv
	best, bestE, bestID := -1, int32(0), uint32(0)
	consider := func(cx, cy int32) {
		for it := sp.head[cy*lv.w+cx]; it >= 0; it = sp.next[it] {
			dx, dy := cx-x, cy-y
			e := dx*dx + dy*dy
			id := w.units[it].ID
			if best < 0 || e < bestE || e == bestE && id < bestID {
				best, bestE, bestID = int(it), e, id
			}
		}
	}
	for d := int32(0); d <= r && best < 0; d++ {
		x0, x1 := max(x-d, 0), min(x+d, lv.w-1)
		if y-d >= 0 {
			for cx := x0; cx <= x1; cx++ {
				consider(cx, y-d)
			}
		}
		if d > 0 && y+d < lv.h {
			for cx := x0; cx <= x1; cx++ {
				consider(cx, y+d)
			}
		}
		y0, y1 := max(y-d+1, 0), min(y+d-1, lv.h-1)
		if x-d >= 0 && d > 0 {
			for cy := y0; cy <= y1; cy++ {
				consider(x-d, cy)
			}
		}
		if x+d < lv.w && d > 0 {
			for cy := y0; cy <= y1; cy++ {
				consider(x+d, cy)
			}
		}
	}
	return best
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
