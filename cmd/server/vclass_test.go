package main

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
)

// The class in virtual time (TestAttacks, attack_test.go; TestChurnFreesTheSeats,
// churn_test.go): the server the binary runs (game.Server, with the flags' configuration: one
// bot, --min-players 1) and honest players as the client binary runs them with --bot, each a
// game.Client playing for the class's time and then saying goodbye, as a process with
// --duration does. Beside them a student's program: an ordinary connection made from the
// project's own public packages (net/transport, and game's message codec), which sends
// whatever the student likes. The hosts are the binaries' sessions without their sockets: a
// game.Virtual moves the datagrams over a linksim.Network and the clock to the next datagram
// or deadline, so a 17 s game takes a fraction of that, whatever else the machine runs, and
// the same seed plays the same game. Each attack checks, from the hosts' reports (what the
// binaries write to --stats) and what the attacker's connections got, that it failed and that
// the honest players never noticed.

// classLink is the link between two hosts of the class. Each process of the class conditions
// its own socket at --loss 5 --latency 10ms --jitter 2ms, both ways, so a datagram between two
// of them meets two conditioners: 1 − 0.95² = 9.75% are lost, 20 ms late give or take 4 ms.
var classLink = linksim.Settings{LossPercent: 9.75, Latency: 20 * time.Millisecond, Jitter: 4 * time.Millisecond}

// serverSideLink is the link between the server and a sender with no conditioner of its own
// (the flood's raw sockets): the server's alone.
var serverSideLink = linksim.Settings{LossPercent: 5, Latency: 10 * time.Millisecond, Jitter: 2 * time.Millisecond}

// udpServerExtra: the server outlives its clients by this much (the server's --duration is the
// clients' and this). A client whose server went away first ends in error; a client that ends
// first says goodbye and leaves a seat the server keeps playing.
const udpServerExtra = 3 * time.Second

// vclass is one server and its honest players in virtual time.
type vclass struct {
	t       *testing.T
	v       *game.Virtual
	seed    uint64
	play    time.Duration // how long each honest client plays
	srv     *game.Server
	srvAddr netip.AddrPort
	srvProc *proc
	players []*vplayer
	hosts   int // addresses handed out
}

// vplayer is one honest client of a vclass.
type vplayer struct {
	name string
	addr netip.AddrPort
	node *linksim.Node
	c    *game.Client
	p    *proc
}

// startVClass starts the server (with one bot) at the start of a game of its own; join starts
// the honest players. server, if not nil, changes the server's configuration.
func startVClass(t *testing.T, seed uint64, play time.Duration, server func(*game.ServerConfig)) *vclass {
	t.Helper()
	c := &vclass{t: t, v: game.NewVirtual(seed), seed: seed, play: play, srvAddr: netip.MustParseAddrPort("127.0.0.1:7777")}
	// The binary's configuration for --bots 1 --min-players 1 (cmd/server's run). Its own
	// host is its address alone: the class's other hosts stand for machines of their own, at
	// 127.0.<net>.<n>, though loopback addresses all.
	cfg := game.ServerConfig{Seed: 1, Bots: 1, MinPlayers: 1, Places: game.Places{Host: []netip.Prefix{netip.PrefixFrom(c.srvAddr.Addr(), 32)}}}
	cfg.Transport.Rand = game.SeededRand(seed, 0)
	if server != nil {
		server(&cfg)
	}
	srv, err := game.NewServer(cfg, c.v.Writer(c.v.AddNode(c.srvAddr, classLink)))
	if err != nil {
		t.Fatal(err)
	}
	c.srv = srv
	c.srvProc = &proc{s: srv, end: c.v.Now().Add(play + udpServerExtra)}
	c.v.Attach(c.srvAddr, c.srvProc)
	return c
}

// nextAddr is a loopback address of its own for the next host, in 127.0.<net>.0/24.
func (c *vclass) nextAddr(net byte) netip.AddrPort {
	c.hosts++
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, net, byte(c.hosts)}), uint16(40000+c.hosts))
}

// join starts honest bot clients, each playing for the class's time from now.
func (c *vclass) join(names ...string) { c.joinFor(c.play, names...) }

// joinFor starts honest bot clients, each playing for d from now (0: until killed).
func (c *vclass) joinFor(d time.Duration, names ...string) { c.joinWith(d, nil, names...) }

