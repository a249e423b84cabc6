package game

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Bot is a computer player: it moves and attacks with its units a few times a second, and
// now and then says in the chat what it is doing ("attacking the ogre at 12,5") or a line from
// a short fixed list, so that a class reads it and its own lines stand out. Everything it
// decides comes from its own seeded generators and the world it is shown, so two runs with
// the same seed and the same world make the same choices. Which line it says comes from a
// generator of its own, so that its words never change its play.
type Bot struct {
	seat     uint8
	name     string
	rng      *rand.Rand // its play, and when it chats
	talk     *rand.Rand // which line it says
	nextAct  uint32     // frame of its next command
	nextChat uint32     // frame of its next chat line
	chatGap  uint32     // the fewest frames between two chat lines; the next comes within 1.5 more
	lines    int
	deed     botDeed // its latest command, for its next line
	quiet    bool    // stopped: no more commands or chat
}

// botDeed is what a bot's latest command did, in words for the chat.
type botDeed struct {
	kind   world.CommandKind // 0: none yet
	units  int
	target string // an attack's target: its kind's name
	x, y   int32  // a move's destination, an attack's target's cell, where a unit stopped
}

// DefaultBotChat is the fewest seconds between two lines of a bot, which come 20 to 50 s
// apart: rarely enough that a class's own lines stand out. (A hello comes in the first 2 to
// 5 s.) A lesson that needs chat flowing has the bots say their numbered lines at once
// (Stage.BotsChat), and the tests that load the chat chains shorten the gap.
const DefaultBotChat = 20 * time.Second

// NewBot returns a bot for seat, chatting every DefaultBotChat or so at DefaultFrame.
func NewBot(seat uint8, name string, seed uint64) *Bot {
	b := &Bot{seat: seat, name: name, rng: rand.New(rand.NewPCG(seed, uint64(seat)+1)),
		talk: rand.New(rand.NewPCG(seed, uint64(seat)+1+botTalkStream)), chatGap: framesOf(DefaultBotChat, DefaultFrame)}
	b.nextChat = uint32(20 + b.rng.IntN(30))
	return b
}

// botTalkStream sets a bot's generator of words apart from its play's.
const botTalkStream = 1 << 32

// framesOf is d in whole frames of length frame, at least two.
func framesOf(d, frame time.Duration) uint32 {
	if frame <= 0 {
		frame = DefaultFrame
	}
	return uint32(max(d/frame, 2))
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
			b.deed = botDeed{kind: world.CommandAttack, units: len(group)}
			if u, ok := w.Unit(t); ok {
				b.deed.x, b.deed.y = u.X, u.Y
				if k, ok := world.KindOf(u.Kind); ok {
					b.deed.target = k.Name
				}
			}
			return &Command{Frame: at, Kind: world.CommandAttack, Units: group, Target: t}
		}
		fallthrough
	case r < 9:
		for try := 0; try < 20; try++ {
			x := pick.X + int32(b.rng.IntN(21)) - 10
			y := pick.Y + int32(b.rng.IntN(11)) - 5
			if w.Terrain(x, y) == world.Ground && w.Reachable(pick.X, pick.Y, x, y) {
				b.deed = botDeed{kind: world.CommandMove, units: len(group), x: x, y: y}
				return &Command{Frame: at, Kind: world.CommandMove, Units: group, X: x, Y: y}
			}
		}
		return nil
	default:
		b.deed = botDeed{kind: world.CommandStop, units: 1, x: pick.X, y: pick.Y}
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

// Chat returns the bot's next chat line when its time (frame) has come: a hello first, then,
// every chatGap to 2.5 chatGap frames, what it is doing or a line of botLines.
func (b *Bot) Chat(frame uint32) (string, bool) {
	if b.quiet || frame < b.nextChat {
		return "", false
	}
	b.nextChat = frame + b.chatGap + uint32(b.rng.IntN(int(b.chatGap*3/2)))
	b.lines++
	switch {
	case b.lines == 1:
		return botHello, true
	case b.deed.kind != 0 && b.talk.IntN(2) == 0:
		return b.deed.String(), true
	}
	return botLines[b.talk.IntN(len(botLines))], true
}

// What bots say: a hello, then their deeds and these, so that a class reads something and a
// bot's line is never mistaken for a student's.
const botHello = "hello, I am a bot: my units are the yellow letters on your map"

var botLines = [...]string{
	"good luck, everyone",
	"a attacks the enemy nearest your cursor",
	"press d to see the packets behind this game",
	"my orders reach you a few frames ahead, like yours",
}

// String is the deed in words: "attacking the ogre at 12,5".
func (d botDeed) String() string {
	switch d.kind {
	case world.CommandAttack:
		if d.target == "" {
			return "attacking an enemy"
		}
		return fmt.Sprintf("attacking the %s at %d,%d", d.target, d.x, d.y)
	case world.CommandMove:
		if d.units == 1 {
			return fmt.Sprintf("moving a unit to %d,%d", d.x, d.y)
		}
		return fmt.Sprintf("moving %d units to %d,%d", d.units, d.x, d.y)
	}
	return fmt.Sprintf("holding my ground at %d,%d", d.x, d.y)
}

// nextLine is the bot's next numbered chat line ("line 12"), for a lesson that shows lines
// arriving in order (Stage.BotsChat).
func (b *Bot) nextLine() string {
	b.lines++
	return fmt.Sprintf("line %d", b.lines)
}
