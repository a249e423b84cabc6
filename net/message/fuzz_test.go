package message

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/wire"
)

// validPackets returns real datagrams of a short conversation: guaranteed messages with
// dependencies, a fragmented one, a sync message and unreliable ones.
func validPackets(tb testing.TB) [][]byte {
	tb.Helper()
	c := New(Config{}, func(*Message) {})
	now := base
	var a, b depgraph.Dependency
	var out [][]byte
	send := func(force bool) {
		for {
			d, ok := c.AppendPacket(nil, now, force)
			if !ok {
				return
			}
			out = append(out, d)
			force = false
		}
	}
	send(true) // a keepalive
	c.SendGuaranteed(now, []byte("spawn 1"), nil, &a)
	c.SendGuaranteed(now, []byte("spawn 2"), nil, &b)
	c.SendGuaranteed(now, []byte("start"), []*depgraph.Dependency{&a, &b}, nil)
	c.SendUnreliable([]byte("pos 3 4"))
	send(false)
	c.SendGuaranteed(now, make([]byte, 3000), nil, nil)
	send(false)
	c.SendSync(now, []byte("pause"), nil, nil)
	send(false)
	now = now.Add(time.Second)
	send(false) // resends
	return out
}

// FuzzReceive feeds a Conn whole datagrams: random bytes, and bit-flipped or truncated real
// packets. Most of those fail the checksum, so a second form re-seals the mutated body: that
// way the fuzzer reaches the header and record parsers and the graph behind them. Nothing may
// panic, a refused datagram must change nothing visible, and memory must stay bounded.
func FuzzReceive(f *testing.F) {
	for _, d := range validPackets(f) {
		f.Add(d, false)
		f.Add(d[wire.ChecksumSize:], true)
	}
	f.Add([]byte{}, false)
	f.Add([]byte{0, 0, 0, 0, 1}, true)
	f.Fuzz(func(t *testing.T, data []byte, reseal bool) {
		c := New(Config{}, func(m *Message) {
			if len(m.Payload) > wire.MaxMessageSize {
				t.Fatalf("delivered %d bytes", len(m.Payload))
			}
		})
		d := data
		if reseal {
			if len(data) > wire.MaxDatagram-wire.ChecksumSize {
				return
			}
			d = append(wire.BeginDatagram(nil), data...)
			wire.SealDatagram(d, 0)
		}
		now := base
		// Twice: the second time it is a duplicate, which must not execute anything again.
		for range 2 {
			before := c.Stats()
			err := c.Receive(now, d)
			after := c.Stats()
			if err != nil && c.Err() == nil && after.GuaranteedExecuted != before.GuaranteedExecuted {
				t.Fatalf("a refused datagram executed messages: %v", err)
			}
			if after.GuaranteedExecuted > before.GuaranteedExecuted && before.GuaranteedExecuted > 0 {
				t.Fatal("a duplicate datagram executed messages again")
			}
		}
		if s := c.Stats(); s.Reassembling > 0 && s.Reassembling*wire.MaxMessageSize > 64<<20 {
			t.Fatalf("%d reassemblies", s.Reassembling)
		}
		// The connection must still be able to write a packet.
		c.AppendPacket(nil, now, true)
	})
}
