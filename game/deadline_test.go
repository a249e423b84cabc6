package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// Nobody waits forever (drift_server.go): a stop-the-world with a client that never answers
// ends within pauseLimit for the others, and a client that keeps missing the rounds leaves the
// game. Every link loses 10% each way, and the bots play on.

// stopAndWait forces a stop-the-world and runs until it is over; it returns the pause's
// length as the server measured it.
func stopAndWait(t testing.TB, g *vgame) time.Duration {
	t.Helper()
	before := len(g.srv.stats.PauseMillis)
	g.srv.pauseWorld(g.now, nil)
	g.waitFor(15*time.Second, "the stop-the-world to end", func() bool {
		return g.srv.drift.pause == nil && len(g.srv.stats.PauseMillis) > before
	})
	return time.Duration(g.srv.stats.PauseMillis[len(g.srv.stats.PauseMillis)-1]) * time.Millisecond
}

func TestStopTheWorldWithASilentClient(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}
	g := newVGame(t, vspec{seed: 21, bots: 1, clients: 3, link: lossy,
		// The server keeps a silent connection for a minute, so that only the game's own
		// deadline decides what happens to it.
		server: func(c *ServerConfig) { c.Transport.Timeout = time.Minute }})
	g.waitFor(20*time.Second, "every client playing", func() bool {
		for _, c := range g.clients {
			if !clientRunning(c) {
				return false
			}
		}
		return true
	})
	silent := g.clients[2]
	seat := g.srv.seats.players[silent.role.seat]
	g.vanish(2) // alive to the server, deaf and mute to the game

	// Round 1: the others resume within the limit; the silent one is dropped from the round.
	took := stopAndWait(t, g)
	t.Logf("pause with a silent client: %v; dropped from rounds %d", took, g.srv.stats.PauseDropouts)
	if took >= pauseLimit {
		t.Errorf("the pause took %v with one silent client, want under %v", took, pauseLimit)
	}
	if g.srv.stats.PauseDropouts != 1 || seat.sync.pauseMisses != 1 || seat.peer == nil {
		t.Errorf("after one round: %d dropouts, %d misses, connected %v; want 1, 1, true",
			g.srv.stats.PauseDropouts, seat.sync.pauseMisses, seat.peer != nil)
	}
	frame := g.srv.w.Frame()
	g.run(2 * time.Second)
	for _, c := range g.live() {
		if c.w.Frame() <= frame || c.drift.pause != nil {
			t.Errorf("seat %d did not resume: at frame %d (server %d), pausing %v", c.role.seat, c.w.Frame(), g.srv.w.Frame(), c.drift.pause != nil)
		}
	}

	// Round 2: missed again, so the silent client leaves the game.
	took = stopAndWait(t, g)
	t.Logf("second pause: %v; players dropped %d", took, g.srv.stats.PlayersDropped)
	if took >= pauseLimit {
		t.Errorf("the second pause took %v, want under %v", took, pauseLimit)
	}
	if g.srv.stats.PlayersDropped != 1 || seat.peer != nil {
		t.Errorf("after two missed rounds: %d players dropped, connected %v; want 1, false", g.srv.stats.PlayersDropped, seat.peer != nil)
	}

	// The game goes on, and a round without the silent client needs no deadline.
	took = stopAndWait(t, g)
	if g.srv.stats.PauseDropouts != 2 {
		t.Errorf("%d dropouts after a round with every client answering, want still 2", g.srv.stats.PauseDropouts)
	}
	t.Logf("third pause, everyone answering: %v", took)

	// The dropped player reclaims its seat with its secret, and goes silent again: what the
	// server holds against it outlived the connection, so the first missed round drops it.
	back := g.clients[g.join(func(c *ClientConfig) {
		c.Name, c.PlayerID, c.Secret = silent.cfg.Name, silent.cfg.PlayerID, silent.secret
	})]
	g.waitFor(15*time.Second, "the dropped player back in its seat", func() bool { return clientRunning(back) && seat.peer != nil })
	g.vanish(len(g.clients) - 1)
	stopAndWait(t, g)
	if g.srv.stats.PlayersDropped != 2 || seat.peer != nil {
		t.Errorf("after the returning player missed one round: %d players dropped, connected %v; want 2, false",
			g.srv.stats.PlayersDropped, seat.peer != nil)
	}
	g.result()
}

// TestBogusReportsCannotFreezeTheGame: a client that claims, report after report, that its
// world has lost every unit makes the server stop the world once; the second time within
// stopWorldSpan nobody pauses again. Under rollback the client leaves the game instead; under
// the fast-forward, where worlds drift by design with every late command, the server repairs
// the first units in real time, as many as one re-sync carries, and the client stays. (The
// server repairs up to 4 units in real time here, so that every claim is too many for that.)
func TestBogusReportsCannotFreezeTheGame(t *testing.T) {
	t.Parallel()
	for _, late := range []LateMode{LateRollback, LateFastForward} {
		t.Run(late.String(), func(t *testing.T) {
			t.Parallel()
			bogusReportsCannotFreezeTheGame(t, late)
		})
	}
}

