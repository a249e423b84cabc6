package stacklab

import (
	"fmt"
	"math"
	"time"

	"github.com/ackattack/ackattack/cmd/netlab/internal/report"
	"github.com/ackattack/ackattack/internal/int30"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/packet"
	"github.com/ackattack/ackattack/net/wire"
)

// FragmentsConfig is the fragments experiment's setting. Link's loss is the highest of the
// sweep.
type FragmentsConfig struct {
	Link   linksim.Settings
	Seed   uint64
	Trials int // per loss and sender
	Size   int // bytes of the message
}

// FragSender is one way of resending a fragmented message.
type FragSender uint8

const (
	// FragStack is net/message as it is: every fragment acknowledged and resent alone, at
	// once when its packet is reported lost, or when the link fell silent for a resend delay.
	FragStack FragSender = iota
	// FragModelEach is the model sender resending only the fragments not acknowledged, when
	// its resend timer runs out.
	FragModelEach
	// FragModelWhole resends every fragment when any is not acknowledged by the timer (the
	// flaw of resending every fragment when one is lost); the receiver keeps what it got from
	// earlier sends.
	FragModelWhole
	// FragModelWholeFresh resends every fragment as a new message (each send numbered anew,
	// as a stack that numbers every send does), so the receiver needs all fragments of one
	// send.
	FragModelWholeFresh
	fragSenders
)

var fragSenderNames = [fragSenders]string{
	"net/message: each fragment acked, resent alone",
	"model: resend the fragments not acked",
	"model: resend all, receiver keeps fragments",
	"model: resend all as a new message",
}

func (f FragSender) String() string { return fragSenderNames[f] }

// FragRow is what one sender measured at one loss, over the trials.
type FragRow struct {
	Loss      float64
	Sender    FragSender
	Bytes     report.Dist // bytes of the datagrams with fragments the sender wrote, per trial
	Time      report.Dist // ms from the send to the receiver having the whole message, delivered trials
	Failed    int         // trials not delivered within fragLimit
	Fragments int
}

// FragmentsResult is the whole sweep.
type FragmentsResult struct {
	Config FragmentsConfig
	Rows   []FragRow
}

// fragLimit is how long a trial may take before it counts as not delivered.
const fragLimit = 60 * time.Second

// fragLosses are the sweep's losses for a highest loss of top: 0, top/6, top/3, 2top/3, top.
func fragLosses(top float64) []float64 {
	return []float64{0, top / 6, top / 3, 2 * top / 3, top}
}

// RunFragments sends one message of cfg.Size bytes, Trials times at every loss with every
// sender, each trial on a fresh connection whose link is seeded by the trial, so every sender
// meets the same fates: the k-th datagram of a trial is lost for all of them or for none.
//
// A message bigger than a datagram goes in fragments. A sender that keeps one timer for the
// whole message and resends every fragment when any is missing pays the whole message again
// for each loss; at 30% loss a send of 18 fragments almost never arrives whole. net/message
// acknowledges and resends each fragment alone. The stack is compared with three model senders
// built on net/packet that differ only in what they resend (FragSender).
func RunFragments(cfg FragmentsConfig) (*FragmentsResult, error) {
	if cfg.Trials < 1 {
		return nil, fmt.Errorf("fragments: %w: --messages must be at least 1", report.ErrSetting)
	}
	if cfg.Size < 1 || cfg.Size > 255*1100 {
		return nil, fmt.Errorf("fragments: %w: --size must be 1..%d bytes", report.ErrSetting, 255*1100)
	}
	r := &FragmentsResult{Config: cfg}
	for _, loss := range fragLosses(cfg.Link.LossPercent) {
		link := cfg.Link
		link.LossPercent = loss
		for s := range fragSenders {
			row := FragRow{Loss: loss, Sender: s}
			for trial := range cfg.Trials {
				seed := cfg.Seed*1_000_003 + uint64(trial)
				var bytes uint64
				var took time.Duration
				var ok bool
				if s == FragStack {
					bytes, took, ok, row.Fragments = fragOverStack(seed, link, cfg.Size)
				} else {
					m := newFragModel(seed, link, cfg.Size, s)
					bytes, took, ok = m.run()
					row.Fragments = m.n
				}
				row.Bytes.Add(float64(bytes))
				if ok {
					row.Time.Add(float64(took) / float64(time.Millisecond))
				} else {
					row.Failed++
				}
			}
			r.Rows = append(r.Rows, row)
		}
	}
	return r, nil
}

