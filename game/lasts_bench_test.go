package game

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// A game that lasts: how long a game keeps going, and whether anybody is left without units.
//
// The game of `go run ./cmd/client` with no --connect: an embedded server with two bots, and
// the player, who does nothing at all (the new user, watching). Without
// reinforcements that player's squad fell in under a minute and the bots' soon after. The
// game runs for an hour of game time in virtual time, on a clean link (the embedded game is
// on loopback) and once more at 10% loss; the benchmark watches the server's world at every
// frame: each seat's units, the squads that land, how long a seat goes without units.

// lastsBucket is one slice of the hour: the mean units alive per seat over its frames, and
// the squads that landed in it.
type lastsBucket struct {
	unitFrames [world.MaxPlayers]int
	frames     int
	squads     int
}

// benchGameThatLasts plays it and returns the watch over the whole game, the buckets of every
// bucket of game time, the reports, and the server's reinforcement delay in frames at the end.
func benchGameThatLasts(tb testing.TB, link linksim.Settings, length, bucket time.Duration) (armyWatch, []lastsBucket, sessionResult, uint32) {
	tb.Helper()
	g := newVGame(tb, vspec{seed: 31, bots: 2, clients: 1, link: link,
		server: func(c *ServerConfig) { c.Trace = nil },
		client: func(_ int, c *ClientConfig) { c.Bot, c.Trace = false, nil }, // the player watches
	})
	var watch armyWatch
	var buckets []lastsBucket
	for played := time.Duration(0); played < length; played += bucket {
		var b lastsBucket
		squadsBefore := watch.squads
		g.runUntil(g.now.Add(bucket), func() bool {
			if w := g.srv.w; w != nil && w.Frame() != watch.frame {
				watch.observe(w)
				b.frames++
				for seat := range world.MaxPlayers {
					b.unitFrames[seat] += watch.last[seat]
				}
			}
			return false
		})
		b.squads = watch.squads - squadsBefore
		buckets = append(buckets, b)
	}
	return watch, buckets, g.result(), g.srv.reinforceDelay()
}

// BenchmarkGameThatLasts: an hour of the embedded game (two bots, a player who does nothing),
// on a clean link and at 10% loss. Metrics: squads landed in the hour (squads), new rounds,
// the longest any seat went without units (longest-empty-s), and the fewest units alive on
// average in any ten minutes, over the seats (min-mean-units). The log has the ten-minute
// table.
func BenchmarkGameThatLasts(b *testing.B) {
	for _, tt := range []struct {
		name string
		link linksim.Settings
	}{
		{"clean", linksim.Settings{}},
		{"loss10", linksim.Settings{LossPercent: 10, Latency: 20 * time.Millisecond}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				watch, buckets, res, _ := benchGameThatLasts(b, tt.link, time.Hour, 10*time.Minute)
				benchLogGameThatLasts(b, watch, buckets, res)
			}
		})
	}
}

func benchLogGameThatLasts(b *testing.B, watch armyWatch, buckets []lastsBucket, res sessionResult) {
	const seats = 3 // the two bots and the player
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-8s", "minutes")
	for seat := range seats {
		fmt.Fprintf(&sb, " %8s", fmt.Sprintf("seat %d", seat))
	}
	fmt.Fprintf(&sb, " %7s\n", "squads")
	minMean := 1e9
	for i, bk := range buckets {
		fmt.Fprintf(&sb, "%-8s", fmt.Sprintf("%d-%d", i*10, i*10+10))
		for seat := range seats {
			mean := float64(bk.unitFrames[seat]) / float64(max(bk.frames, 1))
			minMean = min(minMean, mean)
			fmt.Fprintf(&sb, " %8.1f", mean)
		}
		fmt.Fprintf(&sb, " %7d\n", bk.squads)
	}
	longest := uint32(0)
	for _, l := range watch.longest[:seats] {
		longest = max(longest, l)
	}
	b.Logf("mean units alive per seat, and squads landed, by ten minutes of game time:\n%s", sb.String())
	b.Logf("seats emptied %v times; longest without units %v frames; squads announced %d, landed %d; new rounds %d; enemies %d spawned, %d killed; player's client frame %d, squads received %d",
		watch.empties[:seats], watch.longest[:seats], res.server.Game.Reinforcements, watch.squads, res.server.Game.NewRounds,
		res.server.Game.EnemiesSpawned, res.server.Game.EnemiesKilled, res.clients[0].Frame, res.clients[0].Game.Reinforcements)
	b.ReportMetric(float64(watch.squads), "squads")
	b.ReportMetric(float64(res.server.Game.NewRounds), "new-rounds")
	b.ReportMetric(float64(longest)*DefaultFrame.Seconds(), "longest-empty-s")
	b.ReportMetric(minMean, "min-mean-units")
}

// TestHalfAnHourNobodyWaits: half an hour of the embedded game (two bots, a player who does
// nothing) at 10% loss, in virtual time (under a second; a quarter of it under the race
// detector, lastsFor):
// no seat, the idle player's included, goes without units for longer than the reinforcement
// delay, counted to the last frame (a seat still empty at the end counts too).
func TestHalfAnHourNobodyWaits(t *testing.T) {
	t.Parallel()
	length := lastsFor(30 * time.Minute)
	watch, _, res, delay := benchGameThatLasts(t, linksim.Settings{LossPercent: 10, Latency: 20 * time.Millisecond}, length, length)
	const seats = 3 // the two bots and the player
	for seat := range seats {
		longest := watch.longest[seat]
		if watch.emptyAt[seat] != 0 {
			longest = max(longest, watch.frame-watch.emptyAt[seat])
		}
		if longest > delay+1 {
			t.Errorf("seat %d went %d frames without units; the reinforcement delay is %d", seat, longest, delay)
		}
		if !watch.everHeld[seat] {
			t.Errorf("seat %d never had units", seat)
		}
	}
	if want := int(length / (10 * time.Minute)); watch.squads < want {
		t.Errorf("%d squads landed in %v: the armies were hardly reinforced", watch.squads, length)
	}
	t.Logf("%v: squads %d, seats emptied %v times, longest without units %v frames (delay %d); the player's client reached frame %d",
		length, watch.squads, watch.empties[:seats], watch.longest[:seats], delay, res.clients[0].Frame)
}
