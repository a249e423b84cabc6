package message

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/wire"
)

// drain writes every datagram e has due at now.
func drain(e *endpoint, now time.Time) [][]byte {
	var out [][]byte
	for {
		d, ok := e.conn.AppendPacket(nil, now, false)
		if !ok {
			return out
		}
		out = append(out, d)
	}
}

// TestReassemblyBoundRefusesDatagramUnacked: when a fragment would start a reassembly beyond
// the memory bound, the whole datagram is refused unacknowledged (acks are per packet: accepting
// it and dropping the fragment would lose the fragment for good). The sender sends it again, and
// once the first message completes there is room: both arrive.
func TestReassemblyBoundRefusesDatagramUnacked(t *testing.T) {
	cfg := Config{MaxMessageSize: 3000, MaxReassemblyBytes: 4000}
	srv, cli := newEndpoint("server", cfg), newEndpoint("client", cfg)
	now := base
	big1 := make([]byte, 2500) // 3 fragments
	big2 := make([]byte, 2500) // 3 fragments
	for i := range big1 {
		big1[i], big2[i] = byte(i), byte(i*3)
	}
	mustSend(t, srv.conn, now, string(big1), nil, nil)
	mustSend(t, srv.conn, now, string(big2), nil, nil)
	pkts := drain(srv, now)
	if len(pkts) < 4 {
		t.Fatalf("%d packets", len(pkts))
	}
	// The packet holding the last fragment of message 1 is lost, so message 1 is still being
	// reassembled when message 2's fragments arrive: no room, dropped.
	lost := 2
	for i, d := range pkts {
		if i != lost {
			cli.deliver(t, now, d)
		}
	}
	if cli.conn.Stats().FragmentsDropped == 0 {
		t.Fatal("setup: no fragment was dropped for lack of room")
	}
	// Now a clean exchange for 10 s: everything due is sent and delivered.
	for step := 0; step < 1000 && srv.conn.Err() == nil && cli.conn.Err() == nil; step++ {
		now = now.Add(10 * time.Millisecond)
		for _, d := range drain(srv, now) {
			cli.deliver(t, now, d)
		}
		if d, ok := cli.conn.AppendPacket(nil, now, true); ok {
			srv.deliver(t, now, d)
		}
	}
	t.Logf("sender: pending %d, sender graph %d; receiver err %v; delivered %d",
		srv.conn.Stats().PendingGuaranteed, srv.conn.Stats().SenderGraph, cli.conn.Err(), len(cli.got))
	if cli.conn.Err() != nil {
		t.Fatalf("receiver failed: %v (sender believes all delivered: pending=%d)", cli.conn.Err(), srv.conn.Stats().PendingGuaranteed)
	}
	if len(cli.got) != 2 {
		t.Fatalf("delivered %d messages, want 2", len(cli.got))
	}
}

// TestNextDeadlineFreshConn: on a Conn that has never seen a now, a queued guaranteed message
// makes NextDeadline report work due now.
func TestNextDeadlineFreshConn(t *testing.T) {
	c := New(Config{}, func(*Message) {})
	if _, err := c.SendGuaranteed(base, []byte("hello"), nil, nil); err != nil {
		t.Fatal(err)
	}
	d := c.NextDeadline(base)
	if _, ok := c.AppendPacket(nil, base, false); !ok {
		t.Fatal("setup: nothing to send")
	}
	if d.IsZero() {
		t.Fatal("NextDeadline is zero (nothing scheduled) with a guaranteed message queued")
	}
}

// TestNextDeadlineUnreliable: a queued unreliable message is work due now.
func TestNextDeadlineUnreliable(t *testing.T) {
	c := New(Config{}, func(*Message) {})
	c.Poll(base)
	if err := c.SendUnreliable([]byte("pos")); err != nil {
		t.Fatal(err)
	}
	d := c.NextDeadline(base)
	if d.IsZero() || d.After(base) {
		t.Fatalf("NextDeadline = %v with an unreliable message queued, want now", d)
	}
}

