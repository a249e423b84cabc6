package main

import (
	"strings"
	"testing"
)

// The README's contract: exit 2 on a bad flag, with a message saying which. --name must be
// 1–32 bytes; a longer one is refused only when the transport is set up, with exit code 1.
func TestTooLongNameExit2(t *testing.T) {
	if code := run([]string{"--name", strings.Repeat("n", 33), "--connect", "127.0.0.1:9", "--quiet", "--duration", "1s"}); code != 2 {
		t.Errorf("--name of 33 bytes: exit code %d, want 2", code)
	}
}
