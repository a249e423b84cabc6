package game

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// everyProcess is the link between two hosts when every process puts the same conditioner on
// its own socket, both ways, as the binaries' --loss, --latency and --jitter do: a datagram
// crosses two, so its loss compounds and its latency and jitter add.
func everyProcess(lossPercent float64, latency, jitter time.Duration) linksim.Settings {
	keep := 1 - lossPercent/100
	return linksim.Settings{LossPercent: 100 * (1 - keep*keep), Latency: 2 * latency, Jitter: 2 * jitter}
}

// presetRun is what a class preset did to a game: the lead the clients ran with (sampled once a
// second after the first 10 s), how many settled frames every host agreed on, the late events
// the clients re-ran and the ones they fast-forwarded, and the longest pause.
type presetRun struct {
	leads              []time.Duration
	agreed, common     int
	rerun, beyond      uint64
	commands           uint64
	longestPause       time.Duration
	everyClientRunning bool
}

func (r presetRun) leadP95() time.Duration {
	s := slices.Clone(r.leads)
	slices.Sort(s)
	return s[(len(s)*95+99)/100-1]
}

// playPreset plays a minute of the game a class plays at a preset: the server's two bots and
// three bot clients, every link as link, the bots playing to the last frame.
func playPreset(t *testing.T, seed uint64, link linksim.Settings) presetRun {
	t.Helper()
	g := newVGame(t, vspec{seed: seed, bots: 2, clients: 3, link: link})
	g.run(10 * time.Second)
	var r presetRun
	for range 50 {
		g.run(time.Second)
		for _, c := range g.clients {
			r.leads = append(r.leads, time.Duration(c.lead.cur)*c.clock.frameDur)
		}
	}
	r.everyClientRunning = true
	for _, c := range g.clients {
		r.everyClientRunning = r.everyClientRunning && clientRunning(c)
		r.rerun += c.drift.rw.stats.LateRerun
		r.beyond += c.drift.rw.stats.LateBeyondWindow
	}
	r.commands = 3 * g.srv.stats.CommandsRelayed // every command reaches every client
	for _, ms := range g.srv.stats.PauseMillis {
		r.longestPause = max(r.longestPause, time.Duration(ms)*time.Millisecond)
	}
	for _, c := range g.clients {
		for _, ms := range c.stats.PauseMillis {
			r.longestPause = max(r.longestPause, time.Duration(ms)*time.Millisecond)
		}
	}
	res := g.result()
	r.agreed, r.common = settledAgreement(res)
	return r
}

// TestClassPresets: the command lead time covers the usual delivery and the re-runs the rest,
// at the presets a class uses, with the same conditioner on every process: orders run within
// 300 ms at 10% loss (and at 12% lost once), within 500 ms at 30% and never after a second,
// and the hosts agree on at least 99% of the settled frames. Played in full only (a minute of
// five hosts, three times).
func TestClassPresets(t *testing.T) {
	onlyInFull(t)
	t.Parallel()
	for _, tt := range []struct {
		name          string
		link          linksim.Settings
		p95, most     time.Duration
		noLongPauses  bool
		everyoneJoins bool
	}{
		{"10% on every process, 50 ± 10 ms", everyProcess(10, 50*time.Millisecond, 10*time.Millisecond), 300 * time.Millisecond, time.Second, false, false},
		{"30% on every process, 50 ± 10 ms", everyProcess(30, 50*time.Millisecond, 10*time.Millisecond), 500 * time.Millisecond, time.Second, true, true},
		{"12% dropped once, 40 ms on every process", linksim.Settings{LossPercent: 12, Latency: 80 * time.Millisecond}, 300 * time.Millisecond, time.Second, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// One seeded game per preset. Not every seed keeps every bound at 30%: of seeds 7 to
			// 18, four or five break one (the lead's p95 above 500 ms, or, at one of them, the
			// hosts agreeing on 27 of 81 settled frames), and which ones moves with any change
			// of timing, such as the handshake's spread retries.
			r := playPreset(t, 8, tt.link)
			t.Logf("lead p95 %v, max %v; settled frames agreed %d of %d; late events re-run %d, fast-forwarded %d, of %d commands applied (%.1f%% re-run); longest pause %v",
				r.leadP95(), slices.Max(r.leads), r.agreed, r.common, r.rerun, r.beyond, r.commands, 100*float64(r.rerun)/float64(max(r.commands, 1)), r.longestPause)
			if p95 := r.leadP95(); p95 > tt.p95 {
				t.Errorf("lead p95 %v, want at most %v", p95, tt.p95)
			}
			if m := slices.Max(r.leads); m > tt.most {
				t.Errorf("lead reached %v, want never above %v", m, tt.most)
			}
			if r.common == 0 || 100*r.agreed < 99*r.common {
				t.Errorf("the hosts agreed on %d of %d settled frames, want 99%%", r.agreed, r.common)
			}
			if tt.everyoneJoins && !r.everyClientRunning {
				t.Error("a client never ran the game")
			}
			if tt.noLongPauses && r.longestPause >= time.Second {
				t.Errorf("a pause of %v, want none of a second or more", r.longestPause)
			}
		})
	}
}

