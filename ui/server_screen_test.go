package ui

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/google/uuid"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// fakeServer is a ServerHost with a frozen game: a bot and two players (one of them with a
// message held back on its link), a few events, a mismatch repaired in real time and one
// stop-the-world pause.
type fakeServer struct {
	mu    sync.Mutex
	snap  game.ServerSnapshot
	peers []transport.PeerStats
	waves []time.Duration // the wave settings asked for, in order (server_graph_test.go)
	link  linksim.Settings
	// rounds counts the new rounds asked for; the first is announced 21 frames ahead, any
	// other while it is refused.
	rounds int
	pushed []linksim.Settings // the class links pushed, in order
	leads  []game.LeadSetting // the lead settings asked for, in order
	kicks  []game.KickTarget  // the kicks asked for, in order
}

var (
	annID = uuid.MustParse("00000000-0000-4000-8000-00000000a001")
	bobID = uuid.MustParse("00000000-0000-4000-8000-00000000b002")
)

func newFakeServer(t testing.TB) *fakeServer {
	t.Helper()
	w, err := world.NewWorld("skirmish", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, seat := range []uint8{0, 1, 2} {
		if _, err := w.AddPlayerUnits(seat); err != nil {
			t.Fatal(err)
		}
	}
	f := &fakeServer{}
	f.snap = game.ServerSnapshot{At: fakeNow, Running: true, Frame: 420, Lead: 2, Map: "skirmish", Units: slices.Clone(w.Units()),
		Seats: []game.SeatInfo{
			{Seat: 0, Name: "bot1", Bot: true, Connected: true, InGame: true, LastHash: "", State: "bot"},
			{Seat: 1, Player: annID, Name: "ann", Connected: true, InGame: true, LastHash: "ok at frame 410", State: "playing"},
			{Seat: 2, Player: bobID, Name: "bob", Connected: true, InGame: true, LastHash: "real-time re-sync at frame 405", State: "playing"},
		},
		Events: []string{
			"12:00:00.000 frame 0: join seat=1 name=ann",
			"12:00:00.100 frame 1: join seat=2 name=bob",
			"12:00:40.000 frame 400: hash mismatch seat=2 frame=398 groups=1",
			"12:00:40.200 frame 402: real-time re-sync seat=2 units=1 removed=0 at frame=405",
		},
		Mismatches: []game.SyncRecord{{When: fakeNow.Add(-2 * time.Second), Seat: 2, Frame: 398, Groups: []game.IDRange{{Start: 17, End: 32}},
			Units:  []game.UnitMismatch{{ID: 21, Local: 0x0123456789abcdef, Server: 0xfedcba9876543210, LocalKnown: true}},
			Action: game.ActionRealtime, At: 405}},
		Pauses: []game.PauseRecord{{Frame: 300, Start: fakeNow.Add(-12 * time.Second), Millis: 480, Units: 37}},
	}
	f.snap.EventsTotal = uint64(len(f.snap.Events))
	f.snap.Game.LeadTimeMillis, f.snap.FrameDur = fakeAutoLead.Milliseconds(), 100*time.Millisecond
	f.snap.SpectatorChat = true
	f.snap.Sync = game.SyncReport{Late: game.LateRollback, Resimulations: 3, FramesRerun: 14, MaxLateFrames: 4, SettleFrames: 5}
	f.snap.Net.RTTMillis = 42
	f.snap.Rejected.Malformed, f.snap.Rejected.ThrottledAddress, f.snap.Rejected.ThrottledGlobal, f.snap.Rejected.Duplicate = 966, 380, 120, 20
	f.snap.Rejected.Total = f.snap.Rejected.Rejections.Total()
	f.peers = []transport.PeerStats{
		// The transport numbers its seats its own way (bob joined first there): the screen
		// must match the players by id.
		{PlayerID: bobID, Name: "bob", Connected: true, Addr: netip.MustParseAddrPort("127.0.0.1:50002"), RTT: 46 * time.Millisecond, LossPercent: 12.5, BytesInPerSec: 310, BytesOutPerSec: 950,
			Debug: heldBackDebug(fakeNow)},
		{PlayerID: annID, Name: "ann", Connected: true, Addr: netip.MustParseAddrPort("127.0.0.1:50001"), RTT: 38 * time.Millisecond, LossPercent: 0.5, BytesInPerSec: 300, BytesOutPerSec: 900},
	}
	return f
}

func (f *fakeServer) Snapshot() *game.ServerSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.snap
	return &s
}

