package lesson

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func mustParse(t *testing.T, src string) *Script {
	t.Helper()
	s, err := Parse("test.txt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// counters builds Counters from event=value pairs, the game started.
func counters(kv map[string]uint64) Counters {
	c := Counters{{Event: "game-started"}: 1}
	for k, v := range kv {
		c[Key{Event: k}] = v
	}
	return c
}

func actionTexts(as []Action) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}

// TestRunnerWalksTheSteps: a step begins with its do lines and its every lines, which come due
// again at their period; a +N counts from the moment the step before was met, so an event that
// comes while that step is still up to be read counts; a step stays up its read time; >=N and
// seconds; the lesson waits for the game's start.
func TestRunnerWalksTheSteps(t *testing.T) {
	s := mustParse(t, `lesson 1
title Walk
step One
  read 2s
  do spawn 2
  every 1s bots-chat
  until kills +2
step Two
  read 0s
  until kills +1
  until frames >=100
step Three
  read 0s
  until seconds +3
`)
	r := NewRunner(s)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	if got := r.Advance(at(0), Counters{}); got != nil || r.Step() != 0 || r.Reached(0) != (time.Time{}) {
		t.Fatalf("before the start: %v, step %d", actionTexts(got), r.Step())
	}
	check := func(d time.Duration, c Counters, step int, want ...string) {
		t.Helper()
		got := actionTexts(r.Advance(at(d), c))
		if !slices.Equal(got, want) || r.Step() != step {
			t.Fatalf("at %v: actions %q at step %d, want %q at step %d", d, got, r.Step(), want, step)
		}
	}
	check(time.Second, counters(map[string]uint64{"kills": 5}), 0, "spawn 2", "bots-chat 1")
	if r.Reached(0) != at(time.Second) {
		t.Errorf("step 1 reached at %v", r.Reached(0))
	}
	check(1500*time.Millisecond, counters(map[string]uint64{"kills": 6}), 0)
	check(2*time.Second, counters(map[string]uint64{"kills": 6}), 0, "bots-chat 1")
	// Met (+2 since the start of step 1: 5 → 7) at 2.5 s; one more kill while it is up to be
	// read counts for step 2, which begins once the read time is over (3 s).
	check(2500*time.Millisecond, counters(map[string]uint64{"kills": 7, "frames": 50}), 0)
	check(2800*time.Millisecond, counters(map[string]uint64{"kills": 8, "frames": 90}), 0)
	check(3*time.Second, counters(map[string]uint64{"kills": 8, "frames": 95}), 1)
	p := r.Progress(at(3*time.Second), counters(map[string]uint64{"kills": 8, "frames": 95}), nil)
	if len(p.Goals) != 2 || !p.Goals[0].Met || p.Goals[0].Have != 1 || p.Goals[1].Met || p.Goals[1].Have != 95 || p.Goals[1].Want != 100 {
		t.Fatalf("step 2's goals: %+v", p.Goals)
	}
	// Met, and no read time: step 3 begins at once.
	check(3100*time.Millisecond, counters(map[string]uint64{"kills": 8, "frames": 100}), 2)
	check(5*time.Second, counters(nil), 2)
	check(6*time.Second, counters(nil), 2)
	check(6100*time.Millisecond, counters(nil), 3) // 3 s since step 3 began
	if !r.Done() || r.Advance(at(7*time.Second), counters(nil)) != nil {
		t.Fatal("the lesson did not end")
	}
	p = r.Progress(at(7*time.Second), counters(nil), nil)
	if !p.Done || p.Current != 3 || len(p.Steps) != 3 || p.Text != nil {
		t.Errorf("progress at the end: %+v", p)
	}
}

// TestProgressShowsTheStep: the panel's view of the step up, with its show lines, units and
// the meter's note.
func TestProgressShowsTheStep(t *testing.T) {
	s := mustParse(t, `lesson 4
title Show
show lead-ms
step Look
  text Line one.
  try Press d.
  until messages-waited type=KillEnemy
  show graph-wait-ms type=SpawnEnemy
`)
	r := NewRunner(s)
	c := counters(map[string]uint64{"lead-ms": 200})
	c[Key{"graph-wait-ms", "SpawnEnemy"}] = 42
	r.Advance(t0, c)
	p := r.Progress(t0, c, func(k Key) string { return "note of " + k.Event + "/" + k.Type })
	want := []Reading{{"lead time", "200 ms"}, {"waited in the graph, all told (SpawnEnemy)", "42 ms"}}
	if p.Number != 4 || p.Title != "Show" || p.Text[0] != "Line one." || p.Try[0] != "Press d." || !slices.Equal(p.Show, want) ||
		p.Note != "note of messages-waited/KillEnemy" || !strings.Contains(p.Goals[0].Label, "(KillEnemy)") {
		t.Errorf("progress %+v", p)
	}
}

// TestMeterMeasuresBothWays: four messages from the server, the second one lost and resent.
// The graph holds only the one that depends on it; one ordered channel would hold the two that
// came after it.
func TestMeterMeasuresBothWays(t *testing.T) {
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	rec := func(serial uint64, seq uint16, typ game.MsgType, arrived, executed int, deps ...uint16) message.Record {
		r := message.Record{Serial: serial, Seq: seq, First: int16(typ), Arrived: ms(arrived)}
		if executed >= 0 {
			r.Executed = ms(executed)
		}
		for _, d := range deps {
			r.Deps = append(r.Deps, message.Edge{Seq: d})
		}
		return r
	}
	obs := func(recs ...message.Record) Observation {
		return Observation{Client: &game.ClientSnapshot{Started: true}, Link: transport.PeerStats{Debug: &message.Debug{Incoming: recs}}}
	}
	m := NewMeter()
	// Seq 10 arrives and runs; 11 (the spawn) is lost; 12 (a chat line, no dependency) and 13
	// (the kill, on 11) arrive; 13 waits.
	m.Observe(ms(200), obs(rec(1, 10, game.MsgChat, 0, 0), rec(2, 12, game.MsgChat, 100, 100), rec(3, 13, game.MsgKillEnemy, 150, -1, 11)))
	// The spawn's resend arrives at 300: 11 and 13 run.
	c := m.Observe(ms(400), obs(rec(1, 10, game.MsgChat, 0, 0), rec(2, 12, game.MsgChat, 100, 100), rec(3, 13, game.MsgKillEnemy, 150, 300, 11),
		rec(4, 11, game.MsgSpawnEnemy, 300, 300)))
	want := map[Key]uint64{
		{Event: "messages-compared"}:                  4,
		{Event: "graph-wait-ms"}:                      150, // the kill, 150 to 300
		{Event: "ordered-wait-ms"}:                    350, // 12 from 100 and 13 from 150, both to 300
		{Event: "hol-avoided"}:                        1,   // 12
		{Event: "hol-avoided", Type: "Chat"}:          1,
		{Event: "messages-waited", Type: "KillEnemy"}: 1,
		{Event: "graph-wait-ms", Type: "KillEnemy"}:   150,
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%v = %d, want %d", k, c[k], v)
		}
	}
	if n := m.Note(Key{"messages-waited", "KillEnemy"}); n != "KillEnemy #13 waited 150 ms for #11" {
		t.Errorf("note %q", n)
	}
	// The same records again change nothing.
	again := m.Observe(ms(500), obs(rec(1, 10, game.MsgChat, 0, 0), rec(2, 12, game.MsgChat, 100, 100), rec(3, 13, game.MsgKillEnemy, 150, 300, 11),
		rec(4, 11, game.MsgSpawnEnemy, 300, 300)))
	for k, v := range want {
		if again[k] != v {
			t.Errorf("looked at twice: %v = %d, want %d", k, again[k], v)
		}
	}
}

