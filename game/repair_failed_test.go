package game

import "testing"

// TestRepairFailedUnderTheFastForward: a unit found different again shortly after its
// real-time repair counts as a repair that did not hold (and calls for a stop-the-world),
// unless, under the fast-forward, a command named it within the window before the repair or
// after: a host that got that command late fast-forwarded it, which is a new drift, repaired
// again in real time. Under rollback no command excuses it.
func TestRepairFailedUnderTheFastForward(t *testing.T) {
	const unit, fixed = 7, 100
	cmd := &Command{Seat: 1, ID: 1, Units: []uint32{unit}}
	for _, tc := range []struct {
		name    string
		mode    LateMode
		ordered []uint32 // the frames a command named the unit at
		checked uint32
		want    bool
	}{
		{"no command since", LateFastForward, nil, fixed + 4, true},
		{"a command after the repair", LateFastForward, []uint32{fixed + 2}, fixed + 4, false},
		{"a command just before the repair", LateFastForward, []uint32{fixed - 5}, fixed + 4, false},
		{"a command older than the window", LateFastForward, []uint32{fixed - resimWindow - 1}, fixed + 4, true},
		{"checked before the repair took effect", LateFastForward, nil, fixed - 1, false},
		{"checked long after the repair", LateFastForward, nil, fixed + realtimeRecheckSpan, false},
		{"rollback: a command after the repair excuses nothing", LateRollback, []uint32{fixed + 2}, fixed + 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newServerDrift(tc.mode)
			d.fixAt[unit] = fixed
			for _, f := range tc.ordered {
				d.ordered(cmd, f)
			}
			if got := d.repairFailed(unit, tc.checked); got != tc.want {
				t.Errorf("repairFailed(checked %d) = %v, want %v", tc.checked, got, tc.want)
			}
		})
	}
}

// TestOrderedForgetsOldCommands: the record of ordered units is a bounded table: an entry
// older than the window is dropped at the next sweep, historyFrames frames after the last,
// whatever frame the next command is for.
func TestOrderedForgetsOldCommands(t *testing.T) {
	d := newServerDrift(LateFastForward)
	for id := range uint32(100) {
		d.ordered(&Command{Units: []uint32{id}}, 1)
	}
	d.ordered(&Command{Units: []uint32{500}}, historyFrames+7) // off any multiple of it
	if len(d.orderedAt) != 1 {
		t.Errorf("%d units remembered after the sweep, want 1 (the latest command's)", len(d.orderedAt))
	}
}