// TestNextDeadlineNotDueWhilePaced: with the packets in flight at the cap, queued messages and
// resends cannot go out until acks arrive, so NextDeadline must not report them as due now (a
// transport that trusted it would spin, starving the goroutines that bring the acks). Once an
// ack frees the window, the queue is due again.
func TestNextDeadlineNotDueWhilePaced(t *testing.T) {
	const inFlight = 4
	srv, cli := newEndpoint("server", Config{MaxInFlight: inFlight}), newEndpoint("client", Config{})
	now := base
	payload := make([]byte, 1000) // one message a packet
	for range inFlight + 3 {
		if _, err := srv.conn.SendGuaranteed(now, payload, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	var sent [][]byte
	for {
		d, ok := srv.conn.AppendPacket(nil, now, false)
		if !ok {
			break
		}
		sent = append(sent, d)
	}
	if len(sent) != inFlight {
		t.Fatalf("sent %d packets, want the cap of %d", len(sent), inFlight)
	}
	// Long past every resend delay: nothing new can go out, only one probe, the oldest message
	// again past the full window, so that the peer acknowledges (probeDue). After it, nothing
	// is due before the next probe, a resend delay later.
	later := now.Add(time.Second)
	probe, ok := srv.conn.AppendPacket(nil, later, false)
	if !ok {
		t.Fatal("no probe at the cap")
	}
	if _, ok := srv.conn.AppendPacket(nil, later, false); ok {
		t.Fatal("setup: a second packet went out past the cap")
	}
	if d := srv.conn.NextDeadline(later); !d.IsZero() && !d.After(later) {
		t.Fatalf("NextDeadline = %v (now %v) while paced: would spin", d.Sub(base), later.Sub(base))
	}
	if err := cli.conn.Receive(later, probe); err != nil {
		t.Fatal(err)
	}
	if got, probes := cli.conn.Stats().GuaranteedExecuted, srv.conn.Stats().Probes; got != 1 || probes != 1 {
		t.Fatalf("the probe at the cap delivered %d messages (%d probes), want the oldest one", got, probes)
	}
	// The client acks the first packet: room in the window, and work due at once.
	cli.deliver(t, later, sent[0])
	srv.deliver(t, later, cli.packet(t, later, true))
	if d := srv.conn.NextDeadline(later); d.IsZero() || d.After(later) {
		t.Fatalf("NextDeadline = %v after an ack freed the window, want now", d)
	}
}

// TestResendLimitDeadlineMakesProgress: a driver that jumps from one NextDeadline to the next
// must make progress; at firstSent + ResendLimit the limit fires (it does not keep reporting the
// same instant with nothing happening).
func TestResendLimitDeadlineMakesProgress(t *testing.T) {
	c := New(Config{}, func(*Message) {})
	now := base
	if _, err := c.SendGuaranteed(now, []byte("lost forever"), nil, nil); err != nil {
		t.Fatal(err)
	}
	same := 0
	for i := 0; i < 10000; i++ {
		for {
			if _, ok := c.AppendPacket(nil, now, false); !ok {
				break
			}
		}
		if c.Err() != nil {
			if !errors.Is(c.Err(), ErrResendLimit) {
				t.Fatalf("err = %v", c.Err())
			}
			return
		}
		next := c.NextDeadline(now)
		if next.IsZero() {
			t.Fatal("NextDeadline zero with a message in flight")
		}
		if !next.After(now) {
			same++
			if same > 3 {
				t.Fatalf("stuck at %v: NextDeadline = %v keeps returning the present and nothing happens", now.Sub(base), next.Sub(base))
			}
		} else {
			same = 0
		}
		if next.After(now) {
			now = next
		}
	}
	t.Fatal("resend limit never fired")
}

// TestMaxMessageSizeFitsFragments: a message of the configured maximum size (by default what
// 255 fragments carry at the MTU) is accepted, and one byte more is refused with ErrTooLarge.
func TestMaxMessageSizeFitsFragments(t *testing.T) {
	for _, mtu := range []int{0, 576, 1200, 1500} {
		c := New(Config{MTU: mtu}, func(*Message) {})
		largest := c.cfg.MaxMessageSize
		if _, err := c.SendGuaranteed(base, make([]byte, largest), nil, nil); err != nil {
			t.Fatalf("MTU %d: a message of MaxMessageSize (%d bytes) was refused: %v", mtu, largest, err)
		}
		if _, err := c.SendGuaranteed(base, make([]byte, largest+1), nil, nil); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("MTU %d: %d bytes: err = %v, want ErrTooLarge", mtu, largest+1, err)
		}
	}
}

// TestMTUClampedToMaxDatagram: an MTU above wire.MaxDatagram is clamped, so a Conn never writes
// a datagram its peer must reject.
func TestMTUClampedToMaxDatagram(t *testing.T) {
	cfg := Config{MTU: 2000}
	a, b := newEndpoint("a", cfg), newEndpoint("b", cfg)
	if got := a.conn.cfg.MTU; got != wire.MaxDatagram {
		t.Fatalf("MTU 2000 became %d, want %d", got, wire.MaxDatagram)
	}
	if err := a.conn.SendUnreliable(make([]byte, 1800)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("an 1800-byte unreliable message: err = %v, want ErrTooLarge", err)
	}
	if err := a.conn.SendUnreliable(make([]byte, 1400)); err != nil {
		t.Fatal(err)
	}
	d := a.packet(t, base, false)
	if err := b.conn.Receive(base, d); err != nil {
		t.Fatalf("a %d-byte datagram written by a Conn is rejected by its peer: %v", len(d), err)
	}
}

// TestAckWindowBurstExactlyOnce: a queue of large messages is more than 32 packets, and an ack
// covers only the newest 32. The sender paces itself (at most MaxInFlight packets with content
// unacknowledged) and the receiver acknowledges at least every 16 packets, so nothing that
// arrived is declared lost and resent after the receiver forgot it: on a clean link with 500 ms
// one-way latency every message executes exactly once.
func TestAckWindowBurstExactlyOnce(t *testing.T) {
	slow := linksim.Settings{Latency: 500 * time.Millisecond}
	l := newLink(t, 1, slow, slow, Config{})
	const n = 255
	for i := range n {
		p := make([]byte, 1100)
		copy(p, fmt.Sprintf("msg %d", i))
		if _, err := l.a.conn.SendGuaranteed(l.now, p, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[uint16]int{}
	l.b.onMsg = func(m *Message) {
		seen[m.Seq]++
		if seen[m.Seq] == 2 {
			t.Errorf("message %d executed twice (at %v)", m.Seq, l.now.Sub(base))
		}
	}
	for l.now.Sub(base) < 30*time.Second && l.a.conn.Stats().PendingGuaranteed > 0 {
		l.step(t)
		if t.Failed() {
			break
		}
	}
	s := l.a.conn.Stats()
	t.Logf("after %v: pending %d, resent %d, packets sent %d lost %d, receiver duplicates ignored %d",
		l.now.Sub(base), s.PendingGuaranteed, s.GuaranteedResent, s.Packet.PacketsSent, s.Packet.PacketsLost, l.b.conn.Stats().DuplicatesIgnored)
	if t.Failed() {
		t.FailNow()
	}
	if len(seen) != n {
		t.Fatalf("executed %d distinct messages, want %d", len(seen), n)
	}
}

// TestAckWindowBurstFragments: the same with one message of 250 fragments: paced at 32 packets
// per round trip, it arrives whole and executes once.
func TestAckWindowBurstFragments(t *testing.T) {
	slow := linksim.Settings{Latency: 500 * time.Millisecond}
	l := newLink(t, 1, slow, slow, Config{})
	big := make([]byte, 250*1100)
	if _, err := l.a.conn.SendGuaranteed(l.now, big, nil, nil); err != nil {
		t.Fatal(err)
	}
	for l.now.Sub(base) < 30*time.Second && l.a.conn.Stats().PendingGuaranteed > 0 {
		l.step(t)
		if l.b.conn.Err() != nil || l.a.conn.Err() != nil {
			break
		}
	}
	for range 1000 { // let any pending expiry happen
		l.step(t)
		if l.b.conn.Err() != nil {
			break
		}
	}
	s := l.a.conn.Stats()
	t.Logf("after %v: pending %d, fragments sent %d resent %d; receiver: delivered %d, reassembling %d, err %v",
		l.now.Sub(base), s.PendingGuaranteed, s.FragmentsSent, s.FragmentsResent, len(l.b.got), l.b.conn.Stats().Reassembling, l.b.conn.Err())
	if err := l.b.conn.Err(); err != nil {
		t.Fatalf("receiver failed on a clean link: %v", err)
	}
	if len(l.b.got) != 1 {
		t.Fatalf("delivered %d times, want 1", len(l.b.got))
	}
}

// TestFragmentSplitRule: every message size the sender accepts splits into fragments the
// receiver accepts: none empty, each record within an empty packet's budget.
func TestFragmentSplitRule(t *testing.T) {
	c := New(Config{}, func(*Message) {})
	buf := make([]byte, wire.MaxMessageSize)
	bad := 0
	for _, nDeps := range []int{0, 1, 7, 255} {
		deps := make([]uint16, nDeps)
		for i := range deps {
			deps[i] = uint16(i + 1)
		}
		m := &outMsg{}
		for total := 1; total <= wire.MaxMessageSize; total++ {
			m.payload = buf[:total]
			if !c.splitUnits(m, nDeps) || !m.fragmented() {
				continue
			}
			n := len(m.units)
			if (n-1)*m.chunk >= total {
				bad++
				if bad < 5 {
					t.Errorf("total %d deps %d: %d fragments of %d bytes leave the last one empty", total, nDeps, n, m.chunk)
				}
			}
			r := wire.Record{Kind: wire.KindFragment, Seq: 0x7fff, Deps: deps, FragCount: uint8(n), TotalLen: uint32(total), Payload: buf[:m.chunk]}
			if r.Size() > c.budget() {
				bad++
				if bad < 5 {
					t.Errorf("total %d deps %d: fragment record of %d bytes exceeds the budget %d", total, nDeps, r.Size(), c.budget())
				}
			}
		}
	}
}

// TestWholeAfterFragmentClearsReassembly: a datagram that carries a fragment of seq 7 and then a
// whole guaranteed message with seq 7 executes the whole one and drops the partial reassembly,
// which must not expire later as a connection error over a message that executed.
func TestWholeAfterFragmentClearsReassembly(t *testing.T) {
	cli := newEndpoint("client", Config{})
	body := wire.AppendHeader(nil, wire.Header{Type: wire.TypeData, Seq: 1})
	var err error
	body, err = wire.AppendRecord(body, &wire.Record{Kind: wire.KindFragment, Seq: 7, FragIndex: 0, FragCount: 2, TotalLen: 4, Payload: []byte("ab")})
	if err != nil {
		t.Fatal(err)
	}
	body, err = wire.AppendRecord(body, &wire.Record{Kind: wire.KindGuaranteed, Seq: 7, Payload: []byte("whole")})
	if err != nil {
		t.Fatal(err)
	}
	d := append(wire.BeginDatagram(nil), body...)
	wire.SealDatagram(d, 0)
	cli.deliver(t, base, d)
	if len(cli.got) != 1 {
		t.Fatalf("setup: delivered %d", len(cli.got))
	}
	cli.conn.Poll(base.Add(7 * time.Second))
	if err := cli.conn.Err(); err != nil {
		t.Fatalf("connection failed over message 7, which executed: %v (reassembling %d)", err, cli.conn.Stats().Reassembling)
	}
}

// TestNoDeliveryAfterConnectionError: when Receive's own Poll fails the connection (here a
// reassembly expires), nothing of that datagram is delivered and Receive reports the error.
func TestNoDeliveryAfterConnectionError(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	mustSend(t, srv.conn, now, string(make([]byte, 3000)), nil, nil)
	pkts := drain(srv, now)
	cli.deliver(t, now, pkts[0]) // first fragment only: the reassembly now expires at +6 s
	now = now.Add(cli.conn.cfg.Expiry())
	body := wire.AppendHeader(nil, wire.Header{Type: wire.TypeData, Seq: 100})
	body, _ = wire.AppendRecord(body, &wire.Record{Kind: wire.KindUnreliable, Payload: []byte("late")})
	d := append(wire.BeginDatagram(nil), body...)
	wire.SealDatagram(d, 0)
	n := len(cli.got)
	rerr := cli.conn.Receive(now, d)
	if cli.conn.Err() == nil {
		t.Fatal("setup: the reassembly did not expire")
	}
	if len(cli.got) != n {
		t.Fatalf("delivered %d message(s) after the connection failed with %v (Receive returned %v)", len(cli.got)-n, cli.conn.Err(), rerr)
	}
}

// TestIdleKeepalivesDoNotPingPong: keepalives owe no ack, so two idle connections send one packet
// per keepalive interval each, not one per tick acknowledging each other's acknowledgements.
func TestIdleKeepalivesDoNotPingPong(t *testing.T) {
	l := newLink(t, 1, linkLAN, linkLAN, Config{})
	mustSend(t, l.a.conn, l.now, "hello", nil, nil)
	l.runUntil(t, time.Second, func() bool { return len(l.b.got) == 1 })
	for range 10 {
		l.step(t)
	}
	before := l.a.conn.Stats().Packet.PacketsSent
	const idle = 10 * time.Second
	for end := l.now.Add(idle); l.now.Before(end); {
		l.step(t)
	}
	sent := l.a.conn.Stats().Packet.PacketsSent - before
	// A keepalive every 100 ms is 100 packets in 10 s.
	if sent > 150 {
		t.Fatalf("an idle connection sent %d packets in %v (tick %v, keepalive %v)", sent, idle, l.tick, l.a.conn.cfg.Keepalive)
	}
}

// TestSeveralSyncMessages: two sync messages and a plain one. Each sync message goes out alone and
// holds back everything after it until acknowledged; WaitingForSync stays true until the last
// sync message is acknowledged.
func TestSeveralSyncMessages(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	if _, err := srv.conn.SendSync(now, []byte("s1"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.conn.SendSync(now, []byte("s2"), nil, nil); err != nil {
		t.Fatal(err)
	}
	mustSend(t, srv.conn, now, "m", nil, nil)
	var order []string
	for round := 0; round < 10 && len(cli.got) < 3; round++ {
		ps := drain(srv, now)
		if len(ps) > 1 {
			t.Fatalf("round %d: %d packets while a sync message is out", round, len(ps))
		}
		for _, p := range ps {
			before := len(cli.got)
			cli.deliver(t, now, p)
			for _, g := range cli.got[before:] {
				order = append(order, string(g.Payload))
			}
		}
		if len(cli.got) < 3 && !srv.conn.WaitingForSync() && len(cli.got) < 2 {
			t.Fatalf("WaitingForSync false with %d of 2 sync messages delivered", len(cli.got))
		}
		now = now.Add(10 * time.Millisecond)
		srv.deliver(t, now, cli.packet(t, now, true))
	}
	if fmt.Sprint(order) != "[s1 s2 m]" {
		t.Fatalf("order %v", order)
	}
	if srv.conn.WaitingForSync() {
		t.Fatal("WaitingForSync true after every sync message was acked")
	}
}

// TestFullWindowProbedWhenAcksLost: a sender whose window is full and whose acks were all lost
// learns what became of the window from a probe within about a resend delay, not when the peer
// next speaks on its own: the peer, with nothing to say, keeps silent (its keepalive is an hour
// here). While keepalives went every 100 ms they hid the wait; a window shut until the peer's
// next keepalive is what made a spectator's copy of the world, sent in many packets, wait.
func TestFullWindowProbedWhenAcksLost(t *testing.T) {
	const inFlight, messages = 4, 7
	cfg := Config{MaxInFlight: inFlight, Keepalive: time.Hour}
	srv, cli := newEndpoint("server", cfg), newEndpoint("client", cfg)
	now := base
	payload := make([]byte, 1000) // one message a packet
	for range messages {
		if _, err := srv.conn.SendGuaranteed(now, payload, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Every packet of the full window arrives; every ack the client sends is lost.
	for {
		d, ok := srv.conn.AppendPacket(nil, now, false)
		if !ok {
			break
		}
		cli.deliver(t, now, d)
		cli.conn.AppendPacket(nil, now, false) // the ack, lost
	}
	// Then both sides do what is due, every millisecond, and nothing more is lost.
	end := now.Add(time.Second)
	for ; now.Before(end) && len(cli.got) < messages; now = now.Add(time.Millisecond) {
		for _, d := range drain(srv, now) {
			cli.deliver(t, now, d)
		}
		for _, d := range drain(cli, now) {
			srv.deliver(t, now, d)
		}
	}
	if len(cli.got) < messages {
		t.Fatalf("%d of %d messages delivered after 1 s: the full window waited for the silent peer", len(cli.got), messages)
	}
	// No round trip was measured: the resend delay is the initial guess.
	if took, most := now.Sub(base), 2*(packet.DefaultInitialRTT+MaxAckDelay); took > most {
		t.Errorf("the window opened %v after its acks were lost, want within two resend delays (%v)", took, most)
	}
	if st := srv.conn.Stats(); st.Probes == 0 {
		t.Errorf("no probe counted (resent %d)", st.GuaranteedResent)
	}
}

// TestUnreliableAckRidesOnNextPacket: a packet of unreliable messages alone owes the peer an
// ack, but a lazy one: no ack-only packet after the ack delay; the ack rides on the next packet
// that goes anyway, and an ack-only packet carries it only after a keepalive interval of
// silence. A packet with a guaranteed message is acknowledged within the ack delay, as before.
func TestUnreliableAckRidesOnNextPacket(t *testing.T) {
	for _, tt := range []struct {
		name       string
		guaranteed bool
		wantAfter  time.Duration // when the receiver's ack-only packet is due
	}{
		{"unreliable", false, DefaultKeepalive},
		{"guaranteed", true, MaxAckDelay},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := newEndpoint("a", Config{}), newEndpoint("b", Config{})
			now := base
			// Both sides have sent a packet: the keepalive clocks run.
			b.deliver(t, now, a.packet(t, now, true))
			a.deliver(t, now, b.packet(t, now, true))
			if tt.guaranteed {
				if _, err := a.conn.SendGuaranteed(now, []byte("order"), nil, nil); err != nil {
					t.Fatal(err)
				}
			} else if err := a.conn.SendUnreliable([]byte("frame sync")); err != nil {
				t.Fatal(err)
			}
			b.deliver(t, now, a.packet(t, now, false))
			if got := b.conn.AckLazy(); got == tt.guaranteed {
				t.Errorf("AckLazy = %v after a packet with a guaranteed message %v", got, tt.guaranteed)
			}
			if d := b.conn.NextDeadline(now); !d.Equal(now.Add(tt.wantAfter)) {
				t.Errorf("the ack is due %v after the packet came, want %v", d.Sub(now), tt.wantAfter)
			}
			if _, ok := b.conn.AppendPacket(nil, now.Add(tt.wantAfter-time.Millisecond), false); ok {
				t.Errorf("an ack-only packet %v after the packet came, want none before %v", tt.wantAfter-time.Millisecond, tt.wantAfter)
			}
			ack, ok := b.conn.AppendPacket(nil, now.Add(tt.wantAfter), false)
			if !ok {
				t.Fatalf("no ack-only packet %v after the packet came", tt.wantAfter)
			}
			a.deliver(t, now.Add(tt.wantAfter), ack)
			if st := a.conn.Stats().Packet; st.InFlight != 0 {
				t.Errorf("%d of a's packets in flight after b's ack", st.InFlight)
			}
		})
	}
}

// TestTailLossFoundByProbe: the last packet with messages before a silence is lost. Its sender
// follows it, once its ack is late, with an empty packet (the tail probe); the peer, which sees
// a gap before that packet, acknowledges it within the ack delay although it carries no
// message; the ack tells the sender the first packet was lost, and the message goes again at
// once. Without the probe and the ack of the gap, nothing would move until the resend delay.
func TestTailLossFoundByProbe(t *testing.T) {
	cfg := Config{Keepalive: time.Hour}
	a, b := newEndpoint("a", cfg), newEndpoint("b", cfg)
	now := base
	// One round trip measured: 100 ms, and a variation of half that (RFC 6298's first sample).
	// The resend delay is 100 + 4 × 50 + 10 = 310 ms, the probe due at 100 + 10 + 2 × 50.
	a.conn.SampleRTT(100*time.Millisecond, 0)
	b.deliver(t, now, a.packet(t, now, true)) // both sides have sent a packet: their clocks run
	a.deliver(t, now, b.packet(t, now, true))
	if _, err := a.conn.SendGuaranteed(now, []byte("order"), nil, nil); err != nil {
		t.Fatal(err)
	}
	a.packet(t, now, false) // lost
	probeAt := a.conn.NextDeadline(now)
	if want := now.Add(210 * time.Millisecond); !probeAt.Equal(want) {
		t.Fatalf("next deadline %v after the send, want the tail probe at %v", probeAt.Sub(now), want.Sub(now))
	}
	probe, ok := a.conn.AppendPacket(nil, probeAt, false)
	if !ok {
		t.Fatal("no tail probe")
	}
	if a.conn.Stats().TailProbes != 1 {
		t.Errorf("%d tail probes counted, want 1", a.conn.Stats().TailProbes)
	}
	if _, ok := a.conn.AppendPacket(nil, probeAt, false); ok {
		t.Fatal("a second packet at the probe's time")
	}
	b.deliver(t, probeAt, probe)
	if !b.conn.AckOwed() {
		t.Fatal("an empty packet after a gap owes no ack")
	}
	ackAt := probeAt.Add(MaxAckDelay)
	a.deliver(t, ackAt, b.packet(t, ackAt, false))
	resend, ok := a.conn.AppendPacket(nil, ackAt, false)
	if !ok {
		t.Fatal("the message did not go again once the ack showed its packet lost")
	}
	b.deliver(t, ackAt, resend)
	if got := b.payloads(); len(got) != 1 || got[0] != "order" {
		t.Fatalf("b got %q", got)
	}
	// A packet of unreliable messages alone gets no probe: the peer acknowledges it only with
	// what it sends next, so its ack is always late, and there is nothing to resend.
	if err := a.conn.SendUnreliable([]byte("hash report")); err != nil {
		t.Fatal(err)
	}
	reportAt := ackAt.Add(time.Second)
	a.deliver(t, ackAt.Add(MaxAckDelay), b.packet(t, ackAt.Add(MaxAckDelay), false)) // the resend's ack
	if st := a.conn.Stats().Packet; st.InFlight != 0 {
		t.Fatalf("%d of a's packets in flight before the report", st.InFlight)
	}
	if _, ok := a.conn.AppendPacket(nil, reportAt, false); !ok {
		t.Fatal("the unreliable message did not go")
	}
	if d := a.conn.NextDeadline(reportAt); d.Before(reportAt.Add(cfg.Keepalive)) {
		t.Errorf("next deadline %v after a packet of unreliable messages alone, want none before the keepalive", d.Sub(reportAt))
	}
	if _, ok := a.conn.AppendPacket(nil, reportAt.Add(time.Second), false); ok || a.conn.Stats().TailProbes != 1 {
		t.Errorf("a packet went a second after a packet of unreliable messages alone (tail probes %d, want 1)", a.conn.Stats().TailProbes)
	}
	// An empty packet without a gap still owes nothing: two idle sides never ack each other.
	c, d := newEndpoint("c", cfg), newEndpoint("d", cfg)
	d.deliver(t, now, c.packet(t, now, true))
	d.deliver(t, now, c.packet(t, now, true))
	if d.conn.AckOwed() {
		t.Error("an empty packet without a gap owes an ack")
	}
}
