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

// TestInjectedDesyncsAtTheClassPreset: at the class's 10% preset on every process, three
// clients each corrupt one of their units every 7 s (--inject-desync 7s) for a minute: the
// server finds every drift, names it and repairs it in real time, and the hosts agree on at
// least half the settled frames. The times it takes are logged (BENCHMARKS.md): a report goes
// once a second, a third of them are lost on this link, and a report describes a frame that has
// settled (as late as the latest late event of the last 30 s, about 0.9 s here), so a drift is
// found 1 to 3 s after the corruption; the repair then lands a round trip and a frame after the
// report is checked, more when the drill-down is lost. Played in full only.
func TestInjectedDesyncsAtTheClassPreset(t *testing.T) {
	onlyInFull(t)
	t.Parallel()
	link := everyProcess(10, 50*time.Millisecond, 10*time.Millisecond)
	g, w := newDesyncGame(t, vspec{seed: 27, link: link, client: func(i int, c *ClientConfig) { c.InjectDesync = 7 * time.Second }})
	w.run(60 * time.Second)
	var found, repaired []time.Duration
	missed := 0
	for _, inj := range w.injections {
		// The first check of the seat's reports after the corruption found it; the first of
		// them that decided a repair (a drill-down whose answer came too late is asked again
		// at the next report) repaired it.
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
				missed++ // old enough to have been found and repaired
			}
			continue
		}
		found = append(found, first.opened.Sub(inj.at))
		// The repair lands at frame At on every host: after the decision, At - decidedFrame
		// frames of the server's.
		landed := fix.decided.Add(time.Duration(fix.rec.At-fix.decidedFrame) * DefaultFrame)
		repaired = append(repaired, landed.Sub(first.opened))
	}
	res := g.result()
	agreed, common := settledAgreement(res)
	slices.Sort(found)
	slices.Sort(repaired)
	p95 := func(d []time.Duration) time.Duration { return d[(len(d)*95+99)/100-1] }
	t.Logf("%d corruptions, %d repaired in real time: found p50 %v p95 %v after the corruption; repaired p50 %v p95 %v after it was found; settled frames agreed %d of %d",
		len(w.injections), len(found), found[len(found)/2], p95(found), repaired[len(repaired)/2], p95(repaired), agreed, common)
	if missed > 0 || len(found) < 6 {
		t.Errorf("%d of %d corruptions not repaired within 5 s", missed, len(w.injections))
	}
	if 100*agreed < 50*common {
		t.Errorf("the hosts agreed on %d of %d settled frames, want half", agreed, common)
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