// joinWith is joinFor with each client's configuration changed by edit (nil: none).
func (c *vclass) joinWith(d time.Duration, edit func(*game.ClientConfig), names ...string) {
	for _, name := range names {
		addr := c.nextAddr(1)
		// Linked to every host: the players link directly to each other.
		c.startClient(name, addr, c.v.AddNode(addr, classLink), d, edit)
	}
}

// watch starts honest spectators, the client binary with --spectate, each from an address of
// its own on the class's network, watching until the class ends.
func (c *vclass) watch(names ...string) {
	for _, name := range names {
		c.watchFrom(c.nextAddr(1), name)
	}
}

// watchFrom is watch for one spectator at addr (the projector's: the server's own host), linked
// to the server alone: a spectator takes no direct links.
func (c *vclass) watchFrom(addr netip.AddrPort, name string) *vplayer {
	return c.startClient(name, addr, c.v.AddNodeLinkedTo(addr, c.srvAddr, classLink), c.untilEnd(), func(cfg *game.ClientConfig) {
		cfg.Bot, cfg.Spectate = false, true
	})
}

// untilEnd is how long a client that starts now plays to end with those that joined first:
// udpServerExtra before the server's end.
func (c *vclass) untilEnd() time.Duration { return c.srvProc.end.Sub(c.v.Now()) - udpServerExtra }

// startClient starts an honest client called name at addr on node, a bot player unless edit
// changes its configuration, for d from now (0: until killed).
func (c *vclass) startClient(name string, addr netip.AddrPort, node *linksim.Node, d time.Duration, edit func(*game.ClientConfig)) *vplayer {
	cfg := game.ClientConfig{Name: name, Bot: true, Seed: uint64(len(c.players) + 1),
		PlayerID: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "vclass %d %s", c.seed, name))}
	cfg.Transport.Rand = game.SeededRand(c.seed, uint64(c.hosts))
	if edit != nil {
		edit(&cfg)
	}
	cl, err := game.NewClient(cfg, c.v.Writer(node), c.srvAddr)
	if err != nil {
		c.t.Fatal(err)
	}
	p := &vplayer{name: name, addr: addr, node: node, c: cl, p: &proc{s: cl}}
	if d > 0 {
		p.p.end = c.v.Now().Add(d)
	}
	c.players = append(c.players, p)
	c.v.Attach(addr, p.p)
	return p
}

// player returns the honest client called name.
func (c *vclass) player(name string) *vplayer {
	for _, p := range c.players {
		if p.name == name {
			return p
		}
	}
	c.t.Fatalf("no player %q", name)
	return nil
}

// run moves the class's clock by d.
func (c *vclass) run(d time.Duration) { c.v.Run(d) }

// waitFor runs until cond holds, failing the test after d of game time.
func (c *vclass) waitFor(d time.Duration, what string, cond func() bool) {
	c.t.Helper()
	if !c.v.RunUntil(c.v.Now().Add(d), cond) {
		c.t.Fatalf("waited %v of game time for %s", d, what)
	}
}

// finish runs until every host has ended, as the binaries' --duration ends them: each honest
// client must have played to its end, connected. It returns the reports each wrote at exit
// (a killed client writes none).
func (c *vclass) finish() (server game.Report, clients map[string]game.Report) {
	c.t.Helper()
	c.v.RunUntil(c.srvProc.end, nil)
	clients = map[string]game.Report{}
	for _, p := range c.players {
		if p.p.end.IsZero() {
			continue // killed: no report
		}
		if p.p.err != nil {
			c.t.Errorf("%s ended before its time: %v", p.name, p.p.err)
		}
		clients[p.name] = p.c.Report()
	}
	return c.srv.Report(), clients
}

// proc is a host as a process of its own: it runs until end (its --duration), then says
// goodbye (Shutdown) and is gone; what arrives after that is lost, as on a closed socket. kill
// ends it at once without a goodbye, as kill -9 does.
type proc struct {
	s    game.Session
	end  time.Time // zero: until killed
	gone bool
	err  error // a client's connection that had ended by itself before end (a process's exit 1)
}

