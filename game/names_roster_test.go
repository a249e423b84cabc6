package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// TestNamesComeAfterTheRoster: at the class's 30% loss, players join one after the other while
// everybody chats (every bot, the server's and the clients', a line every few seconds), and a
// squad lands for every newcomer. No client shows a chat line without its writer's name,
// or a unit of a seat whose player it does not know: a line waits for its writer's PlayerInfo,
// and a Reinforce for the PlayerInfo of each seat it names, as the message dependency graph
// lets a message wait for another.
func TestNamesComeAfterTheRoster(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 30, Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
	for seed := uint64(61); seed < 61+seedsFor(3); seed++ {
		g := newVGame(t, vspec{seed: seed, bots: 2, clients: 1, link: lossy})
		for range 4 {
			g.run(3 * time.Second)
			g.join(nil)
		}
		for end := g.now.Add(lastsFor(40 * time.Second)); g.now.Before(end); {
			g.run(500 * time.Millisecond)
			for i, c := range g.clients {
				if g.gone[i] || c.w == nil {
					continue
				}
				for _, u := range c.w.Units() {
					if !u.IsEnemy() && c.players[u.Owner].Name == "" {
						t.Fatalf("seed %d: client %d shows unit %d of seat %d, whose player it does not know", seed, i, u.ID, u.Owner)
					}
				}
			}
		}
		res := g.result()
		lines := 0
		for i, r := range res.clients {
			for _, l := range r.Chat.Received {
				lines++
				if l.From == "" {
					t.Errorf("seed %d: client %d received %q with no sender", seed, i, l.Text)
				}
			}
		}
		if lines == 0 {
			t.Errorf("seed %d: no chat line received: the test saw nothing", seed)
		}
	}
}
