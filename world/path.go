package world

import "math/bits"

// Path finding.
//
// Units never block each other and the map never changes, so the way from a
// cell to a goal depends on nothing but the map. That is why a unit carries no
// path: each time it is ready to step, the next cell is computed again from
// its position and its goal, and every host computes the same one. The
// searches below are caches of that computation and are not part of the
// world's state.
//
// A search runs backwards, from the goal outwards, breadth first: every cell
// it reaches gets its walking distance to the goal (steps to any of the 8
// neighbours count 1, so distance on open ground is the Chebyshev distance).
// A walker then steps to a neighbour one step nearer. Running backwards lets
// every unit heading for the same goal share one search, and a search is
// extended only as far as the farthest unit that asked, so a chase over a few
// cells costs a few cells.

// field is a search from one goal cell.
type field struct {
	goal    int32
	dist    []uint16 // per bordered cell: 1 + steps to the goal; 0 = not reached yet
	queue   []int32  // the cells reached, in the order reached; queue[head:] are not expanded yet
	head    int
	lastUse uint32 // the frame it was last asked, for eviction
}

func (f *field) reset(lv *level, goal int32) {
	if len(f.dist) != len(lv.moves) {
		f.dist = make([]uint16, len(lv.moves))
	} else {
		for _, c := range f.queue { // only the cells the last search touched
			f.dist[c] = 0
		}
	}
	f.goal = goal
	f.queue = append(f.queue[:0], goal)
	f.head = 0
	f.dist[goal] = 1
}

// reach extends the search until cell c is reached and returns its distance
// plus one, or 0 if c cannot be reached.
//
// The queue is in order of distance, so when c is first reached every cell
// nearer the goal has been reached too: the neighbours one step nearer than c
// are all known, whichever unit asked first and however far the search went.
func (f *field) reach(lv *level, c int32) uint16 {
	dist := f.dist
	for dist[c] == 0 && f.head < len(f.queue) {
		cur := f.queue[f.head]
		f.head++
		d := dist[cur] + 1
		for m := lv.moves[cur]; m != 0; m &= m - 1 {
			next := cur + lv.off[bits.TrailingZeros8(m)]
			if dist[next] == 0 {
				dist[next] = d
				f.queue = append(f.queue, next)
			}
		}
	}
	return dist[c]
}

// huntField is one search from every living player unit at once, which
// answers for each cell how far the nearest player unit is and which one it is
// (label). Enemies walk down it. Among player units at the same walking
// distance, the lowest id wins: a cell's label is the smallest label among the
// neighbours that reached it first.
type huntField struct {
	dist    []uint16
	label   []uint32
	queue   []int32
	head    int
	sources []uint64 // cell<<32 | id of each player unit it started from, in id order
	valid   bool
}

// prepare starts the search from sources, unless it already started from
// exactly these (no player unit moved, died or arrived): then what was
// searched in earlier frames still holds.
func (f *huntField) prepare(lv *level, sources []uint64) {
	if f.valid && equalU64(f.sources, sources) {
		return
	}
	if len(f.dist) != len(lv.moves) {
		f.dist = make([]uint16, len(lv.moves))
		f.label = make([]uint32, len(lv.moves))
	} else {
		for _, c := range f.queue {
			f.dist[c] = 0
		}
	}
	f.sources = append(f.sources[:0], sources...)
	f.valid = true
	f.queue = f.queue[:0]
	f.head = 0
	for _, s := range sources {
		c, id := int32(s>>32), uint32(s)
		if f.dist[c] == 0 { // two units on one cell: the lower id came first
			f.dist[c] = 1
			f.label[c] = id
			f.queue = append(f.queue, c)
		}
	}
}

