package game

import (
	"slices"
	"testing"

	"github.com/ackattack/ackattack/world"
)

// TestLocate: the report's locator names the one unit that differs (its hash changed, or only
// one side has it), and names none when several differ or when the two hashes agree on every
// bit the locator covers (the drill-down's case).
func TestLocate(t *testing.T) {
	mine := []world.UnitHash{{ID: 3, Hash: 0x1111_2222_3333_4441}, {ID: 7, Hash: 0x9999_aaaa_bbbb_ccc6}, {ID: 12, Hash: 0x5555_6666_7777_8883}, {ID: 4000, Hash: 0x0f0f_0f0f_0f0f_0f0c}}
	with := func(f func(hs []world.UnitHash) []world.UnitHash) []world.UnitHash { return f(slices.Clone(mine)) }
	for _, tt := range []struct {
		name      string
		theirs    []world.UnitHash
		wantID    uint32
		wantHash  uint64
		serverHas bool
		located   bool
	}{
		{"the same units", mine, 0, 0, false, false},
		{"one unit's hash differs", with(func(hs []world.UnitHash) []world.UnitHash { hs[1].Hash ^= 0x25; return hs }),
			7, 0x9999_aaaa_bbbb_ccc6 ^ 0x25, true, true},
		{"the highest id differs", with(func(hs []world.UnitHash) []world.UnitHash { hs[3].Hash ^= 0x8000_0000_0000_0001; return hs }),
			4000, 0x0f0f_0f0f_0f0f_0f0c ^ 0x8000_0000_0000_0001, true, true},
		{"the reporter lacks a unit", with(func(hs []world.UnitHash) []world.UnitHash { return slices.Delete(hs, 2, 3) }),
			12, 0, true, true},
		{"the reporter has a unit the server does not", with(func(hs []world.UnitHash) []world.UnitHash {
			return append(hs, world.UnitHash{ID: 5000, Hash: 0x77})
		}), 5000, 0x77, false, true},
		{"two units differ", with(func(hs []world.UnitHash) []world.UnitHash { hs[0].Hash ^= 1; hs[2].Hash ^= 2; return hs }), 0, 0, false, false},
		{"the hashes differ above the locator's bits only", with(func(hs []world.UnitHash) []world.UnitHash { hs[1].Hash ^= 1 << locatorBits; return hs }),
			0, 0, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id, hash, has, ok := locate(mine, rangeHash(tt.theirs, 1, world.MaxUnitID), locator(tt.theirs))
			if id != tt.wantID || hash != tt.wantHash || has != tt.serverHas || ok != tt.located {
				t.Errorf("locate = unit %d, hash %#x, server has it %v, located %v; want %d, %#x, %v, %v", id, hash, has, ok, tt.wantID, tt.wantHash, tt.serverHas, tt.located)
			}
		})
	}
}

// TestReportDue: a hash report of a recent frame is checked as soon as the server ran that
// frame with the same inputs, waits while the inputs differ and the frame may still change,
// and is dropped once the frame settled with other inputs; a report of a frame the server has
// not run yet waits.
func TestReportDue(t *testing.T) {
	s := offlineServer(t)
	f := s.w.Frame() - 1 // the latest frame run
	inputs, _ := s.drift.hist.inputsAt(f, 0)
	s.drift.rw.noteLate(s.w.Frame(), 4) // an event came 4 frames late: frames settle 5 frames after they ran
	settle := s.drift.rw.settle(s.w.Frame())
	for _, tt := range []struct {
		name string
		r    HashReport
		want reportVerdict
	}{
		{"the latest frame, the same inputs", HashReport{Frame: f, Inputs: inputs}, reportCheck},
		{"the latest frame, other inputs", HashReport{Frame: f, Inputs: inputs ^ 1}, reportWait},
		{"a settled frame, other inputs", HashReport{Frame: s.w.Frame() - settle - 1, Inputs: inputs ^ 1}, reportOtherInputs},
		{"the frame the server runs next", HashReport{Frame: s.w.Frame(), Inputs: inputs}, reportWait},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.reportDue(new(downlink), &tt.r); got != tt.want {
				t.Errorf("reportDue(frame %d, inputs %#x) = %d, want %d (server at frame %d, inputs %#x there)", tt.r.Frame, tt.r.Inputs, got, tt.want, s.w.Frame(), inputs)
			}
		})
	}
}

// digestOf is the inputs' digest of frame f in l, from floor on.
func digestOf(l *inputLog, f, floor uint32) uint32 {
	d := l.digests(f, floor)
	return d.from(f, 0)
}

// TestInputsDigest: the digest of a frame covers the events run for the frames of the
// inputs' window up to it, from the schedule's floor on: the same events, whatever order they
// ran in, give the same digest, one event more or less another, and an event for a frame
// before the window or the floor counts for nothing.
func TestInputsDigest(t *testing.T) {
	cmd := func(frame, id uint32) *event { return &event{frame: frame, kind: evCommand, seat: 1, id: id} }
	run := func(evs ...*event) (l inputLog) {
		for _, e := range evs {
			l.begin(e.frame)
		}
		for _, e := range evs {
			l.ran(e, e.frame)
		}
		return l
	}
	a := run(cmd(100, 1), cmd(101, 2), cmd(101, 3))
	b := run(cmd(101, 3), cmd(100, 1), cmd(101, 2))
	if digestOf(&a, 110, 0) != digestOf(&b, 110, 0) {
		t.Error("the same events in another order give another digest")
	}
	c := run(cmd(100, 1), cmd(101, 2))
	if digestOf(&a, 110, 0) == digestOf(&c, 110, 0) {
		t.Error("an event less gives the same digest")
	}
	if digestOf(&a, 100, 0) != digestOf(&c, 100, 0) {
		t.Error("an event for a later frame changes the digest of an earlier one")
	}
	if digestOf(&a, 101+inputWindow, 0) != digestOf(&c, 101+inputWindow, 0) {
		t.Error("an event before the window still counts")
	}
	var none inputLog
	if digestOf(&a, 110, 102) != digestOf(&none, 110, 102) {
		t.Error("an event before the floor still counts")
	}
	// The digests kept from every floor: read from a floor, the digest is the one of a host
	// whose floor that was (a client that took a world copy there).
	all := a.digests(110, 0)
	for _, floor := range []uint32{0, 100, 101, 102, 110, 111} {
		if got, want := all.from(110, floor), digestOf(&a, 110, floor); got != want {
			t.Errorf("the digest of frame 110 from floor %d is %#x, want %#x", floor, got, want)
		}
	}
	if all.from(110, 111) != 0 {
		t.Error("a floor past the frame leaves an event in its digest")
	}
	// A late event, run at a later frame (fast-forwarded), counts from then on as if it had
	// run at its own frame.
	var late inputLog
	late.begin(100)
	late.ran(cmd(100, 1), 100)
	late.begin(101)
	late.ran(cmd(101, 2), 101)
	late.begin(105)
	late.ran(cmd(101, 3), 105)
	if digestOf(&late, 110, 0) != digestOf(&a, 110, 0) {
		t.Error("a late event fast-forwarded counts otherwise than one run at its frame")
	}
}
