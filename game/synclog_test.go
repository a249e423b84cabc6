package game

// Tests of the sync log (the debug panel's hash mismatches and re-sync pauses), the pending
// orders and the server's player table: first each host's bookkeeping on its own, driven
// message by message without a network, then one loopback game in which a corrupted client
// is repaired in real time and then by a stop-the-world re-sync.

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// startedOfflineClient is an offline client (see offlineClient) in a game of seats 0 and 1,
// as seat 0, stepped to frame 10: its history holds frames 0 to 9.
func startedOfflineClient(t *testing.T) *Client {
	t.Helper()
	c := offlineClient(t)
	deliver(t, c, &StartGame{Map: "skirmish", Seed: 1, FrameMillis: 100, LeadFrames: 2, Seats: []uint8{0, 1}})
	now := time.Now()
	for c.w.Frame() < 10 {
		c.step(now)
	}
	return c
}

// ownUnits lists the ids of seat's units in w.
func ownUnits(w *world.World, seat uint8) []uint32 {
	var ids []uint32
	for _, u := range w.Units() {
		if u.Owner == seat {
			ids = append(ids, u.ID)
		}
	}
	return ids
}

// withoutWhen is a copy of the record without its wall-clock time, for comparisons.
func withoutWhen(r SyncRecord) SyncRecord {
	r.When = time.Time{}
	return r
}

// TestClientLogsRealtimeResync: a UnitUpdate becomes a record with the client's hash and the
// server's of each unit: the client's own from its answer to the drill-down, another player's
// from its history, unknown when that is gone.
func TestClientLogsRealtimeResync(t *testing.T) {
	const checked = 8
	for _, tt := range []struct {
		name    string
		request bool // the client answered a drill-down into its report of frame checked first
		update  func(own, other []uint32) *UnitUpdate
		// want is the record, from the client's hash of a unit at the checked frame
		want func(own, other []uint32, local func(uint32) uint64) SyncRecord
	}{
		{"own drift", true,
			func(own, other []uint32) *UnitUpdate {
				return &UnitUpdate{Frame: 14, Seat: 0, Checked: checked, Removed: []uint32{own[2]},
					Hashes: []world.UnitHash{{ID: own[0], Hash: 0xabc}, {ID: 9999, Hash: 5}}}
			},
			func(own, other []uint32, local func(uint32) uint64) SyncRecord {
				return SyncRecord{Seat: 0, Frame: checked, Groups: []IDRange{{Start: 1, End: world.MaxUnitID}}, Action: ActionRealtime, At: 14,
					Units: []UnitMismatch{
						{ID: own[0], Local: local(own[0]), Server: 0xabc, LocalKnown: true},
						{ID: own[2], Local: local(own[2]), NoServer: true, LocalKnown: true},
						{ID: 9999, Server: 5, NoLocal: true, LocalKnown: true}, // the client lacks it
					}}
			}},
		{"another player's drift", false,
			func(own, other []uint32) *UnitUpdate {
				return &UnitUpdate{Frame: 15, Seat: 1, Checked: checked, Hashes: []world.UnitHash{{ID: other[1], Hash: 0xdef}}}
			},
			func(own, other []uint32, local func(uint32) uint64) SyncRecord {
				return SyncRecord{Seat: 1, Frame: checked, Action: ActionRealtime, At: 15,
					Units: []UnitMismatch{{ID: other[1], Local: local(other[1]), Server: 0xdef, LocalKnown: true}}}
			}},
		{"history gone", false,
			func(own, other []uint32) *UnitUpdate {
				return &UnitUpdate{Frame: 16, Seat: 1, Checked: 1000, Hashes: []world.UnitHash{{ID: other[1], Hash: 0xdef}}}
			},
			func(own, other []uint32, local func(uint32) uint64) SyncRecord {
				return SyncRecord{Seat: 1, Frame: 1000, Action: ActionRealtime, At: 16,
					Units: []UnitMismatch{{ID: other[1], Server: 0xdef}}}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := startedOfflineClient(t)
			hs, _ := c.drift.hist.at(checked)
			local := func(id uint32) uint64 { h, _ := hashOf(hs, id); return h }
			own, other := ownUnits(c.w, 0), ownUnits(c.w, 1)
			if tt.request {
				deliver(t, c, &HashRequest{Frame: checked, Ranges: []IDRange{{Start: 1, End: world.MaxUnitID}}})
				if n := len(c.drift.log.records); n != 1 || c.drift.log.records[0].Action != ActionDrillDown {
					t.Fatalf("after the HashRequest the log is %+v, want one drill-down", c.drift.log.records)
				}
			}
			deliver(t, c, tt.update(own, other))
			c.publish(time.Now(), true)
			snap := c.Snapshot()
			if len(snap.Mismatches) != 1 {
				t.Fatalf("%d records, want 1: %+v", len(snap.Mismatches), snap.Mismatches)
			}
			want := tt.want(own, other, local)
			if got := withoutWhen(snap.Mismatches[0]); !reflect.DeepEqual(got, want) {
				t.Errorf("record\n got %+v\nwant %+v", got, want)
			}
			// The snapshot is a copy: the client's later changes do not reach it.
			c.drift.log.records[0].Units[0].Local++
			c.drift.log.records[0].Action = ActionStopWorld
			if got := withoutWhen(snap.Mismatches[0]); !reflect.DeepEqual(got, want) {
				t.Errorf("the snapshot changed with the client's log: %+v", got)
			}
		})
	}
}

