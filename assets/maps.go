package assets

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Terrain is what one map cell is made of. Its value is the character that
// draws it in a map file, so a map prints as itself.
type Terrain byte

// The three kinds of terrain. Spawn digits in a file are open ground.
const (
	Ground Terrain = '.' // open ground: walkable
	Wall   Terrain = '#' // blocks walking
	Water  Terrain = '~' // blocks walking (projectiles fly over both)
)

// Map limits. A side of MaxMapSide keeps every cell index, and every path
// length on the map, inside 16 bits.
const (
	MinMapSide = 3
	MaxMapSide = 250
	MaxSpawns  = 8
)

// Point is a cell position: X counts columns from the left, Y rows from the top.
type Point struct {
	X, Y int
}

// Map is a parsed map file.
type Map struct {
	File        string // where it came from, for messages
	Name        string // from "; name:", or the file name without ".txt"
	Description string // from "; description:" lines, joined by spaces
	Width       int
	Height      int
	Cells       []Terrain // Width*Height cells, row by row; spawn points are Ground
	Spawns      []Point   // Spawns[i] is the spawn point of seat i (digit i+1 in the file)
}

// At returns the terrain at (x, y); outside the map it returns Wall.
func (m *Map) At(x, y int) Terrain {
	if x < 0 || y < 0 || x >= m.Width || y >= m.Height {
		return Wall
	}
	return m.Cells[y*m.Width+x]
}

// ParseMap parses one map file; file names it in errors. See README.md for
// the format.
func ParseMap(file string, data []byte) (*Map, error) {
	m := &Map{File: file, Name: strings.TrimSuffix(path.Base(file), ".txt")}
	named := false
	var spawnLine [MaxSpawns]int
	var spawns [MaxSpawns]Point
	gridStart := 0  // line number of the first grid row
	blankAfter := 0 // line number of a blank line seen after the grid started
	lines := strings.Split(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1] // the newline that ends the last line
	}
	for i, line := range lines {
		lineNo := i + 1
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, ";"):
			if gridStart != 0 {
				return nil, errorf(file, lineNo, "header line after the grid started at line %d", gridStart)
			}
			key, value, ok := strings.Cut(strings.TrimSpace(line[1:]), ":")
			if !ok {
				continue // a comment
			}
			value = strings.TrimSpace(value)
			switch strings.TrimSpace(key) {
			case "name":
				if named {
					return nil, errorf(file, lineNo, "second \"; name:\" line")
				}
				if err := checkMapName(value); err != nil {
					return nil, errorf(file, lineNo, "%v", err)
				}
				m.Name, named = value, true
			case "description":
				if m.Description != "" {
					m.Description += " "
				}
				m.Description += value
			}
			// Any other "key: value" is a comment too.
		case strings.TrimSpace(line) == "":
			if gridStart != 0 && blankAfter == 0 {
				blankAfter = lineNo
			}
		default:
			if gridStart == 0 {
				gridStart = lineNo
				m.Width = len(line)
			}
			if blankAfter != 0 {
				return nil, errorf(file, blankAfter, "blank line inside the grid")
			}
			if m.Height == MaxMapSide {
				return nil, errorf(file, lineNo, "more than %d rows", MaxMapSide)
			}
			y := m.Height
			for x := 0; x < len(line); x++ {
				c := line[x]
				switch {
				case c == '#' || c == '~' || c == '.':
					m.Cells = append(m.Cells, Terrain(c))
				case c >= '1' && c <= '8':
					seat := c - '1'
					if spawnLine[seat] != 0 {
						return nil, errorf(file, lineNo, "column %d: spawn point %c again (first on line %d)", x+1, c, spawnLine[seat])
					}
					spawnLine[seat] = lineNo
					spawns[seat] = Point{x, y}
					m.Cells = append(m.Cells, Ground)
				default:
					r := []rune(line[x:])[0]
					return nil, errorf(file, lineNo, "column %d: unexpected %q (want '#' wall, '~' water, '.' ground or a spawn point 1-8)", x+1, r)
				}
			}
			if len(line) != m.Width {
				return nil, errorf(file, lineNo, "row is %d cells wide, the first row (line %d) is %d", len(line), gridStart, m.Width)
			}
			m.Height++
		}
	}
	if gridStart == 0 {
		return nil, errorf(file, 0, "no grid")
	}
	if m.Width < MinMapSide || m.Width > MaxMapSide || m.Height < MinMapSide {
		return nil, errorf(file, gridStart, "grid is %dx%d; each side must be %d to %d cells", m.Width, m.Height, MinMapSide, MaxMapSide)
	}
	for seat := range MaxSpawns {
		if spawnLine[seat] == 0 {
			for later := seat + 1; later < MaxSpawns; later++ {
				if spawnLine[later] != 0 {
					return nil, errorf(file, spawnLine[later], "spawn point %d without spawn point %d (number them from 1 without gaps)", later+1, seat+1)
				}
			}
			break
		}
		m.Spawns = append(m.Spawns, spawns[seat])
	}
	if len(m.Spawns) == 0 {
		return nil, errorf(file, 0, "no spawn point (put digits 1-8 on open ground)")
	}
	return m, nil
}

func checkMapName(name string) error {
	if name == "" || len(name) > 32 {
		return fmt.Errorf("map name %q must be 1 to 32 characters", name)
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("map name %q may hold only a-z, 0-9, '-' and '_'", name)
		}
	}
	return nil
}

// LoadMaps parses every embedded map, sorted by name. It fails on the first
// file that does not parse and on two maps with the same name.
func LoadMaps() ([]*Map, error) {
	return loadMaps(FS)
}

func loadMaps(fsys fs.FS) ([]*Map, error) {
	files, err := fs.Glob(fsys, "maps/*.txt")
	if err != nil {
		return nil, err
	}
	var maps []*Map
	for _, file := range files { // fs.Glob returns names in lexical order
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		m, err := ParseMap(file, data)
		if err != nil {
			return nil, err
		}
		maps = append(maps, m)
	}
	sort.Slice(maps, func(i, j int) bool { return maps[i].Name < maps[j].Name })
	for i := 1; i < len(maps); i++ {
		if maps[i].Name == maps[i-1].Name {
			return nil, errorf(maps[i].File, 0, "map name %q is also used by %s", maps[i].Name, maps[i-1].File)
		}
	}
	return maps, nil
}
