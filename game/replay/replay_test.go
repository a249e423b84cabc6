package replay

import (
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// testCapture is a client's capture of a short game in virtual time at 10% loss with a chat
// line, a real-time re-sync and a stop-the-world; game's TestReplayCapture writes it (-update).
const testCapture = "testdata/resync.pcapng"

func loadCapture(t *testing.T) []record.Datagram {
	t.Helper()
	all, err := record.ReadAll(testCapture, MaxDatagrams)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestRebuildsHostCounters: played to its end, the replay's packet and message layers hold
// the counters the client itself reported when the capture was recorded: every packet sent,
// received and lost, the loss estimate, the round trip, and every guaranteed message sent,
// resent and executed.
func TestRebuildsHostCounters(t *testing.T) {
	b, err := os.ReadFile("testdata/resync.net.json")
	if err != nil {
		t.Fatal(err)
	}
	var want game.NetReport
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	m := New(loadCapture(t))
	m.Seek(m.Len())
	if n := len(m.Conns()); n != 1 {
		t.Fatalf("%d connections, want the one to the server", n)
	}
	p := m.PeerStats(0)
	got := game.NetReport{
		RTTMillis: float64(p.RTT.Microseconds()) / 1000, LossPercent: p.LossPercent,
		PacketsSent: p.PacketsSent, PacketsReceived: p.PacketsReceived, BytesSent: p.BytesSent, BytesReceived: p.BytesReceived,
		Stale: p.Stale, Duplicate: p.Duplicate, GuaranteedSent: p.GuaranteedSent, GuaranteedResent: p.GuaranteedResent,
		SpuriousResends: p.SpuriousResends, GuaranteedExecuted: p.GuaranteedExecuted, DuplicatesIgnored: p.DuplicatesIgnored,
	}
	if got != want {
		t.Errorf("rebuilt from the capture:\n%+v\nthe client counted:\n%+v", got, want)
	}
	if p.Name != "c1" || p.Addr.String() != "127.0.0.1:7777" || p.Connected {
		t.Errorf("connection %s at %v, connected %v: want c1's link to 127.0.0.1:7777, closed by its goodbye", p.Name, p.Addr, p.Connected)
	}
	if len(p.Debug.History) != 32 || len(p.Debug.Outgoing) == 0 || len(p.Debug.Incoming) == 0 {
		t.Errorf("debug views: %d ack cells, %d sent and %d received messages; want 32 and some each way",
			len(p.Debug.History), len(p.Debug.Outgoing), len(p.Debug.Incoming))
	}
	if len(m.RTTSamples(0)) == 0 {
		t.Error("no round-trip sample")
	}
}

// TestEventsOfTheGame: the replay finds what the game did, decoded with the game's messages:
// the chat line, the drill-down, the real-time re-sync, and the stop-the-world from its Pause
// to its Resume, with its length and the units its batches carried.
func TestEventsOfTheGame(t *testing.T) {
	m := New(loadCapture(t))
	m.Seek(m.Len())
	var texts []string
	for _, e := range m.Events() {
		texts = append(texts, e.Text)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"<c1> watch the pause", "HashRequest: drill-down", "UnitUpdate: real-time re-sync of 1 units",
		"Pause: stop the world at frame", "ResyncBatch 0", "BatchApplied", "Resume: the pause at frame"} {
		if !strings.Contains(all, want) {
			t.Errorf("no event %q among:\n%s", want, all)
		}
	}
	if len(m.Chat()) == 0 || m.Chat()[0].Text != "watch the pause" || m.Chat()[0].From != "c1" {
		t.Errorf("chat %+v: want c1's line first", m.Chat())
	}
	ps := m.Pauses()
	if len(ps) != 1 || ps[0].Running || ps[0].Millis <= 0 || ps[0].Units < 3 {
		t.Errorf("pauses %+v: want one that ended, with at least the 3 drifted units", ps)
	}
	var actions []string
	for _, r := range m.Mismatches() {
		actions = append(actions, r.Action)
	}
	if strings.Join(actions, ",") != game.ActionRealtime {
		t.Errorf("re-syncs %v, want the real-time one", actions)
	}
}

// TestSeekResync: each seek stops on the first datagram of the next re-sync, paused: the
// real-time UnitUpdate first, then the stop-the-world's Pause (a sync message); after the last
// one there is none, and the player stays where it is.
func TestSeekResync(t *testing.T) {
	p := NewPlayer(New(loadCapture(t)))
	p.Play()
	for i, want := range []game.MsgType{game.MsgUnitUpdate, game.MsgPause} {
		if !p.SeekResync() {
			t.Fatalf("seek %d found nothing", i+1)
		}
		d, _ := p.Model.Current()
		if p.Playing() || p.Model.Pos() != d.Index+1 || !p.Cursor().Equal(d.At) {
			t.Errorf("seek %d: playing %v, at %d, cursor %v: want paused on datagram %d at %v", i+1, p.Playing(), p.Model.Pos(), p.Cursor(), d.Index, d.At)
		}
		var found *Record
		for j := range d.Records {
			if d.Records[j].Type == want {
				found = &d.Records[j]
			}
		}
		if found == nil || d.Out {
			t.Fatalf("seek %d stopped on %s / %s: want a %v from the server", i+1, d.Headline(), d.Detail(), want)
		}
		if want == game.MsgPause && !found.Sync {
			t.Errorf("the Pause %v is not a sync message", found)
		}
	}
	pos := p.Model.Pos()
	if p.SeekResync() || p.Model.Pos() != pos {
		t.Errorf("a seek past the last re-sync moved to %d (from %d)", p.Model.Pos(), pos)
	}
}

// TestStepAndPlay: a step applies one datagram and pauses; playing applies exactly the
// datagrams the cursor passes, at the speed; the speeds stop at 0.25× and 16×; a restart
// goes back before the first datagram.
func TestStepAndPlay(t *testing.T) {
	p := NewPlayer(New(loadCapture(t)))
	m := p.Model
	for i := range 5 {
		if !p.Step() || m.Pos() != i+1 || p.Playing() {
			t.Fatalf("step %d: at %d, playing %v", i+1, m.Pos(), p.Playing())
		}
		if d, _ := m.Current(); d.Index != i || !p.Cursor().Equal(m.At(i)) {
			t.Fatalf("step %d: current datagram %d, cursor %v", i+1, d.Index, p.Cursor())
		}
	}
	p.Play()
	if n := p.Advance(0); n != 0 {
		t.Errorf("no time passed, %d datagrams applied", n)
	}
	for p.Faster() {
	}
	p.Slower() // 8×
	p.Advance(100 * time.Millisecond)
	cursor := m.At(4).Add(800 * time.Millisecond)
	want := 0
	for want < m.Len() && !m.At(want).After(cursor) {
		want++
	}
	if m.Pos() != want || !p.Cursor().Equal(cursor) {
		t.Errorf("100 ms at 8×: at %d, cursor %v; want %d, %v", m.Pos(), p.Cursor(), want, cursor)
	}
	for p.Faster() {
	}
	if p.Speed() != 16 {
		t.Errorf("fastest speed %v, want 16", p.Speed())
	}
	for p.Slower() {
	}
	if p.Speed() != 0.25 {
		t.Errorf("slowest speed %v, want 0.25", p.Speed())
	}
	for p.Playing() {
		p.Advance(time.Hour)
	}
	if m.Pos() != m.Len() || !strings.HasSuffix(p.Status(), "at the end") {
		t.Errorf("played out: at %d of %d, %q", m.Pos(), m.Len(), p.Status())
	}
	p.Restart()
	if m.Pos() != 0 || p.Playing() || len(m.Conns()) != 0 || len(m.Events()) != 0 {
		t.Errorf("restart: at %d, playing %v, %d connections, %d events", m.Pos(), p.Playing(), len(m.Conns()), len(m.Events()))
	}
}

// TestSeekBackRebuilds: going back and forth to the same datagram gives the same state.
func TestSeekBackRebuilds(t *testing.T) {
	m := New(loadCapture(t))
	m.Seek(230)
	first := m.PeerStats(0)
	m.Seek(40)
	m.Seek(230)
	again := m.PeerStats(0)
	if first.Message.Packet != again.Message.Packet || len(first.Debug.Outgoing) != len(again.Debug.Outgoing) ||
		len(first.Debug.Incoming) != len(again.Debug.Incoming) || first.GuaranteedExecuted != again.GuaranteedExecuted {
		t.Errorf("datagram 230 twice:\n%+v\n%+v", first.Message.Packet, again.Message.Packet)
	}
}

// TestWithoutKeys: a capture without its key file shows the handshake, and counts every
// sealed datagram as one no key opens.
func TestWithoutKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "game.pcapng")
	src, err := os.Open(testCapture)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	all, err := record.ReadAll(path, MaxDatagrams)
	if err != nil {
		t.Fatal(err)
	}
	m := New(all)
	m.Seek(m.Len())
	if m.Sealed() == 0 || m.Sealed() >= m.Len() {
		t.Errorf("%d of %d datagrams sealed: want all but the handshake", m.Sealed(), m.Len())
	}
	if c := m.Conns(); len(c) != 1 || c[0].Name != "c1" {
		t.Errorf("connections %+v: want c1's, named in its ConnectRequest", c)
	}
	d, _ := m.Current()
	if !strings.Contains(d.Headline(), "sealed: no key") {
		t.Errorf("last datagram: %q", d.Headline())
	}
}

