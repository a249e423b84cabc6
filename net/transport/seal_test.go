package transport

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

func TestReplayRecord(t *testing.T) {
	var w ReplayRecord
	accept := func(c uint64, want bool) {
		t.Helper()
		if got := w.Accept(c); got != want {
			t.Fatalf("accept(%d) = %v, want %v (next %d)", c, got, want, w.next)
		}
	}
	accept(0, true)
	accept(0, false)
	accept(2, true) // 1 is late
	accept(1, true)
	accept(1, false)
	accept(2, false)
	// A jump within the window: what lies between is still new, what was seen is still seen.
	accept(700, true)
	accept(699, true)
	accept(2, false)
	accept(3, true)
	// The window's edge: 1,023 behind the largest is inside, 1,024 behind is too old.
	accept(1026, true)
	accept(1026-1023, false) // 3, seen
	accept(1026-1022, true)  // 4
	accept(1026-1024, false) // 2, too old (and seen)
	w = ReplayRecord{}
	accept(5000, true)
	accept(5000-1023, true)
	accept(5000-1024, false) // never seen, but too old to tell
	// A jump past the whole window forgets everything in it: nothing old comes back as new.
	accept(100_000, true)
	accept(5000, false)
	accept(100_000-1023, true)
	accept(100_000-1023, false)
	// Every counter once, in a shuffled order within a window's reach: each accepted once.
	w = ReplayRecord{}
	seen := map[uint64]bool{}
	for i := range uint64(20_000) {
		c := i + uint64((i*7919)%500) // up to 500 ahead of the order
		if !seen[c] {
			seen[c] = true
			accept(c, true)
		}
		accept(c, false)
	}
}

// tape is a Writer that keeps every datagram an endpoint writes until the harness takes it.
type tape struct{ out [][]byte }

func (t *tape) WriteTo(b []byte, _ netip.AddrPort) error {
	t.out = append(t.out, bytes.Clone(b))
	return nil
}

func (t *tape) take() [][]byte {
	out := t.out
	t.out = nil
	return out
}

// sealedPair is a server and a client joined by hand in virtual time, with what an observer
// on the path sees: every datagram each side sent, and the keys of the connection (from the
// key log) to read them as a test.
type sealedPair struct {
	t                *testing.T
	now              time.Time
	srv              *Server
	cli              *Client
	srvAddr, cliAddr netip.AddrPort
	srvOut, cliOut   tape
	up, down         [][]byte // every datagram client → server and server → client
	upKey, downKey   *wire.SealKey
	srvKeys          ConnKeys
	got              []string // the payloads of messages the server received
	cliGot           []string
}

func newSealedPair(t *testing.T) *sealedPair { return newSealedPairWith(t, Config{}) }

// newSealedPairWith is newSealedPair with cfg on both sides (the pair sets KeyLog and
// OnMessage).
func newSealedPairWith(t *testing.T, cfg Config) *sealedPair {
	t.Helper()
	p := &sealedPair{t: t, now: time.Unix(1_700_000_000, 0),
		srvAddr: netip.MustParseAddrPort("10.0.0.1:7777"), cliAddr: netip.MustParseAddrPort("10.0.0.2:40000")}
	scfg, ccfg := cfg, cfg
	scfg.KeyLog = func(k ConnKeys) { p.srvKeys = k }
	scfg.OnMessage = func(_ *Peer, _ time.Time, m *message.Message) { p.got = append(p.got, string(m.Payload)) }
	ccfg.OnMessage = func(_ *Peer, _ time.Time, m *message.Message) { p.cliGot = append(p.cliGot, string(m.Payload)) }
	p.srv = NewServer(ServerConfig{Config: scfg}, &p.srvOut)
	var err error
	p.cli, err = NewClient(p.srvAddr, ClientConfig{Name: "ann", Config: ccfg}, &p.cliOut)
	if err != nil {
		t.Fatal(err)
	}
	p.runUntil(func() bool { return p.cli.State() == Connected && len(p.srv.Peers()) == 1 })
	p.upKey, p.downKey = wire.NewSealKey(&p.srvKeys.Recv), wire.NewSealKey(&p.srvKeys.Send)
	p.run(300 * time.Millisecond)
	return p
}

