package main

import (
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// A --name the game's rules refuse (game.CheckPlayerName) exits 2 before anything connects,
// with the reason.
func TestRefusedNameExit2(t *testing.T) {
	for _, c := range []struct{ name, says string }{
		{"bot1", "reserved"},
		{"ann\u202Egnp", "U+202E"},
		{"an\u200Bn", "U+200B"},
		{"\uFEFFann", "U+FEFF"},
		{" ann", "starts with a space"},
		{"ann\u00A0lee", "U+00A0"},
	} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--name", c.name, "--connect", "127.0.0.1:9", "--headless", "--quiet", "--duration", "1s"})
		})
		if code != 2 || !strings.Contains(stderr, "--name") || !strings.Contains(stderr, c.says) {
			t.Errorf("--name %+q: exit code %d, standard error %q: want 2 and a message that says %q", c.name, code, stderr, c.says)
		}
	}
}
