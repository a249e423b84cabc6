package packet

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/wire"
)

var base = time.Unix(1_000_000, 0)

// recv is one incoming packet of a test and the verdict it must get.
type recv struct {
	seq  uint16
	want Verdict
}

func TestAckGeneration(t *testing.T) {
	tests := []struct {
		name     string
		recvs    []recv
		wantAck  uint16
		wantBits uint32
	}{
		{"nothing received", nil, 0, 0},
		{"first packet 0", []recv{{0, Accepted}}, 0, 1},
		{"first packet anywhere", []recv{{500, Accepted}}, 500, 1},
		{"first packet 65535", []recv{{65535, Accepted}}, 65535, 1},
		{"in order", []recv{{0, Accepted}, {1, Accepted}, {2, Accepted}, {3, Accepted}, {4, Accepted}}, 4, 0x1f},
		{"gaps", []recv{{0, Accepted}, {1, Accepted}, {3, Accepted}, {6, Accepted}}, 6, 1 | 1<<3 | 1<<5 | 1<<6},
		{"wrap 65535 to 0", []recv{{65534, Accepted}, {65535, Accepted}, {0, Accepted}, {1, Accepted}}, 1, 0xf},
		{"wrap with gap", []recv{{65530, Accepted}, {2, Accepted}}, 2, 1 | 1<<8},
		{"jump of 31 keeps the old bit", []recv{{0, Accepted}, {31, Accepted}}, 31, 1 | 1<<31},
		{"jump of 32 drops it", []recv{{0, Accepted}, {32, Accepted}}, 32, 1},
		{"jump of 1000", []recv{{0, Accepted}, {1000, Accepted}}, 1000, 1},
		{"stale", []recv{{5, Accepted}, {3, Stale}}, 5, 1},
		{"stale across wrap", []recv{{65535, Accepted}, {1, Accepted}, {0, Stale}}, 1, 1 | 1<<2},
		{"stale older than the window", []recv{{100, Accepted}, {60, Stale}}, 100, 1},
		{"stale 32 back", []recv{{99, Accepted}, {100, Accepted}, {68, Stale}}, 100, 3},
		{"stale 31 back", []recv{{100, Accepted}, {69, Stale}}, 100, 1},
		{"duplicate newest", []recv{{5, Accepted}, {5, Duplicate}}, 5, 1},
		{"duplicate older", []recv{{4, Accepted}, {5, Accepted}, {4, Duplicate}}, 5, 3},
		{"duplicate across wrap", []recv{{65535, Accepted}, {0, Accepted}, {65535, Duplicate}}, 0, 3},
		{"duplicate 31 back", []recv{{69, Accepted}, {100, Accepted}, {69, Duplicate}}, 100, 1 | 1<<31},
		{"received long ago counts as stale", []recv{{10, Accepted}, {50, Accepted}, {10, Stale}}, 50, 1},
		{"half the space ahead is older", []recv{{0, Accepted}, {32768, Stale}}, 0, 1},
		{"just under half ahead is newer", []recv{{0, Accepted}, {32767, Accepted}}, 32767, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewEndpoint(Config{})
			for i, r := range tt.recvs {
				h := wire.Header{Type: wire.TypeData, Seq: r.seq}
				if got := e.Received(base, h, 10); got != r.want {
					t.Fatalf("packet %d (seq %d): verdict %v, want %v", i, r.seq, got, r.want)
				}
			}
			h := e.NextHeader()
			if h.Ack != tt.wantAck || h.AckBits != tt.wantBits {
				t.Errorf("Ack %d AckBits %#x, want Ack %d AckBits %#x", h.Ack, h.AckBits, tt.wantAck, tt.wantBits)
			}
			if h.Type != wire.TypeData || h.Seq != 0 {
				t.Errorf("header %+v: want TypeData and Seq 0 (nothing sent)", h)
			}
			var stale, dup uint64
			for _, r := range tt.recvs {
				switch r.want {
				case Stale:
					stale++
				case Duplicate:
					dup++
				}
			}
			s := e.Stats()
			if s.Stale != stale || s.Duplicate != dup || s.PacketsReceived != uint64(len(tt.recvs))-stale-dup {
				t.Errorf("stats stale %d duplicate %d received %d, want %d %d %d",
					s.Stale, s.Duplicate, s.PacketsReceived, stale, dup, uint64(len(tt.recvs))-stale-dup)
			}
			if s.BytesReceived != 10*uint64(len(tt.recvs)) {
				t.Errorf("BytesReceived %d, want %d", s.BytesReceived, 10*len(tt.recvs))
			}
		})
	}
}

// recorder notes every OnAcked and OnLost as "a<seq>" or "l<seq>".
type recorder struct {
	events []string
}

func (r *recorder) config() Config {
	return Config{
		OnAcked: func(p *SentPacket) { r.events = append(r.events, fmt.Sprintf("a%d", p.Seq)) },
		OnLost:  func(p *SentPacket) { r.events = append(r.events, fmt.Sprintf("l%d", p.Seq)) },
	}
}