// step ticks both sides and delivers what they sent, one millisecond later.
func (p *sealedPair) step() {
	p.cli.Tick(p.now)
	p.srv.Tick(p.now)
	p.now = p.now.Add(time.Millisecond)
	for _, d := range p.cliOut.take() {
		p.up = append(p.up, d)
		p.srv.Handle(p.now, Datagram{From: p.cliAddr, Data: bytes.Clone(d)})
	}
	for _, d := range p.srvOut.take() {
		p.down = append(p.down, d)
		p.cli.Handle(p.now, Datagram{From: p.srvAddr, Data: bytes.Clone(d)})
	}
}

func (p *sealedPair) run(d time.Duration) {
	for end := p.now.Add(d); p.now.Before(end); {
		p.step()
	}
}

func (p *sealedPair) runUntil(cond func() bool) {
	p.t.Helper()
	for range 5000 {
		if cond() {
			return
		}
		p.step()
	}
	p.t.Fatal("not within 5 s of virtual time")
}

// inject hands the server a datagram from the client's address that the client never sent.
func (p *sealedPair) inject(d []byte) {
	p.srv.Handle(p.now, Datagram{From: p.cliAddr, Data: bytes.Clone(d)})
}

// read opens a datagram as the observer who holds the keys: its packet, or nil.
func read(k *wire.SealKey, d []byte, next uint64) []byte {
	if _, err := wire.OpenDatagram(d, 0); err == nil {
		return nil // a handshake datagram
	}
	packet, _, err := k.Open(nil, d, next)
	if err != nil {
		return nil
	}
	return packet
}

// find returns the first datagram of ds whose packet is of type typ and holds want.
func find(k *wire.SealKey, ds [][]byte, typ wire.PacketType, want string) []byte {
	for _, d := range ds {
		if p := read(k, d, 0); p != nil && wire.PacketType(p[0]) == typ && bytes.Contains(p, []byte(want)) {
			return d
		}
	}
	return nil
}

// count counts the datagrams of ds of type typ.
func count(k *wire.SealKey, ds [][]byte, typ wire.PacketType) int {
	n := 0
	for _, d := range ds {
		if p := read(k, d, 0); p != nil && wire.PacketType(p[0]) == typ {
			n++
		}
	}
	return n
}

func (p *sealedPair) serverRejected() Rejections { return p.srv.StatsNow().Rejected }

