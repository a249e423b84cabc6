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
		{"b0t1", `looks like "bot1"`},
		{"teacher", "reserved for the server and the teacher"},
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

// Without --name, the name is the user's (USER, else LOGNAME), or "player" where the game
// refuses the user's: a teacher whose account is "admin" or "teacher" runs the projector's
// command as written and is not refused for a reserved name.
func TestDefaultName(t *testing.T) {
	for _, c := range []struct{ user, logname, want string }{
		{"ann", "bob", "ann"},
		{"", "bob", "bob"},
		{"", "", "player"},
		{"teacher", "", "player"},
		{"admin", "ann", "ann"},
		{"Administrator", "", "Administrator"},
		{"bot1", "", "player"},
		{strings.Repeat("n", 33), "", "player"},
		{"ann\u202E", "", "player"},
	} {
		t.Setenv("USER", c.user)
		t.Setenv("LOGNAME", c.logname)
		if got := defaultName(); got != c.want {
			t.Errorf("USER=%q LOGNAME=%q: %q, want %q", c.user, c.logname, got, c.want)
		}
	}
}
