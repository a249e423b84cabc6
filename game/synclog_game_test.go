package game

// The sync log, the pending orders, the player table and the event log in whole games in
// virtual time (vgame_test.go; the corruptions and the watch are desync_test.go's): what a
// user interface shows of a game while its bots play on. synclog_test.go tests each host's
// bookkeeping on its own, message by message.

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// syncLogLatest returns the latest record of seat with action in log.
func syncLogLatest(log []SyncRecord, seat uint8, action string) (SyncRecord, bool) {
	for i := len(log) - 1; i >= 0; i-- {
		if log[i].Seat == seat && log[i].Action == action {
			return log[i], true
		}
	}
	return SyncRecord{}, false
}

// syncLogEndedPause is the first pause in log that is over.
func syncLogEndedPause(log []PauseRecord) (PauseRecord, bool) {
	for _, p := range log {
		if !p.Running {
			return p, true
		}
	}
	return PauseRecord{}, false
}

// TestSyncLogGame: in a game, a client's order shows as pending in its next snapshot and goes
// once its frame ran; one corrupted unit is repaired in real time and every host records the
// same unit with the same two hashes; then three corrupted units (over a real-time limit of
// two) stop the world, and every host records the pause. The player table shows the bot and
// the clients, and a client paused or re-syncing during the pause.
func TestSyncLogGame(t *testing.T) {
	t.Parallel()
	g, w := newDesyncGame(t, vspec{seed: 31, server: func(c *ServerConfig) { c.RealtimeMax = 2 }})
	c0, c1 := g.clients[0], g.clients[1]
	seat := c0.role.seat

	// An order for a frame far enough ahead to be pending in the next snapshot.
	prev := c1.Snapshot()
	order := &Command{Frame: c1.issueFrame(g.now) + 10, Kind: world.CommandStop, Units: ownUnits(c1.w, c1.role.seat)[:1]}
	if err := c1.issue(g.now, order); err != nil {
		t.Fatal(err)
	}
	w.waitFor(time.Second, "a snapshot after the order", func() bool { return c1.Snapshot() != prev })
	if next := c1.Snapshot(); !slices.ContainsFunc(next.Pending, func(o PendingOrder) bool { return o.ID == order.ID && o.Frame == order.Frame }) {
		t.Errorf("the snapshot after the order (frame %d) does not show it pending: %+v", next.Frame, next.Pending)
	}

	// One corrupted unit: a real-time re-sync.
	inj := w.inject(0, 1)
	var cr, sr, or SyncRecord
	w.waitFor(5*time.Second, "the real-time re-sync in every host's snapshot", func() bool {
		var ok1, ok2, ok3 bool
		cr, ok1 = syncLogLatest(c0.Snapshot().Mismatches, seat, ActionRealtime)
		sr, ok2 = syncLogLatest(g.srv.Snapshot().Mismatches, seat, ActionRealtime)
		or, ok3 = syncLogLatest(c1.Snapshot().Mismatches, seat, ActionRealtime)
		return ok1 && ok2 && ok3
	})
	t.Logf("client: %+v", cr)
	t.Logf("server: %+v", sr)
	t.Logf("other client: %+v", or)
	if cr.Frame != sr.Frame || or.Frame != sr.Frame || cr.At != sr.At || or.At != sr.At {
		t.Errorf("the hosts recorded different checks: client frame %d at %d, server %d at %d, other client %d at %d",
			cr.Frame, cr.At, sr.Frame, sr.At, or.Frame, or.At)
	}
	if cr.At <= cr.Frame || cr.Frame < inj.frame {
		t.Errorf("the client's record checks frame %d and repairs at %d, corrupted before frame %d", cr.Frame, cr.At, inj.frame)
	}
	want := []UnitMismatch{{ID: inj.ids[0], LocalKnown: true}}
	if len(sr.Units) == 1 {
		want[0].Local, want[0].Server = sr.Units[0].Local, sr.Units[0].Server
	}
	if !reflect.DeepEqual(sr.Units, want) || want[0].Local == want[0].Server {
		t.Errorf("the server's record lists %+v, want unit %d with two different hashes", sr.Units, inj.ids[0])
	}
	if !reflect.DeepEqual(cr.Units, sr.Units) {
		t.Errorf("the corrupted client's record lists %+v, the server's %+v", cr.Units, sr.Units)
	}
	// The other client learned of the repair too; its own hash of the unit is the server's.
	if len(or.Units) != 1 || or.Units[0].ID != want[0].ID || or.Units[0].Server != want[0].Server ||
		!or.Units[0].LocalKnown || or.Units[0].Local != want[0].Server {
		t.Errorf("the other client's record lists %+v, want unit %d with the server's hash %x on both sides", or.Units, want[0].ID, want[0].Server)
	}

	// The order ran at its frame and left the list.
	w.waitFor(5*time.Second, "the order's frame", func() bool { return c1.Snapshot().Frame > order.Frame })
	if s := c1.Snapshot(); slices.ContainsFunc(s.Pending, func(o PendingOrder) bool { return o.ID == order.ID }) {
		t.Errorf("at frame %d the order for frame %d is still pending", s.Frame, order.Frame)
	}

	// Three corrupted units: more than the real-time limit of 2 stops the world.
	w.inject(0, 3)
	sawPaused := false
	w.waitFor(10*time.Second, "an ended pause in every host's snapshot", func() bool {
		ss := g.srv.Snapshot()
		for _, si := range ss.Seats {
			sawPaused = sawPaused || (!si.Bot && (si.State == "paused" || si.State == "re-syncing"))
		}
		_, ok1 := syncLogEndedPause(ss.Pauses)
		_, ok2 := syncLogEndedPause(c0.Snapshot().Pauses)
		_, ok3 := syncLogEndedPause(c1.Snapshot().Pauses)
		return ok1 && ok2 && ok3
	})
	ss := g.srv.Snapshot()
	sp, _ := syncLogEndedPause(ss.Pauses)
	t.Logf("server pause: %+v", sp)
	if sp.Millis <= 0 || sp.Units <= 0 || sp.Start.IsZero() {
		t.Errorf("the server's pause record %+v, want a length, units and a start", sp)
	}
	if r, ok := syncLogLatest(ss.Mismatches, seat, ActionStopWorld); !ok || r.At != sp.Frame {
		t.Errorf("no stop-the-world record at frame %d on the server: %+v", sp.Frame, ss.Mismatches)
	}
	for _, c := range g.clients {
		s := c.Snapshot()
		cp, ok := syncLogEndedPause(s.Pauses)
		if !ok || cp.Frame != sp.Frame || cp.Millis <= 0 || cp.Units <= 0 || cp.Start.IsZero() {
			t.Errorf("seat %d: pause record %+v, want the server's pause at frame %d, with a length and units", s.Seat, cp, sp.Frame)
		}
		if !slices.ContainsFunc(s.Mismatches, func(r SyncRecord) bool { return r.Action == ActionStopWorld && r.At == sp.Frame }) {
			t.Errorf("seat %d: no stop-the-world record: %+v", s.Seat, s.Mismatches)
		}
	}
	if !sawPaused {
		t.Error("the player table never showed a client paused or re-syncing")
	}

	// The player table, with the bots still playing.
	g.run(time.Second)
	ss = g.srv.Snapshot()
	if len(ss.Seats) != desyncBots+desyncClients {
		t.Fatalf("seats %+v", ss.Seats)
	}
	for _, si := range ss.Seats {
		switch {
		case si.Bot:
			if si.Name != "bot1" || !si.Connected || !si.InGame || si.State != "bot" || si.LastHash != "" {
				t.Errorf("bot row %+v", si)
			}
		default:
			if !strings.HasPrefix(si.Name, "c") || !si.Connected || !si.InGame || si.State != "playing" {
				t.Errorf("client row %+v", si)
			}
			if !strings.Contains(si.LastHash, " at frame ") {
				t.Errorf("client row %+v: no hash check", si)
			}
		}
	}
}