// TestClientLogsTheRangesThatDiffer: a drill-down with the server's hashes of two ranges, one
// of them equal to the client's: the client records and counts only the other, and answers
// with its units alone.
func TestClientLogsTheRangesThatDiffer(t *testing.T) {
	const checked = 8
	c := startedOfflineClient(t)
	hs, _ := c.drift.hist.at(checked)
	split := hs[len(hs)/2].ID
	same, differs := IDRange{Start: 1, End: split}, IDRange{Start: split + 1, End: world.MaxUnitID}
	deliver(t, c, &HashRequest{Frame: checked, Ranges: []IDRange{same, differs},
		Hashes: []uint64{rangeHash(hs, same.Start, same.End), rangeHash(hs, differs.Start, differs.End) ^ 1}})
	if len(c.drift.log.records) != 1 || !slices.Equal(c.drift.log.records[0].Groups, []IDRange{differs}) || c.drift.log.records[0].Action != ActionDrillDown {
		t.Fatalf("log %+v, want one drill-down of %v", c.drift.log.records, differs)
	}
	if c.stats.MismatchedGroups != 1 {
		t.Errorf("%d mismatched groups counted, want 1", c.stats.MismatchedGroups)
	}
	answer, ok := c.answer(checked)
	if want := unitsIn(hs, differs.Start, differs.End); !ok || !slices.Equal(answer, want) {
		t.Errorf("answered %v, want the units of %v: %v", answer, differs, want)
	}
}

