package message

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
)

// histConfig is a connection that keeps a history of n messages each way.
func histConfig(n int) Config { return Config{History: n} }

// recordOf returns the record of seq in recs (the newest one), failing the test if none.
func recordOf(t *testing.T, recs []Record, seq uint16) Record {
	t.Helper()
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Seq == seq {
			return recs[i]
		}
	}
	t.Fatalf("no record of #%d in %+v", seq, recs)
	return Record{}
}

// TestHistoryStates follows two messages through every step on both sides: A is lost, B
// depends on A and arrives, so the receiver holds B (arrived, not executed) and the sender's
// local graph holds it too (acked, not executed); then A is resent, and both execute at once
// on both sides.
func TestHistoryStates(t *testing.T) {
	srv, cli := newEndpoint("server", histConfig(8)), newEndpoint("client", histConfig(8))
	t0 := base
	var a depgraph.Dependency
	seqA := mustSend(t, srv.conn, t0, "A", nil, &a)
	if r := recordOf(t, srv.conn.Debug().Outgoing, seqA); r.Queued != t0 || !r.Sent.IsZero() || r.Sends != 0 {
		t.Fatalf("A before its packet: %+v, want queued only", r)
	}
	srv.packet(t, t0, false) // A's packet: lost
	t1 := t0.Add(5 * time.Millisecond)
	seqB := mustSend(t, srv.conn, t1, "B", []*depgraph.Dependency{&a}, nil)
	cli.deliver(t, t1.Add(20*time.Millisecond), srv.packet(t, t1, false))

	t2 := t1.Add(20 * time.Millisecond)
	in := cli.conn.Debug().Incoming
	if len(in) != 1 {
		t.Fatalf("incoming %+v, want B only (A never arrived)", in)
	}
	b := in[0]
	if b.Seq != seqB || b.First != 'B' || b.Arrived != t2 || !b.Executed.IsZero() || b.Outgoing {
		t.Fatalf("B on the receiver: %+v, want arrived at %v, not executed", b, t2)
	}
	if len(b.Deps) != 1 || b.Deps[0].Seq != seqA || b.Deps[0].Done || b.Deps[0].Pruned {
		t.Fatalf("B's dependencies on the receiver %+v, want A, not done", b.Deps)
	}
	if d := cli.conn.Debug(); !b.Waited || d.Waited() != 1 {
		t.Fatalf("B waits for A: Waited %v, the history counts %d waiting, want true and 1", b.Waited, d.Waited())
	}

	// The ack of B's packet: B is acked, A's packet is known lost.
	t3 := t2.Add(time.Millisecond)
	srv.deliver(t, t3.Add(20*time.Millisecond), cli.packet(t, t3, true))
	t4 := t3.Add(20 * time.Millisecond)
	out := srv.conn.Debug().Outgoing
	ra, rb := recordOf(t, out, seqA), recordOf(t, out, seqB)
	if ra.Sent != t0 || ra.Sends != 1 || !ra.Acked.IsZero() || !ra.Executed.IsZero() {
		t.Fatalf("A on the sender: %+v, want sent once at %v, unacknowledged", ra, t0)
	}
	if rb.Acked != t4 || !rb.Executed.IsZero() || len(rb.Deps) != 1 || rb.Deps[0].Done || rb.Deps[0].Pruned {
		t.Fatalf("B on the sender: %+v, want acked at %v and waiting for A", rb, t4)
	}
	if ra.Serial >= rb.Serial {
		t.Fatalf("serials A %d, B %d: want the order the entries were made in", ra.Serial, rb.Serial)
	}

	// A goes again, at once (its packet is lost), and arrives: A and B execute together.
	cli.deliver(t, t4.Add(20*time.Millisecond), srv.packet(t, t4, false))
	t5 := t4.Add(20 * time.Millisecond)
	in = cli.conn.Debug().Incoming
	if len(in) != 2 || in[1].Seq != seqA || in[1].Arrived != t5 || in[1].Executed != t5 || in[0].Executed != t5 {
		t.Fatalf("incoming after A's resend %+v, want A arrived and both executed at %v", in, t5)
	}
	if !in[0].Deps[0].Done {
		t.Fatalf("B's dependency on A is not done after A executed: %+v", in[0].Deps)
	}
	if d := cli.conn.Debug(); in[1].Waited || d.Waited() != 1 {
		t.Fatalf("after A's resend: A waited %v, the history counts %d that waited; want false (A named nothing) and 1 (B)", in[1].Waited, d.Waited())
	}
	srv.deliver(t, t5.Add(20*time.Millisecond), cli.packet(t, t5, true))
	t6 := t5.Add(20 * time.Millisecond)
	out = srv.conn.Debug().Outgoing
	ra, rb = recordOf(t, out, seqA), recordOf(t, out, seqB)
	if ra.Sends != 2 || ra.Acked != t6 || ra.Executed != t6 || rb.Executed != t6 || !rb.Deps[0].Done {
		t.Fatalf("sender after A's ack: A %+v, B %+v; want A sent twice, both executed at %v", ra, rb, t6)
	}
}

