package game

import (
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// TestDriftFoundAndNamedAtLoss: in a world of several hundred units, whose hash reports carry
// one hash, the root of the hash tree, a unit that drifts on a client is found from the report
// of the next second, and the report's locator names it at once, or (when it cannot) the
// drill-down (the server's hashes of a tenth of the units each, drillGroupSize; the client
// answers the units of the tenth that differs) names it one round trip later, with 10% loss
// each way on every link. A lost report or drill-down costs a resend,
// so the medians are held to the bounds and every drift must be named within two seconds
// more than its bound. It logs p50 and max of both times (BENCHMARKS.md).
func TestDriftFoundAndNamedAtLoss(t *testing.T) {
	t.Parallel()
	link := linksim.Settings{LossPercent: 10, Latency: 20 * time.Millisecond}
	g, w := newDesyncGame(t, vspec{seed: 31, link: link})
	f, err := Populate(g.srv, g.live(), g.now, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor(10*time.Second, "the populated frame", func() bool { return g.srv.w.Frame() > f+2 })
	if size := drillGroupSize(len(g.srv.w.Units()), DefaultGroupSize); size <= DefaultGroupSize {
		t.Fatalf("sub-ranges of %d units, want more than %d", size, DefaultGroupSize)
	}
	const drifts = 8
	for i := range drifts {
		w.inject(i%len(g.clients), 1)
		w.run(2500 * time.Millisecond)
	}
	bound := desyncFindBound(link)
	w.waitFor(2*bound+2*time.Second, "every drift named", w.allFound)
	rtt := 2 * link.Latency
	var found, named []time.Duration
	located := 0
	for _, inj := range w.injections {
		ch := w.checkOf(inj)
		found = append(found, ch.opened.Sub(inj.at))
		named = append(named, ch.decided.Sub(ch.opened))
		ids, _ := w.idsOf(inj)
		if len(ch.rec.Units) != 1 || ch.rec.Units[0].ID != ids[0] {
			t.Errorf("the check of frame %d names %+v, want unit %d", ch.rec.Frame, ch.rec.Units, ids[0])
		}
		// The report's locator named the unit (the check covered the root, and decided at
		// once), or the client answered the one sub-range the unit is in, and skipped the
		// others.
		root := []IDRange{{Start: 1, End: world.MaxUnitID}}
		switch g := ch.rec.Groups; {
		case slices.Equal(g, root) && ch.decided.Equal(ch.opened):
			located++
		case len(g) != 1 || !inRanges(g, ids[0]) || g[0] == root[0]:
			t.Errorf("the check of frame %d compared ranges %v, want the root (located) or the one sub-range of unit %d", ch.rec.Frame, g, ids[0])
		}
	}
	t.Logf("%d of %d drifts named by the report's locator, the others by a drill-down", located, len(w.injections))
	slices.Sort(found)
	slices.Sort(named)
	p50f, maxf, p50n, maxn := found[len(found)/2], found[len(found)-1], named[len(named)/2], named[len(named)-1]
	t.Logf("%d drifts at 10%% loss, RTT %v: found p50 %v max %v after the drift; named p50 %v max %v after it was found",
		drifts, rtt, p50f, maxf, p50n, maxn)
	// Found: the report of the next whole second leaves within 1 s; the server checks it once
	// its own world reaches the frame and it has crossed the link.
	if foundBound := time.Second + DefaultFrame + link.Latency; p50f > foundBound {
		t.Errorf("found p50 %v after the drift, want at most %v", p50f, foundBound)
	}
	// Named: the HashRequest and the UnitHashes cross the link once each (one round trip);
	// the answer for a tenth of the units is a few fragments, sent within a frame.
	if nameBound := rtt + DefaultFrame; p50n > nameBound {
		t.Errorf("named p50 %v after it was found, want at most %v (one round trip and a frame)", p50n, nameBound)
	}
	if maxf+maxn > bound+2*time.Second {
		t.Errorf("a drift named %v after it happened, want at most %v even with resends", maxf+maxn, bound+2*time.Second)
	}
}
