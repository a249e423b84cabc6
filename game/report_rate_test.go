package game

import (
	"testing"
	"time"
)

// TestHashReportsHeldToARate: a client that sends hash reports twenty times a second, a
// spectator with a made-up difference and then a player with its true hashes, gets no more
// checked than its connection's report rate (reportLimit): the rest are dropped unchecked and
// counted. The honest clients of the same game, on lossy links, lose none.
func TestHashReportsHeldToARate(t *testing.T) {
	t.Parallel()
	cl := smallClass(t, 48, 1, nil)
	g := cl.vgame
	s := g.srv
	g.run(5 * time.Second)
	if s.stats.HashReportsDropped != 0 {
		t.Fatalf("%d honest hash reports dropped", s.stats.HashReportsDropped)
	}
	const flood = 5 * time.Second
	limit := s.reportLimit()
	// The flood's time and the second after it, in which the last reports arrive.
	bound := uint64(limit.burst) + uint64((flood+time.Second)/limit.every) + 1
	// flood sends from c, every 50 ms for the flood's time, a report of a settled frame with
	// the server's hashes of it, changed by lie.
	flood20 := func(c *Client, lie uint64) (sent uint64) {
		for end := g.now.Add(flood); g.now.Before(end); g.run(50 * time.Millisecond) {
			f := s.w.Frame() - resimWindow
			mine, _ := s.drift.hist.at(f)
			state, _ := s.drift.hist.stateAt(f)
			inputs, _ := s.drift.hist.inputsAt(f, 0)
			c.send(g.now, &HashReport{Frame: f, Root: rootHash(mine) ^ lie, State: state, Inputs: inputs, Locator: locator(mine)})
			sent++
		}
		g.run(time.Second) // the last ones arrive
		return sent
	}

	// A spectator: each report checked shows a drift.
	watcher := cl.spectators[0]
	arrived, dropped, drifts := s.stats.SpectatorHashReports, s.stats.HashReportsDropped, s.stats.SpectatorDrifts
	sent := flood20(watcher, 1)
	arrived, dropped, drifts = s.stats.SpectatorHashReports-arrived, s.stats.HashReportsDropped-dropped, s.stats.SpectatorDrifts-drifts
	t.Logf("spectator: %d sent, %d arrived, %d dropped, %d checked and found drifting; the rate allows %d", sent, arrived, dropped, drifts, bound)
	if drifts > bound || drifts == 0 || arrived-dropped > bound+1 || dropped == 0 {
		t.Errorf("a spectator's flood: %d of %d reports arrived, %d dropped, %d checked as drifts: want at most %d checked, the rest dropped",
			arrived, sent, dropped, drifts, bound)
	}

	// A player, with true hashes: nothing to repair, only the cost of the checks.
	player := cl.players[0]
	arrived, dropped = s.stats.HashReports, s.stats.HashReportsDropped
	sent = flood20(player, 0)
	arrived, dropped = s.stats.HashReports-arrived, s.stats.HashReportsDropped-dropped
	// The other player's honest reports (one a second) arrive too, and are all checked.
	others := uint64((flood + time.Second) / (hashReportEvery * s.cfg.Frame))
	t.Logf("player: %d sent, %d arrived (with the other player's), %d dropped; the rate allows %d", sent, arrived, dropped, bound)
	if arrived-dropped > bound+others+1 || dropped == 0 {
		t.Errorf("a player's flood: %d of %d reports arrived (with the other player's), %d dropped: want at most %d checked",
			arrived, sent, dropped, bound+others+1)
	}
	if s.stats.StopWorldResyncs != 0 || s.stats.RealtimeResyncs != 0 {
		t.Errorf("%d pauses, %d real-time repairs after reports of true hashes", s.stats.StopWorldResyncs, s.stats.RealtimeResyncs)
	}
}
