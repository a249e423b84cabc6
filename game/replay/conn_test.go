package replay

import (
	"net/netip"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/wire"
)

// TestLocalGraphKeepsTheWindowRule: a host that sends fast reuses a sequence number well
// within the expiry (net/depgraph's window rule frees a number once the Window after its
// message executed). The replay's copy of the sender's local graph follows the same rule, so
// the new message with an old number executes once it is acknowledged, as the host's did.
func TestLocalGraphKeepsTheWindowRule(t *testing.T) {
	c := newConn(netip.MustParseAddrPort("127.0.0.1:7777"), func(*conn, bool, []byte) {})
	now := time.Unix(1000, 0)
	const n = depgraph.SeqSpace + depgraph.SeqSpace/4 // every number once, a quarter of them twice
	for i := range n {
		now = now.Add(20 * time.Microsecond) // all of it in under a second
		seq, pkt := uint16(i)&depgraph.SeqMask, uint16(i)
		c.now = now
		m := c.sentUnit(now, pkt, &Record{Kind: wire.KindGuaranteed, Seq: seq})
		c.onAcked(&packet.SentPacket{Seq: pkt, Time: now, Items: []packet.Item{{Seq: seq}}})
		if m.rec.Executed.IsZero() {
			t.Fatalf("message %d (number %d), acknowledged %v after the first with its number, never executed in the local graph",
				i, seq, time.Duration(depgraph.SeqSpace)*20*time.Microsecond)
		}
	}
}
