package message

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/linksim"
)

// The classic scenarios of a message dependency graph, each driven packet by packet: the test
// decides which datagram is lost.

// TestScenarioBBeforeA: the server sends A in packet 1 and B in packet 2; packet 1 is lost, so
// the client gets B first and A only when it is resent in packet 3. With B depending on A, the
// client still executes A before B.
func TestScenarioBBeforeA(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	var a depgraph.Dependency
	mustSend(t, srv.conn, now, "A: spawn enemy 1", nil, &a)
	p1 := srv.packet(t, now, false) // lost
	_ = p1
	mustSend(t, srv.conn, now, "B: kill enemy 1", []*depgraph.Dependency{&a}, nil)
	p2 := srv.packet(t, now, false)
	now = now.Add(20 * time.Millisecond)
	cli.deliver(t, now, p2)
	if len(cli.got) != 0 {
		t.Fatalf("B executed before A arrived: %q", cli.payloads())
	}
	if w := cli.conn.Stats().ReceiverWaiting; w != 1 {
		t.Fatalf("ReceiverWaiting = %d, want 1 (B waits for A)", w)
	}
	// Before one RTT (still the initial estimate: no sample yet) has passed since A's send, A is
	// not resent.
	if _, ok := srv.conn.AppendPacket(nil, now, false); ok {
		t.Fatal("A resent before one round-trip time passed")
	}
	// The client acknowledges packet 2; the server learns B arrived but A did not.
	now = now.Add(20 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))
	if got := srv.conn.Stats().Packet.RTT; got != 40*time.Millisecond {
		t.Fatalf("RTT = %v, want 40ms (packet 2 sent at 0, acked at 40ms)", got)
	}
	// A was last sent at 0: it goes again once the resend delay (at least the RTT) has passed.
	if d := srv.conn.Stats().ResendDelay; d < 40*time.Millisecond {
		t.Fatalf("ResendDelay %v is shorter than the RTT", d)
	}
	now = base.Add(srv.conn.Stats().ResendDelay)
	p3 := srv.packet(t, now, false)
	cli.deliver(t, now, p3)
	if got, want := cli.payloads(), []string{"A: spawn enemy 1", "B: kill enemy 1"}; !equalStrings(got, want) {
		t.Fatalf("executed %q, want %q", got, want)
	}
}

// TestScenarioSpawnTenFirstLost: ten spawns without dependencies, the first packet lost. The
// other nine execute at once; the first executes when it is resent. An ordered channel would
// have held all nine back.
func TestScenarioSpawnTenFirstLost(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	for i := range 10 {
		mustSend(t, srv.conn, now, fmt.Sprintf("spawn %d", i), nil, nil)
		d := srv.packet(t, now, false)
		if i > 0 {
			cli.deliver(t, now.Add(10*time.Millisecond), d)
		}
	}
	want := []string{"spawn 1", "spawn 2", "spawn 3", "spawn 4", "spawn 5", "spawn 6", "spawn 7", "spawn 8", "spawn 9"}
	if got := cli.payloads(); !equalStrings(got, want) {
		t.Fatalf("executed %q, want %q", got, want)
	}
	now = now.Add(20 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))
	now = now.Add(srv.conn.Stats().ResendDelay)
	cli.deliver(t, now, srv.packet(t, now, false))
	if got := cli.payloads(); len(got) != 10 || got[9] != "spawn 0" {
		t.Fatalf("executed %q, want spawn 0 last", got)
	}
}

