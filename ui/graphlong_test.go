package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
)

// longLink is a connection that has run for a while, as a fake host hands its snapshots: a
// message sent every 10 ms, and every 20 ms a spawn and its kill received, the kill first (the
// spawn's packet was lost), waiting 5 ms for the spawn's resend. Each snapshot is a fresh copy
// of the latest message.DefaultHistory records of each direction, overlapping the one before
// as a connection's do.
type longLink struct {
	out, in []message.Record
	serial  uint64
	start   time.Time
}

// add appends n messages sent, and the spawns and kills received in that time.
func (l *longLink) add(n int) {
	for range n {
		i := len(l.out)
		at := l.start.Add(time.Duration(i) * 10 * time.Millisecond)
		seq := uint16(i) & depgraph.SeqMask // long games wrap the 15-bit numbers
		l.serial++
		l.out = append(l.out, message.Record{Serial: l.serial, Seq: seq, Outgoing: true, First: int16(game.MsgCommand), Pieces: 1, Sends: 1,
			Queued: at, Sent: at, Acked: at.Add(4 * time.Millisecond), Executed: at.Add(4 * time.Millisecond)})
		if i%2 == 0 {
			continue
		}
		spawnAt := at.Add(6 * time.Millisecond)
		l.serial++
		l.in = append(l.in, message.Record{Serial: l.serial, Seq: seq, First: int16(game.MsgKillEnemy), Pieces: 1,
			Deps: []message.Edge{{Seq: (seq - 1) & depgraph.SeqMask, Done: true}}, Arrived: at.Add(time.Millisecond), Executed: spawnAt})
		l.serial++
		l.in = append(l.in, message.Record{Serial: l.serial, Seq: (seq - 1) & depgraph.SeqMask, First: int16(game.MsgSpawnEnemy), Pieces: 1,
			Arrived: spawnAt, Executed: spawnAt})
	}
}

// snapshot is the connection's debug views now: its latest records.
func (l *longLink) snapshot() *message.Debug {
	latest := func(recs []message.Record) []message.Record {
		return recs[len(recs)-min(len(recs), message.DefaultHistory):]
	}
	return &message.Debug{Outgoing: latest(l.out), Incoming: latest(l.in)}
}

// feed hands the view the snapshots of n more messages each way, one every 8 messages.
func (l *longLink) feed(g *GraphView, n int) {
	for n > 0 {
		k := min(n, 8)
		l.add(k)
		n -= k
		g.SetHistory("link", l.snapshot(), 0)
	}
}

