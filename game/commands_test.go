package game

import (
	"errors"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/world"
)

// TestCommandFramesAndTokens: the frames a host takes commands for, and what a command costs
// of its seat's rate (commands.go).
func TestCommandFramesAndTokens(t *testing.T) {
	for _, tt := range []struct {
		name                string
		now, lead, window   uint32
		wantFirst, wantLast uint32
	}{
		{"at the start", 0, 2, 30, 0, 32},
		{"within the first window", 20, 2, 30, 0, 52},
		{"later", 1000, 2, 30, 970, 1032},
		{"the longest lead and window", 1000, 30, 60, 940, 1090},
	} {
		first, last := commandFrames(tt.now, tt.lead, tt.window)
		if first != tt.wantFirst || last != tt.wantLast {
			t.Errorf("%s: frames %d to %d, want %d to %d", tt.name, first, last, tt.wantFirst, tt.wantLast)
		}
	}
	for _, tt := range []struct {
		units, want int
	}{{1, 1}, {4, 1}, {16, 1}, {17, 2}, {33, 3}, {world.MaxCommandUnits, 64}} {
		if got := commandTokens(&Command{Units: make([]uint32, tt.units)}); got != tt.want {
			t.Errorf("a command of %d units costs %d tokens, want %d", tt.units, got, tt.want)
		}
	}
	if biggest := commandTokens(&Command{Units: make([]uint32, world.MaxCommandUnits)}); biggest > clientCommands.burst {
		t.Errorf("a command of %d units costs %d tokens, more than the client's burst %d: it could never be sent", world.MaxCommandUnits, biggest, clientCommands.burst)
	}
}

// TestRateBucketTakesSeveral: a bucket takes n at once when it has them, all or none, and
// never more than its burst.
func TestRateBucketTakesSeveral(t *testing.T) {
	l := rateLimit{burst: 10, every: 10 * time.Millisecond}
	t0 := time.Unix(1000, 0)
	var b rateBucket
	for _, tt := range []struct {
		at   time.Duration
		n    int
		want bool
	}{
		{0, 11, false}, // more than the burst: never
		{0, 6, true},
		{0, 5, false}, // 4 left
		{0, 4, true},
		{0, 1, false},
		{30 * time.Millisecond, 3, true}, // 3 came back
		{30 * time.Millisecond, 1, false},
		{time.Second, 10, true}, // full again
	} {
		if got := b.takeN(t0.Add(tt.at), l, tt.n); got != tt.want {
			t.Errorf("at %v, %d: took %v, want %v", tt.at, tt.n, got, tt.want)
		}
	}
}

// boundsGame is a game of one server bot and one client that gives no orders of its own, so
// that a test sends the server what it likes from the client's connection.
func boundsGame(t *testing.T, seed uint64) (*vgame, *Client) {
	t.Helper()
	g := newVGame(t, vspec{seed: seed, bots: 1, clients: 1, client: func(_ int, c *ClientConfig) { c.Bot, c.NoDirect = false, true }})
	c := g.clients[0]
	g.waitFor(10*time.Second, "the game", func() bool { return clientRunning(c) && g.srv.w != nil && g.srv.w.Frame() > 80 })
	return g, c
}

// rawCommand sends the server a command of c's seat for frame as the connection's next
// message, past the client's own checks: what a student's program can send.
func rawCommand(t *testing.T, g *vgame, c *Client, id, frame uint32, units int) {
	t.Helper()
	ids := make([]uint32, units)
	for i := range ids {
		ids[i] = uint32(i + 1)
	}
	if _, err := c.sendToServer(g.now, &Command{Seat: c.role.seat, ID: id, Frame: frame, Kind: world.CommandStop, Units: ids}, nil); err != nil {
		t.Fatalf("command %d: %v", id, err)
	}
}

// pendingOf counts the commands of seat waiting in the server's schedule.
func pendingOf(s *Server, seat uint8) (n int) {
	for _, e := range s.sched.pending {
		if e.kind == evCommand && e.seat == seat {
			n++
		}
	}
	return n
}

