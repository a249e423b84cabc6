package game

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/wire"
)

// TestDataHeaderSizes measures the Data packet headers of a 60 s game in virtual time, per
// direction, for the table in net/PROTOCOL.md section 4 (go test -run DataHeaderSizes -v
// ./game prints it). It checks the document's claim: on a clean link without latency the
// 1-byte Ack (and so the 5-byte header) goes to the side whose packet count is ahead or even,
// at least one direction uses it most of the time, and every direction's headers are of 5 or
// 6 bytes. (While keepalives went every 100 ms the counts drifted apart and mostly one
// direction had it; now the packets of the two directions are mostly messages and the acks
// that answer them, and the counts stay close.)
func TestDataHeaderSizes(t *testing.T) {
	t.Parallel()
	for _, ls := range []linksim.Settings{{}, {Latency: 50 * time.Millisecond}, {LossPercent: 30, Latency: 50 * time.Millisecond}} {
		g := newVGame(t, vspec{seed: 3, bots: 2, clients: 3, link: ls})
		type dir struct{ from, to string }
		sizes := map[dir]map[int]int{}
		short := map[dir]int{}
		unread := 0
		g.tap = func(d linksim.Datagram) {
			p, ok := g.keys.open(d.From, d.To, d.Data)
			if !ok {
				unread++
				return
			}
			if p[0] != byte(wire.TypeData) {
				return
			}
			h, n, err := wire.ParseHeader(p)
			if err != nil {
				t.Fatal(err)
			}
			if h.Seq < packet.AckWindow {
				// The connection's first packets acknowledge packets before the peer's first,
				// which never were: their ack bits are 0, and a byte of them goes on the wire
				// until the window has filled. The claim is about the connection after that
				// (a game under the race detector is a quarter as long, and its first 32
				// packets a fifth of the whole).
				return
			}
			k := dir{d.From, d.To}
			if sizes[k] == nil {
				sizes[k] = map[int]int{}
			}
			sizes[k][n]++
			if h.Seq-h.Ack <= 0xFF {
				short[k]++
			}
		}
		g.run(lastsFor(60 * time.Second))
		if unread > 0 {
			t.Errorf("%d datagrams did not open with the keys of their connection", unread)
		}
		share := func(k dir, n int) float64 {
			total := 0
			for _, c := range sizes[k] {
				total += c
			}
			return float64(n) / float64(max(total, 1))
		}
		for _, who := range []string{"server → client", "client → server"} {
			agg := map[int]int{}
			total := 0
			for k, m := range sizes {
				if (k.from == g.srvAddr.String()) != (who == "server → client") || (k.from != g.srvAddr.String() && k.to != g.srvAddr.String()) {
					continue
				}
				for n, c := range m {
					agg[n] += c
					total += c
				}
			}
			var parts []string
			for _, n := range slices.Sorted(maps.Keys(agg)) {
				parts = append(parts, fmt.Sprintf("%d B: %.0f%%", n, 100*float64(agg[n])/float64(total)))
			}
			t.Logf("loss %v%%, latency %v, %s: %s", ls.LossPercent, ls.Latency, who, strings.Join(parts, ", "))
		}
		if ls.LossPercent > 0 || ls.Latency > 0 {
			continue
		}
		for _, addr := range g.caddrs {
			up, down := dir{addr.String(), g.srvAddr.String()}, dir{g.srvAddr.String(), addr.String()}
			// The side that has sent as many packets or more gets the 1-byte Ack; with no
			// keepalives beside the acks that answer messages, the counts stay close.
			if a, b := share(up, short[up]), share(down, short[down]); max(a, b) < 0.5 {
				t.Errorf("%v: neither direction uses the 1-byte Ack mostly (%.0f%%, %.0f%%)", ls, 100*a, 100*b)
			}
			for _, k := range []dir{up, down} {
				if sh := share(k, sizes[k][5]+sizes[k][6]); sh < 0.9 {
					t.Errorf("%v: %v: %.0f%% of the headers are of 5 or 6 bytes, want 90%% on a clean link", ls, k, 100*sh)
				}
			}
		}
	}
}
