package transport

import (
	"net/netip"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// linkedPair is a Server and a Client over a linksim.Network, in the network's virtual time:
// every datagram crosses the link's latency, jitter and loss, and no wall clock is read.
type linkedPair struct {
	t                *testing.T
	nw               *linksim.Network
	srv              *Server
	cli              *Client
	srvAddr, cliAddr netip.AddrPort
	dgrams           []linksim.Datagram
}

// linkWriter sends from a node of the network.
type linkWriter struct{ node *linksim.Node }

func (w linkWriter) WriteTo(b []byte, to netip.AddrPort) error { return w.node.Send(to.String(), b) }

// newLinkedPair connects a client to a server over a link with settings link each way, and
// returns once the client is connected.
func newLinkedPair(t *testing.T, link linksim.Settings) *linkedPair {
	t.Helper()
	p := &linkedPair{t: t, nw: linksim.NewNetwork(1),
		srvAddr: netip.MustParseAddrPort("10.0.0.1:7777"), cliAddr: netip.MustParseAddrPort("10.0.0.2:40000")}
	p.nw.Link(p.srvAddr.String(), p.cliAddr.String(), link, link)
	p.srv = NewServer(ServerConfig{}, linkWriter{p.nw.AddNode(p.srvAddr.String())})
	var err error
	p.cli, err = NewClient(p.srvAddr, ClientConfig{Name: "ann"}, linkWriter{p.nw.AddNode(p.cliAddr.String())})
	if err != nil {
		t.Fatal(err)
	}
	p.runUntil(p.nw.Now().Add(5*time.Second), func() bool { return p.cli.State() == Connected && len(p.srv.Peers()) == 1 })
	if p.cli.State() != Connected || len(p.srv.Peers()) != 1 {
		t.Fatal("not connected within 5 s of virtual time")
	}
	return p
}

// setLink changes the link's settings, both ways.
func (p *linkedPair) setLink(link linksim.Settings) {
	if err := p.nw.SetLink(p.srvAddr.String(), p.cliAddr.String(), link, link); err != nil {
		p.t.Fatal(err)
	}
}

// run moves the virtual clock on by d.
func (p *linkedPair) run(d time.Duration) { p.runUntil(p.nw.Now().Add(d), nil) }

// runUntil ticks both ends, moves the clock to the next datagram or deadline, and hands the
// datagrams to their ends, until end or until cond holds.
func (p *linkedPair) runUntil(end time.Time, cond func() bool) {
	for {
		now := p.nw.Now()
		p.cli.Tick(now)
		p.srv.Tick(now)
		if cond != nil && cond() || !now.Before(end) {
			return
		}
		next := Earliest(Earliest(end, p.cli.NextTick(now)), p.srv.NextTick(now))
		next = maxTime(next, now.Add(time.Millisecond)) // as a real loop, never a spin
		now, p.dgrams = p.nw.Step(next, p.dgrams[:0])
		for _, d := range p.dgrams {
			from := netip.MustParseAddrPort(d.From)
			if d.To == p.srvAddr.String() {
				p.srv.Handle(now, Datagram{From: from, Data: d.Data})
			} else {
				p.cli.Handle(now, Datagram{From: from, Data: d.Data})
			}
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// TestIdleRTTFollowsTheLink: on a connection where neither side sends a message (a
// spectator that never chats, a player who gives no order), each end's round-trip estimate,
// the one the status line and the debug panel show, follows the link: it comes from the pings
// both ends send every second, not only from acknowledgements of messages, which an idle side
// never gets. The link goes from 10 ms round trip to 150 ms (the class's F8) and back, with
// jitter on the way; each phase gives the estimates 30 s of virtual time.
func TestIdleRTTFollowsTheLink(t *testing.T) {
	p := newLinkedPair(t, linksim.Settings{Latency: 5 * time.Millisecond})
	for _, phase := range []struct {
		name   string
		link   linksim.Settings
		rtt    time.Duration // what the estimates must come near
		jitter bool          // whether they must see jitter
	}{
		{"10 ms", linksim.Settings{Latency: 5 * time.Millisecond}, 10 * time.Millisecond, false},
		{"150 ms", linksim.Settings{Latency: 75 * time.Millisecond}, 150 * time.Millisecond, false},
		{"150 ms with jitter", linksim.Settings{Latency: 75 * time.Millisecond, Jitter: 20 * time.Millisecond}, 150 * time.Millisecond, true},
		{"10 ms again", linksim.Settings{Latency: 5 * time.Millisecond}, 10 * time.Millisecond, false},
	} {
		p.setLink(phase.link)
		p.run(30 * time.Second)
		for _, end := range []struct {
			name string
			peer *Peer
		}{{"client", p.cli.Peer()}, {"server", p.srv.Peers()[0]}} {
			st := end.peer.Stats()
			if st.GuaranteedSent != 0 {
				t.Fatalf("%s, %s: %d messages sent; the connection is meant to be idle", phase.name, end.name, st.GuaranteedSent)
			}
			// The link's own latency plus at most 2 ms: the loop's millisecond steps.
			lo, hi := phase.rtt-phase.rtt/10, phase.rtt+phase.rtt/10+2*time.Millisecond
			if phase.jitter {
				lo, hi = phase.rtt-40*time.Millisecond, phase.rtt+40*time.Millisecond
			}
			if st.RTT < lo || st.RTT > hi {
				t.Errorf("%s, %s: smoothed RTT %v, want %v to %v (samples %d)", phase.name, end.name, st.RTT, lo, hi, st.Message.Packet.RTTSamples)
			}
			if phase.jitter && st.Jitter < time.Millisecond {
				t.Errorf("%s, %s: jitter %v on a link with 20 ms of jitter", phase.name, end.name, st.Jitter)
			}
		}
	}
}

// TestPongMustAnswerTheLatestPing: the round trip runs from this side's own record of the
// ping's send, so a pong counts only when it answers the latest ping and echoes its send time;
// the time the peer says it held the ping counts for at most the protocol's ack delay.
func TestPongMustAnswerTheLatestPing(t *testing.T) {
	p := newLinkedPair(t, linksim.Settings{Latency: 5 * time.Millisecond})
	peer := p.cli.Peer()
	for _, tc := range []struct {
		name  string
		pong  func(id uint32, t0 int64) wire.Pong
		count bool
		rtt   time.Duration // the sample the packet layer takes, if it counts
	}{
		{"an answer", func(id uint32, t0 int64) wire.Pong { return wire.Pong{ID: id, T0: t0, T1: 7, T2: 7} }, true, 40 * time.Millisecond},
		{"another t0", func(id uint32, t0 int64) wire.Pong {
			return wire.Pong{ID: id, T0: t0 - int64(time.Second), T1: 7, T2: 7}
		}, false, 0},
		{"an older ping", func(id uint32, t0 int64) wire.Pong { return wire.Pong{ID: id - 1, T0: t0, T1: 7, T2: 7} }, false, 0},
		{"held a second", func(id uint32, t0 int64) wire.Pong {
			return wire.Pong{ID: id, T0: t0, T1: 7, T2: 7 + int64(time.Second)}
		}, true, 40*time.Millisecond - message.MaxAckDelay},
	} {
		p.run(time.Second) // a new ping has left
		before := peer.Stats()
		pongs, samples := peer.pongs, before.Message.Packet.RTTSamples
		peer.pong(peer.pingSent.Add(40*time.Millisecond), tc.pong(peer.pingID, peer.pingSent.UnixNano()))
		after := peer.Stats()
		counted := peer.pongs != pongs
		if counted != tc.count || (after.Message.Packet.RTTSamples != samples) != tc.count {
			t.Errorf("%s: counted %v (samples %d → %d), want %v", tc.name, counted, samples, after.Message.Packet.RTTSamples, tc.count)
		}
		if tc.count && (after.PingRTT != tc.rtt || after.Message.Packet.LatestRTT != tc.rtt) {
			t.Errorf("%s: ping RTT %v, packet layer's sample %v, want %v", tc.name, after.PingRTT, after.Message.Packet.LatestRTT, tc.rtt)
		}
	}
}
