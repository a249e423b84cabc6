package linksim

import (
	"testing"
	"time"
)

// BenchmarkConditioner measures one Send and one Deliver in steady state: a datagram every
// millisecond over a 20ms link, so about twenty are in flight.
func BenchmarkConditioner(b *testing.B) {
	tests := []struct {
		name    string
		s       Settings
		recycle bool
	}{
		{"perfect", Settings{Latency: 20 * time.Millisecond}, false},
		{"perfect/recycle", Settings{Latency: 20 * time.Millisecond}, true},
		{"impaired/recycle", Settings{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, LossPercent: 2, BurstLossPercent: 0.5, BurstLength: 4, DupPercent: 2, ReorderPercent: 2}, true},
	}
	payload := make([]byte, 1200)
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			c := NewConditioner(1, tt.s)
			var out [][]byte
			now := base
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				c.Send(now, payload)
				now = now.Add(time.Millisecond)
				out = c.Deliver(now, out[:0])
				if tt.recycle {
					for _, d := range out {
						c.Recycle(d)
					}
				}
			}
		})
	}
}

// BenchmarkNetworkStep measures a send each way and the Steps that deliver them.
func BenchmarkNetworkStep(b *testing.B) {
	nw := NewNetwork(1)
	s := Settings{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}
	nw.Link("client", "server", s, s)
	client, server := nw.AddNode("client"), nw.AddNode("server")
	payload := make([]byte, 100)
	var got []Datagram
	b.ReportAllocs()
	for b.Loop() {
		if err := client.Send("server", payload); err != nil {
			b.Fatal(err)
		}
		if err := server.Send("client", payload); err != nil {
			b.Fatal(err)
		}
		until := nw.Now().Add(time.Millisecond)
		for nw.Now().Before(until) {
			_, got = nw.Step(until, got[:0])
			for _, d := range got {
				nw.Conditioner(d.From, d.To).Recycle(d.Data)
			}
		}
	}
}
