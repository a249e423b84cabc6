package game

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/world"
)

// ---------------------------------------------------------------------------------------------
// Helpers: an offline client (its socket dials a port nobody serves, so every send is a no-op)
// fed messages through its real onMessage, and a reference "server" world stepped the way
// Server.step does.

func offlineClient(t *testing.T) *Client {
	t.Helper()
	c, err := NewClient(ClientConfig{Connect: "127.0.0.1:9", Name: "ann", NoDirect: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.tr.Close() })
	return c
}

// deliver hands m to the client as if its connection executed it.
func deliver(t *testing.T, c *Client, m Msg) {
	t.Helper()
	b, err := AppendMsg(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	c.onMessage(nil, &message.Message{Payload: b})
}

type refHost struct {
	w     *world.World
	sched *schedule
}

func newRef(t *testing.T, seats ...uint8) *refHost {
	t.Helper()
	w, err := world.NewWorld("skirmish", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seats {
		if _, err := w.AddPlayerUnits(s); err != nil {
			t.Fatal(err)
		}
	}
	return &refHost{w: w, sched: newSchedule()}
}

// step is Server.step without the network: due events, then the world step.
func (r *refHost) step() {
	f := r.w.Frame()
	for _, e := range r.sched.due(f, nil) {
		apply(r.w, &e)
		if e.frame < f {
			r.w.FastForward(unitsOf(&e), int(f-e.frame))
		}
	}
	r.w.Step()
}

// moveCommand is a valid move of one of seat's units, for frame.
func moveCommand(t *testing.T, w *world.World, seat uint8, id, frame uint32) *Command {
	t.Helper()
	for _, u := range w.Units() {
		if u.Owner != seat {
			continue
		}
		for dx := int32(3); dx < 20; dx++ {
			for _, d := range [][2]int32{{dx, 0}, {-dx, 0}, {0, dx}, {0, -dx}} {
				x, y := u.X+d[0], u.Y+d[1]
				if w.Terrain(x, y) != world.Ground || !w.Reachable(u.X, u.Y, x, y) {
					continue
				}
				c := &Command{Seat: seat, ID: id, Frame: frame, Kind: world.CommandMove, Units: []uint32{u.ID}, X: x, Y: y}
				if w.Clone().Apply(world.Command{Player: seat, Kind: c.Kind, Units: c.Units, X: x, Y: y}) == nil {
					return c
				}
			}
		}
	}
	t.Fatal("no valid move")
	return nil
}

// finalBatch is the last ResyncBatch the server sends: every unit, the attacks and the state.
func finalBatch(t *testing.T, w *world.World, frame, batch uint32) *ResyncBatch {
	t.Helper()
	state, err := w.AppendState(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &ResyncBatch{Frame: frame, Batch: batch, Units: append([]world.Unit(nil), w.Units()...),
		HasAttacks: true, Attacks: append([]world.Attack(nil), w.Attacks()...), State: state}
}

// ---------------------------------------------------------------------------------------------

// Regression test. The failure it guards against: A Pause that reaches a client already past the paused frame makes it "pause where it is";
// the re-sync's final batch then puts the world back at the paused frame (ApplyState sets the
// frame), but the events of the frames the client already ran were taken out of its schedule.
// After the resume the server applies them, the client never does.
func TestLatePauseRunsRewoundFramesEventsAgain(t *testing.T) {
	const P = 5
	c := offlineClient(t)
	srv := newRef(t, 0, 1)
	deliver(t, c, &StartGame{Map: "skirmish", Seed: 1, Frame: 0, FrameMillis: 100, LeadFrames: 1, Seats: []uint8{0, 1}})
	cmd := moveCommand(t, srv.w, 1, 1, P+1)
	deliver(t, c, cmd)
	srv.sched.add(event{frame: cmd.Frame, kind: evCommand, seat: cmd.Seat, id: cmd.ID, cmd: cmd})

	now := time.Now()
	for c.w.Frame() < P+3 { // the client ran ahead of the Pause
		c.step(now)
	}
	for srv.w.Frame() < P { // the server stops at P
		srv.step()
	}
	deliver(t, c, &Pause{Frame: P}) // late: the client pauses where it is
	deliver(t, c, finalBatch(t, srv.w, P, 0))
	deliver(t, c, &Resume{Frame: P, AfterMillis: 0})
	c.resume(now)
	if c.w.Frame() != P {
		t.Logf("client frame after the re-sync: %d", c.w.Frame())
	}
	for c.w.Frame() < P+10 {
		c.step(now)
	}
	for srv.w.Frame() < P+10 {
		srv.step()
	}
	if c.w.Hash() != srv.w.Hash() {
		u1, _ := c.w.Unit(cmd.Units[0])
		u2, _ := srv.w.Unit(cmd.Units[0])
		t.Errorf("after a late Pause the client's world differs from the server's at frame %d:\n client unit %+v\n server unit %+v\n(the command for frame %d was consumed before the re-sync rewound the world to frame %d)",
			P+10, u1, u2, cmd.Frame, P)
	}
}

// Regression test. The failure it guards against: At the start of a game the server sends every client StartGame and, because the world
// already has units, a snapshot of frame 0 (sendStart: f > 0 || len(units) > 0). The snapshot
// does not depend on anything and the client is not "awaiting" it (StartGame.Frame == 0), so
// if it executes after the client has stepped a few frames it rewinds the world to frame 0
// and the events of those frames are gone.
func TestStraySnapshotDoesNotRewindRunningWorld(t *testing.T) {
	c := offlineClient(t)
	srv := newRef(t, 0, 1)
	snap := finalBatch(t, srv.w, 0, 0) // what Server.start → sendStart → sendSnapshot sends
	deliver(t, c, &StartGame{Map: "skirmish", Seed: 1, Frame: 0, FrameMillis: 100, LeadFrames: 1, Seats: []uint8{0, 1}})
	cmd := moveCommand(t, srv.w, 0, 1, 1)
	deliver(t, c, cmd)
	srv.sched.add(event{frame: cmd.Frame, kind: evCommand, seat: cmd.Seat, id: cmd.ID, cmd: cmd})
	now := time.Now()
	for range 3 {
		c.step(now)
	}
	deliver(t, c, snap) // the snapshot's packet was lost once and comes with the resend
	if c.w.Frame() != 3 {
		t.Errorf("a late start snapshot moved the client's world from frame 3 back to frame %d", c.w.Frame())
	}
	for c.w.Frame() < 10 {
		c.step(now)
	}
	for srv.w.Frame() < 10 {
		srv.step()
	}
	if c.w.Hash() != srv.w.Hash() {
		t.Errorf("world hash at frame 10 differs from the server's: the command for frame 1 was lost in the rewind")
	}
}

// Regression test. The failure it guards against: The snapshot of a running game is sent in ResyncBatches that depend on nothing, while
// StartGame depends on the PlayerInfos. A batch that executes first (StartGame held back by a
// lost packet) is dropped (c.w == nil) and never comes again: the client waits forever.
func TestSnapshotBeforeStartGameIsKept(t *testing.T) {
	c := offlineClient(t)
	srv := newRef(t, 0, 1)
	for srv.w.Frame() < 40 {
		srv.step()
	}
	deliver(t, c, finalBatch(t, srv.w, 40, 0)) // executes first: no dependency on StartGame
	deliver(t, c, &StartGame{Map: "skirmish", Seed: 1, Frame: 40, FrameMillis: 100, LeadFrames: 1, Seats: []uint8{0, 1}})
	now := time.Now()
	for range 20 {
		c.frames(now.Add(time.Second))
	}
	if c.awaiting || c.w.Frame() < 40 {
		t.Errorf("client still awaiting the snapshot (awaiting=%v, frame %d): the batch that came before StartGame was dropped", c.awaiting, c.w.Frame())
	}
}

// ---------------------------------------------------------------------------------------------
// Loopback tests.

type liveServer struct {
	srv    *Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startServer(t *testing.T, cfg ServerConfig) *liveServer {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ls := &liveServer{srv: srv, cancel: cancel}
	ls.wg.Add(1)
	go func() { defer ls.wg.Done(); srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); ls.wg.Wait() })
	return ls
}

type liveClient struct {
	c      *Client
	cancel context.CancelFunc
	done   chan struct{}
}

func startClient(t *testing.T, addr string, cfg ClientConfig) *liveClient {
	t.Helper()
	cfg.Connect = addr
	cfg.NoDirect = true
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	lc := &liveClient{c: c, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(lc.done); c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-lc.done })
	return lc
}

// revOnServer and revOnClient run f on a host's loop and return its result. If the loop does
// not run it within revLimit (its Run returned: the connection failed), they panic with what
// the transport says, instead of hanging the test binary until its timeout.
func revOnServer[T any](s *Server, f func(*Server) T) T {
	ch := make(chan T, 1)
	return revOn(func() bool { return s.TryDo(func(s *Server) { ch <- f(s) }) }, ch, func() string {
		return fmt.Sprintf("server: %+v", s.Transport().Stats())
	})
}

func revOnClient[T any](c *Client, f func(*Client) T) T {
	ch := make(chan T, 1)
	return revOn(func() bool { return c.TryDo(func(c *Client) { ch <- f(c) }) }, ch, func() string {
		st := c.Transport().Stats()
		return fmt.Sprintf("client state %v, err %q, reason %v %q", st.State, st.Err, st.Reason, st.Text)
	})
}

const revLimit = 30 * time.Second

func revOn[T any](try func() bool, ch chan T, why func() string) T {
	deadline := time.After(revLimit)
	for !try() {
		select {
		case <-deadline:
			panic("the host's loop took no intent for " + revLimit.String() + ": " + why())
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case v := <-ch:
		return v
	case <-deadline:
		panic("the host's loop did not run the intent in " + revLimit.String() + ": " + why())
	}
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if !waitUntil(ctx, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

func clientRunning(c *Client) bool {
	return revOnClient(c, func(c *Client) bool { return c.started && !c.awaiting && c.w != nil && c.w.Frame() > 0 })
}

// Regression test. The failure it guards against: A player who leaves and comes back (same player id, a new Client) starts counting its
// commands at 1 again, but the server's schedule remembers (seat, id) of every command it ever
// saw: the rejoined player's first commands are dropped as duplicates on the server (and on
// every other host), while the player's own host applies them.
func TestRejoinedPlayersCommandsAreNotDuplicates(t *testing.T) {
	ls := startServer(t, ServerConfig{Bots: 1, MinPlayers: 1, StartDelay: 300 * time.Millisecond})
	srv := ls.srv
	pid := uuid.New()
	a := startClient(t, srv.Addr(), ClientConfig{Name: "ann", PlayerID: pid})
	waitFor(t, 5*time.Second, "the game to start", func() bool { return clientRunning(a.c) })
	srv.Do(func(s *Server) { s.StopBots(); s.StopSpawning() })
	time.Sleep(200 * time.Millisecond)
	base := revOnServer(srv, func(s *Server) uint64 { return s.stats.CommandsRelayed })

	issue := func(c *Client) uint32 {
		return revOnClient(c, func(c *Client) uint32 {
			for _, u := range c.w.Units() {
				if u.Owner == c.seat {
					f, err := c.Command(time.Now(), world.CommandStop, []uint32{u.ID}, 0, 0, 0)
					if err != nil {
						t.Error(err)
					}
					return f
				}
			}
			t.Error("no unit of mine")
			return 0
		})
	}
	for range 3 {
		issue(a.c)
	}
	waitFor(t, 3*time.Second, "the server to take ann's 3 commands", func() bool {
		return revOnServer(srv, func(s *Server) uint64 { return s.stats.CommandsRelayed }) == base+3
	})
	a.cancel()
	<-a.done
	waitFor(t, 5*time.Second, "the server to see ann leave", func() bool {
		return revOnServer(srv, func(s *Server) uint64 { return s.stats.Leaves }) == 1
	})

	b := startClient(t, srv.Addr(), ClientConfig{Name: "ann", PlayerID: pid})
	waitFor(t, 5*time.Second, "the rejoined client to run", func() bool { return clientRunning(b.c) })
	frame := issue(b.c)
	t.Logf("rejoined: client frame %d, server frame %d", revOnClient(b.c, func(c *Client) uint32 { return c.w.Frame() }), srv.Snapshot().Frame)
	id := revOnClient(b.c, func(c *Client) uint32 { return c.cmdID })
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if revOnServer(srv, func(s *Server) uint64 { return s.stats.CommandsRelayed }) == base+4 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the rejoined player's command (id %d, frame %d) never counted on the server: relayed %d, want %d (dropped as a duplicate of the earlier session's command %d)",
		id, frame, revOnServer(srv, func(s *Server) uint64 { return s.stats.CommandsRelayed }), base+4, id)
}

// Regression test. The failure it guards against: A client that joins (or rejoins) while a stop-the-world pause is scheduled gets StartGame
// and a snapshot but no Pause (stopTheWorld only told the clients seated then, and onConnect
// resets pauseState): it runs straight through the frame every other host stops at.
func TestClientJoiningDuringPendingPauseStops(t *testing.T) {
	ls := startServer(t, ServerConfig{Bots: 1, StartDelay: 200 * time.Millisecond})
	srv := ls.srv
	waitFor(t, 5*time.Second, "the game to run", func() bool { s := srv.Snapshot(); return s.Running && s.Frame >= 5 })
	P := revOnServer(srv, func(s *Server) uint32 {
		s.lastLead = time.Now().Add(time.Hour) // keep the lead where this test puts it
		s.lead = 5                             // a pause ~1.5 s ahead, and a resume 0.5 s after reaching it
		s.stopTheWorld(time.Now(), nil)
		return s.pause.frame
	})
	c := startClient(t, srv.Addr(), ClientConfig{Name: "late"})
	waitFor(t, 5*time.Second, "the server to reach the pause", func() bool { return srv.Snapshot().Paused })
	// Read the client first, then the server: a client resumes only after the server does
	// (the Resume leaves the server when it resumes, plus the same delay on both sides), so if
	// the server is still paused after the client was read, the client had not resumed either.
	paused := func() bool {
		return revOnServer(srv, func(s *Server) bool { return s.pause != nil && !s.pause.reached.IsZero() })
	}
	maxFrame := uint32(0)
	for {
		f := revOnClient(c.c, func(c *Client) uint32 {
			if c.w == nil {
				return 0
			}
			return c.w.Frame()
		})
		if !paused() {
			break
		}
		maxFrame = max(maxFrame, f)
		time.Sleep(10 * time.Millisecond)
	}
	if maxFrame > P {
		t.Errorf("while the server was paused at frame %d, the client that joined before the pause ran on to frame %d (it never got the Pause)", P, maxFrame)
	}
}

// Regression test. The failure it guards against: When a command that came late to the server (its frame already run, applied at the next
// step) is still pending as a client joins, the snapshot leaves it out: sendSnapshot sends
// sched.after(frame), which skips events for earlier frames that due(frame) will still apply
// on the server. The joining client never applies it.
func TestSnapshotIncludesLatePendingCommand(t *testing.T) {
	ls := startServer(t, ServerConfig{Bots: 1, StartDelay: 200 * time.Millisecond})
	srv := ls.srv
	waitFor(t, 5*time.Second, "the game to run", func() bool { s := srv.Snapshot(); return s.Running && s.Frame >= 5 })
	type late struct {
		f    uint32
		unit uint32
	}
	l := revOnServer(srv, func(s *Server) late {
		s.StopBots()
		s.StopSpawning()
		f := s.w.Frame()
		cmd := moveCommand(t, s.w, 0, 1<<20, f-1) // arrived one frame late
		s.command(time.Now(), cmd, nil)
		s.nextFrame = time.Now().Add(300 * time.Millisecond) // the next step comes after the join
		return late{f, cmd.Units[0]}
	})
	c := startClient(t, srv.Addr(), ClientConfig{Name: "joiner"})
	waitFor(t, 5*time.Second, "the joining client to run", func() bool { return clientRunning(c.c) })
	check := l.f + 5
	waitFor(t, 5*time.Second, "both hosts past the check frame", func() bool {
		return srv.Snapshot().Frame > check+1 && revOnClient(c.c, func(c *Client) bool { return c.w.Frame() > check+1 })
	})
	sh := revOnServer(srv, func(s *Server) []world.UnitHash { h, _ := s.hist.at(check); return append([]world.UnitHash(nil), h...) })
	ch := revOnClient(c.c, func(c *Client) []world.UnitHash { h, _ := c.hist.at(check); return append([]world.UnitHash(nil), h...) })
	if len(sh) == 0 || len(ch) == 0 {
		t.Fatalf("no history at frame %d (server %d units, client %d)", check, len(sh), len(ch))
	}
	get := func(hs []world.UnitHash, id uint32) uint64 {
		for _, h := range hs {
			if h.ID == id {
				return h.Hash
			}
		}
		return 0
	}
	if a, b := get(sh, l.unit), get(ch, l.unit); a != b {
		t.Errorf("unit %d at frame %d: server hash %016x, joining client %016x: the late command pending at the join was not in the snapshot", l.unit, check, a, b)
	}
}

// Regression test. The failure it guards against: Messages the connection refused (back-pressure) wait in the seat's outbox, which only
// step() flushes. Once the server stops the world it no longer steps, so a Pause (or a
// ResyncBatch) stuck in an outbox is never sent: the pause never ends, even after the
// sequence space has freed up.
func TestOutboxFlushedWhilePaused(t *testing.T) {
	ls := startServer(t, ServerConfig{Bots: 1, MinPlayers: 1, StartDelay: 200 * time.Millisecond})
	srv := ls.srv
	c := startClient(t, srv.Addr(), ClientConfig{Name: "ann"})
	waitFor(t, 5*time.Second, "the game to run", func() bool { return clientRunning(c.c) })
	queued := revOnServer(srv, func(s *Server) int {
		var st *seat
		for _, x := range s.seats {
			if x != nil && x.peer != nil {
				st = x
			}
		}
		now := time.Now()
		for i := 0; i < 40000 && len(st.outbox) == 0; i++ {
			s.send(st, now, &Peers{}, nil, nil, false) // harmless traffic filling the sequence space
		}
		s.stopTheWorld(now, nil)
		return len(st.outbox)
	})
	t.Logf("outbox after the flood and the pause order: %d messages", queued)
	// Message sequence numbers are free again Timeout + 1 s (6 s) after they executed.
	time.Sleep(9 * time.Second)
	s := srv.Snapshot()
	got := revOnClient(c.c, func(c *Client) uint64 { return c.stats.StopWorldResyncs })
	left := revOnServer(srv, func(s *Server) int {
		n := 0
		for _, x := range s.seats {
			if x != nil {
				n += len(x.outbox)
			}
		}
		return n
	})
	if s.Paused || got == 0 {
		t.Errorf("9 s later: server paused=%v at frame %d, client got %d Pause, %d messages still in the outbox (never flushed while paused)", s.Paused, s.Frame, got, left)
	}
}
