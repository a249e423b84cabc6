package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
)

// newTest returns a Command named "test" whose standard error is the returned buffer and
// whose default log file is in a directory of its own.
func newTest(t *testing.T) (*Command, *bytes.Buffer) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir()) // where New puts the default log file
	c := New(Binary{Name: "test", Summary: "Tests the command line.", HeadlessUsage: "run without the UI", LogLevel: slog.LevelInfo})
	var stderr bytes.Buffer
	c.stderr = &stderr
	return c, &stderr
}

// TestParse: the exit codes of the README's contract, with a message saying what was wrong.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		exit   int
		ok     bool
		stderr []string // each on standard error
	}{
		{name: "no flags", args: nil, exit: ExitOK, ok: true},
		{name: "every shared flag", args: []string{"--headless", "--duration", "3s", "--stats", "s.json", "--trace", "t.jsonl",
			"--log", "l.log", "--log-level", "debug", "--loss", "10", "--latency", "50ms", "--jitter", "5ms", "--dup", "1"}, exit: ExitOK, ok: true},
		{name: "--help", args: []string{"--help"}, exit: ExitOK,
			stderr: []string{"usage: test [flags]\n\nTests the command line.\n\nflags:\n", "run without the UI (the default when standard input or output is not a terminal)"}},
		{name: "-h", args: []string{"-h"}, exit: ExitOK, stderr: []string{"usage: test [flags]"}},
		{name: "unknown flag", args: []string{"--nope"}, exit: ExitUsage, stderr: []string{"flag provided but not defined: -nope", "usage: test [flags]"}},
		{name: "stray argument", args: []string{"stray"}, exit: ExitUsage, stderr: []string{"test: unexpected argument \"stray\"\n"}},
		{name: "argument after the flags", args: []string{"--headless", "x", "--loss", "5"}, exit: ExitUsage, stderr: []string{"test: unexpected argument \"x\"\n"}},
		{name: "bad duration", args: []string{"--duration", "soon"}, exit: ExitUsage, stderr: []string{"invalid value \"soon\" for flag -duration"}},
		{name: "negative duration", args: []string{"--duration", "-1s"}, exit: ExitUsage, stderr: []string{"test: --duration must not be negative\n"}},
		{name: "bad log level", args: []string{"--log-level", "loud"}, exit: ExitUsage, stderr: []string{"invalid value \"loud\" for flag -log-level"}},
		{name: "loss over 100", args: []string{"--loss", "150"}, exit: ExitUsage, stderr: []string{"test: link flags: ", "LossPercent is 150"}},
		{name: "negative jitter", args: []string{"--jitter", "-1s"}, exit: ExitUsage, stderr: []string{"test: link flags: ", "Jitter is -1s"}},
		{name: "link before duration", args: []string{"--duration", "-1s", "--dup", "200"}, exit: ExitUsage, stderr: []string{"DupPercent is 200"}},
		{name: "--record with a limit", args: []string{"--record", "g.pcapng", "--record-limit", "1GiB"}, exit: ExitOK, ok: true},
		{name: "bad --record-limit", args: []string{"--record-limit", "lots"}, exit: ExitUsage, stderr: []string{"invalid value \"lots\" for flag -record-limit", "want a size such as 64MiB"}},
		{name: "tiny --record-limit", args: []string{"--record-limit", "100"}, exit: ExitUsage, stderr: []string{"test: --record-limit 100: at least 4KiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, stderr := newTest(t)
			exit, ok := c.Parse(tc.args)
			if exit != tc.exit || ok != tc.ok {
				t.Errorf("Parse(%q) = %d, %v, want %d, %v", tc.args, exit, ok, tc.exit, tc.ok)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("standard error has no %q:\n%s", s, stderr)
				}
			}
			if len(tc.stderr) == 0 && stderr.Len() > 0 {
				t.Errorf("standard error, want nothing:\n%s", stderr)
			}
		})
	}
}

// TestParseValues: the shared flags land in the Command's fields, and the link flags in Link.
func TestParseValues(t *testing.T) {
	c, _ := newTest(t)
	if exit, ok := c.Parse([]string{"--headless", "--duration", "3s", "--stats", "s.json", "--trace", "t.jsonl",
		"--log", "l.log", "--log-level", "debug", "--loss", "10"}); !ok {
		t.Fatalf("exit %d", exit)
	}
	if !c.Headless || c.Duration != 3*time.Second || c.StatsPath != "s.json" || c.TracePath != "t.jsonl" ||
		c.LogPath != "l.log" || c.LogLevel != slog.LevelDebug {
		t.Errorf("fields %+v", c)
	}
	if want := (linksim.Settings{LossPercent: 10}); c.Link == nil || c.Link.Out != want || c.Link.In != want {
		t.Errorf("Link %+v, want %+v both ways", c.Link, want)
	}

	c, _ = newTest(t)
	if _, ok := c.Parse(nil); !ok || c.LogLevel != slog.LevelInfo || c.Link != nil {
		t.Errorf("defaults: log level %v (want the Binary's INFO), Link %+v (want none)", c.LogLevel, c.Link)
	}
}

