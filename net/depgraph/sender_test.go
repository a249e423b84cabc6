package depgraph

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// conn connects a Sender to a receiver graph by hand: tests decide what is delivered and
// what is acknowledged.
type conn struct {
	t       *testing.T
	s       *Sender
	r       *Graph[string]
	recv    []uint16 // receiver execution order
	local   []uint16 // sender local execution order (OnExecuted)
	payload map[uint16]string
	wire    map[uint16][]uint16 // the dependency list of the last copy sent
}

func newLink(t *testing.T, expiry time.Duration) *conn {
	l := &conn{t: t, s: NewSender(expiry), payload: map[uint16]string{}, wire: map[uint16][]uint16{}}
	l.r = New(Config{Expiry: expiry}, func(seq uint16, v string) {
		if v != l.payload[seq] {
			t.Errorf("receiver executed %d with %q, want %q", seq, v, l.payload[seq])
		}
		l.recv = append(l.recv, seq)
	})
	l.s.OnExecuted = func(seq uint16) {
		if !l.r.Executed(seq) {
			t.Errorf("sender executed %d locally before the receiver did", seq)
		}
		l.local = append(l.local, seq)
	}
	return l
}

// send registers a message and returns its wire dependencies.
func (l *conn) send(now time.Time, seq uint16, payload string, out *Dependency, deps ...*Dependency) []uint16 {
	l.t.Helper()
	wire, err := l.s.Send(now, seq, deps, out, nil)
	if err != nil {
		l.t.Fatalf("Send(%d): %v", seq, err)
	}
	l.payload[seq] = payload
	l.wire[seq] = wire
	return wire
}

// resend refreshes the wire dependencies of seq as a resend would carry them.
func (l *conn) resend(seq uint16) []uint16 {
	l.wire[seq] = l.s.WireDeps(seq, nil)
	return l.wire[seq]
}

// deliver hands the last copy of seq to the receiver; ack then acknowledges it.
func (l *conn) deliver(now time.Time, seq uint16) {
	l.t.Helper()
	if _, err := l.r.Add(now, seq, l.wire[seq], l.payload[seq], true); err != nil {
		l.t.Fatalf("receiver Add(%d): %v", seq, err)
	}
}

func (l *conn) ack(now time.Time, seq uint16) { l.s.Acked(now, seq) }

func (l *conn) deliverAndAck(now time.Time, seq uint16) {
	l.t.Helper()
	l.deliver(now, seq)
	l.ack(now, seq)
}

func TestKillAnHourAfterSpawn(t *testing.T) {
	const expiry = 11 * time.Second // connection timeout 10 s + 1 s
	l := newLink(t, expiry)
	var spawn Dependency
	if wire := l.send(at(0), 10, "spawn enemy 17", &spawn); len(wire) != 0 {
		t.Fatalf("spawn wire deps %v", wire)
	}
	l.deliverAndAck(at(50*time.Millisecond), 10)
	if !spawn.Executed() {
		t.Fatal("spawn not executed locally after its ack")
	}

	// An hour passes; the graphs forget message 10 and the number is reused for something else.
	hour := at(time.Hour)
	l.s.Expire(hour)
	if err := l.r.Expire(hour); err != nil {
		t.Fatal(err)
	}
	if !l.s.Free(hour, 10) {
		t.Fatal("seq 10 not free after an hour")
	}
	l.send(hour, 10, "open door", nil) // in flight, not yet delivered

	var kill Dependency
	wire := l.send(hour, 11, "kill enemy 17", &kill, &spawn)
	if len(wire) != 0 {
		t.Fatalf("kill carries deps %v; the spawn executed long ago and must be pruned", wire)
	}
	if got := l.s.Stats().Pruned; got != 1 {
		t.Fatalf("Pruned = %d, want 1", got)
	}
	l.deliver(hour, 11)
	if !l.r.Executed(11) {
		t.Fatal("kill did not execute at once")
	}

	// Without pruning the stale number 10 would name the unrelated "open door" message.
	stale := New[string](Config{Expiry: expiry}, nil)
	_, _ = stale.Add(hour, 11, []uint16{10}, "kill enemy 17", true)
	if stale.Executed(11) {
		t.Fatal("a stale dependency should have held the kill back")
	}
}

