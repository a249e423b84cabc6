package ui

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"go.uber.org/goleak"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// fakeClient is a ClientHost with a fixed world: a skirmish map, two players' units and one
// enemy, frame 100, a clean link. It does what a real client does with intents, in miniature:
// an order becomes pending at frame+lead in the next snapshot, a chat line comes back from the
// "server". Its clock is frozen, so screens drawn from it are the same in every run.
type fakeClient struct {
	mu      sync.Mutex
	snap    game.ClientSnapshot
	peer    transport.PeerStats
	link    linksim.Settings
	orders  []world.Command
	said    []string
	injects int
	// injectErr, if set, is the host's answer to InjectDesync: no unit to corrupt.
	injectErr error
}

var fakeNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func newFakeClient(t testing.TB) *fakeClient {
	t.Helper()
	w, err := world.NewWorld("skirmish", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, seat := range []uint8{0, 1} {
		if _, err := w.AddPlayerUnits(seat); err != nil {
			t.Fatal(err)
		}
	}
	// An enemy on the first open cell of row 10 from column 30.
	ex := int32(30)
	for w.Terrain(ex, 10) != world.Ground {
		ex++
	}
	if err := w.SpawnEnemy(world.FirstEnemyID, "goblin", ex, 10); err != nil {
		t.Fatal(err)
	}
	f := &fakeClient{}
	f.snap = game.ClientSnapshot{At: fakeNow, State: transport.Connected, Started: true, Seat: 0, Frame: 100, Lead: 2,
		Map: "skirmish", Units: slices.Clone(w.Units())}
	f.snap.Players[0] = game.PlayerInfo{Seat: 0, Name: "ann"}
	f.snap.Players[1] = game.PlayerInfo{Seat: 1, Name: "bob"}
	f.snap.Game.LeadTimeMillis = 200
	f.snap.Chat = []game.ChatLine{{From: "bob", Text: "hello"}}
	f.peer = transport.PeerStats{Connected: true, RTT: 40 * time.Millisecond, Jitter: 3 * time.Millisecond,
		LossPercent: 2.5, BytesInPerSec: 1200, BytesOutPerSec: 800}
	return f
}

func (f *fakeClient) Snapshot() *game.ClientSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.snap
	return &s
}

func (f *fakeClient) Peer() (transport.PeerStats, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peer, true
}

func (f *fakeClient) Link() (linksim.Settings, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.link, true
}

func (f *fakeClient) SetLink(s linksim.Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.link = s
	return nil
}

func (f *fakeClient) Ended() string { return "" }

func (f *fakeClient) Order(kind world.CommandKind, units []uint32, x, y int32, target uint32) (*OrderTicket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &OrderTicket{}
	t.settle(f.snap.Frame+f.snap.Lead, nil)
	f.orders = append(f.orders, world.Command{Player: f.snap.Seat, Kind: kind, Units: slices.Clone(units), X: x, Y: y, Target: target})
	f.snap.Pending = append(slices.Clone(f.snap.Pending), game.PendingOrder{ID: uint32(len(f.orders)), Frame: f.snap.Frame + f.snap.Lead,
		Kind: uint8(kind), Units: slices.Clone(units), X: x, Y: y, Target: target})
	return t, true
}

func (f *fakeClient) Say(text string) (*OrderTicket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.said = append(f.said, text)
	f.snap.Chat = append(slices.Clone(f.snap.Chat), game.ChatLine{From: "ann", Text: text, Own: true})
	t := &OrderTicket{}
	t.settle(0, nil)
	return t, true
}

func (f *fakeClient) InjectDesync() (*OrderTicket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.injects++
	t := &OrderTicket{}
	if f.injectErr != nil {
		t.settle(0, f.injectErr)
	} else {
		t.settle(1, nil)
	}
	return t, true
}

func (f *fakeClient) setPeer(p transport.PeerStats) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.peer = p
}

func (f *fakeClient) lastOrder() (world.Command, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.orders) == 0 {
		return world.Command{}, false
	}
	return f.orders[len(f.orders)-1], true
}

// heldBackDebug is the debug view of a connection whose receiver holds message 7 back: it
// waits for message 5, whose packet was lost. Two messages the client sent are in flight.
func heldBackDebug(now time.Time) *message.Debug {
	sent := func(serial uint64, seq uint16, t game.MsgType, ago time.Duration) message.Record {
		return message.Record{Serial: serial, Seq: seq, Outgoing: true, First: int16(t), Pieces: 1, Sends: 1, Queued: now.Add(-ago), Sent: now.Add(-ago)}
	}
	return &message.Debug{
		History: []packet.PacketState{{Seq: 40, State: packet.Acked}, {Seq: 41, State: packet.Lost}, {Seq: 42, State: packet.InFlight}},
		Outgoing: []message.Record{
			sent(1, 12, game.MsgCommand, 40*time.Millisecond),
			sent(3, 13, game.MsgUnitHashes, 20*time.Millisecond),
		},
		Incoming: []message.Record{
			{Serial: 2, Seq: 7, First: int16(game.MsgChat), Pieces: 1, Arrived: now.Add(-250 * time.Millisecond), Deps: []message.Edge{{Seq: 5}}},
		},
	}
}

// heldBackClientScreen runs the client screen over a fake host whose link holds a message back
// (heldBackDebug).
func heldBackClientScreen(t *testing.T, width, height int) (*fakeClient, *screenApp, *ClientScreen) {
	t.Helper()
	f := newFakeClient(t)
	p, _ := f.Peer()
	p.Debug = heldBackDebug(fakeNow)
	f.setPeer(p)
	sa, cs := fakeClientScreen(t, f, width, height)
	return f, sa, cs
}

// startScreen runs a screen model on a width×height simulated screen through the same runner
// the binaries use, redrawing fps times a second, and returns the harness once the first frame
// is drawn. Cleanup stops it through its context and checks for leaked goroutines.
func startScreen(t *testing.T, width, height, fps int, build func(app *tview.Application) screenModel) (*screenApp, *screenRunner) {
	t.Helper()
	leakOpt := goleak.IgnoreCurrent()
	screen := tcell.NewSimulationScreen("UTF-8")
	ctx, cancel := context.WithCancel(context.Background())
	r := newScreenRunner(screen, fps, build)
	screen.SetSize(width, height) // after SetScreen, which initialised the screen
	sa := &screenApp{t: t, app: r.app, screen: screen, done: make(chan error, 1), halt: cancel}
	go func() { sa.done <- r.run(ctx) }()
	select {
	case <-r.started:
	case err := <-sa.done:
		t.Fatalf("run returned before the first draw: %v", err)
	case <-time.After(pollLimit):
		t.Fatal("the screen was never drawn")
	}
	t.Cleanup(func() {
		sa.stop()
		cancel()
		goleak.VerifyNone(t, leakOpt)
	})
	return sa, r
}

// fakeClientScreen runs the client screen over a fake host.
func fakeClientScreen(t *testing.T, f *fakeClient, width, height int) (*screenApp, *ClientScreen) {
	t.Helper()
	var cs *ClientScreen
	sa, _ := startScreen(t, width, height, 50, func(app *tview.Application) screenModel {
		cs = NewClientScreen(f, t.TempDir(), func(p tview.Primitive) { app.SetFocus(p) })
		cs.clock = func() time.Time { return fakeNow }
		return cs
	})
	// The map takes the focus on the first frame after the game's start shows: wait for it,
	// so keys reach it and every screen dump starts from the same state.
	sa.waitFor("the map focused", func() bool { return cs.MapView() != nil && cs.MapView().HasFocus() })
	return sa, cs
}
