package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEmbeddedGameCleanExit: with no --connect the client hosts a game with a bot, plays it for
// --duration, exits 0 and writes a report of a game that ran.
func TestEmbeddedGameCleanExit(t *testing.T) {
	stats := filepath.Join(t.TempDir(), "stats.json")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if code := run([]string{"--duration", "4s", "--quiet", "--bot", "--stats", stats, "--trace", trace, "--name", "ann"}); code != 0 {
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
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("stats: %v\n%s", err, b)
	}
	if r.Role != "client" || r.Name != "ann" || r.Frame < 10 || len(r.WorldHashes) == 0 || r.Game.CommandsIssued == 0 {
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
	} {
		if code := run(args); code != 2 {
			t.Errorf("%q: exit code %d, want 2", args, code)
		}
	}
}
