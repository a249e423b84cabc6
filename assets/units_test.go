package assets

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestEmbeddedUnitKinds(t *testing.T) {
	kinds, err := LoadUnitKinds()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]UnitKind{}
	for _, k := range kinds {
		byName[k.Name] = k
	}
	for _, name := range []string{"soldier", "archer", "knight", "goblin", "ogre"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("kind %q missing", name)
		}
	}
	if a := byName["archer"]; a.ProjectileSpeed == 0 || a.Range < 2 {
		t.Errorf("archer %+v should shoot projectiles from a distance", a)
	}
	if k, s := byName["knight"], byName["soldier"]; k.HP <= s.HP {
		t.Errorf("knight (%d hp) should be heavier than soldier (%d hp)", k.HP, s.HP)
	}
	if kinds[0].Name != "soldier" {
		t.Errorf("kind 0 is %q; the order of units.txt is part of the game", kinds[0].Name)
	}
}

func TestParseUnitKinds(t *testing.T) {
	text := "# comment\n\nname letter hp speed range damage cooldown projectile_speed sight\n" +
		"  # indented comment\n" +
		"archer\ta 35 40 5 6 15 150 8\r\n" +
		"brute B 100 100 1 20 30 0 1\n"
	kinds, err := ParseUnitKinds("units.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []UnitKind{
		{Name: "archer", Letter: 'a', HP: 35, Speed: 40, Range: 5, Damage: 6, Cooldown: 15, ProjectileSpeed: 150, Sight: 8},
		{Name: "brute", Letter: 'B', HP: 100, Speed: 100, Range: 1, Damage: 20, Cooldown: 30, ProjectileSpeed: 0, Sight: 1},
	}
	if len(kinds) != len(want) || kinds[0] != want[0] || kinds[1] != want[1] {
		t.Fatalf("got %+v, want %+v", kinds, want)
	}
}

func TestParseUnitKindsErrors(t *testing.T) {
	const header = "name letter hp speed range damage cooldown projectile_speed sight\n"
	for _, c := range []struct {
		name, text, want string
	}{
		{"empty", "", "units.txt: no header line"},
		{"header only", header, "units.txt: no unit kinds"},
		{"wrong header", "name letter hp speed\n", "units.txt:1: header must be the columns"},
		{"columns swapped", "name letter speed hp range damage cooldown projectile_speed sight\n", "units.txt:1: header must be"},
		{"too few columns", header + "soldier s 60 40 1 8 10 0\n", "units.txt:2: 8 columns, want 9"},
		{"too many columns", header + "soldier s 60 40 1 8 10 0 6 7\n", "units.txt:2: 10 columns, want 9"},
		{"not a number", header + "soldier s 6O 40 1 8 10 0 6\n", "units.txt:2: hp \"6O\" is not a whole number"},
		{"negative", header + "soldier s 60 40 1 -8 10 0 6\n", "units.txt:2: damage -8 out of range 1..100000"},
		{"too fast", header + "soldier s 60 101 1 8 10 0 6\n", "units.txt:2: speed 101 out of range 1..100"},
		{"zero range", header + "soldier s 60 40 0 8 10 0 6\n", "units.txt:2: range 0 out of range 1..50"},
		{"slow projectile", header + "archer a 35 40 5 6 15 90 8\n", "units.txt:2: projectile_speed 90 must be 0 (instant) or more than 100"},
		{"short sight", header + "archer a 35 40 5 6 15 150 4\n", "units.txt:2: sight 4 is shorter than range 5"},
		{"long letter", header + "soldier so 60 40 1 8 10 0 6\n", "units.txt:2: letter \"so\" must be one ASCII letter"},
		{"digit letter", header + "soldier 5 60 40 1 8 10 0 6\n", "units.txt:2: letter \"5\" must be one ASCII letter"},
		{"bad name", header + "Soldier s 60 40 1 8 10 0 6\n", "units.txt:2: unit kind name \"Soldier\" must start with a-z"},
		{"bad name char", header + "sol-dier s 60 40 1 8 10 0 6\n", "units.txt:2: unit kind name \"sol-dier\" may hold only"},
		{"duplicate name", header + "soldier s 60 40 1 8 10 0 6\nsoldier t 60 40 1 8 10 0 6\n", "units.txt:3: unit kind \"soldier\" again (first on line 2)"},
		{"duplicate letter", header + "soldier s 60 40 1 8 10 0 6\nscout s 60 40 1 8 10 0 6\n", "units.txt:3: letter \"s\" again (first on line 2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseUnitKinds("units.txt", []byte(c.text))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %q, want it to start with %q", err, c.want)
			}
			var ae *Error
			if !errors.As(err, &ae) {
				t.Errorf("error %v is not an *Error", err)
			}
		})
	}
}

func TestParseUnitKindsTooMany(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.Join(unitColumns, " ") + "\n")
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i := range MaxUnitKinds + 1 {
		// Letters run out long before 255 kinds; the count check comes first.
		b.WriteString("k" + strings.Repeat("x", i%30) + string(rune('a'+i/30)) + " " + string(letters[i%len(letters)]) + " 1 1 1 1 1 0 1\n")
	}
	_, err := ParseUnitKinds("units.txt", []byte(b.String()))
	if err == nil {
		t.Fatal("no error for more kinds than fit in a byte")
	}
}

func TestLoadUnitKindsMissing(t *testing.T) {
	if _, err := loadUnitKinds(fstest.MapFS{}); err == nil {
		t.Fatal("no error without units.txt")
	}
}

func FuzzParseUnitKinds(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		kinds, err := ParseUnitKinds("units.txt", data)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		for _, k := range kinds {
			if k.Sight < k.Range || k.Speed < 1 || k.Speed > 100 || k.ProjectileSpeed != 0 && k.ProjectileSpeed <= 100 {
				t.Fatalf("accepted %+v", k)
			}
		}
	})
}
