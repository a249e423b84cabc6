package main

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
	"github.com/ackattack/ackattack/cmd/internal/cli"
)

func TestServerDurationCleanExit(t *testing.T) {
	t.Parallel() // it waits for --duration: the other tests of the package run meanwhile
	stats := filepath.Join(t.TempDir(), "stats.json")
	if code := run([]string{"--headless", "--listen", "127.0.0.1:0", "--bots", "2", "--duration", "4s", "--stats", stats}); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Role  string `json:"role"`
		Frame int    `json:"frame"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Role != "server" || r.Frame < 10 {
		t.Fatalf("report %s (%v)", b, err)
	}
}

func TestServerBadFlagsExit2(t *testing.T) {
	for _, args := range [][]string{{"--bots", "9"}, {"--seat-hold", "31s"}, {"--seat-hold", "0s"}, {"--late", "soon"}, {"--jitter", "-1s"}, {"--dup", "-3"}, {"--nope"}, {"--log-level", "loud"}} {
		if code := run(args); code != 2 {
			t.Errorf("%q: exit code %d, want 2", args, code)
		}
	}
}

// TestNotATerminalRunsHeadless: without --headless, when standard output is not a terminal
// (here a pipe, as for a script), the server says once that it runs headless, and does: it
// logs to standard error.
func TestNotATerminalRunsHeadless(t *testing.T) {
	var code int
	_, stderr := capture.Output(t, func() {
		code = run([]string{"--listen", "127.0.0.1:0", "--duration", "100ms"})
	})
	if code != 0 {
		t.Fatalf("exit code %d; standard error:\n%s", code, stderr)
	}
	const msg = "server: standard output is not a terminal: running headless (--headless)\n"
	if n := strings.Count(stderr, msg); n != 1 {
		t.Errorf("%q on standard error %d times, want once:\n%s", msg, n, stderr)
	}
	if !strings.Contains(stderr, "level=INFO msg=serving") {
		t.Errorf("no log on standard error:\n%s", stderr)
	}
}

// TestLogFile: --log sends the log to a file, appended to by each run, and nothing to
// standard error; --log-level drops what is below it. A file that cannot be opened is a clear
// error, exit code 1.
func TestLogFile(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "server.log")
	for range 2 {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--headless", "--listen", "127.0.0.1:0", "--duration", "100ms", "--log", logFile})
		})
		if code != 0 || stderr != "" {
			t.Fatalf("exit code %d, standard error:\n%s", code, stderr)
		}
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "msg=serving"); n != 2 {
		t.Errorf("%d \"serving\" lines after two runs, want 2 (appended):\n%s", n, b)
	}

	quiet := filepath.Join(t.TempDir(), "quiet.log")
	if code := run([]string{"--headless", "--listen", "127.0.0.1:0", "--duration", "100ms", "--log", quiet, "--log-level", "warn"}); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if b, err := os.ReadFile(quiet); err != nil || strings.Contains(string(b), "level=INFO") {
		t.Errorf("--log-level warn: info lines logged (%v):\n%s", err, b)
	}

	var code int
	bad := filepath.Join(t.TempDir(), "no-such-dir", "server.log")
	_, stderr := capture.Output(t, func() {
		code = run([]string{"--headless", "--listen", "127.0.0.1:0", "--log", bad, "--duration", "1s"})
	})
	if code != 1 || !strings.Contains(stderr, "--log") || !strings.Contains(stderr, bad) {
		t.Errorf("--log %s: exit code %d, want 1, and a message naming --log and the file:\n%s", bad, code, stderr)
	}
}

// TestUnwritableReportFilesExit1: a --stats or --trace file that cannot be created stops the
// binary before the run, exit code 1, with a message naming the flag and the file.
func TestUnwritableReportFilesExit1(t *testing.T) {
	capture.ReportFilesRefused(t, "server", run, "--headless", "--listen", "127.0.0.1:0", "--duration", "30s")
}

// TestHeadlessLogSaysWhereToJoin: the log's first line says where players join: a server
// bound to every interface at the machine's LAN addresses (here a test's interfaces), never
// at 0.0.0.0 or [::].
func TestHeadlessLogSaysWhereToJoin(t *testing.T) {
	defer func(old cli.Interfaces) { interfaces = old }(interfaces)
	interfaces = func() ([]cli.Interface, error) {
		return []cli.Interface{
			{Name: "lo", Up: true, Loopback: true, Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}},
			{Name: "wlan0", Up: true, Addrs: []netip.Addr{netip.MustParseAddr("192.0.2.20"), netip.MustParseAddr("198.51.100.5")}},
		}, nil
	}
	for _, c := range []struct{ listen, want string }{
		{"0.0.0.0:0", `join="players join with --connect 192.0.2.20:`},
		{"127.0.0.1:0", `join="players join with --connect 127.0.0.1:`},
	} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--headless", "--listen", c.listen, "--duration", "100ms"})
		})
		if code != 0 {
			t.Fatalf("--listen %s: exit code %d; standard error:\n%s", c.listen, code, stderr)
		}
		if !strings.Contains(stderr, c.want) || strings.Contains(stderr, "--connect [::]") || strings.Contains(stderr, "--connect 0.0.0.0") {
			t.Errorf("--listen %s: the log does not say %q:\n%s", c.listen, c.want, stderr)
		}
	}
}
