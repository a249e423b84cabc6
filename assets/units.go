package assets

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// UnitKind is one row of the unit table. Distances are in cells, measured as
// the larger of the horizontal and vertical distance (a unit reaches all 8
// neighbours at range 1). Times are in frames (10 per second). Speeds are in
// hundredths of a cell per frame: 50 moves one cell every two frames.
type UnitKind struct {
	Name            string // lower case, unique
	Letter          byte   // the letter that draws the unit, unique
	HP              int    // hit points at full health
	Speed           int    // walking speed, 1..100 (at most one cell per frame)
	Range           int    // attack reach in cells, at least 1
	Damage          int    // damage per attack
	Cooldown        int    // frames between two attacks
	ProjectileSpeed int    // 0: the attack hits at once; else a projectile flying this fast (more than 100)
	Sight           int    // how far an idle unit notices enemies, at least Range
}

// unitColumns is the header line of the unit table: its columns, in order.
var unitColumns = []string{"name", "letter", "hp", "speed", "range", "damage", "cooldown", "projectile_speed", "sight"}

// MaxUnitKinds is the most kinds a table may hold (a unit stores its kind in a byte).
const MaxUnitKinds = 255

// The limits of each numeric column, in column order after name and letter.
var unitLimits = [...]struct {
	min, max int
}{
	{1, 100000}, // hp
	{1, 100},    // speed
	{1, 50},     // range
	{1, 100000}, // damage
	{1, 6000},   // cooldown
	{0, 10000},  // projectile_speed (1..100 is rejected below)
	{1, 50},     // sight
}

// ParseUnitKinds parses a unit table; file names it in errors. See README.md
// for the format.
func ParseUnitKinds(file string, data []byte) ([]UnitKind, error) {
	var kinds []UnitKind
	header := 0 // line number of the header, once seen
	nameLine := map[string]int{}
	letterLine := map[byte]int{}
	for i, line := range strings.Split(string(data), "\n") {
		lineNo := i + 1
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if header == 0 {
			if strings.Join(fields, " ") != strings.Join(unitColumns, " ") {
				return nil, errorf(file, lineNo, "header must be the columns %q", strings.Join(unitColumns, " "))
			}
			header = lineNo
			continue
		}
		if len(fields) != len(unitColumns) {
			return nil, errorf(file, lineNo, "%d columns, want %d (%s)", len(fields), len(unitColumns), strings.Join(unitColumns, " "))
		}
		if len(kinds) == MaxUnitKinds {
			return nil, errorf(file, lineNo, "more than %d unit kinds", MaxUnitKinds)
		}
		k := UnitKind{Name: fields[0]}
		if err := checkKindName(k.Name); err != nil {
			return nil, errorf(file, lineNo, "%v", err)
		}
		if first, ok := nameLine[k.Name]; ok {
			return nil, errorf(file, lineNo, "unit kind %q again (first on line %d)", k.Name, first)
		}
		nameLine[k.Name] = lineNo
		letter := fields[1]
		if len(letter) != 1 || !(letter[0] >= 'a' && letter[0] <= 'z' || letter[0] >= 'A' && letter[0] <= 'Z') {
			return nil, errorf(file, lineNo, "letter %q must be one ASCII letter", letter)
		}
		k.Letter = letter[0]
		if first, ok := letterLine[k.Letter]; ok {
			return nil, errorf(file, lineNo, "letter %q again (first on line %d)", letter, first)
		}
		letterLine[k.Letter] = lineNo
		values := [...]*int{&k.HP, &k.Speed, &k.Range, &k.Damage, &k.Cooldown, &k.ProjectileSpeed, &k.Sight}
		for j, dst := range values {
			col := unitColumns[j+2]
			v, err := strconv.Atoi(fields[j+2])
			if err != nil {
				return nil, errorf(file, lineNo, "%s %q is not a whole number", col, fields[j+2])
			}
			if lim := unitLimits[j]; v < lim.min || v > lim.max {
				return nil, errorf(file, lineNo, "%s %d out of range %d..%d", col, v, lim.min, lim.max)
			}
			*dst = v
		}
		if k.ProjectileSpeed != 0 && k.ProjectileSpeed <= 100 {
			return nil, errorf(file, lineNo, "projectile_speed %d must be 0 (instant) or more than 100, faster than any walker, so that a projectile always catches its target", k.ProjectileSpeed)
		}
		if k.Sight < k.Range {
			return nil, errorf(file, lineNo, "sight %d is shorter than range %d", k.Sight, k.Range)
		}
		kinds = append(kinds, k)
	}
	if header == 0 {
		return nil, errorf(file, 0, "no header line")
	}
	if len(kinds) == 0 {
		return nil, errorf(file, 0, "no unit kinds")
	}
	return kinds, nil
}

func checkKindName(name string) error {
	if len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return fmt.Errorf("unit kind name %q must start with a-z and be at most 32 characters", name)
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return fmt.Errorf("unit kind name %q may hold only a-z, 0-9 and '_'", name)
		}
	}
	return nil
}

// LoadUnitKinds parses the embedded unit table. A unit's kind is its row's
// index in the returned slice, so the order of the file is part of the game.
func LoadUnitKinds() ([]UnitKind, error) {
	return loadUnitKinds(FS)
}

func loadUnitKinds(fsys fs.FS) ([]UnitKind, error) {
	data, err := fs.ReadFile(fsys, "units.txt")
	if err != nil {
		return nil, err
	}
	return ParseUnitKinds("units.txt", data)
}
