package transport

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// TestKeepaliveOneWayTraffic: a client that only sends, to a server that never sends a
// message, still gets its guaranteed messages acknowledged: the server's ack-only packets and
// keepalives carry the acks, and the client's queue drains.
func TestKeepaliveOneWayTraffic(t *testing.T) {
	t.Run("defaults", func(t *testing.T) { oneWay(t, Config{}) })
	// With keepalives out of the picture, the acks ride on ack-only packets (AckDelay).
	t.Run("no keepalives", func(t *testing.T) { oneWay(t, Config{Keepalive: time.Hour}) })
}

func oneWay(t *testing.T, cfg Config) {
	var got atomic.Int64
	scfg := cfg
	scfg.OnMessage = func(*Peer, time.Time, *message.Message) { got.Add(1) }
	p := newPair(t, ServerConfig{Config: scfg})
	c, cl := p.dial(ClientConfig{Config: cfg})
	const rounds, each = 50, 10
	for range rounds {
		cl.call(func(now time.Time) {
			for range each {
				if _, err := c.Peer().Conn().SendGuaranteed(now, []byte("one way"), nil, nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	waitFor(t, "the server to get every message", 5*time.Second, func() bool { return got.Load() == rounds*each })
	var pending int
	waitFor(t, "the client's queue to drain", 5*time.Second, func() bool {
		cl.call(func(time.Time) { pending = c.Peer().Conn().Stats().PendingGuaranteed })
		return pending == 0
	})
	var srvSent uint64
	p.sl.call(func(time.Time) { srvSent = p.srv.Peers()[0].Conn().Stats().GuaranteedSent })
	if srvSent != 0 {
		t.Errorf("the server sent %d guaranteed messages; the test wants one-way traffic", srvSent)
	}
	p.close()
}

// TestKeepaliveIdle: a connection with nothing to say sends about one packet per Keepalive
// each way, no more (no ack storm) and not much less. It runs in virtual time (the endpoints
// take now as an argument), where no timer is late: a window of idleness holds as many
// keepalives as the clock says.
func TestKeepaliveIdle(t *testing.T) {
	const keepalive = 50 * time.Millisecond
	const window = time.Second
	p := newSealedPairWith(t, Config{Keepalive: keepalive, PingInterval: time.Hour})
	p.run(time.Second) // the handshake's and the connection's first packets are behind
	sent := func() (cli, srv uint64) {
		return p.cli.Peer().Conn().Stats().Packet.PacketsSent, p.srv.Peers()[0].Conn().Stats().Packet.PacketsSent
	}
	c0, s0 := sent()
	p.run(window)
	c1, s1 := sent()
	want := float64(window) / float64(keepalive)
	for _, side := range []struct {
		name string
		n    uint64
	}{{"client", c1 - c0}, {"server", s1 - s0}} {
		t.Logf("%s: %d packets in %v (one per keepalive would be %.1f)", side.name, side.n, window, want)
		// Fewer would mean a keepalive skipped; more, that the two sides answer each
		// other's keepalives.
		if f := float64(side.n); f < 0.9*want || f > 1.25*want+1 {
			t.Errorf("%s sent %d packets in %v of idleness, want about %.0f", side.name, side.n, window, want)
		}
	}
}

// TestPings: pings measure a round trip and a clock offset. Both ends use the same clock, so
// the offset is only the difference between the two one-way delays, at most half the round
// trip, and near 0 on loopback.
func TestPings(t *testing.T) {
	runParallel(t)
	cfg := Config{PingInterval: 30 * time.Millisecond}
	p := newPair(t, ServerConfig{Config: cfg})
	c, _ := p.dial(ClientConfig{Config: cfg})
	var cs, ss PeerStats
	waitFor(t, "a few pongs on both sides", 5*time.Second, func() bool {
		st := p.srv.Stats()
		if len(st.Peers) != 1 {
			return false
		}
		cs, ss = c.Stats().Server, st.Peers[0]
		return cs.PingMax > 0 && ss.PingMax > 0 && time.Since(cs.Since) > 10*cfg.PingInterval
	})
	for _, s := range []struct {
		name string
		ps   PeerStats
	}{{"client", cs}, {"server", ss}} {
		ps := s.ps
		t.Logf("%s: ping %v (min %v, avg %v, max %v), clock offset %v", s.name, ps.PingRTT, ps.PingMin, ps.PingAvg, ps.PingMax, ps.ClockOffset)
		// The best of ten round trips on loopback is well under a frame, even under load.
		if ps.PingRTT <= 0 || ps.PingMin > 50*time.Millisecond || ps.PingMin > ps.PingRTT || ps.PingRTT > ps.PingMax ||
			ps.PingAvg < ps.PingMin || ps.PingAvg > ps.PingMax {
			t.Errorf("%s: implausible pings: %v (min %v, avg %v, max %v)", s.name, ps.PingRTT, ps.PingMin, ps.PingAvg, ps.PingMax)
		}
		// With one clock, t1-t0 and t3-t2 are the two one-way delays d1, d2 >= 0: the offset
		// (d1-d2)/2 can never exceed half the round trip d1+d2 of the same ping.
		if off := ps.ClockOffset.Abs(); off > ps.PingRTT/2 {
			t.Errorf("%s: clock offset %v with a round trip of %v on one clock", s.name, ps.ClockOffset, ps.PingRTT)
		}
	}
	p.close()
}

// TestStatsFromAnotherGoroutine reads the snapshots (and turns the link's knobs) from other
// goroutines while the loops run traffic; the race detector checks the claim that this is
// safe. Snapshots must never change once published, and counters never go back.
func TestStatsFromAnotherGoroutine(t *testing.T) {
	runParallel(t)
	link := &LinkSettings{}
	var got atomic.Int64
	p := newPair(t, ServerConfig{Config: Config{Link: link, OnMessage: func(*Peer, time.Time, *message.Message) { got.Add(1) }}})
	clients := make([]*Client, 2)
	loops := make([]*loop, 2)
	for i := range clients {
		clients[i], loops[i] = p.dial(ClientConfig{Config: Config{Link: link}})
	}
	var stops []func()
	for i, c := range clients {
		stops = append(stops, every(loops[i], 2*time.Millisecond, func(now time.Time) {
			if peer := c.Peer(); peer != nil && peer.Connected() {
				peer.Conn().SendGuaranteed(now, []byte("tick"), nil, nil)
				peer.Conn().SendUnreliable([]byte("position"))
			}
		}))
	}
	stops = append(stops, every(p.sl, 2*time.Millisecond, func(now time.Time) {
		for _, peer := range p.srv.Peers() {
			peer.Conn().SendGuaranteed(now, []byte("tock"), nil, nil)
		}
	}))

	quit := make(chan struct{})
	var wg sync.WaitGroup
	var reads atomic.Int64
	errs := &errorLog{}
	wg.Go(func() { // the server's debug panel
		var last ServerStats
		for {
			select {
			case <-quit:
				return
			default:
			}
			st := p.srv.Stats()
			if st.At.Before(last.At) || st.Requests < last.Requests || st.Accepted < last.Accepted {
				errs.add("server stats went back: %v after %v", st.At, last.At)
			}
			for _, ps := range st.Peers {
				_ = ps.Addr.String() + ps.Name + ps.PlayerID.String()
				if ps.PacketsSent < ps.GuaranteedSent/64 || ps.LossPercent < 0 || ps.LossPercent > 100 {
					errs.add("implausible peer stats: %+v", ps)
				}
			}
			if _, ok := p.srv.Link(); !ok {
				errs.add("server link missing")
			}
			last = st
			reads.Add(1)
			time.Sleep(50 * time.Microsecond) // a panel redraws often, not in a tight loop
		}
	})
	for _, c := range clients {
		wg.Go(func() { // a client's debug panel, with the loss slider
			var last ClientStats
			i := 0
			for {
				select {
				case <-quit:
					return
				default:
				}
				st := c.Stats()
				if st.At.Before(last.At) || st.Server.PacketsSent < last.Server.PacketsSent {
					errs.add("client stats went back")
				}
				i++
				if err := c.SetLink(LinkSettings{Out: linksim.Settings{LossPercent: float64(i % 5)}}); err != nil {
					errs.add("SetLink: %v", err)
				}
				_ = c.LocalAddr()
				last = st
				reads.Add(1)
				time.Sleep(50 * time.Microsecond)
			}
		})
	}

	// A snapshot taken now must read the same after the loops went on.
	waitStats(t, p.srv, "two peers in the stats", func(st ServerStats) bool { return len(st.Peers) == 2 })
	old := p.srv.Stats()
	frozen := append([]PeerStats(nil), old.Peers...)
	waitFor(t, "traffic and later snapshots", 10*time.Second, func() bool {
		return got.Load() > 200 && p.srv.Stats().At.After(old.At.Add(300*time.Millisecond))
	})
	for i := range frozen {
		if frozen[i] != old.Peers[i] {
			t.Errorf("a published snapshot changed: peer %d was %+v, is %+v", i, frozen[i], old.Peers[i])
		}
	}
	close(quit)
	wg.Wait()
	for _, stop := range stops {
		stop()
	}
	errs.check(t)
	t.Logf("%d snapshots read while %d messages arrived", reads.Load(), got.Load())
	p.close() // and checks for leaked goroutines
}

// TestIdleConnectionDatagrams: with the defaults, an idle connection sends about two
// datagrams a second each way, its ping and the answer to the peer's, and no keepalive beside
// them (a ping stands for one: message.Conn.Spoke). With a keepalive every 100 ms, as before,
// each side sent about twelve.
func TestIdleConnectionDatagrams(t *testing.T) {
	const window = 10 * time.Second
	p := newSealedPair(t)
	p.run(2 * time.Second) // the handshake and the connection's first packets are behind
	up0, down0 := len(p.up), len(p.down)
	p.run(window)
	for _, side := range []struct {
		name string
		n    int
	}{{"client", len(p.up) - up0}, {"server", len(p.down) - down0}} {
		perSec := float64(side.n) / window.Seconds()
		t.Logf("%s: %d datagrams in %v of idleness (%.1f a second)", side.name, side.n, window, perSec)
		if perSec < 1.8 || perSec > 2.2 {
			t.Errorf("%s sent %.1f datagrams a second on an idle connection, want about 2 (a ping and a pong)", side.name, perSec)
		}
	}
	if n := count(p.upKey, p.up[up0:], wire.TypeData) + count(p.downKey, p.down[down0:], wire.TypeData); n != 0 {
		t.Errorf("%d keepalives on a connection whose pings keep it alive, want none", n)
	}
}

// TestPingIdleOnly: with Config.PingIdleOnly a side whose connection measures its round trip
// from acknowledgements skips its ping, and an idle connection pings once a second as any
// does. Without it, a side pings every second whatever the connection carries.
func TestPingIdleOnly(t *testing.T) {
	for _, tt := range []struct {
		idleOnly  bool
		wantPings bool // while messages flow both ways
	}{{false, true}, {true, false}} {
		p := newSealedPairWith(t, Config{PingIdleOnly: tt.idleOnly})
		srv := p.srv.Peers()[0]
		busy := func() {
			end := p.now.Add(5 * time.Second)
			for p.now.Before(end) {
				for _, c := range []*message.Conn{p.cli.Peer().Conn(), srv.Conn()} {
					if _, err := c.SendGuaranteed(p.now, []byte("order"), nil, nil); err != nil {
						t.Fatal(err)
					}
				}
				p.run(200 * time.Millisecond)
			}
		}
		pings := func() uint64 { return p.cli.Peer().Stats().PingsSent + srv.Stats().PingsSent }
		before := pings()
		busy()
		busyPings := pings() - before
		before = pings()
		p.run(5 * time.Second)
		idlePings := pings() - before
		t.Logf("PingIdleOnly %v: %d pings in 5 s of messages both ways, %d in 5 s idle (skipped %d)", tt.idleOnly, busyPings, idlePings,
			p.cli.Peer().Stats().PingsSkipped+srv.Stats().PingsSkipped)
		if got := busyPings >= 8; got != tt.wantPings {
			t.Errorf("PingIdleOnly %v: %d pings from both sides in 5 s of messages both ways", tt.idleOnly, busyPings)
		}
		if idlePings < 8 || idlePings > 12 {
			t.Errorf("PingIdleOnly %v: %d pings from both sides in 5 s idle, want about 10", tt.idleOnly, idlePings)
		}
	}
}
