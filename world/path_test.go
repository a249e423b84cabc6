package world

import (
	"slices"
	"testing"

	"github.com/ackattack/ackattack/assets"
)

func TestMovePaths(t *testing.T) {
	for _, c := range []struct {
		name   string
		rows   []string
		from   cell
		to     cell
		want   []cell // the cells walked, first to last
		reason string
	}{
		{
			name: "straight line",
			rows: []string{
				"1.....",
				"......",
				"......",
			},
			from: cell{0, 0}, to: cell{4, 0},
			want: []cell{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}},
		},
		{
			name: "kept near the straight line",
			rows: []string{
				"1......",
				".......",
				".......",
			},
			from: cell{0, 0}, to: cell{6, 2},
			// Every shortest path takes 6 steps with 2 of them diagonal; the
			// step pointing most directly at the goal spreads them out.
			want: []cell{{0, 0}, {1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 2}, {6, 2}},
		},
		{
			name: "around a wall",
			rows: []string{
				"1.#...",
				"..#...",
				"..#...",
				"......",
			},
			from: cell{0, 0}, to: cell{4, 0},
			// Not (1,2)-(2,3): a diagonal step may not clip the wall's corner.
			want: []cell{{0, 0}, {1, 1}, {1, 2}, {1, 3}, {2, 3}, {3, 3}, {3, 2}, {4, 1}, {4, 0}},
		},
		{
			name: "through the gap",
			rows: []string{
				"1.#...",
				"......",
				"..#...",
				"..#...",
			},
			from: cell{0, 3}, to: cell{5, 3},
			want: []cell{{0, 3}, {1, 2}, {1, 1}, {2, 1}, {3, 1}, {4, 2}, {5, 3}},
		},
		{
			name: "no squeezing between corners",
			rows: []string{
				"1#..",
				"#...",
				"....",
				"....",
			},
			from: cell{2, 2}, to: cell{0, 0},
			want:   []cell{{2, 2}},
			reason: "(0,0) is sealed off: its only open neighbour is diagonal between two walls",
		},
		{
			name: "diagonal past one corner is also refused",
			rows: []string{
				"1...",
				".#..",
				"....",
			},
			from: cell{0, 0}, to: cell{2, 2},
			// Around the pillar either way is 4 steps; east comes before
			// south clockwise.
			want: []cell{{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}},
		},
		{
			name: "across water is unreachable",
			rows: []string{
				"1.~..",
				"..~..",
				"..~..",
			},
			from: cell{0, 0}, to: cell{4, 2},
			want: []cell{{0, 0}},
		},
		{
			name: "already there",
			rows: []string{
				"1..",
				"...",
				"...",
			},
			from: cell{1, 1}, to: cell{1, 1},
			want: []cell{{1, 1}},
		},
		{
			name: "equal paths: the straighter one, then clockwise from north",
			rows: []string{
				"1....",
				".###.",
				".....",
			},
			from: cell{0, 1}, to: cell{4, 1},
			// Over the top or under the bottom are equally long and equally
			// straight; north comes first clockwise.
			want: []cell{{0, 1}, {0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {4, 1}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := tinyWorld(t, c.rows...)
			player(t, w, 1, 0, "soldier", c.from.X, c.from.Y)
			mustApply(t, w, Command{Player: 0, Kind: CommandMove, Units: []uint32{1}, X: c.to.X, Y: c.to.Y})
			got := walk(t, w, 1, 200)
			if !slices.Equal(got, c.want) {
				t.Errorf("walked %v, want %v %s", got, c.want, c.reason)
			}
			if u := mustUnit(t, w, 1); u.Order != OrderNone || u.TargetX != 0 || u.TargetY != 0 || u.MoveProgress != 0 {
				t.Errorf("after the walk: %+v, want the order finished", u)
			}
		})
	}
}

// The speed of walking: a soldier (speed 40) takes a cell every 2.5 frames.
func TestMoveSpeed(t *testing.T) {
	w := tinyWorld(t, "1.........", "..........", "..........")
	player(t, w, 1, 0, "soldier", 0, 0)
	mustApply(t, w, Command{Player: 0, Kind: CommandMove, Units: []uint32{1}, X: 9, Y: 0})
	var xs []int32
	for range 10 {
		w.Step()
		xs = append(xs, mustUnit(t, w, 1).X)
	}
	if want := []int32{0, 0, 1, 1, 2, 2, 2, 3, 3, 4}; !slices.Equal(xs, want) {
		t.Errorf("x after each frame %v, want %v", xs, want)
	}
}

