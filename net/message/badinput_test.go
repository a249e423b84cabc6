package message

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/wire"
)

// TestBadDatagramsDroppedAndCounted: every malformed, truncated, oversized, foreign, replayed,
// duplicated or stale datagram is dropped and counted, nothing panics, nothing executes twice,
// and no message that executed is lost.
func TestBadDatagramsDroppedAndCounted(t *testing.T) {
	srv := newEndpoint("server", Config{})
	now := base
	var good [][]byte
	for i := range 3 {
		mustSend(t, srv.conn, now, fmt.Sprintf("spawn %d", i), nil, nil)
		good = append(good, srv.packet(t, now, false))
	}
	flip := func(d []byte, bit int) []byte {
		c := append([]byte(nil), d...)
		c[bit/8] ^= 1 << (bit % 8)
		return c
	}
	resealed := func(body []byte) []byte {
		d := append(wire.BeginDatagram(nil), body...)
		wire.SealDatagram(d, 0)
		return d
	}
	foreign := New(Config{Frame: PlainFrame{Key: 0xfeedface}}, func(*Message) {})
	foreign.SendGuaranteed(now, []byte("from another connection"), nil, nil)
	wrongKey, _ := foreign.AppendPacket(nil, now, false)

	tests := []struct {
		name      string
		datagram  []byte
		malformed bool // counted as malformed (else as stale or duplicate)
	}{
		{"empty", nil, true},
		{"truncated to 3 bytes", good[0][:3], true},
		{"truncated record", good[0][:len(good[0])-1], true},
		{"bit flipped in payload", flip(good[0], 8*len(good[0])-3), true},
		{"bit flipped in checksum", flip(good[0], 0), true},
		{"oversized", make([]byte, wire.MaxDatagram+1), true},
		{"wrong connection key", wrongKey, true},
		{"resealed: bad record kind", resealed([]byte{0x01, 0x10, 0x00, 0x05, 0x01, 0x00}), true},
		{"resealed: record cut short", resealed([]byte{0x01, 0x10, 0x00, 0x05, 0x01, 0x02, 0x05, 0x68}), true},
		{"resealed: fragment of the wrong size", resealed([]byte{0x01, 0x10, 0x00, 0x05, 0x01, 0x03, 0x00, 0x09, 0x00, 0x02, 0x0a, 0x01, 0x00}), true},
	}
	cli := newEndpoint("client", Config{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := cli.conn.Stats()
			err := cli.conn.Receive(now, tc.datagram)
			after := cli.conn.Stats()
			if tc.malformed {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				if after.Packet.Malformed != before.Packet.Malformed+1 {
					t.Fatalf("Malformed %d → %d, want +1", before.Packet.Malformed, after.Packet.Malformed)
				}
			}
			if after.GuaranteedExecuted != before.GuaranteedExecuted || after.Packet.PacketsReceived != before.Packet.PacketsReceived {
				t.Fatal("a bad datagram was used")
			}
			if cli.conn.Err() != nil {
				t.Fatalf("a bad datagram failed the connection: %v", cli.conn.Err())
			}
		})
	}

	// Now the good packets, out of order, each more than once.
	cli.deliver(t, now, good[1])
	cli.deliver(t, now, good[1]) // replayed: duplicate
	cli.deliver(t, now, good[0]) // older than the newest: stale
	cli.deliver(t, now, good[2])
	cli.deliver(t, now, good[1]) // stale and already seen: duplicate
	s := cli.conn.Stats()
	if s.Packet.Duplicate != 2 || s.Packet.Stale != 1 {
		t.Fatalf("Duplicate=%d Stale=%d, want 2 and 1", s.Packet.Duplicate, s.Packet.Stale)
	}
	if got, want := cli.payloads(), []string{"spawn 1", "spawn 2"}; !equalStrings(got, want) {
		t.Fatalf("executed %q, want %q", got, want)
	}
	// The stale packet was never acknowledged, so spawn 0 comes again, executes once, and a
	// second copy of it is ignored.
	now = now.Add(10 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))
	now = now.Add(srv.conn.Stats().ResendDelay)
	resend := srv.packet(t, now, false)
	cli.deliver(t, now, resend)
	if got := cli.payloads(); len(got) != 3 || got[2] != "spawn 0" {
		t.Fatalf("executed %q, want spawn 0 last", got)
	}
	now = now.Add(srv.conn.Stats().ResendDelay) // the ack has not reached the server: resent again
	cli.deliver(t, now, srv.packet(t, now, false))
	if got := cli.payloads(); len(got) != 3 {
		t.Fatalf("executed %q: a resent message executed twice", got)
	}
	if cli.conn.Stats().DuplicatesIgnored != 1 {
		t.Fatalf("DuplicatesIgnored = %d, want 1", cli.conn.Stats().DuplicatesIgnored)
	}
}

