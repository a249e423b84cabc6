package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Joining, leaving, coming back and churn, in virtual time (vgame_test.go).

// clientRunning: c has a world in lockstep (not waiting for a snapshot) past frame 0.
func clientRunning(c *Client) bool {
	return (c.phase == phaseRunning || c.phase == phasePaused) && c.w.Frame() > 0
}

// issueStop orders one of c's own units to stop and returns the frame it runs at.
func issueStop(t *testing.T, c *Client, now time.Time) uint32 {
	t.Helper()
	for _, u := range c.w.Units() {
		if u.Owner == c.role.seat && !u.IsEnemy() {
			f, err := c.Command(now, world.CommandStop, []uint32{u.ID}, 0, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatal("no unit of mine")
	return 0
}

// Regression test. The failure it guards against: a player who leaves and comes back (same
// player id, a new Client) starts counting its commands at 1 again, but the server's schedule
// remembers (seat, id) of every command it ever saw: the rejoined player's first commands are
// dropped as duplicates on the server (and on every other host), while the player's own host
// applies them.
func TestRejoinedPlayersCommandsAreNotDuplicates(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 11, bots: 1, clients: 1, client: func(_ int, c *ClientConfig) { c.Bot = false; c.NoDirect = true }})
	ann := g.clients[0]
	g.waitFor(10*time.Second, "the game to start", func() bool { return clientRunning(ann) })
	base := g.srv.stats.CommandsRelayed
	for range 3 {
		issueStop(t, ann, g.now)
	}
	g.waitFor(3*time.Second, "the server to take ann's 3 commands", func() bool { return g.srv.stats.CommandsRelayed >= base+3 })
	g.leave(0)
	g.waitFor(3*time.Second, "the server to see ann leave", func() bool { return g.srv.stats.Leaves == 1 })
	base = g.srv.stats.CommandsRelayed

	i := g.join(func(c *ClientConfig) {
		c.PlayerID, c.Secret, c.Bot, c.NoDirect = ann.cfg.PlayerID, ann.secret, false, true
	})
	again := g.clients[i]
	g.waitFor(10*time.Second, "the rejoined client to run", func() bool { return clientRunning(again) })
	if again.role.seat != ann.role.seat {
		t.Errorf("ann came back to seat %d, had seat %d", again.role.seat, ann.role.seat)
	}
	frame := issueStop(t, again, g.now)
	if !g.runUntil(g.now.Add(2*time.Second), func() bool { return g.srv.stats.CommandsRelayed > base }) {
		t.Errorf("the rejoined player's command (id %d, frame %d) never counted on the server (dropped as a duplicate of the earlier connection's)", again.orders.lastID, frame)
	}
}

// Regression test. The failure it guards against: a client that joins while a stop-the-world
// pause is scheduled gets StartGame and a snapshot but no Pause: it runs straight through the
// frame every other host stops at.
func TestClientJoiningDuringPendingPauseStops(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 12, bots: 1})
	g.waitFor(10*time.Second, "the game to run", func() bool { return g.srv.clock.running && g.srv.w.Frame() >= 5 })
	g.srv.lead.lastChange = g.now.Add(time.Hour) // keep the lead where this test puts it
	g.srv.lead.cur = 5                           // a pause ~1.5 s ahead, and a resume 0.5 s after reaching it
	g.srv.pauseWorld(g.now, nil)
	P := g.srv.drift.pause.frame
	c := g.clients[g.join(nil)]
	g.waitFor(5*time.Second, "the server to reach the pause", func() bool { return g.srv.drift.pause != nil && !g.srv.drift.pause.reached.IsZero() })
	maxFrame := uint32(0)
	g.runUntil(g.now.Add(10*time.Second), func() bool {
		if c.w != nil {
			maxFrame = max(maxFrame, c.w.Frame())
		}
		return g.srv.drift.pause == nil
	})
	if g.srv.drift.pause != nil {
		t.Fatalf("the pause at frame %d did not end in 10 s", P)
	}
	if maxFrame > P+1 { // the client's last step may be the frame the server resumed with
		t.Errorf("while the server was paused at frame %d, the client that joined before the pause ran on to frame %d (it never got the Pause)", P, maxFrame)
	}
}