// initialRTT gives every sender the link's true round trip before its first sample, as in a
// game under way.
func initialRTT(link linksim.Settings) time.Duration { return max(2*link.Latency, time.Millisecond) }

// fragOverStack sends one message of size bytes through net/message and reports the bytes of
// the sender's datagrams with fragments, the time until the receiver had the message, whether
// it had it within fragLimit, and into how many fragments it went.
func fragOverStack(seed uint64, link linksim.Settings, size int) (bytes uint64, took time.Duration, ok bool, frags int) {
	delivered := false
	var d *duplex
	cfg := message.Config{Packet: packet.Config{InitialRTT: initialRTT(link)}}
	d = newDuplex(seed, link, cfg, func(m *message.Message) {
		if len(m.Payload) == size {
			delivered, took, frags = true, d.elapsed(), m.Fragments
		}
	})
	var rec wire.Record
	d.sentA = func(p []byte) {
		records := 0
		eachRecord(p, &rec, func(*wire.Record) { records++ })
		if records > 0 {
			bytes += uint64(len(p))
		}
	}
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte(i)
	}
	if _, err := d.a.SendGuaranteed(d.now, payload, nil, nil); err != nil {
		return 0, 0, false, 0
	}
	ok = d.runUntil(d.start.Add(fragLimit), func() bool { return delivered && d.a.Stats().PendingGuaranteed == 0 })
	return bytes, took, delivered && ok, frags
}

// fragModel is a bare sender and receiver of one fragmented message on the packet layer
// (net/packet for sequence numbers, acks and the resend delay; net/wire for the bytes, the
// same fragment records net/message writes), whose only policy is what goes again when the
// resend timer runs out: so the senders differ in that alone.
type fragModel struct {
	nw         *linksim.Network
	start, now time.Time
	na, nb     *linksim.Node
	snd, rcv   *packet.Endpoint
	sender     FragSender
	total, n   int
	chunk      int
	buf        []byte
	payload    []byte

	// the sender
	attempt  int      // the message number of the current send (FragModelWholeFresh)
	acked    [][]bool // per attempt (one attempt unless fresh), per fragment
	ackedN   []int
	lastSend time.Time
	done     bool // every fragment of one attempt acknowledged
	bytes    uint64

	// the receiver
	have      map[int][]bool // per attempt as numbered on the wire
	haveN     map[int]int
	ackDue    time.Time // zero: no ack owed
	delivered bool
	took      time.Duration
	rec       wire.Record
}

// fragChunk is the fragment size net/message uses for a message of total bytes without
// dependencies at the default MTU (1,200 bytes) with the plain frame: the room of an empty
// packet less the fragment record's overhead, then evened out over the fragments.
func fragChunk(total int) (chunk, n int) {
	room := 1200 - wire.ChecksumSize - wire.MaxHeaderSize
	chunk = room - (1 + wire.SeqListSize(0) + 2 + int30.SizeUInt30(uint32(total)) + 2)
	n = (total + chunk - 1) / chunk
	return (total + n - 1) / n, n
}

func newFragModel(seed uint64, link linksim.Settings, size int, sender FragSender) *fragModel {
	nw := linksim.NewNetwork(seed)
	nw.Link("a", "b", link, link)
	m := &fragModel{nw: nw, start: nw.Now(), now: nw.Now(), na: nw.AddNode("a"), nb: nw.AddNode("b"),
		sender: sender, total: size, have: map[int][]bool{}, haveN: map[int]int{}, payload: make([]byte, size)}
	m.chunk, m.n = fragChunk(size)
	pc := packet.Config{InitialRTT: initialRTT(link), PeerMaxAckDelay: message.MaxAckDelay, OnAcked: m.onAcked}
	m.snd = packet.NewEndpoint(pc)
	m.rcv = packet.NewEndpoint(packet.Config{InitialRTT: initialRTT(link)})
	return m
}