func (f *fakeServer) Peers() []transport.PeerStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.peers)
}

func (f *fakeServer) Link() (linksim.Settings, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.link, true
}

func (f *fakeServer) SetLink(s linksim.Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.link = s
	return nil
}

func (f *fakeServer) NewRound() (*OrderTicket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rounds++
	t := &OrderTicket{}
	if f.snap.NewRound != 0 {
		t.settle(f.snap.NewRound, fmt.Errorf("a new round is already announced for frame %d", f.snap.NewRound))
		return t, true
	}
	f.snap.NewRound = f.snap.Frame + 21
	t.settle(f.snap.NewRound, nil)
	return t, true
}

// PushLink takes the setting at once, rounded as the wire rounds it, as a server whose
// snapshot shows it a frame later would.
func (f *fakeServer) PushLink(s linksim.Settings) (linksim.Settings, error) {
	m, err := game.ClassLinkOf(s)
	if err != nil {
		return linksim.Settings{}, err
	}
	s = m.Settings()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pushed = append(f.pushed, s)
	f.snap.ClassLink = &s
	return s, nil
}

// SetSpectatorChat takes the toggle at once, as a server whose snapshot shows it a frame later
// would.
func (f *fakeServer) SetSpectatorChat(on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snap.SpectatorChat = on
	return nil
}

// fakeAutoLead is the lead the fake server's policy sets: 2 frames of 100 ms.
const fakeAutoLead = 200 * time.Millisecond

// SetLead takes the setting at once, as a server whose snapshot shows it a few frames later
// would: a fixed lead in force, or the policy's.
func (f *fakeServer) SetLead(l game.LeadSetting) (*OrderTicket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.leads = append(f.leads, l)
	d, fixed := l.Fixed()
	if !fixed {
		d = fakeAutoLead
	}
	f.snap.LeadSetting, f.snap.LeadFixed = l, fixed
	f.snap.Lead, f.snap.Game.LeadTimeMillis = uint32(d/(100*time.Millisecond)), d.Milliseconds()
	t := &OrderTicket{}
	t.settle(0, nil)
	return t, true
}

// Kick takes the kick at once, as a server whose snapshot shows the place free a frame later
// would: the seat or the spectator leaves the snapshot.
func (f *fakeServer) Kick(k game.KickTarget) (*OrderTicket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kicks = append(f.kicks, k)
	if k.Spectator != 0 {
		f.snap.Spectators = slices.DeleteFunc(slices.Clone(f.snap.Spectators), func(sp game.SpectatorInfo) bool { return sp.Number == k.Spectator })
	} else {
		f.snap.Seats = slices.DeleteFunc(slices.Clone(f.snap.Seats), func(st game.SeatInfo) bool { return st.Seat == k.Seat })
	}
	t := &OrderTicket{}
	t.settle(0, nil)
	return t, true
}

func (f *fakeServer) kicked() []game.KickTarget {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.kicks)
}

func (f *fakeServer) lastPushed() (linksim.Settings, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pushed) == 0 {
		return linksim.Settings{}, 0
	}
	return f.pushed[len(f.pushed)-1], len(f.pushed)
}