// TestOpen: without --headless a binary runs the UI only when standard input and standard
// output are both terminals; otherwise it runs headless and says so, once, naming which is
// not. In UI mode the log goes to a file and the socket always has a conditioner; headless the
// log goes to standard error unless --log names a file.
func TestOpen(t *testing.T) {
	const (
		toStderr  = "stderr"  // the log goes to standard error
		toDefault = "default" // to ackattack-test-PID.log in the temporary directory
		toFlag    = "flag"    // to the --log file
	)
	for _, tc := range []struct {
		name          string
		stdin, stdout string // "pty", "pipe" or "null"
		args          []string
		headless      bool
		note          string // the fallback note on standard error; "" for none
		logTo         string
		link          *linksim.Settings // nil: no conditioner
	}{
		{name: "terminal: UI", stdin: "pty", stdout: "pty", logTo: toDefault, link: &linksim.Settings{}},
		{name: "terminal with --log", stdin: "pty", stdout: "pty", args: []string{"--log", "LOG"}, logTo: toFlag, link: &linksim.Settings{}},
		{name: "terminal with --loss", stdin: "pty", stdout: "pty", args: []string{"--loss", "30"}, logTo: toDefault, link: &linksim.Settings{LossPercent: 30}},
		{name: "terminal with --headless", stdin: "pty", stdout: "pty", args: []string{"--headless"}, headless: true, logTo: toStderr},
		{name: "--headless with --log", stdin: "pty", stdout: "pty", args: []string{"--headless", "--log", "LOG"}, headless: true, logTo: toFlag},
		{name: "standard output a pipe", stdin: "pty", stdout: "pipe", headless: true, note: "standard output", logTo: toStderr},
		{name: "standard input a pipe", stdin: "pipe", stdout: "pty", headless: true, note: "standard input", logTo: toStderr},
		{name: "standard input /dev/null", stdin: "null", stdout: "pty", headless: true, note: "standard input", logTo: toStderr},
		{name: "standard output /dev/null", stdin: "pty", stdout: "null", headless: true, note: "standard output", logTo: toStderr},
		{name: "both pipes", stdin: "pipe", stdout: "pipe", headless: true, note: "standard output", logTo: toStderr},
		{name: "pipes with --log", stdin: "pipe", stdout: "pipe", args: []string{"--log", "LOG"}, headless: true, note: "standard output", logTo: toFlag},
		{name: "pipes with --dup", stdin: "pipe", stdout: "pipe", args: []string{"--dup", "5"}, headless: true, note: "standard output", logTo: toStderr, link: &linksim.Settings{DupPercent: 5}},
		{name: "pipes with --headless", stdin: "pipe", stdout: "pipe", args: []string{"--headless"}, headless: true, logTo: toStderr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, stderr := newTest(t)
			c.stdin, c.stdout = openFile(t, tc.stdin), openFile(t, tc.stdout)
			logFile := filepath.Join(t.TempDir(), "test.log")
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				if a == "LOG" {
					args[i] = logFile
				}
			}
			if exit, ok := c.Parse(args); !ok {
				t.Fatalf("Parse: exit %d:\n%s", exit, stderr)
			}
			if err := c.Open(); err != nil {
				t.Fatal(err)
			}
			c.Logger.Info("opened")
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}

			if c.Headless != tc.headless {
				t.Errorf("Headless %v, want %v", c.Headless, tc.headless)
			}
			note := ""
			if tc.note != "" {
				note = "test: " + tc.note + " is not a terminal: running headless (--headless)\n"
			}
			if got, _, _ := strings.Cut(stderr.String(), "time="); got != note {
				t.Errorf("standard error before the log %q, want %q", got, note)
			}
			wantPath := map[string]string{toStderr: "", toDefault: filepath.Join(os.TempDir(), fmt.Sprintf("ackattack-test-%d.log", os.Getpid())), toFlag: logFile}[tc.logTo]
			if c.LogPath != wantPath {
				t.Errorf("LogPath %q, want %q", c.LogPath, wantPath)
			}
			logged := stderr.String()
			if wantPath != "" {
				b, err := os.ReadFile(wantPath)
				if err != nil {
					t.Fatal(err)
				}
				logged = string(b)
				if strings.Contains(stderr.String(), "msg=opened") {
					t.Errorf("the log went to standard error too:\n%s", stderr)
				}
			}
			if !strings.Contains(logged, "level=INFO msg=opened") {
				t.Errorf("the log line is not where the log goes (%s):\n%s", tc.logTo, logged)
			}
			switch {
			case tc.link == nil && c.Link != nil:
				t.Errorf("Link %+v, want none", c.Link)
			case tc.link != nil && (c.Link == nil || c.Link.Out != *tc.link || c.Link.In != *tc.link):
				t.Errorf("Link %+v, want %+v both ways", c.Link, *tc.link)
			}
			if c.Trace != nil {
				t.Errorf("a trace without --trace")
			}
		})
	}
}