// TestServerTakesCommandsOnlyForFramesThatCanRun: a command for a frame from the re-run window
// before the server's frame to the lead and the window after it is taken (a late one is run
// again); one far before or after is refused and counted, and the server keeps nothing of it:
// 1,000 commands for frame 1,000,000 leave its schedule as it was (each stayed in it until its
// frame before, and went to every joiner).
func TestServerTakesCommandsOnlyForFramesThatCanRun(t *testing.T) {
	t.Parallel()
	g, c := boundsGame(t, 3)
	s := g.srv
	seat := c.role.seat
	now, lead, window := s.w.Frame(), s.lead.latestFrames(), s.drift.rw.windowFrames()
	first, last := commandFrames(now, lead, window)
	reruns := s.drift.rw.stats.LateRerun
	for i, frame := range []uint32{first + 5, now - 3, now + lead, last - 5} {
		rawCommand(t, g, c, uint32(100+i), frame, 1)
	}
	const far = 1000
	for i := range far {
		rawCommand(t, g, c, uint32(1000+i), 1_000_000, 1)
	}
	for i := range 10 {
		rawCommand(t, g, c, uint32(5000+i), first-5, 1)
	}
	g.waitFor(5*time.Second, "every command at the server", func() bool { return s.stats.CommandsOutOfRange >= far+10 })
	g.run(time.Second)
	if s.stats.CommandsOutOfRange != far+10 {
		t.Errorf("%d commands refused for their frame, want %d", s.stats.CommandsOutOfRange, far+10)
	}
	if s.stats.CommandsTooFast != 0 {
		t.Errorf("%d commands refused as too fast, want 0 (%d tokens at once)", s.stats.CommandsTooFast, serverCommands.burst)
	}
	if n := pendingOf(s, seat); n > 4 {
		t.Errorf("%d commands of the seat wait in the schedule, want at most the 4 taken", n)
	}
	if s.drift.rw.stats.LateRerun < reruns+2 {
		t.Errorf("late commands run again: %d, want the 2 late ones taken (%d before)", s.drift.rw.stats.LateRerun, reruns)
	}
	for _, e := range s.sched.pending {
		if e.kind == evCommand && e.frame > s.w.Frame()+lead+window {
			t.Errorf("a command for frame %d waits at frame %d", e.frame, s.w.Frame())
		}
	}
}

// TestServerHoldsEachSeatToItsRate: a student's program sends 2,000 commands in a second; the
// server takes its burst and its rate (128 tokens, then one every 20 ms), refuses and counts
// the rest; a command of 1,024 units costs 64 tokens. The Go client holds itself to the
// client's rate: its 65th order at once is refused on its screen, and runs nowhere.
func TestServerHoldsEachSeatToItsRate(t *testing.T) {
	t.Parallel()
	g, c := boundsGame(t, 5)
	s := g.srv
	start := g.now
	sent := 0
	for range 100 {
		for range 20 {
			rawCommand(t, g, c, uint32(100+sent), s.w.Frame()+2, 1)
			sent++
		}
		g.run(10 * time.Millisecond)
	}
	g.run(2 * time.Second)
	took := uint64(sent) - s.stats.CommandsTooFast // every one arrived: the connection is guaranteed
	most := uint64(serverCommands.burst) + uint64(time.Second/serverCommands.every) + 1
	t.Logf("%d sent in %v: %d taken, %d refused as too fast", sent, g.now.Sub(start), took, s.stats.CommandsTooFast)
	if took > most || took < most*3/4 {
		t.Errorf("the server took %d of %d commands, want about %d (the burst and a second's rate)", took, sent, most)
	}
	if s.stats.CommandsTooFast == 0 {
		t.Error("no command refused as too fast")
	}

	// 1,024 units: 64 tokens, which a full bucket has.
	g.run(5 * time.Second)
	refused := s.stats.CommandsTooFast
	rawCommand(t, g, c, 9000, s.w.Frame()+2, world.MaxCommandUnits)
	rawCommand(t, g, c, 9001, s.w.Frame()+2, world.MaxCommandUnits)
	rawCommand(t, g, c, 9002, s.w.Frame()+2, world.MaxCommandUnits)
	g.run(time.Second)
	if n := s.stats.CommandsTooFast - refused; n != 1 {
		t.Errorf("of three commands of 1,024 units at once, %d refused, want the third (2 × 64 tokens is the burst)", n)
	}

	// The client's own limit.
	var unit uint32
	for _, u := range c.w.Units() {
		if u.Owner == c.role.seat && !u.IsEnemy() {
			unit = u.ID
		}
	}
	ok, tooFast := 0, 0
	for range commandBurst + 10 {
		_, err := c.Command(g.now, world.CommandStop, []uint32{unit}, 0, 0, 0)
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrCommandsTooFast):
			tooFast++
		default:
			t.Fatalf("order: %v", err)
		}
	}
	if ok != commandBurst || tooFast != 10 {
		t.Errorf("of %d orders at once, %d went and %d were refused as too fast; want %d and 10", commandBurst+10, ok, tooFast, commandBurst)
	}
	g.run(time.Second)
	if _, err := c.Command(g.now, world.CommandStop, []uint32{unit}, 0, 0, 0); err != nil {
		t.Errorf("an order a second later: %v", err)
	}
}

