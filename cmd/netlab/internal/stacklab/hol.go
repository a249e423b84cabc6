package stacklab

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ackattack/ackattack/cmd/netlab/internal/report"
	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// HOLConfig is the head-of-line experiment's setting.
type HOLConfig struct {
	Link     linksim.Settings // both directions
	Seed     uint64
	Messages int
	Rate     float64 // messages a second the game hands over
	// QUIC adds the outside reference: quic-go with a stream per message, over real loopback
	// sockets in wall-clock time (quic-go cannot run on a virtual clock).
	QUIC bool
}

// Way is one way of sending the same traffic.
type Way uint8

// The ways, in the order of the tables.
const (
	WayGraph   Way = iota // the dependency graph: each message names what it needs
	WayChannel            // one ordered channel for everything
	WayPerKind            // one ordered channel per kind: game events, chat, lobby
	WaySync               // sync messages: stop-and-wait, one in flight at a time
	WayQUIC               // quic-go, a stream per message, the graph enforced by the receiver
	ways
)

var wayNames = [ways]string{"dependency graph", "one ordered channel", "a channel per kind", "sync messages", "quic-go stream per message"}

func (w Way) String() string { return wayNames[w] }

// perKindChannel is the channel of each kind when every kind of traffic has its own, the
// classic remedy for head-of-line blocking (one channel for game events, one for chat): a
// kill must be on its spawn's channel and a start on its players' infos', or nothing would
// order them.
func perKindChannel(k kind) int {
	switch k {
	case kindSpawn, kindKill:
		return 0
	case kindChat:
		return 1
	default:
		return 2
	}
}

// WayResult is what one way measured. Delays are beyond the one-way latency, in
// milliseconds, from the moment the game handed the message over to the moment the receiver
// executed it.
type WayResult struct {
	Way       Way
	WallClock bool // measured on real sockets in real time (not repeatable)
	Sent      int
	Delivered int
	// Violations counts messages executed before one of their dependencies, twice, or not
	// at all: all zero, or the stack is broken.
	Violations  int
	All         report.Dist
	Independent report.Dist // messages that depend on nothing (spawns, player infos)
	ByKind      [kinds]report.Dist
	Total       report.Dist // hand-over to execution, latency included
	// Held are messages that arrived and waited at the receiver for another one: max at
	// once, the mean over time, and how many ever waited.
	HeldMax    int
	HeldMean   float64
	HeldEver   int
	BacklogMax int // handed over by the game and not yet executed, at once
	Resends    uint64
	// PacketsLost is quic-go's count of packets it declared lost (it does not count
	// retransmitted streams); for the other ways, the sender's packets lost with messages.
	PacketsLost uint64
	// Stale counts the datagrams the receiver dropped because a newer one had arrived first
	// (the stale-packet rule), out of Arrived datagrams; 0 for quic-go, which keeps them.
	Stale, Arrived uint64
	Err            error
}

// HOLResult is the whole experiment.
type HOLResult struct {
	Config   HOLConfig
	Messages int
	Kinds    [kinds]int // messages of each kind
	Ways     []WayResult
}

// Acceptance is the requirement: the graph's p99 for independent messages at most a
// third of the single ordered channel's. It reports the two p99s and whether it holds.
func (r *HOLResult) Acceptance() (graph, channel float64, ok bool) {
	var g, c *WayResult
	for i := range r.Ways {
		switch r.Ways[i].Way {
		case WayGraph:
			g = &r.Ways[i]
		case WayChannel:
			c = &r.Ways[i]
		}
	}
	if g == nil || c == nil {
		return math.NaN(), math.NaN(), false
	}
	graph, channel = g.Independent.P(99), c.Independent.P(99)
	return graph, channel, graph <= channel/3
}