func bogusReportsCannotFreezeTheGame(t *testing.T, late LateMode) {
	lossy := linksim.Settings{LossPercent: 10, Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}
	g := newVGame(t, vspec{seed: 22, bots: 1, clients: 2, link: lossy,
		server: func(c *ServerConfig) { c.RealtimeMax, c.Late = 4, late },
		client: func(_ int, c *ClientConfig) { c.Late = late }})
	g.waitFor(20*time.Second, "every client playing, the server past frame 10", func() bool {
		return clientRunning(g.clients[0]) && clientRunning(g.clients[1]) && g.srv.w.Frame() > 10
	})
	s := g.srv
	st := s.seats.players[g.clients[0].role.seat]
	// What the attacker sends: a report of a frame the server has settled whose one group
	// covers every id with a hash that matches nothing, then an answer to the drill-down
	// that lists no unit at all.
	claim := func() {
		f := s.w.Frame() - 3
		inputs, _ := s.drift.hist.inputsAt(f, 0) // the server's: the report is checked at once
		s.hashReport(g.now, st, &HashReport{Frame: f, Root: 0xbad, Inputs: inputs})
		if q := st.sync.lastRequest(); q == nil || q.Frame != f {
			t.Fatalf("the server did not ask for the unit hashes of frame %d", f)
		}
		s.unitHashes(g.now, st, &UnitHashes{Frame: f})
	}
	claim()
	if s.stats.StopWorldResyncs != 1 {
		t.Fatalf("%d stop-the-world re-syncs after the first claim, want 1", s.stats.StopWorldResyncs)
	}
	g.waitFor(10*time.Second, "the pause to end", func() bool { return s.drift.pause == nil })
	g.run(3 * time.Second)
	repairs, units := s.stats.RealtimeResyncs, s.stats.MismatchedUnits
	claim()
	if s.stats.StopWorldResyncs != 1 || s.drift.pause != nil {
		t.Errorf("%d stop-the-world re-syncs after the second claim (pausing %v), want still 1", s.stats.StopWorldResyncs, s.drift.pause != nil)
	}
	switch late {
	case LateRollback:
		if s.stats.PlayersDropped != 1 || st.peer != nil {
			t.Errorf("%d players dropped, the claimant connected %v; want 1, false", s.stats.PlayersDropped, st.peer != nil)
		}
	case LateFastForward:
		if s.stats.PlayersDropped != 0 || st.peer == nil {
			t.Errorf("%d players dropped, the claimant connected %v; want 0, true", s.stats.PlayersDropped, st.peer != nil)
		}
		repaired := 0 // the units the repair carries: the ones it set to take effect at its frame
		for _, at := range s.drift.fixAt {
			if at == st.sync.repairAt {
				repaired++
			}
		}
		if s.stats.RealtimeResyncs != repairs+1 || repaired != 4 || s.stats.MismatchedUnits-units <= 4 {
			t.Errorf("%d real-time re-syncs of %d units after the second claim of %d, want 1 of 4, of more",
				s.stats.RealtimeResyncs-repairs, repaired, s.stats.MismatchedUnits-units)
		}
	}
	frame := s.w.Frame()
	g.run(2 * time.Second)
	if c := g.clients[1]; c.w.Frame() <= frame || c.drift.pause != nil {
		t.Errorf("the other client stopped: frame %d (server %d), pausing %v", c.w.Frame(), s.w.Frame(), c.drift.pause != nil)
	}
}

// TestBogusReportsRepairedOnceASecond: a client that reports a made-up difference ten times a
// second gets one stop-the-world at most, and a real-time re-sync at most once a second after
// a burst of realtimeBurst.
func TestBogusReportsRepairedOnceASecond(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 23, bots: 1, clients: 2})
	g.waitFor(20*time.Second, "every client playing", func() bool {
		return clientRunning(g.clients[0]) && clientRunning(g.clients[1])
	})
	s := g.srv
	st := s.seats.players[g.clients[0].role.seat]
	claims := 0
	for end := g.now.Add(5 * time.Second); g.now.Before(end); g.run(100 * time.Millisecond) {
		if s.drift.pause != nil {
			continue
		}
		f := s.w.Frame() - 3
		inputs, _ := s.drift.hist.inputsAt(f, 0) // the server's: the report is checked at once
		s.hashReport(g.now, st, &HashReport{Frame: f, Root: 0xbad, Inputs: inputs})
		s.unitHashes(g.now, st, &UnitHashes{Frame: f})
		claims++
	}
	t.Logf("%d claims in 5 s: %d real-time re-syncs, %d deferred, %d stop-the-world", claims, s.stats.RealtimeResyncs, s.stats.RepairsDeferred, s.stats.StopWorldResyncs)
	if s.stats.StopWorldResyncs > 1 {
		t.Errorf("%d stop-the-world re-syncs, want at most 1", s.stats.StopWorldResyncs)
	}
	if most := uint64(realtimeBurst + 5); s.stats.RealtimeResyncs > most {
		t.Errorf("%d real-time re-syncs in 5 s, want at most %d: a burst of %d, then one a second", s.stats.RealtimeResyncs, most, realtimeBurst)
	}
	if s.stats.RepairsDeferred == 0 {
		t.Error("no repair deferred")
	}
}
