package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
)

// World is one deterministic simulation: a map, the units on it sorted by id,
// the attacks in flight sorted by id, a frame counter and one random number
// generator. Two worlds built with the same map and seed, given the same calls
// in the same order, hold the same bits; Hash proves it.
//
// Lockstep, and what it asks of a simulation. Only commands travel between
// hosts, never positions: a move order is a few bytes, the positions of a few
// hundred units many kilobytes every frame. That works only if the same
// commands, applied at the same frames, give the same world everywhere, bit
// for bit, forever. The slightest difference (one unit a cell to the left)
// grows: the unit is attacked by a different enemy, which then lives longer,
// which kills something else. So every rule exists to make "the same input
// gives the same output" true by construction:
//
//   - Integers only. Floating-point results can differ with the compiler's
//     choices (fused multiply-add, reordered sums) and between CPUs; integers
//     cannot. Positions are cells; attacks in flight and speeds count
//     hundredths of a cell (CellSize); distances are Chebyshev or squared
//     Euclidean, and the one square root (for projectiles) is an exact integer
//     one.
//   - Order is explicit. Units and attacks live in slices sorted by id, and
//     everything that loops does so in that order. A range over a Go map visits
//     keys in an order that changes from run to run, so the package never
//     ranges over a map (a test type-checks the source and fails if it does).
//   - One random generator per world, seeded at NewWorld and part of the
//     hashed state, giving exactly one number per step (Step says why).
//   - Decisions see the start of the step, so processing unit 3 before unit 7
//     gives neither an advantage.
//   - Caches are not state. Path searches and the spatial index are rebuilt
//     from the state or depend only on the map, so a clone, a re-synced world
//     or a world on another machine computes the same answers without them.
//
// A World is not safe for concurrent use; Clone gives a copy that shares
// nothing mutable with the original.
type World struct {
	lv           *level
	kinds        []Kind
	frame        uint32
	rng          rand.PCG
	nextID       uint32 // the id AddPlayerUnits hands out next
	nextAttackID uint32
	units        []Unit
	attacks      []Attack

	// Not state: buffers and caches that Step rebuilds or that depend only
	// on the map. Clone leaves them behind.
	scratch scratch
}

// NewWorld returns a world at frame 0 on the named map, with no units, and
// its random number generator seeded with seed.
func NewWorld(mapName string, seed uint64) (*World, error) {
	cat := loadCatalog()
	if cat.kindsErr != nil {
		return nil, cat.kindsErr
	}
	lv := findLevel(mapName)
	if lv == nil {
		if cat.mapsErr != nil {
			return nil, fmt.Errorf("world: map %q: %w (loading maps: %v)", mapName, ErrUnknownMap, cat.mapsErr)
		}
		return nil, fmt.Errorf("world: map %q: %w", mapName, ErrUnknownMap)
	}
	return newWorld(lv, cat.kinds, seed), nil
}

func newWorld(lv *level, kinds []Kind, seed uint64) *World {
	return &World{
		lv:           lv,
		kinds:        kinds,
		rng:          *rand.NewPCG(seed, seed^0x9e3779b97f4a7c15),
		nextID:       1,
		nextAttackID: 1,
	}
}

// MapName returns the name of the world's map.
func (w *World) MapName() string { return w.lv.name }

// Width returns the map's width in cells.
func (w *World) Width() int32 { return w.lv.w }

// Height returns the map's height in cells.
func (w *World) Height() int32 { return w.lv.h }

// Terrain returns the terrain at (x, y); outside the map it is Wall.
func (w *World) Terrain(x, y int32) Terrain {
	if !w.lv.inside(x, y) {
		return Wall
	}
	return w.lv.terrain[y*w.lv.w+x]
}

// Spawn returns the spawn point of a seat, if the map has one.
func (w *World) Spawn(seat uint8) (x, y int32, ok bool) {
	if int(seat) >= len(w.lv.spawns) {
		return 0, 0, false
	}
	x, y = w.lv.xy(w.lv.spawns[seat])
	return x, y, true
}

// Spawns returns how many spawn points (and so player seats) the map has.
func (w *World) Spawns() int { return len(w.lv.spawns) }

