package game

import (
	"regexp"
	"slices"
	"testing"

	"github.com/ackattack/ackattack/world"
)

// botLine is every line a bot may say on its own: the hello, its deeds, its fixed lines.
var botLine = regexp.MustCompile(`^(` + regexp.QuoteMeta(botHello) +
	`|attacking the (goblin|ogre|hurler) at \d+,\d+|moving (a unit|\d units) to \d+,\d+|holding my ground at \d+,\d+` +
	`|good luck, everyone|a attacks the enemy nearest your cursor|press d to see the packets behind this game` +
	`|my orders reach you a few frames ahead, like yours)$`)

// botGame plays a bot alone on the skirmish map with a few enemies for frames frames, its
// orders applied as they come, and returns what it said and at which frames.
func botGame(t *testing.T, seed uint64, frames uint32) (lines []string, at []uint32) {
	t.Helper()
	w, err := world.NewWorld("skirmish", seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddPlayerUnits(0); err != nil {
		t.Fatal(err)
	}
	for i, kind := range []string{"goblin", "ogre", "hurler"} {
		x := int32(20 + 10*i)
		for w.Terrain(x, 10) != world.Ground {
			x++
		}
		if err := w.SpawnEnemy(world.FirstEnemyID+uint32(i), kind, x, 10); err != nil {
			t.Fatal(err)
		}
	}
	b := NewBot(0, "bot1", seed)
	for w.Frame() < frames {
		if c := b.Think(w, w.Frame()); c != nil {
			// Refused orders (an enemy that fell) change nothing, as on every host.
			_ = w.Apply(world.Command{Player: 0, Kind: c.Kind, Units: c.Units, X: c.X, Y: c.Y, Target: c.Target})
		}
		if line, ok := b.Chat(w.Frame()); ok {
			lines, at = append(lines, line), append(at, w.Frame())
		}
		w.Step()
	}
	return lines, at
}

// TestBotChatsRarelyAndReadably: a bot says hello within its first 5 s, then a line every 20
// to 50 s (at 10 frames a second), each one a class can read: what it does ("attacking the
// ogre at 12,5") or one of its few fixed lines, never a counter. The same seed says the same.
func TestBotChatsRarelyAndReadably(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		lines, at := botGame(t, seed, 6000) // ten minutes
		if len(lines) < 12 || len(lines) > 31 {
			t.Errorf("seed %d: %d lines in ten minutes, want one every 20 to 50 s", seed, len(lines))
		}
		if len(at) == 0 || at[0] < 20 || at[0] >= 50 || lines[0] != botHello {
			t.Fatalf("seed %d: first line %q at frame %v, want the hello within 2 to 5 s", seed, lines, at)
		}
		deeds := 0
		for i, line := range lines {
			if !botLine.MatchString(line) {
				t.Errorf("seed %d: line %d %q is none of a bot's lines", seed, i, line)
			}
			if i > 0 && (at[i]-at[i-1] < 200 || at[i]-at[i-1] >= 500) {
				t.Errorf("seed %d: lines %d and %d %d frames apart, want 200 to 499", seed, i-1, i, at[i]-at[i-1])
			}
			if line != botHello && !slices.Contains(botLines[:], line) {
				deeds++
			}
		}
		if deeds == 0 {
			t.Errorf("seed %d: the bot never said what it does: %q", seed, lines)
		}
		again, atAgain := botGame(t, seed, 6000)
		if !slices.Equal(lines, again) || !slices.Equal(at, atAgain) {
			t.Errorf("seed %d: the same game said other lines", seed)
		}
	}
}