func TestChatChain(t *testing.T) {
	// Two players chat through one sender: each line depends on the same player's previous
	// line. Alice's first line (seq 1) is lost; Bob's lines (even seqs) are not held up.
	l := newLink(t, time.Minute)
	var alice, bob Dependency
	now := at(0)
	wantWire := map[uint16][]uint16{
		1: nil, 2: nil,
		3: {1}, 4: nil, // Bob's first line was acked and executed: pruned
		5: {3}, 6: nil, // line 3 was acked but waits for 1 locally too: not pruned
		7: {5}, 8: nil,
	}
	for seq := uint16(1); seq <= 8; seq++ {
		now = now.Add(10 * time.Millisecond)
		h := &alice
		if seq%2 == 0 {
			h = &bob
		}
		wire := l.send(now, seq, "line", h, h) // the handle is both dependency and output
		if !slices.Equal(wire, wantWire[seq]) {
			t.Fatalf("line %d wire deps %v, want %v", seq, wire, wantWire[seq])
		}
		if seq != 1 {
			l.deliverAndAck(now, seq)
		}
	}
	if want := []uint16{2, 4, 6, 8}; !slices.Equal(l.recv, want) {
		t.Fatalf("receiver executed %v, want Bob's lines %v", l.recv, want)
	}
	if got := l.s.Outstanding(nil); !slices.Equal(got, []uint16{1, 3, 5, 7}) {
		t.Fatalf("Outstanding %v", got)
	}
	if got := l.resend(1); len(got) != 0 {
		t.Fatalf("resend of line 1 carries %v", got)
	}
	l.deliverAndAck(now.Add(time.Second), 1)
	if want := []uint16{2, 4, 6, 8, 1, 3, 5, 7}; !slices.Equal(l.recv, want) {
		t.Fatalf("receiver executed %v, want %v", l.recv, want)
	}
	if !slices.Equal(l.local, l.recv) {
		t.Fatalf("local order %v differs from receiver order %v", l.local, l.recv)
	}
	if !alice.Executed() || !bob.Executed() {
		t.Fatal("handles not executed")
	}
}

func TestSenderMirrorsReceiver(t *testing.T) {
	// A (seq 1) and B (seq 2, depends on A) are sent; the packet with A is lost.
	tests := []struct {
		name string
		// events after both sends: "dB" delivers B, "aB" acks it, and so on.
		events []string
	}{
		{"B acked before A resent", []string{"dB", "aB", "dA", "aA"}},
		{"A's ack lost, B acked", []string{"dB", "aB", "dA", "dA", "aA"}},
		{"acks in order", []string{"dB", "dA", "aA", "aB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLink(t, time.Minute)
			var a, b Dependency
			l.send(at(0), 1, "A", &a)
			if wire := l.send(at(0), 2, "B", &b, &a); !slices.Equal(wire, []uint16{1}) {
				t.Fatalf("B wire deps %v", wire)
			}
			for k, ev := range tt.events {
				seq := uint16(1)
				if ev[1] == 'B' {
					seq = 2
				}
				now := at(time.Duration(k+1) * time.Millisecond)
				if ev[0] == 'd' {
					l.deliver(now, seq)
				} else {
					l.ack(now, seq)
				}
				// B acked while A is not: B has arrived but must wait, on both sides.
				if l.r.Present(2) && !l.r.Executed(1) {
					if l.s.Executed(2) || b.Executed() {
						t.Fatalf("after %v: B executed locally before A", tt.events[:k+1])
					}
					if got := l.s.WireDeps(2, nil); !slices.Equal(got, []uint16{1}) {
						t.Fatalf("after %v: B's resend would carry %v", tt.events[:k+1], got)
					}
				}
			}
			if !slices.Equal(l.local, []uint16{1, 2}) || !slices.Equal(l.recv, []uint16{1, 2}) {
				t.Fatalf("local %v receiver %v", l.local, l.recv)
			}
			if !a.Executed() || !b.Executed() {
				t.Fatal("handles not marked executed")
			}
		})
	}

	t.Run("the acked message waits locally for its dependency", func(t *testing.T) {
		l := newLink(t, time.Minute)
		var a, b Dependency
		l.send(at(0), 1, "A", &a)
		l.send(at(0), 2, "B", &b, &a)
		l.deliverAndAck(at(time.Millisecond), 2)
		g := l.s.Graph()
		if g.Arrived(1) || !g.Arrived(2) || l.s.Executed(2) {
			t.Fatalf("arrived: A %v, B %v; B executed %v; want only B arrived, waiting", g.Arrived(1), g.Arrived(2), l.s.Executed(2))
		}
		if got := g.PendingDeps(2, nil); !slices.Equal(got, []uint16{1}) {
			t.Fatalf("B waits for %v, want [1]", got)
		}
		if got := l.s.Outstanding(nil); !slices.Equal(got, []uint16{1, 2}) {
			t.Fatalf("Outstanding = %v, want [1 2]", got)
		}
	})
}

