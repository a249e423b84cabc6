package message

import (
	"fmt"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
)

// BenchmarkBuildPacket20Guaranteed: queue 20 small guaranteed messages and write them into one
// packet, then take the ack for it, so the connection returns to the same state every round.
func BenchmarkBuildPacket20Guaranteed(b *testing.B) { benchBuildPacket20(b, Config{}) }

// BenchmarkBuildPacket20GuaranteedHistory is the same round with the history a debug view
// asks for (Config.History) kept on both sides: what recording it costs.
func BenchmarkBuildPacket20GuaranteedHistory(b *testing.B) {
	benchBuildPacket20(b, Config{History: DefaultHistory})
}

func benchBuildPacket20(b *testing.B, cfg Config) {
	snd, rcv := New(cfg, func(*Message) {}), New(cfg, func(*Message) {})
	payload := make([]byte, 24)
	now := base
	buf := make([]byte, 0, 1500)
	ackBuf := make([]byte, 0, 1500)
	b.ReportAllocs()
	for b.Loop() {
		// 10 ms a round: a sequence number comes round again after 1,638 rounds (16 s), well
		// past the 6 s for which its previous message stays in the graphs.
		now = now.Add(10 * time.Millisecond)
		for range 20 {
			if _, err := snd.SendGuaranteed(now, payload, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		d, ok := snd.AppendPacket(buf[:0], now, false)
		if !ok {
			b.Fatal("no packet")
		}
		buf = d
		if err := rcv.Receive(now, d); err != nil {
			b.Fatal(err)
		}
		a, _ := rcv.AppendPacket(ackBuf[:0], now, true)
		ackBuf = a
		if err := snd.Receive(now, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReceiveExecute: receive a packet of 20 guaranteed messages and execute them all.
// The packets are made beforehand; each round feeds the next one.
func BenchmarkReceiveExecute(b *testing.B) {
	snd := New(Config{}, func(*Message) {})
	const n = 1600 // 32,000 messages: the sequence space holds them without wrapping
	pkts := make([][]byte, 0, n)
	now := base
	payload := make([]byte, 24)
	acker := New(Config{}, func(*Message) {}) // acknowledges, so that pacing lets the sender go on
	for range n {
		for range 20 {
			if _, err := snd.SendGuaranteed(now, payload, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		d, ok := snd.AppendPacket(nil, now, false)
		if !ok {
			b.Fatal("no packet")
		}
		pkts = append(pkts, d)
		acker.Receive(now, d)
		if a, ok := acker.AppendPacket(nil, now, true); ok {
			snd.Receive(now, a)
		}
	}
	executed := 0
	rcv := New(Config{}, func(*Message) { executed++ })
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i == n {
			// The packets ran out: start again with a new receiver (its first packets grow
			// the graph's storage; afterwards expired nodes make room for new ones).
			b.StopTimer()
			rcv = New(Config{}, func(*Message) { executed++ })
			i = 0
			b.StartTimer()
		}
		// 10 ms a packet: executed nodes expire after 600 packets, as on a live connection.
		if err := rcv.Receive(now.Add(time.Duration(i)*10*time.Millisecond), pkts[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if executed == 0 {
		b.Fatal("nothing executed")
	}
}

// BenchmarkDependencyBytes reports the dependency bytes per guaranteed message in the classic
// scenarios (pruning: 2 + 2n bytes per message drops to 2 once the sender's local graph
// prunes executed dependencies). It is a benchmark so that the numbers are reported by
// `go test -bench`, not asserted against a clock.
func BenchmarkDependencyBytes(b *testing.B) {
	for _, sc := range []struct {
		name string
		run  func(l *link, b *testing.B)
	}{
		{"chat-chain", func(l *link, b *testing.B) {
			var ch Chain
			for range 100 {
				ch.Send(l.a.conn, l.now, []byte("hello"))
				for range 5 {
					l.step(b)
				}
			}
		}},
		{"chat-chain-burst", func(l *link, b *testing.B) {
			// 100 lines in one tick: each still depends on the previous, unacked one.
			var ch Chain
			for range 100 {
				ch.Send(l.a.conn, l.now, []byte("hello"))
			}
		}},
		{"kill-after-spawn", func(l *link, b *testing.B) {
			spawns := make([]depgraph.Dependency, 50)
			for i := range spawns {
				l.a.conn.SendGuaranteed(l.now, []byte("spawn"), nil, &spawns[i])
				l.step(b)
			}
			for range 20 {
				l.step(b)
			}
			for i := range spawns {
				l.a.conn.SendGuaranteed(l.now, []byte("kill"), []*depgraph.Dependency{&spawns[i]}, nil)
				l.step(b)
			}
		}},
		{"start-game-8-players-same-tick", func(l *link, b *testing.B) {
			infos := make([]depgraph.Dependency, 8)
			deps := make([]*depgraph.Dependency, 8)
			for i := range infos {
				l.a.conn.SendGuaranteed(l.now, []byte("player"), nil, &infos[i])
				deps[i] = &infos[i]
			}
			l.a.conn.SendGuaranteed(l.now, []byte("start"), deps, nil)
		}},
	} {
		b.Run(sc.name, func(b *testing.B) {
			var perMsg, depPerMsg float64
			for b.Loop() {
				l := newLink(b, 1, linkLAN, linkLAN, Config{})
				sc.run(l, b)
				for range 50 {
					l.step(b)
				}
				s := l.a.conn.Stats()
				sends := float64(s.GuaranteedSent + s.GuaranteedResent)
				perMsg = float64(s.DependencyBytes+s.SequenceBytes) / sends
				depPerMsg = float64(s.DependencyBytes) / sends
			}
			b.ReportMetric(perMsg, "seq+dep-bytes/msg")
			b.ReportMetric(depPerMsg, "dep-bytes/msg")
		})
	}
}

// BenchmarkDebugHistory: one snapshot of a connection's debug views (Conn.Debug, what the
// transport publishes ten times a second with its debug views on) with and without the
// history, both rings full, each message with a dependency. 128 is the history of a lesson's
// game (game/lesson).
func BenchmarkDebugHistory(b *testing.B) {
	for _, n := range []int{0, DefaultHistory, 128} {
		b.Run(fmt.Sprintf("history-%d", n), func(b *testing.B) {
			l := newLink(b, 1, linkLAN, linkLAN, Config{History: n})
			var ab, ba Chain
			for range 2 * max(n, DefaultHistory) {
				ab.Send(l.a.conn, l.now, []byte("ab"))
				ba.Send(l.b.conn, l.now, []byte("ba"))
				l.step(b)
			}
			for range 20 {
				l.step(b)
			}
			b.ReportAllocs()
			for b.Loop() {
				d := l.a.conn.Debug()
				if len(d.Outgoing) != n || len(d.Incoming) != n {
					b.Fatalf("history %d out, %d in, want %d", len(d.Outgoing), len(d.Incoming), n)
				}
			}
		})
	}
}
