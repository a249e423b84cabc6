package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
	"github.com/ackattack/ackattack/game"
)

var (
	// udpDuration is how long each bot client of BenchmarkLockstepOverRealUDP plays.
	// BENCHMARKS.md's figures come from 60 s, the length of the virtual-time games they are set
	// against.
	udpDuration = flag.Duration("udp.duration", 20*time.Second, "BenchmarkLockstepOverRealUDP: how long the bot clients play in each scenario")
	udpLogs     = flag.String("udp.logs", "", "BenchmarkLockstepOverRealUDP and the measured runs of a class (binClass): copy each run's reports, logs and output into a directory of this one")
	udpMatched  = flag.Bool("udp.matched", false, "BenchmarkLockstepOverRealUDP: also play every scenario with each process at half the link (loss 1-sqrt(1-p), half the latency and jitter), so that each link between two processes is the virtual-time games' link")
)

// udpScenario is one game played by the binaries: a server with two bots and three bot
// clients, every process with the same link flags and --late.
type udpScenario struct {
	name    string
	loss    float64       // --loss of every process, in percent
	latency time.Duration // --latency
	jitter  time.Duration // --jitter
	late    string        // --late
	// kernel, if set, makes the link in the kernel instead (kernelnet_test.go): each process in
	// a network namespace of its own, and no link flag but --latency where the kernel cannot
	// delay.
	kernel *kernelLink
	// injectDesync is every client's --inject-desync (0: none).
	injectDesync time.Duration

	// minAgreement is the share of the settled frames, over all clients, where a client's
	// world must equal the server's; 0 asserts nothing. Only what holds over real UDP on a
	// loaded machine (go test -race ./... on two cores) is asserted; every other figure is
	// logged, for BENCHMARKS.md.
	minAgreement float64
	// clientsMayDrop: a client may end in error, and then nothing is asserted but that the
	// server and the other clients ended cleanly. At 51% loss each way (--loss 30 on both
	// ends) a client's handshake, two round trips, sometimes gets no answer within its 5 s,
	// now and then all three clients' at once, and a connection now and then loses a message
	// and all its resends for 5 s, the resend limit.
	clientsMayDrop bool
}

// linkText is the scenario's link, as its flags give it.
func (sc udpScenario) linkText() string {
	var s string
	if sc.kernel != nil {
		s = fmt.Sprintf("the kernel: %.0f%% and %v each way of every process; ", sc.kernel.loss, sc.kernel.delay)
	} else {
		s = fmt.Sprintf("--loss %.2f --latency %v --jitter %v ", sc.loss, sc.latency, sc.jitter)
	}
	if sc.injectDesync > 0 {
		s += fmt.Sprintf("--inject-desync %v ", sc.injectDesync)
	}
	return s + "--late " + sc.late
}

// udpResult is what the four --stats reports say about a scenario.
type udpResult struct {
	server         game.Report
	clients        []game.Report   // the clients that played (whose world stepped)
	dropped        []string        // the clients that ended in error
	agreed, common []int           // per client that played: settled frames in common with the server, and equal there
	allAgreed, all int             // the same over all clients
	cpu            []time.Duration // CPU time (user + system) of the server and each client

	// everyAgreed of every frames: the frames that every host that played holds in its report
	// and that are older than the newest udpSettled of the earliest host's last frame, and
	// those where every client's world hash is the server's.
	everyAgreed, every int
	leads              []int64        // the lead of every client's status lines after its first udpWarmUp of them, ms
	slowest            int            // the fewest frames any client ran between two of those status lines (-1: none)
	desyncs            []desyncTiming // every corruption --inject-desync made, and what came of it
	kernelNetem        bool           // a kernel link: the kernel delayed the datagrams too
}

// The figures BENCHMARKS.md ("Orders within a lead the class can see") reads from a game.
const (
	// udpSettled: a frame has settled, for every host agreeing, once it is older than the
	// newest this many frames of the host that stopped first.
	udpSettled = 30
	// udpWarmUp: the status lines (one a second) of a client's first seconds, left out of the
	// lead's figures: the server has measured too little of the links to set it yet.
	udpWarmUp = 10
)

// lateRerun and lateForwarded sum the clients' late events run again exactly and
// fast-forwarded (beyond the re-run window, or with --late fastforward).
func (r udpResult) lateRerun() (n uint64) {
	for _, c := range r.clients {
		n += c.Sync.LateRerun
	}
	return n
}

