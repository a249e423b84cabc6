package transport

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// byes records the disconnects one side saw.
type byes struct {
	mu  sync.Mutex
	got []bye
}

type bye struct {
	reason wire.DisconnectReason
	text   string
}

func (b *byes) record(_ *Peer, _ time.Time, r wire.DisconnectReason, text string) {
	b.mu.Lock()
	b.got = append(b.got, bye{r, text})
	b.mu.Unlock()
}

// wait returns the first disconnect once there is one.
func (b *byes) wait(t *testing.T, who string) bye {
	t.Helper()
	var first bye
	waitFor(t, who+" sees the disconnect", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		if len(b.got) == 0 {
			return false
		}
		first = b.got[0]
		return true
	})
	return first
}

func (b *byes) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.got)
}

// pair is one server and its clients, each on its own loop.
type pair struct {
	t       *testing.T
	srv     *Server
	sl      *loop
	clients []*Client
	cloops  []*loop
	stopped map[*loop]bool
}

func newPair(t *testing.T, cfg ServerConfig) *pair {
	t.Helper()
	srv, sl := startServer(t, cfg)
	return &pair{t: t, srv: srv, sl: sl, stopped: map[*loop]bool{}}
}

// dial connects a client and, unless wait is false, waits until it is connected.
func (p *pair) dial(cfg ClientConfig, wait ...bool) (*Client, *loop) {
	p.t.Helper()
	if cfg.Name == "" {
		cfg.Name = "player"
	}
	c, err := Dial(p.srv.LocalAddr().String(), cfg)
	if err != nil {
		p.t.Fatal(err)
	}
	l := startLoop(c)
	p.clients, p.cloops = append(p.clients, c), append(p.cloops, l)
	if len(wait) == 0 || wait[0] {
		waitFor(p.t, "connected", 5*time.Second, func() bool { return c.Stats().State == Connected })
	}
	return c, l
}

func (p *pair) stop(l *loop) {
	if !p.stopped[l] {
		p.stopped[l] = true
		l.stop()
	}
}

// close stops every loop, closes everything and checks for leaked goroutines.
func (p *pair) close() {
	p.t.Helper()
	for _, l := range p.cloops {
		p.stop(l)
	}
	p.stop(p.sl)
	for _, c := range p.clients {
		if err := c.Close(); err != nil {
			p.t.Error(err)
		}
	}
	if err := p.srv.Close(); err != nil {
		p.t.Error(err)
	}
	verifyNoLeaks(p.t)
}

func (p *pair) serverPeer() (peer *Peer) {
	p.sl.call(func(time.Time) {
		if ps := p.srv.Peers(); len(ps) > 0 {
			peer = ps[0]
		}
	})
	return peer
}

const shortTimeout = 600 * time.Millisecond

func TestTimeoutClientStopsAnswering(t *testing.T) {
	runParallel(t)
	var srvBye byes
	p := newPair(t, ServerConfig{Config: Config{Timeout: shortTimeout, OnDisconnect: srvBye.record}})
	_, cl := p.dial(ClientConfig{Config: Config{Timeout: shortTimeout}})
	p.stop(cl) // the client's socket stays open, but nothing answers
	if n := srvBye.count(); n != 0 {
		t.Fatalf("the server dropped the client before its loop stopped")
	}
	b := srvBye.wait(t, "server")
	if b.reason != wire.DisconnectTimeout {
		t.Errorf("server saw %v %q, want timeout", b.reason, b.text)
	}
	t.Logf("server: %v %q", b.reason, b.text)
	p.close()
}

func TestTimeoutServerGoesSilent(t *testing.T) {
	runParallel(t)
	var cliBye byes
	p := newPair(t, ServerConfig{Config: Config{Timeout: shortTimeout}})
	c, _ := p.dial(ClientConfig{Config: Config{Timeout: shortTimeout, OnDisconnect: cliBye.record}})
	p.stop(p.sl)
	b := cliBye.wait(t, "client")
	if b.reason != wire.DisconnectTimeout {
		t.Errorf("client saw %v %q, want timeout", b.reason, b.text)
	}
	waitFor(t, "client stats", 5*time.Second, func() bool { return c.Stats().State == Disconnected })
	if st := c.Stats(); st.Reason != wire.DisconnectTimeout {
		t.Errorf("client stats: %v, want timeout", st.Reason)
	}
	p.close()
}

