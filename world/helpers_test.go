package world

import (
	"strings"
	"testing"

	"github.com/ackattack/ackattack/assets"
)

// tinyWorld builds a world on a map drawn in the test. Rows are joined with
// newlines; the map needs a spawn point 1.
func tinyWorld(t testing.TB, rows ...string) *World {
	t.Helper()
	m, err := assets.ParseMap("maps/test.txt", []byte(strings.Join(rows, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	lv, err := buildLevel(m)
	if err != nil {
		t.Fatal(err)
	}
	return newWorld(lv, loadCatalog().kinds, 1)
}

func kindID(t testing.TB, name string) uint8 {
	t.Helper()
	k, ok := KindByName(name)
	if !ok {
		t.Fatalf("no kind %q", name)
	}
	return k.ID
}

func kind(t testing.TB, name string) Kind {
	t.Helper()
	k, _ := KindOf(kindID(t, name))
	return k
}

// player puts a player unit of the named kind at (x, y) at full health.
func player(t testing.TB, w *World, id uint32, seat uint8, kindName string, x, y int32) {
	t.Helper()
	k := kind(t, kindName)
	if err := w.SetUnit(Unit{ID: id, Owner: seat, Kind: k.ID, X: x, Y: y, HP: k.HP}); err != nil {
		t.Fatal(err)
	}
}

func enemy(t testing.TB, w *World, id uint32, kindName string, x, y int32) {
	t.Helper()
	if err := w.SpawnEnemy(id, kindName, x, y); err != nil {
		t.Fatal(err)
	}
}

func mustUnit(t testing.TB, w *World, id uint32) Unit {
	t.Helper()
	u, ok := w.Unit(id)
	if !ok {
		t.Fatalf("frame %d: unit %d missing", w.Frame(), id)
	}
	return u
}

func mustApply(t testing.TB, w *World, cmd Command) {
	t.Helper()
	if err := w.Apply(cmd); err != nil {
		t.Fatal(err)
	}
}

type cell struct{ X, Y int32 }

// walk steps w until unit id stops moving (or n frames pass) and returns the
// cells it stood on, starting with its first.
func walk(t testing.TB, w *World, id uint32, n int) []cell {
	t.Helper()
	u := mustUnit(t, w, id)
	path := []cell{{u.X, u.Y}}
	for range n {
		w.Step()
		u = mustUnit(t, w, id)
		if last := path[len(path)-1]; last != (cell{u.X, u.Y}) {
			if max(abs32(last.X-u.X), abs32(last.Y-u.Y)) != 1 {
				t.Fatalf("unit %d jumped from %v to (%d,%d)", id, last, u.X, u.Y)
			}
			if w.Terrain(u.X, u.Y) != Ground {
				t.Fatalf("unit %d walked onto %q at (%d,%d)", id, w.Terrain(u.X, u.Y), u.X, u.Y)
			}
			path = append(path, cell{u.X, u.Y})
		}
		if u.Order == OrderNone {
			break
		}
	}
	return path
}
