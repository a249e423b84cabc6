package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

var idleWindow = flag.Duration("idlecpu.window", 10*time.Second, "how long BenchmarkClientIdleCPU counts each process's CPU time")

// idleSettle is how long the game runs after the client first shows RUNNING before the CPU
// time is counted: the start, the first snapshots and the first full draw are not idle.
const idleSettle = 2 * time.Second

// idlePaneWidth and idlePaneHeight are the size of the terminal the client runs in, in
// cells (the smoke tests' size).
const idlePaneWidth, idlePaneHeight = 100, 32

// BenchmarkClientIdleCPU measures what an idle client costs: the real binaries, a headless
// server with no bots and one client that joins it and does nothing, so that the game runs its
// ten frames a second with no command, and in UI mode the screen is redrawn ten times a
// second. It counts the CPU time (user + system, from /proc/PID/stat) of the client process,
// and of the server for comparison, over -idlecpu.window, and reports each as a percentage of
// one core:
//
//   - cpu-%: the client in UI mode, in a tmux pane of 100×32 cells;
//   - headless-cpu-%: the same client with --headless (a status line a second in the pane),
//     against a new server, so the difference is what the UI costs;
//   - server-cpu-%: the server while it served the UI client.
//
// The numbers are rates over a fixed window, not the time of an operation that can be
// repeated b.N times, so there is no b.Loop: the measurement runs once whatever b.N is, and
// ns/op (the whole run's wall time) is not reported. The timer is left running all the same,
// so that the framework sees a run of about 30 s (two windows, the starts and the settling)
// and, below -benchtime 30s, never asks for a second one. Run it with -benchtime 1x.
func BenchmarkClientIdleCPU(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads the processes' CPU time from /proc/PID/stat: Linux only")
	}
	tmuxtest.Require(b)
	if *idleWindow <= 0 {
		b.Fatalf("-idlecpu.window %v: must be positive", *idleWindow)
	}
	clientBin := tmuxtest.Build(b, "client")
	serverBin := tmuxtest.BuildPackage(b, "server", "../server")
	hz := clockTicks()

	withUI := measureIdle(b, hz, serverBin, clientBin, false)
	headless := measureIdle(b, hz, serverBin, clientBin, true)

	b.ReportMetric(0, "ns/op") // the wall time of the whole run says nothing
	b.ReportMetric(withUI.client, "cpu-%")
	b.ReportMetric(headless.client, "headless-cpu-%")
	b.ReportMetric(withUI.server, "server-cpu-%")
}

// idleCPU is one measurement: each process's CPU time as a percentage of one core.
type idleCPU struct {
	client, server, tmux float64
}

// measureIdle starts a server and a client (in UI mode or headless) in a tmux pane, waits
// until the game runs and idleSettle more, counts the CPU time of the client, the server and
// the tmux server over -idlecpu.window, and stops the client and the server before it
// returns.
func measureIdle(b *testing.B, hz int64, serverBin, clientBin string, headless bool) idleCPU {
	b.Helper()
	dir := b.TempDir()
	srv, addr := startServer(b, serverBin, filepath.Join(dir, "server.log"))
	argv := []string{clientBin, "--connect", addr, "--name", "idle", "--log", filepath.Join(dir, "client.log")}
	name := "ui"
	if headless {
		argv, name = append(argv, "--headless"), "headless"
	}
	p := tmuxtest.Start(b, idlePaneWidth, idlePaneHeight, argv...)
	p.WaitText("RUNNING")
	shell := p.PID()
	client := childNamed(b, shell, filepath.Base(clientBin))
	tmux := parentOf(b, shell) // the tmux server, which keeps the pane's screen
	time.Sleep(idleSettle)

	pids := []int{client, srv.cmd.Process.Pid, tmux}
	start, before := time.Now(), cpuTicks(b, pids)
	time.Sleep(*idleWindow)
	end, after := time.Now(), cpuTicks(b, pids)
	wall := end.Sub(start).Seconds()
	pct := func(i int) float64 { return float64(after[i]-before[i]) / float64(hz) / wall * 100 }
	r := idleCPU{client: pct(0), server: pct(1), tmux: pct(2)}

	b.Logf("%s: over %.2f s (%d ticks a second): client %.2f%% (%d ticks), server %.2f%% (%d ticks), tmux server %.2f%% (%d ticks)",
		name, wall, hz, r.client, after[0]-before[0], r.server, after[1]-before[1], r.tmux, after[2]-before[2])
	// The status (the UI's status row, or the latest status line) still says RUNNING: the
	// game did not stop or pause during the window.
	status := ""
	for _, line := range strings.Split(p.Capture(), "\n") {
		if strings.Contains(line, "frame ") {
			status = strings.TrimSpace(line)
		}
	}
	if !strings.Contains(status, "RUNNING") {
		b.Fatalf("%s: the game was no longer running at the end of the window; last screen:\n%s", name, p.Last())
	}
	b.Logf("%s: %s", name, status)

	// Stop both now, not when the benchmark ends, so that the next measurement runs alone.
	if headless {
		p.Send("C-c")
	} else {
		p.Send("q")
	}
	if status := p.Exit(); status != 0 {
		b.Errorf("%s: client exit status %d, want 0; last screen:\n%s", name, status, p.Last())
	}
	srv.stop(b)
	return r
}

