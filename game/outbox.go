package game

import (
	"errors"
	"fmt"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
)

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

// pendingSend is a guaranteed message the connection refused for now.
type pendingSend struct {
	payload []byte
	deps    []*depgraph.Dependency
	out     *depgraph.Dependency
	sync    bool
}

// outbox is one connection's queue of refused messages (see the policy above). Whoever sends
// through it counts the refusals it returns.
type outbox struct {
	queue []pendingSend
}

// send hands a guaranteed (or sync) message to c, or queues it behind the ones already
// waiting. The error is ErrOutboxFull or one of the message layer's other refusals (too large,
// connection failed); nil means it is sent or will be.
func (o *outbox) send(c *message.Conn, now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency, sync bool) error {
	_, _, err := o.sendSeq(c, now, payload, deps, out, sync)
	return err
}

// sendSeq is send that also says whether the message went to the connection at once, and
// its sequence number if it did (sent false: it waits in the outbox).
func (o *outbox) sendSeq(c *message.Conn, now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency, sync bool) (seq uint16, sent bool, err error) {
	if len(o.queue) == 0 {
		seq, err := sendSeqOn(c, now, payload, deps, out, sync)
		if !errors.Is(err, message.ErrBackpressure) {
			return seq, err == nil, err
		}
	}
	if len(o.queue) >= maxOutbox {
		return 0, false, fmt.Errorf("%w (%d waiting)", ErrOutboxFull, len(o.queue))
	}
	o.queue = append(o.queue, pendingSend{payload: append([]byte(nil), payload...), deps: deps, out: out, sync: sync})
	return 0, false, nil
}

// flush sends what c takes again, in order.
func (o *outbox) flush(c *message.Conn, now time.Time) {
	n := 0
	for ; n < len(o.queue); n++ {
		p := o.queue[n]
		if err := sendOn(c, now, p.payload, p.deps, p.out, p.sync); errors.Is(err, message.ErrBackpressure) {
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

func sendOn(c *message.Conn, now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency, sync bool) error {
	_, err := sendSeqOn(c, now, payload, deps, out, sync)
	return err
}

func sendSeqOn(c *message.Conn, now time.Time, payload []byte, deps []*depgraph.Dependency, out *depgraph.Dependency, sync bool) (uint16, error) {
	if sync {
		return c.SendSync(now, payload, deps, out)
	}
	return c.SendGuaranteed(now, payload, deps, out)
}

// sendFirst sends m, guaranteed and depending on nothing, on a connection that carries nothing
// else yet (a claim on a seat, a direct link before its proofs: their Challenge and Proof), so
// the message layer takes it at once and no outbox is needed. A refusal is counted in refused
// and returned.
func sendFirst(c *message.Conn, now time.Time, m Msg, refused *uint64) error {
	payload, err := AppendMsg(nil, m)
	if err == nil {
		err = sendOn(c, now, payload, nil, nil, false)
	}
	if err != nil {
		*refused++
	}
	return err
}