func (m *fragModel) onAcked(p *packet.SentPacket) {
	for _, it := range p.Items {
		a := m.attemptOf(int(it.Seq))
		if a < 0 || m.acked[a][it.Frag] {
			continue
		}
		m.acked[a][it.Frag] = true
		m.ackedN[a]++
		if m.ackedN[a] == m.n {
			m.done = true
		}
	}
}

// attemptOf is the index into acked of the message numbered seq on the wire.
func (m *fragModel) attemptOf(seq int) int {
	if m.sender != FragModelWholeFresh {
		return 0
	}
	for a := len(m.acked) - 1; a >= 0; a-- {
		if a&wire.SeqMask == seq {
			return a
		}
	}
	return -1
}

// sendFragment writes fragment i of the current attempt.
func (m *fragModel) sendFragment(i int) {
	h := m.snd.NextHeader()
	b := wire.BeginDatagram(m.buf[:0])
	b = wire.AppendHeader(b, h)
	lo := i * m.chunk
	hi := min(lo+m.chunk, m.total)
	seq := uint16(m.attempt & wire.SeqMask)
	rec := wire.Record{Kind: wire.KindFragment, Seq: seq, FragIndex: uint8(i), FragCount: uint8(m.n), TotalLen: uint32(m.total), Payload: m.payload[lo:hi]}
	b, err := wire.AppendRecord(b, &rec)
	if err != nil {
		panic(err) // the record was built above within the format's limits
	}
	wire.SealDatagram(b, 0)
	m.buf = b
	m.snd.Sent(m.now, h, len(b), []packet.Item{{Seq: seq, Frag: uint8(i)}})
	m.bytes += uint64(len(b))
	_ = m.na.Send("b", b)
}

// sendRound sends what the policy resends (everything, the first time).
func (m *fragModel) sendRound() {
	first := len(m.acked) == 0
	if first || m.sender == FragModelWholeFresh {
		if !first {
			m.attempt++
		}
		m.acked = append(m.acked, make([]bool, m.n))
		m.ackedN = append(m.ackedN, 0)
	}
	a := len(m.acked) - 1
	for i := range m.n {
		if first || m.sender != FragModelEach || !m.acked[a][i] {
			m.sendFragment(i)
		}
	}
	m.lastSend = m.now
}

// sendAck writes the receiver's ack-only packet.
func (m *fragModel) sendAck() {
	h := m.rcv.NextHeader()
	b := wire.BeginDatagram(m.buf[:0])
	b = wire.AppendHeader(b, h)
	wire.SealDatagram(b, 0)
	m.buf = b
	m.rcv.Sent(m.now, h, len(b), nil)
	_ = m.nb.Send("a", b)
	m.ackDue = time.Time{}
}

// receive handles a datagram at the receiver.
func (m *fragModel) receive(d []byte) {
	body, err := wire.OpenDatagram(d, 0)
	if err != nil {
		return
	}
	h, n, err := wire.ParseHeader(body)
	if err != nil || m.rcv.Received(m.now, h, len(d)) != packet.Accepted {
		return // a stale packet is never acknowledged: its fragment goes again
	}
	if _, err := wire.ParseRecord(body[n:], &m.rec); err != nil || m.rec.Kind != wire.KindFragment {
		return
	}
	id := int(m.rec.Seq)
	if m.have[id] == nil {
		m.have[id] = make([]bool, m.n)
	}
	if !m.have[id][m.rec.FragIndex] {
		m.have[id][m.rec.FragIndex] = true
		m.haveN[id]++
		if m.haveN[id] == m.n && !m.delivered {
			m.delivered, m.took = true, m.now.Sub(m.start)
		}
	}
	if m.ackDue.IsZero() {
		m.ackDue = m.now.Add(message.MaxAckDelay)
	}
}

