package main

import (
	"context"
	"errors"
	"hash/fnv"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
)

// The attacker harness (TestAttacks, attack_test.go): a real server, from the binary, with a
// bot of its own, and honest players, from the client binary, each a bot; every process at
// the class's link (classLink). Beside them a student's program: an ordinary connection made
// from the project's own public packages (net/transport, and game's message codec), which
// sends whatever the student likes. Each attack checks, from the processes' --stats reports
// and what the attacker's connections got, that it failed and that the honest players never
// noticed.

// classLink is every honest process's link: a lossy classroom Wi-Fi, on every host.
var classLink = []string{"--loss", "5", "--latency", "10ms", "--jitter", "2ms"}

// attackerLink is the attacker's own connections' link, the same.
var attackerLink = func() transport.LinkSettings {
	l := linksim.Settings{LossPercent: 5, Latency: 10 * time.Millisecond, Jitter: 2 * time.Millisecond}
	return transport.LinkSettings{Out: l, In: l}
}()

// class is one server and its honest players while they run.
type class struct {
	t      *testing.T
	dir    string
	addr   string // the server's
	ctx    context.Context
	cancel context.CancelFunc
	hosts  []*udpHost // the server first

	sp        classSpec
	clientBin string
}

// classSpec says how long the honest clients play (the server lasts udpServerExtra longer),
// and gives extra flags for the server or for one client.
type classSpec struct {
	play    time.Duration
	server  []string            // more server flags
	client  map[string][]string // more flags of one client
	connect map[string]string   // a client that connects somewhere other than the server (a relay)
}

// startClass starts the server, with one bot; join starts the honest players.
func startClass(t *testing.T, serverBin, clientBin string, sp classSpec) *class {
	t.Helper()
	c := &class{t: t, dir: t.TempDir(), addr: freeUDPAddr(t), sp: sp, clientBin: clientBin}
	c.ctx, c.cancel = context.WithTimeout(context.Background(), sp.play+udpServerExtra+time.Minute)
	t.Cleanup(c.cancel)
	c.start("server", serverBin, append([]string{"--listen", c.addr, "--bots", "1", "--min-players", "1",
		"--duration", (sp.play + udpServerExtra).String()}, sp.server...)...)
	time.Sleep(200 * time.Millisecond) // the server's socket opens in milliseconds
	return c
}

// join starts honest bot clients, each playing for the class's time.
func (c *class) join(names ...string) {
	for _, name := range names {
		to := c.addr
		if a, ok := c.sp.connect[name]; ok {
			to = a
		}
		c.start(name, c.clientBin, append([]string{"--connect", to, "--bot", "--quiet", "--name", name, "--seed", strconv.Itoa(len(c.hosts)),
			"--identity", filepath.Join(c.dir, name+".identity"), "--duration", c.sp.play.String()}, c.sp.client[name]...)...)
	}
}

func (c *class) start(name, bin string, args ...string) {
	c.hosts = append(c.hosts, startHost(c.t, c.ctx, c.dir, name, bin, append(args, classLink...)...))
}

// finish waits for every process: each must exit 0 and write its report. When the test
// failed, it logs every process's output and log.
func (c *class) finish() (server game.Report, clients map[string]game.Report) {
	t := c.t
	t.Helper()
	defer func() {
		if t.Failed() {
			for _, h := range c.hosts {
				log, _ := os.ReadFile(h.log)
				out, _ := os.ReadFile(h.out)
				t.Logf("%s: standard output and error:\n%s\nlog:\n%s", h.name, out, log)
			}
		}
	}()
	clients = map[string]game.Report{}
	for _, h := range c.hosts {
		if err := h.cmd.Wait(); err != nil {
			t.Errorf("%s: %v", h.name, err)
		}
	}
	for i, h := range c.hosts {
		r, err := readReport(h.stats)
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if i == 0 {
			server = r
		} else {
			clients[h.name] = r
		}
	}
	return server, clients
}