func fakeServerScreen(t *testing.T, f *fakeServer, width, height int) (*screenApp, *ServerScreen) {
	t.Helper()
	var ss *ServerScreen
	sa, _ := startScreen(t, width, height, 50, func(app *tview.Application) screenModel {
		ss = NewServerScreen(f, "127.0.0.1:7777", t.TempDir(), func(p tview.Primitive) { app.SetFocus(p) })
		ss.clock = func() time.Time { return fakeNow }
		return ss
	})
	sa.waitFor("the players table focused", func() bool {
		return ss.players.HasFocus() && strings.Contains(screenText(sa), "bob")
	})
	return sa, ss
}

// TestServerScreen: the player table, the spectator map, the event log and the status line,
// at the smallest and a large terminal.
func TestServerScreen(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(sizeName(size.w, size.h), func(t *testing.T) {
			f := newFakeServer(t)
			sa, _ := fakeServerScreen(t, f, size.w, size.h)
			txt := sa.text()
			wants := []string{"bot1", "ann", "46 ms", "12.5%", "RUNNING", "frame 420", "rejected 1486: malformed 966"}
			if size.w >= 120 {
				wants = append(wants, "127.0.0.1:50002") // the last column, cut at 80
			}
			for _, want := range wants {
				if !strings.Contains(txt, want) {
					t.Errorf("screen lacks %q:\n%s", want, txt)
				}
			}
			checkGolden(t, "server_"+sizeName(size.w, size.h), txt)
		})
	}
}

// TestServerScreenDebugFollowsSelectedPlayer: Down selects bob, whose link holds a message
// back; the debug panel shows it, and its hashes view shows bob's repair.
func TestServerScreenDebugFollowsSelectedPlayer(t *testing.T) {
	f := newFakeServer(t)
	sa, _ := fakeServerScreen(t, f, 120, 40)
	sa.rune('d')
	waitText(sa, "the debug panel", "1 graph")
	sa.key(tcell.KeyDown)
	sa.key(tcell.KeyDown)
	waitText(sa, "bob's debug panel", "debug: player bob")
	waitText(sa, "the held-back message", "#7 Chat waits on #5")
	sa.rune('n')
	sa.rune('n')
	waitText(sa, "the hashes view", "1 group [17-32]")
	checkGolden(t, "server_debug_hashes", sa.text())
	sa.rune('n')
	waitText(sa, "the pauses view", "480ms")
}

// TestServerScreenSlidersAndHelp: the server's own link follows its sliders; ? shows the keys.
func TestServerScreenSlidersAndHelp(t *testing.T) {
	f := newFakeServer(t)
	sa, _ := fakeServerScreen(t, f, 120, 40)
	sa.key(tcell.KeyTab) // the map
	sa.key(tcell.KeyTab) // the sliders
	for range 5 {
		sa.rune(']')
	}
	sa.waitFor("5% loss on the server's link", func() bool { ls, _ := f.Link(); return ls.LossPercent == 5 })
	waitText(sa, "the link in the status line", "loss 5%")
	sa.rune('?')
	waitText(sa, "the help", "select the player the debug panel shows")
	sa.key(tcell.KeyEscape)
	sa.waitFor("the help gone", func() bool { return !strings.Contains(screenText(sa), "select the player the debug panel shows") })
}

