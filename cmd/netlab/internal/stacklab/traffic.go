package stacklab

import (
	"encoding/binary"
	"math/rand/v2"
	"time"
)

// kind is what a message of the traffic is, as a game server would send it.
type kind uint8

const (
	kindSpawn kind = iota // an enemy appears: depends on nothing
	kindKill              // an enemy dies: depends on its spawn
	kindChat              // a chat line: depends on the sender's previous line
	kindInfo              // a player's info before a round: depends on nothing
	kindStart             // a round starts: depends on every player's info
	kinds
)

var kindNames = [kinds]string{"spawn", "kill", "chat", "player info", "start"}

func (k kind) String() string { return kindNames[k] }

// independent reports whether messages of this kind depend on nothing: the ones a lost
// packet of another message should never hold back.
func (k kind) independent() bool { return k == kindSpawn || k == kindInfo }

// tmsg is one message of the traffic: what it is, when the game hands it to the connection
// (since the start), and the messages it truly depends on (indices into the traffic). Those
// are the graph's dependencies; a channel adds its own ordering on top.
type tmsg struct {
	at    time.Duration
	kind  kind
	deps  []int
	group int // the chat's sender, for chat lines
}

// Shape of the traffic.
const (
	trafficTick   = 10 * time.Millisecond // a server's loop hands over messages this often
	chatters      = 3                     // chat chains, one per player who talks
	roundPlayers  = 8                     // player infos before each start
	roundEvery    = time.Second           // a start-game barrier this often, or less (roundShare)
	roundShare    = 10                    // rounds are at most a tenth of the messages
	killDelayMin  = 20 * time.Millisecond // a kill follows its spawn after this much
	killDelaySpan = 280 * time.Millisecond
	payloadSize   = 16 // bytes of every message: kind, index, padding (a SpawnEnemy is about that)
)

// traffic is n messages at rate messages a second, seeded: independent spawns (45% of the
// draws), kill-after-spawn pairs (20%: the spawn now, the kill 20-300 ms later), chat lines
// of three chains (35%), and every second a start-game barrier: eight player infos, then a
// start that depends on all of them two ticks later (less often when rounds would be more
// than a tenth of the messages; they count towards the rate). Messages come in trafficTick steps, as a
// server loop hands them over, and come out in the order they are handed over.
func traffic(seed uint64, n int, rate float64) []tmsg {
	rng := rand.New(rand.NewPCG(seed, 0x686f6c)) // "hol"
	var out []tmsg
	lastChat := [chatters]int{-1, -1, -1}
	var pending []tmsg // kills and starts due later, with their deps as indices already
	credit := 0.0
	nextRound := time.Duration(0)
	every := max(roundEvery, time.Duration(float64(roundShare*(roundPlayers+1))/rate*float64(time.Second)))
	for t := time.Duration(0); len(out) < n || len(pending) > 0; t += trafficTick {
		// What was scheduled for now goes first.
		rest := pending[:0]
		for _, p := range pending {
			if p.at <= t {
				out = append(out, p)
			} else {
				rest = append(rest, p)
			}
		}
		pending = rest
		if len(out) >= n {
			continue // only the scheduled kills and starts are left
		}
		credit += rate * trafficTick.Seconds()
		if t >= nextRound && n-len(out) > roundPlayers {
			// The round's messages count towards the rate, so that the traffic keeps it.
			nextRound += every
			var infos []int
			for range roundPlayers {
				infos = append(infos, len(out))
				out = append(out, tmsg{at: t, kind: kindInfo})
			}
			pending = append(pending, tmsg{at: t + 2*trafficTick, kind: kindStart, deps: infos})
			credit -= roundPlayers + 1
		}
		for ; credit >= 1 && len(out) < n; credit-- {
			switch r := rng.IntN(100); {
			case r < 45:
				out = append(out, tmsg{at: t, kind: kindSpawn})
			case r < 65:
				spawn := len(out)
				out = append(out, tmsg{at: t, kind: kindSpawn})
				delay := killDelayMin + time.Duration(rng.Int64N(int64(killDelaySpan)))
				delay = delay.Truncate(trafficTick)
				pending = append(pending, tmsg{at: t + delay, kind: kindKill, deps: []int{spawn}})
			default:
				who := rng.IntN(chatters)
				m := tmsg{at: t, kind: kindChat, group: who}
				if lastChat[who] >= 0 {
					m.deps = []int{lastChat[who]}
				}
				lastChat[who] = len(out)
				out = append(out, m)
			}
		}
	}
	// Scheduled messages were appended when due, so out is in time order, and the indices
	// in deps stay valid.
	return out
}

// channelDeps is the dependency list of message i when the traffic goes over ordered
// channels: the previous message of the same channel (none for the first). channelOf names
// the channel of each kind; a channel orders everything sent on it, so a kind's true
// dependencies must be on its own channel.
func channelDeps(msgs []tmsg, channelOf func(kind) int) [][]int {
	last := map[int]int{}
	deps := make([][]int, len(msgs))
	for i, m := range msgs {
		ch := channelOf(m.kind)
		if p, ok := last[ch]; ok {
			deps[i] = []int{p}
		}
		last[ch] = i
	}
	return deps
}

// appendPayload is message i's payload: its kind, its index, padding.
func appendPayload(b []byte, i int, k kind) []byte {
	b = append(b, byte(k))
	b = binary.BigEndian.AppendUint32(b, uint32(i))
	for len(b) < payloadSize {
		b = append(b, 0)
	}
	return b
}

// parsePayload reads a payload appendPayload wrote.
func parsePayload(p []byte) (i int, k kind, ok bool) {
	if len(p) < 5 || p[0] >= byte(kinds) {
		return 0, 0, false
	}
	return int(binary.BigEndian.Uint32(p[1:])), kind(p[0]), true
}