// RunHOL sends the same traffic every way and measures each.
//
// Head-of-line blocking: UDP loses packets, and a reliable stack resends what was lost, a
// round trip or so later. What matters to a game is who else waits meanwhile. An ordered
// channel (TCP, a QUIC stream, a classic reliable channel) delivers nothing after the lost
// message until it arrives: one lost chat line holds up every spawn behind it. A channel per
// kind confines it to the kind; the message dependency graph confines it to the messages that
// really need the lost one, so an independent spawn waits only for its own resend. The channels
// are built on the same message layer, as dependency chains (a message depends on the one
// before it on its channel), so that only the ordering differs. Sync messages are the other
// extreme: stop-and-wait, one message per round trip.
//
// Read the tail with care. A channel makes a message wait for every earlier message of its
// channel, so its delay is the worst delay in a window of about a round trip; but the worst
// message in that window is one that was lost twice, and the graph waits for that one too when
// it is the message itself. So the channel's extra delay shows most in the middle of the
// distribution (p50 to p95: most messages sit behind somebody's loss) and less at p99.
func RunHOL(cfg HOLConfig) (*HOLResult, error) {
	if cfg.Messages < 1 {
		return nil, fmt.Errorf("hol: %w: --messages must be at least 1", report.ErrSetting)
	}
	if cfg.Rate <= 0 {
		return nil, fmt.Errorf("hol: %w: --rate must be more than 0", report.ErrSetting)
	}
	msgs := traffic(cfg.Seed, cfg.Messages, cfg.Rate)
	r := &HOLResult{Config: cfg, Messages: len(msgs)}
	for _, m := range msgs {
		r.Kinds[m.kind]++
	}
	for w := range ways {
		var res WayResult
		switch w {
		case WayQUIC:
			if !cfg.QUIC {
				continue
			}
			res = runQUIC(cfg, msgs)
		default:
			res = runWay(cfg, msgs, w)
		}
		if res.Err != nil {
			return r, fmt.Errorf("hol: %v: %w", w, res.Err)
		}
		r.Ways = append(r.Ways, res)
	}
	return r, nil
}

// wireDeps is what each message depends on when sent way w.
func wireDeps(msgs []tmsg, w Way) [][]int {
	switch w {
	case WayChannel:
		return channelDeps(msgs, func(kind) int { return 0 })
	case WayPerKind:
		return channelDeps(msgs, perKindChannel)
	}
	deps := make([][]int, len(msgs))
	for i, m := range msgs {
		deps[i] = m.deps
	}
	return deps
}

// receiverLog is what the receiving side of a way records: when each message executed, which
// arrived and had to wait, and every violation of the order.
type receiverLog struct {
	msgs       []tmsg
	executed   []bool
	arrived    []bool
	at         []time.Duration // execution, since the start
	delivered  int
	held       int // arrived, waiting for a dependency now
	heldEver   int
	violations int
}

func newReceiverLog(msgs []tmsg) *receiverLog {
	n := len(msgs)
	return &receiverLog{msgs: msgs, executed: make([]bool, n), arrived: make([]bool, n), at: make([]time.Duration, n)}
}

// execute notes that message i executed at t.
func (l *receiverLog) execute(i int, t time.Duration) {
	if i < 0 || i >= len(l.msgs) || l.executed[i] {
		l.violations++ // unknown, or executed twice
		return
	}
	for _, d := range l.msgs[i].deps {
		if !l.executed[d] {
			l.violations++
		}
	}
	l.executed[i] = true
	l.at[i] = t
	l.delivered++
	if l.arrived[i] {
		l.held--
	}
}

// arrive notes that message i arrived; it is held if it has not executed at once.
func (l *receiverLog) arrive(i int) {
	if i < 0 || i >= len(l.msgs) || l.executed[i] || l.arrived[i] {
		return
	}
	l.arrived[i] = true
	l.held++
	l.heldEver++
}

// finish fills the delays of res from the log.
func (l *receiverLog) finish(res *WayResult, latency time.Duration) {
	res.Delivered = l.delivered
	res.Violations = l.violations + (len(l.msgs) - l.delivered)
	res.HeldEver = l.heldEver
	for i, m := range l.msgs {
		if !l.executed[i] {
			continue
		}
		total := l.at[i] - m.at
		extra := float64(total-latency) / float64(time.Millisecond)
		res.All.Add(extra)
		res.ByKind[m.kind].Add(extra)
		if m.kind.independent() {
			res.Independent.Add(extra)
		}
		res.Total.Add(float64(total) / float64(time.Millisecond))
	}
}

// holLimit is how long a way may take beyond the last hand-over before the run is called
// stuck (sync messages at 50% loss need minutes; nothing needs an hour).
const holLimit = time.Hour

// runWay sends msgs over one message-layer connection in virtual time, way w.
func runWay(cfg HOLConfig, msgs []tmsg, w Way) WayResult {
	res, _, _ := runMessages(cfg.Seed, cfg.Link, msgs, wireDeps(msgs, w), runOptions{sync: w == WaySync})
	res.Way = w
	return res
}

// runOptions adjust runMessages.
type runOptions struct {
	sync  bool                          // send every message as a sync message (stop-and-wait)
	sentA func(d *duplex, dgram []byte) // sees every datagram the sender sends
}