func (r udpResult) lateForwarded() (n uint64) {
	for _, c := range r.clients {
		n += c.Sync.LateBeyondWindow
	}
	return n
}

// longestPause is the longest stop-the-world pause of any host, in ms (0: none).
func (r udpResult) longestPause() int64 {
	var longest int64
	for _, rep := range append([]game.Report{r.server}, r.clients...) {
		for _, p := range rep.Sync.PauseMillis {
			longest = max(longest, p)
		}
	}
	return longest
}

// emptySenders counts the chat lines, in every client's report, whose sender has no name.
func (r udpResult) emptySenders() (n int) {
	for _, c := range r.clients {
		for _, l := range c.Chat.Received {
			if l.From == "" {
				n++
			}
		}
	}
	return n
}

func (r udpResult) everyShare() float64 {
	if r.every == 0 {
		return 0
	}
	return float64(r.everyAgreed) / float64(r.every)
}

func (r udpResult) share() float64 {
	if r.all == 0 {
		return 0
	}
	return float64(r.allAgreed) / float64(r.all)
}

// BenchmarkLockstepOverRealUDP plays the virtual-time end-to-end games (game/e2e_test.go,
// game/resim_test.go) with the binaries over loopback UDP: a server with two bots and three
// bot clients, each process with the same --loss, --latency 50ms, --jitter 10ms and --late,
// and reads what their --stats reports say: how often the clients' worlds equal the server's
// at the settled frames, the re-syncs and pauses, the late commands and the resends.
//
// Each process conditions its own socket in both directions, so a datagram between two
// processes passes two conditioners: --loss 10 loses 19% of the datagrams on each link
// (1 − 0.9²), --loss 30 loses 51%, and the one-way latency is 100 ms give or take 20 ms.
// The virtual games lose 10% or 30% once, 50 ms ± 10 ms. -udp.matched also plays each
// scenario at half the link per process (--loss 5.13 or 16.33, 25 ms ± 5 ms), which gives
// each link the virtual games' loss and latency.
//
// Two more scenarios: kernel12_rollback makes the link in the kernel instead of the binaries'
// conditioner (kernelnet_test.go: each process in a network namespace of its own, 12% of its
// datagrams dropped on the way out and 12% on the way in, 40 ms each way; it needs root, and
// skips with the reason when it cannot make the namespaces), and loss10_desync is
// loss10_rollback with --inject-desync 7s on every client.
//
// It is a measured run on the wall clock, not part of the suite: the scenarios play one after
// the other, -udp.duration each (20 s by default), and it asserts only what holds on a loaded
// machine: that the processes end cleanly (at --loss 30 a client may fail to join or drop)
// and that at --loss 10 with re-runs the worlds agree at 95% of the settled frames. Each
// scenario reports the share of settled frames where a client's world equals the server's
// (agree%, per client, frames 40 older than the last) and where every host's does
// (every-agree%, frames 30 older than the last), the server's re-syncs (realtime, stopworld),
// the clients that ended early (dropped), the lead in the clients' status lines after their
// first 10 s (lead-p50-ms, lead-p95-ms, lead-max-ms), the late events the clients ran again
// (rerun) and fast-forwarded (forwarded), the longest pause of any host (pause-max-ms), the
// chat lines whose sender had no name (empty-senders), and with --inject-desync how long the
// server took to find a corruption (found-p95-ms, from the client's log line to the server's
// "hash mismatch") and the repair to reach the client after that (repaired-p95-ms). A game has
// 15 corruptions at -udp.duration=40s, so its p95 is its slowest: -benchtime 5x plays each
// scenario five times, and those two figures pool every game's corruptions (the other figures
// are the last game's).
// BENCHMARKS.md ("Lockstep over real UDP, from the binaries", "Orders within a lead the
// class can see, from the binaries") has the figures, from
//
//	go test ./cmd/server -run '^$' -bench LockstepOverRealUDP -v -timeout 20m -udp.duration=60s -udp.matched
//	go test ./cmd/server -run '^$' -bench LockstepOverRealUDP -v -timeout 20m -udp.duration=40s
//	go test ./cmd/server -run '^$' -bench 'LockstepOverRealUDP/loss10_desync$' -benchtime 5x -v -timeout 30m -udp.duration=40s
func BenchmarkLockstepOverRealUDP(b *testing.B) {
	server := tmuxtest.Build(b, "server")
	client := tmuxtest.BuildPackage(b, "client", "github.com/ackattack/ackattack/cmd/client")
	const latency, jitter = 50 * time.Millisecond, 10 * time.Millisecond
	scenarios := []udpScenario{
		{name: "loss10_rollback", loss: 10, latency: latency, jitter: jitter, late: "rollback", minAgreement: 0.95},
		{name: "loss30_rollback", loss: 30, latency: latency, jitter: jitter, late: "rollback", clientsMayDrop: true},
		{name: "loss10_fastforward", loss: 10, latency: latency, jitter: jitter, late: "fastforward"},
		{name: "kernel12_rollback", kernel: &kernelLink{loss: 12, delay: 40 * time.Millisecond}, late: "rollback"},
		{name: "loss10_desync", loss: 10, latency: latency, jitter: jitter, late: "rollback", injectDesync: 7 * time.Second},
	}
	if *udpMatched {
		for _, sc := range scenarios[:3] {
			sc.name += "_matched"
			sc.loss = 100 * (1 - math.Sqrt(1-sc.loss/100))
			sc.latency, sc.jitter = sc.latency/2, sc.jitter/2
			scenarios = append(scenarios, sc)
		}
	}
	for _, sc := range scenarios {
		b.Run(sc.name, func(b *testing.B) {
			var res udpResult
			var desyncs []desyncTiming // every game's: with -benchtime Nx the times pool N games' corruptions
			for b.Loop() {
				res = startUDPGame(b, server, client, sc, *udpDuration).wait(b)
				desyncs = append(desyncs, res.desyncs...)
			}
			if len(res.clients) > 0 {
				logUDPResult(b, sc, res)
			}
			if earlier := desyncs[:len(desyncs)-len(res.desyncs)]; len(earlier) > 0 {
				b.Logf("the corruptions of the games before the last (%d):", b.N-1)
				logDesyncLines(b, earlier)
				b.Logf("the corruptions of all %d games:", b.N)
				summarizeDesyncs(b, desyncs)
			}
			b.ReportMetric(100*res.share(), "agree%")
			b.ReportMetric(float64(res.server.Sync.RealtimeResyncs), "realtime")
			b.ReportMetric(float64(res.server.Sync.StopWorldResyncs), "stopworld")
			b.ReportMetric(float64(len(res.dropped)), "dropped")
			b.ReportMetric(100*res.everyShare(), "every-agree%")
			if len(res.leads) > 0 {
				b.ReportMetric(float64(percentile(res.leads, 0.50)), "lead-p50-ms")
				b.ReportMetric(float64(percentile(res.leads, 0.95)), "lead-p95-ms")
				b.ReportMetric(float64(slices.Max(res.leads)), "lead-max-ms")
			}
			b.ReportMetric(float64(res.lateRerun()), "rerun")
			b.ReportMetric(float64(res.lateForwarded()), "forwarded")
			b.ReportMetric(float64(res.longestPause()), "pause-max-ms")
			b.ReportMetric(float64(res.emptySenders()), "empty-senders")
			if found := foundTimes(desyncs); len(found) > 0 {
				b.ReportMetric(float64(percentile(found, 0.95)), "found-p95-ms")
			}
			if repaired := repairTimes(desyncs); len(repaired) > 0 {
				b.ReportMetric(float64(percentile(repaired, 0.95)), "repaired-p95-ms")
			}
			if res.all == 0 {
				if sc.clientsMayDrop && len(res.dropped) > 0 {
					b.Logf("%s: clients %v ended early, and no settled frame is left to compare", sc.name, res.dropped)
					return
				}
				b.Fatalf("no settled frame in common between the clients and the server")
			}
			if sc.minAgreement > 0 && res.share() < sc.minAgreement {
				b.Errorf("worlds agree at %d of %d settled frames (%.1f%%), want at least %.0f%%", res.allAgreed, res.all, 100*res.share(), 100*sc.minAgreement)
			}
		})
	}
}