// servingAddr finds the address in the server's log line "msg=serving addr=...".
var servingAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

// serverProcess is a server started by startServer; exited is closed once it has exited.
type serverProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startServer runs the server headless on a free loopback port, with no bots (so the game
// starts with the first player), and returns it with the address it logged. It is killed when
// the benchmark ends if stop has not stopped it before.
func startServer(b *testing.B, bin, logFile string) (*serverProcess, string) {
	b.Helper()
	s := &serverProcess{cmd: exec.Command(bin, "--headless", "--listen", "127.0.0.1:0", "--log", logFile), exited: make(chan struct{})}
	var out bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	b.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
	deadline := time.Now().Add(tmuxtest.Timeout)
	for {
		log, _ := os.ReadFile(logFile)
		if m := servingAddr.FindSubmatch(log); m != nil {
			return s, string(m[1])
		}
		select {
		case <-s.exited:
			b.Fatalf("the server exited before serving (%v):\n%s%s", s.cmd.ProcessState, out.Bytes(), log)
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("waited %v for the server's \"serving\" log line:\n%s%s", tmuxtest.Timeout, out.Bytes(), log)
		}
		time.Sleep(tmuxtest.Poll)
	}
}

// stop interrupts the server, as Ctrl-C would, and waits for it to exit.
func (s *serverProcess) stop(b *testing.B) {
	b.Helper()
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
		if code := s.cmd.ProcessState.ExitCode(); code != 0 {
			b.Errorf("server exit code %d after an interrupt, want 0", code)
		}
	case <-time.After(tmuxtest.Timeout):
		b.Errorf("the server did not exit within %v of an interrupt", tmuxtest.Timeout)
	}
}

// procStat returns the fields of /proc/PID/stat after the command name (which is in
// parentheses and may hold spaces), so that field n of proc(5) is fields[n-3], and the
// command name.
func procStat(pid int) (fields []string, comm string, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, "", err
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return nil, "", fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	fields = strings.Fields(s[end+1:])
	if len(fields) < 13 {
		return nil, "", fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	return fields, s[open+1 : end], nil
}

// cpuTicks returns each process's CPU time so far, user + system (utime and stime, fields 14
// and 15), in clock ticks.
func cpuTicks(b *testing.B, pids []int) []int64 {
	b.Helper()
	ticks := make([]int64, len(pids))
	for i, pid := range pids {
		f, _, err := procStat(pid)
		if err != nil {
			b.Fatalf("process %d: %v", pid, err)
		}
		utime, err1 := strconv.ParseInt(f[14-3], 10, 64)
		stime, err2 := strconv.ParseInt(f[15-3], 10, 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("/proc/%d/stat: utime %q, stime %q", pid, f[14-3], f[15-3])
		}
		ticks[i] = utime + stime
	}
	return ticks
}

// parentOf returns the parent process id of pid (field 4).
func parentOf(b *testing.B, pid int) int {
	b.Helper()
	f, _, err := procStat(pid)
	if err != nil {
		b.Fatal(err)
	}
	ppid, err := strconv.Atoi(f[4-3])
	if err != nil {
		b.Fatalf("/proc/%d/stat: ppid %q", pid, f[4-3])
	}
	return ppid
}

// childNamed finds the child of parent whose command name is name: the pane's shell runs
// the client as its child. It looks through every process's stat, which, unlike
// /proc/PID/task/TID/children, every kernel has.
func childNamed(b *testing.B, parent int, name string) int {
	b.Helper()
	// The kernel keeps the first 15 bytes of the name.
	name = name[:min(len(name), 15)]
	entries, err := os.ReadDir("/proc")
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, comm, err := procStat(pid)
		if err != nil || comm != name || f[4-3] != strconv.Itoa(parent) {
			continue // not it, or it exited as we looked
		}
		return pid
	}
	b.Fatalf("no process %q is a child of the pane's shell (pid %d)", name, parent)
	return 0
}

// clockTicks returns the unit of /proc/PID/stat's times, in ticks a second: sysconf's
// _SC_CLK_TCK, which the kernel passes to every process in its auxiliary vector (AT_CLKTCK),
// read here from /proc/self/auxv; 100 (the value on every common architecture) if that fails.
func clockTicks() int64 {
	const atClkTck = 17
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return 100
	}
	word := strconv.IntSize / 8
	for i := 0; i+2*word <= len(b); i += 2 * word {
		var key, val uint64
		if word == 8 {
			key, val = binary.NativeEndian.Uint64(b[i:]), binary.NativeEndian.Uint64(b[i+word:])
		} else {
			key, val = uint64(binary.NativeEndian.Uint32(b[i:])), uint64(binary.NativeEndian.Uint32(b[i+word:]))
		}
		if key == atClkTck && val > 0 {
			return int64(val)
		}
		if key == 0 {
			break
		}
	}
	return 100
}
