package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
)

// TestHeadlessTakesTheClassLink: a client started headless and without a link flag takes the
// link the teacher gives the class: its socket's conditioner carries it, and its status line
// says which.
func TestHeadlessTakesTheClassLink(t *testing.T) {
	t.Parallel()
	srv := startClassServer(t)
	r := startClient(t, "--headless", "--bot", "--name", "ann", "--connect", srv.Addr())
	r.waitFrame(1, "RUNNING")
	class := linksim.Settings{Latency: 20 * time.Millisecond, LossPercent: 10}
	pushed := make(chan error, 1)
	srv.Do(func(s *game.Server, now time.Time) { pushed <- s.PushLink(now, class) })
	if err := <-pushed; err != nil {
		t.Fatal(err)
	}
	out := r.wait("the class's link on a status line", func(out string) bool { return strings.Contains(out, "  class link: loss 10% lat 20ms") })
	if strings.Contains(out, "NOT APPLIED") {
		t.Errorf("the class's link was not applied:\n%s", out)
	}
	if code, _, stderr := r.interrupt(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr)
	}
}