// runMessages hands msgs over to the sender of a connection in virtual time, each at its
// time with the dependencies deps[i], and runs until the receiver has executed them all (or
// holLimit after the last hand-over). It measures what WayResult says; the receiver's log
// has every execution.
func runMessages(seed uint64, link linksim.Settings, msgs []tmsg, deps [][]int, opt runOptions) (WayResult, *duplex, *receiverLog) {
	var res WayResult
	n := len(msgs)
	handles := make([]depgraph.Dependency, n) // never grown: the graph keeps pointers to them
	log := newReceiverLog(msgs)
	var d *duplex
	d = newDuplex(seed, link, message.Config{}, func(m *message.Message) {
		i, _, ok := parsePayload(m.Payload)
		if !ok {
			i = -1
		}
		log.execute(i, d.elapsed())
	})
	if opt.sentA != nil {
		d.sentA = func(p []byte) { opt.sentA(d, p) }
	}
	var rec wire.Record
	d.recvB = func(p []byte, accepted bool) {
		if accepted {
			eachRecord(p, &rec, func(r *wire.Record) {
				if i, _, ok := parsePayload(r.Payload); ok && r.Kind == wire.KindGuaranteed {
					log.arrive(i)
				}
			})
		}
	}
	var (
		payload []byte
		ds      []*depgraph.Dependency
		queue   []int // handed over, refused for now (back-pressure)
		next    int   // the next message to hand over
		heldSum float64
	)
	send := func(i int) error {
		payload = appendPayload(payload[:0], i, msgs[i].kind)
		ds = ds[:0]
		for _, j := range deps[i] {
			ds = append(ds, &handles[j])
		}
		var err error
		if opt.sync {
			_, err = d.a.SendSync(d.now, payload, ds, &handles[i])
		} else {
			_, err = d.a.SendGuaranteed(d.now, payload, ds, &handles[i])
		}
		return err
	}
	deadline := d.start.Add(msgs[n-1].at + holLimit)
	for log.delivered < n {
		if d.err != nil {
			res.Err = d.err
			break
		}
		if !d.now.Before(deadline) {
			res.Err = fmt.Errorf("%d of %d messages delivered after %v of virtual time", log.delivered, n, d.elapsed())
			break
		}
		for next < n && msgs[next].at <= d.elapsed() {
			queue = append(queue, next)
			next++
		}
		for len(queue) > 0 {
			err := send(queue[0])
			if errors.Is(err, message.ErrBackpressure) {
				break
			}
			if err != nil {
				res.Err = err
				return res, d, log
			}
			queue = queue[1:]
			res.Sent++
		}
		limit := deadline
		if next < n {
			limit = d.start.Add(msgs[next].at)
		}
		before := d.now
		held, backlog := log.held, next-log.delivered
		d.step(limit)
		heldSum += float64(held) * d.now.Sub(before).Seconds()
		res.HeldMax = max(res.HeldMax, log.held)
		res.BacklogMax = max(res.BacklogMax, backlog, next-log.delivered)
	}
	if secs := d.elapsed().Seconds(); secs > 0 {
		res.HeldMean = heldSum / secs
	}
	st := d.a.Stats()
	res.Resends = st.GuaranteedResent
	res.PacketsLost = st.LostWithMessages
	rs := d.b.Stats().Packet
	res.Stale, res.Arrived = rs.Stale, rs.PacketsReceived+rs.Stale+rs.Duplicate
	log.finish(&res, link.Latency)
	return res, d, log
}

// eachRecord calls f for every record of a datagram of the plain frame (as a Conn with the
// default Config writes them) and returns the size of its packet header; a datagram that does
// not parse is skipped (0), and so are the records after one that does not.
func eachRecord(d []byte, rec *wire.Record, f func(*wire.Record)) (header int) {
	p, err := wire.OpenDatagram(d, 0)
	if err != nil {
		return 0
	}
	_, n, err := wire.ParseHeader(p)
	if err != nil {
		return 0
	}
	for rest := p[n:]; len(rest) > 0; {
		k, err := wire.ParseRecord(rest, rec)
		if err != nil {
			break
		}
		f(rec)
		rest = rest[k:]
	}
	return n
}

