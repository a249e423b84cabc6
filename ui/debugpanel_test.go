package ui

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/transport"
)

// heldBackLink builds the receiver's side of a real connection that holds a
// message back: the sender sends A, then B depending on A; the packet with A
// is lost and the one with B arrives. It returns the receiving end's
// snapshot, as a transport with debug views publishes it, and the time it was taken.
func heldBackLink(t *testing.T) (transport.PeerStats, time.Time) {
	t.Helper()
	now := graphBase
	ignore := func(*message.Message) {}
	cfg := message.Config{History: message.DefaultHistory}
	sender, receiver := message.New(cfg, ignore), message.New(cfg, ignore)

	var a depgraph.Dependency
	if _, err := sender.SendGuaranteed(now, payload(game.MsgSpawnEnemy, "A"), nil, &a); err != nil {
		t.Fatal(err)
	}
	if _, ok := sender.AppendPacket(nil, now, false); !ok { // the packet with A, lost
		t.Fatal("no packet for A")
	}
	if _, err := sender.SendGuaranteed(now, payload(game.MsgKillEnemy, "B"), []*depgraph.Dependency{&a}, nil); err != nil {
		t.Fatal(err)
	}
	withB, ok := sender.AppendPacket(nil, now, false)
	if !ok {
		t.Fatal("no packet for B")
	}
	now = now.Add(300 * time.Millisecond)
	if err := receiver.Receive(now, withB); err != nil {
		t.Fatal(err)
	}
	now = now.Add(200 * time.Millisecond)

	debug := receiver.Debug()
	m := receiver.Stats()
	return transport.PeerStats{
		Connected: true, RTT: m.Packet.RTT, Jitter: m.Packet.Jitter, LossPercent: m.Packet.LossPercent,
		Message: m, Debug: &debug,
	}, now
}

// TestDebugPanelShowsWaitingMessage is the acceptance test of the debug
// panel: with a message held back by a lost dependency on a real connection,
// the graph view shows that it waits and what for.
func TestDebugPanelShowsWaitingMessage(t *testing.T) {
	peer, now := heldBackLink(t)
	if peer.Debug == nil || len(peer.Debug.Incoming) != 1 {
		t.Fatal("the connection holds nothing back; the test's setup is wrong")
	}
	p := NewDebugPanel()
	sa := runApp(t, p, 80, 10)
	sa.do(func() { p.SetData(DebugData{Peer: peer, HasPeer: true, Title: "server link", Now: now}) })
	sa.app.Draw()
	sa.waitFor("the waiting message", func() bool { return strings.Contains(screenString(sa.screen), "waits on") })
	got := sa.text()
	if !strings.Contains(got, "#1 KillEnemy waits on #0") || !strings.Contains(got, "#0") || !strings.Contains(got, "not arrived") {
		t.Errorf("the graph view does not show B waiting for the lost A:\n%s", got)
	}
	checkGolden(t, "debugpanel_waiting", got)

	dot := p.DOT()
	if !strings.Contains(dot, "i1 -> i0 [color=red];") || !strings.Contains(dot, "style=dashed") {
		t.Errorf("DOT lacks the held-back message's edge or the missing one's dashed node:\n%s", dot)
	}
}

// screenString is the screen's characters, rows one after another. Call it
// on the event loop.
func screenString(screen tcell.SimulationScreen) string {
	cells, _, _ := screen.GetContents()
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(string(c.Runes))
	}
	return b.String()
}

// sampleHistory is a small history: a chat line sent, acknowledged and executed, a second
// one whose dependency on it was pruned, in flight; and a kill received before its spawn.
func sampleHistory() (out, in []message.Record) {
	at := func(ms int) time.Time { return graphBase.Add(time.Duration(ms) * time.Millisecond) }
	out = []message.Record{
		{Serial: 1, Seq: 903, Outgoing: true, First: int16(game.MsgChat), Pieces: 1, Sends: 1, Queued: at(1000), Sent: at(1000), Acked: at(1050), Executed: at(1050)},
		{Serial: 3, Seq: 904, Outgoing: true, First: int16(game.MsgChat), Pieces: 1, Sends: 1, Queued: at(1800), Sent: at(1800),
			Deps: []message.Edge{{Seq: 903, Pruned: true, Done: true}}},
	}
	in = []message.Record{
		{Serial: 2, Seq: 812, First: int16(game.MsgKillEnemy), Pieces: 1, Arrived: at(1600), Deps: []message.Edge{{Seq: 811}}},
	}
	return out, in
}

