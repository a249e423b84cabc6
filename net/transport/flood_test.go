package transport

import (
	"bytes"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// floodConn is the server's socket, seen from the inside: it counts every datagram the
// server's reader actually got from the kernel, and sorts them into the clients' own
// datagrams and the rest (the flood). A datagram the kernel dropped because the reader fell
// behind never reaches it, so "bad" is what the server really received.
type floodConn struct {
	net.PacketConn
	clients map[netip.AddrPort]*tapConn // fixed before the first read
	barrier []byte

	read, legit, bad atomic.Int64
	sawBarrier       atomic.Bool
}

func (c *floodConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, addr, err := c.PacketConn.ReadFrom(b)
	if err != nil {
		return n, addr, err
	}
	c.read.Add(1)
	ap := addr.(*net.UDPAddr).AddrPort()
	if tap := c.clients[netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())]; tap != nil && tap.claim(b[:n]) {
		c.legit.Add(1)
	} else {
		c.bad.Add(1)
		if bytes.Equal(b[:n], c.barrier) {
			c.sawBarrier.Store(true)
		}
	}
	return n, addr, nil
}

// floodCounters are the counters a bad datagram can land in: a rejection, or a connection
// request that got a challenge.
type floodCounters struct {
	rejected             Rejections
	requests, challenges uint64
	peers                int
}

func countersOf(st ServerStats) floodCounters {
	return floodCounters{rejected: st.Rejected, requests: st.Requests, challenges: st.Challenges, peers: len(st.Peers)}
}

func (c floodCounters) minus(b floodCounters) floodCounters {
	return floodCounters{c.rejected.Minus(b.rejected), c.requests - b.requests, c.challenges - b.challenges, c.peers}
}

// sum is every datagram the counters account for. Requests covers both the requests that got
// a challenge and the throttled ones (the flood's requests are never denied: the server has
// seats and they speak its version).
func (c floodCounters) sum() uint64 {
	return c.rejected.Total() - c.rejected.Throttled() + c.requests
}

