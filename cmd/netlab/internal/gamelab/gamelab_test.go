package gamelab

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

var lossy = linksim.Settings{LossPercent: 10, Latency: 30 * time.Millisecond}

// TestResyncTiny: two clients, a hundred units, four desyncs (the fourth a large one): each is
// found and repaired, the large one by stopping the world, and the worlds agree afterwards.
func TestResyncTiny(t *testing.T) {
	t.Parallel()
	r, err := RunResync(ResyncConfig{Link: lossy, Seed: 1, Injections: 4, Clients: 2, Units: 100, Late: game.LateRollback})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Injections) != 4 {
		t.Fatalf("%d injections, want 4", len(r.Injections))
	}
	for i, inj := range r.Injections {
		want := smallDesync
		if i == largeEvery-1 {
			want = largeDesync
		}
		if inj.Units != want || !inj.Detected || !inj.Repaired || inj.Detect > inj.Repair {
			t.Errorf("injection %d: %+v; want %d units found, then repaired", i+1, inj, want)
		}
	}
	if big := r.Injections[largeEvery-1]; big.StopWorld == 0 {
		t.Errorf("the large injection was repaired without a pause: %+v", big)
	}
	if len(r.Pauses) == 0 || len(r.ClientP) == 0 {
		t.Errorf("pauses: server %v, clients %v; want some", r.Pauses, r.ClientP)
	}
	if r.Compared == 0 || r.Differ != 0 {
		t.Errorf("world hashes after the last re-sync: %d compared, %d differ", r.Compared, r.Differ)
	}
}

// TestScaleTiny: two small games measured, one with spectators beyond the seats: bytes flow
// both ways for every player and every spectator, measured apart, and without the CPU
// measurement nothing machine-dependent is filled in.
func TestScaleTiny(t *testing.T) {
	t.Parallel()
	// Direct links on: every kind of link is measured (auto leaves these fast links to the
	// server's relay alone).
	r, err := RunScale(ScaleConfig{Link: lossy, Seed: 1, Frames: 20, Clients: []int{2, 10}, Units: []int{100}, Direct: game.DirectOn})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(r.Rows))
	}
	for i, want := range []struct{ players, spectators int }{{2, 0}, {8, 2}} {
		row := r.Rows[i]
		if row.Spectators != want.spectators || row.Up.N() != want.players || row.Down.N() != want.players ||
			!(row.Up.Mean() > 0) || !(row.Down.Mean() > 0) || !(row.DirectIn > 0) {
			t.Errorf("%d clients: %d spectators, up %v B/s (%d players), down %v B/s (%d), direct %v B/s; want %d spectators and bytes each way for %d players",
				row.Clients, row.Spectators, row.Up.Mean(), row.Up.N(), row.Down.Mean(), row.Down.N(), row.DirectIn, want.spectators, want.players)
		}
		if row.SpecUp.N() != want.spectators || row.SpecDown.N() != want.spectators ||
			want.spectators > 0 && !(row.SpecUp.Mean() > 0 && row.SpecDown.Mean() > 0) {
			t.Errorf("%d clients: spectators up %v B/s (%d), down %v B/s (%d); want bytes each way for %d", row.Clients,
				row.SpecUp.Mean(), row.SpecUp.N(), row.SpecDown.Mean(), row.SpecDown.N(), want.spectators)
		}
		// The virtual clock steps at least a millisecond at a time, so the window may end up
		// to a millisecond late.
		if row.UnitsStart < 50 || row.Seconds < 2 || row.Seconds > 2.001 {
			t.Errorf("%d clients: %d units at the start, %v s measured; want about 100 units, 2 s", row.Clients, row.UnitsStart, row.Seconds)
		}
		// Each player's total over all its links: bytes and datagrams both ways, the headers
		// on top of the payloads, every kind of connection busy, and less of it all once the
		// bots stopped giving orders than while they played.
		for _, w := range []struct {
			name string
			tr   Traffic
		}{{"in play", row.Play}, {"idle", row.Idle}} {
			tr := w.tr
			if !(tr.In > 0 && tr.Out > 0 && tr.DgramIn > 0 && tr.DgramOut > 0) ||
				tr.InWire != tr.In+UDPHeader*tr.DgramIn || tr.OutWire != tr.Out+UDPHeader*tr.DgramOut ||
				!(tr.Down > 0 && tr.Up > 0 && tr.Direct > 0) {
				t.Errorf("%d clients, %s: %+v; want bytes and datagrams both ways on every kind of link, and %d B of header a datagram", row.Clients, w.name, tr, UDPHeader)
			}
		}
		if !(row.Idle.Out < row.Play.Out && row.Idle.Direct < row.Play.Direct) {
			t.Errorf("%d clients: out %.0f B/s and %.1f datagrams/s a direct link idle, %.0f and %.1f in play; want less idle",
				row.Clients, row.Idle.Out, row.Idle.Direct, row.Play.Out, row.Play.Direct)
		}
		if row.Periods != 0 || row.ServerMsPerSec != 0 {
			t.Errorf("the server's work was measured without CPU: %d periods, %v ms/s", row.Periods, row.ServerMsPerSec)
		}
	}
	if _, err := RunScale(ScaleConfig{Frames: 1, Clients: []int{world.MaxPlayers + game.MaxSpectators + 1}, Units: []int{10}}); err == nil {
		t.Errorf("%d clients accepted; a game has %d seats and room for %d spectators", world.MaxPlayers+game.MaxSpectators+1, world.MaxPlayers, game.MaxSpectators)
	}
}
