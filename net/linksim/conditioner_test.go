package linksim

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

var base = time.Unix(1_000_000, 0)

// arrivalRecord is one delivery seen by drive: when it arrived and which datagram it was.
type arrivalRecord struct {
	at time.Duration // since base
	id uint32
}

// drive sends n datagrams, datagram i at base + i*interval carrying i as 4 bytes, and collects
// every delivery at its exact delivery time (read from NextDelivery). before, if not nil, runs
// just before datagram i is sent, so a test can change settings mid-run.
func drive(c *Conditioner, n int, interval time.Duration, before func(i int)) []arrivalRecord {
	var (
		out  []arrivalRecord
		bufs [][]byte
	)
	deliverUntil := func(limit time.Time) {
		for {
			next, ok := c.NextDelivery()
			if !ok || next.After(limit) {
				return
			}
			bufs = c.Deliver(next, bufs[:0])
			for _, b := range bufs {
				out = append(out, arrivalRecord{at: next.Sub(base), id: binary.BigEndian.Uint32(b)})
				c.Recycle(b)
			}
		}
	}
	var payload [4]byte
	for i := range n {
		now := base.Add(time.Duration(i) * interval)
		deliverUntil(now)
		if before != nil {
			before(i)
		}
		binary.BigEndian.PutUint32(payload[:], uint32(i))
		c.Send(now, payload[:])
	}
	deliverUntil(base.Add(24 * time.Hour))
	return out
}

// sentAt is when drive sent datagram id.
func sentAt(id uint32, interval time.Duration) time.Duration {
	return time.Duration(id) * interval
}

// countCopies returns how many times each of n datagrams was delivered.
func countCopies(recs []arrivalRecord, n int) []int {
	copies := make([]int, n)
	for _, r := range recs {
		copies[r.id]++
	}
	return copies
}

// lossRuns returns the lengths of the runs of consecutive lost datagrams.
func lossRuns(copies []int) []int {
	var runs []int
	run := 0
	for _, k := range copies {
		if k == 0 {
			run++
			continue
		}
		if run > 0 {
			runs = append(runs, run)
		}
		run = 0
	}
	if run > 0 {
		runs = append(runs, run)
	}
	return runs
}

// inversions counts deliveries of a datagram older than one already delivered.
func inversions(recs []arrivalRecord) int {
	n := 0
	newest := -1
	for _, r := range recs {
		if int(r.id) < newest {
			n++
		}
		newest = max(newest, int(r.id))
	}
	return n
}

func checkStatsInvariant(t *testing.T, s Stats) {
	t.Helper()
	if s.Offered-s.Dropped+s.Duplicated != s.Delivered+uint64(s.Queued) {
		t.Errorf("stats do not add up: %+v", s)
	}
}

func TestPerfectLinkDeliversEachOnceInOrderAtLatency(t *testing.T) {
	const n, interval = 1000, time.Millisecond
	tests := []struct {
		name string
		s    Settings
	}{
		{"zero", Settings{}},
		{"latency", Settings{Latency: 30 * time.Millisecond}},
		{"latency longer than many sends", Settings{Latency: 250 * time.Millisecond}},
		{"reorder delay without reorder percent", Settings{Latency: 5 * time.Millisecond, ReorderDelay: time.Second}},
		{"burst length without burst percent", Settings{Latency: 5 * time.Millisecond, BurstLength: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConditioner(1, tt.s)
			recs := drive(c, n, interval, nil)
			if len(recs) != n {
				t.Fatalf("got %d deliveries, want %d", len(recs), n)
			}
			for i, r := range recs {
				if r.id != uint32(i) {
					t.Fatalf("delivery %d is datagram %d, want %d", i, r.id, i)
				}
				if want := sentAt(r.id, interval) + tt.s.Latency; r.at != want {
					t.Fatalf("datagram %d delivered at %v, want %v", r.id, r.at, want)
				}
			}
			s := c.Stats()
			if want := (Stats{Offered: n, Delivered: n}); s != want {
				t.Errorf("stats = %+v, want %+v", s, want)
			}
		})
	}
}

