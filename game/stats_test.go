package game

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestServerReportCountsEveryConnection: the server's net section counts the connections
// that ended as well as the open ones. The report is written at exit, after the server has
// dropped every connection, so it used to be all zeros.
func TestServerReportCountsEveryConnection(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 21, clients: 3})
	g.waitFor(10*time.Second, "the game to run", func() bool { return clientRunning(g.clients[0]) })
	g.run(3 * time.Second)
	g.leave(0) // gone long before the end: its counters must stay
	g.run(3 * time.Second)
	res := g.result()

	var sent, received uint64
	for _, c := range res.clients {
		sent += c.Net.PacketsSent
		received += c.Net.PacketsReceived
	}
	n := res.server.Net
	t.Logf("server: %d packets received, %d sent; the clients: %d sent, %d received; rtt %.1f ms", n.PacketsReceived, n.PacketsSent, sent, received, n.RTTMillis)
	// A clean link loses nothing: what the server received is what the clients sent, but for
	// the packets still in flight when the hosts stopped (a few per client).
	if n.PacketsReceived > sent || n.PacketsReceived+10 < sent {
		t.Errorf("the server counts %d packets received; the clients sent it %d", n.PacketsReceived, sent)
	}
	if n.PacketsSent < received || n.PacketsSent > received+10 {
		t.Errorf("the server counts %d packets sent; the clients received %d", n.PacketsSent, received)
	}
	if n.GuaranteedExecuted == 0 || n.BytesReceived == 0 || n.RTTMillis <= 0 {
		t.Errorf("net section: %+v", n)
	}
}

// TestReportRejected: junk sent to the server and to a client's direct-link listener is
// counted under its reason in their reports' rejected section, and the JSON has a counter
// for every reason.
func TestReportRejected(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 22, clients: 2})
	g.waitFor(10*time.Second, "the game to run", func() bool { return clientRunning(g.clients[1]) })
	junk := g.addNode(netip.MustParseAddrPort("192.0.2.66:6666"))
	const toServer, toClient = 7, 4
	for i := range toServer {
		junk.Send(g.srvAddr.String(), []byte{byte(i), 1, 2, 3})
	}
	for i := range toClient {
		junk.Send(g.caddrs[0].String(), []byte{byte(i), 4, 5, 6, 7, 8})
	}
	g.run(2 * time.Second)
	res := g.result()
	s, c := res.server.Rejected, res.clients[0].Rejected
	t.Logf("server: %+v; client: %+v", s, c)
	if s.Malformed != toServer || s.Total != s.Rejections.Total() || s.Total < toServer {
		t.Errorf("server: %+v, want %d malformed", s, toServer)
	}
	if c.Malformed != toClient || c.Total < toClient {
		t.Errorf("client: %+v, want %d malformed", c, toClient)
	}
	b, err := json.Marshal(res.server)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Rejected map[string]uint64 `json:"rejected"`
	}
	if err := json.Unmarshal(b, &parsed); err != nil {
		t.Fatal(err)
	}
	for _, reason := range []string{"total", "malformed", "unexpected", "wrong_key", "replay", "after_close", "stale", "duplicate", "reassembly_full",
		"throttled_address", "throttled_prefix", "throttled_global", "bad_challenge", "server_full", "wrong_version", "overflow", "oversize"} {
		if _, ok := parsed.Rejected[reason]; !ok {
			t.Errorf("the report's rejected section has no %q: %s", reason, b)
		}
	}
	if len(parsed.Rejected) != 17 {
		t.Errorf("rejected section: %v", parsed.Rejected)
	}
	if !strings.Contains(string(b), `"bad_messages":0`) {
		t.Errorf("no game.bad_messages in %s", b)
	}
}

// TestSnapshotCountsEveryEvent: the snapshot carries the latest event lines and a count of
// every line ever logged, so a screen can tell new lines from old once the lines it carries
// stop growing (they are bounded, maxEventsShown).
func TestSnapshotCountsEveryEvent(t *testing.T) {
	g := newVGame(t, vspec{seed: 22})
	for _, n := range []int{1, maxEventsShown, 3*maxEventsShown + 7} {
		start := g.srv.stats.events.total
		for i := range n {
			g.srv.event(g.now, "test line", "i", i)
		}
		g.srv.Intent(g.now)
		snap := g.srv.Snapshot()
		if snap.EventsTotal != start+uint64(n) {
			t.Errorf("after %d more lines: EventsTotal %d, want %d", n, snap.EventsTotal, start+uint64(n))
		}
		if len(snap.Events) != min(int(snap.EventsTotal), maxEventsShown) || !strings.HasSuffix(snap.Events[len(snap.Events)-1], fmt.Sprintf("i=%d", n-1)) {
			t.Errorf("after %d more lines: %d lines, the last %q", n, len(snap.Events), snap.Events[len(snap.Events)-1])
		}
	}
}
