package game

import (
	"math"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/transport"
)

// TestLeadForTable: the lead time's arithmetic (lead.go) on the paths a class sees. With re-runs
// (the default) the lead covers the usual delivery; with --late fastforward a late command is
// not run again but fast-forwarded, and makes a drift, so the lead covers the resends that keep
// fewer than 1% of the commands late, as classic lockstep does. Never above a second.
func TestLeadForTable(t *testing.T) {
	const f = 100 * time.Millisecond
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	const rb, ff = LateRollback, LateFastForward
	for _, tt := range []struct {
		name        string
		rtt, jitter time.Duration
		loss        float64
		late        LateMode
		want        uint32
	}{
		{"loopback", 0, 0, 0, rb, 1},
		{"100 ms, clean", ms(100), ms(5), 0, rb, 2},
		{"100 ms, a stray loss", ms(100), ms(5), 0.8, rb, 2},
		{"100 ms, 10% loss: no resend, the late ones are re-run", ms(100), ms(5), 10, rb, 2},
		{"200 ms, 33% (the 10% preset on every process), 22 ms jitter: no resend", ms(200), ms(22), 33, rb, 3},
		{"100 ms, 50% loss: one resend", ms(100), ms(5), 50, rb, 3},
		{"100 ms, all lost: still one resend", ms(100), ms(5), 100, rb, 3},
		{"210 ms, 55% (the 30% preset on every process), 20 ms jitter: one resend", ms(210), ms(20), 55, rb, 5},
		{"300 ms, clean", ms(300), 0, 0, rb, 3},
		{"1.5 s round trip", ms(1500), 0, 0, rb, 9},
		{"10 s: never above a second", 10 * time.Second, 0, 0, rb, 10},
		{"fast-forward, 100 ms, clean", ms(100), ms(5), 0, ff, 2},
		{"fast-forward, 100 ms, 10% loss: one resend", ms(100), ms(5), 10, ff, 3},
		{"fast-forward, 100 ms, 30% loss: three resends", ms(100), ms(5), 30, ff, 5},
		{"fast-forward, 200 ms, 55%: capped at a second", ms(200), ms(20), 55, ff, 10},
	} {
		if got := leadFor(f, tt.rtt, tt.jitter, tt.loss, tt.late); got != tt.want {
			t.Errorf("%s: lead %d frames, want %d", tt.name, got, tt.want)
		}
	}
}

// TestLeadForPathsBoundsOnePath: the lead of the players' paths is the lead of their worst
// figures, but one path raises it by at most outlierLead (300 ms, 3 frames) over the lead of
// all the others: a student who makes the server's measures of their own path look slow (late
// acknowledgements and pongs, datagrams dropped) sets nobody's lead but by that much. A lone
// player's path counts in full; it takes two slow paths to raise the lead further.
func TestLeadForPathsBoundsOnePath(t *testing.T) {
	const f = 100 * time.Millisecond
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	class := pathFigures{rtt: ms(45), jitter: ms(4), loss: 10}      // the class's link: 2 frames
	slider := pathFigures{rtt: ms(245), jitter: ms(4), loss: 10}    // a student's latency slider two steps up: 3 frames
	slow := pathFigures{rtt: ms(3000), jitter: ms(400), loss: 60}   // a path made to look slow: capped at 10
	preset := pathFigures{rtt: ms(210), jitter: ms(20), loss: 55}   // the 30% preset on every process: 5 frames
	lossy := pathFigures{rtt: ms(100), jitter: ms(5), loss: 50}     // 100 ms and one resend: 3 frames
	jittery := pathFigures{rtt: ms(100), jitter: ms(100), loss: 10} // 2 frames of jitter alone: 4 frames
	for _, tt := range []struct {
		name  string
		paths []pathFigures
		want  uint32
	}{
		{"no player", nil, 1},
		{"a lone player on the class's link", []pathFigures{class}, 2},
		{"a lone player whose path looks slow: counts in full", []pathFigures{slow}, 10},
		{"three on the class's link", []pathFigures{class, class, class}, 2},
		{"a student's slider two steps up: the lead follows", []pathFigures{class, class, slider}, 3},
		{"the whole class at the 30% preset", []pathFigures{preset, preset, preset}, 5},
		{"one path made to look slow: 3 frames above the others at most", []pathFigures{class, slow, class}, 5},
		{"one slow path among players at the preset: capped at the maximum", []pathFigures{preset, slow, preset}, 8},
		{"two slow paths: the lead follows them", []pathFigures{class, slow, slow}, 10},
		{"the worst figures of several paths, figure by figure", []pathFigures{lossy, jittery, class}, 5},
	} {
		if got := leadForPaths(f, tt.paths, LateRollback); got != tt.want {
			t.Errorf("%s: lead %d frames, want %d", tt.name, got, tt.want)
		}
	}
}

