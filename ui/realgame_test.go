package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/hostloop"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// startRealGame runs a game server with one bot and a client on loopback, each with a link
// conditioner that starts clean, and stops both when the test ends.
func startRealGame(t *testing.T) (*hostloop.Server, *hostloop.Client) {
	t.Helper()
	scfg := game.ServerConfig{Listen: "127.0.0.1:0", Bots: 1, MinPlayers: 1, StartDelay: 200 * time.Millisecond}
	scfg.Transport.Link = &transport.LinkSettings{}
	scfg.Transport.DebugViews = true
	srv, err := hostloop.NewServer(scfg)
	if err != nil {
		t.Fatal(err)
	}
	ccfg := game.ClientConfig{Connect: srv.Addr(), Name: "ann"}
	ccfg.Transport.Link = &transport.LinkSettings{}
	ccfg.Transport.DebugViews = true
	c, err := hostloop.NewClient(ccfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { srv.Run(ctx); done <- struct{}{} }()
	go func() { c.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		<-done
		<-done
	})
	return srv, c
}

// TestClientScreenRealGame drives the client screen over a real client in a real game on
// loopback: the map and RUNNING appear, a selected unit's move order shows as pending until
// its frame, a chat line goes through the server and comes back into the pane, and the loss
// slider changes the client's link conditioner.
func TestClientScreenRealGame(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game on loopback")
	}
	_, c := startRealGame(t)
	var cs *ClientScreen
	sa, _ := startScreen(t, 120, 36, DefaultFPS, func(app *tview.Application) screenModel {
		cs = NewClientScreen(GameClient(c), t.TempDir(), func(p tview.Primitive) { app.SetFocus(p) })
		return cs
	})
	sa.waitFor("the game running", func() bool {
		txt := screenText(sa)
		return strings.Contains(txt, "RUNNING") && strings.Contains(txt, "map skirmish")
	})
	sa.rune(' ')
	sa.waitFor("a unit selected", func() bool { return len(cs.MapView().Selected()) == 1 })
	// Somewhere open to go: the nearest free ground a few cells from the unit.
	sa.do(func() {
		mv := cs.MapView()
		u, _ := unitByID(mv.Units(), mv.Selected()[0])
		for d := int32(2); d < 30; d++ {
			for _, c := range [][2]int32{{u.X - d, u.Y}, {u.X + d, u.Y}, {u.X, u.Y - d}, {u.X, u.Y + d}} {
				if _, busy := mv.UnitAt(c[0], c[1]); !busy && mv.world.Terrain(c[0], c[1]) == world.Ground {
					mv.SetCursor(c[0], c[1])
					return
				}
			}
		}
		t.Fatal("no free ground near the unit")
	})
	sa.rune('m')
	waitText(sa, "the order pending", "pending until frame")

	sa.key(tcell.KeyEnter)
	for _, r := range "hello class" {
		sa.rune(r)
	}
	sa.key(tcell.KeyEnter)
	sa.waitFor("the chat line back from the server", func() bool { return strings.Contains(screenText(sa), "ann: hello class") })

	sa.key(tcell.KeyTab) // the sliders
	sa.rune(']')
	deadline := time.Now().Add(pollLimit)
	for {
		ls, ok := c.Link()
		if ok && ls.Out.LossPercent == 1 && ls.In.LossPercent == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("link %+v after ] on the loss slider, want 1%% loss both ways", ls)
		}
		time.Sleep(5 * time.Millisecond)
	}
	sa.waitFor("the link in the status line", func() bool { return strings.Contains(screenText(sa), "loss 1%") })
}

// realServerScreen runs the server's screen over srv, 120×36.
func realServerScreen(t *testing.T, srv *hostloop.Server) *screenApp {
	t.Helper()
	sa, _ := startScreen(t, 120, 36, DefaultFPS, func(app *tview.Application) screenModel {
		return NewServerScreen(GameServer(srv), srv.Addr(), t.TempDir(), func(p tview.Primitive) { app.SetFocus(p) })
	})
	return sa
}

// realClientScreen runs the client's screen over c, 120×36, beside a server's screen: start it
// once that one is drawn, so that each screen's check for leaked goroutines sees only its own.
func realClientScreen(t *testing.T, c *hostloop.Client) *screenApp {
	t.Helper()
	sa, _ := startScreen(t, 120, 36, DefaultFPS, func(app *tview.Application) screenModel {
		return NewClientScreen(GameClient(c), t.TempDir(), func(p tview.Primitive) { app.SetFocus(p) })
	})
	return sa
}

// runningServerScreen plays a real game (startRealGame) under the server's screen, once it runs.
func runningServerScreen(t *testing.T) (*hostloop.Server, *hostloop.Client, *screenApp) {
	t.Helper()
	if testing.Short() {
		t.Skip("plays a game on loopback")
	}
	srv, c := startRealGame(t)
	sa := realServerScreen(t, srv)
	waitText(sa, "the game running", "RUNNING")
	return srv, c, sa
}

// TestServerScreenRealGame: the server screen over a real server shows its bot and the player
// who joined, with the player's address and round-trip time, and its slider sets the server's
// link conditioner.
func TestServerScreenRealGame(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game on loopback")
	}
	srv, c := startRealGame(t)
	sa := realServerScreen(t, srv)
	addr := c.Addr()
	waitText(sa, "the bot", "bot1")
	waitText(sa, "the player's address", addr)
	waitText(sa, "the game running", "RUNNING")
	sa.key(tcell.KeyTab)
	sa.key(tcell.KeyTab)
	sa.rune(']')
	deadline := time.Now().Add(pollLimit)
	for {
		if ls, ok := srv.Link(); ok && ls.Out.LossPercent == 1 && ls.In.LossPercent == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server's link did not follow its loss slider")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestServerScreenLeadRealGame: t on the server's screen fixes a real server's command lead
// time at 100 ms: its snapshot has it, the client it plays with takes it (its status line says
// the teacher set it), and the server's screen shows it.
func TestServerScreenLeadRealGame(t *testing.T) {
	srv, c, sa := runningServerScreen(t)
	sa.rune('t')
	fixed := game.FixedLead(100 * time.Millisecond)
	sa.waitFor("the server's lead fixed at 100 ms", func() bool {
		s := srv.Snapshot()
		return s.LeadSetting == fixed && s.LeadFixed && s.Lead == 1
	})
	sa.waitFor("the client's lead fixed at 100 ms", func() bool {
		s := c.Snapshot()
		return s.LeadFixed && s.Game.LeadTimeMillis == 100
	})
	waitText(sa, "the server's status line", "lead 100 ms (teacher)")
	cs := realClientScreen(t, c)
	waitText(cs, "the client's status line", "lead 100 ms (teacher)")
}

// TestServerScreenKickRealGame: K, then y, on the server's screen kicks a real server's player:
// its seat is free at once (the table shows the bot alone), and the player's screen says the
// teacher removed it.
func TestServerScreenKickRealGame(t *testing.T) {
	srv, c, sa := runningServerScreen(t)
	cs := realClientScreen(t, c)
	waitText(cs, "the player's game", "RUNNING")
	waitText(sa, "the player", "ann")
	sa.key(tcell.KeyDown) // from bot1 to ann
	sa.rune('K')
	waitText(sa, "the question", "kick ann (seat 1)? K or y: yes")
	sa.rune('y')
	waitText(sa, "the kick done", "kicked ann (seat 1): seat 1 is free for whoever joins next")
	sa.waitFor("the seat free", func() bool { return len(srv.Snapshot().Seats) == 1 })
	waitText(cs, "the player's screen", "kicked: "+game.KickedText)
}
