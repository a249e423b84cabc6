package linksim

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"time"
)

var (
	// ErrUnknownNode is wrapped by errors about a node name that was never added.
	ErrUnknownNode = errors.New("linksim: unknown node")
	// ErrNoLink is wrapped by errors about two nodes that exist but are not linked.
	ErrNoLink = errors.New("linksim: no link")
)

// Datagram is one delivery out of a Network.
type Datagram struct {
	From, To string
	Data     []byte // owned by the receiver
}

// Network is a set of named nodes joined by conditioned links, all sharing one virtual clock.
// It exists so that two or more protocol endpoints can talk to each other in a test: the test
// sends through Nodes, calls Step to move time to the next arrival, and hands each Datagram to
// the endpoint named in To.
//
// The clock starts at time.Unix(1_000_000, 0) and only moves forward, through Step and
// Advance. Nothing happens between calls; a Network is not safe for concurrent use.
type Network struct {
	seed    uint64
	start   time.Time // the clock's first reading, and every link's epoch
	now     time.Time
	nodes   map[string]*Node
	links   map[route]*Conditioner
	order   []route   // links in creation order, so every walk over them is repeatable
	seq     uint64    // send order across all links, so ties between links go by send order
	scratch []arrival // reused by Step
}

// route is one direction of a link.
type route struct{ from, to string }

// arrival is a due delivery together with the link it came over, while Step merges links.
type arrival struct {
	delivery
	r route
}

// Node is one endpoint of a Network.
type Node struct {
	net  *Network
	name string
}

// NewNetwork returns an empty network. The seeds of its links are derived from seed and the
// names of their ends, so the same seed and the same calls give the same deliveries.
func NewNetwork(seed uint64) *Network {
	start := time.Unix(1_000_000, 0)
	return &Network{
		seed:  seed,
		start: start,
		now:   start,
		nodes: make(map[string]*Node),
		links: make(map[route]*Conditioner),
	}
}

// Now returns the network's clock.
func (n *Network) Now() time.Time { return n.now }

// AddNode returns the node called name, adding it first if it does not exist yet.
func (n *Network) AddNode(name string) *Node {
	if nd, ok := n.nodes[name]; ok {
		return nd
	}
	nd := &Node{net: n, name: name}
	n.nodes[name] = nd
	return nd
}

// Link joins a and b (adding either if needed) with ab impairing a→b and ba impairing b→a.
// Each direction gets its own Conditioner, seeded from the network seed and the two names in
// that order. Linking an already linked pair just changes its settings, as SetLink does.
//
// Link panics if a == b or if either Settings is invalid; both are mistakes in the code that
// builds the network.
func (n *Network) Link(a, b string, ab, ba Settings) {
	if a == b {
		panic(fmt.Sprintf("linksim: cannot link node %q to itself", a))
	}
	for _, s := range []Settings{ab, ba} {
		if err := s.Validate(); err != nil {
			panic(err)
		}
	}
	n.AddNode(a)
	n.AddNode(b)
	n.setOrAdd(route{a, b}, ab)
	n.setOrAdd(route{b, a}, ba)
}

func (n *Network) setOrAdd(r route, s Settings) {
	if c, ok := n.links[r]; ok {
		_ = c.SetSettings(s) // validated by the caller
		return
	}
	c := NewConditioner(deriveSeed(n.seed, r), s)
	c.seq = &n.seq
	c.epoch, c.hasEpoch = n.start, true
	n.links[r] = c
	n.order = append(n.order, r)
}

// deriveSeed mixes the network seed with the direction's names (FNV-1a, then the SplitMix64
// finalizer), so that every direction draws from its own stream and adding a link does not
// change the streams of the others.
func deriveSeed(seed uint64, r route) uint64 {
	h := fnv.New64a()
	h.Write([]byte(r.from))
	h.Write([]byte{0}) // keeps ("ab","c") apart from ("a","bc")
	h.Write([]byte(r.to))
	z := seed ^ h.Sum64()
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// SetLink changes the settings of an existing link, ab for a→b and ba for b→a. The changes
// apply to datagrams sent afterwards. It fails, changing nothing, if the nodes are not linked
// or either Settings is invalid.
func (n *Network) SetLink(a, b string, ab, ba Settings) error {
	cab, cba := n.links[route{a, b}], n.links[route{b, a}]
	if cab == nil || cba == nil {
		return n.missing(a, b)
	}
	if err := ab.Validate(); err != nil {
		return fmt.Errorf("%s→%s: %w", a, b, err)
	}
	if err := ba.Validate(); err != nil {
		return fmt.Errorf("%s→%s: %w", b, a, err)
	}
	_ = cab.SetSettings(ab)
	_ = cba.SetSettings(ba)
	return nil
}

// missing explains why there is no route from a to b.
func (n *Network) missing(from, to string) error {
	for _, name := range []string{from, to} {
		if _, ok := n.nodes[name]; !ok {
			return fmt.Errorf("%w %q", ErrUnknownNode, name)
		}
	}
	return fmt.Errorf("%w between %q and %q", ErrNoLink, from, to)
}

// Conditioner returns the conditioner of the direction from→to, or nil if there is none. Use
// it to read Stats or to change one direction's settings.
func (n *Network) Conditioner(from, to string) *Conditioner {
	return n.links[route{from, to}]
}

// Name returns the node's name.
func (nd *Node) Name() string { return nd.name }

// Send offers b to the link towards the node called to, at the network's current time. The
// datagram is copied. It fails if there is no such node or no link to it.
func (nd *Node) Send(to string, b []byte) error {
	c := nd.net.links[route{nd.name, to}]
	if c == nil {
		return fmt.Errorf("send from %q: %w", nd.name, nd.net.missing(nd.name, to))
	}
	c.Send(nd.net.now, b)
	return nil
}

// NextEvent returns the earliest delivery time over all links, and false if nothing is in
// flight.
func (n *Network) NextEvent() (time.Time, bool) {
	var next time.Time
	found := false
	for _, r := range n.order {
		if t, ok := n.links[r].NextDelivery(); ok && (!found || t.Before(next)) {
			next, found = t, true
		}
	}
	return next, found
}

// Step advances the clock to the earlier of the next delivery and until (never backwards),
// and appends to dst every datagram due by then, in delivery-time order with ties in send
// order across all links. It returns the new time and the extended dst.
//
// Calling Step in a loop walks a test through time one arrival at a time: between steps the
// test feeds the deliveries to its endpoints, which may send replies, and those replies are
// scheduled from the new time.
func (n *Network) Step(until time.Time, dst []Datagram) (time.Time, []Datagram) {
	target := until
	if next, ok := n.NextEvent(); ok && next.Before(target) {
		target = next
	}
	n.Advance(target)

	due := n.scratch[:0]
	for _, r := range n.order {
		c := n.links[r]
		for {
			d, ok := c.popDue(n.now)
			if !ok {
				break
			}
			due = append(due, arrival{delivery: d, r: r})
		}
	}
	slices.SortFunc(due, func(x, y arrival) int {
		switch {
		case x.before(y.delivery):
			return -1
		case y.before(x.delivery):
			return 1
		}
		return 0
	})
	for i, a := range due {
		dst = append(dst, Datagram{From: a.r.from, To: a.r.to, Data: a.data})
		due[i] = arrival{} // the receiver owns the bytes now; do not keep them alive
	}
	n.scratch = due[:0]
	return n.now, dst
}

// Advance moves the clock to to, or leaves it alone if to is not later. Nothing is delivered;
// datagrams that fall due are handed out by the next Step.
func (n *Network) Advance(to time.Time) {
	if to.After(n.now) {
		n.now = to
	}
}