// TestServerEventLog: the server's event log, which its screen shows, has a line for each
// join, the start, each spawn and each leave with its reason, as the server's state has them.
func TestServerEventLog(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 32, clients: 1,
		server: func(c *ServerConfig) { c.StartDelay, c.EnemyEvery = 100*time.Millisecond, 150*time.Millisecond },
		client: func(i int, c *ClientConfig) { c.Name, c.Bot = "ann", false }})
	lines := func(ss *ServerSnapshot, what string) []string {
		var out []string
		for _, e := range ss.Events {
			if strings.Contains(e, ": "+what) {
				out = append(out, e)
			}
		}
		return out
	}
	g.waitFor(10*time.Second, "a join, the start and spawns", func() bool {
		ss := g.srv.Snapshot()
		return ss.Stats.Joins == 1 && ss.Running && ss.Stats.EnemiesSpawned >= 3
	})
	ss := g.srv.Snapshot()
	if len(ss.Seats) != 1 || ss.Seats[0].Name != "ann" {
		t.Fatalf("seats %+v, want ann's", ss.Seats)
	}
	ann := ss.Seats[0].Seat
	if l := lines(ss, fmt.Sprintf("join seat=%d name=ann ", ann)); len(l) != 1 {
		t.Errorf("%d lines of ann's join into seat %d: %q", len(l), ann, ss.Events)
	}
	if l := lines(ss, "game started"); len(l) != 1 {
		t.Errorf("%d lines of the start: %q", len(l), ss.Events)
	}
	n := ss.Stats.EnemiesSpawned
	if l := lines(ss, "spawn enemy="); uint64(len(l)) != n {
		t.Errorf("%d spawn lines, %d enemies spawned: %q", len(l), n, ss.Events)
	}
	for id := uint32(world.FirstEnemyID); id < world.FirstEnemyID+uint32(n); id++ {
		if l := lines(ss, fmt.Sprintf("spawn enemy=%d ", id)); len(l) != 1 {
			t.Errorf("%d lines of the spawn of enemy %d", len(l), id)
		}
	}

	g.leave(0) // the client says goodbye as it quits
	g.waitFor(10*time.Second, "the leave", func() bool { return g.srv.Snapshot().Stats.Leaves == 1 })
	ss = g.srv.Snapshot()
	reason, ok := strings.CutPrefix(ss.Seats[0].State, "disconnected: ")
	if !ok || !strings.HasPrefix(reason, wire.DisconnectClosed.String()) {
		t.Errorf("ann's row says %q, want disconnected: %s", ss.Seats[0].State, wire.DisconnectClosed)
	}
	if l := lines(ss, fmt.Sprintf("leave seat=%d name=ann reason=%s", ann, reason)); len(l) != 1 {
		t.Errorf("%d lines of ann's leave with its reason %q: %q", len(l), reason, ss.Events)
	}
}