// fullClass fills the fake server as the class fills it: two bots and six students in the
// eight seats, each student with a LAN address, and n spectators.
func fullClass(f *fakeServer, n int) (names, addrs []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snap.Seats = f.snap.Seats[:0:0]
	f.peers = nil
	for i := range 8 {
		name := []string{"bot1", "bot2", "ann", "bob", "carla", "dmitri", "eve", "farouk"}[i]
		st := game.SeatInfo{Seat: uint8(i), Name: name, Connected: true, InGame: true, State: "playing", LastHash: fmt.Sprintf("ok at frame %d", 410+i)}
		names = append(names, name)
		if i < 2 {
			st.Bot, st.State, st.LastHash = true, "bot", ""
		} else {
			st.Player = uuid.NewSHA1(uuid.NameSpaceOID, []byte(name))
			addr := netip.MustParseAddrPort(fmt.Sprintf("192.168.1.%d:%d", 100+i, 50000+i))
			addrs = append(addrs, addr.String())
			f.peers = append(f.peers, transport.PeerStats{PlayerID: st.Player, Name: name, Connected: true, Addr: addr, RTT: time.Duration(20+i) * time.Millisecond, LossPercent: float64(i)})
		}
		f.snap.Seats = append(f.snap.Seats, st)
	}
	f.snap.Seats[5].State = "disconnected: timeout: nothing heard for 10s"
	f.snap.Seats[3].LastHash = "real-time re-sync at frame 405"
	f.snap.Spectators = nil
	for i := range n {
		sp := game.SpectatorInfo{Number: uint16(i + 1), Player: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "watcher %d", i)),
			Name: fmt.Sprintf("w%d", i+1), State: "watching", LastHash: "ok at frame 410"}
		f.snap.Spectators = append(f.snap.Spectators, sp)
		f.peers = append(f.peers, transport.PeerStats{PlayerID: sp.Player, Name: sp.Name, Connected: true,
			Addr: netip.MustParseAddrPort(fmt.Sprintf("192.168.1.%d:40000", 200+i)), RTT: 30 * time.Millisecond})
	}
	return names, addrs
}

// TestServerScreenSmallTerminals: at 80×24 and 100×30 the player table shows the class's
// eight seats, every one with its lead and address (the sliders go above the event log to
// give it the width, and long texts are said in fewer words), and the spectators, who do not
// fit below them, in one line; ↓ past the seats reaches them.
func TestServerScreenSmallTerminals(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {100, 30}} {
		t.Run(sizeName(size.w, size.h), func(t *testing.T) {
			f := newFakeServer(t)
			names, addrs := fullClass(f, 5)
			sa, ss := fakeServerScreen(t, f, size.w, size.h)
			waitText(sa, "the last seat", "farouk")
			rows := strings.Split(sa.text(), "\n")
			header := rows[1]
			for _, col := range []string{"seat", "name", "state", "rtt", "loss", "last hash", "lead", "address"} {
				if !strings.Contains(header, col) {
					t.Errorf("header %q lacks %q", header, col)
				}
			}
			for i, name := range names {
				row := rows[2+i]
				if !strings.Contains(row, name) || !strings.Contains(row, "200 ms") {
					t.Errorf("row %d %q: want %s and the lead", i, row, name)
				}
				if i >= 2 && !strings.Contains(row, addrs[i-2]) {
					t.Errorf("row %d %q: want the address %s", i, row, addrs[i-2])
				}
			}
			if !strings.Contains(rows[10], "+ 5 spectator(s) below the seats (↓): w1, w2, w3") {
				t.Errorf("no line that sums up the spectators under the seats: %q", rows[10])
			}
			checkGolden(t, "server_class_"+sizeName(size.w, size.h), sa.text())
			for range 8 {
				sa.key(tcell.KeyDown)
			}
			sa.waitFor("the first spectator selected", func() bool { return ss.seat == spectatorRow(1) })
			waitText(sa, "the first spectator's row", "s1   w1")
		})
	}
}

// TestServerScreenMapCursor: with the map focused, the line above the status line says what
// is under the spectator's cursor; a bot's hashes view says it has no reports.
func TestServerScreenMapCursor(t *testing.T) {
	f := newFakeServer(t)
	sa, ss := fakeServerScreen(t, f, 120, 40)
	u := f.Snapshot().Units[0]
	sa.key(tcell.KeyTab) // the map
	sa.waitFor("the map focused", func() bool { return ss.mapView != nil && ss.mapView.HasFocus() })
	// Time passes: the greeting on that line gives way.
	sa.do(func() { ss.clock = func() time.Time { return fakeNow.Add(time.Minute) } })
	sa.do(func() { ss.mapView.SetCursor(u.X, u.Y) })
	k, _ := world.KindOf(u.Kind)
	waitText(sa, "the unit under the cursor", fmt.Sprintf("bot1's %s #%d", k.Name, u.ID))
	sa.key(tcell.KeyEscape) // back to the table, on bot1
	sa.rune('d')
	sa.rune('3')
	sa.rune('n')
	sa.rune('n')
	waitText(sa, "the bot's hashes view", "it has no hashes to report")
}