// TestPathOfReportOnlyLowers: a client's PingSummary may lower what the server measured of its
// path, never raise it: a report of a 4 s round trip and 50% loss leaves the server's own
// figures as they are.
func TestPathOfReportOnlyLowers(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	measured := transport.PeerStats{RTT: ms(40), Jitter: ms(3), LossPercent: 12,
		Message: message.Stats{ResendDelay: ms(150), Packet: packet.Stats{LossSamples: minLossSamples}}}
	own := pathFigures{rtt: ms(40), jitter: ms(3), resend: ms(150), loss: 12}
	for _, tt := range []struct {
		name   string
		report pingReport
		want   pathFigures
	}{
		{"no report", pingReport{}, own},
		{"a report of a worse path", pingReport{rtt: 4 * time.Second, loss: 500, got: true}, own},
		{"a report of a better path", pingReport{rtt: ms(30), loss: 20, got: true}, pathFigures{rtt: ms(30), jitter: ms(3), resend: ms(150), loss: 2}},
		{"a report without pings yet", pingReport{rtt: 0, loss: 120, got: true}, own},
	} {
		if got := pathOf(measured, tt.report, LateRollback); got != tt.want {
			t.Errorf("%s: path %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestPathLossBeforeTheCountIsFull: a path's loss counts in its lead once minLossSamples
// packets were counted. Before that, under rollback, it counts as none (a late command is
// run again); under the fast-forward, as the rule of succession reads the few counted (a late
// command is a drift): a half before any packet, nearer the measure with each one.
func TestPathLossBeforeTheCountIsFull(t *testing.T) {
	const rb, ff = LateRollback, LateFastForward
	for _, tt := range []struct {
		name    string
		percent float64
		samples int
		late    LateMode
		want    float64
	}{
		{"nothing counted, rollback", 0, 0, rb, 0},
		{"nothing counted, fast-forward", 0, 0, ff, 50},
		{"12 counted, none lost", 0, 12, ff, 100.0 / 14},
		{"12 counted, 6 lost", 50, 12, ff, 50},
		{"98 counted, 49 lost, rollback", 50, 98, rb, 0},
		{"98 counted, 49 lost", 50, 98, ff, 50},
		{"98 counted, none lost", 0, 98, ff, 1},
		{"the count full: the measure", 12, minLossSamples, ff, 12},
		{"the count full, rollback: the measure", 12, minLossSamples, rb, 12},
	} {
		if got := pathLoss(tt.percent, tt.samples, tt.late); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %.3f%%, want %.3f%%", tt.name, got, tt.want)
		}
	}
	// What it does to the lead of the class's 30% preset (a 60 ms round trip): before the
	// count is full, the fast-forward's lead covers the resends of a path that may lose half.
	early := leadFor(DefaultFrame, 60*time.Millisecond, 5*time.Millisecond, pathLoss(0, 0, ff), ff)
	measured := leadFor(DefaultFrame, 60*time.Millisecond, 5*time.Millisecond, pathLoss(30, minLossSamples, ff), ff)
	if early <= measured {
		t.Errorf("lead %d frames before the loss is counted, %d after: want longer before", early, measured)
	}
}

// TestLeadTimeKeepsCommandsOnTime: over 30 s of a game with bots playing to the end, the
// lead the server chose leaves fewer than 1% of the commands late on every host, with at most
// 250 ms of lead on a clean link of 100 ms round trip.
func TestLeadTimeKeepsCommandsOnTime(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		loss    float64
		jitter  time.Duration
		maxLate float64 // percent
		maxLead time.Duration
	}{
		{"clean, 100 ms round trip", 0, 0, 1, 250 * time.Millisecond},
		// ±10 ms of jitter reorders packets sent close together, and a packet older than the
		// newest one received is dropped: the packet layer measures 2-9% loss on this link.
		{"jitter", 0, 10 * time.Millisecond, 1, 800 * time.Millisecond},
		{"10% loss", 10, 10 * time.Millisecond, 1, time.Second},
		{"30% loss", 30, 10 * time.Millisecond, 1, 1500 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			link := linksim.Settings{LossPercent: tt.loss, Latency: 50 * time.Millisecond, Jitter: tt.jitter}
			g := newVGame(t, vspec{seed: 7, bots: 2, clients: 3, link: link})
			g.run(10 * time.Second) // the lead settles
			var late0, relayed0 uint64
			for _, c := range g.clients {
				late0 += c.stats.CommandsLate
			}
			relayed0 = g.srv.stats.CommandsRelayed
			maxLead := g.srv.lead.cur
			g.runUntil(g.now.Add(lastsFor(30*time.Second)), func() bool { maxLead = max(maxLead, g.srv.lead.cur); return false })
			var late uint64
			for _, c := range g.clients {
				late += c.stats.CommandsLate
			}
			late -= late0
			applied := 3 * (g.srv.stats.CommandsRelayed - relayed0) // every command runs on every client
			pct := 100 * float64(late) / float64(applied)
			lead := time.Duration(maxLead) * g.srv.cfg.Frame
			t.Logf("lead %v (at most), %d of %d commands late on the clients (%.2f%%), re-syncs %d real-time, %d stop-the-world",
				lead, late, applied, pct, g.srv.stats.RealtimeResyncs, g.srv.stats.StopWorldResyncs)
			if pct >= tt.maxLate {
				t.Errorf("%.2f%% of the commands late, want under %g%%", pct, tt.maxLate)
			}
			if lead > tt.maxLead {
				t.Errorf("lead %v, want at most %v", lead, tt.maxLead)
			}
		})
	}
}