// TestScenarioKillAnHourAfterSpawn: the old-dependency case. The spawn is acknowledged and
// executes in the sender's local graph; an hour and tens of thousands of messages later (the
// 15-bit sequence has wrapped several times) the kill depends on it, and carries no dependency
// bytes at all.
func TestScenarioKillAnHourAfterSpawn(t *testing.T) {
	l := newLink(t, 1, linksim.Settings{Latency: 20 * time.Millisecond}, linksim.Settings{Latency: 20 * time.Millisecond}, Config{})
	var spawn depgraph.Dependency
	mustSend(t, l.a.conn, l.now, "spawn enemy 10", nil, &spawn)
	l.runUntil(t, time.Second, spawn.Executed)
	// Forty seconds of heavy traffic (over three wraps of the 15-bit sequence), then quiet until
	// the hour is up, with only keepalives.
	sent := 1
	for end := l.now.Add(40 * time.Second); l.now.Before(end); {
		for range 30 {
			if _, err := l.a.conn.SendGuaranteed(l.now, []byte("move"), nil, nil); err == nil {
				sent++
			}
		}
		l.step(t)
	}
	if sent < 3*32768 {
		t.Fatalf("only %d messages; want at least three wraps", sent)
	}
	l.tick = time.Second
	for end := base.Add(time.Hour); l.now.Before(end); {
		l.step(t)
	}
	before := l.a.conn.Stats().DependencyBytes
	seq := mustSend(t, l.a.conn, l.now, "kill enemy 10", []*depgraph.Dependency{&spawn}, nil)
	l.runUntil(t, time.Second, func() bool { return len(l.b.got) == sent+1 })
	if d := l.a.conn.Stats().DependencyBytes - before; d != 0 {
		t.Fatalf("the kill sent %d dependency bytes, want 0", d)
	}
	last := l.b.got[len(l.b.got)-1]
	if string(last.Payload) != "kill enemy 10" || last.Seq != seq || len(last.Deps) != 0 {
		t.Fatalf("last delivery %+v, want the kill with seq %d and no deps", last, seq)
	}
}

// TestScenarioStartGameWaitsForPlayerInfos: "start game" depends on the N player-info messages;
// it executes only after all of them, whichever of them are lost.
func TestScenarioStartGameWaitsForPlayerInfos(t *testing.T) {
	for _, n := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("players=%d", n), func(t *testing.T) {
			srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
			now := base
			infos := make([]depgraph.Dependency, n)
			deps := make([]*depgraph.Dependency, n)
			for i := range n {
				mustSend(t, srv.conn, now, fmt.Sprintf("player %d", i), nil, &infos[i])
				deps[i] = &infos[i]
				d := srv.packet(t, now, false)
				if i%2 == 1 { // every other player's info is lost
					cli.deliver(t, now, d)
				}
			}
			mustSend(t, srv.conn, now, "start game", deps, nil)
			cli.deliver(t, now, srv.packet(t, now, false))
			for _, p := range cli.payloads() {
				if p == "start game" {
					t.Fatalf("start game executed with player infos missing: %q", cli.payloads())
				}
			}
			now = now.Add(10 * time.Millisecond)
			srv.deliver(t, now, cli.packet(t, now, true))
			now = now.Add(srv.conn.Stats().ResendDelay)
			cli.deliver(t, now, srv.packet(t, now, false))
			got := cli.payloads()
			if len(got) != n+1 || got[n] != "start game" {
				t.Fatalf("executed %q, want %d player infos then start game", got, n)
			}
			// start game carried n dependency words at first: 2 + 2n bytes.
			if last := cli.got[n]; len(last.Deps) > n {
				t.Fatalf("start game carried %d deps", len(last.Deps))
			}
		})
	}
}

// TestScenarioChatChain: a chat is a chain per sender. Through a lossy, reordering link every line
// arrives once and in order, while a message outside the chain never waits for it.
func TestScenarioChatChain(t *testing.T) {
	lossy := linksim.Settings{LossPercent: 30, Latency: 50 * time.Millisecond, Jitter: 30 * time.Millisecond, DupPercent: 10}
	l := newLink(t, 7, lossy, lossy, Config{})
	var chat Chain
	const lines = 200
	for i := range lines {
		if _, err := chat.Send(l.a.conn, l.now, []byte(fmt.Sprintf("ann %d", i+1))); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			mustSend(t, l.a.conn, l.now, "spawn", nil, nil)
		}
		l.step(t)
	}
	l.runUntil(t, time.Minute, func() bool { return l.a.conn.Stats().PendingGuaranteed == 0 && len(l.b.got) == lines+20 })
	next := 1
	for _, p := range l.b.payloads() {
		if p == "spawn" {
			continue
		}
		if want := fmt.Sprintf("ann %d", next); p != want {
			t.Fatalf("chat line %q, want %q", p, want)
		}
		next++
	}
}