// TestRunLog: each process in UI mode logs to a file of its own in the temporary directory,
// named by its process id (with a number after it when a file of that name is left from an
// earlier process), and leaves at most keptLogs of its binary's logs there, the newest: the
// oldest go, and nothing else in the directory does.
func TestRunLog(t *testing.T) {
	const pid = 4242
	old := time.Now().Add(-time.Hour)
	for _, tc := range []struct {
		name    string
		before  []string // files in the directory, oldest first
		created string   // the name of the log made; "*": ackattack-test-4242-N.log
		after   int      // ackattack-test logs left, the new one among them
	}{
		{name: "empty directory", created: "ackattack-test-4242.log", after: 1},
		{name: "another binary's and other files", before: []string{"ackattack-client-4242.log", "ackattack-test.log", "ackattack-test-x.log", "notes.txt"},
			created: "ackattack-test-4242.log", after: 1},
		{name: "a file of the same name left", before: []string{"ackattack-test-4242.log"}, created: "*", after: 2},
		{name: "as many as are kept", before: runLogNames(keptLogs - 1), created: "ackattack-test-4242.log", after: keptLogs},
		{name: "more than are kept", before: runLogNames(keptLogs + 5), created: "ackattack-test-4242.log", after: keptLogs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, name := range tc.before {
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				at := old.Add(time.Duration(i) * time.Second)
				if err := os.Chtimes(path, at, at); err != nil {
					t.Fatal(err)
				}
			}
			f, err := openRunLog(dir, "test", pid)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got := filepath.Base(f.Name())
			if tc.created != "*" && got != tc.created || tc.created == "*" && (got == "ackattack-test-4242.log" || !isRunLog(got, "test")) {
				t.Errorf("log file %s, want %s", got, tc.created)
			}
			if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("log file mode %v (%v), want 0600", fi.Mode().Perm(), err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var logs, others []string
			for _, e := range entries {
				if isRunLog(e.Name(), "test") {
					logs = append(logs, e.Name())
				} else {
					others = append(others, e.Name())
				}
			}
			if len(logs) != tc.after || !slices.Contains(logs, got) {
				t.Errorf("logs left: %q, want %d with %s", logs, tc.after, got)
			}
			// The oldest went: every one left is newer than every one removed.
			for i, name := range tc.before {
				if isRunLog(name, "test") && i < len(tc.before)-(tc.after-1) && slices.Contains(logs, name) {
					t.Errorf("%s, one of the oldest, is still there", name)
				}
			}
			for _, name := range tc.before {
				if !isRunLog(name, "test") && !slices.Contains(others, name) {
					t.Errorf("%s, not a log of this binary, was removed", name)
				}
			}
		})
	}
}

// runLogNames names n logs of earlier processes of the binary "test".
func runLogNames(n int) []string {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("ackattack-test-%d.log", 100+i))
	}
	return names
}

// openFile returns what a binary might find as its standard input or output: the terminal
// end of a pseudo-terminal ("pty"), the end of a pipe ("pipe") or /dev/null ("null").
func openFile(t *testing.T, kind string) *os.File {
	t.Helper()
	switch kind {
	case "pty":
		return openPTY(t)
	case "pipe":
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r
	case "null":
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	t.Fatalf("no file of kind %q", kind)
	return nil
}

// TestOpenTrace: --trace creates the file (emptying an old one) and Close closes it.
func TestOpenTrace(t *testing.T) {
	c, _ := newTest(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(trace, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Parse([]string{"--headless", "--trace", trace}); !ok {
		t.Fatal("Parse")
	}
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Trace.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(trace); err != nil || string(b) != "{}\n" {
		t.Errorf("trace file %q (%v), want %q", b, err, "{}\n")
	}
	if _, err := c.Trace.Write([]byte("late\n")); err == nil {
		t.Error("the trace file is still open after Close")
	}
}

// TestOpenErrors: a log, trace or stats file that cannot be opened is an error that names its
// flag and the file, before the run, and Open leaves nothing open behind it.
func TestOpenErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "file")
	dir := t.TempDir()
	ok := func(name string) string { return filepath.Join(t.TempDir(), name) }
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "log", args: []string{"--headless", "--log", missing}, want: "--log: open " + missing},
		{name: "trace", args: []string{"--headless", "--log", ok("ok.log"), "--trace", missing}, want: "--trace: open " + missing},
		{name: "stats", args: []string{"--headless", "--log", ok("ok.log"), "--trace", ok("t.jsonl"), "--stats", missing}, want: "--stats: open " + missing},
		{name: "stats a directory", args: []string{"--headless", "--stats", dir}, want: "--stats: open " + dir},
		{name: "record", args: []string{"--headless", "--log", ok("ok.log"), "--record", missing}, want: "--record: open " + missing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTest(t)
			if _, ok := c.Parse(tc.args); !ok {
				t.Fatal("Parse")
			}
			err := c.Open()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v, want an error with %q", err, tc.want)
			}
			if len(c.files) != 0 || c.stats != nil || c.Recorder != nil {
				t.Errorf("%d files left open, --stats file %v, --record %v", len(c.files), c.stats, c.Recorder)
			}
		})
	}
}