// TestGraphFrozenStepsInLongGame: a graph frozen at any point of a game, however long it has
// run, keeps the moment it froze and steps through the next graphKept messages of each
// direction that came since, one step each; the store stays bounded. (Before, a game past
// graphKept messages had a full store, and a frozen view took in nothing more: "no newer
// step yet" for good.)
func TestGraphFrozenStepsInLongGame(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before int // messages each way before the freeze
	}{
		{"young game", 40},
		{"store just full", graphKept},
		{"long game", 3000},
		{"past the sequence numbers' wrap", depgraph.SeqSpace + 500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &longLink{start: graphBase}
			p := NewDebugPanel()
			g := p.graph
			l.feed(g, tt.before)
			g.Freeze(true)
			out0, in0 := g.graphs()
			// The rows drawn, without the footer (which counts the messages not kept).
			rows := func() string {
				drawn, _ := drawText(t, g, 100, 20)
				return drawn[:strings.Index(drawn, "FROZEN")]
			}
			frozenDrawn := rows()

			const after = graphKept + 100
			l.feed(g, after)
			if len(g.hist.out) > 2*graphKept || len(g.hist.in) > 2*graphKept {
				t.Fatalf("the frozen store holds %d sent and %d received records, want at most %d each", len(g.hist.out), len(g.hist.in), 2*graphKept)
			}
			if out, in := g.graphs(); fmt.Sprint(out, in) != fmt.Sprint(out0, in0) {
				t.Errorf("the frozen graph changed as messages came")
			}
			if drawn := rows(); drawn != frozenDrawn {
				t.Errorf("the frozen view changed as messages came:\n%s\nwant\n%s", drawn, frozenDrawn)
			}

			// Step to the end: every message that came since the freeze enters once, in order,
			// at least graphKept of each direction.
			entered := map[string]int{}
			waits := 0
			var last string
			for range 10 * after {
				what := g.Step()
				if what == "" {
					break
				}
				for _, part := range strings.Split(what, "; ") {
					if strings.HasSuffix(part, ": arrived") || strings.Contains(part, ": arrived,") || strings.Contains(part, ": queued") ||
						strings.HasSuffix(part, ": sent") && strings.HasPrefix(part, "out") {
						entered[part[:strings.IndexByte(part, ' ')]]++
					}
				}
				if _, in := g.graphs(); nodeWaits(in) {
					waits++
				}
				last = what
			}
			for _, dir := range []string{"out", "in"} {
				want := graphKept
				if tt.before < graphKept {
					want = after // the store had room for all of them
				}
				if entered[dir] < want {
					t.Errorf("%s: stepped into %d messages after the freeze, want at least %d (the last step %q)", dir, entered[dir], want, last)
				}
			}
			if waits == 0 {
				t.Error("no step showed a kill waiting on its spawn")
			}
			if tt.before >= graphKept {
				if g.hist.held == 0 {
					t.Error("no message counted as not kept, though more came than a frozen view takes in")
				}
				if what := p.Step(); !strings.Contains(what, "newer messages not kept") {
					t.Errorf("a step past the messages kept: %q, want it to say so", what)
				}
			}

			// Live again, the store is trimmed to graphKept; frozen again, it steps on.
			g.Freeze(false)
			l.feed(g, 8)
			if len(g.hist.out) != graphKept && tt.before+after+8 >= graphKept {
				t.Errorf("live again: %d records kept, want %d", len(g.hist.out), graphKept)
			}
			g.Freeze(true)
			l.feed(g, 8)
			if g.Step() == "" {
				t.Error("frozen again, no step into the messages that came since")
			}
		})
	}
}

// nodeWaits reports whether a graph shows a message waiting on a dependency.
func nodeWaits(nodes []graphNode) bool {
	for _, n := range nodes {
		if n.state == nodeWaiting || len(n.waits) > 0 && n.state != nodeExecuted {
			return true
		}
	}
	return false
}

// TestClientScreenFreezeAfterLongGame: the class's case on the client screen. A game whose
// link has carried far more messages than the view keeps; f freezes, the game goes on, and .
// steps into the messages that came since, not "no newer step yet".
func TestClientScreenFreezeAfterLongGame(t *testing.T) {
	f := newFakeClient(t)
	l := &longLink{start: fakeNow.Add(-time.Minute)}
	p, _ := f.Peer()
	sa, cs := fakeClientScreen(t, f, 120, 36)
	// feed hands the host n more messages each way, a snapshot at a time, each read by the
	// screen before the next.
	feed := func(n int) {
		for ; n > 0; n -= 8 {
			l.add(8)
			p.Debug = l.snapshot()
			f.setPeer(p)
			d := p.Debug
			sa.waitFor("the snapshot read", func() bool { return cs.debug.graph.hist.last == d })
		}
	}
	sa.rune('d')
	feed(600) // a minute of the class's game, long past graphKept
	sa.rune('f')
	waitText(sa, "the frozen footer", "FROZEN +0.000 s")
	feed(200)
	sa.rune('.')
	waitText(sa, "a step into the messages since", "step: ")
	if txt := sa.text(); strings.Contains(txt, "no newer step") || strings.Contains(txt, "not kept") {
		t.Fatalf("the frozen graph took in nothing after a long game:\n%s", txt)
	}
	for range 40 {
		sa.rune('.')
	}
	sa.waitFor("40 more steps", func() bool { return cs.debug.graph.at.t.Sub(cs.debug.graph.frozenAt) >= 100*time.Millisecond })
	waitText(sa, "a kill waiting on its spawn", "KillEnemy  waits on #")
}
