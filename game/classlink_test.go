package game

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// The presets the screens offer, as link settings (ui/linkpanel.go has their keys).
var classLinkBadWiFi = linksim.Settings{LossPercent: 2, BurstLossPercent: 5, BurstLength: 4, Latency: 20 * time.Millisecond,
	Jitter: 40 * time.Millisecond, DupPercent: 1}

func TestClassLinkOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    linksim.Settings
		want ClassLink
		err  bool
	}{
		{"clean", linksim.Settings{}, ClassLink{}, false},
		{"10% loss", linksim.Settings{LossPercent: 10}, ClassLink{LossPermille: 100}, false},
		{"150 ms round trip", linksim.Settings{Latency: 75 * time.Millisecond}, ClassLink{LatencyMillis: 75}, false},
		{"bad wi-fi", classLinkBadWiFi, ClassLink{LossPermille: 20, BurstPermille: 50, BurstLength: 4, LatencyMillis: 20, JitterMillis: 40, DupPermille: 10}, false},
		{"tenths kept", linksim.Settings{LossPercent: 12.34, DupPercent: 0.05}, ClassLink{LossPermille: 123, DupPermille: 1}, false},
		{"bursts of length 0 are of 1", linksim.Settings{BurstLossPercent: 1}, ClassLink{BurstPermille: 10, BurstLength: 1}, false},
		{"a burst length without bursts is dropped", linksim.Settings{BurstLength: 7}, ClassLink{}, false},
		{"the sliders' ends", linksim.Settings{LossPercent: 60, Latency: time.Second, Jitter: 200 * time.Millisecond, DupPercent: 30},
			ClassLink{LossPermille: 600, LatencyMillis: 1000, JitterMillis: 200, DupPermille: 300}, false},
		{"61% loss", linksim.Settings{LossPercent: 61}, ClassLink{}, true},
		{"negative loss", linksim.Settings{LossPercent: -1}, ClassLink{}, true},
		{"NaN loss", linksim.Settings{LossPercent: math.NaN()}, ClassLink{}, true},
		{"bursts of 11", linksim.Settings{BurstLossPercent: 5, BurstLength: 11}, ClassLink{}, true},
		{"latency over a second", linksim.Settings{Latency: 1001 * time.Millisecond}, ClassLink{}, true},
		{"jitter 300 ms", linksim.Settings{Jitter: 300 * time.Millisecond}, ClassLink{}, true},
		{"reordering", linksim.Settings{ReorderPercent: 5}, ClassLink{}, true},
		{"duplication 31%", linksim.Settings{DupPercent: 31}, ClassLink{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ClassLinkOf(tt.s)
			if tt.err {
				if !errors.Is(err, errClassLink) {
					t.Fatalf("ClassLinkOf(%+v) = %+v, %v; want a refusal", tt.s, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ClassLinkOf(%+v) = %+v, %v; want %+v", tt.s, got, err, tt.want)
			}
			if _, err := AppendMsg(nil, &got); err != nil {
				t.Fatalf("%+v does not encode: %v", got, err)
			}
			back, err := ClassLinkOf(got.Settings())
			if err != nil || back != got || got.Settings().Validate() != nil {
				t.Fatalf("%+v: its settings %+v give back %+v, %v", got, got.Settings(), back, err)
			}
		})
	}
}

// TestClassLinkReachesEveryClient: the teacher's link setting reaches every client, which puts
// it on its link (here the network's links from its node); a burst of pushes sends at most
// one every classLinkEvery and the last one wins; a client that joins later gets it; and no
// client can set the others' links, through the server or on a direct link.
func TestClassLinkReachesEveryClient(t *testing.T) {
	t.Parallel()
	var g *vgame
	applied := map[int][]linksim.Settings{} // by client index: every setting put on its links
	g = newVGame(t, vspec{seed: 27, bots: 1, clients: 3, client: func(i int, c *ClientConfig) {
		c.OnClassLink = func(ls linksim.Settings) error {
			applied[i] = append(applied[i], ls)
			me := g.caddrs[i].String()
			for _, other := range g.names {
				if cond := g.nw.Conditioner(me, other); cond != nil {
					if err := cond.SetSettings(ls); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}})
	everyoneLinked(t, g, 10*time.Second)

	tenPercent := linksim.Settings{LossPercent: 10}
	if err := g.srv.PushLink(g.now, tenPercent); err != nil {
		t.Fatal(err)
	}
	arrived := func(want linksim.Settings, n int) func() bool {
		return func() bool {
			for i, c := range g.clients {
				if g.gone[i] {
					continue
				}
				if len(applied[i]) != n || applied[i][n-1] != want || c.Snapshot().ClassLinkErr != "" {
					return false
				}
			}
			return true
		}
	}
	g.waitFor(2*time.Second, "10% loss on every client's link", arrived(tenPercent, 1))
	srvAddr := g.srvAddr.String()
	for i := range g.clients {
		if got := g.nw.Conditioner(g.caddrs[i].String(), srvAddr).Settings(); got != tenPercent {
			t.Errorf("client %d's link to the server: %+v, want %+v", i, got, tenPercent)
		}
	}

	// A slider dragged on the teacher's screen: five settings within 100 ms. The first goes at
	// once (it is more than 250 ms since the last), the last after the bound, the others never.
	g.run(classLinkEvery)
	for i, loss := range []float64{11, 12, 13, 14, 15} {
		if i > 0 {
			g.run(20 * time.Millisecond)
		}
		if err := g.srv.PushLink(g.now, linksim.Settings{LossPercent: loss}); err != nil {
			t.Fatal(err)
		}
	}
	last := linksim.Settings{LossPercent: 15}
	g.waitFor(2*time.Second, "the last of the burst on every client", arrived(last, 3))
	if got := applied[0][1]; got != (linksim.Settings{LossPercent: 11}) {
		t.Errorf("the second setting applied is %+v, want the burst's first", got)
	}
	if g.srv.stats.ClassLinks != 3 {
		t.Errorf("%d class links sent, want 3 (one, then the first and the last of the burst)", g.srv.stats.ClassLinks)
	}

	// A latecomer gets the class's link when it is seated.
	late := g.join(nil)
	g.waitFor(5*time.Second, "the latecomer on the class's link", func() bool { return len(applied[late]) == 1 && applied[late][0] == last })

	// A student's forgeries: a ClassLink to the server, and one on every direct link.
	bad := func() (n uint64) {
		for _, c := range g.clients {
			n += c.stats.BadMessages
		}
		return n
	}
	srvBad, clientBad := g.srv.stats.BadMessages, bad()
	forged := &ClassLink{LossPermille: 600}
	if _, err := g.clients[0].sendToServer(g.now, forged, nil); err != nil {
		t.Fatal(err)
	}
	payload, err := AppendMsg(nil, forged)
	if err != nil {
		t.Fatal(err)
	}
	g.clients[0].sendDirect(g.now, 0, payload, g.clients[0].directSeats(g.now))
	g.run(2 * time.Second)
	if g.srv.stats.BadMessages != srvBad+1 {
		t.Errorf("the server counted %d bad messages for the forged ClassLink, want 1", g.srv.stats.BadMessages-srvBad)
	}
	if bad() == clientBad {
		t.Error("no client counted the ClassLink that came on a direct link as a bad message")
	}
	for i := range g.clients {
		if n := len(applied[i]); n == 0 || applied[i][n-1] != last {
			t.Errorf("client %d's link changed to %+v after a forged ClassLink", i, applied[i][n-1])
		}
	}
	if g.srv.stats.ClassLinks != 3 {
		t.Errorf("the server sent %d class links, want still 3", g.srv.stats.ClassLinks)
	}
	checkAgree(t, g)
}

// TestClassLinkWithoutConditioner: a client with no link conditioner says so rather than
// pretending it took the class's link; a setting beyond the sliders' ranges is refused and
// changes nothing.
func TestClassLinkWithoutConditioner(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 29, bots: 1, clients: 1})
	g.waitFor(10*time.Second, "the game to start", func() bool { return g.clients[0].w != nil })
	if err := g.srv.PushLink(g.now, linksim.Settings{LossPercent: 90}); !errors.Is(err, errClassLink) {
		t.Errorf("90%% loss pushed: %v", err)
	}
	if _, ok := g.srv.ClassLink(); ok {
		t.Error("a refused setting became the class's link")
	}
	if err := g.srv.PushLink(g.now, linksim.Settings{Latency: 75 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	g.waitFor(2*time.Second, "the class's link at the client", func() bool { return g.clients[0].stats.ClassLinks == 1 })
	g.run(200 * time.Millisecond)
	snap := g.clients[0].Snapshot()
	if snap.ClassLink == nil || snap.ClassLink.Latency != 75*time.Millisecond || snap.ClassLinkErr == "" {
		t.Errorf("snapshot: class link %+v, error %q; want 75 ms and a reason it is not applied", snap.ClassLink, snap.ClassLinkErr)
	}
}
