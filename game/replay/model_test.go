package replay

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/world"
)

// decodeAll hands m the payloads of msgs as a connection to the server received them.
func decodeAll(t *testing.T, m *Model, c *conn, msgs ...game.Msg) {
	t.Helper()
	for _, msg := range msgs {
		b, err := game.AppendMsg(nil, msg)
		if err != nil {
			t.Fatal(err)
		}
		c.now = c.now.Add(time.Millisecond)
		m.decode(c, false, b)
	}
}

// TestChatOfPlayersAndSpectators: a replay's chat has the players' lines and the spectators'
// (named by the server's relay, marked as a spectator's), each once however many copies the
// capture holds.
func TestChatOfPlayersAndSpectators(t *testing.T) {
	m := New(nil)
	c := m.conn(netip.MustParseAddrPort("127.0.0.1:7777"))
	c.now = time.Unix(1000, 0)
	decodeAll(t, m, c,
		&game.PlayerInfo{Seat: 2, Name: "ann"},
		&game.Chat{Seat: 2, Line: 1, Text: "hello"},
		&game.SpectatorChat{Spectator: 3, Name: "eve", Line: 1, Text: "gg"},
		&game.Chat{Seat: 2, Line: 1, Text: "hello"},                         // a copy
		&game.SpectatorChat{Spectator: 3, Name: "eve", Line: 1, Text: "gg"}, // a copy
		&game.SpectatorChat{Spectator: 2, Name: "bob", Line: 1, Text: "hi"}, // spectator 2 is not seat 2
	)
	want := []ChatLine{
		{Seat: 2, From: "ann", Text: "hello"},
		{Seat: 3, Spectator: true, From: "eve", Text: "gg"},
		{Seat: 2, Spectator: true, From: "bob", Text: "hi"},
	}
	got := m.Chat()
	if len(got) != len(want) {
		t.Fatalf("chat %+v, want %d lines", got, len(want))
	}
	for i := range want {
		got[i].At = time.Time{}
		if got[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	var texts []string
	for _, e := range m.Events() {
		if e.Kind == EventChat {
			texts = append(texts, e.Text)
		}
	}
	if fmt.Sprint(texts) != "[<ann> hello <eve (spectator)> gg <bob (spectator)> hi]" {
		t.Errorf("chat events %q", texts)
	}
}

// TestDrillDownEvents: a drill-down's request and answer become events that say what they
// carry: the older request without the server's hashes, the one with them, and an answer with
// and without skipped ranges.
func TestDrillDownEvents(t *testing.T) {
	m := New(nil)
	c := m.conn(netip.MustParseAddrPort("127.0.0.1:7777"))
	c.now = time.Unix(1000, 0)
	ranges := []game.IDRange{{Start: 1, End: 200}, {Start: 201, End: 1 << 20}}
	decodeAll(t, m, c,
		&game.HashRequest{Frame: 40, Ranges: ranges},
		&game.HashRequest{Frame: 50, Ranges: ranges, Hashes: []uint64{1, 2}},
		&game.UnitHashes{Frame: 40},
		&game.UnitHashes{Frame: 50, Skipped: ranges[1:]},
	)
	var texts []string
	for _, e := range m.Events() {
		texts = append(texts, e.Text)
	}
	want := []string{
		"HashRequest: drill-down into 2 id ranges at frame 40",
		"HashRequest: drill-down into 2 id ranges at frame 50, with the server's hash of each",
		"UnitHashes: 0 unit hashes at frame 40",
		"UnitHashes: 0 unit hashes at frame 50, id ranges skipped as their hashes matched: 1",
	}
	if fmt.Sprint(texts) != fmt.Sprint(want) {
		t.Errorf("events %q, want %q", texts, want)
	}
}

// TestRealtimeResyncOfTheState: a real-time re-sync that carries the server's state becomes an
// event that says so, and a record with the server's hash of the state (the client's is not in
// the capture), once however many copies the capture holds.
func TestRealtimeResyncOfTheState(t *testing.T) {
	m := New(nil)
	c := m.conn(netip.MustParseAddrPort("127.0.0.1:7777"))
	c.now = time.Unix(1000, 0)
	w, err := world.NewWorld("skirmish", 1)
	if err != nil {
		t.Fatal(err)
	}
	core, err := w.AppendCoreState(nil)
	if err != nil {
		t.Fatal(err)
	}
	up := &game.UnitUpdate{Frame: 35, Seat: 1, Checked: 30, State: core, StateHash: 0xfeed}
	decodeAll(t, m, c, up, up)
	var texts []string
	for _, e := range m.Events() {
		texts = append(texts, e.Text)
	}
	if want := "UnitUpdate: real-time re-sync of 0 units and of the world's state of seat 1, checked at frame 30, applied at frame 35"; len(texts) != 1 || texts[0] != want {
		t.Errorf("events %q, want %q once", texts, want)
	}
	if rs := m.Mismatches(); len(rs) != 1 || rs[0].State == nil || rs[0].State.Server != 0xfeed || rs[0].State.LocalKnown {
		t.Errorf("records %+v, want one with the server's state hash", rs)
	}
}

// TestModelMemoryIsBounded: a long capture's chat, re-sync batches and events leave a Model
// holding no more than its bounds, and a copy of a recent line is still known as one.
func TestModelMemoryIsBounded(t *testing.T) {
	m := New(nil)
	c := m.conn(netip.MustParseAddrPort("127.0.0.1:7777"))
	c.now = time.Unix(1000, 0)
	decodeAll(t, m, c, &game.Pause{Frame: 7})
	const n = 20 * maxSeen
	for i := range n {
		decodeAll(t, m, c,
			&game.Chat{Seat: uint8(i % 8), Line: uint32(i/8 + 1), Text: "x"},
			&game.ResyncBatch{Frame: 7, Batch: uint32(i)})
	}
	decodeAll(t, m, c, &game.Chat{Seat: uint8((n - 1) % 8), Line: uint32((n-1)/8 + 1), Text: "x"}) // a copy of the last
	if len(m.chatSeen.has) > maxSeen || len(m.batches.has) > maxSeen || len(m.events.buf) > maxEvents || len(m.chat.buf) > maxChat {
		t.Errorf("after %d lines and batches: %d lines and %d batches remembered, %d events, %d chat lines kept",
			n, len(m.chatSeen.has), len(m.batches.has), len(m.events.buf), len(m.chat.buf))
	}
	if got := m.Chat(); len(got) != maxChat || got[len(got)-1].Seat != uint16((n-1)%8) {
		t.Errorf("%d chat lines kept, the last from seat %d", len(got), got[len(got)-1].Seat)
	}
	if ev := m.Events(); ev[len(ev)-1].Kind != EventResync {
		t.Errorf("the copy of the last line became an event: %+v", ev[len(ev)-1])
	}
}