// TestHandshakeCarriesNoKey: the keys of a connection never travel. An observer who sees the
// whole handshake (both public keys) cannot open a datagram of the connection; before the
// key exchange, Accepted carried the key itself.
func TestHandshakeCarriesNoKey(t *testing.T) {
	p := newSealedPair(t)
	// An idle connection sends no Data datagram (its pings keep it alive): a message each way.
	if _, err := p.cli.Peer().Conn().SendGuaranteed(p.now, []byte("ann: hello"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.srv.Peers()[0].Conn().SendGuaranteed(p.now, []byte("welcome"), nil, nil); err != nil {
		t.Fatal(err)
	}
	p.run(100 * time.Millisecond)
	k := p.srvKeys
	for _, d := range append(append([][]byte(nil), p.up...), p.down...) {
		for _, key := range [][]byte{k.Send[:], k.Recv[:], k.Send[:8], k.Recv[:8], k.Send[24:], k.Recv[24:]} {
			if bytes.Contains(d, key) {
				t.Fatalf("a datagram carries a piece of a key: %x", d)
			}
		}
	}
	if count(p.upKey, p.up, wire.TypeData) == 0 || count(p.downKey, p.down, wire.TypeData) == 0 {
		t.Error("the connection's own keys open none of its Data datagrams")
	}
}

// TestForgedDatagramRefused plays the forgery the CRC allowed: an observer takes a datagram
// that carried a chat line, changes the line (ChaCha20 is a stream cipher: flipping a bit of
// the ciphertext flips the same bit of the plaintext), and sends it as the client. The tag
// gives it away; so does any other change. Each is dropped and counted as wrong_key, the
// server hears no forged line, and the connection goes on.
func TestForgedDatagramRefused(t *testing.T) {
	p := newSealedPair(t)
	if _, err := p.cli.Peer().Conn().SendGuaranteed(p.now, []byte("ann: hello"), nil, nil); err != nil {
		t.Fatal(err)
	}
	p.runUntil(func() bool { return len(p.got) == 1 })
	d := find(p.upKey, p.up, wire.TypeData, "ann: hello")
	if d == nil {
		t.Fatal("the datagram with the chat line was not seen")
	}
	packet := read(p.upKey, d, 0)
	at := wire.CounterSize + bytes.Index(packet, []byte("hello"))
	forged := bytes.Clone(d)
	for i, c := range []byte("hello") {
		forged[at+i] ^= c ^ "jello"[i]
	}
	variants := map[string][]byte{"a chat line changed": forged}
	for _, i := range []int{0, 1, wire.CounterSize, len(d) - wire.TagSize - 1, len(d) - 1} {
		v := bytes.Clone(d)
		v[i] ^= 0x01
		variants[fmt.Sprintf("bit 0 of byte %d of %d", i, len(d))] = v
	}
	variants["cut short"] = d[:len(d)-1]
	variants["another connection's keys"] = sealWith(newSealer(new([wire.KeySize]byte), new([wire.KeySize]byte)), func(b []byte) []byte { return append(b, packet...) })
	before := p.serverRejected()
	for _, v := range variants {
		p.inject(v)
	}
	p.run(100 * time.Millisecond)
	after := p.serverRejected().Minus(before)
	if after.WrongKey != uint64(len(variants)) || after.Total() != after.WrongKey {
		t.Errorf("rejected %+v, want %d wrong_key and nothing else", after, len(variants))
	}
	if len(p.got) != 1 {
		t.Errorf("the server received %q", p.got)
	}
	if _, err := p.cli.Peer().Conn().SendGuaranteed(p.now, []byte("ann: still here"), nil, nil); err != nil {
		t.Fatal(err)
	}
	p.runUntil(func() bool { return len(p.got) == 2 })
	if p.got[1] != "ann: still here" || p.cli.State() != Connected {
		t.Errorf("after the forgeries: %q, client %v", p.got, p.cli.State())
	}
}

// TestReplayRefused: a copy of any datagram of the connection, Ping included, is dropped and
// counted as a replay. The server answers no replayed Ping (a Ping was answered with 1.94×
// its bytes, to whoever sent it from the client's address), delivers no message twice, and
// a copy older than the replay window is refused as well.
func TestReplayRefused(t *testing.T) {
	p := newSealedPair(t)
	if _, err := p.cli.Peer().Conn().SendGuaranteed(p.now, []byte("ann: gg"), nil, nil); err != nil {
		t.Fatal(err)
	}
	p.runUntil(func() bool { return len(p.got) == 1 })
	p.run(1100 * time.Millisecond) // a ping each way
	ping := find(p.upKey, p.up, wire.TypePing, "")
	chat := find(p.upKey, p.up, wire.TypeData, "ann: gg")
	keepalive := p.up[len(p.up)-1]
	if ping == nil || chat == nil || read(p.upKey, keepalive, 0) == nil {
		t.Fatal("the datagrams to replay were not seen")
	}
	pongsBefore := count(p.downKey, p.down, wire.TypePong)
	before := p.serverRejected()
	const copies = 10
	for range copies {
		p.inject(ping)
		p.inject(chat)
		p.inject(keepalive)
	}
	p.step()
	after := p.serverRejected().Minus(before)
	if after.Replay != 3*copies || after.Total() != after.Replay {
		t.Errorf("rejected %+v, want %d replays and nothing else", after, 3*copies)
	}
	if n := count(p.downKey, p.down, wire.TypePong); n != pongsBefore {
		t.Errorf("%d pongs answered the replayed pings", n-pongsBefore)
	}
	if len(p.got) != 1 {
		t.Errorf("the server received %q", p.got)
	}

	// The client refuses copies of the server's datagrams the same way.
	pong := find(p.downKey, p.down, wire.TypePong, "")
	down := p.down[len(p.down)-1]
	cBefore := p.cli.Stats().Rejected
	for range copies {
		p.cli.Handle(p.now, Datagram{From: p.srvAddr, Data: bytes.Clone(pong)})
		p.cli.Handle(p.now, Datagram{From: p.srvAddr, Data: bytes.Clone(down)})
	}
	p.run(200 * time.Millisecond)
	if got := p.cli.Stats().Rejected.Minus(cBefore); got.Replay != 2*copies {
		t.Errorf("client rejected %+v, want %d replays", got, 2*copies)
	}

	// Old copies: once more than a window of datagrams went by, the first ones are too old
	// to tell apart, and refused.
	first := len(p.up)
	for i := range 1100 {
		if _, err := p.cli.Peer().Conn().SendGuaranteed(p.now, []byte{byte(i)}, nil, nil); err != nil {
			t.Fatal(err)
		}
		p.step()
	}
	p.runUntil(func() bool { return len(p.got) == 1101 })
	before = p.serverRejected()
	p.inject(p.up[first])
	p.inject(ping)
	after = p.serverRejected().Minus(before)
	if after.Replay != 2 || after.Total() != 2 {
		t.Errorf("old copies: rejected %+v, want 2 replays", after)
	}
	if st := p.srv.StatsNow(); len(st.Peers) != 1 || st.Peers[0].Replayed != 3*copies+2 {
		t.Errorf("the server's peer counted %v replays", st.Peers)
	}
	if p.cli.State() != Connected || len(p.got) != 1101 {
		t.Errorf("client %v, server received %d messages", p.cli.State(), len(p.got))
	}
}

// TestSealedReceiveNoAlloc: the server's path for a Data datagram of a connection (open,
// replay record, packet layer, acks) allocates nothing.
func TestSealedReceiveNoAlloc(t *testing.T) {
	p := newSealedPair(t)
	// Keepalives as the client would go on to send them, sealed with its key and counter; the
	// server sees each once, in order, while measured.
	seal := newSealer(&p.srvKeys.Recv, &p.srvKeys.Send)
	seal.sent = p.cli.Peer().seal.sent
	seq := p.cli.Peer().Conn().Stats().Packet.Seq
	var fresh [][]byte
	for i := range 200 {
		h := wire.Header{Type: wire.TypeData, Seq: seq + uint16(i)}
		fresh = append(fresh, seal.Seal(wire.AppendHeader(seal.Begin(nil), h), 0))
	}
	next := 0
	allocs := testing.AllocsPerRun(150, func() {
		p.srv.Handle(p.now, Datagram{From: p.cliAddr, Data: fresh[next]})
		next++
	})
	if allocs != 0 {
		t.Errorf("the server allocates %v times per datagram", allocs)
	}
	if st := p.srv.StatsNow(); st.Rejected.Total() != 0 || st.Peers[0].PacketsReceived < 150 {
		t.Errorf("rejected %+v, %d packets received", st.Rejected, st.Peers[0].PacketsReceived)
	}
}

// BenchmarkSealedDatagram is the cost of the sealed frame per datagram on a connection, both
// ends: the sender's sealer seals a packet (the counter, the encryption, the tag) and the
// receiver's opens it (the counter's expansion, the tag, the decryption, the replay record).
// bytes-added is what the frame adds to a packet.
func BenchmarkSealedDatagram(b *testing.B) {
	var toServer, toClient [wire.KeySize]byte
	rand.Read(toServer[:])
	rand.Read(toClient[:])
	for _, size := range []struct {
		name   string
		packet int // from the type byte on
	}{{"keepalive", 5}, {"ping", 13}, {"1200B", 1200 - wire.SealedOverhead}} {
		b.Run(size.name, func(b *testing.B) {
			cli, srv := newSealer(&toServer, &toClient), newSealer(&toClient, &toServer)
			buf := make([]byte, 0, wire.MaxDatagram)
			rbuf := make([]byte, 0, wire.MaxDatagram)
			packet := make([]byte, size.packet)
			packet[0] = byte(wire.TypeData)
			b.SetBytes(int64(size.packet))
			b.ReportAllocs()
			for b.Loop() {
				d := cli.Seal(append(cli.Begin(buf[:0]), packet...), 0)
				if _, err := srv.open(rbuf[:0], d); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(wire.SealedOverhead), "bytes-added")
		})
	}
}
