package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/message"
)

// TestClientScreenFreezeAndStepKeys: on the client screen, f freezes the graph and says how to
// step; the graph stays as it was while the link goes on; . steps to the message that came
// since, and f goes live again.
func TestClientScreenFreezeAndStepKeys(t *testing.T) {
	f, sa, cs := heldBackClientScreen(t, 120, 36)
	p, _ := f.Peer()
	sa.rune('d')
	waitText(sa, "the waiting chat line", "#7 Chat waits on #5")
	sa.rune('f')
	waitText(sa, "the freeze notice", "graph frozen: . steps one message at a time")
	waitText(sa, "the frozen footer", "FROZEN +0.000 s")
	sa.rune('.')
	waitText(sa, "nothing to step into yet", "no newer step yet")

	// The lost chat line #5 arrives: #5 and #7 execute. The frozen graph does not change.
	d := heldBackDebug(fakeNow)
	d.Incoming[0].Executed = fakeNow.Add(10 * time.Millisecond)
	d.Incoming[0].Deps = []message.Edge{{Seq: 5, Done: true}}
	d.Incoming = append([]message.Record{{Serial: 4, Seq: 5, First: int16(game.MsgChat), Pieces: 1,
		Arrived: fakeNow.Add(10 * time.Millisecond), Executed: fakeNow.Add(10 * time.Millisecond)}}, d.Incoming...)
	p.Debug = d
	f.setPeer(p)
	sa.waitFor("the new snapshot merged", func() bool { return len(cs.debug.graph.hist.in) == 2 })
	sa.do(func() {
		_, in := cs.debug.graph.graphs()
		if n := nodeOf(t, in, 7); n.stateText() != "waits on #5" {
			t.Errorf("the frozen graph changed: #7 %q", n.stateText())
		}
	})
	sa.rune('.')
	waitText(sa, "the step", "step: in #5 Chat: arrived, executed; in #7 Chat: executed")
	waitText(sa, "the step drawn", "FROZEN +0.030 s") // from the latest step before the freeze, 20 ms before
	sa.rune('f')
	waitText(sa, "live again", "graph live")
	waitText(sa, "the live graph", "#7 Chat executed, waited 260 ms")
	if txt := sa.text(); strings.Contains(txt, "FROZEN") {
		t.Errorf("still frozen after f:\n%s", txt)
	}
}
