package depgraph

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var base = time.Unix(1_000_000, 0)

func at(d time.Duration) time.Time { return base.Add(d) }

// receiver is a receiver-side graph that records the order of execution.
type receiver struct {
	g     *Graph[string]
	order []uint16
	vals  []string
}

func newReceiver(expiry time.Duration) *receiver {
	r := &receiver{}
	r.g = New(Config{Expiry: expiry}, func(seq uint16, v string) {
		r.order = append(r.order, seq)
		r.vals = append(r.vals, v)
	})
	return r
}

func (r *receiver) add(t *testing.T, now time.Time, seq uint16, deps ...uint16) bool {
	t.Helper()
	added, err := r.g.Add(now, seq, deps, "m"+strconv.Itoa(int(seq)), true)
	if err != nil {
		t.Fatalf("Add(%d, %v): %v", seq, deps, err)
	}
	return added
}

func TestBBeforeA(t *testing.T) {
	const a, b = 7, 8
	tests := []struct {
		name   string
		arrive []uint16 // message b depends on a
	}{
		{"in order", []uint16{a, b}},
		{"B first", []uint16{b, a}},
		{"B twice, then A", []uint16{b, b, a}},
		{"B, A, duplicates after", []uint16{b, a, b, a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(time.Minute)
			for k, seq := range tt.arrive {
				var deps []uint16
				if seq == b {
					deps = []uint16{a}
				}
				r.add(t, at(time.Duration(k)*time.Millisecond), seq, deps...)
				if r.g.Executed(b) && !r.g.Executed(a) {
					t.Fatalf("B executed before A")
				}
			}
			if want := []uint16{a, b}; !slices.Equal(r.order, want) {
				t.Fatalf("order %v, want %v", r.order, want)
			}
		})
	}

	t.Run("B waits visibly", func(t *testing.T) {
		r := newReceiver(time.Minute)
		r.add(t, at(0), b, a)
		if len(r.order) != 0 {
			t.Fatalf("executed %v before A arrived", r.order)
		}
		if !r.g.Present(a) || r.g.Arrived(a) || r.g.Executed(a) {
			t.Fatal("A is not a placeholder")
		}
		if !r.g.Arrived(b) || r.g.WaitingCount() != 1 {
			t.Fatalf("B has not arrived and waits (%d waiting)", r.g.WaitingCount())
		}
		if got := r.g.PendingDeps(b, nil); !slices.Equal(got, []uint16{a}) {
			t.Fatalf("PendingDeps(B) = %v", got)
		}
		r.add(t, at(time.Second), a)
		if n := r.g.WaitingCount(); n != 0 || r.g.Arrived(b) {
			t.Fatalf("%d waiting after A", n)
		}
		if got := r.g.PendingDeps(b, nil); len(got) != 0 {
			t.Fatalf("PendingDeps(B) after A = %v", got)
		}
	})
}

func TestSpawnTenFirstLost(t *testing.T) {
	tests := []struct {
		name            string
		chained         bool // an ordered channel: each spawn depends on the previous one
		wantBeforeFirst int
	}{
		{"independent spawns", false, 9},
		{"ordered channel", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(time.Minute)
			deps := func(seq uint16) []uint16 {
				if tt.chained && seq > 100 {
					return []uint16{seq - 1}
				}
				return nil
			}
			// Spawns 100..109; the packet with 100 is lost and resent after the others.
			for seq := uint16(101); seq < 110; seq++ {
				r.add(t, at(time.Duration(seq)*time.Millisecond), seq, deps(seq)...)
			}
			if len(r.order) != tt.wantBeforeFirst {
				t.Fatalf("executed %v before the first spawn arrived, want %d", r.order, tt.wantBeforeFirst)
			}
			r.add(t, at(time.Second), 100)
			if len(r.order) != 10 {
				t.Fatalf("executed %v, want all 10", r.order)
			}
			if tt.chained && !slices.IsSorted(r.order) {
				t.Fatalf("channel order %v", r.order)
			}
		})
	}
}