func TestIndependentLossRate(t *testing.T) {
	const n = 100_000
	tests := []struct {
		seed    uint64
		percent float64
	}{
		{1, 25},
		{2, 25},
		{3, 5},
		{4, 100},
	}
	for _, tt := range tests {
		c := NewConditioner(tt.seed, Settings{LossPercent: tt.percent, Latency: 10 * time.Millisecond})
		recs := drive(c, n, time.Millisecond, nil)
		lost := n - len(recs)
		rate := 100 * float64(lost) / n
		t.Logf("seed %d, LossPercent %v: lost %d of %d = %.3f%%", tt.seed, tt.percent, lost, n, rate)
		if math.Abs(rate-tt.percent) > 1 {
			t.Errorf("seed %d: loss %.3f%%, want %v%% ± 1", tt.seed, rate, tt.percent)
		}
		s := c.Stats()
		if s.Dropped != uint64(lost) || s.BurstDropped != 0 {
			t.Errorf("seed %d: stats %+v, want Dropped %d and no BurstDropped", tt.seed, s, lost)
		}
		checkStatsInvariant(t, s)
	}
}

func TestBurstLossHasLongerRunsThanIndependentLoss(t *testing.T) {
	const (
		n       = 100_000
		average = 0.05 // both links lose 5% on average
		length  = 5.0  // mean burst length
	)
	// Stationary bad-state share of Gilbert-Elliott: enter/(enter+exit) = average.
	enter := average * (1 / length) / (1 - average)
	tests := []struct {
		name         string
		s            Settings
		minMeanRun   float64
		maxMeanRun   float64
		wantBurstAll bool // every drop is a burst drop
	}{
		{"independent", Settings{LossPercent: 100 * average}, 1, 1.2, false},
		{"burst", Settings{BurstLossPercent: 100 * enter, BurstLength: length}, length - 0.5, length + 0.5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConditioner(7, tt.s)
			copies := countCopies(drive(c, n, time.Millisecond, nil), n)
			runs := lossRuns(copies)
			lost := 0
			for _, r := range runs {
				lost += r
			}
			rate := float64(lost) / n
			mean := float64(lost) / float64(len(runs))
			t.Logf("%s: loss %.3f%%, %d runs, mean run %.2f, longest %d", tt.name, 100*rate, len(runs), mean, slices.Max(runs))
			if math.Abs(rate-average) > 0.01 {
				t.Errorf("loss %.3f%%, want %v%% ± 1", 100*rate, 100*average)
			}
			if mean < tt.minMeanRun || mean > tt.maxMeanRun {
				t.Errorf("mean loss run %.2f, want %.1f..%.1f", mean, tt.minMeanRun, tt.maxMeanRun)
			}
			s := c.Stats()
			if tt.wantBurstAll != (s.BurstDropped == s.Dropped) || s.Dropped != uint64(lost) {
				t.Errorf("stats %+v: Dropped should be %d and all burst drops = %v", s, lost, tt.wantBurstAll)
			}
		})
	}
}

func TestBurstLengthOneAndZeroAreTheSame(t *testing.T) {
	a := drive(NewConditioner(9, Settings{BurstLossPercent: 10, BurstLength: 0}), 10_000, time.Millisecond, nil)
	b := drive(NewConditioner(9, Settings{BurstLossPercent: 10, BurstLength: 1}), 10_000, time.Millisecond, nil)
	if !slices.Equal(a, b) {
		t.Error("BurstLength 0 and 1 give different traces")
	}
}