func TestHandleRebind(t *testing.T) {
	t.Run("rebound handle ignores its old message", func(t *testing.T) {
		l := newLink(t, time.Minute)
		var h Dependency
		l.send(at(0), 1, "first", &h)
		l.send(at(0), 2, "second", &h)
		if seq, ok := h.Seq(); !ok || seq != 2 {
			t.Fatalf("Seq = %d, %v", seq, ok)
		}
		l.deliverAndAck(at(time.Millisecond), 1)
		if !l.s.Executed(1) || h.Executed() {
			t.Fatal("message 1 executed, but the handle now names message 2")
		}
		l.deliverAndAck(at(time.Millisecond), 2)
		if !h.Executed() {
			t.Fatal("handle not executed with message 2")
		}
	})
	t.Run("chain: out is also a dependency", func(t *testing.T) {
		l := newLink(t, time.Minute)
		var h Dependency
		l.send(at(0), 1, "first", &h)
		if wire := l.send(at(0), 2, "second", &h, &h); !slices.Equal(wire, []uint16{1}) {
			t.Fatalf("wire %v", wire)
		}
		l.deliverAndAck(at(time.Millisecond), 2)
		if h.Executed() {
			t.Fatal("message 2 executed without message 1")
		}
		l.deliverAndAck(at(time.Millisecond), 1)
		if !h.Executed() {
			t.Fatal("handle not executed")
		}
	})
	t.Run("rebinding an executed handle", func(t *testing.T) {
		l := newLink(t, time.Minute)
		var h Dependency
		l.send(at(0), 1, "first", &h)
		l.deliverAndAck(at(time.Millisecond), 1)
		l.send(at(time.Millisecond), 2, "second", &h)
		if h.Executed() {
			t.Fatal("a freshly bound handle reports executed")
		}
	})
	t.Run("release", func(t *testing.T) {
		l := newLink(t, time.Minute)
		var h Dependency
		l.send(at(0), 1, "first", &h)
		h.Release()
		if h.Bound() || h.Executed() {
			t.Fatal("released handle still bound")
		}
		if i := l.s.g.lookup(1); l.s.g.node(i).v != nil {
			t.Fatal("the graph still points at a released handle")
		}
		l.deliverAndAck(at(time.Millisecond), 1)
		if h.Bound() || h.Executed() {
			t.Fatal("execution touched a released handle")
		}
		// An unbound handle as a dependency is skipped.
		if wire := l.send(at(time.Millisecond), 2, "second", nil, &h, nil); len(wire) != 0 {
			t.Fatalf("wire %v", wire)
		}
	})
}

func TestForeignHandle(t *testing.T) {
	s1, s2 := NewSender(time.Minute), NewSender(time.Minute)
	var h Dependency
	if _, err := s1.Send(at(0), 1, nil, &h, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		deps []*Dependency
		out  *Dependency
	}{
		{"as dependency", []*Dependency{&h}, nil},
		{"as output", nil, &h},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wire, err := s2.Send(at(0), 1, tt.deps, tt.out, make([]uint16, 3))
			if !errors.Is(err, ErrForeignDependency) || len(wire) != 0 {
				t.Fatalf("Send = %v, %v; want ErrForeignDependency", wire, err)
			}
			if s2.Len() != 0 {
				t.Fatal("a failed Send changed the graph")
			}
			if seq, ok := h.Seq(); !ok || seq != 1 || h.s != s1 {
				t.Fatal("a failed Send changed the handle")
			}
		})
	}
	h.Release()
	if _, err := s2.Send(at(0), 1, nil, &h, nil); err != nil || h.s != s2 {
		t.Fatalf("released handle not usable by another sender: %v", err)
	}
}