// TestClientLogsStopTheWorld: a Pause turns the open drill-down into a stop-the-world record,
// which collects the units of the re-sync batches that differ from the hashes the client sent
// (each unit once, at most maxRecordUnits of them); the pause record counts every unit of every
// batch and times the pause.
func TestClientLogsStopTheWorld(t *testing.T) {
	c := startedOfflineClient(t)
	deliver(t, c, &HashRequest{Frame: 8, Ranges: []IDRange{{Start: 1, End: world.MaxUnitID}}})
	p := c.w.Frame()
	deliver(t, c, &Pause{Frame: p}) // at the client's frame already: it pauses at once
	if !c.drift.pause.reached() {
		t.Fatal("the client did not pause where it was")
	}
	if len(c.drift.log.pauses) != 1 || c.drift.log.pauses[0].Frame != p || !c.drift.log.pauses[0].Running || c.drift.log.pauses[0].Start.IsZero() {
		t.Fatalf("pauses %+v, want one running at frame %d, started", c.drift.log.pauses, p)
	}
	if len(c.drift.log.records) != 1 || c.drift.log.records[0].Action != ActionStopWorld || c.drift.log.records[0].At != p || c.drift.log.records[0].Frame != 8 {
		t.Fatalf("log %+v, want the drill-down of frame 8 turned into a stop-the-world at frame %d", c.drift.log.records, p)
	}

	us := c.w.Units()
	changed, same, removed := us[0], us[1], us[2]
	orig := changed.Hash()
	changed.HP--
	wantFirst := []UnitMismatch{
		{ID: changed.ID, Local: orig, Server: changed.Hash(), LocalKnown: true},
		{ID: removed.ID, Local: removed.Hash(), NoServer: true, LocalKnown: true},
	}
	deliver(t, c, &ResyncBatch{Frame: p, Units: []world.Unit{changed, same}, Removed: []uint32{removed.ID}})
	if rec := c.drift.log.records[0]; !reflect.DeepEqual(rec.Units, wantFirst) || rec.More != 0 {
		t.Errorf("after the first batch: units %+v, %d more; want %+v", rec.Units, rec.More, wantFirst)
	}

	// More units than a record lists, sent twice: they count once.
	const extra = maxRecordUnits + 6 // units the client lacks
	var extras []world.Unit
	for i := range extra {
		extras = append(extras, world.Unit{ID: 5000 + uint32(i), Kind: 0, X: 1, Y: 1, HP: 10})
	}
	deliver(t, c, &ResyncBatch{Frame: p, Batch: 1, Units: append([]world.Unit{changed}, extras...)})
	deliver(t, c, &ResyncBatch{Frame: p, Batch: 2, Units: extras})
	rec := c.drift.log.records[0]
	if len(rec.Units) != maxRecordUnits || !reflect.DeepEqual(rec.Units[:2], wantFirst) {
		t.Errorf("%d units listed, first %+v; want %d, first %+v", len(rec.Units), rec.Units[:min(2, len(rec.Units))], maxRecordUnits, wantFirst)
	}
	if want := len(wantFirst) + extra - maxRecordUnits; rec.More != want {
		t.Errorf("More = %d, want %d", rec.More, want)
	}
	if rec.lists(same.ID) {
		t.Errorf("unit %d, equal on both sides, is listed as a mismatch", same.ID)
	}
	if !slices.IsSortedFunc(rec.Units, func(a, b UnitMismatch) int { return int(a.ID) - int(b.ID) }) {
		t.Error("the units are not in id order")
	}
	if want := 3 + (1 + extra) + extra; c.drift.log.pauses[0].Units != want {
		t.Errorf("the pause record counts %d units, want %d (every unit of every batch)", c.drift.log.pauses[0].Units, want)
	}

	reached := c.drift.pause.reachedAt
	deliver(t, c, &Resume{Frame: p})
	later := time.Now().Add(50 * time.Millisecond)
	c.frames(later)
	want := later.Sub(reached).Milliseconds()
	if pr := c.drift.log.pauses[0]; pr.Running || pr.Millis != want || want < 50 || len(c.stats.PauseMillis) != 1 || pr.Millis != c.stats.PauseMillis[0] {
		t.Errorf("after the resume: %+v (stats %v), want stopped after %d ms", pr, c.stats.PauseMillis, want)
	}
}

// TestClientPendingOrders: an order is pending from when it is issued until its event runs;
// one whose event never runs goes after pendingStale.
func TestClientPendingOrders(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 21, bots: 1, clients: 1, client: func(_ int, c *ClientConfig) { c.Bot = false }})
	c := g.clients[0]
	g.waitFor(10*time.Second, "the game to run", func() bool { return clientRunning(c) })
	unit := ownUnits(c.w, c.role.seat)[0]
	f, err := c.Command(g.now, world.CommandMove, []uint32{unit}, 7, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.publish(g.now, true)
	before := c.Snapshot()
	want := []PendingOrder{{ID: c.orders.lastID, Frame: f, Kind: uint8(world.CommandMove), Units: []uint32{unit}, X: 7, Y: 8}}
	if !reflect.DeepEqual(before.Pending, want) {
		t.Fatalf("pending %+v, want %+v", before.Pending, want)
	}
	g.runUntil(g.now.Add(5*time.Second), func() bool {
		if c.w.Frame() <= f && len(c.orders.pending) != 1 {
			t.Fatalf("at frame %d, before the order's frame %d ran: pending %+v", c.w.Frame(), f, c.orders.pending)
		}
		return c.w.Frame() > f
	})
	c.publish(g.now, true)
	if p := c.Snapshot().Pending; len(p) != 0 {
		t.Errorf("after frame %d ran: pending %+v", f, p)
	}
	if !reflect.DeepEqual(before.Pending, want) {
		t.Errorf("an older snapshot changed: %+v", before.Pending)
	}

	// An order whose event never runs (a stop-the-world re-sync dropped it).
	lost := c.w.Frame()
	c.orders.pending = append(c.orders.pending, PendingOrder{ID: 1, Frame: lost})
	stale := uint32(pendingStale / c.clock.frameDur)
	g.runUntil(g.now.Add(pendingStale+5*time.Second), func() bool {
		if c.w.Frame() <= lost+stale && len(c.orders.pending) != 1 {
			t.Fatalf("the lost order went at frame %d, %d frames after its frame, before the %d of pendingStale", c.w.Frame(), c.w.Frame()-lost, stale)
		}
		return c.w.Frame() > lost+stale+1 // the step after the last frame it may wait
	})
	if len(c.orders.pending) != 0 {
		t.Errorf("the lost order is still pending at frame %d", c.w.Frame())
	}
}

