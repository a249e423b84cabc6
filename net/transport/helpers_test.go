package transport

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/wire"
)

// TestMain checks, once every test has ended, that none left a goroutine behind. A test that
// runs alone checks it at its own end too (verifyNoLeaks).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sideBySide is set once the tests that run side by side (runParallel) have begun: they run
// after every other test has ended, each beside others whose goroutines a check of its own
// would see, so from then on TestMain's check is the one.
var sideBySide atomic.Bool

// runParallel makes t a test that runs beside the others (t.Parallel): those that mostly wait
// for the wall clock (a timeout, an expiry) or keep a core busy for seconds.
func runParallel(t *testing.T) {
	t.Parallel()
	sideBySide.Store(true)
}

// verifyNoLeaks checks that the test left no goroutine behind, unless tests run side by side
// now (TestMain checks them).
func verifyNoLeaks(t *testing.T) {
	t.Helper()
	if !sideBySide.Load() {
		goleak.VerifyNone(t)
	}
}

// every runs f on l's loop once per interval until the returned stop is called; stop waits
// for the feeding goroutine to end. It is how a test plays the game: the game's intents reach
// the connection only through the owner loop.
func every(l *loop, interval time.Duration, f func(now time.Time)) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			select {
			case <-quit:
				return
			case l.do <- f:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }
}

// errorLog collects failures reported from the owner loops, where t.Fatal must not be
// called. It keeps the first few and counts the rest.
type errorLog struct {
	mu    sync.Mutex
	first []string
	n     int
}

func (e *errorLog) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	if len(e.first) < 10 {
		e.first = append(e.first, fmt.Sprintf(format, args...))
	}
}

func (e *errorLog) check(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.first {
		t.Error(s)
	}
	if e.n > len(e.first) {
		t.Errorf("... and %d more failures", e.n-len(e.first))
	}
}

func (e *errorLog) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

// tapConn is a client's socket with a tap: it keeps a copy of every datagram the client
// writes (valid packets to replay, truncate and corrupt), and lets the test write datagrams
// from the client's address that the client never made (inject).
type tapConn struct {
	net.PacketConn
	mu      sync.Mutex
	written [][]byte
	sent    map[string]int // how many times the client itself wrote each datagram
	keep    bool
}

func newTapConn(t *testing.T, keep bool) *tapConn {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &tapConn{PacketConn: pc, sent: make(map[string]int), keep: keep}
}

func (c *tapConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	c.mu.Lock()
	c.sent[string(b)]++
	if c.keep && len(c.written) < 4096 {
		c.written = append(c.written, append([]byte(nil), b...))
	}
	c.mu.Unlock()
	return c.PacketConn.WriteTo(b, addr)
}

// inject writes b from the client's address without recording it as the client's own.
func (c *tapConn) inject(b []byte, to netip.AddrPort) error {
	_, err := c.PacketConn.WriteTo(b, net.UDPAddrFromAddrPort(to))
	return err
}

// claim reports whether a datagram that arrived from the client's address is one the client
// wrote and that has not been claimed before (so an injected replay of it counts as bad once
// the original has arrived).
func (c *tapConn) claim(b []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := string(b)
	if c.sent[k] == 0 {
		return false
	}
	c.sent[k]--
	return true
}

func (c *tapConn) captured() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.written...)
}

func (c *tapConn) addr() netip.AddrPort { return c.LocalAddr().(*net.UDPAddr).AddrPort() }

// rawPeer is a bare UDP socket that plays a client (or an attacker) by hand.
type rawPeer struct {
	t    *testing.T
	pc   *net.UDPConn
	to   netip.AddrPort
	sent int // bytes sent
}

func newRawPeer(t *testing.T, to netip.AddrPort) *rawPeer {
	t.Helper()
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	return &rawPeer{t: t, pc: pc, to: to}
}

func (r *rawPeer) send(b []byte) {
	r.t.Helper()
	if _, err := r.pc.WriteToUDPAddrPort(b, r.to); err != nil {
		r.t.Fatal(err)
	}
	r.sent += len(b)
}

// seal builds a datagram with build (which appends the type byte and body) and seals it in the
// plain frame with key (0: the handshake's).
func seal(key uint64, build func(b []byte) []byte) []byte {
	d := build(wire.BeginDatagram(nil))
	wire.SealDatagram(d, key)
	return d
}

