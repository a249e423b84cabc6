package world

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/internal/codectest"
)

// game/PROTOCOL.md (section 5) documents the world's state and hashes byte for byte, for
// people writing a client in another language, so its examples must be right. These tests
// build the world the document describes and compare.

func readGameProtocolDoc(t *testing.T) string { return codectest.ReadDoc(t, "../game/PROTOCOL.md") }

// TestProtocolDocStateExample: the skirmish map, seed 1, seats 0 and 2 at the start, unit 3
// removed and goblin 10000 spawned at seat 1's spawn point, run until the first attack is in
// flight (frame 21).
func TestProtocolDocStateExample(t *testing.T) {
	w := mustWorld(t, "skirmish", 1)
	for _, seat := range []uint8{0, 2} {
		if _, err := w.AddPlayerUnits(seat); err != nil {
			t.Fatal(err)
		}
	}
	x, y, _ := w.Spawn(1)
	if err := w.SpawnEnemy(FirstEnemyID, "goblin", x, y); err != nil {
		t.Fatal(err)
	}
	w.RemoveUnit(3)
	for len(w.Attacks()) == 0 && w.Frame() < 300 {
		w.Step()
	}
	got, err := w.AppendState(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := codectest.DocExample(t, readGameProtocolDoc(t), "example-state")
	if !bytes.Equal(got, want) {
		t.Fatalf("the document's state is\n% x\nbut the world's (frame %d) is\n% x", want, w.Frame(), got)
	}
	if s, n, err := ParseState(want); err != nil || n != len(want) || s.Frame != 21 || s.NextID != 11 || len(s.Attacks) != 1 {
		t.Errorf("the document's state parses as %+v, %d of %d bytes, %v", s, n, len(want), err)
	}
	// The same world's core state, and its state hash.
	doc := readGameProtocolDoc(t)
	core, err := w.AppendCoreState(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := codectest.DocExample(t, doc, "example-core-state"); !bytes.Equal(core, want) {
		t.Errorf("the document's core state is\n% x\nbut the world's is\n% x", want, core)
	}
	m := regexp.MustCompile(`has the state hash\s+` + "`0x([0-9a-f]{16})`").FindStringSubmatch(doc)
	if got := fmt.Sprintf("%016x", w.StateHash()); m == nil || m[1] != got {
		t.Errorf("the document's state hash example %q, the world's %s", m, got)
	}
}

// TestProtocolDocHashExample: the hash of seat 0's first soldier at the start.
func TestProtocolDocHashExample(t *testing.T) {
	w := mustWorld(t, "skirmish", 1)
	if _, err := w.AddPlayerUnits(0); err != nil {
		t.Fatal(err)
	}
	u, _ := w.Unit(1)
	// Any space of the sentence may be a line break.
	pattern := strings.ReplaceAll(`\(id 1, owner 0, kind 0, x (\d+), y (\d+), 60 hp, no order\) hashes to `+"`0x([0-9a-f]{16})`", " ", `\s+`)
	m := regexp.MustCompile(pattern).FindStringSubmatch(readGameProtocolDoc(t))
	if m == nil {
		t.Fatal("the hash example is missing")
	}
	if got := fmt.Sprintf("%016x", u.Hash()); got != m[3] || m[1] != "3" || m[2] != "2" || u.X != 3 || u.Y != 2 || u.HP != 60 {
		t.Errorf("unit 1 is %+v with hash %s; the document says x %s, y %s, hash %s", u, got, m[1], m[2], m[3])
	}
}
