package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// TestEmbeddedGameCleanExit: with no --connect the client hosts a game with a bot, plays it for
// --duration, exits 0 and writes a report of a game that ran.
func TestEmbeddedGameCleanExit(t *testing.T) {
	t.Parallel() // it waits for --duration: the other tests of the package run meanwhile
	stats := filepath.Join(t.TempDir(), "stats.json")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if code := run([]string{"--headless", "--duration", "4s", "--quiet", "--bot", "--stats", stats, "--trace", trace, "--name", "ann"}); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Role        string            `json:"role"`
		Name        string            `json:"name"`
		Frame       int               `json:"frame"`
		WorldHashes map[string]string `json:"world_hashes"`
		Game        struct {
			CommandsIssued int `json:"commands_issued"`
		} `json:"game"`
		Connected bool `json:"connected"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("stats: %v\n%s", err, b)
	}
	if r.Role != "client" || r.Name != "ann" || r.Frame < 10 || len(r.WorldHashes) == 0 || r.Game.CommandsIssued == 0 || !r.Connected {
		t.Fatalf("report of a game that did not run: %s", b)
	}
	if fi, err := os.Stat(trace); err != nil || fi.Size() == 0 {
		t.Fatalf("trace file empty or missing: %v", err)
	}
}

func TestBadFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--loss", "150"},
		{"--duration", "-1s"},
		{"--inject-desync", "-2s"},
		{"--no-such-flag"},
		{"stray"},
		{"--log-level", "loud"},
	} {
		if code := run(args); code != 2 {
			t.Errorf("%q: exit code %d, want 2", args, code)
		}
	}
}

// TestNotATerminalRunsHeadless: without --headless, when standard output is not a terminal
// (here a pipe, as for a script), the client says once that it runs headless, and does: the
// status lines come on standard output, the log on standard error.
func TestNotATerminalRunsHeadless(t *testing.T) {
	t.Parallel()
	r := startClient(t, "--bot", "--name", "ann")
	r.waitFrame(0, "")
	code, stdout, stderr := r.interrupt()
	if code != 0 {
		t.Fatalf("exit code %d; standard error:\n%s", code, stderr)
	}
	const msg = "client: standard output is not a terminal: running headless (--headless)\n"
	if n := strings.Count(stderr, msg); n != 1 {
		t.Errorf("%q on standard error %d times, want once:\n%s", msg, n, stderr)
	}
	if !strings.Contains(stdout, "hosting an embedded game on 127.0.0.1:") {
		t.Errorf("no headless output on standard output:\n%s", stdout)
	}
	if strings.Contains(stderr, "logs: ") {
		t.Errorf("headless, the log goes to standard error, but a log file was announced:\n%s", stderr)
	}
}

// TestBadLogFileExit1: a log file that cannot be opened is a clear error, exit code 1.
func TestBadLogFileExit1(t *testing.T) {
	var code int
	bad := filepath.Join(t.TempDir(), "no-such-dir", "client.log")
	_, stderr := capture.Output(t, func() {
		code = run([]string{"--headless", "--quiet", "--log", bad, "--duration", "1s"})
	})
	if code != 1 || !strings.Contains(stderr, "--log") || !strings.Contains(stderr, bad) {
		t.Errorf("--log %s: exit code %d, want 1, and a message naming --log and the file:\n%s", bad, code, stderr)
	}
}

// TestUnwritableReportFilesExit1: a --stats or --trace file that cannot be created stops the
// binary before the run, exit code 1, with a message naming the flag and the file.
func TestUnwritableReportFilesExit1(t *testing.T) {
	capture.ReportFilesRefused(t, "client", run, "--headless", "--bot", "--duration", "30s")
}

// TestNeverConnectedExit1: a client whose server never answers has failed, even when its
// --duration ends before the handshake gives up: exit code 1, a message saying it never
// connected, and "connected": false in its --stats report.
func TestNeverConnectedExit1(t *testing.T) {
	silent, err := net.ListenPacket("udp", "127.0.0.1:0") // takes the port, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	addr := silent.LocalAddr().String()
	stats := filepath.Join(t.TempDir(), "stats.json")
	var code int
	_, stderr := capture.Output(t, func() {
		code = run([]string{"--headless", "--quiet", "--connect", addr, "--duration", "300ms", "--stats", stats})
	})
	if want := "client: never connected to " + addr + ": "; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit code %d, want 1, and %q:\n%s", code, want, stderr)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Role      string `json:"role"`
		Connected *bool  `json:"connected"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Role != "client" || r.Connected == nil || *r.Connected {
		t.Errorf("report of a client that never connected, want \"connected\": false (%v):\n%s", err, b)
	}
}