func TestDuplicationRate(t *testing.T) {
	const n = 100_000
	tests := []struct {
		seed    uint64
		s       Settings
		percent float64
	}{
		{1, Settings{DupPercent: 25, Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}, 25},
		{2, Settings{DupPercent: 25}, 25},
		{3, Settings{DupPercent: 100, Latency: time.Millisecond}, 100},
	}
	for _, tt := range tests {
		c := NewConditioner(tt.seed, tt.s)
		copies := countCopies(drive(c, n, time.Millisecond, nil), n)
		twice := 0
		for id, k := range copies {
			switch k {
			case 1:
			case 2:
				twice++
			default:
				t.Fatalf("seed %d: datagram %d delivered %d times", tt.seed, id, k)
			}
		}
		rate := 100 * float64(twice) / n
		t.Logf("seed %d, DupPercent %v: %d of %d delivered twice = %.3f%%", tt.seed, tt.percent, twice, n, rate)
		if math.Abs(rate-tt.percent) > 1 {
			t.Errorf("seed %d: duplicates %.3f%%, want %v%% ± 1", tt.seed, rate, tt.percent)
		}
		if s := c.Stats(); s.Duplicated != uint64(twice) || s.Delivered != uint64(n+twice) {
			t.Errorf("seed %d: stats %+v, want Duplicated %d, Delivered %d", tt.seed, s, twice, n+twice)
		}
	}
}

func TestDuplicateGetsItsOwnJitter(t *testing.T) {
	const n, interval = 10_000, time.Millisecond
	s := Settings{DupPercent: 100, Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond}
	recs := drive(NewConditioner(5, s), n, interval, nil)
	first := make(map[uint32]time.Duration)
	differ := 0
	for _, r := range recs {
		if at, ok := first[r.id]; !ok {
			first[r.id] = r.at
		} else if at != r.at {
			differ++
		}
	}
	if differ < n*9/10 {
		t.Errorf("only %d of %d copies arrived at a different time from their original", differ, n)
	}
}

func TestJitterBounds(t *testing.T) {
	const n, interval = 20_000, time.Millisecond
	tests := []struct {
		name     string
		s        Settings
		minDelay time.Duration
		maxDelay time.Duration
	}{
		{"jitter below latency", Settings{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}, 40 * time.Millisecond, 60 * time.Millisecond},
		{"jitter above latency is clamped", Settings{Latency: 5 * time.Millisecond, Jitter: 20 * time.Millisecond}, 0, 25 * time.Millisecond},
		{"jitter without latency", Settings{Jitter: 5 * time.Millisecond}, 0, 5 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := drive(NewConditioner(11, tt.s), n, interval, nil)
			if len(recs) != n {
				t.Fatalf("got %d deliveries, want %d", len(recs), n)
			}
			lo, hi := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
			atMin := 0
			for _, r := range recs {
				d := r.at - sentAt(r.id, interval)
				if d < tt.minDelay || d > tt.maxDelay {
					t.Fatalf("datagram %d delayed %v, want %v..%v", r.id, d, tt.minDelay, tt.maxDelay)
				}
				lo, hi = min(lo, d), max(hi, d)
				if d == tt.minDelay {
					atMin++
				}
			}
			t.Logf("delays %v..%v, %d at the lower bound", lo, hi, atMin)
			// The draws must actually spread over the range, not sit in the middle.
			slack := tt.s.Jitter / 20
			if lo > tt.minDelay+slack || hi < tt.maxDelay-slack {
				t.Errorf("delays span %v..%v, want close to %v..%v", lo, hi, tt.minDelay, tt.maxDelay)
			}
			if tt.minDelay == 0 && atMin == 0 {
				t.Error("clamping never delivered at the moment of sending")
			}
		})
	}
}

func TestReorderingFromJitter(t *testing.T) {
	const n, interval = 10_000, time.Millisecond
	tests := []struct {
		name    string
		jitter  time.Duration
		reorder bool
	}{
		{"jitter well above the send interval", 5 * time.Millisecond, true},
		{"jitter just above half the send interval", 600 * time.Microsecond, true},
		{"twice the jitter below the send interval", 400 * time.Microsecond, false},
		{"no jitter", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := drive(NewConditioner(3, Settings{Latency: 20 * time.Millisecond, Jitter: tt.jitter}), n, interval, nil)
			inv := inversions(recs)
			t.Logf("%d of %d deliveries overtaken", inv, n)
			if (inv > 0) != tt.reorder {
				t.Errorf("%d inversions, want reordering = %v", inv, tt.reorder)
			}
		})
	}
}

