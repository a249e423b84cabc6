package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// TestServerTerminalUI runs the real binary in a real terminal (tmux) with two bots: the
// player table shows them, the status line shows the game running, and q quits with exit
// status 0. The log goes to its file and never to the screen.
func TestServerTerminalUI(t *testing.T) {
	tmuxtest.Require(t)
	t.Parallel() // it mostly waits: the other tests of the package run meanwhile
	bin := tmuxtest.Build(t, "server")
	logFile := filepath.Join(t.TempDir(), "server.log")
	p := tmuxtest.Start(t, 100, 32, bin, "--seed", "1", "--log", logFile, "--listen", "127.0.0.1:0", "--bots", "2")

	p.WaitText("bot1", "bot2", "RUNNING", "frame ")
	p.Send("q")
	if status := p.Exit(); status != 0 {
		t.Fatalf("exit status %d after q, want 0; last screen:\n%s", status, p.Last())
	}
	// Where the log went is said once, after the UI gave the screen back.
	if n := strings.Count(p.Last(), "logs: "+logFile); n != 1 {
		t.Errorf("%q shown %d times, want once; last screen:\n%s", "logs: "+logFile, n, p.Last())
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	if !strings.Contains(string(b), "msg=serving") {
		t.Errorf("the log has no \"serving\" line:\n%s", b)
	}
	for _, s := range p.Screens() {
		if strings.Contains(s, "level=") {
			t.Errorf("a log line reached the screen:\n%s", s)
			break
		}
	}
}

// TestServerTerminalLead runs the real binary with --lead 300ms: the status line says the
// teacher fixed the lead from the start; t moves it on to 1 s, which every host takes a few
// frames later, and the line above the status line says who sets it.
func TestServerTerminalLead(t *testing.T) {
	tmuxtest.Require(t)
	t.Parallel()
	bin := tmuxtest.Build(t, "server")
	logFile := filepath.Join(t.TempDir(), "server.log")
	p := tmuxtest.Start(t, 120, 32, bin, "--seed", "1", "--log", logFile, "--listen", "127.0.0.1:0", "--bots", "2", "--lead", "300ms")

	p.WaitText("RUNNING", "lead 300 ms (teacher)")
	p.Send("t")
	p.WaitText("lead 1 s, set by the teacher")
	p.WaitText("lead 1000 ms (teacher)")
	p.Send("q")
	if status := p.Exit(); status != 0 {
		t.Fatalf("exit status %d after q, want 0; last screen:\n%s", status, p.Last())
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	for _, want := range []string{"lead=300ms", `msg="lead set" to=1s`, "frames=10", `"set by"=teacher`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the log has no %q:\n%s", want, b)
		}
	}
}