func (r *recorder) take() string {
	s := strings.Join(r.events, " ")
	r.events = r.events[:0]
	return s
}

// sendN sends n packets at now, each carrying one item naming its own sequence number.
func sendN(e *Endpoint, now time.Time, n int) {
	for range n {
		h := e.NextHeader()
		e.Sent(now, h, 100, []Item{{Seq: h.Seq & wire.SeqMask}})
	}
}

// peerAck is a packet from the peer carrying (ack, bits).
type peerAck struct {
	ack  uint16
	bits uint32
}

func TestAckProcessing(t *testing.T) {
	tests := []struct {
		name         string
		skip         int // packets sent and acknowledged before the test, unrecorded
		sent         int
		acks         []peerAck
		want         []string // events after each ack
		wantInFlight int
	}{
		{
			name: "peer received nothing", sent: 3,
			acks: []peerAck{{0, 0}}, want: []string{""}, wantInFlight: 3,
		},
		{
			name: "all in order", sent: 5,
			acks: []peerAck{{4, 0x1f}}, want: []string{"a0 a1 a2 a3 a4"},
		},
		{
			name: "redundant acks report each packet once", sent: 5,
			acks: []peerAck{{2, 0x7}, {3, 0xf}, {3, 0xf}, {4, 0x1f}},
			want: []string{"a0 a1 a2", "a3", "", "a4"},
		},
		{
			name: "first ack lost, the next one carries it", sent: 4,
			acks: []peerAck{{3, 0xf}}, want: []string{"a0 a1 a2 a3"},
		},
		{
			name: "hole is lost at once", sent: 5,
			acks: []peerAck{{4, 0x1b}}, want: []string{"a0 a1 l2 a3 a4"},
		},
		{
			name: "newer packets stay in flight", sent: 5,
			acks: []peerAck{{2, 0x5}}, want: []string{"a0 l1 a2"}, wantInFlight: 2,
		},
		{
			name: "out of window is lost", sent: 40,
			acks: []peerAck{{39, 0xffffffff}},
			want: []string{"l0 l1 l2 l3 l4 l5 l6 l7 " + seqEvents("a", 8, 39)},
		},
		{
			name: "ack of a packet never sent is ignored", sent: 5,
			acks: []peerAck{{10, 0x1}, {5, 0x3}, {60000, 0xffffffff}}, want: []string{"", "", ""}, wantInFlight: 5,
		},
		{
			name: "ack without bit 0 is ignored", sent: 5,
			acks: []peerAck{{4, 0x1e}}, want: []string{""}, wantInFlight: 5,
		},
		{
			name: "older ack after a newer one changes nothing", sent: 5,
			acks: []peerAck{{4, 0x1f}, {2, 0x7}, {1, 0x1}}, want: []string{"a0 a1 a2 a3 a4", "", ""},
		},
		{
			name: "nothing sent", sent: 0,
			acks: []peerAck{{0, 1}, {65535, 0xffffffff}}, want: []string{"", ""},
		},
		{
			name: "wrap 65535 to 0", skip: 65533, sent: 5,
			acks: []peerAck{{65535, 0x7}, {1, 0x1d}}, want: []string{"a65533 a65534 a65535", "l0 a1"},
		},
		{
			name: "window across the wrap", skip: 65530, sent: 40,
			acks: []peerAck{{33, 0xffffffff}},
			want: []string{"l65530 l65531 l65532 l65533 l65534 l65535 l0 l1 " + seqEvents("a", 2, 33)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			e := NewEndpoint(r.config())
			var peerSeq uint16
			for range tt.skip {
				// Send and acknowledge one at a time to move the sequence number.
				sendN(e, base, 1)
				e.Received(base, wire.Header{Seq: peerSeq, Ack: e.NextHeader().Seq - 1, AckBits: 0xffffffff}, 10)
				peerSeq++
			}
			r.take()
			sendN(e, base, tt.sent)
			for i, a := range tt.acks {
				if v := e.Received(base, wire.Header{Seq: peerSeq, Ack: a.ack, AckBits: a.bits}, 10); v != Accepted {
					t.Fatalf("peer packet %d: %v", i, v)
				}
				peerSeq++
				if got := r.take(); got != tt.want[i] {
					t.Errorf("after ack %d (%d, %#x): events %q, want %q", i, a.ack, a.bits, got, tt.want[i])
				}
			}
			if got := e.InFlight(); got != tt.wantInFlight {
				t.Errorf("InFlight %d, want %d", got, tt.wantInFlight)
			}
			s := e.Stats()
			if s.PacketsAcked+s.PacketsLost+uint64(s.InFlight) != s.PacketsSent {
				t.Errorf("acked %d + lost %d + in flight %d != sent %d", s.PacketsAcked, s.PacketsLost, s.InFlight, s.PacketsSent)
			}
		})
	}
}

