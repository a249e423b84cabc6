package game

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// The end-to-end games run in virtual time (vgame_test.go): a server with two bots, three bot
// clients, every link impaired the same way, bots playing and chatting to the last frame. The
// checks compare what has settled: frames old enough that a difference would have been
// reported and repaired, chat lines old enough to have arrived.

// detectionFrames is how long the server may take to notice a difference: hash reports cover
// every group once a second (10 frames), then a drill-down round trip. A difference in the
// last frames of a run may simply not have been reported yet.
const detectionFrames = 30

// checkHashesAfterResync: at every frame both recorded after the server's last re-sync (and
// early enough for a difference to have been detected), every client's world hash equals the
// server's. A difference at such a frame would be a drift the hash checks missed.
func checkHashesAfterResync(t *testing.T, res sessionResult) {
	t.Helper()
	last := res.server.Sync.LastResyncFrame
	for _, r := range res.clients {
		common := 0
		for f, h := range r.WorldHashes {
			n, _ := strconv.Atoi(f)
			sh, ok := res.server.WorldHashes[f]
			if !ok || uint32(n) <= last || uint32(n)+detectionFrames > res.server.Frame {
				continue
			}
			common++
			if sh != h {
				t.Errorf("%s: world hash at frame %s is %s, the server's %s (last re-sync at frame %d)", r.Name, f, h, sh, last)
			}
		}
		if common == 0 {
			t.Errorf("%s: no common frame with the server after the last re-sync (frame %d)", r.Name, last)
		}
	}
}

// checkChat: every line a player sent reached every other client once, in order. Lines sent
// in the last moments may still be on their way, so a received list may lack a short tail.
func checkChat(t *testing.T, res sessionResult) {
	t.Helper()
	sent := map[string][]string{}
	for _, r := range res.clients {
		sent[r.Name] = r.Chat.Sent
	}
	for _, r := range res.clients {
		checkBotsHeard(t, r, res.server.Chat.Sent, 2, true)
		got := map[string][]string{}
		for _, l := range r.Chat.Received {
			got[l.From] = append(got[l.From], l.Text)
		}
		for from, lines := range sent {
			if from == r.Name {
				if len(got[from]) != 0 {
					t.Errorf("%s received its own lines", r.Name)
				}
				continue
			}
			g := got[from]
			if len(g) > len(lines) || len(lines)-len(g) > 2 {
				t.Errorf("%s got %d of %s's %d lines", r.Name, len(g), from, len(lines))
			}
			for i := range g {
				if i < len(lines) && g[i] != lines[i] {
					t.Errorf("%s: line %d from %s is %q, want %q (lost, repeated or out of order)", r.Name, i, from, g[i], lines[i])
					break
				}
			}
		}
		if len(r.Chat.Received) == 0 {
			t.Errorf("%s received no chat", r.Name)
		}
	}
}

// checkBotsHeard: what client r heard from the server's bots (lines marked Bot) against the
// server's report, which lists its bots' lines in the order they said them but not whose
// each is: every bot's lines arrived in that order, none twice, and the latest arrived but
// for a few at the end (missing at most, for each bot). whole: r was there from the start,
// and heard all but those few; otherwise it may have joined late and missed the first.
func checkBotsHeard(t *testing.T, r Report, said []string, missing int, whole bool) {
	t.Helper()
	heard := map[string][]string{}
	for _, l := range r.Chat.Received {
		if l.Bot {
			heard[l.From] = append(heard[l.From], l.Text)
		}
	}
	total, last := 0, 0
	for bot, lines := range heard {
		at, stray := subsequenceEnd(lines, said)
		if stray >= 0 {
			t.Errorf("%s heard %q from %s out of order, twice, or never said", r.Name, lines[stray], bot)
		}
		total, last = total+len(lines), max(last, at)
	}
	slack := missing * max(len(heard), 1)
	switch {
	case total > len(said) || whole && len(said)-total > slack:
		t.Errorf("%s heard %d of the %d lines the server's bots said", r.Name, total, len(said))
	case len(said)-last > slack:
		t.Errorf("%s heard the server's bots up to their line %d of %d", r.Name, last, len(said))
	}
}

// subsequenceEnd finds got in said, in order (what a chat chain delivers of what was said):
// it returns the index in said after got's last line, and the first line of got not found
// after those before it (-1: none).
func subsequenceEnd(got, said []string) (end, stray int) {
	for i, text := range got {
		j := slices.Index(said[end:], text)
		if j < 0 {
			return end, i
		}
		end += j + 1
	}
	return end, -1
}