// TestSpectatorJoinsPastAPlayersScheduledCommands: a player schedules commands as far ahead as
// the server takes them, as fast as its rate lets it, for 3 s: some 300 wait in the schedule,
// and a spectator who joins then gets every one of them. It is not dropped as too far behind
// for what the player scheduled (it was at once, with 256 messages its limit), and watches
// the game.
func TestSpectatorJoinsPastAPlayersScheduledCommands(t *testing.T) {
	t.Parallel()
	g, c := boundsGame(t, 7)
	s := g.srv
	id := uint32(100)
	for end := g.now.Add(3 * time.Second); g.now.Before(end); {
		_, last := commandFrames(s.w.Frame(), s.lead.latestFrames(), s.drift.rw.windowFrames())
		for range 3 {
			rawCommand(t, g, c, id, last-1, 1)
			id++
		}
		g.run(20 * time.Millisecond)
	}
	waiting := pendingOf(s, c.role.seat)
	w := g.joinWatcher(func(cfg *ClientConfig) { cfg.Spectate = true })
	g.waitFor(10*time.Second, "the spectator's world", func() bool { return clientRunning(g.clients[w]) })
	g.run(5 * time.Second)
	t.Logf("%d commands of the player waited when the spectator joined; %d sent, %d refused as too fast", waiting, id-100, s.stats.CommandsTooFast)
	if waiting <= spectatorBacklog {
		t.Fatalf("only %d commands waited, want more than the spectator's backlog (%d)", waiting, spectatorBacklog)
	}
	if s.stats.SpectatorsDropped != 0 || g.clients[w].Ended() != nil {
		t.Errorf("the spectator was dropped (%d): %v", s.stats.SpectatorsDropped, g.clients[w].Ended())
	}
	if sf, wf := s.w.Frame(), g.clients[w].w.Frame(); wf+5 < sf {
		t.Errorf("the spectator is at frame %d, the server at %d", wf, sf)
	}
}

// TestDirectLinkHoldsCommandsToTheSeatsBounds: a player's commands over a direct link are held
// to what the server holds that seat to: 100 commands for frame 1,000,000 are refused as bad
// messages and kept nowhere, of 300 commands at once for a frame just ahead, the seat's
// burst runs and the rest are refused, and a command that does not name the receiver among
// the seats it went to directly (Command.Direct) is refused too: were the server to refuse it,
// it would count it in no digest but its sender's (refusedRan).
func TestDirectLinkHoldsCommandsToTheSeatsBounds(t *testing.T) {
	t.Parallel()
	g, a, b, lc := linkedPair(t, 13)
	send := func(id, frame uint32) { fromLink(t, g, a, b, lc, id, frame) }
	pending := func() int { return len(a.sched.pending) }
	bad, first, before := a.stats.BadMessages, a.stats.CommandsDirectFirst, pending()
	for id := range uint32(100) {
		send(100_000+id, 1_000_000)
	}
	if n := a.stats.BadMessages - bad; n != 100 {
		t.Errorf("%d of 100 commands for frame 1,000,000 refused, want all", n)
	}
	if n := pending() - before; n > 0 {
		t.Errorf("%d more events wait in a's schedule", n)
	}
	bad = a.stats.BadMessages
	for id := range uint32(300) {
		send(200_000+id, a.w.Frame()+3)
	}
	ran, refused := a.stats.CommandsDirectFirst-first, a.stats.BadMessages-bad
	if ran > uint64(serverCommands.burst) || ran+refused != 300 || ran < uint64(serverCommands.burst)/2 {
		t.Errorf("of 300 commands at once, %d taken and %d refused; want the seat's burst (%d) at most taken, the rest refused", ran, refused, serverCommands.burst)
	}
	g.run(10 * time.Second) // the seat's bucket fills again
	bad, first = a.stats.BadMessages, a.stats.CommandsDirectFirst
	third := uint8(0) // a seat neither a's nor b's
	for third == a.role.seat || third == b.role.seat {
		third++
	}
	for i, direct := range []uint8{0, 1 << third, 1<<a.role.seat | 1<<third} {
		payload, err := AppendMsg(nil, &Command{Seat: b.role.seat, ID: 300_000 + uint32(i), Frame: a.w.Frame() + 3, Kind: world.CommandStop, Units: []uint32{1}, Direct: direct})
		if err != nil {
			t.Fatal(err)
		}
		a.onDirect(lc.peer, g.now, &message.Message{Payload: payload, Guaranteed: true})
	}
	if ran, refused := a.stats.CommandsDirectFirst-first, a.stats.BadMessages-bad; ran != 1 || refused != 2 {
		t.Errorf("of 3 commands, 2 not naming the receiver in Direct, %d taken and %d refused; want 1 and 2", ran, refused)
	}
}
