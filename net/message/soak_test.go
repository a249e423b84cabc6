package message

import (
	"encoding/binary"
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/linksim"
)

var soakMessages = flag.Int("soak.messages", 0, "guaranteed messages in TestSoak (0: 100,000, or 40,000 with -short or -race; the full soak is 1,000,000)")

// soakWindow is how far back a soak message may pick its dependencies: the sender keeps a ring
// of this many handles, one per recent message.
const soakWindow = 256

// TestSoak sends guaranteed messages with random dependencies through the harshest link we know
// of a published soak for (25% loss, 25% duplication, reordering, 1000 ms latency, 100 ms jitter)
// and checks, at the receiver, that every message executed exactly once and after every
// dependency the sender intended. Each payload carries those intended dependencies (message
// ids, before the sender pruned any), so the check does not trust the wire's dependency list.
//
// The full run (-soak.messages=1000000) crosses the 15-bit sequence wrap 30 times.
func TestSoak(t *testing.T) {
	total := *soakMessages
	if total == 0 {
		total = 100_000
		if testing.Short() || raceEnabled {
			total = 40_000 // still past the 15-bit wrap
		}
	}
	harsh := linksim.Settings{
		LossPercent:    25,
		DupPercent:     25,
		ReorderPercent: 5,
		Latency:        1000 * time.Millisecond,
		Jitter:         100 * time.Millisecond,
	}
	// Under this link a message may need tens of tries (a try fails when the packet is lost or
	// arrives behind a newer one and is dropped as stale), so the timeouts are long.
	cfg := Config{Timeout: 120 * time.Second, ResendLimit: 120 * time.Second, Keepalive: 50 * time.Millisecond}
	l := newLink(t, 2026, harsh, harsh, cfg)
	l.tick = 50 * time.Millisecond
	l.maxPackets = 1

	rng := rand.New(rand.NewPCG(1, 2))
	var handles [soakWindow]depgraph.Dependency
	executed := make([]bool, total)
	nExec, violations := 0, 0
	maxRecvGraph, maxSendGraph := 0, 0
	l.b.onMsg = func(m *Message) {
		id := binary.BigEndian.Uint32(m.Payload)
		if int(id) >= total || executed[id] {
			violations++
			t.Errorf("message %d executed twice (or unknown id)", id)
			return
		}
		n := int(m.Payload[4])
		for i := range n {
			d := binary.BigEndian.Uint32(m.Payload[5+4*i:])
			if !executed[d] {
				violations++
				t.Errorf("message %d executed before its dependency %d", id, d)
			}
		}
		executed[id] = true
		nExec++
	}
	// The endpoint keeps a copy of every delivery; this test checks them as they come instead.
	l.b.conn.deliver = func(m *Message) { l.b.onMsg(m) }

	next := 0
	var payload []byte
	var deps []*depgraph.Dependency
	var depIDs []uint32
	for nExec < total {
		// Queue new messages while the sender accepts them, a packet's worth per tick.
		for k := 0; k < 40 && next < total; k++ {
			deps, depIDs = deps[:0], depIDs[:0]
			if next > 0 {
				for range rng.IntN(4) {
					back := 1 + rng.IntN(min(next, soakWindow-1))
					id := uint32(next - back)
					dup := false
					for _, x := range depIDs {
						dup = dup || x == id
					}
					if !dup {
						depIDs = append(depIDs, id)
						deps = append(deps, &handles[int(id)%soakWindow])
					}
				}
			}
			payload = binary.BigEndian.AppendUint32(payload[:0], uint32(next))
			payload = append(payload, byte(len(depIDs)))
			for _, d := range depIDs {
				payload = binary.BigEndian.AppendUint32(payload, d)
			}
			if rng.IntN(500) == 0 {
				payload = append(payload, make([]byte, 2500)...) // now and then a fragmented one
			}
			if _, err := l.a.conn.SendGuaranteed(l.now, payload, deps, &handles[next%soakWindow]); err != nil {
				break // back-pressure: the sequence space is in use; try next tick
			}
			next++
		}
		l.step(t)
		if err := l.a.conn.Err(); err != nil {
			t.Fatalf("sender failed after %d/%d executed: %v", nExec, total, err)
		}
		if err := l.b.conn.Err(); err != nil {
			t.Fatalf("receiver failed after %d/%d executed: %v", nExec, total, err)
		}
		maxRecvGraph = max(maxRecvGraph, l.b.conn.Stats().ReceiverGraph)
		maxSendGraph = max(maxSendGraph, l.a.conn.Stats().SenderGraph)
		if t.Failed() {
			t.FailNow()
		}
		if l.now.Sub(base) > time.Duration(total)*100*time.Millisecond+time.Hour {
			t.Fatalf("stuck: %d of %d executed after %v of virtual time", nExec, total, l.now.Sub(base))
		}
	}
	for id, ok := range executed {
		if !ok {
			t.Fatalf("message %d never executed", id)
		}
	}
	sa, sb := l.a.conn.Stats(), l.b.conn.Stats()
	wraps := total / 32768
	t.Logf("%d messages, %d wraps, %v virtual; sent %d, resent %d, dependency bytes %.2f per message; "+
		"packets: %d sent, %d lost, %d stale + %d duplicate dropped at the receiver; max graph: receiver %d, sender %d",
		total, wraps, l.now.Sub(base).Round(time.Second), sa.GuaranteedSent, sa.GuaranteedResent,
		float64(sa.DependencyBytes)/float64(sa.GuaranteedSent+sa.GuaranteedResent),
		sa.Packet.PacketsSent, sa.Packet.PacketsLost, sb.Packet.Stale, sb.Packet.Duplicate, maxRecvGraph, maxSendGraph)
	if violations != 0 {
		t.Fatalf("%d violations", violations)
	}
	if maxRecvGraph > 32768 || maxSendGraph > 32768 {
		t.Fatalf("graph grew past the sequence space: receiver %d, sender %d", maxRecvGraph, maxSendGraph)
	}
	if total >= 1_000_000 && wraps < 30 {
		t.Fatalf("only %d wraps", wraps)
	}
}
