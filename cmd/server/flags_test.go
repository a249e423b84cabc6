package main

import (
	"net"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// The README's contract: exit 2 on a bad flag. --map takes skirmish or continent; an unknown
// map is refused only by NewServer, with exit code 1.
func TestUnknownMapExit2(t *testing.T) {
	if code := run([]string{"--listen", "127.0.0.1:0", "--map", "atlantis", "--duration", "1s"}); code != 2 {
		t.Errorf("--map atlantis: exit code %d, want 2", code)
	}
}

// TestBadListenExit2: a --listen address that cannot be parsed or resolved is a mistake of the
// command line, exit code 2, with a message naming --listen and the address, before anything
// runs.
func TestBadListenExit2(t *testing.T) {
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:99999", "127.0.0.1:-1", "[::1", "127.0.0.1:7777:1", ""} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--headless", "--listen", addr, "--duration", "1s"})
		})
		if code != 2 || !strings.HasPrefix(stderr, "server: --listen ") || !strings.Contains(stderr, addr) {
			t.Errorf("--listen %q: exit code %d, want 2, and a message naming --listen and the address:\n%s", addr, code, stderr)
		}
	}
}

// TestListenInUseExit1: an address that parses but cannot be bound (here one in use) is a
// failure of the run, exit code 1, with a message naming --listen and the address.
func TestListenInUseExit1(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	addr := pc.LocalAddr().String()
	var code int
	_, stderr := capture.Output(t, func() {
		code = run([]string{"--headless", "--listen", addr, "--duration", "1s"})
	})
	if code != 1 || !strings.HasPrefix(stderr, "server: --listen "+addr+": ") {
		t.Errorf("--listen %s (in use): exit code %d, want 1, and a message naming --listen and the address:\n%s", addr, code, stderr)
	}
}
