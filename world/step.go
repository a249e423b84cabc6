package world

import "math/bits"

// scratch holds what Step needs besides the state: positions at the start of
// the step, damage to hand out at its end, the spatial grids, and the path
// caches. None of it is hashed, encoded or cloned: each piece is rebuilt every
// step or depends on the map alone.
type scratch struct {
	sx, sy  []int32 // unit positions at the start of the step, by slot
	dmg     []int64 // damage each unit takes at the end of the step, by slot (64 bits: no sum can wrap)
	players spatial // living player units
	enemies spatial // enemies that are not Dead

	sources   []uint64
	hunt      huntField
	huntReady bool // hunt was prepared for this step

	frameKey uint64 // this step's draw from the world's generator

	fields map[int32]*field // searches by goal cell; only looked up, never ranged over
	cached []*field         // the same searches in the order they were made, for eviction
	pool   []*field         // evicted searches, for reuse
}

// Step advances the world by one frame. The rules, in order:
//
//  1. Snapshot. Every decision in this step is made from the positions at its
//     start, so whether unit 3 acts before unit 7 changes nothing they see.
//  2. Attacks in flight move towards their target's cell centre; one that
//     arrives deals its damage. One whose target is gone or Dead fizzles.
//  3. Units act in id order: the cooldown counts down, then the unit attacks,
//     walks or waits (see act). Blows and hits are added up, not applied.
//  4. Damage is applied. A player unit at 0 hp is removed; an enemy at 0 hp
//     becomes Dead and stays, doing nothing, until Kill.
//  5. The frame counter goes up by one.
//
// Randomness: the world's generator gives exactly one number per step, the
// frame key, whatever the units do. A damage roll mixes the frame key with the
// attacker's id (a unit attacks at most once a step). So a unit's luck
// depends only on the frame and on itself: if a late command changes what one
// unit does, the other units' rolls stay the same, the damage stays local, and
// real-time re-sync of the few units involved can repair it. Had every attack
// drawn the next number from one shared stream, a single attack more or less
// would shift every later roll in the world, and one late command would
// desynchronise everything within seconds.
func (w *World) Step() {
	w.beginStep()
	w.flyAttacks()
	for i := range w.units {
		u := &w.units[i]
		if u.Dead {
			continue
		}
		if u.Cooldown > 0 {
			u.Cooldown--
		}
		if u.IsEnemy() {
			w.actEnemy(i)
		} else {
			w.actPlayer(i)
		}
	}
	w.applyDamage()
	w.evictFields()
	w.frame++
}

func (w *World) beginStep() {
	s := &w.scratch
	n := len(w.units)
	s.sx, s.sy, s.dmg = resize(s.sx, n), resize(s.sy, n), resize(s.dmg, n)
	for i := range w.units {
		s.sx[i], s.sy[i] = w.units[i].X, w.units[i].Y
	}
	clear(s.dmg)
	s.frameKey = w.rng.Uint64()
	s.players.build(w.lv, w.units, false)
	s.enemies.build(w.lv, w.units, true)
	s.huntReady = false
}

// flyAttacks moves every attack in flight by its speed towards the centre of
// its target's cell. It homes: it follows the target, and since projectiles
// are faster than any walker it always arrives unless the target dies first.
func (w *World) flyAttacks() {
	s := &w.scratch
	keep := w.attacks[:0]
	for _, a := range w.attacks {
		t := w.slot(a.Target)
		if t < 0 || w.units[t].Dead {
			continue // fizzles: nothing left to hit
		}
		dx := int64(s.sx[t]*CellSize + CellSize/2 - a.X)
		dy := int64(s.sy[t]*CellSize + CellSize/2 - a.Y)
		d := isqrt(uint64(dx*dx + dy*dy))
		if d <= uint64(a.Speed) {
			s.dmg[t] += int64(a.Damage)
			continue
		}
		a.X += int32(dx * int64(a.Speed) / int64(d))
		a.Y += int32(dy * int64(a.Speed) / int64(d))
		keep = append(keep, a)
	}
	clear(w.attacks[len(keep):])
	w.attacks = keep
}

// actEnemy: an enemy attacks the nearest player unit within its range if it
// has one (waiting out its cooldown), and otherwise walks towards the player
// unit nearest by walking distance (lowest id among equals). With no player
// unit it can reach, it stands.
func (w *World) actEnemy(i int) {
	s := &w.scratch
	u := &w.units[i]
	k := &w.kinds[u.Kind]
	x, y := s.sx[i], s.sy[i]
	if t := s.players.nearest(w, x, y, k.Range); t >= 0 {
		u.TargetID = w.units[t].ID
		u.MoveProgress = 0
		if u.Cooldown == 0 {
			w.strike(i, t, k)
		}
		return
	}
	if !s.huntReady {
		w.prepareHunt()
	}
	lv := w.lv
	c := lv.cell(x, y)
	if s.hunt.reach(lv, c) == 0 {
		u.TargetID = 0
		u.MoveProgress = 0
		return
	}
	target := s.hunt.label[c]
	u.TargetID = target
	if !advance(u, k) {
		return
	}
	t := w.slot(target)
	next := downhill(lv, s.hunt.dist, s.hunt.label, target, c, s.sx[t], s.sy[t])
	u.X, u.Y = lv.xy(next)
}

func (w *World) prepareHunt() {
	s := &w.scratch
	s.sources = s.sources[:0]
	for i := range w.units {
		if u := &w.units[i]; !u.IsEnemy() {
			s.sources = append(s.sources, uint64(w.lv.cell(s.sx[i], s.sy[i]))<<32|uint64(u.ID))
		}
	}
	s.hunt.prepare(w.lv, s.sources)
	s.huntReady = true
}