// Section is the experiment's report.
func (r *HOLResult) Section(command string) *report.Section {
	c := r.Config
	s := &report.Section{Name: "hol", Title: "netlab hol: head-of-line blocking, five ways to send the same traffic", Command: command}
	s.Textf("%s messages at %s a second over %s each way (seed %d): %d spawns, %d kills (each %v-%v after its spawn), %d chat lines in %d chains, %d player infos and %d starts (each waiting for %d infos). Every way but quic-go runs the same message layer in virtual time; only what each message depends on differs: the graph names what a message needs, a channel makes each message wait for the previous one on its channel (a channel per kind: spawns and kills, chat, lobby), sync messages are stop-and-wait.",
		report.Int(r.Messages), report.F(c.Rate, 0), report.Link(c.Link), c.Seed, r.Kinds[kindSpawn], r.Kinds[kindKill], killDelayMin, killDelayMin+killDelaySpan,
		r.Kinds[kindChat], chatters, r.Kinds[kindInfo], r.Kinds[kindStart], roundPlayers)
	t := &report.Table{Title: "Delay beyond the one-way latency (ms), from hand-over to execution",
		Head: []string{"way", "p50", "p95", "p99", "max", "independent p99", "held max", "held mean", "ever held", "backlog max", "resends", "stale", "delivered"}}
	for _, w := range r.Ways {
		name := w.Way.String()
		resends, stale := report.Int(w.Resends), report.Pct(float64(w.Stale), float64(w.Arrived))
		if w.Way == WayQUIC {
			name += " (wall clock)"
			resends, stale = report.Int(w.PacketsLost)+" pkts lost", "–"
		}
		t.Row(name, report.F(w.All.P(50), 1), report.F(w.All.P(95), 1), report.F(w.All.P(99), 1), report.F(w.All.Max(), 1),
			report.F(w.Independent.P(99), 1), report.Int(w.HeldMax), report.F(w.HeldMean, 2), report.Int(w.HeldEver), report.Int(w.BacklogMax),
			resends, stale, fmt.Sprintf("%d/%d", w.Delivered, r.Messages))
	}
	s.Add(t)
	k := &report.Table{Title: "p99 delay by kind of message (ms)", Head: []string{"way"}}
	for kd := range kinds {
		k.Head = append(k.Head, kd.String())
	}
	for _, w := range r.Ways {
		row := []string{w.Way.String()}
		for kd := range kinds {
			row = append(row, report.F(w.ByKind[kd].P(99), 1))
		}
		k.Row(row...)
	}
	s.Add(k)
	// Sync messages are left out of the charts: their delays are hundreds of times the others'
	// and would flatten them; the tables have them.
	bars := &report.Chart{Title: "p99 delay of independent messages beyond the one-way latency", Unit: "ms"}
	line := &report.Chart{Title: "Hand-over to execution, one-way latency included, by percentile", Kind: report.Lines, Unit: "ms", XLabel: "percentile",
		Labels: []string{"p50", "p90", "p95", "p99", "p99.9", "max"}}
	var p99 report.Series
	for _, w := range r.Ways {
		if w.Way == WaySync {
			continue
		}
		bars.Labels = append(bars.Labels, w.Way.String())
		p99.Values = append(p99.Values, w.Independent.P(99))
		line.Series = append(line.Series, report.Series{Name: w.Way.String(), Values: []float64{
			w.Total.P(50), w.Total.P(90), w.Total.P(95), w.Total.P(99), w.Total.P(99.9), w.Total.Max()}})
	}
	bars.Series = []report.Series{p99}
	s.Add(bars, line)
	g, ch, ok := r.Acceptance()
	verdict := "met"
	if !ok {
		verdict = "NOT met"
	}
	s.Textf("Acceptance (the target: at 10%% loss and 100 ms RTT the graph's p99 for independent messages is at most a third of the single ordered channel's): graph %s ms, one channel %s ms, a third of it %s ms: %s (the channel's is %s times the graph's). This run: %s.",
		report.F(g, 1), report.F(ch, 1), report.F(ch/3, 1), verdict, report.F(ch/g, 1), report.Link(c.Link))
	violations := 0
	for _, w := range r.Ways {
		violations += w.Violations
	}
	s.Textf("Sync messages are stop-and-wait: one message per round trip, far fewer than the game hands over, so their queue grows for the whole run (the backlog column) and they are left out of the charts. A game keeps them for the rare message that must stop everything, such as a pause.")
	s.Textf("Order: %d messages executed before a dependency, twice or never, over all ways. \"Held\" counts messages that arrived and waited at the receiver for another one (sync messages wait at the sender instead: see the backlog). Resends are messages sent again; quic-go does not count retransmitted streams, so its row gives the packets it declared lost. Stale are the datagrams the receiver dropped because a newer one had arrived first (the stale-packet rule: a packet older than the newest received is dropped): with jitter as large as the gap between two packets (here %v) they add to the loss, and each one is resent like a lost one.", violations, trafficTick)
	if c.QUIC {
		s.Textf("The quic-go row runs on real loopback UDP sockets, each wrapped in a net/linksim PacketConn with the same settings (loss, latency, jitter, duplication in both directions, on the client's socket), in wall-clock time: quic-go reads the system clock and cannot run in virtual time. Its numbers change from run to run and include the scheduler of this machine. Its receiver enforces the same dependencies as the graph (a message waits for the ones it names), so the row shows QUIC's loss recovery with no head-of-line blocking between streams.")
	}
	return s
}
