package transport

import (
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// TestClientRetriesSpread: a client whose server never answers sends a request at once, then
// one after each wait of Retry to Retry + a quarter: never sooner (so never more than one per
// Retry in its ConnectTimeout), and two clients that start together drift apart instead of
// sending in step.
func TestClientRetriesSpread(t *testing.T) {
	const retry, timeout = 250 * time.Millisecond, 5 * time.Second
	start := time.UnixMilli(1_700_000_000_000)
	srvAddr := netip.MustParseAddrPort("198.51.100.1:7777")
	sends := make([][]time.Time, 2)
	for i := range sends {
		var out outbox
		c, err := NewClient(srvAddr, ClientConfig{Name: "joiner", Retry: retry, ConnectTimeout: timeout, Config: Config{Rand: rand.NewChaCha8([32]byte{33, byte(i)})}}, &out)
		if err != nil {
			t.Fatal(err)
		}
		for now := start; c.State() != Disconnected; now = now.Add(time.Millisecond) {
			c.Tick(now)
			for range out.take() {
				sends[i] = append(sends[i], now)
			}
			if next := c.NextTick(now); c.State() != Disconnected && next.After(now.Add(retry+retry/4)) {
				t.Fatalf("client %d: next tick at %v, after the longest wait", i, next.Sub(now))
			}
		}
		if n := len(sends[i]); n < int(timeout/(retry+retry/4)) || n > int(timeout/retry)+1 {
			t.Errorf("client %d sent %d requests in %v, want %d to %d", i, n, timeout, int(timeout/(retry+retry/4)), int(timeout/retry)+1)
		}
		for k := 1; k < len(sends[i]); k++ {
			if gap := sends[i][k].Sub(sends[i][k-1]); gap < retry || gap > retry+retry/4+time.Millisecond {
				t.Errorf("client %d: request %d came %v after the one before, want %v to %v", i, k, gap, retry, retry+retry/4)
			}
		}
	}
	inStep := 0
	for k := 1; k < min(len(sends[0]), len(sends[1])); k++ {
		if sends[0][k].Sub(sends[0][k-1]) == sends[1][k].Sub(sends[1][k-1]) {
			inStep++
		}
	}
	if inStep > 2 {
		t.Errorf("the two clients waited alike %d times of %d", inStep, min(len(sends[0]), len(sends[1]))-1)
	}
	t.Logf("requests at %v and %v after the start", offsets(sends[0], start), offsets(sends[1], start))
}

func offsets(ts []time.Time, from time.Time) []time.Duration {
	var d []time.Duration
	for _, t := range ts {
		d = append(d, t.Sub(from))
	}
	return d
}