// TestRandomDatagramFlood fires 100,000 bad datagrams at a live server while two clients
// exchange guaranteed messages with it: random bytes, truncated and corrupted copies of a real
// client's packets (from other addresses and from the client's own), replays of its data
// packets, and well-formed handshake packets. The server must stay up, the clients' messages
// must all arrive exactly once, in order, and every bad datagram the server received must
// show in its counters.
func TestRandomDatagramFlood(t *testing.T) {
	runParallel(t)
	const (
		total   = 100_000
		burst   = 5_000 // the last ones go out while the loop stalls, to overflow the reader's queue
		window  = 256   // bad datagrams in flight before the paced part waits for the server
		rawPeer = 8
	)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	errs := &errorLog{}

	taps := []*tapConn{newTapConn(t, true), newTapConn(t, true)}
	spc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fc := &floodConn{PacketConn: spc, clients: map[netip.AddrPort]*tapConn{}, barrier: []byte("the end of the flood, barrier")}
	for _, tap := range taps {
		fc.clients[tap.addr()] = tap
	}

	// Client i → server and server → client i, with random dependencies; fed until the
	// flood is over.
	const most = 100_000
	up := []*stream{newStream(0, most, seed), newStream(1, most, seed)}
	down := []*stream{newStream(100, most, seed), newStream(101, most, seed)}
	upSink := []*sink{newSink(0, most, errs), newSink(1, most, errs)}
	downSink := []*sink{newSink(100, most, errs), newSink(101, most, errs)}
	var finished atomic.Bool
	srv := Serve(fc, ServerConfig{Config: Config{
		OnMessage: func(p *Peer, _ time.Time, m *message.Message) {
			if i := playerIndex(p.PlayerID()); i < len(upSink) {
				upSink[i].deliver(m)
			}
		},
		OnDisconnect: func(p *Peer, _ time.Time, r wire.DisconnectReason, text string) {
			if !finished.Load() {
				errs.add("server: %v disconnected: %v %q", p, r, text)
			}
		},
	}})
	host := &countingHost{Host: srv}
	sl := startLoop(host)
	cls := make([]*Client, 2)
	cloops := make([]*loop, 2)
	sendKeys := make([][wire.KeySize]byte, 2) // each client's, from its loop
	for i := range cls {
		cls[i], err = DialOn(taps[i], srv.LocalAddr(), ClientConfig{PlayerID: playerID(9, i), Name: "honest", Config: Config{
			KeyLog:    func(k ConnKeys) { sendKeys[i] = k.Send },
			OnMessage: func(p *Peer, _ time.Time, m *message.Message) { downSink[i].deliver(m) },
			OnDisconnect: func(p *Peer, _ time.Time, r wire.DisconnectReason, text string) {
				if !finished.Load() {
					errs.add("client %d: disconnected: %v %q", i, r, text)
				}
			},
		}})
		if err != nil {
			t.Fatal(err)
		}
		cloops[i] = startLoop(cls[i])
	}
	for _, c := range cls {
		waitFor(t, "connected", 5*time.Second, func() bool { return c.Stats().State == Connected })
	}
	const feedBatch, feedWindow = 8, 128
	var stops []func()
	stops = append(stops, every(sl, 4*time.Millisecond, func(now time.Time) {
		for _, p := range srv.Peers() {
			if i := playerIndex(p.PlayerID()); i < len(down) {
				down[i].send(p.Conn(), now, feedBatch, feedWindow, errs)
			}
		}
	}))
	for i, c := range cls {
		stops = append(stops, every(cloops[i], 4*time.Millisecond, func(now time.Time) {
			if p := c.Peer(); p != nil && p.Connected() {
				up[i].send(p.Conn(), now, feedBatch, feedWindow, errs)
			}
		}))
	}

	// Valid packets to copy: what each client sent so far.
	keys := make([]*wire.SealKey, 2)
	for i := range cls {
		cloops[i].call(func(time.Time) { keys[i] = wire.NewSealKey(&sendKeys[i]) })
	}
	waitFor(t, "client traffic to copy", 5*time.Second, func() bool {
		return len(taps[0].captured()) >= 40 && len(taps[1].captured()) >= 40
	})
	var handshakeCopies, anyCopies [][]byte
	dataCopies := make([][][]byte, 2)
	for i, tap := range taps {
		for _, d := range tap.captured() {
			anyCopies = append(anyCopies, d)
			if _, err := wire.OpenDatagram(d, 0); err == nil {
				handshakeCopies = append(handshakeCopies, d)
			} else if body, _, err := keys[i].Open(nil, d, 0); err == nil && body[0] == byte(wire.TypeData) {
				dataCopies[i] = append(dataCopies[i], d)
			}
		}
	}
	if len(handshakeCopies) == 0 || len(dataCopies[0]) == 0 || len(dataCopies[1]) == 0 {
		t.Fatalf("captured %d handshake and %d+%d data packets", len(handshakeCopies), len(dataCopies[0]), len(dataCopies[1]))
	}

	raws := make([]*net.UDPConn, rawPeer)
	for i := range raws {
		raws[i], err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		defer raws[i].Close()
	}
	to := srv.LocalAddr()

	// A snapshot of the counters before the flood, published on the loop.
	snapshot := func() ServerStats {
		sl.call(func(now time.Time) { srv.publish(now) })
		return srv.Stats()
	}
	before := countersOf(snapshot())

	corrupt := func(d []byte) []byte {
		c := append([]byte(nil), d...)
		if len(c) == 0 {
			return c
		}
		for range 1 + rng.IntN(3) {
			c[rng.IntN(len(c))] ^= 1 << rng.IntN(8)
		}
		return c
	}
	truncate := func(d []byte) []byte { return append([]byte(nil), d[:rng.IntN(len(d))]...) }
	randomBytes := func() []byte {
		b := make([]byte, rng.IntN(1400))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	handshakeLike := func() []byte {
		switch rng.IntN(6) {
		case 0: // a well-formed request from a new player: a challenge or throttled
			return connectRequest(uuid.UUID(randomID(rng)), "flood")
		case 1: // a response with a made-up challenge: refused
			return challengeResponse(uuid.UUID(randomID(rng)), "flood", wire.Challenge{Issued: uint64(time.Now().UnixMilli()), Tag: randomID(rng)})
		case 2: // a replay of a real client's handshake packet from elsewhere
			return handshakeCopies[rng.IntN(len(handshakeCopies))]
		case 3: // connection packets sealed with key 0 from an address with no connection
			return seal(0, func(b []byte) []byte { return wire.AppendPing(b, &wire.Ping{ID: rng.Uint32()}) })
		case 4:
			return seal(0, func(b []byte) []byte {
				return mustBuild(wire.AppendDisconnect(b, &wire.Disconnect{Reason: wire.DisconnectKicked, Text: "forged"}))
			})
		default: // a request with its padding broken
			d := connectRequest(uuid.UUID(randomID(rng)), "flood")
			d[len(d)-1] = 1
			wire.SealDatagram(d, 0)
			return d
		}
	}

	start := time.Now()
	var sentRaw, sentAsClient, waits, gaveUp int
	var lost int64 // datagrams given up on as dropped by the kernel
	// unread is how many sent datagrams the server's reader has not got yet; queued is how
	// many it got that wait for the loop.
	unread := func() int64 { return int64(sentRaw+sentAsClient) - fc.bad.Load() - lost }
	queued := func() int64 { return fc.read.Load() - int64(srv.sock.Stats().Overflow) - host.handled.Load() }
	hold, held, released := make(chan struct{}), make(chan struct{}), make(chan struct{})
	stalled := false
	for k := range total {
		if k == total-burst {
			// The burst: the server's loop stalls (as it would behind a long frame) while the
			// rest of the flood goes out, so the reader's queue fills and overflows.
			go func() {
				defer close(released)
				sl.call(func(time.Time) { close(held); <-hold })
			}()
			<-held
			stalled = true
		}
		if k%32 == 0 {
			// Pace, so that the kernel drops little: at most window datagrams wait for the
			// reader, and (before the burst) for the loop. Waiting is bounded; what the kernel
			// dropped meanwhile is written off.
			deadline := time.Now().Add(200 * time.Millisecond)
			for unread() > window || !stalled && unread()+queued() > window {
				waits++
				if time.Now().After(deadline) {
					gaveUp++
					lost = int64(sentRaw+sentAsClient) - fc.bad.Load()
					break
				}
				time.Sleep(100 * time.Microsecond)
			}
		}
		var d []byte
		client := -1
		switch r := rng.IntN(100); {
		case r < 30:
			d = randomBytes()
		case r < 48:
			d = truncate(anyCopies[rng.IntN(len(anyCopies))])
		case r < 64:
			d = corrupt(anyCopies[rng.IntN(len(anyCopies))])
		case r < 76:
			d = handshakeLike()
		case r < 84: // from a client's own address, so that it reaches the connection
			client = rng.IntN(2)
			d = corrupt(dataCopies[client][rng.IntN(len(dataCopies[client]))])
		case r < 88:
			client = rng.IntN(2)
			d = truncate(dataCopies[client][rng.IntN(len(dataCopies[client]))])
		case r < 94: // a replay of a data packet the server already has
			client = rng.IntN(2)
			d = dataCopies[client][rng.IntN(len(dataCopies[client]))]
		default:
			client = rng.IntN(2)
			d = randomBytes()
		}
		if client >= 0 {
			if err := taps[client].inject(d, to); err != nil {
				t.Fatal(err)
			}
			sentAsClient++
			continue
		}
		if _, err := raws[rng.IntN(len(raws))].WriteToUDPAddrPort(d, to); err != nil {
			t.Fatal(err)
		}
		sentRaw++
	}
	close(hold)
	<-released
	// The barrier goes last from one socket: once the reader got it, every datagram before
	// it was read or dropped by the kernel. (Sent again if the kernel dropped it too.)
	var barrierSent time.Time
	waitFor(t, "the barrier", 20*time.Second, func() bool {
		if !fc.sawBarrier.Load() && time.Since(barrierSent) > time.Second {
			raws[0].WriteToUDPAddrPort(fc.barrier, to)
			barrierSent = time.Now()
			sentRaw++
		}
		return fc.sawBarrier.Load()
	})
	floodTime := time.Since(start)
	// Count: every bad datagram read so far has been handled (or dropped from the queue), and
	// none came in while the counters were published.
	var badRead int64
	var d floodCounters
	waitFor(t, "the loop to handle what was read", 20*time.Second, func() bool {
		bad := fc.bad.Load()
		if host.handled.Load()+int64(srv.sock.Stats().Overflow) != fc.read.Load() {
			return false
		}
		after := countersOf(snapshot())
		if fc.bad.Load() != bad {
			return false
		}
		badRead, d = bad, after.minus(before)
		return true
	})

	for _, stop := range stops {
		stop()
	}
	// The clients' traffic: everything sent arrives, exactly once.
	sentUp, sentDown := make([]int64, 2), make([]int64, 2)
	for i := range cls {
		cloops[i].call(func(time.Time) { sentUp[i] = int64(up[i].next) })
	}
	sl.call(func(time.Time) {
		for i := range down {
			sentDown[i] = int64(down[i].next)
		}
	})
	waitFor(t, "the clients' messages", 20*time.Second, func() bool {
		return errs.count() > 0 || upSink[0].n.Load() == sentUp[0] && upSink[1].n.Load() == sentUp[1] &&
			downSink[0].n.Load() == sentDown[0] && downSink[1].n.Load() == sentDown[1]
	})

	// The server still takes new clients.
	fresh, err := Dial(to.String(), ClientConfig{Name: "late"})
	if err != nil {
		t.Fatal(err)
	}
	fl := startLoop(fresh)
	waitFor(t, "a new client after the flood", 10*time.Second, func() bool { return fresh.Stats().State == Connected })

	finished.Store(true)
	for _, l := range append(cloops, fl) {
		l.stop()
	}
	sl.stop()
	for _, c := range append(cls, fresh) {
		c.Close()
	}
	srv.Close()
	errs.check(t)

	t.Logf("flood: %d datagrams (%d from other addresses, %d from the clients' addresses) in %v; paced waits %d, gave up %d",
		sentRaw+sentAsClient, sentRaw, sentAsClient, floodTime.Round(time.Millisecond), waits, gaveUp)
	t.Logf("the server read %d bad datagrams (%d lost in the kernel) and %d of the clients' own", badRead, int64(sentRaw+sentAsClient)-badRead, fc.legit.Load())
	r := d.rejected
	t.Logf("counted: malformed %d, unexpected %d, requests %d (challenged %d, throttled %d: address %d, prefix %d, global %d), bad challenges %d, overflow %d, wrong key %d, replay %d, stale %d, duplicate %d; sum %d",
		r.Malformed, r.Unexpected, d.requests, d.challenges, r.Throttled(), r.ThrottledAddress, r.ThrottledPrefix, r.ThrottledGlobal, r.BadChallenge, r.Overflow, r.WrongKey, r.Replay, r.Stale, r.Duplicate, d.sum())
	t.Logf("clients' messages during the flood: up %v, down %v", sentUp, sentDown)
	if d.peers != 2 {
		t.Errorf("%d peers after the flood, want 2", d.peers)
	}
	// Every bad datagram is counted; nothing is counted twice (the clients' own datagrams
	// appear only in the overflow count, when the reader's queue dropped them).
	if d.sum() < uint64(badRead) {
		t.Errorf("the counters account for %d datagrams, but the server received %d bad ones", d.sum(), badRead)
	}
	if d.sum() > uint64(badRead)+r.Overflow {
		t.Errorf("the counters account for %d datagrams: more than the %d bad ones received plus the %d dropped from the queue", d.sum(), badRead, r.Overflow)
	}
	if r.WrongKey == 0 || r.Replay == 0 || r.Malformed == 0 || r.BadChallenge == 0 || r.Throttled() == 0 || r.Unexpected == 0 {
		t.Errorf("some kind of bad datagram was not seen at all: %+v", d)
	}
	if r.ServerFull+r.WrongVersion != 0 {
		t.Errorf("requests denied during the flood: %+v", r)
	}
	if r.Overflow == 0 {
		t.Errorf("the burst against a stalled loop overflowed nothing: the overflow accounting went untested")
	}
	for i := range 2 {
		if upSink[i].n.Load() != sentUp[i] || downSink[i].n.Load() != sentDown[i] || sentUp[i] == 0 || sentDown[i] == 0 {
			t.Errorf("client %d: %d of %d messages up, %d of %d down", i, upSink[i].n.Load(), sentUp[i], downSink[i].n.Load(), sentDown[i])
		}
	}
	verifyNoLeaks(t)
}

func randomID(rng *rand.Rand) (id [16]byte) {
	for i := range id {
		id[i] = byte(rng.Uint32())
	}
	return id
}