// checkKillsAfterSpawns: on every host, every executed kill comes after the spawn of its enemy.
func checkKillsAfterSpawns(t *testing.T, res sessionResult) {
	t.Helper()
	for i, tr := range res.traces {
		spawned := map[uint32]bool{}
		kills := 0
		sc := bufio.NewScanner(bytes.NewReader(tr.Bytes()))
		for sc.Scan() {
			var l traceLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("trace %d: %v: %s", i, err, sc.Text())
			}
			switch l.Type {
			case "SpawnEnemy":
				spawned[*l.ID] = true
			case "KillEnemy":
				kills++
				if !spawned[*l.ID] {
					t.Errorf("trace %d: kill of enemy %d executed before its spawn", i, *l.ID)
				}
			}
		}
		if i < len(res.traces)-1 && len(spawned) == 0 {
			t.Errorf("client trace %d: no spawn executed", i)
		}
	}
}

func logReports(t *testing.T, res sessionResult) {
	t.Logf("server: frame %d, sync %+v, game %+v", res.server.Frame, res.server.Sync, res.server.Game)
	for _, r := range res.clients {
		t.Logf("%s: frame %d, sync %+v, game %+v, net rtt %.0f ms loss %.1f%%, chat sent %d received %d",
			r.Name, r.Frame, r.Sync, r.Game, r.Net.RTTMillis, r.Net.LossPercent, len(r.Chat.Sent), len(r.Chat.Received))
	}
}

// e2eDuration is the length of the end-to-end games: a minute of game time (a few seconds of
// wall time).
const e2eDuration = 60 * time.Second

func TestEndToEndCleanLinkNoMismatch(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 3, bots: 2, clients: 3})
	g.run(e2eDuration)
	// Every client reached every other one directly, over its one socket, and some commands
	// came that way first to every client: on the links it dialled as on those it accepted
	// (regression: the commands on a dialled link were once refused, as the transport names
	// a dialled peer with the dialler's own player id). None was refused.
	for _, c := range g.clients {
		if c.stats.DirectLinks != uint64(len(g.clients)-1) || c.stats.StrayDatagrams != 0 {
			t.Errorf("seat %d: %d direct links (want %d), %d stray datagrams", c.role.seat, c.stats.DirectLinks, len(g.clients)-1, c.stats.StrayDatagrams)
		}
		if c.stats.CommandsDirectFirst == 0 || c.stats.BadMessages != 0 {
			t.Errorf("seat %d: %d commands came over a direct link first, %d messages refused", c.role.seat, c.stats.CommandsDirectFirst, c.stats.BadMessages)
		}
	}
	res := g.result()
	logReports(t, res)
	if s := res.server.Sync; s.MismatchedUnits != 0 || s.RealtimeResyncs != 0 || s.StopWorldResyncs != 0 {
		t.Errorf("mismatches on a clean link: %+v", s)
	}
	checkHashesAfterResync(t, res)
	checkChat(t, res)
	checkKillsAfterSpawns(t, res)
}

// TestEndToEndLossyLink: lockstep under loss on every link, 2 server bots and 3 bot clients
// playing and chatting to the last frame, 50 ms ± 10 ms each way, a minute. At 10% loss every
// client's world equals the server's at 99% of the settled frames and nothing is re-synced;
// at 30%, 95%, and a pause (if any) lasts under a second. The classic fast-forward on the
// 10% link is logged beside them (BENCHMARKS.md). With the fast-forward, seed 32 was the game
// in which a late command left a client's next attack id off the server's for good while
// hash reports covered the units alone (it agreed at none of the settled frames); once they
// covered the world's state too, every client's world agreed at 90% or more. The resends'
// copies of net/message changed the timing, and seed 32 became a game of three stop-the-worlds
// whose clients agree at 85 to 96%; seed 33 is one where the world's state drifts twice and is
// repaired, and every client agrees at 90% or more.
func TestEndToEndLossyLink(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		loss       float64
		late       LateMode
		seed       uint64
		minAgree   int // percent of settled frames, 0: only logged
		noResyncs  bool
		maxPauseMs int64
		// whole: the check needs the whole minute (a drift from the start is a small share
		// of it), so the race detector does not shorten it (lastsFor)
		whole bool
	}{
		{"10% loss", 10, LateRollback, 7, 99, true, 0, false},
		{"30% loss", 30, LateRollback, 7, 95, false, 999, false},
		{"10% loss, fastforward", 10, LateFastForward, 7, 0, false, 0, false},
		{"10% loss, fastforward, a state that drifted", 10, LateFastForward, 33, 90, false, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lossy := linksim.Settings{LossPercent: tt.loss, Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
			g := newVGame(t, vspec{seed: tt.seed, bots: 2, clients: 3, link: lossy,
				server: func(c *ServerConfig) { c.Late = tt.late },
				client: func(_ int, c *ClientConfig) { c.Late = tt.late }})
			d := lastsFor(e2eDuration)
			if tt.whole {
				d = e2eDuration
			}
			repairs := g.runWatchingRepairs(d)
			res := g.result()
			logReports(t, res)
			late := uint64(0)
			for _, r := range res.clients {
				late += r.Game.CommandsLate
			}
			sy := res.server.Sync
			t.Logf("late commands on the clients: %d; server: %d real-time and %d stop-the-world re-syncs, pauses %v ms",
				late, sy.RealtimeResyncs, sy.StopWorldResyncs, sy.PauseMillis)
			agreed, common := checkDriftRepaired(t, g, res, repairs, tt.minAgree, tt.late == LateRollback)
			t.Logf("all clients: worlds agreed with the server's at %d of %d settled frames (%.1f%%)", agreed, common, 100*float64(agreed)/float64(max(common, 1)))
			if tt.noResyncs && sy.RealtimeResyncs+sy.StopWorldResyncs != 0 {
				t.Errorf("%d real-time and %d stop-the-world re-syncs, want none", sy.RealtimeResyncs, sy.StopWorldResyncs)
			}
			for _, ms := range sy.PauseMillis {
				if tt.maxPauseMs > 0 && ms > tt.maxPauseMs {
					t.Errorf("a pause of %d ms, want under %d", ms, tt.maxPauseMs+1)
				}
			}
			checkChat(t, res)
			checkKillsAfterSpawns(t, res)
		})
	}
}