func seqEvents(kind string, from, to int) string {
	var parts []string
	for s := from; s <= to; s++ {
		parts = append(parts, fmt.Sprintf("%s%d", kind, s))
	}
	return strings.Join(parts, " ")
}

func TestRingOverwriteIsLost(t *testing.T) {
	var r recorder
	e := NewEndpoint(r.config())
	sendN(e, base, SentRingSize)
	if got := r.take(); got != "" {
		t.Fatalf("events while the ring filled: %q", got)
	}
	sendN(e, base, 5)
	if got, want := r.take(), "l0 l1 l2 l3 l4"; got != want {
		t.Fatalf("overwriting the ring: events %q, want %q", got, want)
	}
	if got := e.InFlight(); got != SentRingSize {
		t.Fatalf("InFlight %d, want %d", got, SentRingSize)
	}
	// An acknowledgement of an overwritten packet is about a packet we have forgotten.
	e.Received(base, wire.Header{Seq: 0, Ack: 4, AckBits: 0xffffffff}, 10)
	if got := r.take(); got != "" {
		t.Fatalf("ack of an overwritten packet: events %q", got)
	}
	e.Received(base, wire.Header{Seq: 1, Ack: 1028, AckBits: 0xffffffff}, 10)
	if got, want := r.take(), seqEvents("l", 5, 996)+" "+seqEvents("a", 997, 1028); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	s := e.Stats()
	if s.PacketsLost != 997 || s.PacketsAcked != 32 || s.InFlight != 0 {
		t.Errorf("lost %d acked %d in flight %d, want 997 32 0", s.PacketsLost, s.PacketsAcked, s.InFlight)
	}
}

func TestStaleNeverAcknowledged(t *testing.T) {
	var r recorder
	a := NewEndpoint(r.config())
	b := NewEndpoint(Config{})

	var toB []wire.Header
	for range 3 {
		h := a.NextHeader()
		a.Sent(base, h, 50, nil)
		toB = append(toB, h)
	}
	// Packet 1 is overtaken by packet 2 on the way.
	for _, i := range []int{0, 2, 1} {
		want := Accepted
		if i == 1 {
			want = Stale
		}
		if v := b.Received(base, toB[i], 50); v != want {
			t.Fatalf("b received %d: %v, want %v", i, v, want)
		}
	}
	hb := b.NextHeader()
	if hb.Ack != 2 || hb.AckBits != 0b101 {
		t.Fatalf("b acks (%d, %#b), want (2, 0b101): the stale packet must not be acknowledged", hb.Ack, hb.AckBits)
	}
	// b keeps talking; its acknowledgements never include packet 1.
	for i := range 40 {
		hb := b.NextHeader()
		if hb.AckBits&0b10 != 0 && hb.Ack == 2 {
			t.Fatalf("b's packet %d acknowledges the stale packet", i)
		}
		b.Sent(base, hb, 20, nil)
		a.Received(base, hb, 20)
	}
	if got, want := r.take(), "a0 l1 a2"; got != want {
		t.Errorf("a's events %q, want %q", got, want)
	}
}

func TestRTT(t *testing.T) {
	ms := time.Millisecond
	e := NewEndpoint(Config{})
	if got := e.ResendDelay(); got != DefaultInitialRTT {
		t.Fatalf("ResendDelay before any sample %v, want %v", got, DefaultInitialRTT)
	}
	if s := e.Stats(); s.RTT != DefaultInitialRTT || s.RTTSamples != 0 || s.MinRTT != 0 {
		t.Fatalf("stats before any sample: %+v", s)
	}
	var peerSeq uint16
	// round sends one packet at sendAt and receives the peer's ack of it at ackAt.
	round := func(sendAt, ackAt time.Duration) {
		h := e.NextHeader()
		e.Sent(base.Add(sendAt), h, 100, []Item{{Seq: h.Seq}})
		e.Received(base.Add(ackAt), wire.Header{Seq: peerSeq, Ack: h.Seq, AckBits: 0xffffffff}, 10)
		peerSeq++
	}
	steps := []struct {
		sendAt, ackAt          time.Duration
		srtt, rttVar, jitter   time.Duration
		minRTT, maxRTT, latest time.Duration
		samples                uint64
	}{
		// First sample: SRTT = R, RTTVAR = R/2, no jitter yet.
		{0, 100 * ms, 100 * ms, 50 * ms, 0, 100 * ms, 100 * ms, 100 * ms, 1},
		// R = 180: RTTVAR = 50 + (|100-180| - 50)/4 = 57.5; SRTT = 100 + 80/8 = 110; J = 80/16 = 5.
		{1000 * ms, 1180 * ms, 110 * ms, 57500 * time.Microsecond, 5 * ms, 100 * ms, 180 * ms, 180 * ms, 2},
		// R = 110: RTTVAR = 57.5 - 57.5/4 = 43.125; SRTT = 110; J = 5 + (70-5)/16 = 9.0625.
		{2000 * ms, 2110 * ms, 110 * ms, 43125 * time.Microsecond, 9062500, 100 * ms, 180 * ms, 110 * ms, 3},
		// R = 30: RTTVAR = 43.125 + (80 - 43.125)/4 = 52.34375; SRTT = 110 - 10 = 100; J = 9.0625 + (80-9.0625)/16 = 13.49609375.
		{3000 * ms, 3030 * ms, 100 * ms, 52343750, 13496093, 30 * ms, 180 * ms, 30 * ms, 4},
	}
	for i, st := range steps {
		round(st.sendAt, st.ackAt)
		s := e.Stats()
		got := []time.Duration{s.RTT, s.RTTVar, s.Jitter, s.MinRTT, s.MaxRTT, s.LatestRTT}
		want := []time.Duration{st.srtt, st.rttVar, st.jitter, st.minRTT, st.maxRTT, st.latest}
		if !slices.Equal(got, want) || s.RTTSamples != st.samples {
			t.Errorf("step %d: srtt, rttvar, jitter, min, max, latest = %v, want %v; samples %d, want %d",
				i, got, want, s.RTTSamples, st.samples)
		}
	}
	// SRTT + 4 × RTTVAR = 100 ms + 4 × 52.34375 ms.
	if got := e.ResendDelay(); got != 309375000 {
		t.Errorf("ResendDelay %v, want 309.375ms", got)
	}
}