// sealWith builds a datagram with build and seals it with a connection's sealer.
func sealWith(s *sealer, build func(b []byte) []byte) []byte {
	return s.Seal(build(wire.BeginSealed(nil)), 0)
}

// rawKeys is the key pair of every raw peer's handshake (the server draws a fresh one of its
// own for each connection, so the connections' keys differ all the same).
var rawKeys = newKeyPair(rand.Reader)

// rawSealer is the client side of a connection a raw peer opened by hand: what it derives from
// the server's Accepted.
func rawSealer(t *testing.T, r *rawPeer, acc wire.Accepted) *sealer {
	t.Helper()
	k, err := rawKeys.connKeys(r.to, &acc.PublicKey, true)
	if err != nil {
		t.Fatal(err)
	}
	return newSealer(&k.Send, &k.Recv)
}

func mustBuild(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func connectRequest(player uuid.UUID, name string) []byte {
	return seal(0, func(b []byte) []byte {
		return mustBuild(wire.AppendConnectRequest(b, &wire.ConnectRequest{Version: wire.ProtocolVersion, Player: wire.PlayerID(player), Name: name}))
	})
}

func challengeResponse(player uuid.UUID, name string, ch wire.Challenge) []byte {
	return seal(0, func(b []byte) []byte {
		return mustBuild(wire.AppendChallengeResponse(b, &wire.ChallengeResponse{Version: wire.ProtocolVersion, Player: wire.PlayerID(player), Name: name, Challenge: ch, PublicKey: rawKeys.public}))
	})
}

// reply is a datagram the server sent to a raw peer, opened if it is a handshake answer (in
// the plain frame).
type reply struct {
	size int
	typ  wire.PacketType // TypeInvalid if it does not open with key 0
	body []byte
}

// read returns the next datagram from the server, or ok false if none comes within wait.
func (r *rawPeer) read(wait time.Duration) (rep reply, ok bool) {
	r.t.Helper()
	buf := make([]byte, 2048)
	if err := r.pc.SetReadDeadline(time.Now().Add(wait)); err != nil {
		r.t.Fatal(err)
	}
	n, from, err := r.pc.ReadFromUDPAddrPort(buf)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return reply{}, false
		}
		r.t.Fatal(err)
	}
	if from != r.to {
		r.t.Fatalf("datagram from %v, want only %v", from, r.to)
	}
	rep.size = n
	if body, err := wire.OpenDatagram(buf[:n], 0); err == nil {
		rep.typ, _ = wire.PeekType(body)
		rep.body = body
	}
	return rep, true
}

// expect reads until a handshake answer of type typ comes (skipping datagrams of the
// connection, which a connected raw peer gets too) and checks that no handshake answer on the
// way is larger than limit bytes.
func (r *rawPeer) expect(typ wire.PacketType, limit int) reply {
	r.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		rep, ok := r.read(time.Until(deadline))
		if !ok {
			r.t.Fatalf("no %v from the server within 5s", typ)
		}
		if rep.typ == wire.TypeInvalid {
			continue // sealed with the connection's keys: not a handshake answer
		}
		if rep.size > limit {
			r.t.Errorf("the server answered a %d-byte datagram with a %d-byte %v", limit, rep.size, rep.typ)
		}
		if rep.typ == typ {
			return rep
		}
		r.t.Fatalf("got %v, want %v", rep.typ, typ)
	}
}

// countingHost counts the datagrams the owner loop has finished handling.
type countingHost struct {
	Host
	handled atomic.Int64
}

func (h *countingHost) Handle(now time.Time, d Datagram) {
	h.Host.Handle(now, d)
	h.handled.Add(1)
}

// playerID makes a recognisable player id for client i of a test.
func playerID(test byte, i int) uuid.UUID {
	var id uuid.UUID
	id[0], id[1] = 0xAC, test
	binary.BigEndian.PutUint32(id[12:], uint32(i))
	return id
}

func playerIndex(id uuid.UUID) int { return int(binary.BigEndian.Uint32(id[12:])) }

// linkLoss is a link that loses percent of the datagrams.
func linkLoss(percent float64) linksim.Settings { return linksim.Settings{LossPercent: percent} }
