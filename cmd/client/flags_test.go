package main

import (
	"fmt"
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

// TestBadConnectExit2: a --connect address that cannot be parsed or resolved, or names no
// server (no host, port 0), is a mistake of the command line, exit code 2, with a message
// naming --connect and the address, before anything runs.
func TestBadConnectExit2(t *testing.T) {
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:99999", "[::1", ":7777", "127.0.0.1:0"} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--headless", "--quiet", "--connect", addr, "--duration", "1s"})
		})
		if code != 2 || !strings.HasPrefix(stderr, "client: --connect ") || !strings.Contains(stderr, addr) {
			t.Errorf("--connect %q: exit code %d, want 2, and a message naming --connect and the address:\n%s", addr, code, stderr)
		}
	}
}

// TestEmptyNameExit2: an empty --name is a mistake (an empty variable in a script), not a
// request for the default name: exit code 2, with a message naming --name.
func TestEmptyNameExit2(t *testing.T) {
	var code int
	_, stderr := capture.Output(t, func() {
		code = run([]string{"--headless", "--quiet", "--name", "", "--connect", "127.0.0.1:9", "--duration", "1s"})
	})
	if code != 2 || !strings.HasPrefix(stderr, "client: --name is empty") {
		t.Errorf("--name '': exit code %d, want 2, and a message naming --name:\n%s", code, stderr)
	}
}

// A --listen address that cannot be parsed or resolved exits 2, naming the flag.
func TestBadListenExit2(t *testing.T) {
	for _, addr := range []string{"nonsense", "127.0.0.1", "127.0.0.1:99999"} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--listen", addr, "--connect", "127.0.0.1:9", "--headless", "--quiet", "--duration", "1s"})
		})
		if want := fmt.Sprintf("client: --listen %q: ", addr); code != 2 || !strings.HasPrefix(stderr, want) {
			t.Errorf("--listen %q: exit code %d, standard error %q: want 2 and %q (the flag, then the address)", addr, code, stderr, want)
		}
	}
}