func TestRTTSampleOnlyFromNewestNewlyAcked(t *testing.T) {
	ms := time.Millisecond
	e := NewEndpoint(Config{InitialRTT: 40 * ms})
	if got := e.ResendDelay(); got != 40*ms {
		t.Fatalf("ResendDelay %v, want the configured 40ms", got)
	}
	msg := []Item{{Seq: 5}}
	e.Sent(base, e.NextHeader(), 10, msg)                                    // seq 0 at 0
	e.Sent(base.Add(20*ms), e.NextHeader(), 10, msg)                         // seq 1 at 20ms
	e.Sent(base.Add(40*ms), e.NextHeader(), 10, msg)                         // seq 2 at 40ms
	e.Received(base.Add(90*ms), wire.Header{Seq: 0, Ack: 1, AckBits: 3}, 10) // acks 0 and 1: sample from 1 = 70ms
	if s := e.Stats(); s.RTTSamples != 1 || s.LatestRTT != 70*ms {
		t.Fatalf("samples %d latest %v, want 1 and 70ms (from the packet numbered Ack)", s.RTTSamples, s.LatestRTT)
	}
	// Ack 1 again (already acknowledged; 2 is newer and stays in flight): no sample.
	e.Received(base.Add(200*ms), wire.Header{Seq: 1, Ack: 1, AckBits: 3}, 10)
	if s := e.Stats(); s.RTTSamples != 1 {
		t.Fatalf("a repeated ack gave a sample: %d samples", s.RTTSamples)
	}
	// A zero round trip still leaves MinResendDelay of margin for resending.
	h := e.NextHeader()
	e.Sent(base.Add(300*ms), h, 10, msg)
	e.Received(base.Add(300*ms), wire.Header{Seq: 2, Ack: h.Seq, AckBits: 0xf}, 10)
	for range 200 {
		h := e.NextHeader()
		e.Sent(base.Add(300*ms), h, 10, msg)
		e.Received(base.Add(300*ms), wire.Header{Seq: h.Seq, Ack: h.Seq, AckBits: 0xffffffff}, 10)
	}
	if s := e.Stats(); s.MinRTT != 0 || e.ResendDelay()-MinResendDelay > time.Microsecond {
		t.Errorf("MinRTT %v ResendDelay %v, want 0 and %v (the smoothed RTT decays to 0 from above)", s.MinRTT, e.ResendDelay(), MinResendDelay)
	}
}

// ackingPeer is the other side of a link that answers every packet at once.
type ackingPeer struct {
	peer *Endpoint
}

// exchange sends one packet from e, lets the peer receive it if delivered, and gives e the
// peer's answer, which acknowledges everything the peer received.
func (p *ackingPeer) exchange(e *Endpoint, delivered bool) {
	h := e.NextHeader()
	e.Sent(base, h, 100, nil)
	if delivered {
		p.peer.Received(base, h, 100)
	}
	hp := p.peer.NextHeader()
	p.peer.Sent(base, hp, 20, nil)
	e.Received(base, hp, 20)
}