// TestBadDatagrams: datagrams that are no AckAttack packets, or Data packets whose header or
// records do not parse, are shown and counted, never a panic.
func TestBadDatagrams(t *testing.T) {
	peer := netip.MustParseAddrPort("127.0.0.1:7777")
	at := time.Unix(1_000_000, 0)
	plain := func(packet []byte) []byte {
		d := append(wire.BeginDatagram(nil), packet...)
		wire.SealDatagram(d, 0)
		return d
	}
	bad := []record.Datagram{
		{At: at, Peer: peer, Data: []byte("hello")},
		{At: at, Peer: peer, Data: plain([]byte{1, 0xFF}), Packet: []byte{1, 0xFF}},
		{At: at, Peer: peer, Data: plain([]byte{1, 0x10, 0, 0, 0, 7}), Packet: []byte{1, 0x10, 0, 0, 0, 7}},
		{At: at, Out: true, Peer: peer, Data: plain([]byte{1, 0x10, 0, 5, 0, 2, 0x80}), Packet: []byte{1, 0x10, 0, 5, 0, 2, 0x80}},
		{At: at, Peer: peer, Fate: transport.TapPassed, Data: plain([]byte{99}), Packet: []byte{99}},
	}
	m := New(bad)
	m.Seek(m.Len())
	for i := range bad {
		m.Seek(i + 1)
		if d, _ := m.Current(); d.Headline() == "" {
			t.Errorf("datagram %d: no headline", i)
		}
	}
	if p := m.PeerStats(0); p.Malformed != 3 {
		t.Errorf("%d malformed, want the 3 Data packets that do not parse", p.Malformed)
	}
}