func TestDisconnectClean(t *testing.T) {
	var srvBye, cliBye byes
	p := newPair(t, ServerConfig{Config: Config{OnDisconnect: srvBye.record}})
	c, cl := p.dial(ClientConfig{Config: Config{OnDisconnect: cliBye.record}})
	const text = "see you tomorrow"
	cl.call(func(now time.Time) { c.Disconnect(now, text) })
	want := bye{wire.DisconnectClosed, text}
	if b := srvBye.wait(t, "server"); b != want {
		t.Errorf("server saw %+v, want %+v", b, want)
	}
	if b := cliBye.wait(t, "client"); b != want {
		t.Errorf("client saw %+v, want %+v", b, want)
	}
	waitFor(t, "client stats", 5*time.Second, func() bool { return c.Stats().State == Disconnected })
	if st := c.Stats(); st.Reason != wire.DisconnectClosed || st.Text != text {
		t.Errorf("client stats: %v %q", st.Reason, st.Text)
	}
	waitStats(t, p.srv, "no peers", func(st ServerStats) bool { return len(st.Peers) == 0 })
	p.close()
}

// TestDisconnectLeavesThroughLatency: a client whose link conditioner delays what it sends
// (--latency) still gets its goodbye out when it closes: Close lets the delayed datagrams
// leave before the socket goes, so the server sees DisconnectClosed, not a timeout.
func TestDisconnectLeavesThroughLatency(t *testing.T) {
	runParallel(t)
	var srvBye byes
	p := newPair(t, ServerConfig{Config: Config{OnDisconnect: srvBye.record}})
	c, cl := p.dial(ClientConfig{Config: Config{Link: &LinkSettings{Out: linksim.Settings{Latency: 200 * time.Millisecond}}}})
	p.stop(cl)
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 200*time.Millisecond || took > closeFlush+100*time.Millisecond {
		t.Errorf("Close took %v, want the latency (200 ms) and at most about %v", took, closeFlush)
	}
	if b := srvBye.wait(t, "server"); b.reason != wire.DisconnectClosed {
		t.Errorf("server saw %+v, want %v", b, wire.DisconnectClosed)
	}
	p.close()
}

func TestKick(t *testing.T) {
	var srvBye, cliBye byes
	p := newPair(t, ServerConfig{Config: Config{OnDisconnect: srvBye.record}})
	c, _ := p.dial(ClientConfig{Config: Config{OnDisconnect: cliBye.record}})
	const text = "camping the spawn"
	p.sl.call(func(now time.Time) { p.srv.Kick(p.srv.Peers()[0], now, text) })
	want := bye{wire.DisconnectKicked, text}
	if b := cliBye.wait(t, "client"); b != want {
		t.Errorf("client saw %+v, want %+v", b, want)
	}
	if b := srvBye.wait(t, "server"); b != want {
		t.Errorf("server saw %+v, want %+v", b, want)
	}
	waitFor(t, "client stats", 5*time.Second, func() bool { return c.Stats().State == Disconnected })
	if st := c.Stats(); st.Reason != wire.DisconnectKicked || st.Text != text {
		t.Errorf("client stats: %v %q", st.Reason, st.Text)
	}
	p.close()
}

// TestByeTextCutOnCharacter: a reason text longer than a Disconnect carries reaches the other
// side cut at a character boundary, on both paths (a client that leaves, a server that kicks),
// while the side that ended the connection keeps the whole text.
func TestByeTextCutOnCharacter(t *testing.T) {
	text := "a" + strings.Repeat("é", 50) // 101 bytes: the limit falls inside the last "é"
	cut := wire.FitReasonText(text)
	if len(cut) != 99 {
		t.Fatalf("cut to %d bytes, want 99", len(cut))
	}
	for _, kick := range []bool{false, true} {
		t.Run(map[bool]string{false: "client leaves", true: "server kicks"}[kick], func(t *testing.T) {
			var srvBye, cliBye byes
			p := newPair(t, ServerConfig{Config: Config{OnDisconnect: srvBye.record}})
			c, cl := p.dial(ClientConfig{Config: Config{OnDisconnect: cliBye.record}})
			ender, told := srvBye.wait, cliBye.wait
			want := bye{wire.DisconnectKicked, text}
			if kick {
				p.sl.call(func(now time.Time) { p.srv.Kick(p.srv.Peers()[0], now, text) })
			} else {
				cl.call(func(now time.Time) { c.Disconnect(now, text) })
				ender, told, want.reason = cliBye.wait, srvBye.wait, wire.DisconnectClosed
			}
			if b := ender(t, "ending side"); b != want {
				t.Errorf("ending side saw %+v, want %+v", b, want)
			}
			want.text = cut
			if b := told(t, "other side"); b != want {
				t.Errorf("other side saw %+v, want %+v", b, want)
			}
			p.close()
		})
	}
}

