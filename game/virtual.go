package game

import (
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// Virtual runs the hosts of a game over a linksim.Network in virtual time: no socket, no
// goroutine, no wall clock. The sessions do no I/O (Session), so the same code that runs on a
// real socket in game/hostloop runs here on the network's clock: RunUntil moves that clock to
// the next datagram or the next deadline any host reported, hands the datagrams to their hosts
// and ticks every host. With seeded sessions (SeededRand for the handshakes' keys, a seed for
// each bot) the same calls give the same game, byte for byte, and a minute of play takes a
// fraction of that in wall time. The tests play whole games this way, and so do the
// experiments of cmd/netlab.
//
// A Virtual is not safe for concurrent use: the caller's goroutine runs every host.
type Virtual struct {
	nw     *linksim.Network
	now    time.Time
	hosts  map[string]Session // by address; a host that vanished is not here
	order  []string           // hosts by address in the order they were added: ticks go in this order
	names  []string           // every node ever added, for links to new ones
	dgrams []linksim.Datagram
	tap    func(linksim.Datagram)
	sent   func(from, to string, data []byte, fate linksim.Fate)
	// due, once TickAtDeadlines is on, is when each host is next ticked (zero: at once).
	due map[string]time.Time
}

// NewVirtual returns an empty game whose network draws its losses from seed.
func NewVirtual(seed uint64) *Virtual {
	nw := linksim.NewNetwork(seed)
	return &Virtual{nw: nw, now: nw.Now(), hosts: map[string]Session{}}
}

// Now is the game's clock.
func (v *Virtual) Now() time.Time { return v.now }

// Network is the network the hosts talk over: to change a link while the game runs, or read
// what its conditioners did.
func (v *Virtual) Network() *linksim.Network { return v.nw }

// Tap, if f is not nil, sees every datagram the network delivers, before its host does.
func (v *Virtual) Tap(f func(linksim.Datagram)) { v.tap = f }

// AddNode adds a node for addr, linked to every node before it with link in both directions.
// A session at addr sends through NodeWriter(node).
func (v *Virtual) AddNode(addr netip.AddrPort, link linksim.Settings) *linksim.Node {
	name := addr.String()
	for _, other := range v.names {
		v.nw.Link(name, other, link, link)
	}
	v.names = append(v.names, name)
	return v.nw.AddNode(name)
}

// AddNodeLinkedTo adds a node for addr linked to the node at to alone, with link in both
// directions: a host that talks to one other (a spectator, to its server) costs the network
// one link, not one to every node, and the network steps that much faster. A node added after
// it with AddNode is linked to it as to every other.
func (v *Virtual) AddNodeLinkedTo(addr, to netip.AddrPort, link linksim.Settings) *linksim.Node {
	name := addr.String()
	v.nw.Link(name, to.String(), link, link)
	v.names = append(v.names, name)
	return v.nw.AddNode(name)
}

// TickAtDeadlines ticks each host only when its own deadline has come or a datagram came for
// it, as a real host loop does, instead of every host at every step of the clock. A game of
// many hosts runs several times faster. What a caller changes in a session from outside (a
// chat line said) then acts by that session's next deadline: at most a snapshot period
// (100 ms) later.
func (v *Virtual) TickAtDeadlines() { v.due = map[string]time.Time{} }

// Attach makes s the host at addr (a node AddNode added): from now on it receives what is
// sent to addr and is ticked. Attaching another session at the same address replaces the
// first, as a wrapper that counts a host's calls does.
func (v *Virtual) Attach(addr netip.AddrPort, s Session) {
	name := addr.String()
	if _, ok := v.hosts[name]; !ok {
		v.order = append(v.order, name)
	}
	v.hosts[name] = s
}

// OnSend, if f is not nil, is shown every datagram a host sends through a Writer, with what
// the link did with it (passed, dropped, duplicated): what a capture of that host records.
func (v *Virtual) OnSend(f func(from, to string, data []byte, fate linksim.Fate)) { v.sent = f }

// Writer is the transport.Writer of a host at node: it sends into the network from there.
func (v *Virtual) Writer(node *linksim.Node) transport.Writer { return nodeWriter{node, v} }

type nodeWriter struct {
	node *linksim.Node
	v    *Virtual
}

func (w nodeWriter) WriteTo(b []byte, to netip.AddrPort) error {
	if w.v.sent == nil {
		return w.node.Send(to.String(), b)
	}
	// The link decides a datagram's fate as it is sent: its counters say which.
	c := w.v.nw.Conditioner(w.node.Name(), to.String())
	var before linksim.Stats
	if c != nil {
		before = c.Stats()
	}
	err := w.node.Send(to.String(), b)
	if c != nil && err == nil {
		fate, after := linksim.Passed, c.Stats()
		switch {
		case after.Dropped > before.Dropped:
			fate = linksim.Dropped
		case after.Duplicated > before.Duplicated:
			fate = linksim.Duplicated
		}
		w.v.sent(w.node.Name(), to.String(), b, fate)
	}
	return err
}

// Run moves time forward by d.
func (v *Virtual) Run(d time.Duration) { v.RunUntil(v.now.Add(d), nil) }

// RunUntil moves time until end, or until cond (checked after every step) holds; it reports
// whether cond held. Between two steps the caller may read and drive any host.
func (v *Virtual) RunUntil(end time.Time, cond func() bool) bool {
	for {
		for _, name := range v.order {
			h := v.hosts[name]
			if h == nil || v.due != nil && v.now.Before(v.due[name]) {
				continue
			}
			h.Tick(v.now)
			if v.due != nil {
				v.due[name] = h.NextDeadline(v.now)
			}
		}
		if cond != nil && cond() {
			return true
		}
		if !v.now.Before(end) {
			return false
		}
		next := end
		for _, name := range v.order {
			if h := v.hosts[name]; h != nil {
				d, ok := v.due[name]
				if !ok {
					d = h.NextDeadline(v.now)
				}
				if !d.IsZero() && d.Before(next) {
					next = d
				}
			}
		}
		// A real loop sleeps at least a millisecond too: a deadline already due after a Tick
		// (a paced sender waiting for acks) must not spin.
		next = maxTime(next, v.now.Add(time.Millisecond))
		v.now, v.dgrams = v.nw.Step(next, v.dgrams[:0])
		for _, d := range v.dgrams {
			if v.tap != nil {
				v.tap(d)
			}
			h := v.hosts[d.To]
			if h == nil {
				continue // sent to a host that vanished
			}
			from, err := netip.ParseAddrPort(d.From)
			if err != nil {
				continue // every node is named by its address: cannot happen
			}
			h.Handle(v.now, transport.Datagram{From: from, Data: d.Data})
			if v.due != nil {
				v.due[d.To] = time.Time{} // ticked at once, as a host loop does after a datagram
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

// SeededRand is a deterministic source for a host's handshake key pairs, secrets and command
// ids (transport's Config.Rand), one stream per seed and host (who): what makes a game in
// virtual time repeat byte for byte. Never for a real game: its secrets would be guessable.
func SeededRand(seed uint64, who uint64) *rand.ChaCha8 {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	binary.LittleEndian.PutUint64(key[8:], who)
	return rand.NewChaCha8(key)
}