// TestEarlyDatagram: a client that gets the server's first Data packet before its Accepted
// (overtaken on the way) keeps it and reads it once the Accepted comes, as its transport does:
// the replay counts it received then, not before.
func TestEarlyDatagram(t *testing.T) {
	all := loadCapture(t)
	if all[3].Packet[0] != byte(wire.TypeAccepted) || all[5].Packet[0] != byte(wire.TypeData) || all[5].Out {
		t.Fatal("the capture no longer starts with the handshake this test moves")
	}
	moved := append([]record.Datagram(nil), all[:3]...)
	moved = append(moved, all[4], all[5], all[3])
	moved = append(moved, all[6:]...)
	m := New(moved)
	m.Seek(5) // the Data packet, before the Accepted
	if d, _ := m.Current(); !strings.Contains(d.Verdict, "before the key") || m.PeerStats(0).PacketsReceived != 0 {
		t.Errorf("a Data packet before the Accepted: %q, %d received; want it kept", d.Verdict, m.PeerStats(0).PacketsReceived)
	}
	m.Seek(6) // the Accepted
	if got := m.PeerStats(0).PacketsReceived; got != 1 {
		t.Errorf("after the Accepted: %d packets received, want the kept one", got)
	}
	m.Seek(m.Len())
	orig := New(all)
	orig.Seek(orig.Len())
	if a, b := m.PeerStats(0).Message.Packet.PacketsReceived, orig.PeerStats(0).Message.Packet.PacketsReceived; a != b {
		t.Errorf("%d packets received in the end, %d without the overtaking", a, b)
	}
}
