package game

import (
	"bytes"
	"fmt"
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
	// sparse ticks each host at its own deadlines (Virtual.TickAtDeadlines): a game of 41
	// hosts runs several times faster.
	sparse bool
}

// vgame is a game in virtual time (Virtual) with the hosts the tests drive.
type vgame struct {
	*Virtual
	t       testing.TB
	spec    vspec
	srv     *Server
	srvAddr netip.AddrPort
	clients []*Client // in the order they joined; a vanished one stays, gone[i] true
	caddrs  []netip.AddrPort
	gone    []bool
	traces  []*bytes.Buffer // the clients' in join order, then the server's last
	keys    *vKeys          // every connection's keys, to read what the tap sees
}

// newVGame starts the server and the spec's clients (not yet connected: run moves time).
func newVGame(t testing.TB, sp vspec) *vgame {
	t.Helper()
	if sp.seed == 0 {
		sp.seed = 1
	}
	g := &vgame{Virtual: NewVirtual(sp.seed), t: t, spec: sp, keys: newVKeys()}
	if sp.sparse {
		g.TickAtDeadlines()
	}
	g.srvAddr = netip.MustParseAddrPort("127.0.0.1:7777")
	trace := new(bytes.Buffer)
	cfg := ServerConfig{Bots: sp.bots, Seed: sp.seed, MinPlayers: sp.clients, StartDelay: 500 * time.Millisecond, Trace: trace}
	cfg.Transport.Rand = SeededRand(sp.seed, 0)
	cfg.Transport.DebugViews = true
	cfg.Transport.KeyLog = g.keys.log(g.srvAddr)
	// The players take direct links whatever their round trips, as the tests of the links
	// want (the auto mode's own tests set it).
	cfg.Orders.Direct = DirectOn
	if sp.server != nil {
		sp.server(&cfg)
	}
	srv, err := NewServer(cfg, g.Writer(g.addNode(g.srvAddr)))
	if err != nil {
		t.Fatal(err)
	}
	g.srv = srv
	for _, st := range srv.seats.players {
		if st != nil && st.bot != nil {
			st.bot.chatGap = vgameBotChat
		}
	}
	g.Attach(g.srvAddr, srv)
	g.traces = append(g.traces, trace)
	for range sp.clients {
		g.join(nil)
	}
	return g
}

// vgameBotChat: the bots of a test game chat every 2 to 5 s (a class's game: 20 to 50 s), so
// that the chat chains carry lines under loss for the checks to follow.
const vgameBotChat = 20 // frames

// addNode adds a node for addr, linked to every node before it with the spec's link.
func (g *vgame) addNode(addr netip.AddrPort) *linksim.Node { return g.AddNode(addr, g.spec.link) }

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

// joinLinkedTo is join for a client linked to the server and to the nodes at peers alone (a
// player who joins a game whose other nodes are gone or only watch).
func (g *vgame) joinLinkedTo(edit func(c *ClientConfig), peers []netip.AddrPort) int {
	g.t.Helper()
	return g.joinOn(edit, func(addr netip.AddrPort) *linksim.Node {
		node := g.AddNodeLinkedTo(addr, g.srvAddr, g.spec.link)
		for _, p := range peers {
			g.nw.Link(addr.String(), p.String(), g.spec.link, g.spec.link)
		}
		return node
	})
}

func (g *vgame) joinLinked(edit func(c *ClientConfig), toAll bool) int {
	g.t.Helper()
	return g.joinOn(edit, func(addr netip.AddrPort) *linksim.Node {
		if toAll {
			return g.addNode(addr)
		}
		return g.AddNodeLinkedTo(addr, g.srvAddr, g.spec.link)
	})
}

// joinOn starts another bot client on a new address, its node made by newNode.
func (g *vgame) joinOn(edit func(c *ClientConfig), newNode func(netip.AddrPort) *linksim.Node) int {
	g.t.Helper()
	i := len(g.clients)
	return g.joinAt(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 1, byte(1 + i%250)}), uint16(40000+i)), edit, newNode)
}

// joinWatcherAt is joinWatcher from addr: a client of another network, or of the server's
// own host.
func (g *vgame) joinWatcherAt(addr netip.AddrPort, edit func(c *ClientConfig)) int {
	g.t.Helper()
	return g.joinAt(addr, edit, func(addr netip.AddrPort) *linksim.Node { return g.AddNodeLinkedTo(addr, g.srvAddr, g.spec.link) })
}

// joinAt starts another bot client at addr, its node made by newNode.
func (g *vgame) joinAt(addr netip.AddrPort, edit func(c *ClientConfig), newNode func(netip.AddrPort) *linksim.Node) int {
	g.t.Helper()
	i := len(g.clients)
	trace := new(bytes.Buffer)
	cfg := ClientConfig{Name: fmt.Sprintf("c%d", i+1), Bot: true, Seed: uint64(i + 1), Trace: trace,
		PlayerID: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "vgame %d player %d", g.spec.seed, i))}
	cfg.Transport.Rand = SeededRand(g.spec.seed, uint64(i+1))
	cfg.Transport.DebugViews = true
	cfg.Transport.KeyLog = g.keys.log(addr)
	if g.spec.client != nil {
		g.spec.client(i, &cfg)
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := NewClient(cfg, g.Writer(newNode(addr)), g.srvAddr)
	if err != nil {
		g.t.Fatal(err)
	}
	if c.bot != nil {
		c.bot.chatGap = vgameBotChat
	}
	g.clients = append(g.clients, c)
	g.caddrs = append(g.caddrs, addr)
	g.gone = append(g.gone, false)
	g.traces = append(g.traces[:len(g.traces)-1], trace, g.traces[len(g.traces)-1])
	g.Attach(addr, c)
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
func (g *vgame) run(d time.Duration) { g.Run(d) }

// runUntil moves time until end, or until cond (checked after every step) holds; it reports
// whether cond held.
func (g *vgame) runUntil(end time.Time, cond func() bool) bool { return g.RunUntil(end, cond) }

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
