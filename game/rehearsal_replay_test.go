package game_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/replay"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/ui"
)

// TestClassRehearsal plays README.md's 45-minute class in virtual time, row by row of its
// table (game.RehearseClass): the server with its two bots, six students at the seats and 31
// more watching, their clients bots that play and chat to their last frame, and the projector,
// a spectator that records its connection as --record does. At their minutes: F6 and F7 put
// 10% then 30% loss on every client's link (the class link); at 30% the teacher spawns waves of
// enemies killed a frame after their spawn, and a client's graph shows a kill waiting on its
// spawn; s turns spectator chat off and on; the students go to their own lessons (20-28) and
// come back with the join command; R starts a new round; F8 puts 150 ms of round trip on every
// link; t steps the lead from 100 ms to 2 s and back to auto while the students give orders;
// every student presses i and the server repairs the units; a student quits and comes back to
// her seat; the students leave again (36-40) and the projector quits at 40. Then the
// projector's capture is played back with game/replay, as --replay does, to a real-time
// re-sync of a student's unit. What each row promises is checked on the sessions' state, and
// at the end that nothing with a limit broke: no one dropped, nothing refused, every frame on
// time. Where the class is not what the README says (BENCHMARKS.md, "The class rehearsed"),
// the test logs the numbers ("not as the README says") rather than fail. About a minute of
// wall time; played in full only (without the race detector).
func TestClassRehearsal(t *testing.T) {
	t.Parallel()
	start := time.Now() // for the log: what the 45 minutes cost
	cc := game.RehearseClass(t, game.ClassPresets{
		TenPercent:    ui.LinkPresets[1].Settings,
		ThirtyPercent: ui.LinkPresets[2].Settings,
		RoundTrip:     ui.LinkPresets[3].Settings,
	})

	// The replay reads the capture as the binary does: the file and its key file.
	path := filepath.Join(t.TempDir(), "class.pcapng")
	if err := os.WriteFile(path, cc.Capture, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(record.KeysPath(path), cc.Keys, 0o600); err != nil {
		t.Fatal(err)
	}
	ds, err := record.ReadAll(path, replay.MaxDatagrams)
	if err != nil {
		t.Fatal(err)
	}
	m := replay.New(ds)
	if n := m.Unopened(); n != 0 {
		t.Errorf("%d of the capture's %d datagrams do not open with its key file", n, m.Len())
	}
	if got := m.End().Sub(m.Start()); got < cc.Duration-time.Minute {
		t.Errorf("the capture spans %v of the projector's %v", got, cc.Duration)
	}
	// n: the next re-sync, until one is a real-time re-sync of a player's units; then step
	// through it one datagram at a time.
	updates, pauses := 0, 0
	var first int = -1
	for _, i := range m.Resyncs() {
		m.Seek(i + 1)
		d, _ := m.Current()
		for _, rec := range d.Records {
			switch rec.Type {
			case game.MsgUnitUpdate:
				updates++
				if first < 0 {
					first = i
				}
			case game.MsgPause:
				pauses++
			}
		}
	}
	t.Logf("45 minutes of class played in %v", time.Since(start).Round(time.Second))
	t.Logf("the replay: %d datagrams over %v; %d re-sync marks: %d UnitUpdates, %d Pauses (the projector executed %d and %d)",
		m.Len(), m.End().Sub(m.Start()).Round(time.Second), len(m.Resyncs()), updates, pauses, cc.RealtimeResyncs, cc.StopWorldResyncs)
	if first < 0 {
		t.Fatalf("the replay finds no real-time re-sync (UnitUpdate) in the projector's capture")
	}
	m.Seek(0)
	m.Seek(first)
	if i, ok := m.NextResync(); !ok || i != first {
		t.Errorf("n from datagram %d goes to %d (%v), want the re-sync at %d", first, i, ok, first)
	}
	m.Step()
	if d, _ := m.Current(); d.Index != first {
		t.Errorf("after one step from the mark the replay shows datagram %d, want %d", d.Index, first)
	}
	if len(m.Mismatches()) == 0 {
		t.Errorf("at the re-sync of datagram %d the replay's hashes view shows no mismatch", first)
	}
}
