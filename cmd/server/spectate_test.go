package main

import (
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// TestSpectatorChatFlag: --spectator-chat takes a boolean; anything else is a mistake of the
// command line, exit 2, naming the flag. --spectator-chat=false runs.
func TestSpectatorChatFlag(t *testing.T) {
	var code int
	_, stderr := capture.Output(t, func() { code = run([]string{"--spectator-chat=mute"}) })
	if code != 2 || !strings.Contains(stderr, "-spectator-chat") {
		t.Errorf("--spectator-chat=mute: exit code %d, want 2 and a message naming the flag:\n%s", code, stderr)
	}
	_, stderr = capture.Output(t, func() {
		code = run([]string{"--headless", "--spectator-chat=false", "--listen", "127.0.0.1:0", "--duration", "200ms"})
	})
	if code != 0 {
		t.Errorf("--spectator-chat=false: exit code %d:\n%s", code, stderr)
	}
}
