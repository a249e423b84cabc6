package message

import (
	"slices"
	"testing"
	"time"
)

// ccSim drives a congestion controller the way a link does, clocked by acks: it keeps the
// window full of full-size packets (or sends only limit per round trip, an application that
// uses little of it), and each packet is acknowledged, or found lost, one round trip after it
// left, with that round trip as the RTT sample. The pacer is left out (a send never waits for
// it) except where a test looks at it.
type ccSim struct {
	cc      congestion
	mtu     int
	now     time.Time
	seq     uint16
	samples uint64
	base    time.Duration // the smallest RTT so far
	flight  []simPacket
}

type simPacket struct {
	seq uint16
	due time.Time
	rtt time.Duration
}

func newCCSim(cfg Config) *ccSim {
	cfg = cfg.withDefaults()
	return &ccSim{cc: newCongestion(cfg), mtu: cfg.MTU, now: base}
}

// round runs one round trip of d: every packet in flight is acknowledged (or lost: the
// indexes in lose, counted from the first packet this round resolves), and every ack lets the
// window send again. limit > 0 sends at most that many packets in the round.
func (s *ccSim) round(d time.Duration, limit int, lose ...int) {
	if len(s.flight) == 0 {
		s.fill(d, limit, nil)
	}
	end := s.now.Add(d)
	sent := 0
	for i := 0; len(s.flight) > 0 && !s.flight[0].due.After(end); i++ {
		p := s.flight[0]
		s.flight = s.flight[1:]
		s.now = p.due
		if s.base == 0 || p.rtt < s.base {
			s.base = p.rtt
		}
		if slices.Contains(lose, i) {
			s.cc.lost(p.seq, s.mtu, rtt{latest: p.rtt, smallest: s.base, samples: s.samples})
		} else {
			s.samples++
			s.cc.acked(p.seq, s.mtu, rtt{latest: p.rtt, smallest: s.base, samples: s.samples})
		}
		s.fill(d, limit, &sent)
	}
	s.now = end
}

// fill sends full packets while the window has room (and, with a limit, up to it).
func (s *ccSim) fill(d time.Duration, limit int, sent *int) {
	n := 0
	if sent == nil {
		sent = &n
	}
	for s.cc.inFlight < s.cc.window() && (limit == 0 || *sent < limit) {
		s.cc.sent(s.now, s.seq, s.mtu, d)
		s.flight = append(s.flight, simPacket{seq: s.seq, due: s.now.Add(d), rtt: d})
		s.seq++
		*sent++
	}
}

func (s *ccSim) packets() int { return s.cc.window() / s.mtu }

// TestCongestionWindow: the window's life under the conditions that move it, each from a fresh
// controller: it starts at the protocol's 32 packets and stays there on a clean link, a loss
// on a link without a queue takes a fifth off, a loss with a queue halves it, losses of one
// round trip count once, and it never goes below 4 packets. run returns the window just
// before its lossy round (0: none); want is then what the cut leaves, in tenths of it.
func TestCongestionWindow(t *testing.T) {
	const lan = 10 * time.Millisecond
	const queue = lan + 30*time.Millisecond
	warm := func(s *ccSim, d time.Duration, rounds int) {
		for range rounds {
			s.round(d, 0)
		}
	}
	// lossy warms up on the LAN, then on round trips of d, and loses the packets lose of the
	// next round trip of d; it returns the window before that round.
	lossy := func(lanRounds, dRounds int, d time.Duration, lose ...int) func(*ccSim) int {
		return func(s *ccSim) int {
			warm(s, lan, lanRounds)
			warm(s, d, dRounds)
			w := s.cc.window()
			s.round(d, 0, lose...)
			return w
		}
	}
	for _, tt := range []struct {
		name string
		run  func(s *ccSim) int
		want int // packets, or tenths of the window before the lossy round
		cuts [2]uint64
	}{
		{"starts at 32 packets", func(*ccSim) int { return 0 }, 32, [2]uint64{0, 0}},
		{"stays at 32 packets on a clean link", func(s *ccSim) int { warm(s, lan, 10); return 0 }, 32, [2]uint64{0, 0}},
		{"a loss without a queue takes a fifth", lossy(5, 0, lan, 3), betaNoise, [2]uint64{0, 1}},
		{"losses of one round trip cut once", lossy(5, 0, lan, 3, 7, 20), betaNoise, [2]uint64{0, 1}},
		// The round trip grew by 30 ms: a queue.
		{"a loss with a queue halves", lossy(5, 3, queue, 3), betaCongestion, [2]uint64{1, 0}},
		{"never below 4 packets", func(s *ccSim) int {
			warm(s, lan, 1)
			warm(s, queue, 3)
			for range 20 {
				s.round(queue, 0, 0)
			}
			return 0
		}, minWindowPackets, [2]uint64{20, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newCCSim(Config{})
			before := tt.run(s)
			st := s.cc.snapshot()
			if before == 0 {
				if got := s.packets(); got != tt.want {
					t.Errorf("window %d packets (%d bytes), want %d", got, st.Window, tt.want)
				}
			} else if want := before * tt.want / 10; st.Window != want {
				t.Errorf("window %d bytes after the cut, want %d tenths of %d: %d", st.Window, tt.want, before, want)
			}
			if got := [2]uint64{st.CongestionCuts, st.NoiseCuts}; got != tt.cuts {
				t.Errorf("congestion and noise cuts %v, want %v", got, tt.cuts)
			}
		})
	}
}