// TestMessageSeqWrapAfterSilence: the 15-bit message sequence wraps while traffic flows, then
// the connection falls silent for an hour (no packets at all, then only keepalives), then
// traffic resumes and wraps again: every message executes exactly once, in chain order.
func TestMessageSeqWrapAfterSilence(t *testing.T) {
	l := newLink(t, 3, linkLAN, linkLAN, Config{})
	var ch Chain
	sent := 0
	burst := func(n int) {
		for sent0 := sent; sent < sent0+n; {
			for range 40 {
				if _, err := ch.Send(l.a.conn, l.now, []byte(fmt.Sprint(sent))); err != nil {
					break
				}
				sent++
			}
			l.step(t)
		}
		// Delivered, and every ack back at the sender: a silence with messages still in
		// flight would be a dead connection (the transport's timeout), not a quiet one.
		l.runUntil(t, 10*time.Second, func() bool { return len(l.b.got) == sent && l.a.conn.Stats().PendingGuaranteed == 0 })
	}
	burst(40000)
	// An hour with no packets at all: the clock jumps.
	l.now = l.now.Add(time.Hour)
	l.net.Advance(l.now)
	burst(40000)
	// Another hour with only keepalives.
	l.tick = time.Second
	for end := l.now.Add(time.Hour); l.now.Before(end); {
		l.step(t)
	}
	l.tick = 10 * time.Millisecond
	burst(40000)
	for i, d := range l.b.got {
		if string(d.Payload) != fmt.Sprint(i) {
			t.Fatalf("delivery %d is %q", i, d.Payload)
		}
	}
	if len(l.b.got) != 120000 {
		t.Fatalf("%d delivered, want 120000", len(l.b.got))
	}
}

// TestResendLimitFailsLoudly: a guaranteed message that is never acknowledged fails the
// connection with ErrResendLimit once the limit passes; nothing is dropped silently.
func TestResendLimitFailsLoudly(t *testing.T) {
	l := newLink(t, 4, linksim.Settings{LossPercent: 100}, linkLAN, Config{ResendLimit: 3 * time.Second})
	mustSend(t, l.a.conn, l.now, "never arrives", nil, nil)
	for range 400 {
		l.step(t)
		if l.a.conn.Err() != nil {
			break
		}
	}
	if err := l.a.conn.Err(); !errors.Is(err, ErrResendLimit) {
		t.Fatalf("Err = %v, want ErrResendLimit", err)
	}
	if _, err := l.a.conn.SendGuaranteed(l.now, []byte("x"), nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("send after failure: %v, want ErrClosed", err)
	}
}

// TestUnexecutedDependencyExpires: a message that waits for a dependency that never comes is a
// connection error after timeout + 1 s (node expiry), not a silent hang.
func TestUnexecutedDependencyExpires(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{Timeout: 2 * time.Second})
	now := base
	var a depgraph.Dependency
	mustSend(t, srv.conn, now, "A", nil, &a)
	srv.packet(t, now, false) // lost, and never resent to the client in this test
	mustSend(t, srv.conn, now, "B", []*depgraph.Dependency{&a}, nil)
	cli.deliver(t, now, srv.packet(t, now, false))
	cli.conn.Poll(now.Add(2999 * time.Millisecond))
	if cli.conn.Err() != nil {
		t.Fatalf("failed early: %v", cli.conn.Err())
	}
	cli.conn.Poll(now.Add(3 * time.Second))
	if cli.conn.Err() == nil {
		t.Fatal("no error after timeout + 1 s with B waiting for A")
	}
}
