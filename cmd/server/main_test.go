package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestServerDurationCleanExit(t *testing.T) {
	stats := filepath.Join(t.TempDir(), "stats.json")
	if code := run([]string{"--listen", "127.0.0.1:0", "--bots", "2", "--duration", "4s", "--stats", stats}); code != 0 {
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
	for _, args := range [][]string{{"--bots", "9"}, {"--jitter", "-1s"}, {"--dup", "-3"}, {"--nope"}} {
		if code := run(args); code != 2 {
			t.Errorf("%q: exit code %d, want 2", args, code)
		}
	}
}