// TestContext: the run's context ends after --duration, and has no deadline without it.
func TestContext(t *testing.T) {
	c, _ := newTest(t)
	c.Duration = 20 * time.Millisecond
	ctx, stop := c.Context()
	select {
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("ended with %v, want the deadline", ctx.Err())
		}
	case <-time.After(5 * time.Second):
		t.Error("did not end after --duration")
	}
	stop()

	c.Duration = 0
	ctx, stop = c.Context()
	defer stop()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a deadline without --duration")
	}
}

// TestRunUI: the UI's error comes after the binary's name; the log file's path comes once,
// when the command closes, after every UI of the run gave the screen back.
func TestRunUI(t *testing.T) {
	for _, tc := range []struct {
		name   string
		uis    []error // the UIs run one after another, and their errors
		stderr string
	}{
		{name: "clean", uis: []error{nil}, stderr: "ui\nlogs: /tmp/x.log\n"},
		{name: "error", uis: []error{errors.New("no screen")}, stderr: "ui\ntest: no screen\nlogs: /tmp/x.log\n"},
		{name: "a lesson after the game", uis: []error{nil, nil}, stderr: "ui\nui\nlogs: /tmp/x.log\n"},
		{name: "no UI", stderr: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, stderr := newTest(t)
			c.LogPath = "/tmp/x.log"
			for _, uiErr := range tc.uis {
				err := c.RunUI(func() error {
					stderr.WriteString("ui\n")
					return uiErr
				})
				if err != uiErr {
					t.Errorf("RunUI returned %v, want %v", err, uiErr)
				}
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil { // closed twice (a deferred Close after an explicit one): said once
				t.Fatal(err)
			}
			if stderr.String() != tc.stderr {
				t.Errorf("standard error %q, want %q", stderr, tc.stderr)
			}
		})
	}
}

func TestFail(t *testing.T) {
	c, stderr := newTest(t)
	if exit := c.Fail(ExitFailure, errors.New("broken")); exit != ExitFailure || stderr.String() != "test: broken\n" {
		t.Errorf("exit %d, standard error %q", exit, stderr)
	}
}

// TestWriteStats: Open creates the --stats file, emptying an old one, so that a path that
// cannot be written is found before the run (TestOpenErrors); at exit WriteStats writes the
// report as indented JSON with a final newline, once, and closes the file. Without --stats
// nothing is written.
func TestWriteStats(t *testing.T) {
	c, _ := newTest(t)
	if err := c.WriteStats(game.Report{Role: "client"}); err != nil {
		t.Errorf("without --stats: %v", err)
	}

	c, _ = newTest(t)
	stats := filepath.Join(t.TempDir(), "stats.json")
	if err := os.WriteFile(stats, []byte("an older report"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Parse([]string{"--headless", "--stats", stats}); !ok {
		t.Fatal("Parse")
	}
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b, err := os.ReadFile(stats); err != nil || len(b) != 0 {
		t.Errorf("after Open the --stats file holds %q (%v), want it empty", b, err)
	}
	if err := c.WriteStats(game.Report{Role: "client", Name: "ann", Frame: 600}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "{\n  \"role\": \"client\",\n") || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("not indented JSON ending in a newline:\n%s", b)
	}
	var r game.Report
	if err := json.Unmarshal(b, &r); err != nil || r.Role != "client" || r.Name != "ann" || r.Frame != 600 {
		t.Errorf("read back %+v (%v)", r, err)
	}

	if err := c.WriteStats(game.Report{}); err == nil {
		t.Error("a second WriteStats: no error")
	}
	if b2, err := os.ReadFile(stats); err != nil || string(b2) != string(b) {
		t.Errorf("a second WriteStats changed the file (%v):\n%s", err, b2)
	}
}