// udpGame is one scenario's game while it runs: its four processes and their files.
type udpGame struct {
	sc     udpScenario
	dir    string
	ctx    context.Context
	cancel context.CancelFunc
	hosts  []*udpHost
	// kernelNetem: the scenario's kernel link delays the datagrams in the kernel too.
	kernelNetem bool
}

// startUDPGame starts one scenario: the server on a free loopback port, then the three
// clients, the clients for d and the server udpServerExtra longer.
func startUDPGame(t testing.TB, serverBin, clientBin string, sc udpScenario, d time.Duration) *udpGame {
	t.Helper()
	g := &udpGame{sc: sc, dir: t.TempDir()}
	// A process that outlives its --duration by this much is stuck: it is killed, and fails.
	g.ctx, g.cancel = context.WithTimeout(context.Background(), d+udpServerExtra+time.Minute)
	t.Cleanup(g.cancel)
	link := []string{"--loss", strconv.FormatFloat(sc.loss, 'f', 2, 64), "--latency", sc.latency.String(), "--jitter", sc.jitter.String(), "--late", sc.late}
	command := func(_ int, bin string, args ...string) (string, []string) { return bin, args }
	addr := ""
	if sc.kernel != nil {
		k := newKernelNet(t, 4, *sc.kernel)
		g.kernelNetem = k.netem
		link = []string{"--late", sc.late}
		if !k.netem {
			link = append(link, "--latency", sc.kernel.delay.String())
		}
		command, addr = k.command, kernelNetAddr(0)+":7777"
	} else {
		addr = freeUDPAddr(t)
	}
	start := func(name, bin string, args ...string) {
		bin, args = command(len(g.hosts), bin, append(args, link...)...)
		g.hosts = append(g.hosts, startHost(t, g.ctx, g.dir, name, bin, args...))
	}
	start("server", serverBin, "--listen", addr, "--bots", "2", "--min-players", "3", "--duration", (d + udpServerExtra).String())
	for i := 1; i <= 3; i++ {
		name := "c" + strconv.Itoa(i)
		args := []string{"--connect", addr, "--bot", "--name", name, "--seed", strconv.Itoa(i), "--duration", d.String()}
		if sc.injectDesync > 0 {
			args = append(args, "--inject-desync", sc.injectDesync.String())
		}
		start(name, clientBin, args...) // not --quiet: its status lines say the lead once a second
	}
	return g
}