// TestClassPresetAcrossSeeds: the 30% preset on every process holds its bounds in every one of
// twelve seeded games (seeds 7 to 18), not only in TestClassPresets' one: every client joins
// and stays, the lead's p95 is 500 ms at most and it never goes above a second, no event comes
// later than the re-run window, the hosts agree on at least 99% of the settled frames, and no
// host pauses for a second or more. Before, seed 12 lost a client to the resend limit (a
// message whose every try for 5 s was lost) and its hosts agreed on 47 of 81 frames, seed 10
// had a client give up joining, and seed 7's lead was 700 ms at p95 (BENCHMARKS.md, "Orders
// within 300 ms", has the table). Played in full only.
func TestClassPresetAcrossSeeds(t *testing.T) {
	onlyInFull(t)
	t.Parallel()
	link := everyProcess(30, 50*time.Millisecond, 10*time.Millisecond)
	for seed := uint64(7); seed <= 18; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			r := playPreset(t, seed, link)
			t.Logf("seed %d: lead p95 %v, max %v; settled frames agreed %d of %d; late events re-run %d, beyond the window %d; longest pause %v; every client running %v",
				seed, r.leadP95(), slices.Max(r.leads), r.agreed, r.common, r.rerun, r.beyond, r.longestPause, r.everyClientRunning)
			if !r.everyClientRunning {
				t.Error("a client is not running the game")
			}
			if p95, most := r.leadP95(), slices.Max(r.leads); p95 > 500*time.Millisecond || most > time.Second {
				t.Errorf("lead p95 %v, max %v; want at most 500 ms and 1 s", p95, most)
			}
			if r.beyond > 0 {
				t.Errorf("%d events later than the re-run window", r.beyond)
			}
			if r.common == 0 || 100*r.agreed < 99*r.common {
				t.Errorf("the hosts agreed on %d of %d settled frames, want 99%%", r.agreed, r.common)
			}
			if r.longestPause >= time.Second {
				t.Errorf("a pause of %v", r.longestPause)
			}
		})
	}
}

// injectedSeeds is how many seeds TestInjectedDesyncsAtTheClassPreset plays: sixteen
// corruptions each, so that a p95 is not the slowest of one game.
const injectedSeeds = 5

// injectedRun is what a minute of injected desyncs at a preset did: for each corruption
// repaired in real time, how long after it the server found it and how long after that the
// repair landed; the corruptions old enough to have been repaired that were not; the settled
// frames every host agreed on; the server's report (its round trip, its hash checks).
type injectedRun struct {
	found, repaired []time.Duration
	injections      int
	missed          int
	agreed, common  int
	server          Report
	stats           ServerStats
}

func p95(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)*95+99)/100-1]
}

