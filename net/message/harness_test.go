package message

import (
	"bytes"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// linkLAN is a clean link with a little latency.
var linkLAN = linksim.Settings{Latency: 10 * time.Millisecond}

// base is the start of virtual time in every test.
var base = time.Unix(1_000_000, 0)

// delivered is a copy of one delivered message.
type delivered struct {
	Guaranteed bool
	Sync       bool
	Seq        uint16
	Deps       []uint16
	Payload    []byte
}

// endpoint is a Conn plus everything it delivered, for tests.
type endpoint struct {
	name  string
	node  *linksim.Node
	conn  *Conn
	got   []delivered
	onMsg func(*Message) // optional, called after recording (payload valid during the call)
}

func newEndpoint(name string, cfg Config) *endpoint {
	e := &endpoint{name: name}
	e.conn = New(cfg, func(m *Message) {
		e.got = append(e.got, delivered{m.Guaranteed, m.Sync, m.Seq, append([]uint16(nil), m.Deps...), append([]byte(nil), m.Payload...)})
		if e.onMsg != nil {
			e.onMsg(m)
		}
	})
	return e
}

// payloads lists what e received, as strings.
func (e *endpoint) payloads() []string {
	var out []string
	for _, d := range e.got {
		out = append(out, string(d.Payload))
	}
	return out
}

// packet writes e's next datagram, failing the test if there is none.
func (e *endpoint) packet(t testing.TB, now time.Time, force bool) []byte {
	t.Helper()
	d, ok := e.conn.AppendPacket(nil, now, force)
	if !ok {
		t.Fatalf("%s: no packet to send at %v", e.name, now.Sub(base))
	}
	return d
}

// deliver hands a datagram to e, failing the test on an error.
func (e *endpoint) deliver(t testing.TB, now time.Time, d []byte) {
	t.Helper()
	if err := e.conn.Receive(now, d); err != nil {
		t.Fatalf("%s: Receive: %v", e.name, err)
	}
}

// link runs two endpoints over a simulated network in virtual time. Every tick each side sends
// what its Conn says is due, keepalives and delayed acks included: what the transport does on
// a real socket.
type link struct {
	net    *linksim.Network
	a, b   *endpoint
	now    time.Time
	tick   time.Duration
	buf    []byte
	dgrams []linksim.Datagram
	// maxPackets caps the packets a side sends per tick (0: no cap). Packets sent together are
	// reordered among themselves by jitter, and every one that lands behind a newer one is
	// dropped as stale, so a paced sender loses less.
	maxPackets int
	// onSend and onRecv, if set, see every datagram a side sends and every one it is handed
	// (accepted: the packet layer took it, neither stale nor duplicate).
	onSend func(from *endpoint, d []byte)
	onRecv func(to *endpoint, d []byte, accepted bool)
}

func newLink(t testing.TB, seed uint64, ab, ba linksim.Settings, cfg Config) *link {
	t.Helper()
	n := linksim.NewNetwork(seed)
	na, nb := n.AddNode("a"), n.AddNode("b")
	n.Link("a", "b", ab, ba)
	l := &link{
		net:  n,
		a:    newEndpoint("a", cfg),
		b:    newEndpoint("b", cfg),
		now:  n.Now(),
		tick: 10 * time.Millisecond,
	}
	l.a.node, l.b.node = na, nb
	return l
}

// flush sends everything e has due now.
func (l *link) flush(t testing.TB, e *endpoint, to string) {
	for n := 0; l.maxPackets == 0 || n < l.maxPackets; n++ {
		d, ok := e.conn.AppendPacket(l.buf[:0], l.now, false)
		if !ok {
			break
		}
		l.buf = d
		if l.onSend != nil {
			l.onSend(e, d)
		}
		if err := e.node.Send(to, d); err != nil {
			t.Fatal(err)
		}
	}
}

// step advances one tick: both sides send, then the network delivers what arrives by the end
// of the tick, each datagram at its own arrival time.
func (l *link) step(t testing.TB) {
	l.flush(t, l.a, "b")
	l.flush(t, l.b, "a")
	end := l.now.Add(l.tick)
	for {
		var at time.Time
		at, l.dgrams = l.net.Step(end, l.dgrams[:0])
		for _, dg := range l.dgrams {
			to := l.a
			if dg.To == "b" {
				to = l.b
			}
			// Errors are the tests' to check (Err): a malformed datagram is a counted drop,
			// and a failed connection refuses everything.
			before := to.conn.PacketsAccepted()
			to.conn.Receive(at, dg.Data)
			if l.onRecv != nil {
				l.onRecv(to, dg.Data, to.conn.PacketsAccepted() > before)
			}
		}
		if !at.Before(end) {
			break
		}
	}
	l.now = end
}

// runUntil steps until cond holds or the virtual deadline passes.
func (l *link) runUntil(t testing.TB, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := l.now.Add(limit)
	for !cond() {
		if l.now.After(deadline) {
			t.Fatalf("condition not met within %v of virtual time", limit)
		}
		l.step(t)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var _ = bytes.Equal