func TestStartGameWaitsForNPlayerInfos(t *testing.T) {
	const start = 50
	for _, n := range []int{1, 2, 4, 8} {
		t.Run(strconv.Itoa(n)+" players", func(t *testing.T) {
			r := newReceiver(time.Minute)
			infos := make([]uint16, n)
			for i := range infos {
				infos[i] = uint16(10 + i)
			}
			// "start game" overtakes every player info.
			r.add(t, at(0), start, infos...)
			// Infos arrive last-first.
			for k := n - 1; k >= 0; k-- {
				if r.g.Executed(start) {
					t.Fatalf("start executed with %d infos missing", k+1)
				}
				if got := len(r.g.PendingDeps(start, nil)); got != k+1 {
					t.Fatalf("start waits for %d, want %d", got, k+1)
				}
				r.add(t, at(time.Duration(n-k)*time.Millisecond), infos[k])
			}
			if !r.g.Executed(start) || r.order[len(r.order)-1] != start || len(r.order) != n+1 {
				t.Fatalf("order %v: start must run last, after all %d infos", r.order, n)
			}
		})
	}
}

func TestAlreadyExecutedIgnored(t *testing.T) {
	tests := []struct {
		name           string
		ops            []uint16 // seqs added in order; 2 depends on 1
		wantOrder      []uint16
		wantIgnored    uint64
		wantDuplicates uint64
		wantVal2       string
	}{
		{"resent after executing", []uint16{1, 1, 1}, []uint16{1}, 2, 0, ""},
		{"waiting duplicate keeps the first copy", []uint16{2, 2, 1}, []uint16{1, 2}, 0, 1, "first"},
		{"both kinds", []uint16{2, 2, 1, 2, 1}, []uint16{1, 2}, 2, 1, "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(time.Minute)
			copies := 0
			for k, seq := range tt.ops {
				var deps []uint16
				v := "m1"
				if seq == 2 {
					deps = []uint16{1}
					v = "first"
					if copies > 0 {
						v = "later"
					}
					copies++
				}
				added, err := r.g.Add(at(time.Duration(k)), seq, deps, v, true)
				if err != nil {
					t.Fatal(err)
				}
				firstTime := slices.Index(tt.ops, seq) == k
				if added != firstTime {
					t.Fatalf("op %d: added = %v, want %v", k, added, firstTime)
				}
			}
			if !slices.Equal(r.order, tt.wantOrder) {
				t.Fatalf("order %v, want %v", r.order, tt.wantOrder)
			}
			if i := slices.Index(r.order, 2); i >= 0 && r.vals[i] != tt.wantVal2 {
				t.Fatalf("message 2 executed with %q, want %q", r.vals[i], tt.wantVal2)
			}
			st := r.g.Stats()
			if st.Ignored != tt.wantIgnored || st.Duplicates != tt.wantDuplicates {
				t.Fatalf("Ignored %d Duplicates %d, want %d %d", st.Ignored, st.Duplicates, tt.wantIgnored, tt.wantDuplicates)
			}
			if st.Executed != uint64(len(tt.wantOrder)) {
				t.Fatalf("Executed %d", st.Executed)
			}
		})
	}
}

func TestExpiryUnexecutedIsError(t *testing.T) {
	const expiry = 3 * time.Second
	tests := []struct {
		name      string
		keep      bool
		setup     func(g *Graph[string])
		wantErr   bool
		errSeq    string // text the error must name
		wantLen   int    // nodes left after expiry
		wantStats Stats
	}{
		{
			name:      "dependency never arrives",
			setup:     func(g *Graph[string]) { _, _ = g.Add(at(0), 2, []uint16{1}, "", true) },
			wantErr:   true,
			errSeq:    "dependency (never arrived) 1",
			wantStats: Stats{Added: 1, Placeholders: 1, ExpiredUnexecuted: 2, MaxLen: 2},
		},
		{
			name: "placeholder filled late keeps its age",
			setup: func(g *Graph[string]) {
				_, _ = g.Add(at(0), 2, []uint16{1}, "", true)
				_, _ = g.Add(at(expiry-time.Millisecond), 1, []uint16{0}, "", true)
			},
			wantErr: true,
			errSeq:  "message 1",
			wantLen: 1, // the placeholder for 0, created late, is not due yet
			wantStats: Stats{
				Added: 2, Placeholders: 2, ExpiredUnexecuted: 2, MaxLen: 3,
			},
		},
		{
			name:      "sender keeps unexecuted",
			keep:      true,
			setup:     func(g *Graph[string]) { _, _ = g.Add(at(0), 2, nil, "", false) },
			wantLen:   1,
			wantStats: Stats{Added: 1, MaxLen: 1},
		},
		{
			name:      "executed nodes leave quietly",
			setup:     func(g *Graph[string]) { _, _ = g.Add(at(0), 2, nil, "", true) },
			wantStats: Stats{Added: 1, Executed: 1, Expired: 1, MaxLen: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New[string](Config{Expiry: expiry, KeepUnexecuted: tt.keep}, nil)
			tt.setup(g)
			if tt.name != "placeholder filled late keeps its age" {
				if err := g.Expire(at(expiry - time.Nanosecond)); err != nil {
					t.Fatalf("early Expire: %v", err)
				}
			}
			err := g.Expire(at(expiry))
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrExpired)) {
				t.Fatalf("Expire = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.errSeq) {
				t.Fatalf("error %q does not name %q", err, tt.errSeq)
			}
			if err := g.Expire(at(expiry)); err != nil {
				t.Fatalf("error reported twice: %v", err)
			}
			if g.Len() != tt.wantLen {
				t.Fatalf("Len = %d, want %d", g.Len(), tt.wantLen)
			}
			if st := g.Stats(); st != tt.wantStats {
				t.Fatalf("Stats = %+v, want %+v", st, tt.wantStats)
			}
		})
	}
}

