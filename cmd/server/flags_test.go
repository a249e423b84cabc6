package main

import "testing"

// The README's contract: exit 2 on a bad flag. --map takes skirmish or continent; an unknown
// map is refused only by NewServer, with exit code 1.
func TestUnknownMapExit2(t *testing.T) {
	if code := run([]string{"--listen", "127.0.0.1:0", "--map", "atlantis", "--duration", "1s"}); code != 2 {
		t.Errorf("--map atlantis: exit code %d, want 2", code)
	}
}