// TestPlayersTitle: the player table's title has the hint until the server rejects a
// datagram, then the total and the largest reasons (the three throttled budgets as one), as
// much as the box's width allows; the total stays.
func TestPlayersTitle(t *testing.T) {
	var r game.RejectedReport
	if got := playersTitle(r, 50); got != " players (↑↓ selects the debug panel's) " {
		t.Errorf("nothing rejected: %q", got)
	}
	r.Malformed, r.ThrottledPrefix, r.ThrottledGlobal, r.WrongKey, r.Stale = 966_000, 400_000, 120_000, 12_345, 3
	r.Total = r.Rejections.Total()
	for _, c := range []struct {
		width int
		want  string
	}{
		{0, " players (↑↓ selects the debug panel's) · rejected 1.5M: malformed 966k, throttled 520k, wrong key 12.3k "},
		{80, " players · rejected 1.5M: malformed 966k, throttled 520k, wrong key 12.3k "},
		{60, " players · rejected 1.5M: malformed 966k, throttled 520k "},
		{30, " players · rejected 1.5M "},
	} {
		if got := playersTitle(r, c.width); got != c.want {
			t.Errorf("width %d: %q, want %q", c.width, got, c.want)
		}
	}
	for n, want := range map[uint64]string{0: "0", 9999: "9999", 10_000: "10.0k", 99_949: "99.9k", 100_000: "100k", 999_999: "999k",
		1_000_000: "1.0M", 123_456_789: "123M"} {
		if got := countText(n); got != want {
			t.Errorf("countText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestServerScreenNewRound: R asks the server for a new round, and the line above the status
// line says at which frame it starts; once the notice has gone, the line keeps saying so
// until it starts. A second R while it is on its way says why there is none.
func TestServerScreenNewRound(t *testing.T) {
	f := newFakeServer(t)
	sa, ss := fakeServerScreen(t, f, 120, 40)
	sa.rune('R')
	waitText(sa, "the new round's frame", "new round at frame 441: every world starts afresh")
	sa.rune('R')
	waitText(sa, "the refusal", "no new round: a new round is already announced for frame 441")
	sa.do(func() { ss.noticeAt = fakeNow.Add(-time.Minute) }) // the notice has had its time
	waitText(sa, "the round on its way", "player(s)  ·  new round at frame 441  ·")
	f.mu.Lock()
	rounds := f.rounds
	f.snap.Frame, f.snap.NewRound, f.snap.Round = 441, 0, 2
	f.mu.Unlock()
	if rounds != 2 {
		t.Errorf("the host was asked for %d new rounds, want 2", rounds)
	}
	waitText(sa, "the round being played", "player(s)  ·  round 2  ·")
}

// TestServerScreenRefusedCommands: once the server has refused players' commands (for frames
// no game runs, or over their seat's rate), the line above the status line counts them, beside
// the event log's lines that say whose.
func TestServerScreenRefusedCommands(t *testing.T) {
	f := newFakeServer(t)
	sa, ss := fakeServerScreen(t, f, 160, 40)
	sa.do(func() { ss.noticeAt = fakeNow.Add(-time.Minute) }) // the greeting has had its time
	waitText(sa, "the spectators' count", "spectator(s), their chat on (s)")
	if strings.Contains(sa.text(), "refused") {
		t.Errorf("the screen speaks of refusals before any:\n%s", sa.text())
	}
	f.mu.Lock()
	f.snap.Game.CommandsOutOfRange, f.snap.Game.CommandsTooFast = 300, 21_211
	f.snap.Events = append(f.snap.Events, "12:00:41.000 frame 410: commands refused seat=3 name=eve why=faster than 128 tokens at once, then one every 20ms refused=21511")
	f.snap.EventsTotal++
	f.mu.Unlock()
	waitText(sa, "the count", "21.5k command(s) refused")
	waitText(sa, "whose, in the event log", "frame 410: commands refused seat=3")
}

// TestServerScreenClassLink: c gives the sliders to the class's link: a preset key then pushes
// to every client and leaves the server's own link alone; the sliders show the class's link
// (a big step moves it 10% on), and c gives them back to the server's link.
func TestServerScreenClassLink(t *testing.T) {
	f := newFakeServer(t)
	sa, _ := fakeServerScreen(t, f, 120, 40)
	waitText(sa, "the server's own sliders", "server link (c: class)")
	sa.key(tcell.KeyF6)
	sa.waitFor("10% loss on the server's own link", func() bool { ls, _ := f.Link(); return ls.LossPercent == 10 })
	waitText(sa, "the preset's notice", "link preset 10% loss: link: loss 10%")
	if _, n := f.lastPushed(); n != 0 {
		t.Fatalf("%d class links pushed by the server's own preset", n)
	}

	sa.rune('c')
	waitText(sa, "the class's sliders", "class link: every client (c: server)")
	waitText(sa, "the switch's notice", "the sliders and presets now set every client's link")
	sa.key(tcell.KeyF10 - 1) // F9: bad Wi-Fi
	sa.waitFor("the bad Wi-Fi pushed", func() bool { ls, _ := f.lastPushed(); return ls == LinkPresets[4].Settings })
	sa.key(tcell.KeyF7) // 30% loss
	sa.waitFor("30% loss pushed", func() bool { ls, _ := f.lastPushed(); return ls == LinkPresets[2].Settings })
	// The sliders take the keys: a big step up on loss pushes 40%.
	sa.key(tcell.KeyTab) // the map
	sa.key(tcell.KeyTab) // the sliders
	sa.rune('}')
	sa.waitFor("40% loss pushed", func() bool { ls, _ := f.lastPushed(); return ls == linksim.Settings{LossPercent: 40} })
	if ls, _ := f.Link(); ls != (linksim.Settings{LossPercent: 10}) {
		t.Errorf("the server's own link moved to %+v with the class's sliders", ls)
	}
	waitText(sa, "the server's own link in the status line", "link: loss 10%")

	sa.rune('c')
	waitText(sa, "the server's sliders back", "server link (c: class)")
	sa.rune('0') // the sliders kept the focus: the clean preset, on the server's own link
	sa.waitFor("a clean server link", func() bool { ls, _ := f.Link(); return ls == linksim.Settings{} })
	if ls, n := f.lastPushed(); n != 3 || ls != (linksim.Settings{LossPercent: 40}) {
		t.Errorf("%d class links pushed, the last %+v; want 3, the last 40%% loss", n, ls)
	}
}

// TestServerScreenLeadKey: t steps the command lead time through auto, 100 ms, 300 ms, 1 s
// and 2 s, through the host; the server's snapshot has each, the status line says the teacher
// set it, and the notice says what the class will see. Once the notice has had its time, the
// line above the status line keeps the lead and who sets it, and a change on its way.
func TestServerScreenLeadKey(t *testing.T) {
	f := newFakeServer(t)
	sa, ss := fakeServerScreen(t, f, 160, 40)
	waitText(sa, "the policy's lead", "lead 200 ms  rtt")
	ms := func(n int) game.LeadSetting { return game.FixedLead(time.Duration(n) * time.Millisecond) }
	for _, step := range []struct {
		want         game.LeadSetting
		status, said string
	}{
		{ms(100), "lead 100 ms (teacher)", "lead 100 ms, set by the teacher: orders wait 100 ms, slower commands come late and run again (t: 300 ms)"},
		{ms(300), "lead 300 ms (teacher)", "lead 300 ms, set by the teacher"},
		{ms(1000), "lead 1000 ms (teacher)", "lead 1 s, set by the teacher: orders wait 1 s"},
		{ms(2000), "lead 2000 ms (teacher)", "(t: auto)"},
		{game.LeadAuto, "lead 200 ms  rtt", "lead auto: the server sets it from the players' links (t: 100 ms)"},
		{ms(100), "lead 100 ms (teacher)", "(t: 300 ms)"},
	} {
		sa.rune('t')
		sa.waitFor("the host asked for "+step.want.String(), func() bool {
			s := f.Snapshot()
			return s.LeadSetting == step.want && s.LeadFixed == (step.want != game.LeadAuto)
		})
		waitText(sa, "the status line", step.status)
		waitText(sa, "the notice", step.said)
	}
	if len(f.leads) != 6 {
		t.Errorf("the host was asked %d times, want 6: %v", len(f.leads), f.leads)
	}

	// A change on its way shows on the status line until its frame; once the notice has had its
	// time, the line above says who sets the lead.
	f.mu.Lock()
	f.snap.LeadSetting, f.snap.LeadNext = ms(1000), game.LeadTime{Frame: 441, LeadFrames: 10, Fixed: true}
	f.mu.Unlock()
	waitText(sa, "the change on its way", "frame 420  lead 100 ms (teacher) → 1000 ms (teacher) at frame 441  rtt")
	sa.do(func() { ss.noticeAt = fakeNow.Add(-time.Minute) })
	waitText(sa, "the teacher's setting", "lead 1 s, set by the teacher (t)")
	f.mu.Lock()
	f.snap.LeadSetting, f.snap.LeadNext = game.LeadAuto, game.LeadTime{Frame: 450, LeadFrames: 2}
	f.mu.Unlock()
	waitText(sa, "the way back to auto", "frame 420  lead 100 ms (teacher) → 200 ms at frame 450  rtt")
	waitText(sa, "the policy's setting", "lead auto (t)")
	sa.rune('?')
	waitText(sa, "the help", "command lead time: auto, 100 ms, 300 ms, 1 s, 2 s")
}

// TestNextLeadStep: t goes through the steps and back to auto; from a lead fixed otherwise, to
// the first longer step.
func TestNextLeadStep(t *testing.T) {
	ms := func(n int) game.LeadSetting { return game.FixedLead(time.Duration(n) * time.Millisecond) }
	for from, want := range map[game.LeadSetting]game.LeadSetting{
		game.LeadAuto: ms(100), ms(100): ms(300), ms(300): ms(1000), ms(1000): ms(2000), ms(2000): game.LeadAuto,
		ms(500): ms(1000), ms(200): ms(300), ms(3000): game.LeadAuto,
	} {
		if got := nextLeadStep(from); got != want {
			t.Errorf("t from %v: %v, want %v", from, got, want)
		}
	}
}

// TestServerScreenKick: K on the row selected asks whom to kick, and K or y kicks it through
// the host; any other key kicks nobody. A bot has no client to kick; on the map K moves the
// cursor. The help lists the key.
func TestServerScreenKick(t *testing.T) {
	for _, c := range []struct {
		name   string
		downs  int // ↓ from the first row (bot1; then ann, bob, eve, zoe)
		answer *tcell.EventKey
		want   []game.KickTarget
		said   string
	}{
		{"bob, K again", 2, tcell.NewEventKey(tcell.KeyRune, 'K', tcell.ModNone), []game.KickTarget{{Seat: 2, Player: bobID}},
			"kicked bob (seat 2): seat 2 is free for whoever joins next"},
		{"the spectator zoe, y", 4, tcell.NewEventKey(tcell.KeyRune, 'y', tcell.ModNone),
			[]game.KickTarget{{Spectator: 2, Player: uuid.MustParse("00000000-0000-4000-8000-00000000f004")}}, "kicked zoe (spectator 2): its place is free"},
		{"ann, then n", 1, tcell.NewEventKey(tcell.KeyRune, 'n', tcell.ModNone), nil, "no kick: ann (seat 1) stays"},
		{"ann, then Esc", 1, tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone), nil, "no kick: ann (seat 1) stays"},
		{"the bot", 0, nil, nil, "bot1 is the server's bot: there is no client to kick"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeServer(t)
			fakeSpectators(f)
			sa, _ := fakeServerScreen(t, f, 120, 40)
			waitText(sa, "the spectators' rows", "zoe")
			for range c.downs {
				sa.key(tcell.KeyDown)
			}
			sa.rune('K')
			if c.answer != nil {
				waitText(sa, "the question", "? K or y: yes, any other key: no")
				sa.screen.InjectKey(c.answer.Key(), c.answer.Rune(), c.answer.Modifiers())
			}
			waitText(sa, "the outcome", c.said)
			if got := f.kicked(); !slices.Equal(got, c.want) {
				t.Errorf("kicks asked of the host: %+v, want %+v", got, c.want)
			}
		})
	}

	t.Run("on the map", func(t *testing.T) {
		f := newFakeServer(t)
		sa, ss := fakeServerScreen(t, f, 120, 40)
		sa.key(tcell.KeyTab)
		sa.waitFor("the map focused", func() bool { return ss.mapView != nil && ss.mapView.HasFocus() })
		var y0 int32
		sa.do(func() { ss.mapView.SetCursor(5, 12); _, y0 = ss.mapView.Cursor() })
		sa.rune('K')
		sa.waitFor("the cursor 8 cells up", func() bool { _, y := ss.mapView.Cursor(); return y == y0-8 })
		sa.rune('?')
		waitText(sa, "the help", "kick the selected player or spectator (K/y: yes)")
		if got := f.kicked(); len(got) != 0 {
			t.Errorf("K on the map kicked %+v", got)
		}
	})
}

// TestServerScreenJoinHint: a server bound to every interface says where players join: its
// LAN addresses, never the unspecified address it listens on; the line above the status line
// keeps the first once the greeting has had its time.
func TestServerScreenJoinHint(t *testing.T) {
	for _, c := range []struct {
		name, addr string
		join       []string
		said, kept string
	}{
		{"every interface", "[::]:7777", []string{"192.168.1.20:7777", "10.0.0.5:7777"},
			"players join with --connect 192.168.1.20:7777 (or 10.0.0.5:7777)", "serving on 192.168.1.20:7777  ·"},
		{"one address", "127.0.0.1:7777", nil,
			"serving on 127.0.0.1:7777: players join with --connect 127.0.0.1:7777", "serving on 127.0.0.1:7777  ·"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeServer(t)
			var ss *ServerScreen
			sa, _ := startScreen(t, 80, 24, 50, func(app *tview.Application) screenModel {
				ss = NewServerScreen(f, c.addr, t.TempDir(), func(p tview.Primitive) { app.SetFocus(p) })
				ss.SetJoin(c.join) // as RunServer does
				ss.clock = func() time.Time { return fakeNow }
				return ss
			})
			waitText(sa, "the join hint", c.said)
			if txt := sa.text(); strings.Contains(txt, "--connect [::]") || strings.Contains(txt, "--connect 0.0.0.0") {
				t.Errorf("the hint names the unspecified address:\n%s", txt)
			}
			sa.do(func() { ss.noticeAt = fakeNow.Add(-time.Minute) })
			waitText(sa, "the address kept", c.kept)
		})
	}
}
