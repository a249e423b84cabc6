package world

import "testing"

func TestFastForwardWalksOnlyListedUnits(t *testing.T) {
	w, err := NewWorld("skirmish", 1)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := w.AddPlayerUnits(0)
	if err != nil {
		t.Fatal(err)
	}
	x, y, _ := w.Spawn(1)
	if err := w.Apply(Command{Player: 0, Kind: CommandMove, Units: ids, X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	onTime := w.Clone()
	for range 20 {
		onTime.Step()
	}
	late := w.Clone()
	late.FastForward(ids[:1], 20)
	u0, _ := late.Unit(ids[0])
	want, _ := onTime.Unit(ids[0])
	if u0.X != want.X || u0.Y != want.Y {
		t.Errorf("fast-forwarded unit at (%d,%d), on-time unit at (%d,%d)", u0.X, u0.Y, want.X, want.Y)
	}
	u1, _ := late.Unit(ids[1])
	orig, _ := w.Unit(ids[1])
	if u1 != orig {
		t.Errorf("an unlisted unit moved: %+v → %+v", orig, u1)
	}
	if late.Frame() != w.Frame() {
		t.Errorf("frame changed to %d", late.Frame())
	}
}