func TestNextExpiry(t *testing.T) {
	g := New[int](Config{Expiry: time.Second}, nil)
	if !g.NextExpiry().IsZero() {
		t.Fatal("empty graph has an expiry")
	}
	_, _ = g.Add(at(0), 2, []uint16{1}, 0, true)            // 1 and 2 wait, due at 1 s
	_, _ = g.Add(at(300*time.Millisecond), 1, nil, 0, true) // both execute, due at 1.3 s
	_, _ = g.Add(at(500*time.Millisecond), 5, []uint16{4}, 0, true)
	steps := []struct {
		now      time.Duration
		wantNext time.Duration
		wantLen  int
		wantErr  bool
	}{
		{400 * time.Millisecond, 1300 * time.Millisecond, 4, false},
		{1300 * time.Millisecond, 1500 * time.Millisecond, 2, false},
		{1500 * time.Millisecond, -1, 0, true},
	}
	for _, s := range steps {
		err := g.Expire(at(s.now))
		if (err != nil) != s.wantErr {
			t.Fatalf("at %v: Expire = %v", s.now, err)
		}
		if g.Len() != s.wantLen {
			t.Fatalf("at %v: Len = %d, want %d", s.now, g.Len(), s.wantLen)
		}
		next := g.NextExpiry()
		if s.wantNext < 0 {
			if !next.IsZero() {
				t.Fatalf("at %v: NextExpiry = %v, want none", s.now, next.Sub(base))
			}
		} else if !next.Equal(at(s.wantNext)) {
			t.Fatalf("at %v: NextExpiry = %v, want %v", s.now, next.Sub(base), s.wantNext)
		}
	}
}

func TestLazyExpiryAllowsReuse(t *testing.T) {
	r := newReceiver(time.Second)
	r.add(t, at(0), 9)
	if r.add(t, at(999*time.Millisecond), 9) {
		t.Fatal("re-added before expiry")
	}
	// No Expire call: the touched node is expired on the spot, so seq 9 means a new message.
	if !r.add(t, at(time.Second), 9) {
		t.Fatal("seq 9 not reusable after expiry")
	}
	if len(r.order) != 2 {
		t.Fatalf("order %v", r.order)
	}
	// A dependency on an unexecuted node that has expired is an error, reported by Expire.
	r2 := newReceiver(time.Second)
	r2.add(t, at(0), 3, 2)
	r2.add(t, at(2*time.Second), 4, 3) // 3 is lazily expired; 4 waits on a new placeholder
	if !r2.g.NextExpiry().Equal(at(2 * time.Second)) {
		t.Fatalf("NextExpiry = %v, want now", r2.g.NextExpiry().Sub(base))
	}
	if err := r2.g.Expire(at(2 * time.Second)); !errors.Is(err, ErrExpired) {
		t.Fatalf("Expire = %v, want ErrExpired", err)
	}
}

func TestAddErrors(t *testing.T) {
	tests := []struct {
		name string
		seq  uint16
		deps []uint16
		want error
	}{
		{"self", 5, []uint16{4, 5}, ErrSelfDependency},
		{"seq too big", SeqSpace, nil, ErrSeqRange},
		{"dep too big", 5, []uint16{0xffff}, ErrSeqRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(time.Second)
			added, err := r.g.Add(at(0), tt.seq, tt.deps, "", true)
			if added || !errors.Is(err, tt.want) {
				t.Fatalf("Add = %v, %v; want %v", added, err, tt.want)
			}
			if r.g.Len() != 0 || len(r.order) != 0 {
				t.Fatal("a rejected Add changed the graph")
			}
		})
	}
}