// wait waits for the game's processes and returns what their reports say. The server must
// end cleanly and write its report; so must every client, unless the scenario lets clients
// drop. When t fails, it logs every process's output and log.
func (g *udpGame) wait(t testing.TB) udpResult {
	t.Helper()
	// Named as the game starts, not at the cleanup: with -benchtime Nx every game's cleanup
	// runs at the end of the benchmark, and the names would be the same.
	kept := filepath.Join(*udpLogs, g.sc.name+"-"+time.Now().Format("150405"))
	t.Cleanup(func() {
		if *udpLogs != "" {
			keepUDPFiles(t, g.dir, kept)
		}
		if t.Failed() {
			logHosts(t, g.hosts)
		}
	})
	var res udpResult
	errs := make([]error, len(g.hosts))
	for i, h := range g.hosts {
		errs[i] = h.wait()
		if ps := h.cmd.ProcessState; ps != nil {
			res.cpu = append(res.cpu, ps.UserTime()+ps.SystemTime())
		}
	}
	for i, h := range g.hosts {
		err := errs[i]
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && i > 0 && g.sc.clientsMayDrop && g.ctx.Err() == nil:
			out, _ := os.ReadFile(h.out)
			t.Logf("%s ended early, exit code %d: %s", h.name, ee.ExitCode(), out)
			res.dropped = append(res.dropped, h.name)
		case err != nil:
			t.Fatalf("%s: %v", h.name, err)
		}
		r, err := readReport(h.stats)
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		switch {
		case i == 0:
			res.server = r
		case r.Frame > 0:
			res.clients = append(res.clients, r)
		case !slices.Contains(res.dropped, h.name):
			t.Fatalf("%s ended cleanly but never played: its world never stepped", h.name)
		}
	}

	s := res.server
	for _, c := range res.clients {
		agreed, common := agreement(s, c)
		res.agreed, res.common = append(res.agreed, agreed), append(res.common, common)
		res.allAgreed, res.all = res.allAgreed+agreed, res.all+common
	}
	res.everyAgreed, res.every = everyAgrees(s, res.clients, udpSettled)
	res.kernelNetem = g.kernelNetem
	res.slowest = -1
	for _, h := range g.hosts[1:] {
		leads, slowest, err := readStatusLines(h.out, udpWarmUp)
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		res.leads = append(res.leads, leads...)
		if slowest >= 0 && (res.slowest < 0 || slowest < res.slowest) {
			res.slowest = slowest
		}
	}
	if g.sc.injectDesync > 0 {
		var err error
		if res.desyncs, err = desyncTimings(g.hosts); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// keepUDPFiles copies the files of dir into a new directory to (-udp.logs).
func keepUDPFiles(t testing.TB, dir, to string) {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err == nil {
		err = os.MkdirAll(to, 0o755)
	}
	for _, f := range files {
		if err != nil {
			break
		}
		var b []byte
		if b, err = os.ReadFile(filepath.Join(dir, f.Name())); err == nil {
			err = os.WriteFile(filepath.Join(to, f.Name()), b, 0o644)
		}
	}
	if err != nil {
		t.Errorf("-udp.logs: %v", err)
	}
}

// logUDPResult logs a scenario's figures: one line per client, one for the server, and a
// summary with the figures BENCHMARKS.md sets against the virtual-time games'.
func logUDPResult(t testing.TB, sc udpScenario, res udpResult) {
	t.Helper()
	var late, resent, sent, vain uint64
	for i, c := range res.clients {
		t.Logf("%s: frame %d, world equal to the server's at %d of %d settled frames; %d commands late beyond the re-run window, %d re-runs (%d frames, latest %d frames late); pauses %v ms; lead %d ms; to the server: rtt %.0f ms, loss %.1f%%, %d guaranteed messages sent, %d resent, %d of them in vain",
			c.Name, c.Frame, res.agreed[i], res.common[i], c.Game.CommandsLate, c.Sync.Resimulations, c.Sync.FramesRerun, c.Sync.MaxLateFrames,
			c.Sync.PauseMillis, c.Game.LeadTimeMillis, c.Net.RTTMillis, c.Net.LossPercent, c.Net.GuaranteedSent, c.Net.GuaranteedResent, c.Net.SpuriousResends)
		late += c.Game.CommandsLate
		sent += c.Net.GuaranteedSent
		resent += c.Net.GuaranteedResent
		vain += c.Net.SpuriousResends
	}
	s := res.server
	t.Logf("server: frame %d, %d lead time changes, %d commands relayed, %d late beyond the window, %d re-runs; re-syncs %d real-time, %d stop-the-world, pauses %v ms",
		s.Frame, s.Game.LeadTimeChanges, s.Game.CommandsIssued, s.Game.CommandsLate, s.Sync.Resimulations,
		s.Sync.RealtimeResyncs, s.Sync.StopWorldResyncs, s.Sync.PauseMillis)
	t.Logf("CPU time of the server and the clients: %v", res.cpu)
	if len(res.leads) > 0 {
		t.Logf("lead in the clients' status lines after their first %d s: p50 %d ms, p95 %d ms, max %d ms (%d lines); the slowest second ran %d frames",
			udpWarmUp, percentile(res.leads, 0.50), percentile(res.leads, 0.95), slices.Max(res.leads), len(res.leads), res.slowest)
	}
	t.Logf("every host agrees at %d of %d settled frames (older than the newest %d); late events run again %d, fast-forwarded %d (the clients); longest pause %d ms; chat lines with an empty sender %d; clients that played %d of 3",
		res.everyAgreed, res.every, udpSettled, res.lateRerun(), res.lateForwarded(), res.longestPause(), res.emptySenders(), len(res.clients))
	if sc.kernel != nil {
		how := "the kernel drops (iptables' statistic match) and the processes' --latency delays: this kernel has no netem"
		if res.kernelNetem {
			how = "netem drops and delays"
		}
		t.Logf("kernel link: %.0f%% and %v on the way out of every namespace and on the way in; %s", sc.kernel.loss, sc.kernel.delay, how)
	}
	logDesyncs(t, res.desyncs)
	t.Logf("%s (%s): worlds agree at %d of %d settled frames (%.1f%%); re-syncs %d real-time, %d stop-the-world; server pauses %v ms; %d commands late beyond the window on the clients; the clients resent %d of %d guaranteed messages to the server, %d in vain; clients that ended early: %v",
		sc.name, sc.linkText(), res.allAgreed, res.all, 100*res.share(), s.Sync.RealtimeResyncs, s.Sync.StopWorldResyncs,
		s.Sync.PauseMillis, late, resent, sent, vain, res.dropped)
}