func TestLossPercent(t *testing.T) {
	e := NewEndpoint(Config{})
	p := ackingPeer{peer: NewEndpoint(Config{})}
	if got := e.Stats().LossPercent; got != 0 {
		t.Fatalf("LossPercent with nothing resolved %v", got)
	}
	// Packet 0 must arrive for the peer's acks to mean anything; then every 4th is lost.
	for i := range LossWindow {
		p.exchange(e, i%4 != 3)
	}
	// The last packet (255) was lost and is unresolved until the next ack passes it.
	s := e.Stats()
	if s.InFlight != 1 || s.PacketsLost != 63 || s.PacketsAcked != 192 {
		t.Fatalf("in flight %d lost %d acked %d, want 1 63 192", s.InFlight, s.PacketsLost, s.PacketsAcked)
	}
	if want := 100 * 63.0 / 255; s.LossPercent != want {
		t.Errorf("LossPercent %v, want %v", s.LossPercent, want)
	}
	for range 129 {
		p.exchange(e, true)
	}
	// Resolved: 0..384; the window holds 129..384, of which 131, 135, ..., 255 (32) were lost.
	if s, want := e.Stats(), 100*32.0/256; s.LossPercent != want {
		t.Errorf("LossPercent %v, want %v (lost %d)", s.LossPercent, want, s.PacketsLost)
	}
	for range LossWindow {
		p.exchange(e, true)
	}
	if got := e.Stats().LossPercent; got != 0 {
		t.Errorf("LossPercent after a clean window %v, want 0", got)
	}
}

func TestHistory(t *testing.T) {
	e := NewEndpoint(Config{})
	if got := e.History(nil); len(got) != 0 {
		t.Fatalf("History before sending: %v", got)
	}
	sendN(e, base, 3)
	want := []PacketState{{0, InFlight}, {1, InFlight}, {2, InFlight}}
	if got := e.History(nil); !slices.Equal(got, want) {
		t.Fatalf("History %v, want %v", got, want)
	}
	sendN(e, base, 37) // 0..39
	// The peer has 8..39 except 20 and 37 (holes below Ack: lost); 0..7 are outside the
	// window and lost too.
	e.Received(base, wire.Header{Seq: 0, Ack: 39, AckBits: 0xffffffff &^ (1 << 2) &^ (1 << 19)}, 10)
	sendN(e, base, 2) // 40, 41
	got := e.History(make([]PacketState, 0, HistoryLen))
	if len(got) != HistoryLen || got[0].Seq != 10 || got[HistoryLen-1].Seq != 41 {
		t.Fatalf("History %v: want 32 entries, seq 10..41", got)
	}
	for _, ps := range got {
		want := Acked
		switch ps.Seq {
		case 20, 37:
			want = Lost
		case 40, 41:
			want = InFlight
		}
		if ps.State != want {
			t.Errorf("seq %d: %v, want %v", ps.Seq, ps.State, want)
		}
	}
	if allocs := testing.AllocsPerRun(10, func() { got = e.History(got) }); allocs != 0 {
		t.Errorf("History into a buffer allocates %v times", allocs)
	}
}

func TestCounters(t *testing.T) {
	e := NewEndpoint(Config{})
	e.Malformed(7)
	e.Malformed(9)
	e.Received(base, wire.Header{Seq: 5}, 30)
	e.Received(base, wire.Header{Seq: 5}, 31)
	e.Received(base, wire.Header{Seq: 4}, 32)
	e.Sent(base, e.NextHeader(), 100, nil)
	e.Sent(base, e.NextHeader(), 200, nil)
	s := e.Stats()
	want := Stats{
		PacketsSent: 2, PacketsReceived: 1, Stale: 1, Duplicate: 1, Malformed: 2,
		BytesSent: 300, BytesReceived: 93, MalformedBytes: 16,
		RTT: DefaultInitialRTT, Seq: 2, Ack: 5, AckBits: 1, InFlight: 2,
	}
	if s != want {
		t.Errorf("Stats\n got %+v\nwant %+v", s, want)
	}
}

func TestMisuse(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	e := NewEndpoint(Config{})
	mustPanic("Sent with a made-up seq", func() { e.Sent(base, wire.Header{Seq: 7}, 10, nil) })

	var inner *Endpoint
	inner = NewEndpoint(Config{OnAcked: func(*SentPacket) {
		mustPanic("Sent from OnAcked", func() { inner.Sent(base, inner.NextHeader(), 1, nil) })
		mustPanic("Received from OnAcked", func() { inner.Received(base, wire.Header{Seq: 9}, 1) })
	}})
	inner.Sent(base, inner.NextHeader(), 10, nil)
	inner.Received(base, wire.Header{Seq: 0, Ack: 0, AckBits: 1}, 10)
	if s := inner.Stats(); s.PacketsAcked != 1 || s.PacketsSent != 1 || s.PacketsReceived != 1 {
		t.Errorf("stats after refused calls: %+v", s)
	}
}

func TestItemsCopied(t *testing.T) {
	var got []Item
	e := NewEndpoint(Config{OnAcked: func(p *SentPacket) { got = append(got, p.Items...) }})
	items := []Item{{Seq: 1}, {Seq: 2, Frag: 3}}
	e.Sent(base, e.NextHeader(), 10, items)
	items[0].Seq = 99 // the caller reuses its slice
	e.Received(base, wire.Header{Seq: 0, Ack: 0, AckBits: 1}, 10)
	if want := []Item{{Seq: 1}, {Seq: 2, Frag: 3}}; !slices.Equal(got, want) {
		t.Errorf("items %v, want %v", got, want)
	}
}

