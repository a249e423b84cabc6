package linksim

import (
	"errors"
	"testing"
	"time"
)

// TestBottleneck: what comes out of a bottleneck and when. Each case offers datagrams (flow,
// size, time since start) to a fresh 100,000 byte/s link with 10 ms of latency and a 3,000
// byte queue, and lists what is delivered and when, or that it was dropped.
func TestBottleneck(t *testing.T) {
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	type offer struct {
		flow, size int
		at         time.Duration
	}
	type out struct {
		at      time.Duration // -1: dropped
		flow    int
		waited  time.Duration
		dropped bool
	}
	for _, tt := range []struct {
		name   string
		offers []offer
		want   []out // one per offer, in offer order
	}{
		{"an idle link: serialization plus latency", []offer{{0, 1000, 0}},
			[]out{{at: ms(20)}}},
		{"back to back: each waits for the one before", []offer{{0, 1000, 0}, {1, 1000, 0}, {0, 500, 0}},
			[]out{{at: ms(20)}, {at: ms(30), flow: 1, waited: ms(10)}, {at: ms(35), waited: ms(20)}}},
		{"the queue drains while the link is idle", []offer{{0, 1000, 0}, {0, 1000, ms(10)}, {0, 1000, ms(50)}},
			[]out{{at: ms(20)}, {at: ms(30)}, {at: ms(70)}}},
		{"drop-tail: what does not fit the queue is lost", []offer{{0, 1000, 0}, {1, 1000, 0}, {2, 1000, 0}, {0, 1000, 0}, {1, 600, ms(5)}},
			[]out{{at: ms(20)}, {at: ms(30), flow: 1, waited: ms(10)}, {at: ms(40), flow: 2, waited: ms(20)}, {dropped: true}, {dropped: true, flow: 1}}},
		{"room again once the link sent some", []offer{{0, 1000, 0}, {0, 1000, 0}, {0, 1000, 0}, {1, 1000, ms(10)}},
			[]out{{at: ms(20)}, {at: ms(30), waited: ms(10)}, {at: ms(40), waited: ms(20)}, {at: ms(50), flow: 1, waited: ms(20)}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Unix(1_000_000, 0)
			b := NewBottleneck(BottleneckSettings{Rate: 100_000, Queue: 3000, Latency: ms(10)})
			var got []out
			var deliveries []BottleneckDelivery
			drain := func(now time.Time) {
				deliveries = b.Deliver(now, deliveries[:0])
				for _, d := range deliveries {
					got = append(got, out{at: now.Sub(start), flow: d.Flow, waited: d.Waited})
				}
			}
			for _, o := range tt.offers {
				// Deliver what came out before this offer, at its own time.
				for {
					next, ok := b.NextDelivery()
					if !ok || next.Sub(start) > o.at {
						break
					}
					drain(next)
				}
				if !b.Send(start.Add(o.at), o.flow, make([]byte, o.size)) {
					got = append(got, out{dropped: true, flow: o.flow})
				}
			}
			for {
				next, ok := b.NextDelivery()
				if !ok {
					break
				}
				drain(next)
			}
			// got lists drops where they were offered and deliveries when they came out; put
			// both in offer order for the comparison: the link is FIFO, so deliveries come out
			// in the order of the accepted offers.
			var inOrder []out
			var drops, dels []out
			for _, g := range got {
				if g.dropped {
					drops = append(drops, g)
				} else {
					dels = append(dels, g)
				}
			}
			if len(drops)+len(dels) != len(tt.want) {
				t.Fatalf("%d drops and %d deliveries, want %d outcomes", len(drops), len(dels), len(tt.want))
			}
			for _, w := range tt.want {
				if w.dropped && len(drops) > 0 || len(dels) == 0 {
					inOrder = append(inOrder, drops[0])
					drops = drops[1:]
				} else {
					inOrder = append(inOrder, dels[0])
					dels = dels[1:]
				}
			}
			for i := range tt.want {
				if inOrder[i] != tt.want[i] {
					t.Errorf("offer %d: got %+v, want %+v", i, inOrder[i], tt.want[i])
				}
			}
			st := b.Stats()
			if st.Offered != st.Dropped+st.Delivered || st.Queued != 0 {
				t.Errorf("stats %+v: offered != dropped + delivered, or something left", st)
			}
		})
	}
}

// TestBottleneckFlowStats: the counters of each flow add up to the link's.
func TestBottleneckFlowStats(t *testing.T) {
	start := time.Unix(1_000_000, 0)
	b := NewBottleneck(BottleneckSettings{Rate: 10_000, Queue: 2500})
	for i := range 10 {
		b.Send(start, i%3, make([]byte, 1000))
	}
	b.Deliver(start.Add(time.Hour), nil)
	var sum BottleneckStats
	for f := range 3 {
		fs := b.FlowStats(f)
		sum.Offered += fs.Offered
		sum.Dropped += fs.Dropped
		sum.DeliveredBytes += fs.DeliveredBytes
	}
	st := b.Stats()
	if st.Offered != 10 || st.Dropped != 8 || sum.Offered != st.Offered || sum.Dropped != st.Dropped || sum.DeliveredBytes != st.DeliveredBytes {
		t.Fatalf("link %+v, flows sum to %+v", st, sum)
	}
	if st.MaxBacklog != 2000 {
		t.Fatalf("MaxBacklog %d, want the 2 datagrams that fit", st.MaxBacklog)
	}
}

func TestBottleneckSettingsValidate(t *testing.T) {
	for _, s := range []BottleneckSettings{{}, {Rate: -1}, {Rate: 1, Queue: -1}, {Rate: 1, Latency: -1}} {
		if err := s.Validate(); !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("%+v: %v, want ErrInvalidSettings", s, err)
		}
	}
	if err := (BottleneckSettings{Rate: 1}).Validate(); err != nil {
		t.Error(err)
	}
}