// run sends the message and runs until the sender knows it arrived, or fragLimit.
func (m *fragModel) run() (bytes uint64, took time.Duration, ok bool) {
	m.sendRound()
	deadline := m.start.Add(fragLimit)
	var dgrams []linksim.Datagram
	for !(m.done && m.delivered) && m.now.Before(deadline) {
		timer := m.lastSend.Add(m.snd.ResendDelay())
		if !m.done && !m.now.Before(timer) {
			m.sendRound()
			timer = m.lastSend.Add(m.snd.ResendDelay())
		}
		if !m.ackDue.IsZero() && !m.now.Before(m.ackDue) {
			m.sendAck()
		}
		next := deadline
		if !m.done && timer.Before(next) {
			next = timer
		}
		if !m.ackDue.IsZero() && m.ackDue.Before(next) {
			next = m.ackDue
		}
		if t, ok := m.nw.NextEvent(); ok && t.Before(next) {
			next = t
		}
		m.now, dgrams = m.nw.Step(next, dgrams[:0])
		for _, dg := range dgrams {
			if dg.To == "b" {
				m.receive(dg.Data)
				continue
			}
			if body, err := wire.OpenDatagram(dg.Data, 0); err == nil {
				if h, _, err := wire.ParseHeader(body); err == nil {
					m.snd.Received(m.now, h, len(dg.Data))
				}
			}
		}
	}
	return m.bytes, m.took, m.delivered
}

// Section is the experiment's report.
func (r *FragmentsResult) Section(command string) *report.Section {
	c := r.Config
	s := &report.Section{Name: "fragments", Title: "netlab fragments: a re-sync batch in fragments, per-fragment acks against resending the whole", Command: command}
	frags := 0
	if len(r.Rows) > 0 {
		frags = r.Rows[0].Fragments
	}
	s.Textf("One guaranteed message of %s bytes (%d fragments of at most 1,200-byte datagrams), %d times at each loss from 0 to %g%%, over %s each way (seed %d); every trial on a fresh link seeded by the trial, so each sender meets the same fate for its k-th datagram. The first row of each loss is net/message itself. The three model senders share one bare sender on net/packet (the same records, acks and resend delay, the link's round trip known from the start) and differ only in what they send again when the resend timer runs out: the fragments not acknowledged, all of them (resending every fragment when one is lost) to a receiver that keeps what it has, or all of them as a new message, so that only a send whose every fragment arrives completes it. Bytes are the sender's datagrams with fragments, until it knows the message arrived.",
		report.Int(c.Size), frags, c.Trials, c.Link.LossPercent, report.Delays(c.Link), c.Seed)
	t := &report.Table{Title: "Bytes sent and time to deliver (ms, from the send to the receiver holding the whole message)",
		Head: []string{"loss", "sender", "KB sent, mean", "× the message", "p95 KB", "time p50", "p95", "max", "not delivered in 60 s"}}
	bytesChart := &report.Chart{Title: "Bytes sent per message, mean", Kind: report.Lines, Unit: "KB", XLabel: "loss", LogY: true}
	timeChart := &report.Chart{Title: "Time to deliver, p95", Kind: report.Lines, Unit: "ms", XLabel: "loss", LogY: true}
	series := map[FragSender]int{}
	for _, row := range r.Rows {
		kb := row.Bytes.Mean() / 1000
		t.Row(report.F(row.Loss, 0)+"%", row.Sender.String(), report.F(kb, 1), report.F(row.Bytes.Mean()/float64(c.Size), 2), report.F(row.Bytes.P(95)/1000, 1),
			report.F(row.Time.P(50), 0), report.F(row.Time.P(95), 0), report.F(row.Time.Max(), 0), fmt.Sprintf("%d/%d", row.Failed, c.Trials))
		label := report.F(row.Loss, 0) + "%"
		if n := len(bytesChart.Labels); n == 0 || bytesChart.Labels[n-1] != label {
			bytesChart.Labels = append(bytesChart.Labels, label)
			timeChart.Labels = append(timeChart.Labels, label)
		}
		i, ok := series[row.Sender]
		if !ok {
			i = len(bytesChart.Series)
			series[row.Sender] = i
			bytesChart.Series = append(bytesChart.Series, report.Series{Name: row.Sender.String()})
			timeChart.Series = append(timeChart.Series, report.Series{Name: row.Sender.String()})
		}
		bytesChart.Series[i].Values = append(bytesChart.Series[i].Values, kb)
		p95 := row.Time.P(95)
		if row.Failed*20 > c.Trials {
			p95 = math.NaN() // more than 5% never arrived: the p95 is not a time
		}
		timeChart.Series[i].Values = append(timeChart.Series[i].Values, p95)
	}
	s.Add(t, bytesChart, timeChart)
	s.Textf("Times are over the delivered trials only; a point is missing from the time chart where more than 5%% of the trials never delivered.")
	return s
}