// TestReconnectAndAdmit: the transport has connections, not seats. A player id that comes
// back after leaving gets a new connection if the owner's Admit lets it in; a player Admit
// refuses is told "server full", and so is anybody once MaxClients connections are open. A
// player id is no credential: one that connects again while connected needs Admit like
// anybody, gets a connection beside the open one instead of replacing it, and the owner
// decides which one stays (Drop).
func TestReconnectAndAdmit(t *testing.T) {
	var srvBye byes
	ann, bob, cat := playerID(8, 0), playerID(8, 1), playerID(8, 2)
	var refused sync.Map // player ids Admit refuses (read on the server's loop, set by the test)
	p := newPair(t, ServerConfig{MaxClients: 2, Config: Config{OnDisconnect: srvBye.record},
		Admit: func(player uuid.UUID, _ time.Time) bool { _, no := refused.Load(player); return !no }})
	a, al := p.dial(ClientConfig{PlayerID: ann})
	b, bl := p.dial(ClientConfig{PlayerID: bob})
	al.call(func(now time.Time) { a.Disconnect(now, "brb") })
	srvBye.wait(t, "server")

	// Ann comes back from a new socket while Admit refuses her: server full.
	refused.Store(ann, true)
	denied := make(chan wire.DenyReason, 1)
	p.dial(ClientConfig{PlayerID: ann, OnDenied: func(r wire.DenyReason, _ time.Time) { denied <- r }}, false)
	waitDenied(t, denied, "a player Admit refuses")

	// Admitted again: connected.
	refused.Delete(ann)
	a2, a2l := p.dial(ClientConfig{PlayerID: ann})

	// Two connections open: a third player is refused whatever Admit says.
	full := make(chan wire.DenyReason, 1)
	p.dial(ClientConfig{PlayerID: cat, OnDenied: func(r wire.DenyReason, _ time.Time) { full <- r }}, false)
	waitDenied(t, full, "a connection over MaxClients")

	// Bob leaves: room for one more connection.
	bl.call(func(now time.Time) { b.Disconnect(now, "bye") })
	waitFor(t, "the server to see bob leave", 5*time.Second, func() bool { return srvBye.count() == 2 })

	// Ann connects once more while still connected, and Admit refuses her: her open
	// connection is no pass, and it stays open.
	refused.Store(ann, true)
	var a2Bye byes
	a2l.call(func(time.Time) { a2.cfg.OnDisconnect = a2Bye.record })
	again := make(chan wire.DenyReason, 1)
	p.dial(ClientConfig{PlayerID: ann, OnDenied: func(r wire.DenyReason, _ time.Time) { again <- r }}, false)
	waitDenied(t, again, "a connected player's id that Admit refuses")

	// Admitted: a second connection of hers opens beside the first, which nobody replaced.
	refused.Delete(ann)
	a3, _ := p.dial(ClientConfig{PlayerID: ann})
	var open []*Peer
	p.sl.call(func(time.Time) { open = slices.Clone(p.srv.Peers()) })
	if len(open) != 2 || open[0].PlayerID() != ann || open[1].PlayerID() != ann || a2Bye.count() != 0 || a2.Stats().State != Connected {
		t.Fatalf("after ann's second connection: %d open, the first saw %d disconnects, state %v", len(open), a2Bye.count(), a2.Stats().State)
	}
	// The owner lets the newer one take the older one's place.
	p.sl.call(func(now time.Time) { p.srv.Drop(open[0], now, wire.DisconnectReplaced, "replaced by the test") })
	if b := a2Bye.wait(t, "the replaced client"); b.reason != wire.DisconnectReplaced {
		t.Errorf("replaced client saw %v %q", b.reason, b.text)
	}
	if a3.Stats().State != Connected {
		t.Errorf("the newer connection is %v", a3.Stats().State)
	}
	p.close()
}