func TestReorderHoldsBack(t *testing.T) {
	const n, interval = 100_000, time.Millisecond
	const latency = 20 * time.Millisecond
	tests := []struct {
		name   string
		s      Settings
		extra  time.Duration // the hold-back a reordered datagram must get
		jitter time.Duration
	}{
		{"explicit delay", Settings{Latency: latency, ReorderPercent: 10, ReorderDelay: 5 * time.Millisecond}, 5 * time.Millisecond, 0},
		{"default delay with jitter", Settings{Latency: latency, Jitter: 2 * time.Millisecond, ReorderPercent: 10}, 5 * time.Millisecond, 2 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConditioner(13, tt.s)
			recs := drive(c, n, interval, nil)
			held := 0
			for _, r := range recs {
				d := r.at - sentAt(r.id, interval)
				switch {
				case d >= latency+tt.extra-tt.jitter && d <= latency+tt.extra+tt.jitter && d > latency+tt.jitter:
					held++
				case d >= latency-tt.jitter && d <= latency+tt.jitter:
				default:
					t.Fatalf("datagram %d delayed %v, neither normal nor held back", r.id, d)
				}
			}
			s := c.Stats()
			rate := 100 * float64(s.Reordered) / n
			t.Logf("%d of %d held back (%.3f%%), %d clearly beyond the jitter, %d overtaken", s.Reordered, n, rate, held, inversions(recs))
			if math.Abs(rate-tt.s.ReorderPercent) > 1 {
				t.Errorf("held back %.3f%%, want %v%% ± 1", rate, tt.s.ReorderPercent)
			}
			if tt.jitter == 0 && uint64(held) != s.Reordered {
				t.Errorf("%d deliveries delayed by %v, Stats.Reordered = %d", held, tt.extra, s.Reordered)
			}
			if inversions(recs) == 0 {
				t.Error("nothing was overtaken")
			}
		})
	}
}

// impaired turns everything on, so a trace depends on every random draw.
var impaired = Settings{
	LossPercent:      3,
	BurstLossPercent: 1,
	BurstLength:      4,
	Latency:          40 * time.Millisecond,
	Jitter:           15 * time.Millisecond,
	DupPercent:       5,
	ReorderPercent:   5,
}

