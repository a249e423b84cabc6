package transport

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// stream is one direction of guaranteed traffic between two hosts: n messages, each naming
// some earlier messages of the same stream as dependencies. A message's payload carries the
// stream's tag, its own index and the indexes of its dependencies, so the receiver can check
// every rule without knowing what the sender did.
//
//	0  1  stream tag
//	1  4  index
//	5  1  dependency count k
//	6  4k dependency indexes
type stream struct {
	tag     byte
	n       int
	deps    [][]int32
	handles []depgraph.Dependency // handles[i] is bound to message i
	next    int                   // the next message to send
	oldest  int                   // no message before it is still unacknowledged
	refused uint64                // sends refused with back-pressure (tried again later)
	scratch []*depgraph.Dependency
	buf     []byte
}

// newStream draws the dependencies: mostly recent messages (those are the ones still in
// flight, whose order the receiver must enforce), now and then an old one (long executed,
// so its dependency is pruned from the wire).
func newStream(tag byte, n int, seed uint64) *stream {
	rng := rand.New(rand.NewPCG(seed, uint64(tag)))
	s := &stream{tag: tag, n: n, deps: make([][]int32, n), handles: make([]depgraph.Dependency, n)}
	for i := 1; i < n; i++ {
		k := rng.IntN(5) // 0..4 dependencies
		seen := map[int32]bool{}
		for range k {
			var d int32
			if rng.IntN(8) == 0 {
				d = int32(rng.IntN(i))
			} else {
				d = int32(max(0, i-1-rng.IntN(min(i, 100))))
			}
			if !seen[d] {
				seen[d] = true
				s.deps[i] = append(s.deps[i], d)
			}
		}
	}
	return s
}

func (s *stream) done() bool { return s.next >= s.n }

// send queues messages on c while the oldest unacknowledged one is less than window messages
// back, at most batch of them per call. Back-pressure is not an error: the message is tried
// again on the next call. (The window is measured with the handles, not with Conn.Stats,
// which scans the graphs and is meant for statistics, not for every message.)
func (s *stream) send(c *message.Conn, now time.Time, batch, window int, errs *errorLog) {
	for s.oldest < s.next && s.handles[s.oldest].Executed() {
		s.oldest++
	}
	for sent := 0; sent < batch && !s.done(); sent++ {
		if s.next-s.oldest >= window {
			return
		}
		i := s.next
		s.buf = append(s.buf[:0], s.tag)
		s.buf = binary.BigEndian.AppendUint32(s.buf, uint32(i))
		s.buf = append(s.buf, byte(len(s.deps[i])))
		s.scratch = s.scratch[:0]
		for _, d := range s.deps[i] {
			s.buf = binary.BigEndian.AppendUint32(s.buf, uint32(d))
			s.scratch = append(s.scratch, &s.handles[d])
		}
		_, err := c.SendGuaranteed(now, s.buf, s.scratch, &s.handles[i])
		if errors.Is(err, message.ErrBackpressure) {
			s.refused++
			return
		}
		if err != nil {
			errs.add("stream %d: send %d: %v", s.tag, i, err)
			return
		}
		s.next++
	}
}

// sink is the receiving end of a stream: it checks that every message executes once, after
// all of its dependencies, and counts them.
type sink struct {
	tag  byte
	got  []bool
	n    atomic.Int64
	errs *errorLog
}

func newSink(tag byte, n int, errs *errorLog) *sink {
	return &sink{tag: tag, got: make([]bool, n), errs: errs}
}

func (k *sink) deliver(m *message.Message) {
	p := m.Payload
	if !m.Guaranteed || len(p) < 6 || p[0] != k.tag {
		k.errs.add("stream %d: unexpected message (guaranteed %v, %d bytes, tag %d)", k.tag, m.Guaranteed, len(p), p[0])
		return
	}
	i := int(binary.BigEndian.Uint32(p[1:]))
	nd := int(p[5])
	if i >= len(k.got) || len(p) != 6+4*nd {
		k.errs.add("stream %d: malformed payload for message %d", k.tag, i)
		return
	}
	if k.got[i] {
		k.errs.add("stream %d: message %d executed twice", k.tag, i)
		return
	}
	for j := range nd {
		d := binary.BigEndian.Uint32(p[6+4*j:])
		if int(d) >= i || !k.got[d] {
			k.errs.add("stream %d: message %d executed before its dependency %d", k.tag, i, d)
		}
	}
	k.got[i] = true
	k.n.Add(1)
}

func (k *sink) complete() bool { return k.n.Load() == int64(len(k.got)) }