// Every map: every spawn point can walk to every other, and the searches
// agree with the connected areas.
func TestMapsSpawnsConnected(t *testing.T) {
	cat := loadCatalog()
	if cat.mapsErr != nil {
		t.Fatal(cat.mapsErr)
	}
	names := Maps()
	if !slices.IsSorted(names) || !slices.Contains(names, "skirmish") || !slices.Contains(names, "continent") {
		t.Fatalf("Maps() = %v", names)
	}
	for _, name := range names {
		w := mustWorld(t, name, 1)
		if w.Spawns() != MaxPlayers {
			t.Errorf("%s: %d spawn points", name, w.Spawns())
		}
		for a := range w.Spawns() {
			for b := range w.Spawns() {
				ax, ay, _ := w.Spawn(uint8(a))
				bx, by, _ := w.Spawn(uint8(b))
				if !w.Reachable(ax, ay, bx, by) {
					t.Errorf("%s: spawn %d cannot reach spawn %d", name, a+1, b+1)
				}
			}
			// And the search really gets there.
			f := w.fieldTo(w.lv.spawns[0])
			if f.reach(w.lv, w.lv.spawns[a]) == 0 {
				t.Errorf("%s: search from spawn 1 never reaches spawn %d", name, a+1)
			}
		}
		if _, ok := MapDescription(name); !ok {
			t.Errorf("%s: no description", name)
		}
	}
	w := mustWorld(t, "continent", 1)
	if w.Width() != 200 || w.Height() != 60 {
		t.Errorf("continent is %dx%d", w.Width(), w.Height())
	}
	// The island in the lake is ground nobody can walk to.
	sx, sy, _ := w.Spawn(0)
	if w.Terrain(100, 28) != Ground || w.Reachable(sx, sy, 100, 28) {
		t.Errorf("the island at (100,28) should be unreachable ground")
	}
	if _, err := NewWorld("atlantis", 1); err == nil {
		t.Error("NewWorld on an unknown map succeeded")
	}
}

func TestBuildLevelRejectsSeparatedSpawns(t *testing.T) {
	m, err := assets.ParseMap("maps/split.txt", []byte("1.#..\n..#..\n..#.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = buildLevel(m)
	if want := "maps/split.txt: spawn point 2 at (4,2) cannot walk to spawn point 1 at (0,0)"; err == nil || err.Error() != want {
		t.Errorf("buildLevel: %v, want %q", err, want)
	}
}

// Walks on the large map are as short as a plain breadth-first search, done
// here independently of the world's own search, says they can be.
func TestPathsAreShortest(t *testing.T) {
	t.Parallel()
	w := mustWorld(t, "continent", 1)
	sc := newScenario(3, 1, 0)
	n := 60
	if testing.Short() || raceEnabled {
		n = 10
	}
	for i := range n {
		fx, fy := sc.randomCell(w)
		tx, ty := sc.randomCell(w)
		want := bfsDistance(w, fx, fy, tx, ty)
		c := w.Clone()
		id := uint32(i + 1)
		player(t, c, id, 0, "soldier", fx, fy)
		if fx == tx && fy == ty {
			continue
		}
		mustApply(t, c, Command{Player: 0, Kind: CommandMove, Units: []uint32{id}, X: tx, Y: ty})
		got := walk(t, c, id, 2000)
		if last := got[len(got)-1]; last != (cell{tx, ty}) || len(got)-1 != want {
			t.Errorf("(%d,%d) to (%d,%d): %d steps ending at %v, want %d", fx, fy, tx, ty, len(got)-1, last, want)
		}
	}
}

func bfsDistance(w *World, fx, fy, tx, ty int32) int {
	open := func(x, y int32) bool { return w.Terrain(x, y) == Ground }
	dist := map[cell]int{{fx, fy}: 0}
	queue := []cell{{fx, fy}}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == (cell{tx, ty}) {
			return dist[c]
		}
		for dx := int32(-1); dx <= 1; dx++ {
			for dy := int32(-1); dy <= 1; dy++ {
				n := cell{c.X + dx, c.Y + dy}
				if n == c || !open(n.X, n.Y) || dx != 0 && dy != 0 && !(open(c.X+dx, c.Y) && open(c.X, c.Y+dy)) {
					continue
				}
				if _, seen := dist[n]; !seen {
					dist[n] = dist[c] + 1
					queue = append(queue, n)
				}
			}
		}
	}
	return -1
}
