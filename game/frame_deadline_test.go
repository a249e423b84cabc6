package game

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// TestServerFrameDeadlines: in virtual time the harness ticks the server at its frame's due
// time, so a game at 10% loss misses no frame deadline. A Tick just under a frame period after
// a frame was due is late but not a miss; a Tick two frame periods after the next one was due
// steps that frame and the one after it a whole period or more late (two misses, the latest
// 200 ms) and the frame due at that moment on time. The report carries both; a client's has
// neither.
func TestServerFrameDeadlines(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
	g := newVGame(t, vspec{seed: 7, bots: 1, clients: 2, link: lossy})
	g.run(10 * time.Second)
	s := g.srv
	if !s.clock.running || s.drift.pause != nil || s.w.Frame() < 50 {
		t.Fatalf("the game is not under way: running %v, paused %v, frame %d", s.clock.running, s.drift.pause != nil, s.frameNow())
	}
	if s.stats.FramesLate != 0 || s.stats.MaxFrameLate >= s.cfg.Frame {
		t.Errorf("in virtual time: %d frames late, the latest %v", s.stats.FramesLate, s.stats.MaxFrameLate)
	}
	t.Logf("%d frames in virtual time, the latest started %v after its due time", s.w.Frame(), s.stats.MaxFrameLate)

	period := s.cfg.Frame
	f, due := s.w.Frame(), s.clock.nextFrame
	s.Tick(due.Add(period - time.Nanosecond))
	if s.w.Frame() != f+1 || s.stats.FramesLate != 0 || s.stats.MaxFrameLate != period-time.Nanosecond {
		t.Errorf("a frame just under a period late: frame %d (want %d), %d late, the latest %v", s.w.Frame(), f+1, s.stats.FramesLate, s.stats.MaxFrameLate)
	}
	s.Tick(s.clock.nextFrame.Add(2 * period))
	if s.w.Frame() != f+4 || s.stats.FramesLate != 2 || s.stats.MaxFrameLate != 2*period {
		t.Errorf("a Tick two periods after a frame was due: frame %d (want %d), %d late (want 2), the latest %v (want %v)",
			s.w.Frame(), f+4, s.stats.FramesLate, s.stats.MaxFrameLate, 2*period)
	}

	res := g.result()
	if d := res.server.Game.FrameDeadlines; d == nil || d.FramesLate != 2 || d.MaxFrameLateMillis != float64(2*period/time.Millisecond) {
		t.Errorf("the server's report: %+v", d)
	}
	b, err := json.Marshal(res.server)
	if err != nil || !strings.Contains(string(b), `"frames_late":2,"max_frame_late_ms":200`) {
		t.Errorf("the server's --stats JSON lacks the deadlines (%v):\n%s", err, b)
	}
	for _, r := range res.clients {
		if b, err := json.Marshal(r); err != nil || strings.Contains(string(b), "frames_late") {
			t.Errorf("a client's report has the server's deadlines (%v):\n%s", err, b)
		}
	}
}
