package message

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/wire"
)

// pipe runs a sender a and a receiver b in virtual time over a link with a fixed one-way delay
// and no loss unless drop says so: every tick a queues new messages until the connection
// refuses one, both sides send what is due, and what arrives by the end of the tick is
// delivered. It counts, per message id (the payload's first 4 bytes), how often b executed it.
type pipe struct {
	a, b      *Conn
	now       time.Time
	tick      time.Duration
	delay     time.Duration
	drop      func(from *Conn, d []byte) bool // nil: nothing is lost
	inFlight  []arrival
	next      int   // the next message id to queue
	total     int   // how many messages to send
	perTick   int   // at most this many new messages per tick
	execs     []int // executions per id
	refused   int   // SendGuaranteed calls refused with ErrBackpressure
	refusedAt []int // the id refused, each time
	buf       []byte
}

type arrival struct {
	at time.Time
	to *Conn
	d  []byte
}

func newPipe(t *testing.T, total int, cfg Config) *pipe {
	p := &pipe{now: base, tick: time.Millisecond, delay: time.Millisecond, total: total, perTick: 1000, execs: make([]int, total)}
	p.a = New(cfg, func(*Message) {})
	p.b = New(cfg, func(m *Message) {
		id := binary.BigEndian.Uint32(m.Payload)
		if int(id) >= total {
			t.Fatalf("unknown message id %d", id)
		}
		p.execs[id]++
	})
	return p
}

func (p *pipe) send(c *Conn, to *Conn) {
	for {
		d, ok := c.AppendPacket(nil, p.now, false)
		if !ok {
			return
		}
		if p.drop == nil || !p.drop(c, d) {
			p.inFlight = append(p.inFlight, arrival{at: p.now.Add(p.delay), to: to, d: d})
		}
	}
}

func (p *pipe) step(t *testing.T) {
	for k := 0; k < p.perTick && p.next < p.total; k++ {
		p.buf = binary.BigEndian.AppendUint32(p.buf[:0], uint32(p.next))
		if _, err := p.a.SendGuaranteed(p.now, p.buf, nil, nil); err != nil {
			if !errors.Is(err, ErrBackpressure) {
				t.Fatal(err)
			}
			p.refused++
			p.refusedAt = append(p.refusedAt, p.next)
			break
		}
		p.next++
	}
	p.send(p.a, p.b)
	p.send(p.b, p.a)
	p.now = p.now.Add(p.tick)
	kept := p.inFlight[:0]
	for _, ar := range p.inFlight {
		if ar.at.After(p.now) {
			kept = append(kept, ar)
			continue
		}
		if err := ar.to.Receive(ar.at, ar.d); err != nil {
			t.Fatal(err)
		}
	}
	p.inFlight = kept
	for _, c := range []*Conn{p.a, p.b} {
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// run steps until every message executed, or fails after limit of virtual time.
func (p *pipe) run(t *testing.T, limit time.Duration) {
	t.Helper()
	for p.b.stats.GuaranteedExecuted < uint64(p.total) {
		if p.now.Sub(base) > limit {
			t.Fatalf("%d of %d messages executed after %v", p.b.stats.GuaranteedExecuted, p.total, limit)
		}
		p.step(t)
	}
	for id, n := range p.execs {
		if n != 1 {
			t.Fatalf("message %d executed %d times", id, n)
		}
	}
}

// TestWindowReusesNumbersBeforeExpiry: on a clean 2 ms round trip, 100,000 messages wrap the
// 15-bit sequence three times in a fraction of a second of virtual time, long before a node
// expires (Timeout + 1 s = 6 s), and each executes exactly once. Under the rule that waited
// for the expiry the sender would have stalled at 32,768 messages for 6 s.
func TestWindowReusesNumbersBeforeExpiry(t *testing.T) {
	const total = 100_000
	p := newPipe(t, total, Config{})
	p.perTick = total // as many as the connection takes
	p.run(t, 5*time.Second)
	elapsed := p.now.Sub(base)
	if expiry := (Config{}).Expiry(); elapsed >= expiry {
		t.Fatalf("%d messages took %v of virtual time, not less than the expiry", total, elapsed)
	}
	st := p.b.recv.Stats()
	if st.Expired != 0 || st.Forgotten < total-depgraph.Window {
		t.Fatalf("receiver graph: %d nodes forgotten by the window, %d expired; want every number freed by the window", st.Forgotten, st.Expired)
	}
	t.Logf("%d messages in %v of virtual time: %.0f a second; refused %d times", total, elapsed, total/elapsed.Seconds(), p.refused)
}

// TestWindowHoldsBehindALostMessage: every packet that carries message 0 is lost for the first
// two seconds, while the sender goes on. It may run ahead of message 0 by Window numbers and no
// further: the next message is refused until message 0 arrives and executes. Then the window
// moves, the numbers wrap twice, and every message (message 0 included, which a receiver that
// counted it out of its window would ignore) executes exactly once.
func TestWindowHoldsBehindALostMessage(t *testing.T) {
	const total = 3 * depgraph.SeqSpace
	p := newPipe(t, total, Config{Timeout: 10 * time.Second})
	var rec wire.Record
	carriesZero := func(d []byte) bool {
		body, err := PlainFrame{}.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		_, n, err := wire.ParseHeader(body)
		if err != nil {
			t.Fatal(err)
		}
		for rest := body[n:]; len(rest) > 0; {
			k, err := wire.ParseRecord(rest, &rec)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Kind == wire.KindGuaranteed && rec.Seq == 0 && p.execs[0] == 0 {
				return true
			}
			rest = rest[k:]
		}
		return false
	}
	holdUntil := base.Add(2 * time.Second)
	p.drop = func(from *Conn, d []byte) bool { return from == p.a && p.now.Before(holdUntil) && carriesZero(d) }
	for p.now.Before(holdUntil) {
		p.step(t)
	}
	if p.next != depgraph.Window || p.refused == 0 || p.refusedAt[0] != depgraph.Window {
		t.Fatalf("while message 0 was lost the sender queued %d messages (first refusal: %v), want exactly Window = %d", p.next, p.refusedAt[:min(1, len(p.refusedAt))], depgraph.Window)
	}
	if p.execs[0] != 0 {
		t.Fatal("message 0 executed while every packet carrying it was lost")
	}
	p.run(t, 8*time.Second)
}
