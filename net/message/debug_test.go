package message

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/packet"
)

// TestDebugViews: the debug views show a lost packet among acked ones, a message the receiver
// holds back for a lost dependency, and the sender's message still unacknowledged.
func TestDebugViews(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	var a depgraph.Dependency
	mustSend(t, srv.conn, now, "A", nil, &a)
	srv.packet(t, now, false) // lost
	mustSend(t, srv.conn, now, "B", []*depgraph.Dependency{&a}, nil)
	cli.deliver(t, now, srv.packet(t, now, false))
	now = now.Add(10 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))

	d := cli.conn.Debug()
	if len(d.ReceiverWaits) != 2 {
		t.Fatalf("receiver waits %+v, want B waiting and A as a placeholder", d.ReceiverWaits)
	}
	var b depgraph.Waiting
	for i, w := range d.ReceiverWaits {
		want := int16(-1) // A is only a placeholder: its payload never came
		if w.Arrived {
			b, want = w, 'B'
		}
		if d.ReceiverFirst[i] != want {
			t.Errorf("receiver entry %d (seq %d): first payload byte %d, want %d", i, w.Seq, d.ReceiverFirst[i], want)
		}
	}
	if len(b.WaitsFor) != 1 {
		t.Fatalf("B waits for %v, want A", b.WaitsFor)
	}
	s := srv.conn.Debug()
	if len(s.History) != 2 || s.History[0].State != packet.Lost || s.History[1].State != packet.Acked {
		t.Fatalf("history %+v, want the first packet lost and the second acked", s.History)
	}
	if len(s.SenderWaits) != 2 {
		t.Fatalf("sender waits %+v, want A unacknowledged and B waiting for it", s.SenderWaits)
	}
	for i, w := range s.SenderWaits {
		// A is unacknowledged: its payload is still in flight. B was acknowledged, so the
		// sender let go of its copy.
		want := int16(-1)
		if !w.Arrived {
			want = 'A'
		}
		if s.SenderFirst[i] != want {
			t.Errorf("sender entry %d (seq %d): first payload byte %d, want %d", i, w.Seq, s.SenderFirst[i], want)
		}
	}
	// A is the only message still unacknowledged (B's packet was acked), sent once, in one
	// piece.
	if len(s.Unacked) != 1 || s.Unacked[0].First != 'A' || s.Unacked[0].Pieces != 1 || s.Unacked[0].Acked != 0 || s.Unacked[0].FirstSent != base {
		t.Fatalf("unacked %+v, want only A, sent at the start", s.Unacked)
	}
}

// TestDebugUnackedOldestFirstAcrossWrap: the unacknowledged list runs from the oldest message,
// also when the sequence numbers wrap from 32767 to 0.
func TestDebugUnackedOldestFirstAcrossWrap(t *testing.T) {
	srv := newEndpoint("server", Config{})
	srv.conn.nextSeq = 32766
	now := base
	for _, p := range []string{"a", "b", "c", "d"} {
		mustSend(t, srv.conn, now, p, nil, nil)
		srv.packet(t, now, false) // sent (and lost): one packet each
	}
	var got []uint16
	for _, u := range srv.conn.Debug().Unacked {
		got = append(got, u.Seq)
	}
	if want := []uint16{32766, 32767, 0, 1}; !slices.Equal(got, want) {
		t.Fatalf("unacked seqs %v, want %v", got, want)
	}
}

// TestDebugIsBounded: a connection with tens of thousands of messages in flight gives debug
// lists of at most DebugLimit entries each, so the snapshots taken several times a second stay
// cheap in the owner's loop.
func TestDebugIsBounded(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	var prev depgraph.Dependency
	for i := range 5000 {
		// A chain, so that every message but the first waits on the receiver.
		mustSend(t, srv.conn, now, fmt.Sprint(i), []*depgraph.Dependency{&prev}, &prev)
	}
	for i := 0; i < 40; i++ {
		d, ok := srv.conn.AppendPacket(nil, now, false)
		if !ok {
			break
		}
		if i > 0 { // the first packet, with the head of the chain, is lost
			cli.deliver(t, now, d)
		}
	}
	for _, d := range []Debug{srv.conn.Debug(), cli.conn.Debug()} {
		if len(d.ReceiverWaits) > DebugLimit || len(d.SenderWaits) > DebugLimit || len(d.Unacked) > DebugLimit {
			t.Fatalf("debug lists of %d, %d and %d entries, want at most %d", len(d.ReceiverWaits), len(d.SenderWaits), len(d.Unacked), DebugLimit)
		}
	}
	if d := cli.conn.Debug(); len(d.ReceiverWaits) != DebugLimit {
		t.Fatalf("receiver waits %d, want the limit %d (thousands are waiting)", len(d.ReceiverWaits), DebugLimit)
	}
	if d := srv.conn.Debug(); len(d.Unacked) != DebugLimit || d.Unacked[0].First != '0' {
		t.Fatalf("unacked %d (first %+v), want the limit, oldest first", len(d.Unacked), d.Unacked[0])
	}
}
