package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// TestBinariesPlayOverUDP is the server binary's smoke test, as a class starts: the server
// binary hosts a game with a bot (headless), and a student joins it with the client binary
// (headless, a bot at the controls) over loopback UDP. Once the client's status line shows it
// playing past frame 50, both are interrupted (Ctrl-C) and must exit 0, and their --stats
// reports must show the game: the client connected and played, the server counted it and ran
// as long, and their worlds were equal at every settled frame both kept.
func TestBinariesPlayOverUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binaries")
	}
	t.Parallel() // it mostly waits: the other tests of the package run meanwhile
	server := tmuxtest.Build(t, "server")
	client := tmuxtest.BuildPackage(t, "client", "github.com/ackattack/ackattack/cmd/client")
	dir := t.TempDir()
	// A process still there this long after its start is stuck: it is killed, and fails.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr := freeUDPAddr(t)
	srv := startHost(t, ctx, dir, "server", server, "--listen", addr, "--bots", "1")
	ann := startHost(t, ctx, dir, "ann", client, "--connect", addr, "--bot", "--name", "ann")
	hosts := []*udpHost{srv, ann}
	defer func() {
		if t.Failed() {
			logHosts(t, hosts)
		}
	}()

	// The headless client prints a status line a second: "frame N ... RUNNING" once it plays.
	status := regexp.MustCompile(`(?m)^frame (\d+) .* RUNNING$`)
	const frames = 50
	deadline := time.Now().Add(time.Minute)
	for {
		out, _ := os.ReadFile(ann.out)
		if m := status.FindAllSubmatch(out, -1); len(m) > 0 {
			if f, _ := strconv.Atoi(string(m[len(m)-1][1])); f >= frames {
				break
			}
		}
		if !ann.running() || time.Now().After(deadline) {
			t.Fatalf("the client never showed frame %d while running", frames)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The student quits first, then the teacher: each with Ctrl-C, a clean end.
	for _, h := range hosts[1:] {
		interrupt(t, h)
	}
	interrupt(t, srv)

	s, err := readReport(srv.stats)
	if err != nil {
		t.Fatal(err)
	}
	c, err := readReport(ann.stats)
	if err != nil {
		t.Fatal(err)
	}
	var connected struct {
		Connected bool `json:"connected"`
	}
	b, _ := os.ReadFile(ann.stats)
	if err := json.Unmarshal(b, &connected); err != nil || !connected.Connected {
		t.Errorf("the client's report says it never connected (%v)", err)
	}
	if c.Role != "client" || c.Name != "ann" || c.Frame < frames || c.Game.CommandsIssued == 0 {
		t.Errorf("the client's report: role %q, name %q, frame %d, %d commands issued; want a client ann that played past frame %d",
			c.Role, c.Name, c.Frame, c.Game.CommandsIssued, frames)
	}
	if s.Role != "server" || s.Frame < c.Frame || s.Net.PacketsReceived == 0 {
		t.Errorf("the server's report: role %q, frame %d, %d packets received; want a server past the client's frame %d",
			s.Role, s.Frame, s.Net.PacketsReceived, c.Frame)
	}
	if agreed, common := agreement(s, c); common == 0 || agreed != common {
		t.Errorf("the client's world equals the server's at %d of %d settled frames", agreed, common)
	}
}

// interrupt sends h an interrupt (Ctrl-C) and waits for it to exit, which must be with 0.
func interrupt(t *testing.T, h *udpHost) {
	t.Helper()
	if err := h.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("%s: %v", h.name, err)
	}
	if err := h.wait(); err != nil {
		t.Errorf("%s after Ctrl-C: %v, want exit status 0", h.name, err)
	}
}