// TestVirtualGameIsRepeatable: the same seed at 10% loss gives the same game twice, byte for
// byte: every host's --stats report and trace.
func TestVirtualGameIsRepeatable(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, DupPercent: 2}
	play := func() (reports [][]byte, traces [][]byte) {
		g := newVGame(t, vspec{seed: 7, bots: 2, clients: 3, link: lossy})
		g.run(lastsFor(30 * time.Second))
		res := g.result()
		for _, r := range append(res.clients, res.server) {
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			reports = append(reports, b)
		}
		for _, tr := range res.traces {
			traces = append(traces, tr.Bytes())
		}
		return reports, traces
	}
	r1, t1 := play()
	r2, t2 := play()
	for i := range r1 {
		if !bytes.Equal(r1[i], r2[i]) {
			t.Errorf("report %d differs between two runs of the same seed:\n%s\n%s", i, r1[i], r2[i])
		}
	}
	for i := range t1 {
		if len(t1[i]) == 0 {
			t.Errorf("trace %d is empty", i)
		}
		if !bytes.Equal(t1[i], t2[i]) {
			t.Errorf("trace %d differs between two runs of the same seed (%d and %d bytes)", i, len(t1[i]), len(t2[i]))
		}
	}
}

// TestSnapshotsCarryTheWorld: the snapshots a user interface reads carry the map's name and
// copies of the units, on the server and on a client.
func TestSnapshotsCarryTheWorld(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{bots: 1, clients: 1})
	g.waitFor(10*time.Second, "both past frame 5", func() bool {
		return g.srv.Snapshot().Frame > 5 && g.clients[0].Snapshot().Frame > 5
	})
	g.run(200 * time.Millisecond) // a fresh snapshot of each
	ss, cl := g.srv.Snapshot(), g.clients[0].Snapshot()
	if len(ss.Units) == 0 || len(cl.Units) == 0 {
		t.Fatalf("snapshots without units: server %d, client %d", len(ss.Units), len(cl.Units))
	}
	if cl.Map != "skirmish" || ss.Map != "skirmish" {
		t.Errorf("maps %q and %q", ss.Map, cl.Map)
	}
}

// repairLog is what the server did about drift during a game: every hash check that found a
// difference (seat and the frame checked) and every stop-the-world pause (its frame).
type repairLog struct {
	checked map[[2]uint32]bool // {seat, frame}
	paused  []uint32
}

// runWatchingRepairs runs the game for d, collecting the server's sync log as it goes (the
// log itself keeps only its latest records).
func (g *vgame) runWatchingRepairs(d time.Duration) repairLog {
	rl := repairLog{checked: map[[2]uint32]bool{}}
	seen := map[uint32]bool{}
	for end := g.now.Add(d); g.now.Before(end); {
		g.run(min(500*time.Millisecond, end.Sub(g.now)))
		for _, r := range g.srv.drift.log.records {
			rl.checked[[2]uint32{uint32(r.Seat), r.Frame}] = true
		}
		for _, p := range g.srv.drift.log.pauses {
			if !seen[p.Frame] {
				seen[p.Frame] = true
				rl.paused = append(rl.paused, p.Frame)
			}
		}
	}
	return rl
}

