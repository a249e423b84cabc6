package game

import (
	"errors"
	"fmt"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
)

// Sending a game message.
//
// How a message travels is its type's, declared once with the type (msg.go, Delivery):
// guaranteed, unreliable, or sync (stop-and-wait). So a sender says only what it means, and
// never picks the class at the call:
//
//	send(to, now, m)                  m depends on nothing (or travels unreliably)
//	sendOn(to, now, chain, m)         m is the next message of an ordered channel
//	sendAfter(to, now, m, after, out) m must run after the messages after, and out names it
//	                                  for the messages that must run after it
//
// The server has the three for each client's connection (Server.send, …) and the client for
// its connection to the server (Client.send, …). A chain (message.Chain) is the usual order:
// chat per origin, lead times, class links, Peers, Spectates. The explicit form is for the
// few messages whose dependencies are not a chain: StartGame after every PlayerInfo, a kill
// after its enemy's spawn, the batches of a world copy, a Resume after its pause's batches.
//
// The one back-pressure policy of the game, for every connection of every host: the server's
// link to each client, a client's link to the server, and the direct links between clients.
//
// The message layer refuses a guaranteed message when its next sequence number may still be
// in flight (message.ErrBackpressure): reusing it could make the receiver take the new message
// for an old one. A refused message is not lost: it waits in the connection's outbox, in the
// order it was issued, and goes out as soon as the connection takes it again, before anything
// issued after it (a chain, such as chat, stays a chain). The outbox is bounded: a connection
// so far behind that maxOutbox messages wait is not coming back soon, and the next message is
// refused with ErrOutboxFull, returned to whoever issued it (a player's order or chat line is
// refused on the screen, not dropped in silence) and counted.

// maxOutbox bounds the messages waiting in one connection's outbox. Ten seconds of a busy
// game's guaranteed traffic to one client is a few hundred messages.
const maxOutbox = 1024

// ErrOutboxFull: a connection's outbox already holds maxOutbox messages; the message was not
// sent and will not be.
var ErrOutboxFull = errors.New("game: the connection is too far behind: message refused")

// chained are the dependencies of the next message of ch, and its handle: the chain's idiom.
func chained(ch *message.Chain) ([]*depgraph.Dependency, *depgraph.Dependency) {
	return []*depgraph.Dependency{ch.Last()}, ch.Last()
}

// The server's side.

// send sends m to a client as its type travels, depending on nothing.
func (s *Server) send(to linked, now time.Time, m Msg) { s.sendAfter(to, now, m, nil, nil) }

// sendOn sends m to d as the next message of chain ch.
func (s *Server) sendOn(d *downlink, now time.Time, ch *message.Chain, m Msg) {
	after, out := chained(ch)
	s.sendAfter(d, now, m, after, out)
}

// sendAfter sends m to a client after the messages after, through the connection's outbox,
// and records it in out (nil: nothing waits for it). A refusal is counted and logged: the
// server's messages are its own doing, and a client that far behind is about to time out.
func (s *Server) sendAfter(to linked, now time.Time, m Msg, after []*depgraph.Dependency, out *depgraph.Dependency) {
	d := to.link()
	if d.peer == nil {
		return
	}
	payload, err := AppendMsg(s.buf[:0], m)
	if err != nil {
		s.cfg.Logger.Error("encode", "type", m.Type(), "err", err)
		return
	}
	s.buf = payload
	if m.Type().Delivery() == Unreliable {
		d.peer.Conn().SendUnreliable(payload) // lost or not: nothing waits for it, and it waits for nothing
		return
	}
	if err := d.out.send(d.peer.Conn(), now, payload, m.Type().Delivery(), after, out); err != nil {
		s.stats.SendsRefused++
		s.cfg.Logger.Warn("send refused", "to", d.who, "type", m.Type(), "err", err)
	}
}

func (s *Server) flushOutboxes(now time.Time) {
	for d := range s.seats.connected {
		d.out.flush(d.peer.Conn(), now)
	}
	s.boundSpectators(now)
}

// The client's side.

// errNotConnected: a message for the server before the connection exists.
var errNotConnected = errors.New("game: not connected to the server")

// send sends m to the server as its type travels, depending on nothing. The error says why it
// was refused (and counted).
func (c *Client) send(now time.Time, m Msg) error {
	_, err := c.sendToServer(now, m, nil)
	return err
}

// sendOn sends m to the server as the next message of chain ch.
func (c *Client) sendOn(now time.Time, ch *message.Chain, m Msg) error {
	_, err := c.sendToServer(now, m, ch)
	return err
}

