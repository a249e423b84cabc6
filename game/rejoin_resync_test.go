package game

import (
	"net/netip"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/world"
)

// ---------------------------------------------------------------------------------------------
// Helpers: an offline client (it writes to nowhere, and nothing ever connects it) fed
// messages through its real onMessage, and a reference "server" world stepped the way
// Server.step does.

// nowhere is a transport.Writer that drops every datagram.
type nowhere struct{}

func (nowhere) WriteTo([]byte, netip.AddrPort) error { return nil }

func offlineClient(t *testing.T) *Client {
	t.Helper()
	c, err := NewClient(ClientConfig{Name: "ann", NoDirect: true}, nowhere{}, netip.MustParseAddrPort("127.0.0.1:9"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// deliver hands m to the client as if its connection executed it.
func deliver(t *testing.T, c *Client, m Msg) {
	t.Helper()
	b, err := AppendMsg(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	c.onMessage(nil, time.Now(), &message.Message{Payload: b})
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
	for _, e := range r.sched.due(f, f, nil) {
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
	if c.phase == phaseAwaitingWorld || c.w.Frame() < 40 {
		t.Errorf("client still awaiting the snapshot (awaiting=%v, frame %d): the batch that came before StartGame was dropped", c.phase == phaseAwaitingWorld, c.w.Frame())
	}
}

// ---------------------------------------------------------------------------------------------
// Loopback tests.
