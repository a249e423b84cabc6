package ui

import (
	"slices"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/world"
)

// crowdedClient is a fake client on the continent map (200×60) with 8 players' units and
// enemies on open ground up to units in all, and a link with messages held back.
func crowdedClient(b *testing.B, units int) *fakeClient {
	b.Helper()
	w, err := world.NewWorld("continent", 1)
	if err != nil {
		b.Fatal(err)
	}
	for seat := range uint8(world.MaxPlayers) {
		if _, err := w.AddPlayerUnits(seat); err != nil {
			b.Fatal(err)
		}
	}
	id := uint32(world.FirstEnemyID)
	for y := int32(0); y < w.Height() && len(w.Units()) < units; y++ {
		for x := int32(0); x < w.Width() && len(w.Units()) < units; x += 3 {
			if w.Terrain(x, y) != world.Ground {
				continue
			}
			if err := w.SpawnEnemy(id, "goblin", x, y); err == nil {
				id++
			}
		}
	}
	if len(w.Units()) < units {
		b.Fatalf("only %d units fit", len(w.Units()))
	}
	f := newFakeClient(b)
	f.snap.Map, f.snap.Units = "continent", slices.Clone(w.Units())
	p, _ := f.Peer()
	p.Debug = heldBackDebug(fakeNow)
	f.setPeer(p)
	return f
}

// BenchmarkClientScreenFrame is one frame of the client screen as the ticker runs it, on a
// 200×60 screen with the debug panel open and 2000 units on the map: read the snapshot into the
// widgets (Refresh), clear the screen, draw every widget and show the result, as tview does;
// then the same without Refresh; then only the clear and show, which is the screen's own cost
// (tcell visits every cell on Show) and the floor under any frame.
func BenchmarkClientScreenFrame(b *testing.B) {
	for _, bc := range []struct {
		name          string
		refresh, draw bool
	}{{"refresh+draw", true, true}, {"draw", false, true}, {"clear+show", false, false}} {
		b.Run(bc.name, func(b *testing.B) {
			f := crowdedClient(b, 2000)
			screen := tcell.NewSimulationScreen("UTF-8")
			if err := screen.Init(); err != nil {
				b.Fatal(err)
			}
			defer screen.Fini()
			screen.SetSize(200, 60)
			s := NewClientScreen(f, b.TempDir(), func(p tview.Primitive) {})
			s.clock = func() time.Time { return fakeNow }
			s.Resize(200, 60)
			s.Refresh(fakeNow)
			s.toggleDebug()
			root := s.Root()
			root.SetRect(0, 0, 200, 60)
			s.Refresh(fakeNow)
			b.ReportAllocs()
			for b.Loop() {
				if bc.refresh {
					s.Refresh(fakeNow)
				}
				screen.Clear()
				if bc.draw {
					root.Draw(screen)
				}
				screen.Show()
			}
			b.ReportMetric(float64(len(f.Snapshot().Units)), "units")
		})
	}
}