func TestSameSeedSameTrace(t *testing.T) {
	const n, interval = 20_000, time.Millisecond
	trace := func(seed uint64) []arrivalRecord {
		c := NewConditioner(seed, impaired)
		return drive(c, n, interval, func(i int) {
			if i == n/2 { // the change is part of the trace too
				s := impaired
				s.Latency, s.LossPercent = 80*time.Millisecond, 10
				if err := c.SetSettings(s); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	a, b := trace(42), trace(42)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different traces")
	}
	if slices.Equal(a, trace(43)) {
		t.Error("different seeds gave the same trace")
	}
	t.Logf("%d deliveries for %d sends", len(a), n)
}

func TestChangingOneImpairmentKeepsTheOthersDraws(t *testing.T) {
	const n, interval = 10_000, time.Millisecond
	s := Settings{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, LossPercent: 5}
	low := drive(NewConditioner(8, s), n, interval, nil)
	s.LossPercent = 10
	high := drive(NewConditioner(8, s), n, interval, nil)
	lowAt := make(map[uint32]time.Duration, len(low))
	for _, r := range low {
		lowAt[r.id] = r.at
	}
	for _, r := range high {
		at, ok := lowAt[r.id]
		if !ok {
			t.Fatalf("datagram %d survived 10%% loss but not 5%%", r.id)
		}
		if at != r.at {
			t.Fatalf("datagram %d arrived at %v with 5%% loss, %v with 10%%", r.id, at, r.at)
		}
	}
}

func TestSetSettingsAppliesToLaterSends(t *testing.T) {
	const n, interval, change = 200, time.Millisecond, 100
	tests := []struct {
		name          string
		before, after Settings
		// wantDelay is the delay of datagram id, or -1 if it must be lost.
		wantDelay func(id uint32) time.Duration
	}{
		{
			name:   "latency rises while datagrams are in flight",
			before: Settings{Latency: 30 * time.Millisecond},
			after:  Settings{Latency: 80 * time.Millisecond},
			wantDelay: func(id uint32) time.Duration {
				if id < change {
					return 30 * time.Millisecond
				}
				return 80 * time.Millisecond
			},
		},
		{
			name:   "latency falls, later datagrams overtake",
			before: Settings{Latency: 80 * time.Millisecond},
			after:  Settings{Latency: 10 * time.Millisecond},
			wantDelay: func(id uint32) time.Duration {
				if id < change {
					return 80 * time.Millisecond
				}
				return 10 * time.Millisecond
			},
		},
		{
			name:   "link goes down, datagrams in flight still arrive",
			before: Settings{Latency: 50 * time.Millisecond},
			after:  Settings{LossPercent: 100},
			wantDelay: func(id uint32) time.Duration {
				if id < change {
					return 50 * time.Millisecond
				}
				return -1
			},
		},
		{
			name:   "link comes back",
			before: Settings{LossPercent: 100},
			after:  Settings{Latency: 5 * time.Millisecond},
			wantDelay: func(id uint32) time.Duration {
				if id < change {
					return -1
				}
				return 5 * time.Millisecond
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConditioner(1, tt.before)
			recs := drive(c, n, interval, func(i int) {
				if i == change {
					if err := c.SetSettings(tt.after); err != nil {
						t.Fatal(err)
					}
				}
			})
			if got := c.Settings(); got != tt.after {
				t.Errorf("Settings() = %+v, want %+v", got, tt.after)
			}
			copies := countCopies(recs, n)
			for id := range uint32(n) {
				if tt.wantDelay(id) < 0 && copies[id] != 0 {
					t.Errorf("datagram %d delivered, want lost", id)
				}
				if tt.wantDelay(id) >= 0 && copies[id] != 1 {
					t.Errorf("datagram %d delivered %d times, want once", id, copies[id])
				}
			}
			for _, r := range recs {
				if got, want := r.at-sentAt(r.id, interval), tt.wantDelay(r.id); got != want {
					t.Errorf("datagram %d delayed %v, want %v", r.id, got, want)
				}
			}
		})
	}
}

func TestSetSettingsRejectsInvalidAndKeepsOld(t *testing.T) {
	old := Settings{Latency: time.Millisecond}
	c := NewConditioner(1, old)
	if err := c.SetSettings(Settings{LossPercent: 101}); !errors.Is(err, ErrInvalidSettings) {
		t.Fatalf("SetSettings(101%% loss) = %v, want ErrInvalidSettings", err)
	}
	if got := c.Settings(); got != old {
		t.Errorf("Settings() = %+v after a rejected change, want %+v", got, old)
	}
}

func TestTurningBurstOffEndsTheBurst(t *testing.T) {
	// Always enter the bad state and never leave it, then switch bursts off.
	c := NewConditioner(1, Settings{BurstLossPercent: 100, BurstLength: 1e12})
	recs := drive(c, 100, time.Millisecond, func(i int) {
		if i == 50 {
			if err := c.SetSettings(Settings{}); err != nil {
				t.Fatal(err)
			}
		}
	})
	if len(recs) != 50 || recs[0].id != 50 {
		t.Errorf("got %d deliveries starting at %v, want the 50 sent after the change", len(recs), recs)
	}
	if s := c.Stats(); s.BurstDropped != 50 {
		t.Errorf("BurstDropped = %d, want 50", s.BurstDropped)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		s     Settings
		wants []string // substrings of the error; none = valid
	}{
		{"zero", Settings{}, nil},
		{"everything at the top of its range", Settings{LossPercent: 100, BurstLossPercent: 100, BurstLength: 1e9, Latency: time.Hour, Jitter: time.Hour, DupPercent: 100, ReorderPercent: 100, ReorderDelay: time.Hour}, nil},
		{"burst length 1", Settings{BurstLossPercent: 5, BurstLength: 1}, nil},
		{"negative loss", Settings{LossPercent: -1}, []string{"LossPercent is -1"}},
		{"loss over 100", Settings{LossPercent: 100.5}, []string{"LossPercent is 100.5"}},
		{"NaN loss", Settings{LossPercent: math.NaN()}, []string{"LossPercent is NaN"}},
		{"burst percent over 100", Settings{BurstLossPercent: 200}, []string{"BurstLossPercent is 200"}},
		{"burst length below 1", Settings{BurstLossPercent: 5, BurstLength: 0.5}, []string{"BurstLength is 0.5"}},
		{"negative burst length", Settings{BurstLength: -3}, []string{"BurstLength is -3"}},
		{"infinite burst length", Settings{BurstLength: math.Inf(1)}, []string{"BurstLength is +Inf"}},
		{"negative latency", Settings{Latency: -time.Millisecond}, []string{"Latency is -1ms"}},
		{"negative jitter", Settings{Jitter: -time.Millisecond}, []string{"Jitter is -1ms"}},
		{"dup over 100", Settings{DupPercent: 101}, []string{"DupPercent is 101"}},
		{"negative reorder", Settings{ReorderPercent: -0.1}, []string{"ReorderPercent is -0.1"}},
		{"negative reorder delay", Settings{ReorderDelay: -time.Second}, []string{"ReorderDelay is -1s"}},
		{"several at once", Settings{LossPercent: -1, Jitter: -1}, []string{"LossPercent is -1", "Jitter is -1ns"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidSettings) {
				t.Fatalf("Validate() = %v, want an ErrInvalidSettings", err)
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Validate() = %q, want it to mention %q", err, want)
				}
			}
		})
	}
}

func TestNewConditionerPanicsOnInvalidSettings(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("NewConditioner accepted 150% loss")
		}
	}()
	NewConditioner(1, Settings{LossPercent: 150})
}

