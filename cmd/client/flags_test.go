package main

import (
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// The README's contract: exit 2 on a bad flag, with a message saying which. --name must be
// 1–32 bytes; a longer one is refused only when the transport is set up, with exit code 1.
func TestTooLongNameExit2(t *testing.T) {
	if code := run([]string{"--name", strings.Repeat("n", 33), "--connect", "127.0.0.1:9", "--quiet", "--duration", "1s"}); code != 2 {
		t.Errorf("--name of 33 bytes: exit code %d, want 2", code)
	}
}

// A --listen address that cannot be parsed or resolved exits 2, naming the flag.
func TestBadListenExit2(t *testing.T) {
	for _, addr := range []string{"nonsense", "127.0.0.1", "127.0.0.1:99999"} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--listen", addr, "--connect", "127.0.0.1:9", "--headless", "--quiet", "--duration", "1s"})
		})
		if code != 2 || !strings.Contains(stderr, "--listen") {
			t.Errorf("--listen %q: exit code %d, standard error %q: want 2 and a message naming --listen", addr, code, stderr)
		}
	}
}
