package ui

import (
	"errors"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// errNoWaves is the fake server's refusal of a wave setting, for the tests that want one.
var errNoWaves = errors.New("no waves in this game")

// SetWaves takes the setting at once, as a server whose snapshot shows it a frame later would;
// a setting of a minute is refused.
func (f *fakeServer) SetWaves(every time.Duration) (*OrderTicket, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waves = append(f.waves, every)
	t := &OrderTicket{}
	if every == time.Minute {
		t.settle(0, errNoWaves)
		return t, true
	}
	f.snap.Waves = every
	t.settle(0, nil)
	return t, true
}

// TestServerScreenWavesKey: w turns the teacher's waves on through the host, and says what the
// class will see; w again turns them off. A refusal is said, and the setting stays. The help
// lists the key.
func TestServerScreenWavesKey(t *testing.T) {
	f := newFakeServer(t)
	sa, ss := fakeServerScreen(t, f, 160, 40)
	for _, step := range []struct {
		want time.Duration
		said string
	}{
		{game.WaveEvery, "waves every 2s: kills right behind their spawns, bot lines a packet each; at F6/F7 they wait in the graphs (w: off)"},
		{0, "waves off (w: on)"},
		{game.WaveEvery, "(w: off)"},
	} {
		sa.rune('w')
		sa.waitFor("the host asked for waves every "+step.want.String(), func() bool { return f.Snapshot().Waves == step.want })
		waitText(sa, "the notice", step.said)
	}
	if want := []time.Duration{game.WaveEvery, 0, game.WaveEvery}; len(f.waves) != len(want) || f.waves[0] != want[0] || f.waves[1] != want[1] {
		t.Errorf("the host was asked %v, want %v", f.waves, want)
	}

	// A setting the server refuses: the notice says why, and the screen shows the server's.
	sa.do(func() {
		ss.waves.asked, ss.waves.ticket = nil, nil
		t, _ := f.SetWaves(time.Minute)
		every := time.Minute
		ss.waves.asked, ss.waves.ticket = &every, t
	})
	waitText(sa, "the refusal", "waves unchanged: no waves in this game")
	sa.do(func() {
		if got := ss.waveSetting(); got != game.WaveEvery {
			t.Errorf("after the refusal the screen shows waves every %v, want the server's %v", got, game.WaveEvery)
		}
	})
	sa.rune('?')
	waitText(sa, "the help", "waves of kills right behind their spawns: on/off")
}

// TestServerScreenWavesRealGame: w on the server's screen turns a real server's waves on, and
// on a client whose link loses 30% each way (the class's F7) messages wait in the graph.
func TestServerScreenWavesRealGame(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game on loopback")
	}
	srv, c := startRealGame(t)
	if err := c.SetLink(transport.LinkSettings{Out: linksim.Settings{LossPercent: 30}, In: linksim.Settings{LossPercent: 30}}); err != nil {
		t.Fatal(err)
	}
	sa := realServerScreen(t, srv)
	waitText(sa, "the game running", "RUNNING")
	waited := func() uint64 { return c.Stats().Server.Message.Waited }
	before := waited()
	sa.rune('w')
	sa.waitFor("the server's waves on", func() bool { return srv.Snapshot().Waves == game.WaveEvery })
	sa.waitFor("a message waiting in the client's graph", func() bool { return waited() > before })
}
