package world

// FastForward advances only the listed units by frames frames of walking and cooling down, as
// if a command that reached this host late had been applied on time: a late command is applied
// at once and its units fast-forwarded by the frames they missed (the classic lockstep
// fast-forward). Only movement and cooldowns are replayed; a unit that would have fought during
// those frames does not. That is the point of the technique's imperfection: the result may differ from the hosts that applied
// the command on time, and the unit hashes then show it.
//
// Unknown ids, enemies and dead units are skipped. The world's frame does not change.
func (w *World) FastForward(ids []uint32, frames int) {
	if frames <= 0 {
		return
	}
	s := &w.scratch
	for _, id := range ids {
		i := w.slot(id)
		if i < 0 {
			continue
		}
		u := &w.units[i]
		if u.IsEnemy() || u.Dead {
			continue
		}
		k := &w.kinds[u.Kind]
		for range frames {
			if u.Cooldown > 0 {
				u.Cooldown--
			}
			if u.Order != OrderMove {
				continue
			}
			// walkOrder reads the unit's position from the step's snapshot.
			s.sx, s.sy = resize(s.sx, len(w.units)), resize(s.sy, len(w.units))
			s.sx[i], s.sy[i] = u.X, u.Y
			w.walkOrder(i, u, k)
		}
	}
}