// waitDenied waits for a handshake's refusal, which must be "server full".
func waitDenied(t *testing.T, denied <-chan wire.DenyReason, who string) {
	t.Helper()
	select {
	case r := <-denied:
		if r != wire.DenyServerFull {
			t.Errorf("%s: denied with %v, want server full", who, r)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s was not denied", who)
	}
}

func TestServerShutdown(t *testing.T) {
	p := newPair(t, ServerConfig{})
	var cb [2]byes
	for i := range cb {
		p.dial(ClientConfig{Config: Config{OnDisconnect: cb[i].record}})
	}
	p.stop(p.sl)
	if err := p.srv.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range cb {
		if b := cb[i].wait(t, "client"); b.reason != wire.DisconnectShutdown || b.text == "" {
			t.Errorf("client %d saw %v %q, want shutdown with a text", i, b.reason, b.text)
		}
	}
	p.close()
}

// TestConnectionErrorReachesBothSides: a message layer error (the resend limit, after every
// datagram one way is lost) ends the connection on the side that fails, which sends
// DisconnectError with the error's text; the other side learns the reason and the text.
func TestConnectionErrorReachesBothSides(t *testing.T) {
	runParallel(t)
	const limit = 300 * time.Millisecond
	lost := LinkSettings{In: linkLoss(100)}
	t.Run("client fails", func(t *testing.T) {
		var srvBye, cliBye byes
		p := newPair(t, ServerConfig{Config: Config{Timeout: 5 * time.Second, OnDisconnect: srvBye.record}})
		c, cl := p.dial(ClientConfig{Config: Config{Timeout: 5 * time.Second, Link: &LinkSettings{},
			Message: message.Config{ResendLimit: limit}, OnDisconnect: cliBye.record}})
		// The client hears nothing more: its messages arrive, their acks never do.
		if err := c.SetLink(lost); err != nil {
			t.Fatal(err)
		}
		cl.call(func(now time.Time) { c.Peer().Conn().SendGuaranteed(now, []byte("hello?"), nil, nil) })
		checkErrorBye(t, cliBye.wait(t, "client"), srvBye.wait(t, "server"))
		p.close()
	})
	t.Run("server fails", func(t *testing.T) {
		var srvBye, cliBye byes
		p := newPair(t, ServerConfig{Config: Config{Timeout: 5 * time.Second, Link: &LinkSettings{},
			Message: message.Config{ResendLimit: limit}, OnDisconnect: srvBye.record}})
		p.dial(ClientConfig{Config: Config{Timeout: 5 * time.Second, OnDisconnect: cliBye.record}})
		if err := p.srv.SetLink(lost); err != nil {
			t.Fatal(err)
		}
		p.sl.call(func(now time.Time) { p.srv.Peers()[0].Conn().SendGuaranteed(now, []byte("anyone?"), nil, nil) })
		checkErrorBye(t, srvBye.wait(t, "server"), cliBye.wait(t, "client"))
		p.close()
	})
}

// checkErrorBye: the failing side ended with DisconnectError and the message layer's error;
// the other side got the same reason and the text as it fits a Disconnect packet.
func checkErrorBye(t *testing.T, failed, told bye) {
	t.Helper()
	if failed.reason != wire.DisconnectError || !strings.Contains(failed.text, "resend limit") {
		t.Errorf("failing side: %v %q, want a connection error about the resend limit", failed.reason, failed.text)
	}
	if want := (bye{wire.DisconnectError, wire.FitReasonText(failed.text)}); told != want {
		t.Errorf("other side: %+v, want %+v", told, want)
	}
	t.Logf("failing side: %q; other side: %q", failed.text, told.text)
}

// TestDebugViewsOnlyWhenAsked: the snapshots carry the message layer's debug views only with
// Config.DebugViews (a panel wants them; copying them costs a walk of the graphs).
func TestDebugViewsOnlyWhenAsked(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := ServerConfig{}
		cfg.DebugViews = on
		p := newPair(t, cfg)
		ccfg := ClientConfig{}
		ccfg.DebugViews = on
		c, _ := p.dial(ccfg)
		waitFor(t, "a server snapshot of the client", 5*time.Second, func() bool { return len(p.srv.Stats().Peers) == 1 })
		for side, st := range map[string]PeerStats{"client": c.Stats().Server, "server": p.srv.Stats().Peers[0]} {
			if (st.Debug != nil) != on {
				t.Errorf("DebugViews %v: the %s's snapshot has Debug %v", on, side, st.Debug != nil)
			}
		}
		// The history of guaranteed messages is kept only for debug views.
		for side, mc := range map[string]message.Config{"client": c.cfg.Message, "server": p.srv.cfg.Message} {
			if want := map[bool]int{false: 0, true: message.DefaultHistory}[on]; mc.History != want {
				t.Errorf("DebugViews %v: the %s's connections keep a history of %d messages, want %d", on, side, mc.History, want)
			}
		}
		p.close()
	}
}

// TestTickForgetsDepartedPeers: the copy of the peer list that Tick walks keeps its backing
// array between ticks (so that a Tick allocates nothing), and must not keep a peer that has
// left reachable from it, with its connection's tables.
func TestTickForgetsDepartedPeers(t *testing.T) {
	p := newPair(t, ServerConfig{})
	p.dial(ClientConfig{Name: "stays"})
	p.dial(ClientConfig{Name: "leaves"})
	p.sl.call(func(now time.Time) {
		p.srv.Tick(now) // both peers in the copy
		p.srv.Kick(p.srv.Peers()[1], now, "")
		p.srv.Tick(now)
		for i, peer := range p.srv.ticking[:cap(p.srv.ticking)] {
			if peer != nil {
				t.Errorf("after the tick, slot %d of the tick's copy still holds %s", i, peer.Name())
			}
		}
	})
	p.close()
}