// sendToServer encodes m and sends it to the server, through the connection's outbox if it is
// guaranteed, as the next message of ch if ch is not nil. It returns the encoding, or why the
// message was refused (counted).
func (c *Client) sendToServer(now time.Time, m Msg, ch *message.Chain) ([]byte, error) {
	p := c.tr.Peer()
	if p == nil || (!p.Connected() && m.Type().Delivery() != Unreliable) {
		return nil, errNotConnected
	}
	payload, err := AppendMsg(nil, m)
	if err != nil {
		c.cfg.Logger.Error("encode", "type", m.Type(), "err", err)
		return nil, err
	}
	if m.Type().Delivery() == Unreliable {
		p.Conn().SendUnreliable(payload)
		return payload, nil
	}
	var after []*depgraph.Dependency
	var out *depgraph.Dependency
	if ch != nil {
		after, out = chained(ch)
	}
	if err := c.out.send(p.Conn(), now, payload, m.Type().Delivery(), after, out); err != nil {
		c.stats.SendsRefused++
		c.cfg.Logger.Warn("send refused", "type", m.Type(), "err", err)
		return nil, err
	}
	return payload, nil
}

// sendFirst sends m, guaranteed and depending on nothing, on a connection that carries nothing
// else yet (a claim on a seat, a direct link before its proofs: their Challenge and Proof), so
// the message layer takes it at once and no outbox is needed. A refusal is counted in refused
// and returned.
func sendFirst(c *message.Conn, now time.Time, m Msg, refused *uint64) error {
	payload, err := AppendMsg(nil, m)
	if err == nil {
		_, err = sendNow(c, now, payload, Guaranteed, false, nil, nil)
	}
	if err != nil {
		*refused++
	}
	return err
}

// The outbox.

// pendingSend is a guaranteed message the connection refused for now.
type pendingSend struct {
	payload  []byte
	delivery Delivery // Guaranteed or Sync
	after    []*depgraph.Dependency
	out      *depgraph.Dependency
}

// outbox is one connection's queue of refused messages (see the policy above). Whoever sends
// through it counts the refusals it returns.
type outbox struct {
	queue []pendingSend
	// timely: the events for a frame go with each resend twice on this connection (sendNow):
	// the server's downlinks, which carry every event to every host. A player's own uplink
	// does not: its commands are a fraction of what the server relays, and the copies would
	// cost the player's upload, which the modem bounds, more than they gain.
	timely bool
}

// send hands a guaranteed (or sync) message to c, or queues it behind the ones already
// waiting. The error is ErrOutboxFull or one of the message layer's other refusals (too large,
// connection failed); nil means it is sent or will be.
func (o *outbox) send(c *message.Conn, now time.Time, payload []byte, d Delivery, after []*depgraph.Dependency, out *depgraph.Dependency) error {
	_, _, err := o.sendSeq(c, now, payload, d, after, out)
	return err
}

// sendSeq is send that also says whether the message went to the connection at once, and
// its sequence number if it did (sent false: it waits in the outbox).
func (o *outbox) sendSeq(c *message.Conn, now time.Time, payload []byte, d Delivery, after []*depgraph.Dependency, out *depgraph.Dependency) (seq uint16, sent bool, err error) {
	if len(o.queue) == 0 {
		seq, err := sendNow(c, now, payload, d, o.timely, after, out)
		if !errors.Is(err, message.ErrBackpressure) {
			return seq, err == nil, err
		}
	}
	if len(o.queue) >= maxOutbox {
		return 0, false, fmt.Errorf("%w (%d waiting)", ErrOutboxFull, len(o.queue))
	}
	o.queue = append(o.queue, pendingSend{payload: append([]byte(nil), payload...), delivery: d, after: after, out: out})
	return 0, false, nil
}

// flush sends what c takes again, in order.
func (o *outbox) flush(c *message.Conn, now time.Time) {
	n := 0
	for ; n < len(o.queue); n++ {
		p := o.queue[n]
		if _, err := sendNow(c, now, p.payload, p.delivery, o.timely, p.after, p.out); errors.Is(err, message.ErrBackpressure) {
			break
		}
		o.queue[n] = pendingSend{}
	}
	if n > 0 {
		o.queue = append(o.queue[:0], o.queue[n:]...)
	}
}

// reset forgets what waits: the connection ended, and a new one starts from nothing.
func (o *outbox) reset() { clear(o.queue); o.queue = o.queue[:0] }

// waiting is how many messages wait.
func (o *outbox) waiting() int { return len(o.queue) }

// full reports whether a send now would be refused (ErrOutboxFull).
func (o *outbox) full() bool { return len(o.queue) >= maxOutbox }

// errUnreliableQueued: an unreliable message was handed to an outbox, which is for the
// messages a connection must deliver (a bug of the caller's).
var errUnreliableQueued = errors.New("game: an unreliable message has no outbox")

// sendNow hands a guaranteed or sync message to the message layer; on a timely connection
// (outbox.timely) an event for a frame goes with each resend twice.
func sendNow(c *message.Conn, now time.Time, payload []byte, d Delivery, timely bool, after []*depgraph.Dependency, out *depgraph.Dependency) (uint16, error) {
	switch d {
	case Sync:
		return c.SendSync(now, payload, after, out)
	case Guaranteed:
		if urgent(payload) {
			return c.SendUrgent(now, payload, after, out)
		}
		if timely && len(payload) > 0 && MsgType(payload[0]).timely() {
			return c.SendTimely(now, payload, after, out)
		}
		return c.SendGuaranteed(now, payload, after, out)
	}
	return 0, errUnreliableQueued
}