// Regression test. The failure it guards against: when a command that came late to the server
// (its frame already run, applied at the next step) is still pending as a client joins, the
// snapshot leaves it out, and the joining client never applies it.
func TestSnapshotIncludesLatePendingCommand(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 13, bots: 1})
	g.waitFor(10*time.Second, "the game to run", func() bool { return g.srv.clock.running && g.srv.w.Frame() >= 5 })
	s := g.srv
	f := s.w.Frame()
	cmd := moveCommand(t, s.w, 0, 1<<20, f-1) // arrived one frame late
	s.command(g.now, cmd, nil)
	// The server applies the late command at its next step, a frame from now; the client's
	// handshake and snapshot take a few milliseconds of a clean link, so it joins before.
	c := g.clients[g.join(nil)]
	g.waitFor(time.Second, "the joining client's snapshot", func() bool { return c.w != nil })
	if s.w.Frame() != f {
		t.Fatalf("setup: the server stepped to frame %d before the client joined", s.w.Frame())
	}
	g.waitFor(5*time.Second, "the joining client to run", func() bool { return clientRunning(c) })
	check := f + 5
	g.waitFor(5*time.Second, "both hosts past the check frame", func() bool { return s.w.Frame() > check+1 && c.w.Frame() > check+1 })
	sh, _ := s.drift.hist.at(check)
	ch, _ := c.drift.hist.at(check)
	if len(sh) == 0 || len(ch) == 0 {
		t.Fatalf("no history at frame %d (server %d units, client %d)", check, len(sh), len(ch))
	}
	a, _ := hashOf(sh, cmd.Units[0])
	b, _ := hashOf(ch, cmd.Units[0])
	if a != b {
		t.Errorf("unit %d at frame %d: server hash %016x, joining client %016x: the late command pending at the join was not in the snapshot", cmd.Units[0], check, a, b)
	}
}

// Regression test. The failure it guards against: messages the connection refused
// (back-pressure) wait in the seat's outbox, which only step() flushed. Once the server stops
// the world it no longer steps, so a Pause stuck in an outbox is never sent: the pause never
// ends, even after the sequence space has freed up.
func TestOutboxFlushedWhilePaused(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 14, bots: 1, clients: 1})
	c := g.clients[0]
	g.waitFor(10*time.Second, "the game to run", func() bool { return clientRunning(c) })
	st := g.srv.seats.players[c.role.seat]
	for i := 0; i < 40000 && st.out.waiting() == 0; i++ {
		g.srv.send(st, g.now, &Peers{}) // harmless traffic filling the sequence space
	}
	g.srv.pauseWorld(g.now, nil)
	t.Logf("outbox after the flood and the pause order: %d messages", st.out.waiting())
	if st.out.waiting() == 0 {
		t.Fatal("setup: nothing waits in the outbox")
	}
	// Message sequence numbers are free again Timeout + 1 s (6 s) after they executed.
	g.run(9 * time.Second)
	if g.srv.drift.pause != nil || c.stats.StopWorldResyncs == 0 {
		t.Errorf("9 s later: server paused=%v at frame %d, client got %d Pause, %d messages still in the outbox (never flushed while paused)",
			g.srv.drift.pause != nil, g.srv.w.Frame(), c.stats.StopWorldResyncs, st.out.waiting())
	}
}