func TestSeqReuseOnlyAfterExpiry(t *testing.T) {
	const expiry = time.Second
	s := NewSender(expiry)
	if _, err := s.Send(at(0), 5, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		now     time.Duration
		ack     bool
		want    bool // Free(5)
		comment string
	}{
		{0, false, false, "just sent"},
		{time.Hour, false, false, "unacked messages never expire on the sender"},
		{time.Hour, true, false, "acked: executed now, expires in a second"},
		{time.Hour + expiry - time.Nanosecond, false, false, "not yet"},
		{time.Hour + expiry, false, true, "expired"},
	}
	for _, st := range steps {
		if st.ack {
			s.Acked(at(st.now), 5)
		}
		if got := s.Free(at(st.now), 5); got != st.want {
			t.Fatalf("%s: Free = %v, want %v", st.comment, got, st.want)
		}
		if !st.want {
			if _, err := s.Send(at(st.now), 5, nil, nil, nil); !errors.Is(err, ErrSeqInUse) {
				t.Fatalf("%s: Send = %v, want ErrSeqInUse", st.comment, err)
			}
		}
	}
	if _, err := s.Send(at(time.Hour+expiry), 5, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestOutstandingAcrossWrap(t *testing.T) {
	s := NewSender(time.Minute)
	for _, seq := range []uint16{32766, 32767, 0, 1} {
		if _, err := s.Send(at(0), seq, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	s.Acked(at(0), 0)
	if got := s.Outstanding([]uint16{99}); !slices.Equal(got, []uint16{99, 32766, 32767, 1}) {
		t.Fatalf("Outstanding = %v", got)
	}
}

func TestWrapManyTimes(t *testing.T) {
	// One long chain through the whole sequence space, wrapping 100 times. Message j depends
	// on message j-1 and, every seventh, also on message j-3 (usually pruned); the handles are
	// a ring of four, each rebound to a new message every fourth send. Packets arrive in
	// swapped pairs, so every other message waits for its predecessor on both sides.
	wraps := 100
	if testing.Short() || raceEnabled {
		wraps = 5
	}
	const expiry = 100 * time.Millisecond
	total := wraps * SeqSpace
	s := NewSender(expiry)
	next := 0 // the next message the receiver must execute
	r := New(Config{Expiry: expiry}, func(_ uint16, v int) {
		if v != next {
			t.Fatalf("receiver executed message %d, want %d", v, next)
		}
		next++
	})
	var ring [4]Dependency
	deps := make([]*Dependency, 0, 2)
	var wires [2][]uint16
	now := at(0)
	for i := 0; i < total; i += 2 {
		for k := range 2 {
			j := i + k
			seq := uint16(j) & SeqMask
			if !s.Free(now, seq) {
				t.Fatalf("message %d: seq %d not free", j, seq)
			}
			deps = append(deps[:0], &ring[(j+3)%4])
			if j%7 == 0 {
				deps = append(deps, &ring[(j+1)%4])
			}
			w, err := s.Send(now, seq, deps, &ring[j%4], wires[k])
			if err != nil {
				t.Fatal(err)
			}
			wires[k] = w
		}
		if len(wires[0]) != 0 || (!slices.Equal(wires[1], []uint16{uint16(i) & SeqMask})) {
			t.Fatalf("messages %d, %d: wire deps %v %v", i, i+1, wires[0], wires[1])
		}
		now = now.Add(time.Millisecond)
		for _, k := range []int{1, 0} {
			if _, err := r.Add(now, uint16(i+k)&SeqMask, wires[k], i+k, true); err != nil {
				t.Fatal(err)
			}
		}
		s.Acked(now, uint16(i+1)&SeqMask)
		s.Acked(now, uint16(i)&SeqMask)
		s.Expire(now)
		if err := r.Expire(now); err != nil {
			t.Fatal(err)
		}
	}
	if next != total {
		t.Fatalf("receiver executed %d messages, want %d", next, total)
	}
	st := r.Stats()
	if st.Ignored != 0 || st.ExpiredUnexecuted != 0 || st.MaxLen > 2*int(expiry/time.Millisecond)+4 {
		t.Fatalf("receiver stats %+v", st)
	}
	if ss := s.Stats(); ss.Sent != uint64(total) || ss.WireDeps != uint64(total/2) || ss.Pruned == 0 {
		t.Fatalf("sender stats %+v", ss)
	}
}