func TestSendCopiesAndDeliverHandsOver(t *testing.T) {
	c := NewConditioner(1, Settings{DupPercent: 100, Latency: time.Millisecond})
	b := []byte("hello")
	c.Send(base, b)
	copy(b, "HELLO")
	if _, ok := c.NextDelivery(); !ok {
		t.Fatal("nothing scheduled")
	}
	if got := c.Deliver(base, nil); len(got) != 0 {
		t.Fatalf("delivered %q before the latency", got)
	}
	got := c.Deliver(base.Add(time.Millisecond), nil)
	if len(got) != 2 || string(got[0]) != "hello" || string(got[1]) != "hello" {
		t.Fatalf("delivered %q, want the original bytes twice", got)
	}
	got[0][0] = 'j' // each copy is its own buffer
	if string(got[1]) != "hello" {
		t.Errorf("the two copies share memory")
	}
	if _, ok := c.NextDelivery(); ok {
		t.Error("NextDelivery reports something after the queue was drained")
	}
}

func TestRecycleReusesBuffers(t *testing.T) {
	c := NewConditioner(1, Settings{})
	c.Send(base, []byte("abcdef"))
	got := c.Deliver(base, nil)
	c.Recycle(got[0])
	c.Send(base, []byte("xyz"))
	again := c.Deliver(base, nil)
	if string(again[0]) != "xyz" {
		t.Fatalf("delivered %q, want xyz", again[0])
	}
	if &again[0][0] != &got[0][0] {
		t.Error("the recycled buffer was not reused")
	}
	// A buffer too small for the next datagram is not used.
	c.Recycle(again[0][:0:1])
	c.Send(base, []byte("longer than one byte"))
	if last := c.Deliver(base, nil); string(last[0]) != "longer than one byte" {
		t.Errorf("delivered %q", last[0])
	}
}

func TestStatsAddUpUnderEveryImpairment(t *testing.T) {
	c := NewConditioner(99, impaired)
	var bufs [][]byte
	for i := range 5000 {
		now := base.Add(time.Duration(i) * time.Millisecond)
		c.Send(now, []byte{byte(i)})
		bufs = c.Deliver(now, bufs[:0])
		if i%500 == 0 {
			checkStatsInvariant(t, c.Stats())
		}
	}
	s := c.Stats()
	checkStatsInvariant(t, s)
	if s.Queued == 0 || s.Dropped == 0 || s.BurstDropped == 0 || s.Duplicated == 0 || s.Reordered == 0 {
		t.Errorf("some impairment never happened: %+v", s)
	}
}
