package world

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ackattack/ackattack/internal/seedcorpus"
)

// fuzzWorld is a small world with a unit of each side, to apply parsed
// values to: whatever SetUnit, SetAttacks or ApplyState accept, Step must
// survive.
func fuzzWorld(t *testing.T) *World {
	w := tinyWorld(t,
		"1.....",
		"..~...",
		"......",
	)
	player(t, w, 1, 0, "archer", 0, 0)
	enemy(t, w, FirstEnemyID, "goblin", 5, 2)
	return w
}

func stepSome(w *World) {
	for range 30 {
		w.Step()
	}
}

// FuzzParseUnit: parsing never panics; what parses re-encodes to the same
// bytes; and a unit that SetUnit accepts can be stepped.
func FuzzParseUnit(f *testing.F) {
	for _, c := range unitEncodings {
		f.Add(mustAppendUnit(f, nil, &c.unit))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, n, err := ParseUnit(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if again, err := AppendUnit(nil, &u); err != nil || !bytes.Equal(again, data[:n]) {
			t.Fatalf("% x parsed as %+v, which encodes as % x, %v", data[:n], u, again, err)
		}
		w := fuzzWorld(t)
		if w.SetUnit(u) == nil {
			stepSome(w)
		}
	})
}

// FuzzParseAttack: the same for attacks, stepped after SetAttacks.
func FuzzParseAttack(f *testing.F) {
	seed, err := AppendAttack(nil, &Attack{ID: 1, From: 1, Target: FirstEnemyID, X: 50, Y: 50, Damage: 6, Speed: 150})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, n, err := ParseAttack(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if again, err := AppendAttack(nil, &a); err != nil || !bytes.Equal(again, data[:n]) {
			t.Fatalf("% x parsed as %+v, which encodes as % x, %v", data[:n], a, again, err)
		}
		w := fuzzWorld(t)
		if w.SetAttacks([]Attack{a}) == nil {
			stepSome(w)
		}
	})
}

// FuzzParseState: parsing never panics, re-encodes to the same bytes, and a
// state ApplyState accepts can be stepped.
func FuzzParseState(f *testing.F) {
	seed, err := mustWorld(f, "skirmish", 3).AppendState(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, n, err := ParseState(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if again, err := appendState(nil, &s); err != nil || !bytes.Equal(again, data[:n]) {
			t.Fatalf("% x parsed as %+v, which encodes as % x, %v", data[:n], s, again, err)
		}
		w := fuzzWorld(t)
		if w.ApplyState(s) == nil {
			stepSome(w)
			// A world that took the state gives it back (with its own units).
			w2 := fuzzWorld(t)
			if w2.ApplyState(s) != nil {
				t.Fatal("ApplyState took the state once but not twice")
			}
			fromWorld, err := w2.AppendState(nil)
			want, _ := appendState(nil, &State{Frame: s.Frame, CoreState: s.CoreState, UnitIDs: unitIDs(w2)})
			if err != nil || !bytes.Equal(fromWorld, want) {
				t.Fatalf("the world's state encodes as % x (%v), want % x", fromWorld, err, want)
			}
		}
	})
}

// FuzzParseCoreState: parsing never panics, re-encodes to the same bytes, and a core state
// ApplyCoreState accepts leaves the units alone, gives itself back, and can be stepped.
func FuzzParseCoreState(f *testing.F) {
	seed, err := mustWorld(f, "skirmish", 3).AppendCoreState(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, n, err := ParseCoreState(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if again, err := appendCoreState(nil, &s); err != nil || !bytes.Equal(again, data[:n]) {
			t.Fatalf("% x parsed as %+v, which encodes as % x, %v", data[:n], s, again, err)
		}
		w := fuzzWorld(t)
		units := slices.Clone(w.Units())
		if w.ApplyCoreState(s) != nil {
			return
		}
		if !slices.Equal(w.Units(), units) {
			t.Fatalf("ApplyCoreState changed the units: %+v, were %+v", w.Units(), units)
		}
		// The next id moves above the world's player units; the rest is s.
		want := s
		want.NextID = max(s.NextID, 2)
		got, err := w.AppendCoreState(nil)
		if wantBytes, _ := appendCoreState(nil, &want); err != nil || !bytes.Equal(got, wantBytes) {
			t.Fatalf("the world's core state encodes as % x (%v), want % x", got, err, wantBytes)
		}
		stepSome(w)
	})
}

func unitIDs(w *World) []uint32 {
	var ids []uint32
	for _, u := range w.Units() {
		ids = append(ids, u.ID)
	}
	return ids
}

// TestFuzzCorpora keeps the seed corpora in testdata/fuzz honest (see
// package seedcorpus): a file named broken_… is refused, and every other file
// is exactly one valid value.
func TestFuzzCorpora(t *testing.T) {
	parsers := map[string]func([]byte) (int, error){
		"FuzzParseUnit": func(b []byte) (int, error) {
			_, n, err := ParseUnit(b)
			return n, err
		},
		"FuzzParseAttack": func(b []byte) (int, error) {
			_, n, err := ParseAttack(b)
			return n, err
		},
		"FuzzParseState": func(b []byte) (int, error) {
			_, n, err := ParseState(b)
			return n, err
		},
		"FuzzParseCoreState": func(b []byte) (int, error) {
			_, n, err := ParseCoreState(b)
			return n, err
		},
	}
	for target, parse := range parsers {
		for _, seed := range seedcorpus.Read(t, filepath.Join("testdata", "fuzz", target)) {
			n, err := parse(seed.Data)
			switch {
			case seed.Broken:
				if err == nil {
					t.Errorf("%s/%s parses", target, seed.Name)
				}
			case err != nil:
				t.Errorf("%s/%s: %v", target, seed.Name, err)
			case n != len(seed.Data):
				t.Errorf("%s/%s: %d of %d bytes are the value", target, seed.Name, n, len(seed.Data))
			}
		}
	}
}
