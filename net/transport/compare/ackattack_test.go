package compare

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// messagesPerPacket is how many of the benchmark's messages fill one packet at the default
// MTU: the bound on unsent messages the sender keeps in the connection (see the package
// comment).
func messagesPerPacket() int {
	const mtu = 1200 // message.Config's default
	rec := wire.Record{Kind: wire.KindGuaranteed, Payload: make([]byte, payloadSize)}
	return (mtu - wire.SealedOverhead - wire.MaxHeaderSize) / rec.Size()
}

// runAckAttack sends r.n messages from a transport.Client to a transport.Server. The server
// runs the ready-made loop (transport.Run); the client runs its own owner loop, the way a
// game does, so that it can hand messages over whenever the connection has room.
func runAckAttack(tb testing.TB, r *run, link linksim.Settings) counts {
	var zero linksim.Settings
	spc := listenUDP(tb, 1, zero, zero)
	srv := transport.Serve(spc, transport.ServerConfig{Config: transport.Config{
		OnMessage: func(_ *transport.Peer, _ time.Time, m *message.Message) { r.receive(m.Payload) },
	}})
	srvCtx, srvStop := context.WithCancel(context.Background())
	srvDo := make(chan func(time.Time))
	srvDone := make(chan struct{})
	go func() { _ = transport.Run(srvCtx, srv, srvDo); close(srvDone) }()

	cpc := listenUDP(tb, 2, link, link)
	connected := make(chan struct{})
	cli, err := transport.DialOn(cpc, srv.LocalAddr(), transport.ClientConfig{Name: "bench", Config: transport.Config{
		OnConnect: func(*transport.Peer, time.Time) { close(connected) },
	}})
	if err != nil {
		tb.Fatal(err)
	}
	cliCtx, cliStop := context.WithCancel(context.Background())
	sender := &ackSender{r: r, cli: cli, fill: messagesPerPacket()}
	cliDone := make(chan error, 1)
	go func() { cliDone <- sender.loop(cliCtx) }()

	select {
	case <-connected:
	case err := <-cliDone:
		tb.Fatalf("client loop ended before connecting: %v", err)
	case <-time.After(10 * time.Second):
		tb.Fatalf("not connected after 10 s: %+v", cli.Stats())
	}
	r.begin(tb)
	select {
	case <-r.done:
	case err := <-cliDone:
		tb.Fatalf("client loop ended: %v (delivered %d of %d)", err, r.count.Load(), r.n)
	case <-time.After(*runLimitFlag):
		tb.Fatalf("only %d of %d messages delivered after %v; client %+v", r.count.Load(), r.n, *runLimitFlag, cli.Stats().Server)
	}
	r.finish(tb)
	c := counts{datagrams: offered(spc, cpc)}

	// The packet counts belong to the owner loops: read the server's on its loop, the
	// client's once its loop has returned.
	read := make(chan uint64)
	srvDo <- func(time.Time) {
		var n uint64
		for _, p := range srv.Peers() {
			n += p.Conn().Stats().Packet.PacketsSent
		}
		read <- n
	}
	c.packets = <-read
	cliStop()
	if err := <-cliDone; err != nil && !errors.Is(err, context.Canceled) {
		tb.Fatal(err)
	}
	if p := cli.Peer(); p != nil {
		st := p.Conn().Stats()
		c.packets += st.Packet.PacketsSent
		c.resent = st.GuaranteedResent
	}
	if sender.backpressure > 0 {
		tb.Logf("ErrBackpressure %d times", sender.backpressure)
	}
	if err := cli.Close(); err != nil {
		tb.Error(err)
	}
	srvStop()
	<-srvDone
	if err := srv.Close(); err != nil {
		tb.Error(err)
	}
	return c
}

// ackSender is the client's owner loop: transport.Run's loop, plus a top-up of the connection
// with new messages before every Tick.
type ackSender struct {
	r            *run
	cli          *transport.Client
	fill         int // unsent messages the connection may hold
	next         int // index of the next message to send
	backpressure int
	buf          [payloadSize]byte
}

func (s *ackSender) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	started := s.r.started
	sending := false
	for {
		now := time.Now()
		for {
			room, err := s.topUp(now, sending)
			if err != nil {
				return err
			}
			s.cli.Tick(now)
			// Tick sent everything unless the connection is pacing (packets in flight at
			// the cap) or nothing more is to come; otherwise it has room for more right away.
			if !room || s.unsent() > 0 {
				break
			}
			now = time.Now()
		}
		wait := s.cli.NextTick(now).Sub(time.Now())
		if wait < time.Millisecond {
			wait = time.Millisecond
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case d, ok := <-s.cli.Datagrams():
			if !ok {
				return transport.ErrClosed
			}
			s.cli.Handle(time.Now(), d)
		case <-started:
			sending, started = true, nil
		case <-timer.C:
		}
	}
}

// unsent is how many queued messages no packet has carried yet.
func (s *ackSender) unsent() int {
	p := s.cli.Peer()
	if p == nil {
		return 0
	}
	st := p.Conn().Stats()
	return int(st.GuaranteedQueued - st.GuaranteedSent)
}

// topUp hands messages to the connection until it holds fill unsent ones. It reports whether
// it could go on (messages left, no back-pressure).
func (s *ackSender) topUp(now time.Time, sending bool) (bool, error) {
	p := s.cli.Peer()
	if !sending || p == nil || s.next >= s.r.n {
		return false, nil
	}
	c := p.Conn()
	for n := s.unsent(); n < s.fill && s.next < s.r.n; n++ {
		s.r.stamp(s.buf[:], s.next)
		if _, err := c.SendGuaranteed(now, s.buf[:], nil, nil); err != nil {
			if errors.Is(err, message.ErrBackpressure) {
				s.backpressure++
				return false, nil
			}
			return false, err
		}
		s.next++
	}
	return s.next < s.r.n, nil
}
