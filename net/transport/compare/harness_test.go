package compare

import (
	"encoding/binary"
	"flag"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

var (
	messagesFlag = flag.Int("compare.messages", 20_000, "guaranteed messages per run")
	runLimitFlag = flag.Duration("compare.limit", 2*time.Minute, "a run that has not delivered everything by then fails")
)

// payloadSize is the size of every message: a send stamp, the message's index, zeros.
const payloadSize = 64

// lossPercent is the loss of the lossy runs, in each direction.
const lossPercent = 10

// peer is one stack under test. run sets up both ends, sends r.n messages, waits for r.done
// and tears everything down; it reports what only it can count.
type peer struct {
	name     string
	lossless bool // only runs without loss (no datagram socket to put the conditioner under)
	run      func(tb testing.TB, r *run, link linksim.Settings) counts
}

// counts are what a peer reports beyond the harness's own measurements.
type counts struct {
	packets   uint64 // packets sent, both directions, per the stack's own statistics (0: unknown)
	datagrams uint64 // datagrams written to the sockets, both directions, per the link conditioners (0: not UDP)
	resent    uint64 // messages sent again (our transport only: quic-go does not count them for us)
}

var peers = []peer{
	{name: "ackattack", run: runAckAttack},
	{name: "quic-stream-per-msg", run: func(tb testing.TB, r *run, link linksim.Settings) counts { return runQUIC(tb, r, link, true) }},
	{name: "quic-one-stream", run: func(tb testing.TB, r *run, link linksim.Settings) counts { return runQUIC(tb, r, link, false) }},
	{name: "tcp", lossless: true, run: runTCP},
}

// BenchmarkLoopback sends small guaranteed messages one way between two endpoints in this
// process, through each peer, at 0% and 10% loss. One iteration is one whole run of
// -compare.messages messages on fresh endpoints; the custom metrics are means over the
// iterations and cover only the sending (first hand-over to last delivery), while ns/op,
// B/op and allocs/op cover a whole iteration, connection setup and teardown included. Run it
// with -benchtime 1x (or a small Nx): an iteration takes a fraction of a second.
func BenchmarkLoopback(b *testing.B) {
	b.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true") // quic-go cannot size a wrapped socket's buffer, and says so
	for _, loss := range []float64{0, lossPercent} {
		for _, p := range peers {
			if p.lossless && loss > 0 {
				continue
			}
			b.Run(fmt.Sprintf("loss=%g/%s", loss, p.name), func(b *testing.B) {
				link := linksim.Settings{LossPercent: loss}
				var sum result
				b.ReportAllocs()
				for b.Loop() {
					r := newRun(*messagesFlag)
					sum.add(r.measure(b, p, link))
				}
				sum.report(b)
			})
		}
	}
}

// run is the state of one run that the sender, the receiver and the harness share.
type run struct {
	n    int
	base time.Time // stamps are monotonic offsets from base

	lat   []time.Duration // by message index
	seen  []atomic.Bool
	count atomic.Int64
	dups  atomic.Int64
	bad   atomic.Int64
	end   time.Duration // when the last message arrived; written before done is closed
	done  chan struct{}

	started chan struct{} // closed by begin: the sender may start

	// the measurement
	start      time.Duration
	cpu0, cpu1 time.Duration
	mem0, mem1 runtime.MemStats
}

func newRun(n int) *run {
	return &run{
		n:       n,
		base:    time.Now(),
		lat:     make([]time.Duration, n),
		seen:    make([]atomic.Bool, n),
		done:    make(chan struct{}),
		started: make(chan struct{}),
	}
}

// stamp writes message i into b (payloadSize bytes), stamped with the present moment. The
// sender calls it at the moment it hands the message over.
func (r *run) stamp(b []byte, i int) {
	binary.LittleEndian.PutUint64(b[0:8], uint64(time.Since(r.base)))
	binary.LittleEndian.PutUint32(b[8:12], uint32(i))
}

// receive records the delivery of one message. It is safe from many goroutines at once (the
// per-stream QUIC receiver has one per message).
func (r *run) receive(b []byte) {
	now := time.Since(r.base)
	if len(b) != payloadSize {
		r.bad.Add(1)
		return
	}
	i := int(binary.LittleEndian.Uint32(b[8:12]))
	if i >= r.n {
		r.bad.Add(1)
		return
	}
	if r.seen[i].Swap(true) {
		r.dups.Add(1)
		return
	}
	r.lat[i] = now - time.Duration(binary.LittleEndian.Uint64(b[0:8]))
	if r.count.Add(1) == int64(r.n) {
		r.end = now
		close(r.done)
	}
}

// wait blocks until every message arrived, or fails tb after the run limit.
func (r *run) wait(tb testing.TB) {
	select {
	case <-r.done:
	case <-time.After(*runLimitFlag):
		tb.Fatalf("only %d of %d messages delivered after %v", r.count.Load(), r.n, *runLimitFlag)
	}
}

// begin starts the measurement and releases the sender. A peer calls it once its endpoints
// are connected.
func (r *run) begin(tb testing.TB) {
	runtime.GC() // the garbage of the setup and of earlier runs is not this run's
	runtime.ReadMemStats(&r.mem0)
	r.cpu0 = cpuTime(tb)
	r.start = time.Since(r.base)
	close(r.started)
}

// finish waits until every message arrived and ends the measurement.
func (r *run) finish(tb testing.TB) {
	r.wait(tb)
	r.cpu1 = cpuTime(tb)
	runtime.ReadMemStats(&r.mem1)
}

// result is the sum of the measurements of one or more runs.
type result struct {
	runs      int
	msgs      float64 // messages delivered
	elapsed   time.Duration
	p50, p99  time.Duration
	cpu       time.Duration
	mallocs   float64
	packets   float64
	datagrams float64
	resent    float64
}

// measure runs p once on fresh endpoints.
func (r *run) measure(tb testing.TB, p peer, link linksim.Settings) result {
	c := p.run(tb, r, link)
	if d, bad := r.dups.Load(), r.bad.Load(); d != 0 || bad != 0 {
		tb.Fatalf("%s: %d duplicate and %d malformed deliveries", p.name, d, bad)
	}
	lat := slices.Clone(r.lat)
	slices.Sort(lat)
	return result{
		runs:      1,
		msgs:      float64(r.n),
		elapsed:   r.end - r.start,
		p50:       lat[len(lat)/2],
		p99:       lat[len(lat)*99/100],
		cpu:       r.cpu1 - r.cpu0,
		mallocs:   float64(r.mem1.Mallocs - r.mem0.Mallocs),
		packets:   float64(c.packets),
		datagrams: float64(c.datagrams),
		resent:    float64(c.resent),
	}
}

func (s *result) add(r result) {
	s.runs += r.runs
	s.msgs += r.msgs
	s.elapsed += r.elapsed
	s.p50 += r.p50
	s.p99 += r.p99
	s.cpu += r.cpu
	s.mallocs += r.mallocs
	s.packets += r.packets
	s.datagrams += r.datagrams
	s.resent += r.resent
}

func (s *result) report(b *testing.B) {
	if s.runs == 0 {
		return
	}
	runs := float64(s.runs)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(s.msgs/s.elapsed.Seconds(), "msgs/s")
	b.ReportMetric(us(s.p50)/runs, "p50-µs")
	b.ReportMetric(us(s.p99)/runs, "p99-µs")
	b.ReportMetric(us(s.cpu)/s.msgs, "cpu-µs/msg")
	b.ReportMetric(s.mallocs/s.msgs, "allocs/msg")
	if s.packets > 0 {
		b.ReportMetric(s.mallocs/s.packets, "allocs/pkt")
	} else if s.datagrams > 0 {
		b.ReportMetric(s.mallocs/s.datagrams, "allocs/pkt")
	}
	if s.datagrams > 0 {
		b.ReportMetric(s.datagrams/s.msgs, "dgrams/msg")
	}
	if s.resent > 0 {
		b.ReportMetric(s.resent/s.msgs, "resent/msg")
	}
}

// cpuTime is the user plus system CPU time the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// listenUDP opens a loopback UDP socket and puts a link conditioner under it.
func listenUDP(tb testing.TB, seed uint64, out, in linksim.Settings) *linksim.PacketConn {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return linksim.WrapPacketConn(pc, seed, out, in)
}

// offered is the number of datagrams the sockets' conditioners were given to send.
func offered(pcs ...*linksim.PacketConn) uint64 {
	var n uint64
	for _, pc := range pcs {
		out, _ := pc.Stats()
		n += out.Offered
	}
	return n
}
