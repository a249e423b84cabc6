package game

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// A whole game in virtual time: a server session, client sessions and their direct links, all
// over one linksim.Network, with no socket, no goroutine and no wall clock. The network's
// clock is the game's: the harness moves it to the next datagram or the next deadline any
// host reported, hands the datagrams to their hosts and ticks every host. Everything random
// is seeded (the link's losses, the key pairs of the handshakes, the bots), so the same spec gives the
// same run, byte for byte, and a minute of play takes a fraction of that in wall time.

// vspec describes a game in virtual time.
type vspec struct {
	seed    uint64
	bots    int              // the server's own bots
	clients int              // bot clients started at once (more with join)
	link    linksim.Settings // every link, both directions: server↔client and client↔client
	server  func(*ServerConfig)
	client  func(i int, c *ClientConfig)
	// sparse ticks a host only when its deadline has come or a datagram came for it, as a
	// real host loop does, instead of every host at every step of the clock: a game of 41
	// hosts then runs several times faster. A test that changes a session from outside (a
	// Say) sees it act by that session's next deadline, at most a snapshot period (100 ms)
	// later.
	sparse bool
}

// vgame is a game in virtual time.
type vgame struct {
	t       testing.TB
	spec    vspec
	nw      *linksim.Network
	now     time.Time
	srv     *Server
	srvAddr netip.AddrPort
	clients []*Client // in the order they joined; a vanished one stays, gone[i] true
	caddrs  []netip.AddrPort
	gone    []bool
	traces  []*bytes.Buffer // the clients' in join order, then the server's last
	hosts   map[string]Session
	order   []string // hosts by name in the order they were added: ticks go in this order
	names   []string // every node ever added, for links to new ones
	dgrams  []linksim.Datagram
	tap     func(linksim.Datagram)
	keys    *vKeys               // every connection's keys, to read what the tap sees
	due     map[string]time.Time // sparse: when each host is next ticked (zero: at once)
}

// vWriter sends a host's datagrams into the network from its node.
type vWriter struct{ node *linksim.Node }

func (w vWriter) WriteTo(b []byte, to netip.AddrPort) error { return w.node.Send(to.String(), b) }

// seededRand is a deterministic source for the handshakes' key pairs, secrets and command ids.
func seededRand(seed uint64, who uint64) *rand.ChaCha8 {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	binary.LittleEndian.PutUint64(key[8:], who)
	return rand.NewChaCha8(key)
}

// newVGame starts the server and the spec's clients (not yet connected: run moves time).
func newVGame(t testing.TB, sp vspec) *vgame {
	t.Helper()
	if sp.seed == 0 {
		sp.seed = 1
	}
	g := &vgame{t: t, spec: sp, nw: linksim.NewNetwork(sp.seed), hosts: map[string]Session{}, keys: newVKeys(), due: map[string]time.Time{}}
	g.now = g.nw.Now()
	g.srvAddr = netip.MustParseAddrPort("127.0.0.1:7777")
	trace := new(bytes.Buffer)
	cfg := ServerConfig{Bots: sp.bots, Seed: sp.seed, MinPlayers: sp.clients, StartDelay: 500 * time.Millisecond, Trace: trace}
	cfg.Transport.Rand = seededRand(sp.seed, 0)
	cfg.Transport.DebugViews = true
	cfg.Transport.KeyLog = g.keys.log(g.srvAddr)
	if sp.server != nil {
		sp.server(&cfg)
	}
	node := g.addNode(g.srvAddr)
	srv, err := NewServer(cfg, vWriter{node})
	if err != nil {
		t.Fatal(err)
	}
	g.srv = srv
	g.hosts[g.srvAddr.String()] = srv
	g.order = append(g.order, g.srvAddr.String())
	g.traces = append(g.traces, trace)
	for range sp.clients {
		g.join(nil)
	}
	return g
}