// TestCongestionBacksOffAsTheRTTGrows: rounds without a queue grow the delay-based part of
// the window by an eighth each; when the round trip grows, it shrinks by the estimated queue,
// before any packet is lost, and what is left is the loss-based part.
func TestCongestionBacksOffAsTheRTTGrows(t *testing.T) {
	const lan = 10 * time.Millisecond
	s := newCCSim(Config{})
	for range 3 {
		s.round(lan, 0, 0) // three losses without a queue: 32 packets to 16
	}
	for range 4 {
		s.round(lan, 0)
	}
	grown := s.cc.snapshot()
	if grown.DelayWindow == 0 {
		t.Fatalf("after four clean rounds: %+v, want a delay-based part", grown)
	}
	for range 3 {
		s.round(lan+30*time.Millisecond, 0)
	}
	st := s.cc.snapshot()
	if st.DelayWindow != 0 || st.DelayBackoffs == 0 || st.Window >= grown.Window {
		t.Fatalf("after the RTT grew by 30 ms: %+v, want the delay-based part gone and a smaller window than %d", st, grown.Window)
	}
	if st.CongestionCuts+st.NoiseCuts != 3 {
		t.Fatalf("cuts %+v: the back-off took a loss", st)
	}
}

// TestCongestionAppLimited: a sender that uses a fraction of its window (a game) does not
// grow it, and is never held back by it. The window is cut first, by losses, so that it has
// room to grow: at its ceiling it could not, and the test could not fail.
func TestCongestionAppLimited(t *testing.T) {
	const lan = 10 * time.Millisecond
	s := newCCSim(Config{})
	for range 3 {
		s.round(lan, 0, 0) // three losses without a queue, a fifth off each
	}
	s.round(lan, 2) // the last full window's acks come back; from now on 2 packets a round
	cut := s.cc.window()
	if cut > initialWindowPackets*s.mtu*3/4 {
		t.Fatalf("window %d bytes after three losses, want at most three quarters of 32 packets", cut)
	}
	for range 50 {
		s.round(lan, 2)
	}
	if n := len(s.flight); n != 2 {
		t.Fatalf("%d packets in flight, want the 2 the application sent", n)
	}
	if got := s.cc.window(); got != cut {
		t.Fatalf("window %d bytes after 50 rounds of 2 packets, want it left at %d", got, cut)
	}
}

