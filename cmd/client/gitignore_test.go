package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitIgnoresWhatRunsWrite: the files the README's commands write where they run (the
// repository, for most) are ignored by git, so that a class leaves the working tree clean;
// the captures and reports the tests read, and the sources, are not.
func TestGitIgnoresWhatRunsWrite(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := "../.."
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not in a git working tree")
	}
	// Read here too, so that go test's cache knows the result depends on it: git reads it in
	// a process of its own.
	if _, err := os.ReadFile(filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		ignored bool
	}{
		{"class.pcapng", true},                          // --record class.pcapng
		{"class.pcapng.keys", true},                     // its key file
		{"ackattack-client-graph-134501.250.dot", true}, // x on the client's screen
		{"ackattack-server-graph-134501.250.dot", true}, // x on the server's
		{"graph.svg", true},                             // dot -Tsvg
		{"ann.json", true},                              // --stats ann.json
		{"trace.jsonl", true},                           // --trace
		{"ann.id", true},                                // --identity ann.id
		{"client.log", true},                            // --log
		{"game/replay/testdata/resync.pcapng", false},
		{"game/replay/testdata/resync.pcapng.keys", false},
		{"game/replay/testdata/resync.net.json", false},
		{"cmd/client/main.go", false},
		{"README.md", false},
	} {
		// check-ignore exits 0 for an ignored path, 1 for one that is not.
		err := exec.Command("git", "-C", root, "check-ignore", "--quiet", "--no-index", tc.path).Run()
		ee := (*exec.ExitError)(nil)
		switch {
		case err != nil && !errors.As(err, &ee):
			t.Fatal(err)
		case (err == nil) != tc.ignored:
			t.Errorf("%s: ignored %v, want %v", tc.path, err == nil, tc.ignored)
		}
	}
}
