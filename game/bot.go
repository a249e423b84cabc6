package game

import (
	"fmt"
	"math/rand/v2"

	"github.com/ackattack/ackattack/world"
)

// Bot is a computer player: it moves and attacks with its units a few times a second and chats
// numbered lines ("<name> 1", "<name> 2", ...) every few seconds. Everything it decides comes
// from its own seeded generator and the world it is shown, so two runs with the same seed and
// the same world make the same choices.
type Bot struct {
	seat     uint8
	name     string
	rng      *rand.Rand
	nextAct  uint32 // frame of its next command
	nextChat uint32 // frame of its next chat line
	lines    int
	quiet    bool // stopped: no more commands or chat
}

// NewBot returns a bot for seat.
func NewBot(seat uint8, name string, seed uint64) *Bot {
	b := &Bot{seat: seat, name: name, rng: rand.New(rand.NewPCG(seed, uint64(seat)+1))}
	b.nextChat = uint32(20 + b.rng.IntN(30))
	return b
}

// Name is the bot's player name.
func (b *Bot) Name() string { return b.name }

// Think returns the bot's command for execution at frame at, or nil when it does nothing this
// frame. It acts every 2 to 5 frames: mostly it sends a few of its units at the nearest living
// enemy, sometimes it moves a group somewhere on the map, now and then it stops one.
func (b *Bot) Think(w *world.World, at uint32) *Command {
	f := w.Frame()
	if b.quiet || f < b.nextAct {
		return nil
	}
	b.nextAct = f + 2 + uint32(b.rng.IntN(4))
	var mine []world.Unit
	for _, u := range w.Units() {
		if u.Owner == b.seat && !u.IsEnemy() {
			mine = append(mine, u)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	pick := mine[b.rng.IntN(len(mine))]
	group := []uint32{pick.ID}
	for _, u := range mine {
		if u.ID != pick.ID && len(group) < 4 && b.rng.IntN(3) == 0 {
			group = append(group, u.ID)
		}
	}
	switch r := b.rng.IntN(10); {
	case r < 6:
		if t, ok := nearestEnemy(w, pick.X, pick.Y); ok {
			return &Command{Frame: at, Kind: world.CommandAttack, Units: group, Target: t}
		}
		fallthrough
	case r < 9:
		for try := 0; try < 20; try++ {
			x := pick.X + int32(b.rng.IntN(21)) - 10
			y := pick.Y + int32(b.rng.IntN(11)) - 5
			if w.Terrain(x, y) == world.Ground && w.Reachable(pick.X, pick.Y, x, y) {
				return &Command{Frame: at, Kind: world.CommandMove, Units: group, X: x, Y: y}
			}
		}
		return nil
	default:
		return &Command{Frame: at, Kind: world.CommandStop, Units: group[:1]}
	}
}

// nearestEnemy is the living enemy closest to (x, y), lowest id among equals.
func nearestEnemy(w *world.World, x, y int32) (uint32, bool) {
	best, bestD := uint32(0), int64(-1)
	for _, u := range w.Units() {
		if !u.IsEnemy() || u.Dead {
			continue
		}
		dx, dy := int64(u.X-x), int64(u.Y-y)
		if d := dx*dx + dy*dy; bestD < 0 || d < bestD {
			best, bestD = u.ID, d
		}
	}
	return best, bestD >= 0
}

// Chat returns the bot's next chat line when its time (frame) has come.
func (b *Bot) Chat(frame uint32) (string, bool) {
	if b.quiet || frame < b.nextChat {
		return "", false
	}
	b.nextChat = frame + 20 + uint32(b.rng.IntN(30)) // every 2 to 5 seconds
	return b.nextLine(), true
}

// nextLine is the bot's next numbered chat line.
func (b *Bot) nextLine() string {
	b.lines++
	return fmt.Sprintf("%s %d", b.name, b.lines)
}