// TestCongestionPacing: after a burst the pacer holds the next packet back, and says when it
// lets it go: not before 1 ms, and by then the budget has it.
func TestCongestionPacing(t *testing.T) {
	s := newCCSim(Config{})
	for range 6 {
		s.round(10*time.Millisecond, 0) // open the window to 32 packets
	}
	s.cc.inFlight = 0
	srtt := 100 * time.Millisecond // 32 packets per 100 ms at 1.25: 480 kB/s
	now := s.now.Add(time.Second)  // a full budget
	sent := 0
	for s.cc.holds(now, srtt) == holdNone {
		s.cc.sent(now, uint16(sent), s.mtu, srtt)
		sent++
	}
	if sent != maxBurstPackets {
		t.Fatalf("a burst of %d packets, want %d", sent, maxBurstPackets)
	}
	next := s.cc.nextSend(now, srtt)
	if wait := next.Sub(now); wait != 2500*time.Microsecond {
		t.Fatalf("next packet in %v, want one packet's time at the rate: 2.5 ms", wait)
	}
	if s.cc.holds(next, srtt) != holdNone {
		t.Fatal("the pacer holds the packet at the time it named")
	}
}

// TestCongestionCountsHeldPackets: WindowWaits and PacedWaits count the packets with messages
// due that the window or the pacer held back, one for each AppendPacket that had something to
// send and sent nothing; an AppendPacket with nothing to send counts nothing, however often it
// is called while the window is full or the pacer's budget is spent.
func TestCongestionCountsHeldPackets(t *testing.T) {
	cfg := Config{}.withDefaults()
	full := make([]byte, cfg.room()-5) // a message that fills a packet
	queue := func(t *testing.T, c *Conn, now time.Time, n int) {
		t.Helper()
		for range n {
			if _, err := c.SendGuaranteed(now, full, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// drain sends what the connection lets go at now and returns how many packets that was.
	drain := func(c *Conn, now time.Time) (sent int) {
		for {
			if _, ok := c.AppendPacket(nil, now, false); !ok {
				return sent
			}
			sent++
		}
	}
	for _, tt := range []struct {
		name  string
		start func(t *testing.T) (*Conn, time.Time)
		sent  int  // the packets that leave before the hold
		hold  hold // what holds the next
	}{
		// Before a round trip is measured only the window decides: 32 full packets leave and
		// nothing comes back.
		{"window", func(*testing.T) (*Conn, time.Time) { return New(cfg, func(*Message) {}), base }, initialWindowPackets, holdWindow},
		// One message there and its ack back over 100 ms measure the round trip; the pacer
		// then lets a burst of 10 full packets go, and no more at that instant.
		{"pacer", func(t *testing.T) (*Conn, time.Time) {
			a, b := New(cfg, func(*Message) {}), New(cfg, func(*Message) {})
			queue(t, a, base, 1)
			d, _ := a.AppendPacket(nil, base, false)
			if err := b.Receive(base.Add(50*time.Millisecond), d); err != nil {
				t.Fatal(err)
			}
			ack, _ := b.AppendPacket(nil, base.Add(50*time.Millisecond), true)
			now := base.Add(100 * time.Millisecond)
			if err := a.Receive(now, ack); err != nil {
				t.Fatal(err)
			}
			return a, now
		}, maxBurstPackets, holdPacer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, now := tt.start(t)
			check := func(what string, held uint64) {
				t.Helper()
				want := [2]uint64{held, 0} // window, paced
				if tt.hold == holdPacer {
					want = [2]uint64{0, held}
				}
				st := c.Stats().Congestion
				if got := [2]uint64{st.WindowWaits, st.PacedWaits}; got != want {
					t.Errorf("%s: window and paced waits %v, want %v", what, got, want)
				}
			}
			queue(t, c, now, tt.sent)
			if n := drain(c, now); n != tt.sent {
				t.Fatalf("%d packets sent, want %d", n, tt.sent)
			}
			if h := c.held(now); h != tt.hold {
				t.Fatalf("held by %d, want %d", h, tt.hold)
			}
			for range 100 {
				c.AppendPacket(nil, now, false)
			}
			check("held, nothing queued, 100 calls", 0)
			queue(t, c, now, 1)
			drain(c, now)
			check("held, a message queued", 1)
		})
	}
}