func p50(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// playInjectedDesyncs plays a minute of the class's game on link, three clients each
// corrupting one of their units every 7 s, and measures what the drift checks did.
func playInjectedDesyncs(t *testing.T, seed uint64, link linksim.Settings) injectedRun {
	g, w := newDesyncGame(t, vspec{seed: seed, link: link, client: func(i int, c *ClientConfig) { c.InjectDesync = 7 * time.Second }})
	w.run(60 * time.Second)
	r := injectedRun{injections: len(w.injections)}
	for _, inj := range w.injections {
		// The first check of the seat's reports after the corruption found it; the first of
		// them that decided a repair repaired it.
		var first, fix *desyncCheck
		for _, ch := range w.checks {
			if ch.rec.Seat != inj.seat || ch.rec.Frame < inj.frame {
				continue
			}
			if first == nil {
				first = ch
			}
			if ch.repair() {
				fix = ch
				break
			}
		}
		if fix == nil {
			if inj.at.Add(5 * time.Second).Before(g.now) {
				r.missed++ // old enough to have been found and repaired
			}
			continue
		}
		r.found = append(r.found, first.opened.Sub(inj.at))
		// The repair lands at frame At on every host: when the server runs that frame, At -
		// decidedFrame frames after the one it was to run next.
		landed := fix.decidedNext.Add(time.Duration(fix.rec.At-fix.decidedFrame) * DefaultFrame)
		r.repaired = append(r.repaired, landed.Sub(first.opened))
	}
	res := g.result()
	r.agreed, r.common = settledAgreement(res)
	r.server, r.stats = res.server, g.srv.stats
	return r
}

// TestInjectedDesyncsAtTheClassPreset: at the class's 10% preset on every process (19% lost
// per link, 100 ± 20 ms each way), three clients each corrupt one of their units every 7 s
// (--inject-desync 7s) for a minute, five seeds: the server finds every drift within a second
// of the corruption (p95), repairs it within a round trip of finding it (p95), and the hosts
// agree on at least 70% of the settled frames. A report goes every hashReportEvery frames and
// describes the frame just run: the server compares it as soon as both ran the same inputs
// (the inputs' digest), without waiting for the frame to settle, and the report's locator
// names the unit, so that the repair is decided at once and lands at the next frame but one.
// The times are logged (BENCHMARKS.md). Played in full only.
func TestInjectedDesyncsAtTheClassPreset(t *testing.T) {
	onlyInFull(t)
	t.Parallel()
	link := everyProcess(10, 50*time.Millisecond, 10*time.Millisecond)
	var all injectedRun
	for seed := uint64(27); seed < 27+injectedSeeds; seed++ {
		r := playInjectedDesyncs(t, seed, link)
		st := r.stats
		t.Logf("seed %d: %d corruptions, %d repaired in real time: found p50 %v p95 %v; repaired p50 %v p95 %v after; agreed %d of %d; rtt %.0f ms; reports %d: other inputs %d, awaiting a repair %d, dropped %d; %d units located of %d real-time re-syncs",
			seed, r.injections, len(r.found), p50(r.found), p95(r.found), p50(r.repaired), p95(r.repaired), r.agreed, r.common, r.server.Net.RTTMillis,
			st.HashReports, st.HashReportsOtherInputs, st.HashReportsAwaitingRepair, st.HashReportsDropped, st.UnitsLocated, st.RealtimeResyncs)
		all.found, all.repaired = append(all.found, r.found...), append(all.repaired, r.repaired...)
		all.agreed, all.common, all.missed, all.injections = all.agreed+r.agreed, all.common+r.common, all.missed+r.missed, all.injections+r.injections
	}
	rtt := 2 * link.Latency // the link's round trip, without its jitter
	t.Logf("all %d corruptions: found p50 %v p95 %v; repaired p50 %v p95 %v after; agreed %d of %d settled frames (%.0f%%)",
		all.injections, p50(all.found), p95(all.found), p50(all.repaired), p95(all.repaired), all.agreed, all.common, 100*float64(all.agreed)/float64(all.common))
	if all.missed > 0 {
		t.Errorf("%d of %d corruptions not repaired within 5 s", all.missed, all.injections)
	}
	if d := p95(all.found); d > time.Second {
		t.Errorf("drifts found %v after the corruption (p95), want at most 1 s", d)
	}
	if d := p95(all.repaired); d > rtt {
		t.Errorf("drifts repaired %v after they were found (p95), want at most a round trip, %v", d, rtt)
	}
	if 100*all.agreed < 70*all.common {
		t.Errorf("the hosts agreed on %d of %d settled frames, want 70%%", all.agreed, all.common)
	}
}

// TestLeadFollowsTheClassFromLossToLatency: the class plays at the 30% preset on every process
// (F7), then the teacher moves it to 150 ms of round trip on a clean link (F8, 75 ms each way
// on every process, a round trip of 300 ms between two of them). The lead follows the new path
// without a spike: never above what the new path calls for with one resend (the loss estimate
// of the old link fades), and never above a second.
func TestLeadFollowsTheClassFromLossToLatency(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 9, bots: 2, clients: 3, link: everyProcess(30, 0, 0)})
	g.run(lastsFor(30 * time.Second))
	f8 := everyProcess(0, 75*time.Millisecond, 0)
	names := append([]string{g.srvAddr.String()}, func() (out []string) {
		for _, a := range g.caddrs {
			out = append(out, a.String())
		}
		return out
	}()...)
	for i, a := range names {
		for _, b := range names[i+1:] {
			if err := g.Network().SetLink(a, b, f8, f8); err != nil {
				t.Fatal(err)
			}
		}
	}
	var most time.Duration
	for range 30 {
		g.run(time.Second)
		for _, c := range g.clients {
			most = max(most, time.Duration(c.lead.latestFrames())*c.clock.frameDur)
		}
	}
	settled := time.Duration(g.srv.lead.latestFrames()) * g.srv.cfg.Frame
	// 300 ms of round trip: half of it, a frame, and at most one resend of a round trip,
	// rounded up to whole frames.
	bound := 600 * time.Millisecond
	t.Logf("after the move: lead at most %v, %v at the end", most, settled)
	if most > bound {
		t.Errorf("the lead reached %v after the move, want at most %v", most, bound)
	}
	if settled > 300*time.Millisecond {
		t.Errorf("the lead settled at %v on a clean 300 ms round trip, want 300 ms at most", settled)
	}
}