// checkDriftRepaired: at every frame both recorded, old enough for a difference to have been
// reported, a client whose world differs from the server's was caught by the hash checks: the
// server checked that client's report of a frame at or soon after it, or stopped the world
// soon after it. It logs how often the worlds agreed, the figure lockstep under loss is judged
// by, fails a client below minAgree percent (0: no bound), and returns the totals. With
// caught false a difference nothing followed is only counted: under the fast-forward the
// world's random generator and attack list drift too, and no hash report covers them (the
// units they make differ are caught when they do).
func checkDriftRepaired(t *testing.T, g *vgame, res sessionResult, rl repairLog, minAgree int, caught bool) (agreedAll, commonAll int) {
	t.Helper()
	for i, r := range res.clients {
		seat := uint32(g.clients[i].role.seat)
		common, agreed := 0, 0
		for f, h := range r.WorldHashes {
			n, _ := strconv.Atoi(f)
			frame := uint32(n)
			sh, ok := res.server.WorldHashes[f]
			if !ok || frame+detectionFrames > res.server.Frame {
				continue
			}
			common++
			if sh == h {
				agreed++
				continue
			}
			found := false
			for c := frame; c <= frame+detectionFrames && !found; c++ {
				found = rl.checked[[2]uint32{seat, c}]
			}
			for _, p := range rl.paused {
				found = found || (p >= frame && p <= frame+detectionFrames+2*maxLeadFrames)
			}
			if !found && caught {
				t.Errorf("%s: world hash at frame %d differs from the server's, and no hash check or pause followed", r.Name, frame)
			}
		}
		if common == 0 {
			t.Errorf("%s: no settled frame in common with the server", r.Name)
		}
		t.Logf("%s: its world agreed with the server's at %d of %d settled frames", r.Name, agreed, common)
		if 100*agreed < minAgree*common {
			t.Errorf("%s: its world agreed with the server's at only %d of %d settled frames (want %d%%)", r.Name, agreed, common, minAgree)
		}
		agreedAll += agreed
		commonAll += common
	}
	return agreedAll, commonAll
}

// TestPingsOnlyWhenIdle: in play, neither the server nor a player pings: the acknowledgements
// of what each sends measure the round trip (the lead reads it, lead.go), and a ping and its
// answer would be two more datagrams a second each way on every player's link. Each side
// skips its ping when acks gave a sample since the last was due. Before, the server and each
// client pinged once a second whatever they carried: 40 pings in these 10 s.
func TestPingsOnlyWhenIdle(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 5, bots: 1, clients: 2, link: linksim.Settings{Latency: 50 * time.Millisecond, LossPercent: 10}})
	g.run(5 * time.Second)
	pings := func() (sent, skipped uint64) {
		for _, p := range g.srv.tr.Peers() {
			st := p.Stats()
			sent, skipped = sent+st.PingsSent, skipped+st.PingsSkipped
		}
		for _, c := range g.clients {
			st := c.tr.Peer().Stats()
			sent, skipped = sent+st.PingsSent, skipped+st.PingsSkipped
		}
		return sent, skipped
	}
	sent0, skipped0 := pings()
	g.run(10 * time.Second)
	sent, skipped := pings()
	if sent-sent0 > 4 || skipped-skipped0 < 30 {
		t.Errorf("in 10 s of play: %d pings sent, %d skipped; want at most 4 sent (acks measure the round trip)", sent-sent0, skipped-skipped0)
	}
	if g.srv.lead.cur != 2 { // ceil((100 ms / 2 + 100 ms + 2 × jitter) / 100 ms)
		t.Errorf("lead %d frames on a 100 ms round trip at 10%% loss, want 2", g.srv.lead.cur)
	}
}

// TestLeadTimeFollowsTheRoundTrip: the server sets the command lead time from the worst round
// trip its players have (lead.go: half of it, a frame and the jitter, whole frames), from the
// start of the game and as it changes, and every client takes it: at 300 ms of round trip,
// 3 frames.
func TestLeadTimeFollowsTheRoundTrip(t *testing.T) {
	t.Parallel()
	slow := linksim.Settings{Latency: 150 * time.Millisecond}
	g := newVGame(t, vspec{seed: 5, bots: 1, clients: 2, link: slow})
	const want = 3 // ceil(0.75 · 300 ms / 100 ms)
	g.waitFor(20*time.Second, "the lead time to reach 3 frames everywhere", func() bool {
		if g.srv.lead.cur != want {
			return false
		}
		for _, c := range g.clients {
			if c.lead.cur != want {
				return false
			}
		}
		return true
	})
	// Commands issued from now on reach every host in time: none is late.
	late := func() (n uint64) {
		for _, c := range g.clients {
			n += c.stats.CommandsLate
		}
		return n + g.srv.stats.CommandsLate
	}
	before := late()
	g.run(20 * time.Second)
	if n := late() - before; n != 0 {
		t.Errorf("%d commands late on a clean link of 300 ms round trip with the lead at %d frames", n, want)
	}
	if g.srv.lead.cur != want {
		t.Errorf("the lead moved to %d frames on a steady link", g.srv.lead.cur)
	}
}
