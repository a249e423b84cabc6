package world

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
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
		f.Add(AppendUnit(nil, &c.unit))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, n, err := ParseUnit(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if again := AppendUnit(nil, &u); !bytes.Equal(again, data[:n]) {
			t.Fatalf("% x parsed as %+v, which encodes as % x", data[:n], u, again)
		}
		w := fuzzWorld(t)
		if w.SetUnit(u) == nil {
			stepSome(w)
		}
	})
}

// FuzzParseAttack: the same for attacks, stepped after SetAttacks.
func FuzzParseAttack(f *testing.F) {
	f.Add(AppendAttack(nil, &Attack{ID: 1, From: 1, Target: FirstEnemyID, X: 50, Y: 50, Damage: 6, Speed: 150}))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, n, err := ParseAttack(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if again := AppendAttack(nil, &a); !bytes.Equal(again, data[:n]) {
			t.Fatalf("% x parsed as %+v, which encodes as % x", data[:n], a, again)
		}
		w := fuzzWorld(t)
		if w.SetAttacks([]Attack{a}) == nil {
			stepSome(w)
		}
	})
}

// appendStateValue encodes a State the way AppendState encodes a world's.
func appendStateValue(b []byte, s *State) []byte {
	b = binary.AppendUvarint(b, uint64(s.Frame))
	b = binary.AppendUvarint(b, uint64(s.NextID))
	b = binary.AppendUvarint(b, uint64(s.NextAttackID))
	b = append(b, byte(len(s.RNG)))
	b = append(b, s.RNG...)
	b = binary.AppendUvarint(b, uint64(len(s.UnitIDs)))
	prev := uint32(0)
	for _, id := range s.UnitIDs {
		b = binary.AppendUvarint(b, uint64(id-prev))
		prev = id
	}
	b = binary.AppendUvarint(b, uint64(len(s.Attacks)))
	for i := range s.Attacks {
		b = AppendAttack(b, &s.Attacks[i])
	}
	return b
}

// FuzzParseState: parsing never panics, re-encodes to the same bytes, and a
// state ApplyState accepts can be stepped.
func FuzzParseState(f *testing.F) {
	w := mustWorld(f, "skirmish", 3)
	f.Add(AppendState(nil, w))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, n, err := ParseState(data)
		if err != nil {
			if n != 0 {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if again := appendStateValue(nil, &s); !bytes.Equal(again, data[:n]) {
			t.Fatalf("% x parsed as %+v, which encodes as % x", data[:n], s, again)
		}
		w := fuzzWorld(t)
		if w.ApplyState(s) == nil {
			stepSome(w)
			if w2 := fuzzWorld(t); w2.ApplyState(s) == nil && !bytes.Equal(AppendState(nil, w2), appendStateValue(nil, &State{
				Frame: s.Frame, NextID: s.NextID, NextAttackID: s.NextAttackID, RNG: s.RNG,
				UnitIDs: unitIDs(w2), Attacks: s.Attacks,
			})) {
				t.Fatal("AppendState and the State encoding disagree")
			}
		}
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