// TestHistoryPrunedEdges: a dependency the local graph executed before the message was sent
// never goes on the wire and is marked pruned; one that executes between a message's first
// send and its resend is marked pruned from then on.
func TestHistoryPrunedEdges(t *testing.T) {
	srv, cli := newEndpoint("server", histConfig(8)), newEndpoint("client", histConfig(8))
	now := base
	var chat Chain
	first, err := chat.Send(srv.conn, now, []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	cli.deliver(t, now, srv.packet(t, now, false))
	srv.deliver(t, now, cli.packet(t, now, true)) // the first line is acked and executed locally
	second, err := chat.Send(srv.conn, now, []byte("again"))
	if err != nil {
		t.Fatal(err)
	}
	r := recordOf(t, srv.conn.Debug().Outgoing, second)
	if len(r.Deps) != 1 || r.Deps[0].Seq != first || !r.Deps[0].Pruned || !r.Deps[0].Done {
		t.Fatalf("the second chat line's dependencies %+v, want the first line (#%d), pruned", r.Deps, first)
	}
	if got := recordOf(t, srv.conn.Debug().Outgoing, first); len(got.Deps) != 0 {
		t.Fatalf("the first chat line depends on %+v, want nothing (a chain's head)", got.Deps)
	}
	cli.deliver(t, now, srv.packet(t, now, false))
	if r := recordOf(t, cli.conn.Debug().Incoming, second); len(r.Deps) != 0 {
		t.Fatalf("the receiver got the second line with dependencies %+v, want none: the sender pruned it", r.Deps)
	}

	// Pruned at a resend: C arrives, D (depending on C) is lost; C's ack makes C executed,
	// so D's resend leaves the dependency off.
	var c depgraph.Dependency
	mustSend(t, srv.conn, now, "C", nil, &c)
	cli.deliver(t, now, srv.packet(t, now, false))
	seqD := mustSend(t, srv.conn, now, "D", []*depgraph.Dependency{&c}, nil)
	srv.packet(t, now, false) // D: lost
	if r := recordOf(t, srv.conn.Debug().Outgoing, seqD); r.Deps[0].Pruned {
		t.Fatalf("D's dependency %+v is pruned before C executed", r.Deps)
	}
	now = now.Add(30 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true)) // acks C's packet only: D's never came
	now = now.Add(time.Second)                    // the resend delay passes
	cli.deliver(t, now, srv.packet(t, now, false))
	if r := recordOf(t, srv.conn.Debug().Outgoing, seqD); r.Sends != 2 || !r.Deps[0].Pruned {
		t.Fatalf("D after its resend: %+v, want sent twice, its dependency pruned", r)
	}
	if r := recordOf(t, cli.conn.Debug().Incoming, seqD); len(r.Deps) != 0 || r.Executed.IsZero() {
		t.Fatalf("D on the receiver: %+v, want it executed, with no dependency on the wire", r)
	}
}

// TestHistoryBound: the history keeps the latest Config.History messages of each direction,
// oldest first, and a message's first RecordDeps dependencies with a count of the others.
func TestHistoryBound(t *testing.T) {
	srv := newEndpoint("server", histConfig(4))
	now := base
	handles := make([]depgraph.Dependency, RecordDeps+3)
	for i := range handles {
		mustSend(t, srv.conn, now, fmt.Sprint(i), nil, &handles[i])
	}
	deps := make([]*depgraph.Dependency, len(handles))
	for i := range handles {
		deps[i] = &handles[i]
	}
	last := mustSend(t, srv.conn, now, "barrier", deps, nil)
	out := srv.conn.Debug().Outgoing
	if len(out) != 4 {
		t.Fatalf("%d records, want the bound, 4", len(out))
	}
	for i, r := range out {
		if want := last - 3 + uint16(i); r.Seq != want {
			t.Fatalf("record %d is #%d, want #%d (the latest four, oldest first)", i, r.Seq, want)
		}
		if i > 0 && r.Serial <= out[i-1].Serial {
			t.Fatalf("serials %d then %d: not increasing", out[i-1].Serial, r.Serial)
		}
	}
	if b := out[3]; len(b.Deps) != RecordDeps || b.MoreDeps != 3 || b.Deps[0].Seq != 0 {
		t.Fatalf("the barrier keeps %d dependencies (first %+v) and counts %d more, want %d and 3", len(b.Deps), b.Deps[0], b.MoreDeps, RecordDeps)
	}
	if got := New(Config{History: MaxHistory + 5}, func(*Message) {}).cfg.History; got != MaxHistory {
		t.Fatalf("History %d, want it capped at %d", got, MaxHistory)
	}
}