// TestSeatHeldThenFreed: a player who vanishes keeps its seat for SeatHold, so coming back
// (the same player id) finds its units; after the hold, the seat is anybody's.
func TestSeatHeldThenFreed(t *testing.T) {
	t.Parallel()
	const hold = 10 * time.Second
	g := newVGame(t, vspec{seed: 15, bots: 1, clients: 1, server: func(c *ServerConfig) { c.Places.SeatHold = hold }})
	ann := g.clients[0]
	g.waitFor(10*time.Second, "the game to run", func() bool { return clientRunning(ann) })
	seat := ann.role.seat
	g.vanish(0)
	g.waitFor(10*time.Second, "the server to time ann out", func() bool { return g.srv.seats.players[seat].peer == nil })
	g.run(hold / 2)
	if g.srv.seats.players[seat] == nil {
		t.Fatal("the seat was freed before its hold ran out")
	}
	back := g.clients[g.join(func(c *ClientConfig) { c.PlayerID, c.Secret = ann.cfg.PlayerID, ann.secret })]
	g.waitFor(10*time.Second, "ann back in her seat", func() bool { return clientRunning(back) })
	if back.role.seat != seat {
		t.Errorf("ann came back to seat %d, held seat %d", back.role.seat, seat)
	}
	g.vanish(len(g.clients) - 1)
	g.waitFor(10*time.Second, "the server to time ann out again", func() bool { return g.srv.seats.players[seat].peer == nil })
	g.run(hold + time.Second)
	if g.srv.seats.players[seat] != nil || g.srv.stats.SeatsFreed != 1 {
		t.Fatalf("after the hold: seat %d is %+v, %d seats freed", seat, g.srv.seats.players[seat], g.srv.stats.SeatsFreed)
	}
	if info := g.srv.seatInfos(); len(info) != 1 {
		t.Errorf("the player table after the hold: %+v, want only the bot", info)
	}
}

// TestChurnNeverFillsTheServer: students start clients and kill them (no goodbye), over and
// over, each start a new player id. Every seat they take is freed after its hold, so the
// server never fills for good: a client that arrives after the holds joins and plays.
func TestChurnNeverFillsTheServer(t *testing.T) {
	onlyInFull(t)
	t.Parallel()
	g := newVGame(t, vspec{seed: 16, bots: 1, clients: 1})
	g.waitFor(10*time.Second, "the game to run", func() bool { return clientRunning(g.clients[0]) })
	g.vanish(0)
	joined, watched := 0, 0
	for range 30 { // 30 starts, one every 4 s: more than the 7 free seats within any hold
		i := g.join(nil)
		c := g.clients[i]
		g.run(4 * time.Second)
		switch {
		case c.w != nil && (c.role.kind == rolePlayer):
			joined++
		case c.w != nil && c.role.spectate != nil:
			watched++
		}
		g.vanish(i)
	}
	// While the holds run, every seat is taken at times (that is what a hold is), and a client
	// that comes then watches as a spectator (spectate.go); seats come free again and again.
	t.Logf("churn: %d of 30 starts took a seat, %d watched as spectators; seats freed %d", joined, watched, g.srv.stats.SeatsFreed)
	if joined+watched != 30 || watched == 0 {
		t.Errorf("%d starts took a seat and %d watched, want all 30 in, some watching", joined, watched)
	}
	if g.srv.stats.SeatsFreed < world.MaxPlayers {
		t.Errorf("only %d seats freed while 30 players came and vanished", g.srv.stats.SeatsFreed)
	}
	g.run(MaxSeatHold + 6*time.Second) // every hold runs out (timeout 5 s, then the hold)
	late := g.clients[g.join(nil)]
	g.waitFor(10*time.Second, "the late client to join and run", func() bool { return clientRunning(late) })
	g.run(5 * time.Second)
	// It plays in lockstep: its world is the server's at the frames both recorded.
	common := 0
	for f, h := range late.drift.hashes.report(late.w.Frame()) {
		if sh, ok := g.srv.stats.hashes.report(g.srv.w.Frame())[f]; ok {
			common++
			if sh != h {
				t.Errorf("the late client's world at frame %s is %s, the server's %s", f, h, sh)
			}
		}
	}
	if common == 0 {
		t.Error("the late client has no frame in common with the server")
	}
	if n := len(g.srv.seatInfos()); n != 2 {
		t.Errorf("after the churn the player table has %d rows, want 2 (the bot and the late client): %+v", n, g.srv.seatInfos())
	}
}
