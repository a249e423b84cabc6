package transport

import (
	"runtime"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/message"
)

// TestLoopbackSteadyStateNoAlloc: a Server and a Client on real loopback UDP sockets, each
// with its reader goroutine, carry a stream of guaranteed messages, a packet's worth per
// round: the client queues 17 messages of 64 bytes and sends them, the server's socket reads
// the datagram, the server opens it, delivers the messages and, every 16 packets, sends an
// ack that the client handles. Once the connection's tables, pools and rings have grown to
// their steady size, a round allocates nothing anywhere in the process: the sockets'
// readers, the sealing, the packet and message layers and both graphs.
//
// The test owns both loops and gives them a virtual clock that moves 10 µs a round, so the
// 6,000 rounds take 60 ms and fall between the jobs a host does by the clock (a stats snapshot
// every 100 ms, a ping a second), which allocate their snapshots by design.
func TestLoopbackSteadyStateNoAlloc(t *testing.T) {
	defer verifyNoLeaks(t)
	var delivered int
	srv, err := Listen("127.0.0.1:0", ServerConfig{Config: Config{
		OnMessage: func(*Peer, time.Time, *message.Message) { delivered++ },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := Dial(srv.LocalAddr().String(), ClientConfig{Name: "alloc"})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	now := time.Unix(1_000_000, 0)
	// next waits for the next datagram of a socket, at most a second (on a timer made once:
	// a timer a wait would be the test's own allocation).
	limit := time.NewTimer(time.Hour)
	defer limit.Stop()
	next := func(c <-chan Datagram) Datagram {
		limit.Reset(time.Second)
		select {
		case d := <-c:
			return d
		case <-limit.C:
			t.Fatal("no datagram within a second")
		}
		return Datagram{}
	}
	// The handshake: request, challenge, response, accepted, the client's first packet.
	cli.Tick(now)
	for cli.State() != Connected {
		srv.Handle(now, next(srv.Datagrams()))
		cli.Handle(now, next(cli.Datagrams()))
	}
	srv.Handle(now, next(srv.Datagrams())) // the client's first packet

	conn := cli.Peer().Conn()
	p := srv.Peers()[0]
	payload := make([]byte, 64)
	round := func() {
		now = now.Add(10 * time.Microsecond)
		for range 17 {
			if _, err := conn.SendGuaranteed(now, payload, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		sent := p.Conn().PacketsAccepted()
		cli.Tick(now)
		for p.Conn().PacketsAccepted() == sent {
			srv.Handle(now, next(srv.Datagrams()))
		}
		acks := conn.PacketsAccepted()
		before := p.Conn().Stats().Packet.PacketsSent
		srv.Tick(now)
		if p.Conn().Stats().Packet.PacketsSent != before {
			for conn.PacketsAccepted() == acks {
				cli.Handle(now, next(cli.Datagrams()))
			}
		}
	}
	// Warm up past two wraps of the message numbers, so that every table has reached the
	// size it keeps (under the window rule both graphs keep an executed message as a bit, and
	// nodes only for the messages not executed yet).
	for range 5000 {
		round()
	}
	got := delivered
	// AllocsPerRun rounds the average down; the total, logged, says whether any round
	// allocated at all (the runtime itself may, once, when the measurement stops the world).
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	allocs := testing.AllocsPerRun(1000, round)
	runtime.ReadMemStats(&after)
	t.Logf("%d allocations in 1,001 rounds", after.Mallocs-before.Mallocs)
	if allocs != 0 {
		t.Errorf("%v allocations per round of one 17-message packet", allocs)
	}
	if n := delivered - got; n != 17*1001 {
		t.Errorf("%d messages delivered while measured, want %d", n, 17*1001)
	}
	if st := conn.Stats(); st.GuaranteedResent != 0 || st.Backpressure != 0 {
		t.Errorf("resent %d, back-pressure %d: not the steady state the test means", st.GuaranteedResent, st.Backpressure)
	}
}
