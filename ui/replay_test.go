package ui

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game/replay"
	"github.com/ackattack/ackattack/net/record"
)

// replayCapture is game/replay's test capture: a client at 10% loss, with a chat line, a
// real-time re-sync and a stop-the-world (go test ./game -run TestReplayCapture -update).
const replayCapture = "../game/replay/testdata/resync.pcapng"

// replayClock is the replay screen under a clock of the test's: the runner's ticker calls
// Refresh with the wall clock, which it ignores, so that the capture plays only as far as the
// test moves the clock. Keys are counted, so that the test knows when one was handled.
type replayClock struct {
	*ReplayScreen
	now  time.Time // read and moved on the event loop only
	keys atomic.Int64
}

func (r *replayClock) Refresh(time.Time) { r.ReplayScreen.Refresh(r.now) }

func (r *replayClock) HandleKey(ev *tcell.EventKey, quit func()) *tcell.EventKey {
	defer r.keys.Add(1)
	return r.ReplayScreen.HandleKey(ev, quit)
}

// startReplay runs the replay screen of the test capture, paused at its start.
func startReplay(t *testing.T, width, height int) (*screenApp, *replayClock) {
	t.Helper()
	all, err := record.ReadAll(replayCapture, replay.MaxDatagrams)
	if err != nil {
		t.Fatal(err)
	}
	var rc *replayClock
	sa, _ := startScreen(t, width, height, 50, func(app *tview.Application) screenModel {
		rc = &replayClock{ReplayScreen: NewReplayScreen("resync.pcapng", replay.New(all), ""), now: time.Unix(1_000_000, 0)}
		return rc
	})
	return sa, rc
}

// press injects a key and waits until the screen handled it and drew the result.
func (r *replayClock) press(sa *screenApp, ev *tcell.EventKey) {
	sa.t.Helper()
	want := r.keys.Load() + 1
	sa.screen.InjectKey(ev.Key(), ev.Rune(), ev.Modifiers())
	sa.waitFor(fmt.Sprintf("key %q handled", ev.Name()), func() bool { return r.keys.Load() >= want })
	sa.do(func() {}) // the draw that follows the key
}

// tick moves the test's clock and redraws.
func (r *replayClock) tick(sa *screenApp, d time.Duration) {
	sa.app.QueueUpdateDraw(func() {
		r.now = r.now.Add(d)
		r.ReplayScreen.Refresh(r.now)
	})
}

func runeKey(c rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, c, tcell.ModNone) }

// replayScript is what a teacher does: step through the handshake, seek the real-time
// re-sync and the stop-the-world, look at every view of the panel, play a little at two
// speeds, seek again past the last re-sync, restart.
var replayScript = []struct {
	name string
	key  *tcell.EventKey
	tick time.Duration
}{
	{name: "start"},
	{name: "step 1", key: runeKey('.')},
	{name: "step 2", key: runeKey('.')},
	{name: "step 3", key: runeKey('.')},
	{name: "seek the real-time re-sync", key: runeKey('n')},
	{name: "step past it", key: runeKey('.')},
	{name: "seek the pause", key: runeKey('n')},
	{name: "acks", key: runeKey('2')},
	{name: "hashes", key: runeKey('3')},
	{name: "pauses", key: runeKey('4')},
	{name: "graph", key: runeKey('1')},
	{name: "play", key: runeKey(' ')},
	{name: "100 ms", tick: 100 * time.Millisecond},
	{name: "200 ms", tick: 100 * time.Millisecond},
	{name: "faster", key: runeKey('+')},
	{name: "faster again", key: runeKey('+')},
	{name: "400 ms at 4×", tick: 100 * time.Millisecond},
	{name: "pause", key: runeKey(' ')},
	{name: "no re-sync left", key: runeKey('n')},
	{name: "slower", key: runeKey('-')},
	{name: "restart", key: runeKey('r')},
	{name: "step after the restart", key: runeKey('.')},
}

// playScript plays replayScript on a fresh screen and returns the screen after each step.
func playScript(t *testing.T, width, height int) []string {
	t.Helper()
	sa, rc := startReplay(t, width, height)
	var screens []string
	for _, st := range replayScript {
		switch {
		case st.key != nil:
			rc.press(sa, st.key)
		case st.tick > 0:
			rc.tick(sa, st.tick)
		}
		screens = append(screens, sa.text())
	}
	return screens
}

// TestReplayTwiceSameScreens: the same capture replayed twice with the same keys at the same
// times shows the same screens, step by step.
func TestReplayTwiceSameScreens(t *testing.T) {
	first := playScript(t, 120, 36)
	second := playScript(t, 120, 36)
	for i := range first {
		if first[i] != second[i] {
			t.Errorf("%s: the screens differ:\n--- first\n%s--- second\n%s", replayScript[i].name, first[i], second[i])
		}
	}
	// The script did what it says.
	for i, want := range map[int]string{
		0:  "datagram 0 of 293",
		1:  "datagram 1 of 293",
		3:  "ConnectRequest",
		4:  "UnitUpdate",
		6:  "sync #24 Pause",
		7:  "rtt",
		9:  "pause",
		18: "no re-sync after this point",
		20: "datagram 0 of 293",
		21: "datagram 1 of 293",
	} {
		if !strings.Contains(first[i], want) {
			t.Errorf("%s: no %q on the screen:\n%s", replayScript[i].name, want, first[i])
		}
	}
	for _, i := range []int{0, 1, 2, 3, 21} {
		if strings.Contains(first[i], "UnitUpdate") {
			t.Errorf("%s: a UnitUpdate before the re-sync was reached:\n%s", replayScript[i].name, first[i])
		}
	}
}

// TestReplayScreenGoldens: the screens a class looks at, as golden files (-update): the
// stop-the-world's Pause in the graph view, the acks and hashes views there, and a narrow
// terminal.
func TestReplayScreenGoldens(t *testing.T) {
	screens := playScript(t, 120, 36)
	for i, name := range map[int]string{4: "replay_realtime_120x36", 6: "replay_pause_120x36", 7: "replay_acks_120x36", 8: "replay_hashes_120x36", 18: "replay_no_resync_120x36"} {
		checkGolden(t, name, screens[i])
	}
	narrow := playScript(t, 80, 30)
	checkGolden(t, "replay_pause_80x30", narrow[6])
}

// TestReplayFreezeAndStepGraph: in the replay, f freezes the graph and says so, naming the
// key that steps it, which is ',' (the replay's '.' steps a datagram); datagrams played while
// frozen leave the graph where it was, and ',' then steps it one message at a time without
// moving the replay.
func TestReplayFreezeAndStepGraph(t *testing.T) {
	sa, rc := startReplay(t, 120, 36)
	rc.press(sa, runeKey('n'))
	rc.press(sa, runeKey('f'))
	waitText(sa, "the freeze notice", "graph frozen: , steps one message at a time, > to the next that waits, f goes live")
	waitText(sa, "the frozen footer", "FROZEN +0.000 s  ,: step  f: live")
	for range 20 {
		rc.press(sa, runeKey('.'))
	}
	var pos int
	sa.do(func() { pos = rc.player.Model.Pos() })
	rc.press(sa, runeKey(','))
	waitText(sa, "the graph's step", "step: ")
	sa.do(func() {
		if got := rc.player.Model.Pos(); got != pos {
			t.Errorf("stepping the graph moved the replay from datagram %d to %d", pos, got)
		}
		if !rc.panel.graph.Frozen() {
			t.Error("the graph went live")
		}
	})
	rc.press(sa, runeKey('f'))
	waitText(sa, "live again", "graph live")
}