// TestLoopbackEightClientsTenThousandMessages: eight clients on one server, each exchanging
// 10,000 guaranteed messages with random dependencies in both directions over a link that
// loses 20% and duplicates 5% of the datagrams each way. Every message must execute exactly
// once, after its dependencies, on the other side.
func TestLoopbackEightClientsTenThousandMessages(t *testing.T) {
	runParallel(t)
	const (
		clients  = 8
		messages = 10_000
		batch    = 64  // messages queued per connection per feeding
		window   = 384 // unacknowledged messages per connection before the feeder waits
		feedTick = 2 * time.Millisecond
	)
	// Each side's outgoing datagrams: 20% lost, 5% delivered twice, so every direction of
	// every connection sees both.
	lossy := &LinkSettings{Out: linksim.Settings{LossPercent: 20, DupPercent: 5}}
	// The default 5 s timeout (and with it the resend limit) is for the Internet. Under
	// -race on two cores that other processes keep busy, the server's loop falls behind and
	// round trips grow to seconds (samples of 1.3 s with four copies of this test on one CPU
	// each, of 5 to 9 s with other builds running), so a message lost three times in a row
	// would pass the limit for reasons that have nothing to do with what this test checks.
	const timeout = 15 * time.Second
	errs := &errorLog{}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	up := make([]*stream, clients)   // client i → server
	down := make([]*stream, clients) // server → client i
	upSink := make([]*sink, clients)
	downSink := make([]*sink, clients)
	for i := range clients {
		up[i] = newStream(byte(i), messages, seed)
		down[i] = newStream(byte(100+i), messages, seed)
		upSink[i] = newSink(byte(i), messages, errs)
		downSink[i] = newSink(byte(100+i), messages, errs)
	}

	var disconnects atomic.Int64
	var finished atomic.Bool // closing at the end disconnects everybody: that is no failure
	srv, err := Listen("127.0.0.1:0", ServerConfig{Config: Config{
		Link: lossy, LinkSeed: seed, Timeout: timeout,
		OnMessage: func(p *Peer, _ time.Time, m *message.Message) {
			if i := playerIndex(p.PlayerID()); i < clients {
				upSink[i].deliver(m)
			}
		},
		OnDisconnect: func(p *Peer, _ time.Time, r wire.DisconnectReason, text string) {
			if !finished.Load() {
				disconnects.Add(1)
				errs.add("server: %v disconnected: %v %q", p, r, text)
			}
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sl := startLoop(srv)
	cls := make([]*Client, clients)
	cloops := make([]*loop, clients)
	for i := range clients {
		cls[i], err = Dial(srv.LocalAddr().String(), ClientConfig{
			PlayerID: playerID(1, i), Name: "player",
			Config: Config{
				Link: lossy, LinkSeed: seed + uint64(i) + 1, Timeout: timeout,
				OnMessage: func(p *Peer, _ time.Time, m *message.Message) { downSink[i].deliver(m) },
				OnDisconnect: func(p *Peer, _ time.Time, r wire.DisconnectReason, text string) {
					if !finished.Load() {
						disconnects.Add(1)
						st := p.Conn().Stats()
						errs.add("client %d: disconnected: %v %q; rtt %v var %v resend delay %v in flight %d loss %.0f%% pending %d resent %d",
							i, r, text, st.Packet.RTT, st.Packet.RTTVar, st.ResendDelay, st.Packet.InFlight, st.Packet.LossPercent, st.PendingGuaranteed, st.GuaranteedResent)
					}
				},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		cloops[i] = startLoop(cls[i])
	}

	start := time.Now()
	var stops []func()
	stops = append(stops, every(sl, feedTick, func(now time.Time) {
		for _, p := range srv.Peers() {
			if i := playerIndex(p.PlayerID()); i < clients {
				down[i].send(p.Conn(), now, batch, window, errs)
			}
		}
	}))
	for i := range clients {
		stops = append(stops, every(cloops[i], feedTick, func(now time.Time) {
			if p := cls[i].Peer(); p != nil && p.Connected() {
				up[i].send(p.Conn(), now, batch, window, errs)
			}
		}))
	}
	waitFor(t, "every message delivered", 60*time.Second, func() bool {
		if errs.count() > 0 {
			return true
		}
		for i := range clients {
			if !upSink[i].complete() || !downSink[i].complete() {
				return false
			}
		}
		return true
	})
	elapsed := time.Since(start)
	for _, stop := range stops {
		stop()
	}

	// Read the counters on the loops before shutting down.
	var refused uint64
	var resent, dupIgnored, stale, dup, sent uint64
	var maxRTT, maxDelay time.Duration
	note := func(st message.Stats) {
		maxRTT = max(maxRTT, st.Packet.MaxRTT)
		maxDelay = max(maxDelay, st.ResendDelay)
	}
	for i := range clients {
		cloops[i].call(func(time.Time) {
			if p := cls[i].Peer(); p != nil {
				note(p.Conn().Stats())
			}
		})
	}
	sl.call(func(now time.Time) {
		for _, p := range srv.Peers() {
			st := p.Conn().Stats()
			note(st)
			resent += st.GuaranteedResent
			dupIgnored += st.DuplicatesIgnored
			stale += st.Packet.Stale
			dup += st.Packet.Duplicate
			sent += st.Packet.PacketsSent
		}
		for i := range clients {
			refused += down[i].refused
		}
	})
	for i := range clients {
		cloops[i].call(func(now time.Time) { refused += up[i].refused })
	}
	finished.Store(true)
	for _, l := range cloops {
		l.stop()
	}
	sl.stop()
	for _, c := range cls {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	errs.check(t)
	for i := range clients {
		if n := upSink[i].n.Load(); n != messages {
			t.Errorf("client %d → server: %d of %d messages executed", i, n, messages)
		}
		if n := downSink[i].n.Load(); n != messages {
			t.Errorf("server → client %d: %d of %d messages executed", i, n, messages)
		}
	}
	if d := disconnects.Load(); d != 0 {
		t.Errorf("%d disconnects during the exchange", d)
	}
	t.Logf("%d messages in %v (%.0f/s); server side: %d packets sent, %d messages resent, %d duplicate messages ignored, %d stale and %d duplicate packets; %d sends refused with back-pressure; largest RTT %v, resend delay at the end up to %v",
		2*clients*messages, elapsed.Round(time.Millisecond), float64(2*clients*messages)/elapsed.Seconds(), sent, resent, dupIgnored, stale, dup, refused, maxRTT, maxDelay)
	verifyNoLeaks(t)
}