func (p *proc) alive(now time.Time) bool {
	if !p.gone && !p.end.IsZero() && !now.Before(p.end) {
		if c, ok := p.s.(*game.Client); ok {
			p.err = c.Ended()
		}
		p.s.Shutdown(now)
		p.gone = true
	}
	return !p.gone
}

func (p *proc) kill() { p.gone = true }

func (p *proc) Handle(now time.Time, d transport.Datagram) {
	if p.alive(now) {
		p.s.Handle(now, d)
	}
}

func (p *proc) Tick(now time.Time) {
	if p.alive(now) {
		p.s.Tick(now)
	}
}

func (p *proc) NextDeadline(now time.Time) time.Time {
	if p.gone {
		return time.Time{}
	}
	next := p.s.NextDeadline(now)
	if !p.end.IsZero() && (next.IsZero() || p.end.Before(next)) {
		next = p.end
	}
	return next
}

func (p *proc) Intent(now time.Time) {
	if p.alive(now) {
		p.s.Intent(now)
	}
}

func (p *proc) Shutdown(now time.Time) {
	if p.alive(now) {
		p.s.Shutdown(now)
		p.gone = true
	}
}

// checkHonest: every honest client played to the end and its world equals the server's at
// every settled frame both kept; nobody was paused or repaired unless allowed.
func checkHonest(t testing.TB, server game.Report, clients map[string]game.Report, resyncsAllowed bool) {
	t.Helper()
	for name, c := range clients {
		agreed, common := agreement(server, c)
		if common == 0 || agreed != common {
			t.Errorf("%s: world equal to the server's at %d of %d settled frames", name, agreed, common)
		}
		if !resyncsAllowed && (c.Sync.RealtimeResyncs != 0 || c.Sync.StopWorldResyncs != 0) {
			t.Errorf("%s was repaired: %d real-time, %d stop-the-world re-syncs", name, c.Sync.RealtimeResyncs, c.Sync.StopWorldResyncs)
		}
	}
}

// attacker is one connection of the student's program: a transport client at an address of
// its own in the class's network, and a log of every game message it got. The test drives it
// between the steps of the clock; onMsg runs as each message arrives.
type attacker struct {
	t       *testing.T
	cl      *vclass
	c       *transport.Client
	got     []game.Msg
	players map[uint8]game.PlayerInfo
	onMsg   func(a *attacker, now time.Time, m game.Msg)
}

// dialAttacker connects to addr (the server, or a client's direct-link address) with cfg, from
// an address of its own linked to every host with the class's link.
func (c *vclass) dialAttacker(to netip.AddrPort, cfg transport.ClientConfig, onMsg func(a *attacker, now time.Time, m game.Msg)) *attacker {
	c.t.Helper()
	addr := c.nextAddr(3)
	return c.dialAttackerFrom(addr, c.v.AddNode(addr, classLink), to, cfg, onMsg)
}

// dialAttackerFrom is dialAttacker from the address of node.
func (c *vclass) dialAttackerFrom(addr netip.AddrPort, node *linksim.Node, to netip.AddrPort, cfg transport.ClientConfig, onMsg func(a *attacker, now time.Time, m game.Msg)) *attacker {
	c.t.Helper()
	a := &attacker{t: c.t, cl: c, players: map[uint8]game.PlayerInfo{}, onMsg: onMsg}
	if cfg.Name == "" {
		cfg.Name = "eve"
	}
	if cfg.PlayerID == uuid.Nil {
		cfg.PlayerID = uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "vclass %d attacker %v", c.seed, addr))
	}
	cfg.Rand = game.SeededRand(c.seed, uint64(c.hosts))
	cfg.OnMessage = func(_ *transport.Peer, now time.Time, m *message.Message) {
		msg, err := game.ParseMsg(m.Payload)
		if err != nil {
			return
		}
		a.got = append(a.got, msg)
		if pi, ok := msg.(*game.PlayerInfo); ok {
			a.players[pi.Seat] = *pi
		}
		if a.onMsg != nil {
			a.onMsg(a, now, msg)
		}
	}
	tc, err := transport.NewClient(to, cfg, c.v.Writer(node))
	if err != nil {
		c.t.Fatal(err)
	}
	a.c = tc
	c.v.Attach(addr, attackerHost{tc})
	return a
}

// attackerHost runs an attacker's connection as a host of the game.
type attackerHost struct{ c *transport.Client }

