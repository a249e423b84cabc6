package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
)

// What the tests that run the binaries share (the smoke test, smoke_test.go, and the measured
// runs, lockstep_udp_test.go and flood_test.go): processes started headless with their
// --stats, --log and output in files, and the reports read back.

// settleFrames: a frame is compared only when it is at least this many frames older than the
// last frame of both hosts. A late event may still rewrite the last 30 frames (the game's
// re-simulation window, game/resim.go), and a difference is reported at the next hash report
// (every 10 frames).
const settleFrames = 30 + 10

// udpHost is one process of a test.
type udpHost struct {
	name, stats, log, out string // its --stats, --log, and standard output and error
	cmd                   *exec.Cmd
	exited                chan struct{} // closed when it has exited, with err
	err                   error         // what cmd.Wait returned
}

// wait waits for the process to exit and returns what cmd.Wait returned.
func (h *udpHost) wait() error {
	<-h.exited
	return h.err
}

// running reports whether the process has not exited yet.
func (h *udpHost) running() bool {
	select {
	case <-h.exited:
		return false
	default:
		return true
	}
}

// startHost starts one process of a test: bin with args and --headless, its --stats, --log
// and standard output and error in files of dir named after it.
func startHost(t testing.TB, ctx context.Context, dir, name, bin string, args ...string) *udpHost {
	t.Helper()
	h := &udpHost{name: name, stats: filepath.Join(dir, name+".json"), log: filepath.Join(dir, name+".log"), out: filepath.Join(dir, name+".out")}
	args = append(args, "--headless", "--stats", h.stats, "--log", h.log, "--log-level", "info")
	h.cmd = exec.CommandContext(ctx, bin, args...)
	out, err := os.Create(h.out)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close() // the process has its own copy
	h.cmd.Stdout, h.cmd.Stderr = out, out
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.exited = make(chan struct{})
	go func() {
		h.err = h.cmd.Wait()
		close(h.exited)
	}()
	return h
}

// logHosts logs every process's output and log, for a test that failed.
func logHosts(t testing.TB, hosts []*udpHost) {
	t.Helper()
	for _, h := range hosts {
		log, _ := os.ReadFile(h.log)
		out, _ := os.ReadFile(h.out)
		t.Logf("%s: standard output and error:\n%s\nlog:\n%s", h.name, out, log)
	}
}

// agreement counts the settled frames whose world hash both the server's and a client's
// report kept (common), and those where they are equal (agreed).
func agreement(server, client game.Report) (agreed, common int) {
	last := min(client.Frame, server.Frame)
	for f, h := range client.WorldHashes {
		n, err := strconv.ParseUint(f, 10, 32)
		sh, ok := server.WorldHashes[f]
		if err != nil || !ok || uint32(n)+settleFrames > last {
			continue
		}
		common++
		if sh == h {
			agreed++
		}
	}
	return agreed, common
}

func readReport(path string) (game.Report, error) {
	var r game.Report
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// freeUDPAddr is a loopback address with a port nobody uses right now.
func freeUDPAddr(t testing.TB) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().String()
}

// classLinkFlags is every process's link in the runs of a class with the binaries: a lossy
// classroom Wi-Fi, on every host (classLink, in virtual time, is two of them in a row).
var classLinkFlags = []string{"--loss", "5", "--latency", "10ms", "--jitter", "2ms"}

// binClass is a server binary and its honest players, client binaries with --bot, while they
// run: a class as the measured runs play it.
type binClass struct {
	t         testing.TB
	dir       string
	addr      string // the server's
	ctx       context.Context
	cancel    context.CancelFunc
	hosts     []*udpHost // the server first
	play      time.Duration
	began     time.Time // when the server started: the players of join play until began+play
	clientBin string
	// netns, if not nil, names the network namespace each process runs in, by its name
	// ("server" for the server).
	netns func(name string) string
}

// startBinClass starts the server, with one bot, for play and udpServerExtra; join starts the
// honest players.
func startBinClass(t testing.TB, serverBin, clientBin string, play time.Duration) *binClass {
	t.Helper()
	return startBinClassAt(t, freeUDPAddr(t), nil, serverBin, clientBin, play)
}

// startBinClassAt is startBinClass with the server listening on addr, and each process in the
// network namespace netns names for it (nil: the test's own).
func startBinClassAt(t testing.TB, addr string, netns func(name string) string, serverBin, clientBin string, play time.Duration) *binClass {
	t.Helper()
	c := &binClass{t: t, dir: t.TempDir(), addr: addr, play: play, began: time.Now(), clientBin: clientBin, netns: netns}
	c.ctx, c.cancel = context.WithTimeout(context.Background(), play+udpServerExtra+time.Minute)
	t.Cleanup(c.cancel)
	// Registered after t.TempDir's, so run before it removes the files.
	t.Cleanup(func() {
		if *udpLogs != "" {
			keepUDPFiles(t, c.dir, filepath.Join(*udpLogs, t.Name()+"-"+time.Now().Format("150405")))
		}
		if t.Failed() {
			logHosts(t, c.hosts)
		}
	})
	c.start("server", serverBin, "--listen", c.addr, "--bots", "1", "--min-players", "1", "--duration", (play + udpServerExtra).String())
	return c
}

// join starts honest bot clients, each playing for the class's time.
func (c *binClass) join(names ...string) { c.joinFor(c.play, []string{"--bot", "--quiet"}, names...) }

// joinFor starts honest clients with flags, each for d.
func (c *binClass) joinFor(d time.Duration, flags []string, names ...string) {
	for _, name := range names {
		c.start(name, c.clientBin, append([]string{"--connect", c.addr, "--name", name, "--seed", strconv.Itoa(len(c.hosts)),
			"--duration", d.String()}, flags...)...)
	}
}

// untilEnd is how long a client that starts now plays to end with the players of join.
func (c *binClass) untilEnd() time.Duration { return time.Until(c.began.Add(c.play)) }

func (c *binClass) start(name, bin string, args ...string) {
	args = append(args, classLinkFlags...)
	if c.netns != nil {
		bin, args = "ip", append([]string{"netns", "exec", c.netns(name), bin}, args...)
	}
	c.hosts = append(c.hosts, startHost(c.t, c.ctx, c.dir, name, bin, args...))
}

// finish waits for every process: each must exit 0 and write its report. When the test
// failed, it logs every process's output and log.
func (c *binClass) finish() (server game.Report, clients map[string]game.Report) {
	t := c.t
	t.Helper()
	clients = map[string]game.Report{}
	for _, h := range c.hosts {
		if err := h.wait(); err != nil {
			t.Errorf("%s: %v", h.name, err)
		}
	}
	for i, h := range c.hosts {
		r, err := readReport(h.stats)
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if i == 0 {
			server = r
		} else {
			clients[h.name] = r
		}
	}
	return server, clients
}
