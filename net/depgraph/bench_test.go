package depgraph

import (
	"math/rand/v2"
	"testing"
	"time"
)

// inFlight is a batch of 10,000 messages with random dependencies on recent ones, and a
// random order in which their acknowledgements come back.
type inFlight struct {
	deps    [][]uint16 // offsets back from the message, 1..50
	arrival []int
	buf     []uint16
}

func newInFlight(n int) *inFlight {
	rng := rand.New(rand.NewPCG(7, 7))
	f := &inFlight{deps: make([][]uint16, n), arrival: rng.Perm(n)}
	for i := range n {
		for range rng.IntN(4) {
			if back := 1 + rng.IntN(50); back <= i {
				f.deps[i] = append(f.deps[i], uint16(back))
			}
		}
	}
	return f
}

// round adds the batch to g starting at seq first, acknowledges it in random order, then
// lets it expire. Every message executes.
func (f *inFlight) round(g *Graph[int], now time.Time, first uint16) time.Time {
	for i, back := range f.deps {
		f.buf = f.buf[:0]
		for _, b := range back {
			f.buf = append(f.buf, (first+uint16(i)-b)&SeqMask)
		}
		if _, err := g.Add(now, (first+uint16(i))&SeqMask, f.buf, i, false); err != nil {
			panic(err)
		}
	}
	for _, i := range f.arrival {
		g.Arrive(now, (first+uint16(i))&SeqMask)
	}
	now = now.Add(g.cfg.Expiry)
	if err := g.Expire(now); err != nil || g.Len() != 0 {
		panic("batch did not drain")
	}
	return now
}

func BenchmarkGraph10000InFlight(b *testing.B) {
	const n = 10_000
	f := newInFlight(n)
	executed := 0
	g := New(Config{Expiry: time.Second, KeepUnexecuted: true}, func(uint16, int) { executed++ })
	now := at(0)
	first := uint16(0)
	now = f.round(g, now, first) // warm the slab and queues
	b.ReportAllocs()
	for b.Loop() {
		first += n // wraps through the sequence space
		now = f.round(g, now, first)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/msg")
	if executed != n*(b.N+1) {
		b.Fatalf("executed %d", executed)
	}
}

// steady is one guaranteed message through both graphs per call: sent with a dependency on
// the previous message (a channel), delivered, and acknowledged one message later, so every
// message still carries its predecessor on the wire; nodes expire 1,000 messages later.
type steady struct {
	s     *Sender
	r     *Graph[int]
	h     Dependency
	deps  []*Dependency
	wire  []uint16
	now   time.Time
	seq   uint16
	count int
}

func newSteady() *steady {
	st := &steady{s: NewSender(100 * time.Millisecond), now: at(0)}
	st.r = New(Config{Expiry: 100 * time.Millisecond}, func(uint16, int) { st.count++ })
	st.deps = []*Dependency{&st.h}
	st.wire = make([]uint16, 0, 4)
	return st
}

func (st *steady) step() {
	st.now = st.now.Add(100 * time.Microsecond)
	var err error
	st.wire, err = st.s.Send(st.now, st.seq, st.deps, &st.h, st.wire)
	if err != nil {
		panic(err)
	}
	if _, err := st.r.Add(st.now, st.seq, st.wire, int(st.seq), true); err != nil {
		panic(err)
	}
	if len(st.wire) != 1 && st.count > 1 {
		panic("the previous message should not be pruned yet")
	}
	st.s.Acked(st.now, (st.seq-1)&SeqMask)
	st.s.Expire(st.now)
	if err := st.r.Expire(st.now); err != nil {
		panic(err)
	}
	st.seq = (st.seq + 1) & SeqMask
}

func BenchmarkSteadyState(b *testing.B) {
	st := newSteady()
	for range 2 * SeqSpace { // wrap once so every buffer has reached its size
		st.step()
	}
	b.ReportAllocs()
	for b.Loop() {
		st.step()
	}
}

func TestSteadyStateNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	st := newSteady()
	for range 2 * SeqSpace {
		st.step()
	}
	if a := testing.AllocsPerRun(10_000, st.step); a != 0 {
		t.Fatalf("%v allocations per message in steady state", a)
	}
	f := newInFlight(10_000)
	g := New(Config{Expiry: time.Second, KeepUnexecuted: true}, func(uint16, int) {})
	now := f.round(g, at(0), 0)
	first := uint16(0)
	if a := testing.AllocsPerRun(5, func() { first += 10_000; now = f.round(g, now, first) }); a != 0 {
		t.Fatalf("%v allocations per batch of 10,000 in flight", a)
	}
}