// checkHonest: every honest client played to the end and its world equals the server's at
// every settled frame both kept; nobody was paused or repaired unless allowed.
func checkHonest(t *testing.T, server game.Report, clients map[string]game.Report, resyncsAllowed bool) {
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

// attacker is one connection of the student's program: a transport client on its own socket,
// its own owner loop, and a log of every game message it got.
type attacker struct {
	t    *testing.T
	c    *transport.Client
	do   chan func(now time.Time)
	done chan struct{}

	mu      sync.Mutex
	got     []game.Msg
	players map[uint8]game.PlayerInfo
	onMsg   func(a *attacker, now time.Time, m game.Msg) // on the loop, after logging
}

// dialAttacker connects to addr (a server, or a client's direct-link socket) with cfg, from
// a socket of its own on the loopback address the server is on.
func dialAttacker(t *testing.T, addr string, cfg transport.ClientConfig, onMsg func(a *attacker, now time.Time, m game.Msg)) *attacker {
	return dialAttackerFrom(t, "", addr, cfg, onMsg)
}

// attackerSeeds numbers each test's attacker connections, by the test's name.
var attackerSeeds sync.Map // test name → *atomic.Uint64

// attackerSeed is the link seed of the test's next attacker connection: derived from the
// test's name and the connection's number in it, so that a run's seeds are the same every time
// (the timing of real sockets still varies) and the log says which they were.
func attackerSeed(t *testing.T) uint64 {
	n, _ := attackerSeeds.LoadOrStore(t.Name(), new(atomic.Uint64))
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return h.Sum64() + n.(*atomic.Uint64).Add(1)
}

// dialAttackerFrom is dialAttacker from a socket on local ("127.0.20.1:0"; "": the default).
func dialAttackerFrom(t *testing.T, local, addr string, cfg transport.ClientConfig, onMsg func(a *attacker, now time.Time, m game.Msg)) *attacker {
	t.Helper()
	a := &attacker{t: t, do: make(chan func(time.Time), 64), done: make(chan struct{}), players: map[uint8]game.PlayerInfo{}, onMsg: onMsg}
	if cfg.Name == "" {
		cfg.Name = "eve"
	}
	if cfg.PlayerID == uuid.Nil {
		cfg.PlayerID = uuid.New()
	}
	link := attackerLink
	cfg.Link = &link
	cfg.LinkSeed = attackerSeed(t)
	t.Logf("attacker %q from %q: link seed %d", cfg.Name, local, cfg.LinkSeed)
	cfg.OnMessage = func(_ *transport.Peer, now time.Time, m *message.Message) {
		msg, err := game.ParseMsg(m.Payload)
		if err != nil {
			return
		}
		a.mu.Lock()
		a.got = append(a.got, msg)
		if pi, ok := msg.(*game.PlayerInfo); ok {
			a.players[pi.Seat] = *pi
		}
		a.mu.Unlock()
		if a.onMsg != nil {
			a.onMsg(a, now, msg)
		}
	}
	var c *transport.Client
	var err error
	if local == "" {
		c, err = transport.Dial(addr, cfg)
	} else {
		var pc net.PacketConn
		var srv netip.AddrPort
		if pc, err = net.ListenPacket("udp", local); err == nil {
			if srv, err = transport.ResolveServer(addr); err == nil {
				c, err = transport.DialOn(pc, srv, cfg)
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	a.c = c
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(a.done)
		transport.Run(ctx, c, a.do)
	}()
	t.Cleanup(func() {
		cancel()
		<-a.done
		c.Close()
	})
	return a
}

// send sends m as a guaranteed message on the attacker's connection (false: not connected).
func (a *attacker) send(m game.Msg) bool {
	return a.call(func(now time.Time) bool { return a.sendNow(now, m) })
}

// sendNow is send on the attacker's loop (in onMsg).
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
func (a *attacker) sendRaw(payload []byte) bool {
	return a.call(func(now time.Time) bool { return a.sendRawNow(now, payload) })
}

func (a *attacker) sendRawNow(now time.Time, b []byte) bool {
	p := a.c.Peer()
	if p == nil || !p.Connected() {
		return false
	}
	_, err := p.Conn().SendGuaranteed(now, b, nil, nil)
	return err == nil
}

// call runs f on the attacker's loop and returns its answer (false once the loop ended).
func (a *attacker) call(f func(now time.Time) bool) bool {
	res := make(chan bool, 1)
	select {
	case a.do <- func(now time.Time) { res <- f(now) }:
	case <-a.done:
		return false
	}
	select {
	case ok := <-res:
		return ok
	case <-a.done:
		return false
	}
}

// waitFor polls cond for up to d.
func (a *attacker) waitFor(d time.Duration, what string, cond func() bool) {
	a.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the attacker waited %v for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// seated waits until the attacker knows the seats of names, and returns them by name.
func (a *attacker) seated(names ...string) map[string]game.PlayerInfo {
	a.t.Helper()
	out := map[string]game.PlayerInfo{}
	a.waitFor(20*time.Second, "the players' seats", func() bool {
		for _, pi := range a.seats() {
			out[pi.Name] = pi
		}
		for _, n := range names {
			if !out[n].Connected {
				return false
			}
		}
		return true
	})
	return out
}

// seats returns a copy of what the attacker knows of the seats.
func (a *attacker) seats() map[uint8]game.PlayerInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[uint8]game.PlayerInfo, len(a.players))
	for s, pi := range a.players {
		out[s] = pi
	}
	return out
}

// ended waits for the connection to end and returns how (the reason and text the other side
// gave, or the handshake's error).
func (a *attacker) ended(d time.Duration) (transport.ClientStats, bool) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if st := a.c.Stats(); st.State == transport.Disconnected {
			return st, true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return a.c.Stats(), false
}

// count returns how many messages of type T the attacker got.
func count[T game.Msg](a *attacker) (n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.got {
		if _, ok := m.(T); ok {
			n++
		}
	}
	return n
}

// latest returns the last message of type T the attacker got.
func latest[T game.Msg](a *attacker) (m T, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
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

// relay is an on-path observer: a client connects to it as to the server, and it forwards
// each way, keeping a copy of every datagram the client sent. It can send its own to the
// server from the address the server knows the client by.
type relay struct {
	front, back *transport.Socket // the client's side; the server's side
	mu          sync.Mutex
	seen        [][]byte // the client's datagrams, the first maxSeen
	done        chan struct{}
}

const maxSeen = 10000

// startRelay forwards between a client and server, dropping nothing of its own (the hosts'
// link conditioners do the losing).
func startRelay(t *testing.T, server string) (r *relay, addr string) {
	t.Helper()
	front, err := transport.OpenSocket("127.0.0.1:0", transport.SocketOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := transport.OpenSocket("127.0.0.1:0", transport.SocketOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := transport.ResolveServer(server)
	if err != nil {
		t.Fatal(err)
	}
	r = &relay{front: front, back: back, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(r.done)
		var cl netip.AddrPort // the client, once it spoke
		known := false
		for {
			select {
			case <-ctx.Done():
				return
			case d, ok := <-front.Datagrams():
				if !ok {
					return
				}
				if !known {
					cl, known = d.From, true
				}
				r.mu.Lock()
				if len(r.seen) < maxSeen {
					r.seen = append(r.seen, append([]byte(nil), d.Data...))
				}
				r.mu.Unlock()
				if d.From == cl {
					back.WriteTo(d.Data, srv)
				}
				front.Release(d)
			case d, ok := <-back.Datagrams():
				if !ok {
					return
				}
				if known && d.From == srv {
					front.WriteTo(d.Data, cl)
				}
				back.Release(d)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
		front.Close()
		back.Close()
	})
	return r, front.LocalAddr().String()
}

// captured returns copies of the client's datagrams seen so far.
func (r *relay) captured() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([][]byte, len(r.seen))
	copy(out, r.seen)
	return out
}

// inject sends b to the server from the relay's server-side address: as the client, to the
// server's eyes.
func (r *relay) inject(t *testing.T, server string, b []byte) {
	srv, err := transport.ResolveServer(server)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.back.WriteTo(b, srv); err != nil && !errors.Is(err, transport.ErrClosed) {
		t.Errorf("relay: %v", err)
	}
}