func TestStringers(t *testing.T) {
	for v, want := range map[fmt.Stringer]string{
		Accepted: "accepted", Stale: "stale", Duplicate: "duplicate", Verdict(0): "invalid",
		InFlight: "in flight", Acked: "acked", Lost: "lost", State(0): "unsent",
	} {
		if got := v.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", v, got, want)
		}
	}
}

// link is one direction of a simulated network: random latency (so packets overtake each
// other), independent and bursty loss, duplication.
type link struct {
	rng    *rand.Rand
	queue  []inTransit
	burst  int // packets still to drop in the current burst
	serial int
}

type inTransit struct {
	at     time.Duration
	serial int
	h      wire.Header
	index  int // the sender's count of packets sent before this one
}

func (l *link) send(now time.Duration, h wire.Header, index int) {
	if l.burst > 0 {
		l.burst--
		return
	}
	switch x := l.rng.IntN(1000); {
	case x < 2: // start a burst, some long enough to lose every ack of a packet
		l.burst = 5 + l.rng.IntN(40)
		return
	case x < 105: // 10% independent loss
		return
	}
	copies := 1
	if l.rng.IntN(100) < 2 {
		copies = 2
	}
	for range copies {
		at := now + 50*time.Millisecond + time.Duration(l.rng.IntN(40))*time.Millisecond
		l.queue = append(l.queue, inTransit{at: at, serial: l.serial, h: h, index: index})
		l.serial++
	}
}

// deliver removes and returns, in arrival order, the packets due by now.
func (l *link) deliver(now time.Duration, dst []inTransit) []inTransit {
	slices.SortFunc(l.queue, func(a, b inTransit) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.serial - b.serial
	})
	n := 0
	for n < len(l.queue) && l.queue[n].at <= now {
		n++
	}
	dst = append(dst, l.queue[:n]...)
	l.queue = append(l.queue[:0], l.queue[n:]...)
	return dst
}

// side is one endpoint of the wrap test with what it learned about its own packets.
type side struct {
	e        *Endpoint
	fate     []State // by send index
	accepted []bool  // by the peer's send index: did we accept it
	byRing   [SentRingSize]int
	twice    int
}

func newSide(n int) *side {
	s := &side{fate: make([]State, n), accepted: make([]bool, n)}
	settle := func(st State) func(p *SentPacket) {
		return func(p *SentPacket) {
			i := s.byRing[p.Seq%SentRingSize]
			if uint16(i) != p.Seq || len(p.Items) != 1 || p.Items[0].Seq != uint16(i)&wire.SeqMask {
				panic(fmt.Sprintf("record of packet %d is %+v", i, p))
			}
			if s.fate[i] != 0 {
				s.twice++
			}
			s.fate[i] = st
		}
	}
	s.e = NewEndpoint(Config{OnAcked: settle(Acked), OnLost: settle(Lost)})
	return s
}

func TestWrapAroundLossyLink(t *testing.T) {
	const packets = 200_000 // each way: the 16-bit sequence wraps three times
	const tick = 16 * time.Millisecond
	a, b := newSide(packets), newSide(packets)
	ab := &link{rng: rand.New(rand.NewPCG(1, 2))}
	ba := &link{rng: rand.New(rand.NewPCG(3, 4))}
	var arrivals []inTransit
	var items [1]Item
	now := time.Duration(0)
	for i := range packets {
		now += tick
		for _, d := range []struct {
			from, to *side
			l        *link
		}{{a, b, ab}, {b, a, ba}} {
			h := d.from.e.NextHeader()
			items[0] = Item{Seq: h.Seq & wire.SeqMask}
			// Sent may report the packet that used this ring slot lost, so the slot is
			// renamed only afterwards.
			d.from.e.Sent(base.Add(now), h, 60, items[:])
			d.from.byRing[h.Seq%SentRingSize] = i
			d.l.send(now, h, i)
			arrivals = d.l.deliver(now, arrivals[:0])
			for _, p := range arrivals {
				if d.to.e.Received(base.Add(now), p.h, 60) == Accepted {
					if d.to.accepted[p.index] {
						t.Fatalf("packet %d accepted twice", p.index)
					}
					d.to.accepted[p.index] = true
				}
			}
		}
	}
	for _, s := range []struct {
		name       string
		self, peer *side
	}{{"a", a, b}, {"b", b, a}} {
		st := s.self.e.Stats()
		peer := s.peer.e.Stats()
		if s.self.twice != 0 {
			t.Errorf("%s: %d packets reported twice", s.name, s.self.twice)
		}
		var acked, lost, open, falseLoss int
		for i, f := range s.self.fate {
			switch f {
			case Acked:
				acked++
				if !s.peer.accepted[i] {
					t.Fatalf("%s: packet %d acknowledged but the peer never accepted it", s.name, i)
				}
			case Lost:
				lost++
				if s.peer.accepted[i] {
					falseLoss++ // every acknowledgement of it was lost on the way back
				}
			default:
				open++
				if i < packets-SentRingSize {
					t.Fatalf("%s: packet %d never resolved", s.name, i)
				}
			}
		}
		if uint64(acked) != st.PacketsAcked || uint64(lost) != st.PacketsLost || open != st.InFlight {
			t.Errorf("%s: callbacks acked %d lost %d open %d, stats %d %d %d", s.name, acked, lost, open,
				st.PacketsAcked, st.PacketsLost, st.InFlight)
		}
		if acked+lost+open != packets {
			t.Errorf("%s: %d acked + %d lost + %d open != %d sent", s.name, acked, lost, open, packets)
		}
		// The peer's verdicts add up, and reordering and duplication really happened.
		if peer.PacketsReceived+peer.Stale+peer.Duplicate == 0 || peer.Stale == 0 || peer.Duplicate == 0 {
			t.Errorf("%s's peer: %d accepted %d stale %d duplicate: the link did not exercise the rules",
				s.name, peer.PacketsReceived, peer.Stale, peer.Duplicate)
		}
		// A packet wrongly taken for lost needs every acknowledgement of it lost: that happens
		// only in the long bursts.
		if falseLoss > packets/100 {
			t.Errorf("%s: %d packets the peer accepted were reported lost", s.name, falseLoss)
		}
		t.Logf("%s: sent %d acked %d lost %d (%d of them accepted by the peer) open %d; peer stale %d duplicate %d; loss %.1f%% rtt %v jitter %v",
			s.name, packets, acked, lost, falseLoss, open, peer.Stale, peer.Duplicate, st.LossPercent, st.RTT, st.Jitter)
		if st.RTT < 100*time.Millisecond || st.RTT > 250*time.Millisecond {
			t.Errorf("%s: smoothed RTT %v, want the link's 100..180ms plus up to two ticks", s.name, st.RTT)
		}
	}
}

