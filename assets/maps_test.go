package assets

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestEmbeddedMaps(t *testing.T) {
	maps, err := LoadMaps()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ w, h int }{"skirmish": {60, 20}, "continent": {200, 60}}
	for _, m := range maps {
		size, ok := want[m.Name]
		if !ok {
			continue
		}
		delete(want, m.Name)
		if m.Width != size.w || m.Height != size.h {
			t.Errorf("%s is %dx%d, want %dx%d", m.Name, m.Width, m.Height, size.w, size.h)
		}
		if len(m.Spawns) != MaxSpawns {
			t.Errorf("%s has %d spawn points, want %d", m.Name, len(m.Spawns), MaxSpawns)
		}
		if m.Description == "" {
			t.Errorf("%s has no description", m.Name)
		}
		for seat, p := range m.Spawns {
			if m.At(p.X, p.Y) != Ground {
				t.Errorf("%s: spawn point %d at %v is %q", m.Name, seat+1, p, m.At(p.X, p.Y))
			}
		}
	}
	for name := range want {
		t.Errorf("map %q missing", name)
	}
}

func TestParseMap(t *testing.T) {
	text := "; name: tiny\r\n; a comment: not a key we know\n; description: A room\n;description:with a pillar.\n\n#########\r\n#1.....2#\n#..~#...#\n#########\n\n"
	m, err := ParseMap("maps/x.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "tiny" || m.Description != "A room with a pillar." || m.Width != 9 || m.Height != 4 {
		t.Fatalf("got name %q description %q size %dx%d", m.Name, m.Description, m.Width, m.Height)
	}
	if want := []Point{{1, 1}, {7, 1}}; len(m.Spawns) != 2 || m.Spawns[0] != want[0] || m.Spawns[1] != want[1] {
		t.Errorf("spawns %v, want %v", m.Spawns, want)
	}
	for _, c := range []struct {
		x, y int
		want Terrain
	}{{0, 0, Wall}, {1, 1, Ground}, {3, 2, Water}, {4, 2, Wall}, {5, 2, Ground}, {-1, 0, Wall}, {9, 1, Wall}, {0, 4, Wall}} {
		if got := m.At(c.x, c.y); got != c.want {
			t.Errorf("At(%d,%d) = %q, want %q", c.x, c.y, got, c.want)
		}
	}

	m, err = ParseMap("maps/plain.txt", []byte("1..\n...\n..2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "plain" {
		t.Errorf("name without a header = %q, want the file's name", m.Name)
	}
}

func TestParseMapErrors(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"empty", "", "maps/bad.txt: no grid"},
		{"only header", "; name: x\n", "maps/bad.txt: no grid"},
		{"ragged", "#####\n#1..#\n#..#\n#####\n", "maps/bad.txt:3: row is 4 cells wide, the first row (line 1) is 5"},
		{"unknown rune", "#####\n#1.@#\n#####\n", "maps/bad.txt:2: column 4: unexpected '@'"},
		{"tab", "#####\n#1.\t#\n#####\n", "maps/bad.txt:2: column 4: unexpected '\\t'"},
		{"non-ascii", "#####\n#1.é#\n#####\n", "maps/bad.txt:2: column 4: unexpected 'é'"},
		{"nine", "#####\n#1.9#\n#####\n", "maps/bad.txt:2: column 4: unexpected '9'"},
		{"duplicate spawn", "#####\n#1..#\n#.1.#\n#####\n", "maps/bad.txt:3: column 3: spawn point 1 again (first on line 2)"},
		{"gap in spawns", "#####\n#1..#\n#..3#\n#####\n", "maps/bad.txt:3: spawn point 3 without spawn point 2"},
		{"no spawn 1", "#####\n#2..#\n#####\n", "maps/bad.txt:2: spawn point 2 without spawn point 1"},
		{"no spawn", "#####\n#...#\n#####\n", "maps/bad.txt: no spawn point"},
		{"header after grid", "#####\n#1..#\n; name: late\n#####\n", "maps/bad.txt:3: header line after the grid started at line 1"},
		{"blank inside grid", "#####\n#1..#\n\n#####\n", "maps/bad.txt:3: blank line inside the grid"},
		{"too narrow", "##\n1.\n##\n", "maps/bad.txt:1: grid is 2x3"},
		{"too flat", "#####\n#1..#\n", "maps/bad.txt:1: grid is 5x2"},
		{"too wide", strings.Repeat(".", 251) + "\n1" + strings.Repeat(".", 250) + "\n" + strings.Repeat(".", 251) + "\n", "maps/bad.txt:1: grid is 251x3"},
		{"too tall", "1..\n" + strings.Repeat("...\n", 250), "maps/bad.txt:251: more than 250 rows"},
		{"second name", "; name: a\n; name: b\n1..\n...\n...\n", "maps/bad.txt:2: second \"; name:\" line"},
		{"bad name", "; name: Big Map\n1..\n...\n...\n", "maps/bad.txt:1: map name \"Big Map\" may hold only"},
		{"empty name", "; name:\n1..\n...\n...\n", "maps/bad.txt:1: map name \"\" must be 1 to 32 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMap("maps/bad.txt", []byte(c.text))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %q, want it to start with %q", err, c.want)
			}
			var ae *Error
			if !errors.As(err, &ae) || ae.File != "maps/bad.txt" {
				t.Errorf("error %v is not an *Error for the file", err)
			}
		})
	}
}

func TestLoadMapsDuplicateName(t *testing.T) {
	fsys := fstest.MapFS{
		"maps/a.txt": {Data: []byte("; name: same\n1..\n...\n...\n")},
		"maps/b.txt": {Data: []byte("; name: same\n1..\n...\n...\n")},
	}
	_, err := loadMaps(fsys)
	if err == nil || !strings.Contains(err.Error(), `maps/b.txt: map name "same" is also used by maps/a.txt`) {
		t.Fatalf("error %v, want the duplicate name named", err)
	}
	fsys["maps/b.txt"] = &fstest.MapFile{Data: []byte("1..\n.@.\n...\n")}
	if _, err := loadMaps(fsys); err == nil || !strings.HasPrefix(err.Error(), "maps/b.txt:2:") {
		t.Fatalf("error %v, want the bad file's line", err)
	}
}

func FuzzParseMap(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMap("maps/fuzz.txt", data)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if m.Width < MinMapSide || m.Width > MaxMapSide || m.Height < MinMapSide || m.Height > MaxMapSide {
			t.Fatalf("accepted a %dx%d map", m.Width, m.Height)
		}
		if len(m.Cells) != m.Width*m.Height || len(m.Spawns) == 0 || len(m.Spawns) > MaxSpawns {
			t.Fatalf("inconsistent map: %d cells for %dx%d, %d spawns", len(m.Cells), m.Width, m.Height, len(m.Spawns))
		}
		for _, p := range m.Spawns {
			if m.At(p.X, p.Y) != Ground {
				t.Fatalf("spawn %v is not ground", p)
			}
		}
	})
}
