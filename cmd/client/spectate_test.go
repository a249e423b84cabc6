package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// TestSpectateFlag: --spectate watches the embedded game (two bots play it) without a seat:
// the status lines say it is spectating and why; interrupted, the run exits 0, and its report
// is a spectator's that followed the game and gave no order.
func TestSpectateFlag(t *testing.T) {
	t.Parallel()
	stats := filepath.Join(t.TempDir(), "stats.json")
	r := startClient(t, "--headless", "--spectate", "--bot", "--stats", stats, "--name", "eve")
	r.waitFrame(10, "SPECTATING: you asked to (--spectate)")
	code, stdout, stderr := r.interrupt()
	if code != 0 {
		t.Fatalf("exit code %d; standard error:\n%s", code, stderr)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Spectator int `json:"spectator"`
		Frame     int `json:"frame"`
		Game      struct {
			CommandsIssued int `json:"commands_issued"`
		} `json:"game"`
		Connected bool `json:"connected"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("stats: %v\n%s", err, b)
	}
	if rep.Spectator != 1 || rep.Frame < 10 || rep.Game.CommandsIssued != 0 || !rep.Connected {
		t.Errorf("the report of a spectator that watched: %s", b)
	}
	if !strings.Contains(stdout, "with 2 bot(s)") {
		t.Errorf("the run does not say two bots play:\n%s", stdout)
	}
}

// TestSpectateFlagNotABoolean: a --spectate that is not a boolean is a mistake of the command
// line: exit 2, naming the flag.
func TestSpectateFlagNotABoolean(t *testing.T) {
	var code int
	_, stderr := capture.Output(t, func() { code = run([]string{"--spectate=maybe"}) })
	if code != 2 || !strings.Contains(stderr, "-spectate") {
		t.Errorf("--spectate=maybe: exit code %d, want 2 and a message naming the flag:\n%s", code, stderr)
	}
}

// TestProjectorRecordsAndReplays: the README's class plan in small. The projector watches as a
// spectator with --record, then plays its capture back with --replay. The capture holds the
// whole connection: the spectator's handshake, the server's word that it spectates, the
// start and the bots' commands, every datagram opened with the key file; the replay reads
// every datagram the recorder wrote.
func TestProjectorRecordsAndReplays(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "class.pcapng")
	r := startClient(t, "--headless", "--spectate", "--record", path)
	r.waitFrame(20, "SPECTATING")
	if code, _, stderr := r.interrupt(); code != 0 {
		t.Fatalf("recording: exit code %d; standard error:\n%s", code, stderr)
	}
	all, sealed := readCapture(t, path)
	code, stdout, stderr := startClient(t, "--replay", path, "--headless").exit()
	if code != 0 || stderr != "" {
		t.Fatalf("replay: exit code %d, standard error %q", code, stderr)
	}
	last := fmt.Sprintf("#%d ", len(all)-1)
	for _, want := range []string{"ConnectRequest", "Spectate", "StartGame", "Command", last} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in the replay of %d datagrams (%d opened with the key file)", want, len(all), sealed)
		}
	}
	if len(all) < 50 || sealed < len(all)-5 {
		t.Errorf("the capture holds %d datagrams, %d of them opened: want 2 s of a game, nearly all sealed and opened", len(all), sealed)
	}
}