func TestDuplicateDepsCountOnce(t *testing.T) {
	r := newReceiver(time.Second)
	r.add(t, at(0), 3, 1, 1, 2, 1)
	if got := r.g.PendingDeps(3, nil); !slices.Equal(got, []uint16{1, 2}) {
		t.Fatalf("PendingDeps = %v", got)
	}
	r.add(t, at(0), 1)
	r.add(t, at(0), 2)
	if !slices.Equal(r.order, []uint16{1, 2, 3}) {
		t.Fatalf("order %v", r.order)
	}
}

func TestNowGoingBackwards(t *testing.T) {
	r := newReceiver(time.Second)
	r.add(t, at(10*time.Second), 1)
	r.add(t, at(0), 2) // counts as 10 s
	if err := r.g.Expire(at(10*time.Second + 999*time.Millisecond)); err != nil || r.g.Len() != 2 {
		t.Fatalf("Expire: %v, Len %d", err, r.g.Len())
	}
	if err := r.g.Expire(at(11 * time.Second)); err != nil || r.g.Len() != 0 {
		t.Fatalf("Expire: %v, Len %d", err, r.g.Len())
	}
}

func TestReentrantAdd(t *testing.T) {
	// The execute callback adds messages to the same graph; they run after the current
	// cascade step, still in dependency order and exactly once.
	var order []uint16
	var g *Graph[int]
	g = New(Config{Expiry: time.Second}, func(seq uint16, v int) {
		order = append(order, seq)
		if v > 0 {
			if _, err := g.Add(at(0), seq+100, []uint16{seq + 1}, v-1, true); err != nil {
				t.Error(err)
			}
		}
	})
	_, _ = g.Add(at(0), 2, []uint16{1}, 0, true)
	_, _ = g.Add(at(0), 1, nil, 1, true)
	if want := []uint16{1, 2, 101}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

func TestArriveSenderSide(t *testing.T) {
	var order []uint16
	g := New(Config{Expiry: time.Second, KeepUnexecuted: true}, func(seq uint16, _ int) { order = append(order, seq) })
	_, _ = g.Add(at(0), 1, nil, 0, false)
	_, _ = g.Add(at(0), 2, []uint16{1}, 0, false)
	g.Arrive(at(0), 3) // unknown: no-op
	g.Arrive(at(0), 2) // waits for 1
	if len(order) != 0 {
		t.Fatalf("executed %v", order)
	}
	g.Arrive(at(0), 1)
	g.Arrive(at(0), 1) // executed: no-op
	if !slices.Equal(order, []uint16{1, 2}) {
		t.Fatalf("order %v", order)
	}
}

func TestDeepChain(t *testing.T) {
	// 100,000 messages form one chain, each depending on the previous one. The 15-bit sequence
	// space holds at most 32,768 nodes at a time, so the chain arrives in waves of that size,
	// each wave back to front with its first message held until last: every wave unwinds as
	// one cascade through the whole sequence space. Between waves time passes the expiry, so
	// the next wave reuses the sequence numbers, and its first message names no dependency,
	// as the sender would have pruned it.
	const total = 100_000
	const expiry = time.Second
	var got []int
	g := New(Config{Expiry: expiry}, func(_ uint16, v int) { got = append(got, v) })
	now := at(0)
	deps := make([]uint16, 1)
	for start := 0; start < total; start += SeqSpace {
		end := min(start+SeqSpace, total)
		for i := end - 1; i >= start; i-- {
			var d []uint16
			if i > start {
				deps[0] = uint16(i-1) & SeqMask
				d = deps
			}
			if _, err := g.Add(now, uint16(i)&SeqMask, d, i, true); err != nil {
				t.Fatal(err)
			}
			if i > start && len(got) != start {
				t.Fatalf("message %d executed early", i)
			}
		}
		if len(got) != end {
			t.Fatalf("after wave at %d: %d executed, want %d", start, len(got), end)
		}
		now = now.Add(expiry)
		if err := g.Expire(now); err != nil {
			t.Fatal(err)
		}
		if g.Len() != 0 {
			t.Fatalf("Len %d after expiry", g.Len())
		}
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("position %d executed message %d", i, v)
		}
	}
	if st := g.Stats(); st.MaxLen != SeqSpace {
		t.Fatalf("MaxLen %d, want %d", st.MaxLen, SeqSpace)
	}
}