// addNode adds a node for addr, linked to every node before it.
func (g *vgame) addNode(addr netip.AddrPort) *linksim.Node {
	name := addr.String()
	for _, other := range g.names {
		g.nw.Link(name, other, g.spec.link, g.spec.link)
	}
	g.names = append(g.names, name)
	return g.nw.AddNode(name)
}

// join starts another bot client (its configuration changed by edit, if not nil) on a new
// address and returns its index. It connects as time runs.
func (g *vgame) join(edit func(c *ClientConfig)) int {
	g.t.Helper()
	return g.joinLinked(edit, true)
}

// joinWatcher is join for a client that talks to the server alone (a spectator): its node is
// linked to the server's only. A network of 41 hosts then has a few dozen links instead of
// 820, and moves its clock that much faster.
func (g *vgame) joinWatcher(edit func(c *ClientConfig)) int {
	g.t.Helper()
	return g.joinLinked(edit, false)
}

func (g *vgame) joinLinked(edit func(c *ClientConfig), toAll bool) int {
	g.t.Helper()
	i := len(g.clients)
	addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 1, byte(1 + i%250)}), uint16(40000+i))
	trace := new(bytes.Buffer)
	cfg := ClientConfig{Name: fmt.Sprintf("c%d", i+1), Bot: true, Seed: uint64(i + 1), Trace: trace,
		PlayerID: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "vgame %d player %d", g.spec.seed, i))}
	cfg.Transport.Rand = seededRand(g.spec.seed, uint64(i+1))
	cfg.Transport.DebugViews = true
	cfg.Transport.KeyLog = g.keys.log(addr)
	if g.spec.client != nil {
		g.spec.client(i, &cfg)
	}
	if edit != nil {
		edit(&cfg)
	}
	var node *linksim.Node
	if toAll {
		node = g.addNode(addr)
	} else {
		node = g.nw.AddNode(addr.String())
		g.nw.Link(addr.String(), g.srvAddr.String(), g.spec.link, g.spec.link)
	}
	c, err := NewClient(cfg, vWriter{node}, g.srvAddr)
	if err != nil {
		g.t.Fatal(err)
	}
	g.clients = append(g.clients, c)
	g.caddrs = append(g.caddrs, addr)
	g.gone = append(g.gone, false)
	g.traces = append(g.traces[:len(g.traces)-1], trace, g.traces[len(g.traces)-1])
	g.hosts[addr.String()] = c
	g.order = append(g.order, addr.String())
	return i
}

// vanish makes client i disappear without a word, as a killed process does: its datagrams
// stop, and what is sent to it is lost.
func (g *vgame) vanish(i int) {
	g.gone[i] = true
	delete(g.hosts, g.caddrs[i].String())
}

// leave makes client i quit cleanly (its server learns why), then vanish.
func (g *vgame) leave(i int) {
	g.clients[i].Shutdown(g.now)
	g.vanish(i)
}

// run moves time forward by d.
func (g *vgame) run(d time.Duration) { g.runUntil(g.now.Add(d), nil) }

// runUntil moves time until end, or until cond (checked after every step) holds; it reports
// whether cond held.
func (g *vgame) runUntil(end time.Time, cond func() bool) bool {
	for {
		for _, name := range g.order {
			h := g.hosts[name]
			if h == nil || g.spec.sparse && g.now.Before(g.due[name]) {
				continue
			}
			h.Tick(g.now)
			if g.spec.sparse {
				g.due[name] = h.NextDeadline(g.now)
			}
		}
		if cond != nil && cond() {
			return true
		}
		if !g.now.Before(end) {
			return false
		}
		next := end
		for _, name := range g.order {
			if h := g.hosts[name]; h != nil {
				d := g.due[name]
				if !g.spec.sparse {
					d = h.NextDeadline(g.now)
				}
				if !d.IsZero() && d.Before(next) {
					next = d
				}
			}
		}
		// A real loop sleeps at least a millisecond too: a deadline already due after a Tick
		// (a paced sender waiting for acks) must not spin.
		next = maxTime(next, g.now.Add(time.Millisecond))
		g.now, g.dgrams = g.nw.Step(next, g.dgrams[:0])
		for _, d := range g.dgrams {
			if g.tap != nil {
				g.tap(d)
			}
			h := g.hosts[d.To]
			if h == nil {
				continue // sent to a host that vanished
			}
			from, err := netip.ParseAddrPort(d.From)
			if err != nil {
				g.t.Fatal(err)
			}
			h.Handle(g.now, transport.Datagram{From: from, Data: d.Data})
			g.due[d.To] = time.Time{} // ticked at once, as a host loop does after a datagram
		}
	}
}