// TestScenarioSyncHoldsBackGuaranteed: while a sync message is unacknowledged no other
// guaranteed message goes out, it keeps its sequence number on every retransmission, and the
// connection reports that it is waiting.
func TestScenarioSyncHoldsBackGuaranteed(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	syncSeq, err := srv.conn.SendSync(now, []byte("pause at frame 300"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustSend(t, srv.conn, now, "spawn after pause", nil, nil)
	if !srv.conn.WaitingForSync() {
		t.Fatal("WaitingForSync false with a sync message queued")
	}
	p1 := srv.packet(t, now, false) // carries only the sync message; lost
	_ = p1
	if _, ok := srv.conn.AppendPacket(nil, now, false); ok {
		t.Fatal("a guaranteed message went out behind an unacknowledged sync message")
	}
	// Retransmit after one RTT: same sequence number.
	now = now.Add(srv.conn.Stats().ResendDelay)
	p2 := srv.packet(t, now, false)
	if _, ok := srv.conn.AppendPacket(nil, now, false); ok {
		t.Fatal("a guaranteed message went out behind an unacknowledged sync message")
	}
	cli.deliver(t, now, p2)
	if len(cli.got) != 1 || !cli.got[0].Sync || cli.got[0].Seq != syncSeq {
		t.Fatalf("client got %+v, want the sync message with seq %d", cli.got, syncSeq)
	}
	if !srv.conn.WaitingForSync() {
		t.Fatal("WaitingForSync false before the ack")
	}
	now = now.Add(10 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))
	if srv.conn.WaitingForSync() {
		t.Fatal("WaitingForSync still true after the ack")
	}
	cli.deliver(t, now, srv.packet(t, now, false))
	if got := cli.payloads(); len(got) != 2 || got[1] != "spawn after pause" {
		t.Fatalf("client got %q", got)
	}
}

// TestBackpressureNeverReusesInFlightSeq: with nothing acknowledged, the message Window
// numbers after the oldest one not executed is refused (the window rule, depgraph.Window), so
// sequence number 0, whose message may still be in flight, is never reached, let alone reused.
func TestBackpressureNeverReusesInFlightSeq(t *testing.T) {
	c := New(Config{}, func(*Message) {})
	for i := range depgraph.Window {
		if _, err := c.SendGuaranteed(base, []byte{1}, nil, nil); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if _, err := c.SendGuaranteed(base, []byte{1}, nil, nil); !errors.Is(err, ErrBackpressure) {
		t.Fatalf("message %d: err = %v, want ErrBackpressure", depgraph.Window, err)
	}
	if got := c.Stats().Backpressure; got != 1 {
		t.Fatalf("Backpressure = %d, want 1", got)
	}
}

// TestFragmentLostResendsAlone: a 10,000-byte message goes in 9 fragments; one is lost and only
// that one is sent again.
func TestFragmentLostResendsAlone(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	big := make([]byte, 10000)
	for i := range big {
		big[i] = byte(i * 7)
	}
	mustSend(t, srv.conn, now, string(big), nil, nil)
	var pkts [][]byte
	for {
		d, ok := srv.conn.AppendPacket(nil, now, false)
		if !ok {
			break
		}
		pkts = append(pkts, d)
	}
	if len(pkts) != 9 {
		t.Fatalf("%d packets, want 9 fragments", len(pkts))
	}
	for i, d := range pkts {
		if i != 4 {
			cli.deliver(t, now, d)
		}
	}
	if len(cli.got) != 0 {
		t.Fatal("message delivered with a fragment missing")
	}
	now = now.Add(10 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))
	now = now.Add(srv.conn.Stats().ResendDelay)
	resent := srv.packet(t, now, false)
	if _, ok := srv.conn.AppendPacket(nil, now, false); ok {
		t.Fatal("more than the lost fragment was resent")
	}
	cli.deliver(t, now, resent)
	if len(cli.got) != 1 || string(cli.got[0].Payload) != string(big) {
		t.Fatal("reassembled message differs")
	}
	if s := srv.conn.Stats(); s.FragmentsSent != 9 || s.FragmentsResent != 1 {
		t.Fatalf("FragmentsSent=%d FragmentsResent=%d, want 9 and 1", s.FragmentsSent, s.FragmentsResent)
	}
}

func mustSend(t testing.TB, c *Conn, now time.Time, payload string, deps []*depgraph.Dependency, out *depgraph.Dependency) uint16 {
	t.Helper()
	seq, err := c.SendGuaranteed(now, []byte(payload), deps, out)
	if err != nil {
		t.Fatalf("SendGuaranteed(%q): %v", payload, err)
	}
	return seq
}