// TestMeterCountsPartialResends: a fragmented message counts once acknowledged, as partly
// resent when some of its fragments went again but not all; and a pause counts once over.
func TestMeterCountsPartialResends(t *testing.T) {
	out := func(serial uint64, pieces, sends int, acked bool) message.Record {
		r := message.Record{Serial: serial, Seq: uint16(serial), First: int16(game.MsgResyncBatch), Outgoing: true, Pieces: pieces, Sends: sends}
		if acked {
			r.Acked = t0
		}
		return r
	}
	m := NewMeter()
	o := Observation{Client: &game.ClientSnapshot{Pauses: []game.PauseRecord{{Frame: 50, Start: t0, Millis: 300}, {Frame: 90, Running: true}}},
		ServerLink: transport.PeerStats{Debug: &message.Debug{Outgoing: []message.Record{
			out(1, 6, 7, true),  // one of six resent
			out(2, 1, 3, true),  // whole: not a fragmented message
			out(3, 3, 6, true),  // every fragment resent
			out(4, 4, 5, false), // not acknowledged yet
		}}}}
	c := m.Observe(t0, o)
	if c[Key{Event: "partial-resends"}] != 1 || c[Key{Event: "pauses-done"}] != 1 {
		t.Errorf("partial resends %d, pauses done %d; want 1, 1", c[Key{Event: "partial-resends"}], c[Key{Event: "pauses-done"}])
	}
	o.ServerLink.Debug.Outgoing[3].Acked = t0
	o.Client.Pauses[1] = game.PauseRecord{Frame: 90, Start: t0, Millis: 200}
	c = m.Observe(t0, o)
	if c[Key{Event: "partial-resends"}] != 2 || c[Key{Event: "pauses-done"}] != 2 {
		t.Errorf("partial resends %d, pauses done %d; want 2, 2", c[Key{Event: "partial-resends"}], c[Key{Event: "pauses-done"}])
	}
	if n := m.Note(Key{Event: "partial-resends"}); n != "ResyncBatch #4: 4 fragments, 5 sends: only the lost went again" {
		t.Errorf("note %q", n)
	}
}
