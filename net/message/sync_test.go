package message

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/wire"
)

// carried lists the guaranteed units in a datagram of an unkeyed Conn, by the names the test
// gave their messages: "A" for a whole message, "F#1" for fragment 1 of F.
func carried(t *testing.T, d []byte, names map[uint16]string) []string {
	t.Helper()
	p, err := wire.OpenDatagram(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, n, err := wire.ParseHeader(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var r wire.Record
	for p = p[n:]; len(p) > 0; p = p[n:] {
		if n, err = wire.ParseRecord(p, &r); err != nil {
			t.Fatal(err)
		}
		switch r.Kind {
		case wire.KindGuaranteed:
			out = append(out, names[r.Seq])
		case wire.KindFragment:
			out = append(out, fmt.Sprintf("%s#%d", names[r.Seq], r.FragIndex))
		}
	}
	return out
}

// TestSyncHoldsNewMessagesOnly is the sync rule of PROTOCOL.md, section 6, step by step: while a
// sync message is unacknowledged, guaranteed messages queued after it wait, while messages (and
// fragments) already sent before it keep being resent when their resend delay comes. Messages
// queued before it, even if not sent yet, go out first, in queue order.
//
// Steps: "send X", "sync X" and "big X" (two fragments) queue a message; "out" drains every
// packet due now, losing packet i when mask[i] is 'x' and delivering it otherwise, and compares
// what they carried with want; "wait" lets the resend delay pass; "ack" has the client
// acknowledge what it received; "waiting" and "free" check WaitingForSync.
func TestSyncHoldsNewMessagesOnly(t *testing.T) {
	type step struct {
		op, arg string
		want    []string
	}
	out := func(mask string, want ...string) step { return step{"out", mask, want} }
	cases := []struct {
		name  string
		steps []step
	}{
		{"a message queued after the sync message waits for its ack", []step{
			{op: "sync", arg: "S"}, {op: "send", arg: "B"}, {op: "waiting"},
			out("x", "S"),
			{op: "wait"}, out(".", "S"), // the sync message alone, same sequence number
			{op: "waiting"}, {op: "ack"}, {op: "free"},
			out(".", "B"),
		}},
		{"a message queued before the sync message goes first", []step{
			{op: "send", arg: "A"}, {op: "sync", arg: "S"}, {op: "send", arg: "B"},
			out("x", "A", "S"),
			{op: "wait"}, out(".", "A", "S"),
			{op: "ack"}, {op: "free"}, out(".", "B"),
		}},
		{"a message sent before the sync message is resent while it is out", []step{
			{op: "send", arg: "A"}, out("x", "A"),
			{op: "sync", arg: "S"}, {op: "send", arg: "B"}, out(".", "S"),
			// The sync message arrived but is not acknowledged yet: A, lost, rides again; B waits.
			{op: "wait"}, out(".", "A", "S"),
			{op: "waiting"}, {op: "ack"}, {op: "free"}, out(".", "B"),
		}},
		{"a lost fragment of an earlier message is resent alone while the sync message is out", []step{
			// The ack reports F#0's packet lost: F#0 rides again at once, beside S.
			{op: "big", arg: "F"}, out("x.", "F#0", "F#1"), {op: "ack"},
			{op: "sync", arg: "S"}, {op: "send", arg: "B"}, out("x", "F#0", "S"),
			{op: "wait"}, out("..", "F#0", "S"),
			{op: "ack"}, {op: "free"}, out(".", "B"),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
			names := make(map[uint16]string)
			now := base
			for i, s := range tc.steps {
				where := fmt.Sprintf("step %d (%s %s)", i, s.op, s.arg)
				var seq uint16
				var err error
				switch s.op {
				case "send":
					seq, err = srv.conn.SendGuaranteed(now, []byte(s.arg), nil, nil)
				case "sync":
					seq, err = srv.conn.SendSync(now, []byte(s.arg), nil, nil)
				case "big":
					seq, err = srv.conn.SendGuaranteed(now, []byte(strings.Repeat(s.arg, 2000)), nil, nil)
				case "out":
					var got []string
					for j, d := range drain(srv, now) {
						got = append(got, carried(t, d, names)...)
						if j >= len(s.arg) || s.arg[j] != 'x' {
							cli.deliver(t, now, d)
						}
					}
					if !slices.Equal(got, s.want) {
						t.Fatalf("%s: packets carried %q, want %q", where, got, s.want)
					}
				case "wait":
					now = now.Add(srv.conn.Stats().ResendDelay)
				case "ack":
					now = now.Add(time.Millisecond)
					srv.deliver(t, now, cli.packet(t, now, true))
				case "waiting", "free":
					if w := srv.conn.WaitingForSync(); w != (s.op == "waiting") {
						t.Fatalf("%s: WaitingForSync = %v", where, w)
					}
				default:
					t.Fatalf("%s: unknown step", where)
				}
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				if s.op == "send" || s.op == "sync" || s.op == "big" {
					names[seq] = s.arg
				}
			}
			// Every message arrived once, the sync message included.
			if n := len(cli.got); n != len(names) {
				t.Fatalf("client executed %d messages, want %d: %q", n, len(names), cli.payloads())
			}
		})
	}
}

// TestSyncCounters: the counters a lesson reads off a sync message. The sync message is lost
// once, so it waits a resend delay and a little for its ack; the two messages queued behind
// it are held for that ack, and counted when it comes.
func TestSyncCounters(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	if _, err := srv.conn.SendSync(now, []byte("S"), nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"B", "C"} {
		if _, err := srv.conn.SendGuaranteed(now, []byte(p), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	drain(srv, now) // S goes alone, and is lost
	if st := srv.conn.Stats(); st.SyncSent != 1 || st.SyncAcked != 0 || st.HeldBySync != 0 {
		t.Fatalf("after the first send: sent %d, acked %d, held %d; want 1, 0, 0", st.SyncSent, st.SyncAcked, st.HeldBySync)
	}
	wait := srv.conn.Stats().ResendDelay
	now = now.Add(wait)
	for _, d := range drain(srv, now) {
		cli.deliver(t, now, d)
	}
	now = now.Add(time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))
	st := srv.conn.Stats()
	if st.SyncSent != 1 || st.SyncAcked != 1 || st.HeldBySync != 2 || st.SyncWait != wait+time.Millisecond {
		t.Fatalf("after the ack: sent %d, acked %d, held %d, waited %v; want 1, 1, 2, %v",
			st.SyncSent, st.SyncAcked, st.HeldBySync, st.SyncWait, wait+time.Millisecond)
	}
}
