package stacklab

import (
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
)

// duplex is one connection in virtual time: two message.Conns, the sender a and the receiver
// b, over a linksim.Network with the same link settings both ways. It is what the transport
// does on a real socket, without the socket: each side sends whatever its Conn says is due,
// and time jumps straight to the next thing that happens (a datagram arriving, a Conn's
// deadline, the experiment's next message), so a delay is measured to the microsecond and an
// hour of traffic takes a second. The experiments check every execution at the receiver
// against the dependencies the game declared, not the ones on the wire (receiverLog, hol.go): a
// message executed before one it needs, twice, or never, is counted as a violation, and the
// reports say how many there were (none, or the stack is broken).
type duplex struct {
	nw     *linksim.Network
	now    time.Time
	start  time.Time
	a, b   *message.Conn
	na, nb *linksim.Node
	buf    []byte
	dgrams []linksim.Datagram
	// sentA, if set, sees every datagram a sends. recvB sees every datagram b is handed,
	// after b processed it, and whether b's packet layer accepted it (neither stale nor a
	// duplicate): the messages of a refused datagram did not arrive.
	sentA func(d []byte)
	recvB func(d []byte, accepted bool)
	err   error // the first error a Conn reported
}

// newDuplex connects a sender and a receiver over link. deliver is the receiver's callback for
// every message it executes; the sender's are dropped (the experiments send one way).
func newDuplex(seed uint64, link linksim.Settings, cfg message.Config, deliver func(*message.Message)) *duplex {
	nw := linksim.NewNetwork(seed)
	nw.Link("a", "b", link, link)
	return &duplex{
		nw:    nw,
		now:   nw.Now(),
		start: nw.Now(),
		a:     message.New(cfg, func(*message.Message) {}),
		b:     message.New(cfg, deliver),
		na:    nw.AddNode("a"),
		nb:    nw.AddNode("b"),
	}
}

// elapsed is the virtual time since the start.
func (d *duplex) elapsed() time.Duration { return d.now.Sub(d.start) }

// flush sends everything c has due now.
func (d *duplex) flush(c *message.Conn, from *linksim.Node, to string) {
	for {
		p, ok := c.AppendPacket(d.buf[:0], d.now, false)
		if !ok {
			return
		}
		d.buf = p
		if c == d.a && d.sentA != nil {
			d.sentA(p)
		}
		_ = from.Send(to, p) // both nodes exist and are linked
	}
}

// step sends what is due on both sides, then moves time to the next event, but not past
// limit, and hands every datagram that arrives then to its Conn. It returns the new time.
func (d *duplex) step(limit time.Time) time.Time {
	d.flush(d.a, d.na, "b")
	d.flush(d.b, d.nb, "a")
	next := limit
	for _, c := range []*message.Conn{d.a, d.b} {
		if t := c.NextDeadline(d.now); !t.IsZero() && t.Before(next) {
			next = t
		}
	}
	if t, ok := d.nw.NextEvent(); ok && t.Before(next) {
		next = t
	}
	if !next.After(d.now) {
		// Something is due that the Conn did not send (a sender at its cap of packets in
		// flight): let a millisecond pass rather than spin, as a real loop would sleep.
		next = d.now.Add(time.Millisecond)
	}
	d.now, d.dgrams = d.nw.Step(next, d.dgrams[:0])
	for _, dg := range d.dgrams {
		c := d.a
		if dg.To == "b" {
			c = d.b
		}
		before := c.PacketsAccepted()
		if err := c.Receive(d.now, dg.Data); err != nil && d.err == nil {
			if e := c.Err(); e != nil {
				d.err = e // a connection error; a malformed datagram is only counted
			}
		}
		if c == d.b && d.recvB != nil {
			d.recvB(dg.Data, c.PacketsAccepted() > before)
		}
	}
	for _, c := range []*message.Conn{d.a, d.b} {
		if err := c.Err(); err != nil && d.err == nil {
			d.err = err
		}
	}
	return d.now
}

// runUntil steps until done holds or the virtual deadline passes; it reports whether done
// held.
func (d *duplex) runUntil(deadline time.Time, done func() bool) bool {
	for !done() {
		if !d.now.Before(deadline) || d.err != nil {
			return false
		}
		d.step(deadline)
	}
	return true
}