// actPlayer: a player unit follows its order. A move walks to the cell and
// ignores enemies on the way (that is what a retreat needs); it ends on
// arrival, or at once if the cell cannot be reached. An attack chases its
// target until it is in range, then strikes whenever the cooldown allows; it
// ends when the target is gone or Dead. An idle unit goes for the nearest
// enemy within its sight (it forgets it once it is out of sight) and
// otherwise stands.
func (w *World) actPlayer(i int) {
	s := &w.scratch
	u := &w.units[i]
	k := &w.kinds[u.Kind]
	switch u.Order {
	case OrderMove:
		w.walkOrder(i, u, k)
		return
	case OrderAttack:
		if t := w.slot(u.TargetID); t >= 0 && w.units[t].IsEnemy() && !w.units[t].Dead {
			w.engage(i, t, k)
			return
		}
		u.Order, u.TargetID = OrderNone, 0
	}
	t := s.enemies.nearest(w, s.sx[i], s.sy[i], k.Sight)
	if t < 0 {
		u.TargetID = 0
		u.MoveProgress = 0
		return
	}
	u.TargetID = w.units[t].ID
	w.engage(i, t, k)
}

func (w *World) walkOrder(i int, u *Unit, k *Kind) {
	s, lv := &w.scratch, w.lv
	c, goal := lv.cell(s.sx[i], s.sy[i]), lv.cell(u.TargetX, u.TargetY)
	if c == goal || lv.region[c] != lv.region[goal] {
		u.Order, u.TargetX, u.TargetY, u.MoveProgress = OrderNone, 0, 0, 0
		return
	}
	if !advance(u, k) {
		return
	}
	next := w.stepToward(c, goal)
	u.X, u.Y = lv.xy(next)
	if next == goal {
		u.Order, u.TargetX, u.TargetY, u.MoveProgress = OrderNone, 0, 0, 0
	}
}

// engage makes unit i go for unit t: strike if t is in range, else walk
// towards t's cell.
func (w *World) engage(i, t int, k *Kind) {
	s, lv := &w.scratch, w.lv
	u := &w.units[i]
	x, y, tx, ty := s.sx[i], s.sy[i], s.sx[t], s.sy[t]
	if max(abs32(x-tx), abs32(y-ty)) <= k.Range {
		u.MoveProgress = 0
		if u.Cooldown == 0 {
			w.strike(i, t, k)
		}
		return
	}
	c, goal := lv.cell(x, y), lv.cell(tx, ty)
	if lv.region[c] != lv.region[goal] {
		u.MoveProgress = 0 // out of reach on foot: wait, in case it comes into range
		return
	}
	if advance(u, k) {
		u.X, u.Y = lv.xy(w.stepToward(c, goal))
	}
}

// advance adds a frame's walking to u and reports whether it has walked a
// whole cell, which it then takes off.
func advance(u *Unit, k *Kind) bool {
	u.MoveProgress += k.Speed
	if u.MoveProgress < CellSize {
		return false
	}
	u.MoveProgress -= CellSize
	return true
}

// strike makes unit i attack unit t: it rolls the damage, restarts the
// cooldown, and either lands the blow (to be applied at the end of the step)
// or looses a projectile from its cell's centre.
func (w *World) strike(i, t int, k *Kind) {
	s := &w.scratch
	u := &w.units[i]
	damage := k.Damage + w.roll(u.ID, k.Damage/4+1)
	u.Cooldown = k.Cooldown
	if k.ProjectileSpeed == 0 {
		s.dmg[t] += int64(damage)
		return
	}
	w.attacks = append(w.attacks, Attack{
		ID:     w.nextAttackID,
		Owner:  u.Owner,
		From:   u.ID,
		Target: w.units[t].ID,
		X:      s.sx[i]*CellSize + CellSize/2,
		Y:      s.sy[i]*CellSize + CellSize/2,
		Damage: damage,
		Speed:  k.ProjectileSpeed,
	})
	w.nextAttackID++
}

// roll returns a number in [0, n) for unit id's attack in this step: the
// frame key and the id mixed by a hash finalizer, whose top 32 bits are scaled
// by n (a multiply and a shift; no division, no loop).
func (w *World) roll(id uint32, n int32) int32 {
	r := fmix64(w.scratch.frameKey ^ uint64(id)*0x9e3779b97f4a7c15)
	return int32((r >> 32) * uint64(n) >> 32)
}

// applyDamage hands out the step's damage and removes dead player units.
func (w *World) applyDamage() {
	s := &w.scratch
	keep := w.units[:0]
	for i, u := range w.units {
		if d := s.dmg[i]; d > 0 && !u.Dead {
			if d >= int64(u.HP) {
				u.HP = 0
			} else {
				u.HP -= int32(d)
			}
			if u.HP == 0 {
				if !u.IsEnemy() {
					continue // removed
				}
				u = Unit{ID: u.ID, Owner: u.Owner, Kind: u.Kind, X: u.X, Y: u.Y, Dead: true}
			}
		}
		keep = append(keep, u)
	}
	w.units = keep
}

// isqrt returns the integer square root of n, rounded down, by Newton's
// method from above: exact, and the same on every machine.
func isqrt(n uint64) uint64 {
	if n < 2 {
		return n
	}
	x := uint64(1) << ((bits.Len64(n) + 1) / 2) // at least sqrt(n)
	for {
		y := (x + n/x) / 2
		if y >= x {
			return x
		}
		x = y
	}
}