// Reachable reports whether a walker at (fromX, fromY) can reach (toX, toY).
func (w *World) Reachable(fromX, fromY, toX, toY int32) bool {
	lv := w.lv
	return lv.walkable(fromX, fromY) && lv.walkable(toX, toY) &&
		lv.region[lv.cell(fromX, fromY)] == lv.region[lv.cell(toX, toY)]
}

// Frame returns the number of Steps taken. Commands for frame F are applied
// while Frame() == F, then Step moves the world to F+1.
func (w *World) Frame() uint32 { return w.frame }

// NextID returns the id the next player unit will get.
func (w *World) NextID() uint32 { return w.nextID }

// Units returns the units sorted by id. The slice is the world's own: read
// it, do not change it, and do not keep it past the next call that changes
// the world.
func (w *World) Units() []Unit { return w.units }

// Attacks returns the attacks in flight sorted by id, under the same terms as Units.
func (w *World) Attacks() []Attack { return w.attacks }

// Unit returns the unit with the given id.
func (w *World) Unit(id uint32) (Unit, bool) {
	i := w.slot(id)
	if i < 0 {
		return Unit{}, false
	}
	return w.units[i], true
}

// slot returns the index of unit id in w.units, or -1.
func (w *World) slot(id uint32) int {
	units := w.units
	lo, hi := 0, len(units)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if units[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(units) && units[lo].ID == id {
		return lo
	}
	return -1
}

// insertionPoint returns where a unit with this id belongs in w.units, and
// whether one is there already.
func (w *World) insertionPoint(id uint32) (int, bool) {
	i := sort.Search(len(w.units), func(i int) bool { return w.units[i].ID >= id })
	return i, i < len(w.units) && w.units[i].ID == id
}

func (w *World) insert(u Unit) {
	i, found := w.insertionPoint(u.ID)
	if found {
		w.units[i] = u
	} else {
		w.units = slices.Insert(w.units, i, u)
	}
}

// AddPlayerUnits gives the player in seat a starting squad (StartingSquad)
// at the seat's spawn point and returns their ids, which are the next free
// ids in order. The units stand on the first cells, in order of walking
// distance from the spawn point (ties broken clockwise from north), that no
// unit occupies yet, so a second squad stands beside the first.
func (w *World) AddPlayerUnits(seat uint8) ([]uint32, error) {
	if int(seat) >= len(w.lv.spawns) || seat >= MaxPlayers {
		return nil, fmt.Errorf("world: seat %d on map %s: %w", seat, w.lv.name, ErrNoSpawn)
	}
	if w.nextID+uint32(len(startingSquad)) > FirstEnemyID {
		return nil, fmt.Errorf("world: player unit ids exhausted: %w", ErrBadID)
	}
	kinds := make([]Kind, len(startingSquad))
	for i, name := range startingSquad {
		k, ok := w.kindByName(name)
		if !ok {
			return nil, fmt.Errorf("world: starting squad: %q: %w", name, ErrUnknownKind)
		}
		kinds[i] = k
	}
	occupied := make([]int32, 0, len(w.units))
	for i := range w.units {
		occupied = append(occupied, w.lv.cell(w.units[i].X, w.units[i].Y))
	}
	slices.Sort(occupied)
	cells := w.freeCellsNear(w.lv.spawns[seat], occupied, len(kinds))
	ids := make([]uint32, 0, len(kinds))
	for i, k := range kinds {
		c := w.lv.spawns[seat] // if the spawn's area is full, they share cells
		if i < len(cells) {
			c = cells[i]
		}
		x, y := w.lv.xy(c)
		id := w.nextID
		w.nextID++
		w.insert(Unit{ID: id, Owner: seat, Kind: k.ID, X: x, Y: y, HP: k.HP})
		ids = append(ids, id)
	}
	return ids, nil
}

// freeCellsNear returns up to n cells reachable from start, nearest first,
// that are not in occupied (sorted).
func (w *World) freeCellsNear(start int32, occupied []int32, n int) []int32 {
	lv := w.lv
	seen := make([]bool, len(lv.moves))
	seen[start] = true
	queue := []int32{start}
	var free []int32
	for head := 0; head < len(queue) && len(free) < n; head++ {
		c := queue[head]
		if _, taken := slices.BinarySearch(occupied, c); !taken {
			free = append(free, c)
		}
		for d := range 8 {
			if lv.moves[c]&(1<<d) == 0 {
				continue
			}
			if next := c + lv.off[d]; !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return free
}

func (w *World) kindByName(name string) (Kind, bool) {
	for _, k := range w.kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// SpawnEnemy puts a new enemy of the named kind at (x, y), at full health.
// The server chooses id, in FirstEnemyID..MaxUnitID and not in use.
func (w *World) SpawnEnemy(id uint32, kind string, x, y int32) error {
	if id < FirstEnemyID || id > MaxUnitID {
		return fmt.Errorf("world: spawn enemy %d: %w", id, ErrBadID)
	}
	if _, found := w.insertionPoint(id); found {
		return fmt.Errorf("world: spawn enemy %d: %w", id, ErrIDInUse)
	}
	k, ok := w.kindByName(kind)
	if !ok {
		return fmt.Errorf("world: spawn enemy %d: %q: %w", id, kind, ErrUnknownKind)
	}
	if !w.lv.walkable(x, y) {
		return fmt.Errorf("world: spawn enemy %d at (%d,%d): %w", id, x, y, ErrBlocked)
	}
	w.insert(Unit{ID: id, Owner: EnemyOwner, Kind: k.ID, X: x, Y: y, HP: k.HP})
	return nil
}

// Kill removes enemy id: the server's word that it is dead. It removes the
// enemy whether or not this world has it at 0 hp yet (the server is the
// authority); attacks flying at it fizzle.
func (w *World) Kill(id uint32) error {
	i := w.slot(id)
	if i < 0 {
		return fmt.Errorf("world: kill %d: %w", id, ErrUnknownUnit)
	}
	if !w.units[i].IsEnemy() {
		return fmt.Errorf("world: kill %d: %w", id, ErrNotEnemy)
	}
	w.units = slices.Delete(w.units, i, i+1)
	return nil
}

// Reset empties the world for a new round on the same map: no units, no attacks in flight,
// unit and attack ids handed out from the start again, and the random generator seeded with
// seed as NewWorld seeds it. Only the frame counter goes on, so that everything that names a
// frame (commands, hash reports, re-syncs) keeps one time line across rounds. Two worlds
// reset at the same frame with the same seed are equal, whatever each held before.
func (w *World) Reset(seed uint64) {
	fresh := newWorld(w.lv, w.kinds, seed)
	w.rng, w.nextID, w.nextAttackID = fresh.rng, fresh.nextID, fresh.nextAttackID
	w.units, w.attacks = w.units[:0], w.attacks[:0]
}

// Clone returns a deep copy of the world. The copy shares only the map and
// the unit kinds, which never change, so it can be stepped on another
// goroutine.
func (w *World) Clone() *World {
	return &World{
		lv:           w.lv,
		kinds:        w.kinds,
		frame:        w.frame,
		rng:          w.rng,
		nextID:       w.nextID,
		nextAttackID: w.nextAttackID,
		units:        slices.Clone(w.units),
		attacks:      slices.Clone(w.attacks),
	}
}

// CopyFrom makes w a deep copy of src, like Clone, but reuses w's memory: a
// server that keeps the last few hundred frames of history can recycle its
// oldest world instead of allocating a new one every frame. w may be a zero
// World (which is good for nothing else).
func (w *World) CopyFrom(src *World) {
	if w.lv != src.lv {
		w.scratch = scratch{} // the path caches belong to the map
	}
	w.lv, w.kinds = src.lv, src.kinds
	w.frame, w.rng, w.nextID, w.nextAttackID = src.frame, src.rng, src.nextID, src.nextAttackID
	w.units = append(w.units[:0], src.units...)
	w.attacks = append(w.attacks[:0], src.attacks...)
}

// SetUnit inserts u, or replaces the unit with its id: an authoritative
// state from a re-sync. The unit must be consistent with the rules (see
// checkUnit); the world is unchanged when it is not.
func (w *World) SetUnit(u Unit) error {
	if err := w.checkUnit(&u); err != nil {
		return err
	}
	w.insert(u)
	return nil
}

// checkUnit rejects a unit that the rules could never produce, so that a
// re-sync cannot put a world in a state Step does not expect.
func (w *World) checkUnit(u *Unit) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("world: unit %d: "+format+": %w", append([]any{u.ID}, append(args, ErrBadUnit)...)...)
	}
	switch {
	case u.ID == 0 || u.ID > MaxUnitID:
		return bad("id out of range")
	case u.Owner >= MaxPlayers && u.Owner != EnemyOwner:
		return bad("owner %d", u.Owner)
	case u.IsEnemy() != (u.ID >= FirstEnemyID):
		return bad("id in the wrong range for owner %d", u.Owner)
	case int(u.Kind) >= len(w.kinds):
		return bad("kind %d", u.Kind)
	case !w.lv.walkable(u.X, u.Y):
		return bad("at (%d,%d), not open ground", u.X, u.Y)
	case u.Dead && (!u.IsEnemy() || u.HP != 0 || u.Order != OrderNone || u.TargetID != 0 || u.Cooldown != 0 || u.MoveProgress != 0):
		return bad("dead but not a still enemy at 0 hp")
	case !u.Dead && u.HP <= 0:
		return bad("hp %d", u.HP)
	case u.Order > OrderAttack:
		return bad("order %d", u.Order)
	case u.IsEnemy() && u.Order != OrderNone:
		return bad("enemies take no orders")
	case u.Order == OrderMove && !w.lv.walkable(u.TargetX, u.TargetY):
		return bad("moving to (%d,%d), not open ground", u.TargetX, u.TargetY)
	case u.Order != OrderMove && (u.TargetX != 0 || u.TargetY != 0):
		return bad("target cell without a move order")
	case u.Order == OrderMove && u.TargetID != 0:
		return bad("target unit with a move order")
	case u.Order == OrderAttack && u.TargetID == 0:
		return bad("attack order without a target")
	case u.TargetID > MaxUnitID:
		return bad("target %d", u.TargetID)
	case u.Cooldown < 0 || u.Cooldown > w.kinds[u.Kind].Cooldown:
		return bad("cooldown %d", u.Cooldown)
	case u.MoveProgress < 0 || u.MoveProgress >= CellSize:
		return bad("move progress %d", u.MoveProgress)
	}
	return nil
}

// RemoveUnit removes unit id, player's or enemy's, and reports whether it was there.
func (w *World) RemoveUnit(id uint32) bool {
	i := w.slot(id)
	if i < 0 {
		return false
	}
	w.units = slices.Delete(w.units, i, i+1)
	return true
}

// SetAttacks replaces the attacks in flight with a copy of as, sorted by id:
// the server's list in a stop-the-world re-sync. Ids must be distinct; the
// next attack id moves above them.
func (w *World) SetAttacks(as []Attack) error {
	sorted := slices.Clone(as)
	slices.SortFunc(sorted, func(a, b Attack) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	for i := range sorted {
		if err := w.checkAttack(&sorted[i]); err != nil {
			return err
		}
		if i > 0 && sorted[i].ID == sorted[i-1].ID {
			return fmt.Errorf("world: attack %d twice: %w", sorted[i].ID, ErrBadAttack)
		}
	}
	w.attacks = sorted
	if n := len(sorted); n > 0 && sorted[n-1].ID >= w.nextAttackID {
		w.nextAttackID = sorted[n-1].ID + 1
	}
	return nil
}

func (w *World) checkAttack(a *Attack) error {
	bad := func(what string) error {
		return fmt.Errorf("world: attack %d: %s: %w", a.ID, what, ErrBadAttack)
	}
	lim := int32(w.lv.w+w.lv.h) * CellSize
	switch {
	case a.ID == 0 || a.ID > MaxAttackID:
		return bad("id out of range")
	case a.Owner >= MaxPlayers && a.Owner != EnemyOwner:
		return bad("owner")
	case a.Target == 0 || a.Target > MaxUnitID || a.From > MaxUnitID:
		return bad("unit id out of range")
	case a.X < 0 || a.Y < 0 || a.X >= w.lv.w*CellSize || a.Y >= w.lv.h*CellSize:
		return bad("outside the map")
	case a.Damage < 0 || a.Damage > 1<<24:
		return bad("damage")
	case a.Speed <= 0 || a.Speed > lim:
		return bad("speed")
	}
	return nil
}
