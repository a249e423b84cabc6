package game

import (
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// BenchmarkSpectators: what one spectator costs. A class of 8 players (2 of the server's bots,
// 6 bot clients, all playing and chatting) and 32 spectators (every fourth chats), on a clean
// link and at 10% loss on every link, in virtual time; after 10 s for everybody to get the
// world, a window of 60 s of game time. Per spectator: the bytes it received (down) and sent
// (up), as its transport counts them (UDP payloads, as BenchmarkBandwidth counts them), and
// the bytes the server sent it, lost ones included; the players' down beside them; the most
// messages any spectator's connection had unacknowledged or waiting (spectatorBacklog is the
// bound); and, after the window, one stop-the-world: the bytes each spectator was sent while
// it lasted (the paused world comes whole to every spectator).
func BenchmarkSpectators(b *testing.B) {
	for _, tt := range []struct {
		name string
		link linksim.Settings
	}{
		{"clean", linksim.Settings{}},
		{"loss10", lossyClassLink(10)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				benchSpectators(b, tt.link, 60*time.Second)
			}
		})
	}
}

// clientBytes are the bytes a client received from the server and sent it, as its transport
// counts them.
func clientBytes(c *Client) (down, up uint64) {
	if p := c.tr.Peer(); p != nil {
		st := p.Conn().Stats().Packet
		return st.BytesReceived, st.BytesSent
	}
	return 0, 0
}

func benchSpectators(b *testing.B, link linksim.Settings, window time.Duration) {
	cl := newClass(b, 47, link)
	g := cl.vgame
	g.run(10 * time.Second)
	peers := map[*Client]*transport.Peer{}
	for _, c := range cl.spectators {
		peers[c] = g.srv.seats.spectators[c.role.spectate.Number-1].peer
	}
	type counts struct{ down, up, served uint64 }
	take := func(cs []*Client) []counts {
		var out []counts
		for _, c := range cs {
			var n counts
			n.down, n.up = clientBytes(c)
			if p := peers[c]; p != nil {
				n.served = p.Conn().Stats().Packet.BytesSent
			}
			out = append(out, n)
		}
		return out
	}
	spec0, play0, start := take(cl.spectators), take(cl.players), g.now
	backlog := 0
	g.runUntil(g.now.Add(window), func() bool {
		for _, sp := range g.srv.seats.spectators {
			if sp != nil && sp.peer != nil {
				backlog = max(backlog, sp.peer.Conn().Pending()+sp.out.waiting())
			}
		}
		return false
	})
	spec1, play1 := take(cl.spectators), take(cl.players)
	secs := g.now.Sub(start).Seconds()
	rates := func(a, z []counts, f func(counts) uint64) []float64 {
		var out []float64
		for i := range a {
			out = append(out, float64(f(z[i])-f(a[i]))/secs)
		}
		return out
	}
	down := rates(spec0, spec1, func(n counts) uint64 { return n.down })
	up := rates(spec0, spec1, func(n counts) uint64 { return n.up })
	served := rates(spec0, spec1, func(n counts) uint64 { return n.served })
	playersDown := rates(play0, play1, func(n counts) uint64 { return n.down })

	// One stop-the-world: what the paused world costs each spectator.
	before := take(cl.spectators)
	stopAndWait(b, g)
	after := take(cl.spectators)
	var pause []float64
	for i := range before {
		pause = append(pause, float64(after[i].served-before[i].served))
	}
	st := g.srv.stats
	agreeing := 0
	res := g.result()
	for i := range cl.spectators {
		if agreed, common := settledFrames(res.server, res.clients[len(cl.players)+i]); common > 0 && agreed == common {
			agreeing++
		}
	}

	b.ReportMetric(benchMean(down), "spectator-down-B/s")
	b.ReportMetric(slices.Max(down), "spectator-down-max-B/s")
	b.ReportMetric(benchMean(up), "spectator-up-B/s")
	b.ReportMetric(slices.Max(up), "spectator-up-max-B/s")
	b.ReportMetric(benchMean(served), "server-to-spectator-B/s")
	b.ReportMetric(benchMean(playersDown), "player-down-B/s")
	b.ReportMetric(float64(backlog), "max-backlog-msgs")
	b.ReportMetric(benchMean(pause), "pause-B/spectator")
	b.Logf("%d spectators over %.0f s: down %.0f B/s (max %.0f), up %.0f B/s (max %.0f), the server sent each %.0f B/s; players down %.0f B/s; backlog at most %d messages (bound %d); a pause sent each spectator %.0f B (max %.0f)",
		len(cl.spectators), secs, benchMean(down), slices.Max(down), benchMean(up), slices.Max(up), benchMean(served),
		benchMean(playersDown), backlog, spectatorBacklog, benchMean(pause), slices.Max(pause))
	b.Logf("server: %d spectator lines relayed, %d reports, %d drifts, %d copies of the world, %d spectators dropped; %d of %d spectators agree with the server at every settled frame",
		st.SpectatorChat, st.SpectatorHashReports, st.SpectatorDrifts, st.SpectatorResyncs, st.SpectatorsDropped, agreeing, len(cl.spectators))
}