// TestHistoryOff: without Config.History the connection keeps none, and the snapshot says so.
func TestHistoryOff(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	mustSend(t, srv.conn, base, "A", nil, nil)
	cli.deliver(t, base, srv.packet(t, base, false))
	if srv.conn.hist != nil || srv.conn.Debug().Outgoing != nil || cli.conn.Debug().Incoming != nil {
		t.Fatal("a connection without Config.History keeps a history")
	}
}

// TestHistorySnapshotIsACopy: a snapshot does not change when the connection goes on.
func TestHistorySnapshotIsACopy(t *testing.T) {
	srv, cli := newEndpoint("server", histConfig(2)), newEndpoint("client", histConfig(2))
	var a depgraph.Dependency
	mustSend(t, srv.conn, base, "A", nil, &a)
	mustSend(t, srv.conn, base, "B", []*depgraph.Dependency{&a}, nil)
	d := srv.conn.Debug()
	before := fmt.Sprintf("%+v", d.Outgoing)
	cli.deliver(t, base, srv.packet(t, base, false))
	srv.deliver(t, base, cli.packet(t, base, true))
	mustSend(t, srv.conn, base, "C", nil, nil)
	if after := fmt.Sprintf("%+v", d.Outgoing); after != before {
		t.Fatalf("the snapshot changed:\n%s\nwant\n%s", after, before)
	}
}

// TestHistoryFragments: a fragmented message is one entry, with its pieces counted, on both
// sides; it arrives when its last fragment does.
func TestHistoryFragments(t *testing.T) {
	srv, cli := newEndpoint("server", histConfig(4)), newEndpoint("client", histConfig(4))
	big := make([]byte, 5000)
	big[0] = 'F'
	seq, err := srv.conn.SendGuaranteed(base, big, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		d, ok := srv.conn.AppendPacket(nil, base, false)
		if !ok {
			break
		}
		cli.deliver(t, base, d)
	}
	out, in := recordOf(t, srv.conn.Debug().Outgoing, seq), recordOf(t, cli.conn.Debug().Incoming, seq)
	if out.Pieces < 2 || out.Sends != out.Pieces || out.First != 'F' {
		t.Fatalf("sent record %+v, want several pieces, each sent once", out)
	}
	if in.Pieces != out.Pieces || in.Executed != base || len(cli.conn.Debug().Incoming) != 1 {
		t.Fatalf("received record %+v, want one entry of %d pieces, executed", in, out.Pieces)
	}
}

// TestWaitedCounts: a message that arrives before its dependency waits in the receiver's
// graph and is counted once; one whose dependency executed already is not.
func TestWaitedCounts(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	var spawn depgraph.Dependency
	if _, err := srv.conn.SendGuaranteed(now, []byte("spawn"), nil, &spawn); err != nil {
		t.Fatal(err)
	}
	drain(srv, now) // lost
	now = now.Add(time.Millisecond)
	if _, err := srv.conn.SendGuaranteed(now, []byte("kill"), []*depgraph.Dependency{&spawn}, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range drain(srv, now) {
		cli.deliver(t, now, d)
	}
	if w := cli.conn.Stats().Waited; w != 1 {
		t.Fatalf("the kill ahead of its spawn: Waited = %d, want 1", w)
	}
	now = now.Add(srv.conn.Stats().ResendDelay)
	for _, d := range drain(srv, now) {
		cli.deliver(t, now, d)
	}
	if got := cli.payloads(); !slices.Equal(got, []string{"spawn", "kill"}) {
		t.Fatalf("executed %q, want the spawn, then the kill", got)
	}
	if _, err := srv.conn.SendGuaranteed(now, []byte("chat"), []*depgraph.Dependency{&spawn}, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range drain(srv, now) {
		cli.deliver(t, now, d)
	}
	if w := cli.conn.Stats().Waited; w != 1 {
		t.Fatalf("a message whose dependency had executed: Waited = %d, want still 1", w)
	}
}