func (h attackerHost) Handle(now time.Time, d transport.Datagram) { h.c.Handle(now, d) }
func (h attackerHost) Tick(now time.Time)                         { h.c.Tick(now) }
func (h attackerHost) NextDeadline(now time.Time) time.Time       { return h.c.NextTick(now) }
func (h attackerHost) Intent(time.Time)                           {}
func (h attackerHost) Shutdown(now time.Time)                     { h.c.Shutdown(now) }

// send sends m as a guaranteed message on the attacker's connection (false: not connected).
func (a *attacker) send(m game.Msg) bool { return a.sendNow(a.cl.v.Now(), m) }

// sendNow is send from onMsg, at the time the message came.
func (a *attacker) sendNow(now time.Time, m game.Msg) bool {
	b, err := game.AppendMsg(nil, m)
	if err != nil {
		a.t.Errorf("the attacker cannot encode %T: %v", m, err)
		return false
	}
	return a.sendRawNow(now, b)
}

// sendRaw sends a guaranteed message's bytes as they are: what game's encoder would refuse
// to write, a student can write by hand.
func (a *attacker) sendRaw(payload []byte) bool { return a.sendRawNow(a.cl.v.Now(), payload) }

func (a *attacker) sendRawNow(now time.Time, b []byte) bool {
	p := a.c.Peer()
	if p == nil || !p.Connected() {
		return false
	}
	_, err := p.Conn().SendGuaranteed(now, b, nil, nil)
	return err == nil
}

func (a *attacker) stats() transport.ClientStats { return a.c.Stats() }

// waitFor runs the class until cond holds, failing the test after d of game time.
func (a *attacker) waitFor(d time.Duration, what string, cond func() bool) {
	a.t.Helper()
	if !a.cl.v.RunUntil(a.cl.v.Now().Add(d), cond) {
		a.t.Fatalf("the attacker waited %v of game time for %s", d, what)
	}
}

// seated waits until the attacker knows the seats of names, and returns them by name.
func (a *attacker) seated(names ...string) map[string]game.PlayerInfo {
	a.t.Helper()
	out := map[string]game.PlayerInfo{}
	a.waitFor(20*time.Second, "the players' seats", func() bool { return seatsOf(a.players, out, names) })
	return out
}

// seatsOf copies the roster players into out, by name, and reports whether each of names is
// in it, connected.
func seatsOf(players map[uint8]game.PlayerInfo, out map[string]game.PlayerInfo, names []string) bool {
	for _, pi := range players {
		out[pi.Name] = pi
	}
	for _, n := range names {
		if !out[n].Connected {
			return false
		}
	}
	return true
}

// ended runs the class until the connection ends, for up to d of game time, and returns how
// it ended (the reason and text the other side gave, or the handshake's error).
func (a *attacker) ended(d time.Duration) (transport.ClientStats, bool) {
	ok := a.cl.v.RunUntil(a.cl.v.Now().Add(d), func() bool { return a.c.State() == transport.Disconnected })
	return a.c.Stats(), ok
}

// count returns how many messages of type T the attacker got.
func count[T game.Msg](a *attacker) (n int) {
	for _, m := range a.got {
		if _, ok := m.(T); ok {
			n++
		}
	}
	return n
}

// latest returns the last message of type T the attacker got.
func latest[T game.Msg](a *attacker) (m T, ok bool) {
	for i := len(a.got) - 1; i >= 0; i-- {
		if v, is := a.got[i].(T); is {
			return v, true
		}
	}
	return m, false
}

// stateText says how a connection ended, for the checks' messages.
func stateText(st transport.ClientStats) string {
	switch {
	case st.Err != "":
		return st.Err
	case st.State != transport.Disconnected:
		return st.State.String()
	}
	return st.Reason.String() + ": " + st.Text
}

// sink is a host that only counts the bytes sent to it: a victim's socket.
type sink struct{ bytes int }

func (s *sink) Handle(_ time.Time, d transport.Datagram) { s.bytes += len(d.Data) }
func (s *sink) Tick(time.Time)                           {}
func (s *sink) NextDeadline(time.Time) time.Time         { return time.Time{} }
func (s *sink) Intent(time.Time)                         {}
func (s *sink) Shutdown(time.Time)                       {}