// samplePeer is a link snapshot carrying the AckView and GraphView samples.
func samplePeer() transport.PeerStats {
	ack := sampleAckData()
	out, in := sampleHistory()
	return transport.PeerStats{
		Connected: true, RTT: ack.RTT, Jitter: ack.Jitter, LossPercent: ack.LossPercent,
		GuaranteedResent: ack.Resends, Stale: ack.Stale, Duplicate: ack.Duplicate,
		Message: message.Stats{Packet: packet.Stats{
			Seq: ack.Seq, Ack: ack.Ack, AckBits: ack.AckBits,
			RTTSamples: 1, LatestRTT: 44 * time.Millisecond,
		}},
		Debug: &message.Debug{History: ack.History, Outgoing: out, Incoming: in},
	}
}

// sampleDebugData is a frame of everything the panel shows.
func sampleDebugData() DebugData {
	return DebugData{
		Peer: samplePeer(), HasPeer: true, Title: "player ann", Now: syncNow,
		Mismatches: sampleRecords(), Pauses: samplePauses(),
		Sync:    game.SyncReport{Late: game.LateRollback, Resimulations: 2, FramesRerun: 9, MaxLateFrames: 3, LateBeyondWindow: 1, SettleFrames: 4},
		Lead:    Lead{Time: 300 * time.Millisecond, Fixed: true},
		HasSync: true,
	}
}

func TestAckDataFrom(t *testing.T) {
	got := AckDataFrom(samplePeer())
	want := sampleAckData()
	want.RTTSamples = nil // the snapshot has only the latest sample
	if got.Seq != want.Seq || got.Ack != want.Ack || got.AckBits != want.AckBits || got.RTT != want.RTT ||
		got.Jitter != want.Jitter || got.LossPercent != want.LossPercent || got.Resends != want.Resends ||
		got.Stale != want.Stale || got.Duplicate != want.Duplicate || len(got.RTTSamples) != 0 ||
		len(got.History) != len(want.History) || got.History[6] != want.History[6] {
		t.Errorf("AckDataFrom gave\n%+v\nwant\n%+v", got, want)
	}
	// Copies refused as replays by a sealed connection count as duplicates on the panel.
	if got := AckDataFrom(transport.PeerStats{Duplicate: 1, Replayed: 2}); got.Duplicate != 3 {
		t.Errorf("dup %d from 1 duplicate and 2 replays, want 3", got.Duplicate)
	}
	// Without debug views, there is no history, and nothing panics.
	if got := AckDataFrom(transport.PeerStats{}); got.History != nil {
		t.Errorf("history %v from a snapshot without debug views", got.History)
	}
}

// TestDebugPanelKeysAndViews steps through the views with the panel's keys
// and checks each screen.
func TestDebugPanelKeysAndViews(t *testing.T) {
	p := NewDebugPanel()
	sa := runApp(t, p, 80, 12)
	sa.do(func() { p.SetData(sampleDebugData()) })
	sa.app.Draw()
	sa.waitFor("the first frame", func() bool { return strings.Contains(screenString(sa.screen), "player ann") })
	checkGolden(t, "debugpanel_graph_80", sa.text())

	steps := []struct {
		key    tcell.Key
		r      rune
		view   int
		golden string // "" for no screen check
	}{
		{tcell.KeyRune, '2', DebugAcks, "debugpanel_acks_80"},
		{tcell.KeyRune, '3', DebugHashes, "debugpanel_hashes_80"},
		{tcell.KeyRune, '4', DebugPauses, "debugpanel_pauses_80"},
		{tcell.KeyRune, 'n', DebugGraph, ""},
		{tcell.KeyF3, 0, DebugAcks, ""},
		{tcell.KeyRune, '9', DebugAcks, ""}, // not a view: ignored
		{tcell.KeyRune, '1', DebugGraph, ""},
	}
	for _, st := range steps {
		sa.screen.InjectKey(st.key, st.r, tcell.ModNone)
		// A key that changes nothing is followed by one that does, so the
		// wait below also covers it.
		sa.waitFor("the view after the key", func() bool { return p.View() == st.view })
		if st.golden != "" {
			checkGolden(t, st.golden, sa.text())
		}
	}
}