func TestSteadyStateAllocatesNothing(t *testing.T) {
	e := NewEndpoint(Config{OnAcked: func(*SentPacket) {}, OnLost: func(*SentPacket) {}})
	items := []Item{{Seq: 1}, {Seq: 2}, {Seq: 3}}
	var peerSeq uint16
	step := func() {
		h := e.NextHeader()
		e.Sent(base, h, 100, items)
		e.Received(base, wire.Header{Seq: peerSeq, Ack: h.Seq, AckBits: 0xfffffffd}, 10)
		peerSeq++
	}
	for range 2 * SentRingSize {
		step() // every ring slot gets its Items array
	}
	if allocs := testing.AllocsPerRun(1000, step); allocs != 0 {
		t.Errorf("steady state allocates %v times per packet", allocs)
	}
}

func BenchmarkSentReceived(b *testing.B) {
	e := NewEndpoint(Config{OnAcked: func(*SentPacket) {}, OnLost: func(*SentPacket) {}})
	items := make([]Item, 8)
	var peerSeq uint16
	b.ReportAllocs()
	for b.Loop() {
		h := e.NextHeader()
		e.Sent(base, h, 1200, items)
		// The peer acknowledges it, with one earlier packet missing now and then.
		bits := uint32(0xffffffff)
		if peerSeq%8 == 0 {
			bits &^= 1 << 1
		}
		e.Received(base, wire.Header{Seq: peerSeq, Ack: h.Seq, AckBits: bits}, 40)
		peerSeq++
	}
}

// TestRTTNoSampleFromPacketsWithoutItems: a keepalive or a pure ack is acknowledged by whatever
// the peer sends next, so its ack time would measure the peer's silence, not the path: it
// gives no sample, while the next packet with a message does.
func TestRTTNoSampleFromPacketsWithoutItems(t *testing.T) {
	ms := time.Millisecond
	e := NewEndpoint(Config{})
	if s := sendAndAck(e, 0, 95*ms, nil, 0); s.RTTSamples != 0 { // a keepalive
		t.Fatalf("the ack of a keepalive gave %d samples (latest %v), want none", s.RTTSamples, s.LatestRTT)
	}
	if s := sendAndAck(e, 100*ms, 104*ms, []Item{{Seq: 1}}, 1); s.RTTSamples != 1 || s.LatestRTT != 4*ms {
		t.Fatalf("samples %d latest %v, want 1 and 4ms from the packet with a message", s.RTTSamples, s.LatestRTT)
	}
}

// sendAndAck sends one packet with items at sentAt, hands e the peer's packet numbered peerSeq
// that acknowledges it at ackedAt, and returns e's stats.
func sendAndAck(e *Endpoint, sentAt, ackedAt time.Duration, items []Item, peerSeq uint16) Stats {
	h := e.NextHeader()
	e.Sent(base.Add(sentAt), h, 10, items)
	e.Received(base.Add(ackedAt), wire.Header{Seq: peerSeq, Ack: h.Seq, AckBits: 1}, 10)
	return e.Stats()
}

