package game

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

var update = flag.Bool("update", false, "rewrite the capture in replay/testdata")

// replayCapture is the capture that game/replay's and ui's replay tests read: a client's
// socket, as --record writes it, in a short game in virtual time.
var replayCapture = filepath.Join("replay", "testdata", "resync.pcapng")

// TestReplayCapture records the client of a short game in virtual time (one server bot, one
// bot client, 10% loss and 10 ms each way): it says something in the chat, one of its units
// drifts and is repaired in real time, then three drift at once and the server stops the
// world. The capture holds the link's drops both ways, a UnitUpdate and a Pause. With -update
// it is written to replay/testdata with its key file (go test ./game -run TestReplayCapture
// -update); the game is seeded, so the same code writes the same datagrams.
func TestReplayCapture(t *testing.T) {
	capture, keys, net := recordResyncGame(t)
	kl, err := record.ParseKeys(bytes.NewReader(keys))
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.NewReader(bytes.NewReader(capture), kl)
	if err != nil {
		t.Fatal(err)
	}
	var n, sealedShut int
	fates := map[[2]bool]int{} // (out, dropped)
	types := map[MsgType]int{}
	for {
		d, err := r.Next()
		if err != nil {
			break
		}
		n++
		fates[[2]bool{d.Out, d.Fate == transport.TapDropped}]++
		if d.Packet == nil {
			sealedShut++
			continue
		}
		if wire.PacketType(d.Packet[0]) != wire.TypeData {
			continue
		}
		_, k, err := wire.ParseHeader(d.Packet)
		if err != nil {
			t.Fatalf("datagram %d: %v", n, err)
		}
		for rest := d.Packet[k:]; len(rest) > 0; {
			var rec wire.Record
			m, err := wire.ParseRecord(rest, &rec)
			if err != nil {
				t.Fatalf("datagram %d: %v", n, err)
			}
			if len(rec.Payload) > 0 && (rec.Kind != wire.KindFragment || rec.FragIndex == 0) {
				types[MsgType(rec.Payload[0])]++
			}
			rest = rest[m:]
		}
	}
	t.Logf("%d datagrams in %d bytes (keys %d bytes): sent %d, of them dropped %d; received %d, dropped on the way in %d",
		n, len(capture), len(keys), fates[[2]bool{true, false}]+fates[[2]bool{true, true}], fates[[2]bool{true, true}],
		fates[[2]bool{false, false}], fates[[2]bool{false, true}])
	if sealedShut > 0 {
		t.Errorf("%d datagrams the key file does not open", sealedShut)
	}
	if fates[[2]bool{true, true}] == 0 || fates[[2]bool{false, true}] == 0 {
		t.Errorf("no drop on one of the ways: %v", fates)
	}
	for _, want := range []MsgType{MsgChat, MsgUnitUpdate, MsgPause, MsgResyncBatch, MsgResume} {
		if types[want] == 0 {
			t.Errorf("no %v in the capture: %v", want, types)
		}
	}
	if len(capture) > 100_000 {
		t.Errorf("the capture has %d bytes: keep a checked-in capture under 100 kB", len(capture))
	}
	if *update {
		if err := os.WriteFile(replayCapture, capture, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(record.KeysPath(replayCapture), keys, 0o600); err != nil {
			t.Fatal(err)
		}
		// What the client counted itself, for the replay's tests to rebuild from the capture.
		b, err := json.MarshalIndent(net, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(replayCapture, ".pcapng")+".net.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// recordResyncGame plays TestReplayCapture's game and returns the client's capture and key
// file, as net/record's Recorder wrote them, and the client's own network counters at the end.
func recordResyncGame(t *testing.T) (capture, keys []byte, net NetReport) {
	t.Helper()
	var capBuf, keyBuf bytes.Buffer
	rec, err := record.New(&capBuf, &keyBuf, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	link := linksim.Settings{LossPercent: 10, Latency: 10 * time.Millisecond}
	g := newVGame(t, vspec{seed: 5, bots: 1, clients: 1, link: link,
		server: func(c *ServerConfig) { c.RealtimeMax = 2 },
		client: func(i int, c *ClientConfig) {
			logged := c.Transport.KeyLog
			c.Transport.KeyLog = func(k transport.ConnKeys) { logged(k); rec.KeyLog(k) }
		}})
	g.record(g.caddrs[0], rec)
	c := g.clients[0]
	g.waitFor(10*time.Second, "the client at frame 21", func() bool { return c.w != nil && c.w.Frame() >= 21 })
	if err := c.Say(g.now, "watch the pause"); err != nil {
		t.Fatal(err)
	}
	if n := c.InjectDesync(1); n != 1 {
		t.Fatalf("InjectDesync(1) corrupted %d units", n)
	}
	g.run(2500 * time.Millisecond)
	if n := c.InjectDesync(3); n != 3 {
		t.Fatalf("InjectDesync(3) corrupted %d units", n)
	}
	g.waitFor(10*time.Second, "the stop-the-world's end", func() bool {
		return c.drift.pause == nil && len(c.drift.log.pauses) > 0 && !c.drift.log.pauses[len(c.drift.log.pauses)-1].Running
	})
	g.run(500 * time.Millisecond)
	net = c.Report().Net
	c.Shutdown(g.now)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return capBuf.Bytes(), keyBuf.Bytes(), net
}

// record gives rec every datagram the host at me sends and receives, with what its link did
// to it, as its transport's tap would for --record: sent ones as they leave (passed, dropped
// or duplicated), received ones as they arrive, and the ones dropped on the way to it.
func (g *vgame) record(me netip.AddrPort, rec *record.Recorder) {
	tapFate := map[linksim.Fate]transport.TapFate{linksim.Passed: transport.TapPassed, linksim.Dropped: transport.TapDropped, linksim.Duplicated: transport.TapDuplicated}
	g.OnSend(func(from, to string, data []byte, fate linksim.Fate) {
		switch {
		case from == me.String():
			rec.Tapped(transport.TappedDatagram{At: g.now, Out: true, Fate: tapFate[fate], Local: me, Peer: netip.MustParseAddrPort(to), Data: data})
		case to == me.String() && fate == linksim.Dropped:
			rec.Tapped(transport.TappedDatagram{At: g.now, Fate: transport.TapDropped, Local: me, Peer: netip.MustParseAddrPort(from), Data: data})
		}
	})
	g.tap = func(d linksim.Datagram) {
		if d.To == me.String() {
			rec.Tapped(transport.TappedDatagram{At: g.now, Fate: transport.TapPassed, Local: me, Peer: netip.MustParseAddrPort(d.From), Data: d.Data})
		}
	}
}
