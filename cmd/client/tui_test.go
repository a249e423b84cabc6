package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// mapRow is a run of terrain characters (walls, ground, water) as the map view draws them: a
// sign that the map is on the screen.
var mapRow = regexp.MustCompile(`[#.~]{20,}`)

// TestClientTerminalUI runs the real binary in a real terminal (tmux): with no --connect it
// hosts a game with a bot, shows the map, opens and closes the help, opens the debug panel
// and quits with q, exit status 0. The log goes to its file and never to the screen.
func TestClientTerminalUI(t *testing.T) {
	tmuxtest.Require(t)
	t.Parallel()
	bin := tmuxtest.Build(t, "client")
	logFile := filepath.Join(t.TempDir(), "client.log")
	p := tmuxtest.Start(t, 100, 32, bin, "--seed", "1", "--log", logFile, "--name", "ann")

	p.Wait(`"RUNNING" and a row of the map`, func(s string) bool {
		return strings.Contains(s, "RUNNING") && mapRow.MatchString(s)
	})
	p.Send("?")
	p.WaitText("move the cursor 8 cells")
	p.Send("Escape")
	p.WaitGone("move the cursor 8 cells")
	p.Send("d")
	p.WaitText("1 graph")
	p.Send("q")
	if status := p.Exit(); status != 0 {
		t.Fatalf("exit status %d after q, want 0; last screen:\n%s", status, p.Last())
	}
	// Where the log went is said once, after the UI gave the screen back.
	if n := strings.Count(p.Last(), "logs: "+logFile); n != 1 {
		t.Errorf("%q shown %d times, want once; last screen:\n%s", "logs: "+logFile, n, p.Last())
	}
	checkLog(t, p, logFile)
}

// TestClientHeadlessInTerminal: --headless on a terminal prints the status lines instead of
// drawing the UI, sends a line typed on standard input as chat, and exits 0 on Ctrl-C. It
// also shows that the terminal harness works without the UI. (--duration only bounds a run
// that something stopped before Ctrl-C.)
func TestClientHeadlessInTerminal(t *testing.T) {
	tmuxtest.Require(t)
	t.Parallel()
	bin := tmuxtest.Build(t, "client")
	dir := t.TempDir()
	logFile, stats := filepath.Join(dir, "client.log"), filepath.Join(dir, "stats.json")
	p := tmuxtest.Start(t, 100, 32, bin, "--headless", "--seed", "1", "--log", logFile, "--stats", stats, "--name", "ann", "--duration", "2m")

	p.WaitText("hosting an embedded game on 127.0.0.1:", "RUNNING", "frame ")
	p.SendText("hello from the terminal")
	p.Send("Enter")
	// The terminal echoes the line at once; a status line after it shows the client has had
	// time to read and send it.
	typed := regexp.MustCompile(`hello from the terminal\n(.*\n)*frame \d+`)
	p.Wait("a status line after the typed line", typed.MatchString)
	p.Send("C-c")
	if status := p.Exit(); status != 0 {
		t.Fatalf("exit status %d after Ctrl-C, want 0; last screen:\n%s", status, p.Last())
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Chat struct {
			Sent []string `json:"sent"`
		} `json:"chat"`
	}
	if err := json.Unmarshal(b, &r); err != nil || !slices.Contains(r.Chat.Sent, "hello from the terminal") {
		t.Errorf("the typed line was not sent as chat (%v):\n%s", err, b)
	}
	checkLog(t, p, logFile)
}

// checkLog checks that the log file was made and that no log line reached the screen.
func checkLog(t *testing.T, p *tmuxtest.Pane, logFile string) {
	t.Helper()
	if _, err := os.Stat(logFile); err != nil {
		t.Errorf("log file: %v", err)
	}
	for _, s := range p.Screens() {
		if strings.Contains(s, "level=") {
			t.Errorf("a log line reached the screen:\n%s", s)
			break
		}
	}
}
