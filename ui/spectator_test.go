package ui

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
)

// TestClientScreenSpectator: a spectator's screen is a player's without orders. Its status line
// says it is spectating and why; the line under the map says it gives no orders, and so does
// every order key and the inject key, sending nothing to the host; its chat, and the other
// spectators', shows who is a spectator; a line the server refused says why.
func TestClientScreenSpectator(t *testing.T) {
	f := newFakeClient(t)
	f.snap.Spectator = &game.Spectate{Number: 3, Why: game.SpectateSeatsFull}
	f.snap.Chat = append(f.snap.Chat, game.ChatLine{From: "eve", Text: "nice move", Spectator: true})
	sa, cs := fakeClientScreen(t, f, 120, 36)
	waitText(sa, "the spectator's status line", "SPECTATING: all 8 seats are taken")
	waitText(sa, "the spectator's chat line", "eve (spectator): nice move")
	waitText(sa, "the line under the map", "spectator 3: no orders; Enter chats, d shows your link")
	checkGolden(t, "client_spectator", sa.text())

	const hint = "a spectator gives no orders"
	for _, r := range []rune{' ', 'm', 'a', 's', 'v', 'i', '1'} {
		// The hint of the key before stays for seconds: gone first, so that each key shows it anew.
		sa.do(func() { cs.notify("") })
		sa.waitFor("the hint before "+string(r)+" to go", func() bool { return !strings.Contains(screenText(sa), hint) })
		sa.rune(r)
		waitText(sa, "the hint for "+string(r), hint)
	}
	f.mu.Lock()
	orders, injects := len(f.orders), f.injects
	f.mu.Unlock()
	if orders != 0 || injects != 0 {
		t.Errorf("a spectator's keys gave %d orders and %d injections, want none", orders, injects)
	}
	var x0 int32
	sa.do(func() { x0, _ = cs.MapView().Cursor() })
	sa.key(tcell.KeyRight) // the cursor still moves, to look at the units
	sa.waitFor("the cursor to move", func() bool { x, _ := cs.MapView().Cursor(); return x == x0+1 })

	f.mu.Lock()
	f.snap.Spectator = &game.Spectate{Number: 3, Why: game.SpectateSeatsFull, ChatOff: true, Refused: 1, RefusedWhy: game.RefusedChatOff}
	f.mu.Unlock()
	waitText(sa, "the refused line's reason", "the server refused your chat line: spectator chat is off")

	f.mu.Lock()
	f.snap.Spectator, f.snap.Started = &game.Spectate{Number: 1, Why: game.SpectateAsked}, false
	f.mu.Unlock()
	waitText(sa, "a spectator who asked, before the start", "SPECTATING: you asked to (--spectate); waiting for the start")
}

// fakeSpectators puts two spectators on the fake server: eve, who asked, and zoe, who found
// the seats taken, each with her link.
func fakeSpectators(f *fakeServer) {
	eve, zoe := uuid.MustParse("00000000-0000-4000-8000-00000000e003"), uuid.MustParse("00000000-0000-4000-8000-00000000f004")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snap.Spectators = []game.SpectatorInfo{
		{Number: 1, Player: eve, Name: "eve", Asked: true, State: "watching", LastHash: "ok at frame 410", ChatLines: 4},
		{Number: 2, Player: zoe, Name: "zoe", State: "watching", LastHash: "re-sync at frame 402"},
	}
	f.peers = append(slices.Clone(f.peers),
		transport.PeerStats{PlayerID: eve, Name: "eve", Connected: true, Addr: netip.MustParseAddrPort("127.0.0.1:50003"), RTT: 51 * time.Millisecond, LossPercent: 3},
		transport.PeerStats{PlayerID: zoe, Name: "zoe", Connected: true, Addr: netip.MustParseAddrPort("127.0.0.1:50004"), RTT: 88 * time.Millisecond, LossPercent: 9.5})
}

// TestServerScreenSpectators: the teacher sees the spectators after the seats, with their
// links and (where the table has the room) why they watch, and a spectator's debug panel on
// ↑↓; the line above the status line counts them; s turns their chat off and on, and says so.
func TestServerScreenSpectators(t *testing.T) {
	f := newFakeServer(t)
	fakeSpectators(f)
	sa, ss := fakeServerScreen(t, f, 160, 40)
	waitText(sa, "the spectators' rows", "watching (seats full)")
	txt := sa.text()
	for _, want := range []string{"s1   eve", "s2   zoe", "watching (asked)", "88 ms", "9.5%", "re-sync at frame 402"} {
		if !strings.Contains(txt, want) {
			t.Errorf("screen lacks %q:\n%s", want, txt)
		}
	}
	checkGolden(t, "server_spectators", txt)

	sa.do(func() { ss.noticeAt = fakeNow.Add(-time.Minute) }) // the greeting has had its time
	waitText(sa, "the spectators counted", "2 spectator(s), their chat on (s)")
	sa.rune('s')
	sa.waitFor("spectator chat off", func() bool { return !f.Snapshot().SpectatorChat })
	waitText(sa, "the toggle's notice", "spectator chat off: every spectator's line is refused")
	sa.do(func() { ss.noticeAt = fakeNow.Add(-time.Minute) })
	waitText(sa, "the chat off on the line", "2 spectator(s), their chat off (s)")
	sa.rune('s')
	sa.waitFor("spectator chat on", func() bool { return f.Snapshot().SpectatorChat })
	waitText(sa, "the toggle's notice", "spectator chat on")

	sa.rune('d')
	for range 3 { // from bot1: ann, bob, then eve
		sa.key(tcell.KeyDown)
	}
	waitText(sa, "eve's debug panel", "debug: spectator 1 eve 127.0.0.1:50003")
}