// waitFor runs until cond holds, failing the test after max of virtual time.
func (g *vgame) waitFor(max time.Duration, what string, cond func() bool) {
	g.t.Helper()
	if !g.runUntil(g.now.Add(max), cond) {
		g.t.Fatalf("not within %v of game time: %s", max, what)
	}
}

// result ends the game (every host shuts down) and returns the reports, as the binaries
// write them at exit.
func (g *vgame) result() sessionResult {
	var res sessionResult
	for i, c := range g.clients {
		if !g.gone[i] {
			c.Shutdown(g.now)
		}
		res.clients = append(res.clients, c.Report())
	}
	g.srv.Shutdown(g.now)
	res.server = g.srv.Report()
	res.traces = g.traces
	return res
}

// live are the clients still in the game.
func (g *vgame) live() []*Client {
	var out []*Client
	for i, c := range g.clients {
		if !g.gone[i] {
			out = append(out, c)
		}
	}
	return out
}

// vKeys reads the datagrams of a game in virtual time as an independent decoder holding the
// keys would (net/PROTOCOL.md section 3): every host's transport tells it the keys of its
// connections (transport.Config.KeyLog), and it follows each direction's counter as a
// receiver does.
type vKeys struct {
	keys map[[2]string]*wire.SealKey // by (from, to)
	raw  map[[2]string][wire.KeySize]byte
	next map[[2]string]uint64
	buf  []byte
}

func newVKeys() *vKeys {
	return &vKeys{keys: map[[2]string]*wire.SealKey{}, raw: map[[2]string][wire.KeySize]byte{}, next: map[[2]string]uint64{},
		buf: make([]byte, 0, wire.MaxDatagram)}
}

// log is the key log of the host at self.
func (k *vKeys) log(self netip.AddrPort) func(transport.ConnKeys) {
	return func(c transport.ConnKeys) {
		k.set([2]string{self.String(), c.Peer.String()}, c.Send)
		k.set([2]string{c.Peer.String(), self.String()}, c.Recv)
	}
}

// set records the key of a direction (both ends tell it; a new connection brings a new one).
func (k *vKeys) set(dir [2]string, key [wire.KeySize]byte) {
	if old, ok := k.raw[dir]; ok && old == key {
		return
	}
	k.raw[dir], k.keys[dir], k.next[dir] = key, wire.NewSealKey(&key), 0
}

// open returns the packet a datagram from → to carries, from its type byte on: a handshake
// datagram opens with the plain frame, any other with the keys of its direction. ok is false
// for a datagram that opens neither way. The packet is valid until the next call; d is not
// changed.
func (k *vKeys) open(from, to string, d []byte) (packet []byte, ok bool) {
	if p, err := wire.OpenDatagram(d, 0); err == nil {
		return p, true
	}
	dir := [2]string{from, to}
	key := k.keys[dir]
	if key == nil {
		return nil, false
	}
	p, counter, err := key.Open(k.buf[:0], d, k.next[dir])
	if err != nil {
		return nil, false
	}
	k.next[dir] = max(k.next[dir], counter+1)
	return p, true
}

// sessionResult is what a game leaves behind.
type sessionResult struct {
	server  Report
	clients []Report
	traces  []*bytes.Buffer // one per client, then the server's
}
