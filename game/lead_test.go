package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
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