func TestDebugPanelTabClick(t *testing.T) {
	p := NewDebugPanel()
	sa := runApp(t, p, 80, 12)
	sa.do(func() { p.SetData(sampleDebugData()) })
	sa.app.Draw()
	sa.waitFor("the tab bar", func() bool { return strings.Contains(screenString(sa.screen), "4 pauses") })

	text := sa.text()
	col := utf8.RuneCountInString(text[:strings.Index(text, "3 hashes")])
	sa.screen.InjectMouse(col, 0, tcell.ButtonPrimary, tcell.ModNone)
	sa.screen.InjectMouse(col, 0, tcell.ButtonNone, tcell.ModNone)
	sa.waitFor("the hashes view", func() bool { return p.View() == DebugHashes })
	sa.waitFor("the hashes view drawn", func() bool { return strings.Contains(screenString(sa.screen), "frame 2200") })
	// The current tab is reversed, the others are not.
	if _, style := sa.cell(col, 0); !hasReverse(style) {
		t.Error("the picked tab is not highlighted")
	}
	if _, style := sa.cell(2, 0); hasReverse(style) {
		t.Error("a tab that is not picked is highlighted")
	}

	// A click below the tab bar picks nothing.
	sa.screen.InjectMouse(3, 5, tcell.ButtonPrimary, tcell.ModNone)
	sa.screen.InjectMouse(3, 5, tcell.ButtonNone, tcell.ModNone)
	sa.rune('n') // the loop has handled the click once the key took effect
	sa.waitFor("the pauses view", func() bool { return p.View() == DebugPauses })
}

func hasReverse(style tcell.Style) bool {
	_, _, attrs := style.Decompose()
	return attrs&tcell.AttrReverse != 0
}

func TestDebugPanelNotConnected(t *testing.T) {
	d := sampleDebugData()
	d.Peer, d.HasPeer, d.Title = transport.PeerStats{}, false, "player bob"
	p := NewDebugPanel().SetData(d)
	for _, view := range []int{DebugGraph, DebugAcks} {
		got, _ := drawText(t, p.SetView(view), 50, 4)
		if want := " 1 graph │ 2 acks │ 3 hashes │ 4 pauses\nplayer bob\nnot connected\n\n"; got != want {
			t.Errorf("view %d drew\n%s\nwant\n%s", view, got, want)
		}
	}
	// The game's views do not depend on the link.
	got, _ := drawText(t, p.SetView(DebugPauses), 50, 4)
	if !strings.Contains(got, "3 pauses") {
		t.Errorf("the pauses view without a link:\n%s", got)
	}
	if got, want := p.DOT(), graphDOT("player bob", nil, nil); got != want {
		t.Errorf("DOT without a link:\n%s\nwant an empty graph:\n%s", got, want)
	}
}

func TestDebugPanelSetView(t *testing.T) {
	p := NewDebugPanel()
	for _, tc := range []struct{ set, want int }{
		{DebugPauses, DebugPauses}, {-1, DebugPauses}, {4, DebugPauses}, {DebugAcks, DebugAcks},
	} {
		if got := p.SetView(tc.set).View(); got != tc.want {
			t.Errorf("SetView(%d): view %d, want %d", tc.set, got, tc.want)
		}
	}
	p.SetView(DebugPauses).NextView()
	if p.View() != DebugGraph {
		t.Errorf("NextView after the last view: %d, want the first", p.View())
	}
}

// TestDebugPanelCollectsRTT: the packet layer reports one sample at a time,
// and the panel keeps the latest 32 for the sparkline, one per new sample.
func TestDebugPanelCollectsRTT(t *testing.T) {
	p := NewDebugPanel()
	d := sampleDebugData()
	frame := func(count uint64, rtt time.Duration) {
		d.Peer.Message.Packet.RTTSamples, d.Peer.Message.Packet.LatestRTT = count, rtt
		p.SetData(d)
	}
	samples := func() []time.Duration { return p.acks.Data().RTTSamples }

	frame(0, 0) // no sample yet
	frame(1, 40*time.Millisecond)
	frame(1, 40*time.Millisecond) // the same sample again: a frame without a new ack
	frame(3, 50*time.Millisecond)
	if got := samples(); len(got) != 2 || got[0] != 40*time.Millisecond || got[1] != 50*time.Millisecond {
		t.Fatalf("samples %v, want [40ms 50ms]", got)
	}
	for i := range 40 {
		frame(uint64(4+i), time.Duration(i)*time.Millisecond)
	}
	if got := samples(); len(got) != rttKept || got[0] != 8*time.Millisecond || got[rttKept-1] != 39*time.Millisecond {
		t.Fatalf("after 42 samples: %d kept, from %v to %v; want 32 from 8ms to 39ms", len(got), got[0], got[len(got)-1])
	}
	// Another link starts a new sparkline.
	d.Title = "player bob"
	frame(1, 7*time.Millisecond)
	if got := samples(); len(got) != 1 || got[0] != 7*time.Millisecond {
		t.Errorf("after switching links: samples %v, want [7ms]", got)
	}
}
