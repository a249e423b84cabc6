package stacklab

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ackattack/ackattack/net/linksim"
)

// TestQUICOnLoopback: the quic-go reference delivers the traffic over real loopback sockets,
// each message once and after its dependencies, and leaves no goroutine behind. It asserts
// nothing about time: its numbers are the machine's.
func TestQUICOnLoopback(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	msgs := traffic(1, 200, 2000)
	res := runQUIC(HOLConfig{Link: linksim.Settings{LossPercent: 10, Latency: time.Millisecond}, Seed: 1}, msgs)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.Sent != len(msgs) || res.Delivered != len(msgs) || res.Violations != 0 || !res.WallClock {
		t.Fatalf("sent %d, delivered %d of %d, %d violations", res.Sent, res.Delivered, len(msgs), res.Violations)
	}
}