// TestRTTNoSampleWhenThePeersPreviousPacketIsMissing: the peer's prompt ack may have been the
// packet that was lost, and the one that arrives a keepalive sent much later. Only an ack in
// the packet right after one we accepted (or in the peer's first packet) is known to be the
// first the peer sent after our packet reached it.
func TestRTTNoSampleWhenThePeersPreviousPacketIsMissing(t *testing.T) {
	ms := time.Millisecond
	e := NewEndpoint(Config{})
	e.Received(base, wire.Header{Seq: 0}, 10) // the peer's first packet acks nothing
	// The peer's packet 1 (its prompt ack) is lost; packet 2, a keepalive 100 ms later, acks.
	if s := sendAndAck(e, 10*ms, 120*ms, []Item{{Seq: 1}}, 2); s.RTTSamples != 0 || s.PacketsAcked != 1 {
		t.Fatalf("samples %d (latest %v), acked %d: want the packet acked and no sample", s.RTTSamples, s.LatestRTT, s.PacketsAcked)
	}
	if s := sendAndAck(e, 200*ms, 220*ms, []Item{{Seq: 2}}, 3); s.RTTSamples != 1 || s.LatestRTT != 20*ms {
		t.Fatalf("samples %d latest %v, want 1 and 20ms from the ack that follows packet 2", s.RTTSamples, s.LatestRTT)
	}
}

// TestResendDelayAddsPeerMaxAckDelay: the peer may hold an ack that long on purpose.
func TestResendDelayAddsPeerMaxAckDelay(t *testing.T) {
	ms := time.Millisecond
	e := NewEndpoint(Config{InitialRTT: 100 * ms, PeerMaxAckDelay: 10 * ms})
	if got := e.ResendDelay(); got != 110*ms {
		t.Fatalf("ResendDelay before any sample %v, want 110ms", got)
	}
	sendAndAck(e, 0, 40*ms, []Item{{Seq: 1}}, 0)
	// SRTT 40 ms, RTTVAR 20 ms: 40 + 4 × 20 + 10.
	if got := e.ResendDelay(); got != 130*ms {
		t.Fatalf("ResendDelay %v, want 130ms", got)
	}
}

// TestSampleRTTFromPings: a round trip measured by a ping goes into the same estimates as one
// from an ack, with the time the peer held the ping taken off as QUIC takes an ACK frame's
// ack_delay: never from the first sample, at most the peer's maximum ack delay, and never
// below the smallest round trip seen.
func TestSampleRTTFromPings(t *testing.T) {
	ms := time.Millisecond
	steps := []struct {
		name          string
		rtt, held     time.Duration
		sample, least time.Duration // the sample taken (LatestRTT), and MinRTT after it
	}{
		{"first sample: taken whole", 50 * ms, 4 * ms, 50 * ms, 50 * ms},
		{"held taken off", 60 * ms, 4 * ms, 56 * ms, 50 * ms},
		{"held beyond the maximum ack delay: 10 ms of it", 80 * ms, 500 * ms, 70 * ms, 50 * ms},
		{"held that would go below the smallest: kept", 55 * ms, 9 * ms, 55 * ms, 50 * ms},
		{"negative held: none", 52 * ms, -30 * ms, 52 * ms, 50 * ms},
		{"negative round trip (a clock went back): 0", -5 * ms, 0, 0, 0},
	}
	e := NewEndpoint(Config{PeerMaxAckDelay: 10 * ms})
	for i, st := range steps {
		e.SampleRTT(st.rtt, st.held)
		s := e.Stats()
		if s.LatestRTT != st.sample || s.MinRTT != st.least || s.RTTSamples != uint64(i+1) {
			t.Errorf("%s: sample %v, smallest %v, samples %d; want %v, %v, %d",
				st.name, s.LatestRTT, s.MinRTT, s.RTTSamples, st.sample, st.least, i+1)
		}
	}
}

// TestRTTNoSampleFromDiscardedPackets: a packet in flight when DiscardRTTSamples is called may
// have waited at the peer before it could be read (a new connection's client keeps what comes
// before the handshake's last step), so its ack gives no sample; the packets sent after it do.
func TestRTTNoSampleFromDiscardedPackets(t *testing.T) {
	ms := time.Millisecond
	e := NewEndpoint(Config{})
	h := e.NextHeader()
	e.Sent(base, h, 10, []Item{{Seq: 1}})
	e.DiscardRTTSamples()
	// The peer read it 700 ms later, when it could, and acknowledged it at once.
	e.Received(base.Add(800*ms), wire.Header{Seq: 0, Ack: h.Seq, AckBits: 1}, 10)
	if s := e.Stats(); s.RTTSamples != 0 || s.PacketsAcked != 1 {
		t.Fatalf("samples %d (latest %v), acked %d: want the packet acked and no sample", s.RTTSamples, s.LatestRTT, s.PacketsAcked)
	}
	if s := sendAndAck(e, 900*ms, 1000*ms, []Item{{Seq: 2}}, 1); s.RTTSamples != 1 || s.LatestRTT != 100*ms {
		t.Fatalf("samples %d latest %v, want 1 and 100ms from the packet sent after", s.RTTSamples, s.LatestRTT)
	}
}