// offlineServer is a server whose game runs only when the test steps it: two bots in seats 0
// and 1, stepped to frame 12. Nobody is connected, so it sends nothing.
func offlineServer(t *testing.T) *Server {
	t.Helper()
	s, err := NewServer(ServerConfig{Bots: 2, Seed: 1}, nowhere{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s.start(now)
	for s.w.Frame() < 12 {
		s.step(now)
	}
	return s
}

// TestServerLogsDrillDowns: what the server records of each way a hash check can end, and the
// seat's LastHash after it. The steps build on each other, like the checks of one player's
// reports.
func TestServerLogsDrillDowns(t *testing.T) {
	s := offlineServer(t)
	st, other := s.seats.players[1], s.seats.players[0]
	f := s.w.Frame() - 3
	mine, _ := s.drift.hist.at(f)
	mine = slices.Clone(mine)
	all := []IDRange{{Start: 1, End: world.MaxUnitID}}
	good := rangeHash(mine, 1, world.MaxUnitID)
	clock := time.Now() // the checks' time: a drill-down waits for its answer a while
	report := func(st *seat, frame uint32, hash uint64) {
		// The server's state, inputs and locator: only the units' root differs, and the
		// locator names no one unit for it, so the check drills down.
		state, _ := s.drift.hist.stateAt(frame)
		inputs, _ := s.drift.hist.inputsAt(frame, 0)
		hs, _ := s.drift.hist.at(frame)
		s.hashReport(clock, st, &HashReport{Frame: frame, Root: hash, State: state, Inputs: inputs, Locator: locator(hs)})
	}
	// answer is a client's UnitHashes of frame: the server's, with units wrong changed, units
	// lack left out, and unit extra added.
	answer := func(st *seat, frame uint32, wrong, lack []uint32, extra uint32) {
		hs, _ := s.drift.hist.at(frame)
		var out []world.UnitHash
		for _, h := range hs {
			switch {
			case slices.Contains(lack, h.ID):
				continue
			case slices.Contains(wrong, h.ID):
				h.Hash ^= 1
			}
			out = append(out, h)
		}
		if extra != 0 {
			out = append(out, world.UnitHash{ID: extra, Hash: 77})
		}
		s.unitHashes(clock, st, &UnitHashes{Frame: frame, Hashes: out})
	}
	last := func() SyncRecord { return withoutWhen(s.drift.log.records[len(s.drift.log.records)-1]) }
	u := func(i int) uint32 { return mine[i].ID }

	report(st, f, good)
	if len(s.drift.log.records) != 0 || st.sync.lastHash != fmt.Sprintf("ok at frame %d", f) {
		t.Fatalf("a matching report: log %+v, last hash %q", s.drift.log.records, st.sync.lastHash)
	}

	// Two mismatching reports. The second comes while the first's drill-down waits for its
	// answer: it is not drilled into.
	report(st, f-1, good^1)
	report(st, f, good^1)
	if n, awaiting := len(s.drift.log.records), s.stats.HashReportsAwaitingRepair; n != 1 || awaiting != 1 {
		t.Errorf("a report while a drill-down is open: %d records, %d reports awaiting a repair, want 1 and 1", n, awaiting)
	}
	// The first's answer is overdue: a later report that differs is drilled into too, and the
	// first answer to come decides; the other comes too late.
	clock = clock.Add(drillPatienceFrames * s.cfg.Frame)
	report(st, f, good^1)
	if want := fmt.Sprintf("mismatch at frame %d: 1 groups", f); st.sync.lastHash != want {
		t.Errorf("last hash %q, want %q", st.sync.lastHash, want)
	}

	// The answer to the second: one unit differs, one is missing, one the server does not have.
	answer(st, f, []uint32{u(0)}, []uint32{u(1)}, 9999)
	at := s.drift.lastFix
	wantUnits := []UnitMismatch{
		{ID: u(0), Local: mine[0].Hash ^ 1, Server: mine[0].Hash, LocalKnown: true},
		{ID: u(1), Server: mine[1].Hash, NoLocal: true, LocalKnown: true},
		{ID: 9999, Local: 77, NoServer: true, LocalKnown: true},
	}
	if got, want := last(), (SyncRecord{Seat: 1, Frame: f, Groups: all, Units: wantUnits, Action: ActionRealtime, At: at}); !reflect.DeepEqual(got, want) {
		t.Errorf("the real-time re-sync's record\n got %+v\nwant %+v", got, want)
	}
	if want := fmt.Sprintf("real-time re-sync at frame %d", at); st.sync.lastHash != want {
		t.Errorf("last hash %q, want %q", st.sync.lastHash, want)
	}
	var up *UnitUpdate
	for _, e := range s.sched.all() {
		if e.kind == evUpdate && e.frame == at {
			up = e.update
		}
	}
	wantHashes := []world.UnitHash{mine[0], mine[1]}
	if up == nil || up.Seat != 1 || up.Checked != f || !reflect.DeepEqual(up.Hashes, wantHashes) {
		t.Errorf("the update %+v, want seat 1, checked %d, hashes %v", up, f, wantHashes)
	}
	answer(st, f-1, []uint32{u(0)}, nil, 0)
	if got, want := withoutWhen(s.drift.log.records[0]), (SyncRecord{Seat: 1, Frame: f - 1, Groups: all, Action: ActionNoDrillDown}); !reflect.DeepEqual(got, want) {
		t.Errorf("the late answer's record\n got %+v\nwant %+v", got, want)
	}

	// The same report again, before the repair takes effect: nothing new, and no drill-down.
	n, awaiting := len(s.drift.log.records), s.stats.HashReportsAwaitingRepair
	report(st, f, good^1)
	if len(s.drift.log.records) != n || s.stats.HashReportsAwaitingRepair != awaiting+1 || len(st.sync.requests) != 0 {
		t.Errorf("a report of a frame before the repair: %d records (was %d), %d awaiting a repair (was %d), %d drill-downs open",
			len(s.drift.log.records), n, s.stats.HashReportsAwaitingRepair, awaiting, len(st.sync.requests))
	}
	// Its drill-down's answer would find the units already on their way: nothing left.
	s.decideRepair(clock, st, f, mine, driftFound{ids: []uint32{u(0), u(1)}, removed: []uint32{9999}, units: wantUnits, answered: all})
	if got, want := last(), (SyncRecord{Seat: 1, Frame: f, Groups: all, Units: wantUnits, Action: ActionNoneLeft}); !reflect.DeepEqual(got, want) {
		t.Errorf("the repeated check's record\n got %+v\nwant %+v", got, want)
	}

	// The other seat's report differs, and its answer's units are all the server's: nothing
	// to do.
	report(other, f, good^1)
	answer(other, f, nil, nil, 0)
	if got, want := last(), (SyncRecord{Seat: 0, Frame: f, Groups: all, Action: ActionNoneDiffered}); !reflect.DeepEqual(got, want) {
		t.Errorf("the record of an answer without a difference\n got %+v\nwant %+v", got, want)
	}

	// Too many units for a real-time re-sync: the world stops. The other seat's drill-down,
	// answered during the pause, ends in the pause too.
	s.cfg.RealtimeMax = 1
	g := at // the first frame the repair holds in
	for s.w.Frame() <= g {
		s.step(clock)
	}
	gm, _ := s.drift.hist.at(g)
	report(other, g, rangeHash(gm, 1, world.MaxUnitID)^1)
	report(st, g, rangeHash(gm, 1, world.MaxUnitID)^1)
	answer(st, g, []uint32{u(2), u(3)}, nil, 0)
	if s.drift.pause == nil {
		t.Fatal("no pause")
	}
	p := s.drift.pause.frame
	if got := last(); got.Action != ActionStopWorld || got.At != p || got.Frame != g || len(got.Units) != 2 {
		t.Errorf("the stop-the-world's record %+v, want two units and a pause at frame %d", got, p)
	}
	if want := fmt.Sprintf("stop-the-world at frame %d", p); st.sync.lastHash != want {
		t.Errorf("last hash %q, want %q", st.sync.lastHash, want)
	}
	answer(other, g, nil, nil, 0)
	if r := findRecord(s.drift.log.records, 0, g, ActionStopWorld); r == nil || r.At != p {
		t.Errorf("seat 0's drill-down during the pause: %+v", s.drift.log.records)
	}
	if len(s.drift.log.pauses) != 1 || !s.drift.log.pauses[0].Running || s.drift.log.pauses[0].Frame != p || !s.drift.log.pauses[0].Start.IsZero() {
		t.Fatalf("pauses %+v, want one on its way to frame %d", s.drift.log.pauses, p)
	}

	// At the paused frame, a client's WorldHashes differ in one unit.
	now := time.Now()
	for s.w.Frame() < p {
		s.step(now)
	}
	s.reachPause(now)
	st.drift.pause = &clientPause{applied: make(map[uint32]bool)} // as if it were connected
	hs := s.w.UnitHashes(1, world.MaxUnitID, nil)
	hs[4].Hash++
	s.worldHashes(now, st, &WorldHashes{Frame: p, Hashes: hs})
	want := SyncRecord{Seat: 1, Frame: p, Action: ActionStopWorld, At: p,
		Units: []UnitMismatch{{ID: hs[4].ID, Local: hs[4].Hash, Server: hs[4].Hash - 1, LocalKnown: true}}}
	if got := last(); !reflect.DeepEqual(got, want) {
		t.Errorf("the paused world's record\n got %+v\nwant %+v", got, want)
	}
	s.resume(now.Add(80 * time.Millisecond))
	if got := s.drift.log.pauses[0]; got.Running || got.Millis != 80 || got.Units != 1 || !got.Start.Equal(now) {
		t.Errorf("the pause record after the resume: %+v, want 80 ms, 1 unit", got)
	}
	s.publish(now, true)
	if snap := s.Snapshot(); !reflect.DeepEqual(snap.Pauses, s.drift.log.pauses) || len(snap.Mismatches) != len(s.drift.log.records) {
		t.Errorf("the snapshot has pauses %+v and %d records, the server %+v and %d", snap.Pauses, len(snap.Mismatches), s.drift.log.pauses, len(s.drift.log.records))
	}
}

func TestSeatInfo(t *testing.T) {
	peer := new(transport.Peer) // seatState asks only whether there is one
	for _, tt := range []struct {
		name   string
		st     *seat
		paused bool
		want   string
	}{
		{"bot", &seat{bot: NewBot(0, "bot1", 1)}, false, "bot"},
		{"bot during a pause", &seat{bot: NewBot(0, "bot1", 1)}, true, "bot"},
		{"connected, not started", &seat{downlink: downlink{peer: peer}}, false, "joining"},
		{"playing", &seat{downlink: downlink{peer: peer, started: true}}, false, "playing"},
		{"paused", &seat{downlink: downlink{peer: peer, started: true, drift: connDrift{pause: &clientPause{sent: 1, applied: map[uint32]bool{0: true}}}}}, true, "paused"},
		{"batches on their way", &seat{downlink: downlink{peer: peer, started: true, drift: connDrift{pause: &clientPause{sent: 2, applied: map[uint32]bool{0: true}}}}}, true, "re-syncing"},
		{"gone", &seat{gone: "timeout"}, false, "disconnected: timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{}
			if tt.paused {
				s.drift.pause = &pause{frame: 50}
			}
			if got := s.seatState(tt.st); got != tt.want {
				t.Errorf("state %q, want %q", got, tt.want)
			}
		})
	}

	s := &Server{}
	s.seats.players[0] = &seat{idx: 0, name: "bot1", bot: NewBot(0, "bot1", 1)}
	s.seats.players[2] = &seat{downlink: downlink{peer: peer, started: true}, idx: 2, name: "ann", sync: playerDrift{lastHash: "ok at frame 40"}}
	s.seats.inGame[0], s.seats.inGame[2] = true, true
	s.seats.players[5] = &seat{idx: 5, name: "bob", gone: "closed: bye"}
	want := []SeatInfo{
		{Seat: 0, Name: "bot1", Bot: true, Connected: true, InGame: true, State: "bot"},
		{Seat: 2, Name: "ann", Connected: true, InGame: true, LastHash: "ok at frame 40", State: "playing"},
		{Seat: 5, Name: "bob", State: "disconnected: closed: bye"},
	}
	if got := s.seatInfos(); !reflect.DeepEqual(got, want) {
		t.Errorf("seats\n got %+v\nwant %+v", got, want)
	}
}