// reach extends the search until cell c is reached and its label is final,
// and returns its distance plus one, or 0 if no player unit can reach c. A
// label is final once every cell one step nearer has been expanded.
func (f *huntField) reach(lv *level, c int32) uint16 {
	dist, label := f.dist, f.label
	for {
		dc := dist[c]
		if f.head == len(f.queue) || dc != 0 && dist[f.queue[f.head]] >= dc {
			return dc
		}
		cur := f.queue[f.head]
		f.head++
		d, lab := dist[cur]+1, label[cur]
		for m := lv.moves[cur]; m != 0; m &= m - 1 {
			next := cur + lv.off[bits.TrailingZeros8(m)]
			switch {
			case dist[next] == 0:
				dist[next] = d
				label[next] = lab
				f.queue = append(f.queue, next)
			case dist[next] == d && lab < label[next]:
				label[next] = lab
			}
		}
	}
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// downhill picks the cell a walker at c steps to: a neighbour one step nearer
// the goal (by dist), and if labels is not nil one whose label is want. Among
// those it takes the step that points most directly at (gx, gy), the smallest
// angle between the step and the straight line to the goal, so that paths
// across open ground look like lines rather than a diagonal dash followed by
// a straight run; among equals, the first clockwise from north. c must have
// been reached; if it is the goal, downhill returns c.
func downhill(lv *level, dist []uint16, labels []uint32, want uint32, c int32, gx, gy int32) int32 {
	if dist[c] <= 1 {
		return c
	}
	nearer := dist[c] - 1
	x, y := lv.xy(c)
	gx, gy = gx-x, gy-y
	best := c
	var bestDot, bestLen int64 // the best step's dot product with the goal direction, and its squared length
	for m := lv.moves[c]; m != 0; m &= m - 1 {
		d := bits.TrailingZeros8(m)
		next := c + lv.off[d]
		if dist[next] != nearer || labels != nil && labels[next] != want {
			continue
		}
		// cos² of the angle is dot²/(len² · |goal|²); compare dot²/len²
		// across steps without dividing. A step pointing away (dot <= 0)
		// only wins when nothing points towards the goal.
		dot := int64(dirX[d]*gx + dirY[d]*gy)
		length := int64(dirX[d]*dirX[d] + dirY[d]*dirY[d])
		if best == c || betterAngle(dot, length, bestDot, bestLen) {
			best, bestDot, bestLen = next, dot, length
		}
	}
	return best
}

// betterAngle reports whether a step with dot product dot and squared length
// length points strictly more directly at the goal than the current best.
func betterAngle(dot, length, bestDot, bestLen int64) bool {
	switch {
	case dot > 0 && bestDot <= 0:
		return true
	case dot <= 0 && bestDot > 0:
		return false
	case dot > 0: // both towards: larger cos² wins
		return dot*dot*bestLen > bestDot*bestDot*length
	default: // both away or across: the less opposed (smaller dot²/len²) wins
		return dot*dot*bestLen < bestDot*bestDot*length
	}
}

// fieldTo returns the search towards goal, from the cache or new.
func (w *World) fieldTo(goal int32) *field {
	s := &w.scratch
	f := s.fields[goal] // a lookup; the cache is never ranged over
	if f == nil {
		if s.fields == nil {
			s.fields = make(map[int32]*field)
		}
		if n := len(s.pool); n > 0 {
			f, s.pool = s.pool[n-1], s.pool[:n-1]
		} else {
			f = new(field)
		}
		f.reset(w.lv, goal)
		s.fields[goal] = f
		s.cached = append(s.cached, f)
	}
	f.lastUse = w.frame
	return f
}

// Cache limits: a search not asked for fieldTTL frames is dropped, and never
// more than maxFields are kept. Dropping one only costs time: it is rebuilt,
// with the same answers, when next needed.
const (
	fieldTTL  = 10
	maxFields = 128
)

func (w *World) evictFields() {
	s := &w.scratch
	full := len(s.cached) > maxFields
	keep := s.cached[:0]
	for _, f := range s.cached {
		if w.frame-f.lastUse > fieldTTL || full && f.lastUse != w.frame {
			delete(s.fields, f.goal)
			s.pool = append(s.pool, f)
			continue
		}
		keep = append(keep, f)
	}
	clear(s.cached[len(keep):])
	s.cached = keep
}

// stepToward returns the cell a walker at c steps to on its way to goal. The
// caller has checked that goal is reachable from c and is not c.
func (w *World) stepToward(c, goal int32) int32 {
	f := w.fieldTo(goal)
	f.reach(w.lv, c)
	gx, gy := w.lv.xy(goal)
	return downhill(w.lv, f.dist, nil, 0, c, gx, gy)
}
