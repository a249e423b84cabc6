package depgraph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestRandomAgainstModel feeds random dependency graphs, delivered in random order with
// random duplicates, to a Graph and to a naive reference model that re-scans every waiting
// message after each delivery. After every delivery both must have executed the same set;
// each message must execute exactly once and after all its dependencies.
func TestRandomAgainstModel(t *testing.T) {
	trials := 200
	if testing.Short() {
		trials = 5
	}
	for seed := range uint64(trials) {
		rng := rand.New(rand.NewPCG(seed, 1))
		n := 200 + rng.IntN(400)
		offset := 32_700 // the sequence numbers wrap inside the run
		seqOf := func(i int) uint16 { return uint16(offset+i) & SeqMask }
		idOf := make(map[uint16]int, n)
		deps := make([][]int, n)
		wire := make([][]uint16, n)
		for i := range n {
			idOf[seqOf(i)] = i
			if i == 0 {
				continue
			}
			for range rng.IntN(4) {
				d := max(0, i-1-rng.IntN(30))
				deps[i] = append(deps[i], d) // repeats allowed
				wire[i] = append(wire[i], seqOf(d))
			}
		}
		var deliveries []int
		for i := range n {
			deliveries = append(deliveries, i)
			if rng.IntN(4) == 0 {
				for range 1 + rng.IntN(2) {
					deliveries = append(deliveries, i)
				}
			}
		}
		rng.Shuffle(len(deliveries), func(a, b int) { deliveries[a], deliveries[b] = deliveries[b], deliveries[a] })

		executed := make([]bool, n) // by the graph
		var fresh []int             // executed by the graph during the current delivery
		g := New(Config{Expiry: time.Hour}, func(seq uint16, v int) {
			if idOf[seq] != v {
				t.Fatalf("seed %d: seq %d executed with payload %d", seed, seq, v)
			}
			if executed[v] {
				t.Fatalf("seed %d: message %d executed twice", seed, v)
			}
			for _, d := range deps[v] {
				if !executed[d] {
					t.Fatalf("seed %d: message %d executed before its dependency %d", seed, v, d)
				}
			}
			executed[v] = true
			fresh = append(fresh, v)
		})

		// The reference model.
		delivered := make([]bool, n)
		done := make([]bool, n)
		var waiting, want []int
		model := func(i int) []int {
			want = want[:0]
			if delivered[i] {
				return want
			}
			delivered[i] = true
			waiting = append(waiting, i)
			for changed := true; changed; {
				changed = false
				for k := 0; k < len(waiting); k++ {
					j := waiting[k]
					ready := true
					for _, d := range deps[j] {
						ready = ready && done[d]
					}
					if ready {
						done[j] = true
						want = append(want, j)
						waiting = slices.Delete(waiting, k, k+1)
						k--
						changed = true
					}
				}
			}
			return want
		}

		now := at(0)
		for step, i := range deliveries {
			now = now.Add(time.Duration(rng.IntN(3)) * time.Millisecond)
			first := !delivered[i]
			fresh = fresh[:0]
			added, err := g.Add(now, seqOf(i), wire[i], i, true)
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if added != first {
				t.Fatalf("seed %d step %d: Add(%d) = %v, want %v", seed, step, i, added, first)
			}
			exp := model(i)
			slices.Sort(fresh)
			slices.Sort(exp)
			if !slices.Equal(fresh, exp) {
				t.Fatalf("seed %d step %d (message %d): graph executed %v, model %v", seed, step, i, fresh, exp)
			}
			if step%50 == 0 {
				if err := g.Expire(now); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		}
		for i := range n {
			if !executed[i] {
				t.Fatalf("seed %d: message %d never executed", seed, i)
			}
		}
		if w := g.WaitingCount(); w != 0 || g.Len() != n {
			t.Fatalf("seed %d: Len %d, %d waiting", seed, g.Len(), w)
		}
		if st := g.Stats(); st.Executed != uint64(n) || st.Ignored+st.Duplicates != uint64(len(deliveries)-n) {
			t.Fatalf("seed %d: stats %+v", seed, st)
		}
	}
}

// TestRandomSenderReceiver runs a Sender and a receiver Graph over a simulated lossy link
// (loss both ways, delay, duplication, reordering, resends every 30 ms until acknowledged)
// long enough for the sequence numbers to wrap. It checks the property the pruning rests on:
// whenever the sender's local graph executes a message, the receiver has already executed it.
// And the receiver executes every message exactly once, after all the messages its handles
// named (pruned or not).
//
// It runs twice: with numbers freed by expiry (NewSender), and with the window rule
// (NewWindowSender and Config.Window), where a number comes round again as soon as the
// messages Window before it executed locally, seconds before its old node would expire. The
// link delays a copy by at most 40 ms, and a number comes round only after Window more
// messages, at most one per millisecond: no copy of its old message is still in flight, as the
// packet layer's stale rule guarantees on a real connection (net/message's documentation).
// With the window the nodes expire only after an hour, so the window alone frees the numbers.
func TestRandomSenderReceiver(t *testing.T) {
	for _, window := range []bool{false, true} {
		t.Run(fmt.Sprintf("window=%v", window), func(t *testing.T) { randomSenderReceiver(t, window) })
	}
}

func randomSenderReceiver(t *testing.T, window bool) {
	expiry := 2 * time.Second
	if window {
		expiry = time.Hour
	}
	const (
		tick     = time.Millisecond
		loss     = 4  // 1 in loss packets is lost, each way
		dup      = 20 // 1 in dup packets is duplicated
		maxDelay = 40 // ms
		resend   = 30 * time.Millisecond
	)
	steps := 40_000 // more than SeqSpace messages: the numbers wrap
	if testing.Short() {
		steps = 5_000
	}
	for _, seed := range []uint64{1, 2} {
		rng := rand.New(rand.NewPCG(seed, 2))

		type message struct {
			id       int
			seq      uint16
			deps     []int // messages named through handles, pruned or not
			lastSent time.Time
			acked    bool
		}
		type event struct {
			data bool
			seq  uint16
			id   int
			wire []uint16
		}
		var (
			msgs      []*message
			seqID     [SeqSpace]int // the message a seq currently means, on the sender
			recvDone  []bool
			localDone []bool
			inflight  []*message
			buckets   [64][]event
			handles   [16]Dependency
			handleID  [16]int
			now       = at(0)
			nextSeq   uint16
		)
		for k := range handleID {
			handleID[k] = -1
		}

		r := New(Config{Expiry: expiry, Window: window}, func(seq uint16, id int) {
			if recvDone[id] {
				t.Fatalf("seed %d: message %d executed twice", seed, id)
			}
			for _, d := range msgs[id].deps {
				if !recvDone[d] {
					t.Fatalf("seed %d: message %d executed before its dependency %d", seed, id, d)
				}
			}
			recvDone[id] = true
		})
		s := NewSender(expiry)
		if window {
			s = NewWindowSender(expiry)
		}
		s.OnExecuted = func(seq uint16) {
			id := seqID[seq]
			if !recvDone[id] {
				t.Fatalf("seed %d: sender executed message %d locally before the receiver", seed, id)
			}
			localDone[id] = true
		}

		schedule := func(e event) {
			slot := (int(now.Sub(base)/tick) + 1 + rng.IntN(maxDelay)) % len(buckets)
			buckets[slot] = append(buckets[slot], e)
		}
		transmit := func(e event) {
			if rng.IntN(loss) != 0 {
				schedule(e)
			}
			if rng.IntN(dup) == 0 {
				schedule(e)
			}
		}
		var depBuf []*Dependency
		for step := range steps {
			now = now.Add(tick)
			// Deliver what is due, in random order.
			due := &buckets[int(now.Sub(base)/tick)%len(buckets)]
			rng.Shuffle(len(*due), func(a, b int) { (*due)[a], (*due)[b] = (*due)[b], (*due)[a] })
			for _, e := range *due {
				if e.data {
					if _, err := r.Add(now, e.seq, e.wire, e.id, true); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					transmit(event{seq: e.seq})
					continue
				}
				s.Acked(now, e.seq)
				msgs[seqID[e.seq]].acked = true
			}
			*due = (*due)[:0]

			// Send a new message most of the time, for all but the last 3 s.
			if step < steps-3000 && rng.IntN(10) != 0 && s.Free(now, nextSeq) {
				m := &message{id: len(msgs), seq: nextSeq, lastSent: now}
				depBuf = depBuf[:0]
				for range rng.IntN(4) {
					k := rng.IntN(len(handles))
					depBuf = append(depBuf, &handles[k])
					if handleID[k] >= 0 {
						m.deps = append(m.deps, handleID[k])
					}
				}
				out := rng.IntN(len(handles))
				msgs = append(msgs, m)
				recvDone = append(recvDone, false)
				localDone = append(localDone, false)
				seqID[nextSeq] = m.id
				wire, err := s.Send(now, nextSeq, depBuf, &handles[out], nil)
				if err != nil {
					t.Fatalf("seed %d: Send: %v", seed, err)
				}
				handleID[out] = m.id
				inflight = append(inflight, m)
				transmit(event{data: true, seq: m.seq, id: m.id, wire: wire})
				nextSeq = (nextSeq + 1) & SeqMask
			}

			// Resend what is unacknowledged and was last sent a while ago.
			kept := inflight[:0]
			for _, m := range inflight {
				if m.acked {
					continue
				}
				kept = append(kept, m)
				if now.Sub(m.lastSent) >= resend {
					m.lastSent = now
					transmit(event{data: true, seq: m.seq, id: m.id, wire: s.WireDeps(m.seq, nil)})
				}
			}
			inflight = kept

			s.Expire(now)
			if err := r.Expire(now); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
		if len(msgs) <= SeqSpace && !testing.Short() {
			t.Fatalf("seed %d: only %d messages, the sequence numbers did not wrap", seed, len(msgs))
		}
		for id := range msgs {
			if !recvDone[id] || !localDone[id] {
				t.Fatalf("seed %d: message %d receiver %v local %v", seed, id, recvDone[id], localDone[id])
			}
		}
		if st := s.Stats(); st.Pruned == 0 || st.Sent != uint64(len(msgs)) {
			t.Fatalf("seed %d: sender stats %+v", seed, st)
		}
		if st := r.Stats(); st.ExpiredUnexecuted != 0 || st.Executed != uint64(len(msgs)) {
			t.Fatalf("seed %d: receiver stats %+v", seed, st)
		}
		if forgotten := r.Stats().Forgotten + s.Stats().Graph.Forgotten; window && forgotten == 0 && !testing.Short() {
			t.Fatalf("seed %d: the window freed no number", seed)
		}
	}
}
