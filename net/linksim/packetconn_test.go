package linksim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// These tests run on real loopback UDP and the real clock. They assert what holds whatever
// the scheduler does: lower bounds on delays, never upper bounds, and waits that end on an
// event (with a generous deadline only to fail instead of hanging).

// patience bounds every wait for something that should happen promptly.
const patience = 10 * time.Second

// noLeaks checks, after the test and its other cleanups, that no goroutine is left over. Call
// it first in a test so that its cleanup runs last.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) })
}

// listenUDP opens a UDP socket on a free loopback port, closed when the test ends (a second
// close after the test closed it is harmless).
func listenUDP(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// wrapUDP wraps a fresh loopback socket, closed when the test ends.
func wrapUDP(t *testing.T, seed uint64, out, in Settings) *PacketConn {
	t.Helper()
	p := WrapPacketConn(listenUDP(t), seed, out, in)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// readOne reads one datagram, failing the test if none comes within patience.
func readOne(t *testing.T, pc net.PacketConn) (string, net.Addr) {
	t.Helper()
	if err := pc.SetReadDeadline(time.Now().Add(patience)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048)
	n, addr, err := pc.ReadFrom(buf)
	if err != nil {
		t.Fatalf("ReadFrom: %v", err)
	}
	return string(buf[:n]), addr
}

func writeOne(t *testing.T, pc net.PacketConn, msg string, to net.Addr) {
	t.Helper()
	if _, err := pc.WriteTo([]byte(msg), to); err != nil {
		t.Fatalf("WriteTo %q: %v", msg, err)
	}
}

// waitFor polls cond until it holds, failing the test after patience.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func sameAddr(a, b net.Addr) bool { return a != nil && b != nil && a.String() == b.String() }

// TestPacketConnDelivers sends datagrams through a wrapped sender to a wrapped receiver, with
// duplication on either side or both, and checks that every datagram arrives as many times as
// the settings say, from the right address, and in order when nothing delays it.
func TestPacketConnDelivers(t *testing.T) {
	dup := Settings{DupPercent: 100}
	tests := []struct {
		name                string
		out, in             Settings // the sender's outgoing and the receiver's incoming direction
		outCopies, inCopies int      // how many times each direction delivers a datagram
	}{
		{"unimpaired", Settings{}, Settings{}, 1, 1},
		{"outgoing duplicated", dup, Settings{}, 2, 1},
		{"incoming duplicated", Settings{}, dup, 1, 2},
		{"both duplicated", dup, dup, 2, 2},
	}
	const n = 50
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			sender := wrapUDP(t, 1, tt.out, Settings{})
			receiver := wrapUDP(t, 2, Settings{}, tt.in)
			for i := range n {
				writeOne(t, sender, fmt.Sprintf("datagram %02d", i), receiver.LocalAddr())
			}
			wantCopies := tt.outCopies * tt.inCopies
			var got []string
			for range n * wantCopies {
				msg, from := readOne(t, receiver)
				if !sameAddr(from, sender.LocalAddr()) {
					t.Fatalf("datagram %q from %v, want %v", msg, from, sender.LocalAddr())
				}
				got = append(got, msg)
			}
			// With no delay the copies come right after each other, in send order.
			for i, msg := range got {
				if want := fmt.Sprintf("datagram %02d", i/wantCopies); msg != want {
					t.Fatalf("datagram %d is %q, want %q", i, msg, want)
				}
			}
			out, _ := sender.Stats()
			if out.Offered != n || out.Delivered != uint64(n*tt.outCopies) || out.Queued != 0 {
				t.Errorf("sender stats %+v, want %d offered, %d delivered", out, n, n*tt.outCopies)
			}
			_, in := receiver.Stats()
			if in.Offered != uint64(n*tt.outCopies) || in.Delivered != uint64(n*wantCopies) || in.Queued != 0 {
				t.Errorf("receiver stats %+v, want %d offered, %d delivered", in, n*tt.outCopies, n*wantCopies)
			}
			checkStatsInvariant(t, out)
			checkStatsInvariant(t, in)
		})
	}
}

// TestPacketConnInterworksWithPlainSockets puts a wrapped socket opposite plain ones: what it
// writes reaches a plain socket, and it reads what plain sockets write, keeping each
// datagram's source address even when jitter reorders them.
func TestPacketConnInterworksWithPlainSockets(t *testing.T) {
	noLeaks(t)
	jittery := Settings{Latency: 2 * time.Millisecond, Jitter: 2 * time.Millisecond}
	wrapped := wrapUDP(t, 7, jittery, jittery)
	plain := []*net.UDPConn{listenUDP(t), listenUDP(t)}

	const perSender = 20
	for range perSender {
		for k, c := range plain {
			if _, err := c.WriteTo(fmt.Appendf(nil, "%d", k), wrapped.LocalAddr()); err != nil {
				t.Fatal(err)
			}
		}
	}
	counts := make([]int, len(plain))
	for range perSender * len(plain) {
		msg, from := readOne(t, wrapped)
		var k int
		if _, err := fmt.Sscanf(msg, "%d", &k); err != nil || k < 0 || k >= len(plain) {
			t.Fatalf("unexpected datagram %q", msg)
		}
		if !sameAddr(from, plain[k].LocalAddr()) {
			t.Fatalf("datagram of sender %d came from %v, want %v", k, from, plain[k].LocalAddr())
		}
		counts[k]++
	}
	for k, c := range counts {
		if c != perSender {
			t.Errorf("sender %d: %d datagrams, want %d", k, c, perSender)
		}
	}

	writeOne(t, wrapped, "to a plain socket", plain[0].LocalAddr())
	if msg, from := readOne(t, plain[0]); msg != "to a plain socket" || !sameAddr(from, wrapped.LocalAddr()) {
		t.Errorf("plain socket read %q from %v", msg, from)
	}
}

// TestPacketConnTotalLoss: with 100% loss on either side nothing gets through. To see that
// without waiting for nothing, the test then heals the link and sends a marker: the marker
// must be the first datagram the receiver reads.
func TestPacketConnTotalLoss(t *testing.T) {
	lost := Settings{LossPercent: 100}
	tests := []struct {
		name    string
		out, in Settings
	}{
		{"outgoing", lost, Settings{}},
		{"incoming", Settings{}, lost},
	}
	const n = 50
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			sender := wrapUDP(t, 1, tt.out, Settings{})
			receiver := wrapUDP(t, 2, Settings{}, tt.in)
			for i := range n {
				writeOne(t, sender, fmt.Sprint("lost ", i), receiver.LocalAddr())
			}
			if tt.in.LossPercent > 0 {
				// The datagrams travel; wait until the receiver has read (and dropped) them
				// all before healing its side.
				waitFor(t, "the receiver to read every datagram", func() bool {
					_, in := receiver.Stats()
					return in.Offered == n
				})
			}
			if err := sender.SetSettings(Settings{}, Settings{}); err != nil {
				t.Fatal(err)
			}
			if err := receiver.SetSettings(Settings{}, Settings{}); err != nil {
				t.Fatal(err)
			}
			writeOne(t, sender, "marker", receiver.LocalAddr())
			if msg, _ := readOne(t, receiver); msg != "marker" {
				t.Fatalf("first datagram through is %q, want the marker", msg)
			}
			out, _ := sender.Stats()
			_, in := receiver.Stats()
			if dropped := out.Dropped + in.Dropped; dropped != n {
				t.Errorf("%d dropped, want %d (out %+v, in %+v)", dropped, n, out, in)
			}
		})
	}
}

// TestPacketConnLatency: a datagram never arrives sooner than the latency of either side.
func TestPacketConnLatency(t *testing.T) {
	const latency = 30 * time.Millisecond
	slow := Settings{Latency: latency, Jitter: latency / 2}
	tests := []struct {
		name    string
		out, in Settings
		atLeast time.Duration
	}{
		{"outgoing", slow, Settings{}, latency / 2},
		{"incoming", Settings{}, slow, latency / 2},
		{"both", slow, slow, latency},
		{"fixed", Settings{Latency: latency}, Settings{Latency: latency}, 2 * latency},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			sender := wrapUDP(t, 1, tt.out, Settings{})
			receiver := wrapUDP(t, 2, Settings{}, tt.in)
			for i := range 5 {
				start := time.Now()
				writeOne(t, sender, fmt.Sprint("ping ", i), receiver.LocalAddr())
				msg, _ := readOne(t, receiver)
				if took := time.Since(start); took < tt.atLeast {
					t.Errorf("%q arrived after %v, want at least %v", msg, took, tt.atLeast)
				}
			}
		})
	}
}

// TestPacketConnFlush: Flush waits for the delayed outgoing datagrams to be written, each at
// its time, so that they reach the peer although the conn is closed right after; with a limit
// shorter than the latency it gives up and reports false.
func TestPacketConnFlush(t *testing.T) {
	noLeaks(t)
	const latency = 100 * time.Millisecond
	receiver := listenUDP(t)
	sender := WrapPacketConn(listenUDP(t), 1, Settings{Latency: latency}, Settings{})
	if !sender.Flush(time.Second) {
		t.Error("Flush with nothing in flight: false")
	}
	writeOne(t, sender, "slow", receiver.LocalAddr())
	if sender.Flush(latency / 10) {
		t.Error("Flush shorter than the latency: true")
	}
	writeOne(t, sender, "bye", receiver.LocalAddr())
	start := time.Now()
	if !sender.Flush(time.Second) {
		t.Error("Flush: datagrams left after a second")
	}
	if took := time.Since(start); took < latency/2 {
		t.Errorf("Flush returned after %v, before the datagram was due", took)
	}
	if err := sender.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"slow", "bye"} {
		if got, _ := readOne(t, receiver); got != want {
			t.Errorf("received %q, want %q", got, want)
		}
	}
}

// TestPacketConnSettingsChangeWhileRunning: a datagram sent into a very slow link stays in
// flight while the link is made fast, and a datagram sent afterwards gets through at once.
func TestPacketConnSettingsChangeWhileRunning(t *testing.T) {
	noLeaks(t)
	stuck := Settings{Latency: time.Hour}
	sender := wrapUDP(t, 1, stuck, Settings{})
	receiver := wrapUDP(t, 2, Settings{}, Settings{})

	writeOne(t, sender, "slow", receiver.LocalAddr())
	fast := Settings{Jitter: time.Millisecond}
	if err := sender.SetSettings(fast, Settings{}); err != nil {
		t.Fatal(err)
	}
	if out, in := sender.Settings(); out != fast || in != (Settings{}) {
		t.Fatalf("Settings() = %+v, %+v", out, in)
	}
	writeOne(t, sender, "fast", receiver.LocalAddr())
	if msg, _ := readOne(t, receiver); msg != "fast" {
		t.Fatalf("read %q, want the datagram sent after the change", msg)
	}
	waitFor(t, "the fast datagram to leave", func() bool {
		out, _ := sender.Stats()
		return out.Delivered == 1
	})
	if out, _ := sender.Stats(); out.Queued != 1 {
		t.Errorf("the slow datagram should still be in flight: %+v", out)
	}

	// Invalid settings change nothing.
	if err := sender.SetSettings(Settings{}, Settings{LossPercent: 101}); !errors.Is(err, ErrInvalidSettings) {
		t.Errorf("SetSettings with LossPercent 101: err = %v, want ErrInvalidSettings", err)
	}
	if err := sender.SetSettings(Settings{Latency: -1}, Settings{}); !errors.Is(err, ErrInvalidSettings) {
		t.Errorf("SetSettings with negative latency: err = %v, want ErrInvalidSettings", err)
	}
	if out, in := sender.Settings(); out != fast || in != (Settings{}) {
		t.Errorf("after invalid SetSettings: %+v, %+v, want the old settings", out, in)
	}
}

// TestPacketConnCloseUnblocksReadFrom: Close wakes a waiting ReadFrom with net.ErrClosed,
// stops both goroutines (noLeaks) even with datagrams in flight either way, and every later
// call fails with net.ErrClosed.
func TestPacketConnCloseUnblocksReadFrom(t *testing.T) {
	noLeaks(t)
	stuck := Settings{Latency: time.Hour}
	p := wrapUDP(t, 1, stuck, stuck)
	peer := listenUDP(t)

	// Something in flight both ways.
	writeOne(t, p, "outgoing, never sent", peer.LocalAddr())
	if _, err := peer.WriteTo([]byte("incoming, never read"), p.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the incoming datagram to be read off the socket", func() bool {
		_, in := p.Stats()
		return in.Queued == 1
	})

	readErr := make(chan error, 1)
	go func() {
		_, _, err := p.ReadFrom(make([]byte, 100))
		readErr <- err
	}()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-readErr:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("waiting ReadFrom returned %v, want net.ErrClosed", err)
		}
	case <-time.After(patience):
		t.Fatal("ReadFrom still blocked after Close")
	}

	if _, _, err := p.ReadFrom(make([]byte, 100)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("ReadFrom after Close: %v, want net.ErrClosed", err)
	}
	if _, err := p.WriteTo([]byte("x"), peer.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteTo after Close: %v, want net.ErrClosed", err)
	}
	if err := p.SetReadDeadline(time.Now()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("SetReadDeadline after Close: %v, want net.ErrClosed", err)
	}
	if err := p.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v, want net.ErrClosed", err)
	}
}

// TestPacketConnInnerClosedUnderneath: if the inner connection is closed without Close, the
// reader goroutine stops and ReadFrom reports the inner error; Close still cleans up.
func TestPacketConnInnerClosedUnderneath(t *testing.T) {
	noLeaks(t)
	inner := listenUDP(t)
	p := WrapPacketConn(inner, 1, Settings{}, Settings{})
	t.Cleanup(func() { _ = p.Close() })

	_ = inner.Close()
	if err := p.SetReadDeadline(time.Now().Add(patience)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.ReadFrom(make([]byte, 100)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("ReadFrom: %v, want net.ErrClosed from the inner connection", err)
	}
	if _, err := p.WriteTo([]byte("x"), inner.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteTo: %v, want the inner connection's net.ErrClosed", err)
	}
}

// isTimeout reports whether err is a timeout in the sense of net.Error.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
}

// TestPacketConnReadDeadline: a ReadFrom with nothing to return fails with a timeout once the
// deadline has passed, not before; moving the deadline wakes a ReadFrom already waiting; a
// datagram delayed past the deadline is not returned; clearing the deadline makes reads work
// again.
func TestPacketConnReadDeadline(t *testing.T) {
	noLeaks(t)
	p := wrapUDP(t, 1, Settings{}, Settings{})
	buf := make([]byte, 100)

	t.Run("expires", func(t *testing.T) {
		const wait = 20 * time.Millisecond
		start := time.Now()
		if err := p.SetReadDeadline(start.Add(wait)); err != nil {
			t.Fatal(err)
		}
		_, _, err := p.ReadFrom(buf)
		if !isTimeout(err) {
			t.Fatalf("ReadFrom: %v, want a timeout", err)
		}
		if took := time.Since(start); took < wait {
			t.Errorf("timed out after %v, before the %v deadline", took, wait)
		}
	})

	t.Run("already passed", func(t *testing.T) {
		if err := p.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.ReadFrom(buf); !isTimeout(err) {
			t.Fatalf("ReadFrom: %v, want a timeout", err)
		}
	})

	t.Run("moved while waiting", func(t *testing.T) {
		if err := p.SetReadDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		readErr := make(chan error, 1)
		go func() {
			_, _, err := p.ReadFrom(buf)
			readErr <- err
		}()
		// Whether the ReadFrom is already waiting or not, a deadline in the past must end it.
		if err := p.SetReadDeadline(time.Now()); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-readErr:
			if !isTimeout(err) {
				t.Fatalf("ReadFrom: %v, want a timeout", err)
			}
		case <-time.After(patience):
			t.Fatal("ReadFrom still waiting after the deadline was moved to now")
		}
	})

	t.Run("datagram due after the deadline", func(t *testing.T) {
		if err := p.SetSettings(Settings{}, Settings{Latency: time.Hour}); err != nil {
			t.Fatal(err)
		}
		writeOne(t, p, "late", p.LocalAddr()) // to itself
		waitFor(t, "the datagram to be read off the socket", func() bool {
			_, in := p.Stats()
			return in.Queued == 1
		})
		if err := p.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if n, _, err := p.ReadFrom(buf); !isTimeout(err) {
			t.Fatalf("ReadFrom: %q, %v, want a timeout", buf[:n], err)
		}
	})

	t.Run("cleared", func(t *testing.T) {
		if err := p.SetSettings(Settings{}, Settings{}); err != nil {
			t.Fatal(err)
		}
		if err := p.SetDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		writeOne(t, p, "on time", p.LocalAddr())
		if msg, _ := readOne(t, p); msg != "on time" {
			t.Fatalf("read %q", msg)
		}
	})
}

// TestPacketConnWriteDeadline: a passed write deadline makes WriteTo fail with a timeout.
func TestPacketConnWriteDeadline(t *testing.T) {
	noLeaks(t)
	p := wrapUDP(t, 1, Settings{}, Settings{})
	if err := p.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WriteTo([]byte("x"), p.LocalAddr()); !isTimeout(err) {
		t.Fatalf("WriteTo: %v, want a timeout", err)
	}
	if err := p.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	writeOne(t, p, "x", p.LocalAddr())
	if out, _ := p.Stats(); out.Offered != 1 {
		t.Errorf("out %+v: the timed-out WriteTo must not reach the conditioner", out)
	}
}

// TestPacketConnReadTruncates: like a plain socket, a datagram longer than the buffer is
// truncated to the buffer.
func TestPacketConnReadTruncates(t *testing.T) {
	noLeaks(t)
	p := wrapUDP(t, 1, Settings{}, Settings{})
	writeOne(t, p, "0123456789", p.LocalAddr())
	if err := p.SetReadDeadline(time.Now().Add(patience)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	n, _, err := p.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "0123" {
		t.Fatalf("ReadFrom = %q, %v, want \"0123\"", buf[:n], err)
	}
}

// TestPacketConnConcurrentUse runs writers, readers, settings changes and stats reads at the
// same time, for the race detector. It checks only what holds whatever the timing: every
// datagram read is one that was sent, from the right address, and the counters add up. (The
// kernel may drop datagrams if the receive buffer fills, so the test cannot wait for a count;
// it heals the link and sends end markers until the readers see one.)
func TestPacketConnConcurrentUse(t *testing.T) {
	noLeaks(t)
	impaired := Settings{
		Latency: time.Millisecond, Jitter: time.Millisecond,
		LossPercent: 10, DupPercent: 10, ReorderPercent: 10,
	}
	sender := wrapUDP(t, 1, impaired, Settings{})
	receiver := wrapUDP(t, 2, Settings{}, impaired)

	const writers, perWriter = 4, 25
	var sent sync.WaitGroup
	for w := range writers {
		sent.Go(func() {
			var b [8]byte
			for i := range perWriter {
				binary.BigEndian.PutUint32(b[:4], uint32(w))
				binary.BigEndian.PutUint32(b[4:], uint32(i))
				if _, err := sender.WriteTo(b[:], receiver.LocalAddr()); err != nil {
					t.Errorf("WriteTo: %v", err)
					return
				}
			}
		})
	}
	stopKnobs := make(chan struct{})
	var knobs sync.WaitGroup
	knobs.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stopKnobs:
				return
			default:
			}
			s := impaired
			s.Jitter = time.Duration(i%3) * time.Millisecond
			if err := sender.SetSettings(s, Settings{}); err != nil {
				t.Error(err)
			}
			_, _ = sender.Settings()
			_, _ = receiver.Stats()
			time.Sleep(100 * time.Microsecond)
		}
	})

	const marker = "end"
	var (
		mu        sync.Mutex
		data, end int
		bad       []string
	)
	sawEnd := make(chan struct{}, 1)
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			buf := make([]byte, 64)
			for {
				n, from, err := receiver.ReadFrom(buf)
				if err != nil {
					return // the read deadline set below ends the readers
				}
				mu.Lock()
				switch {
				case string(buf[:n]) == marker:
					end++
					signal(sawEnd)
				case n != 8 || binary.BigEndian.Uint32(buf) >= writers || binary.BigEndian.Uint32(buf[4:]) >= perWriter:
					bad = append(bad, fmt.Sprintf("%x", buf[:n]))
				}
				if n == 8 {
					data++
				}
				if !sameAddr(from, sender.LocalAddr()) {
					bad = append(bad, fmt.Sprintf("%x from %v", buf[:n], from))
				}
				mu.Unlock()
			}
		})
	}

	sent.Wait()
	close(stopKnobs)
	knobs.Wait()
	if err := sender.SetSettings(Settings{}, Settings{}); err != nil {
		t.Fatal(err)
	}
	if err := receiver.SetSettings(Settings{}, Settings{}); err != nil {
		t.Fatal(err)
	}
	giveUp := time.After(patience)
	for seen := false; !seen; {
		writeOne(t, sender, marker, receiver.LocalAddr())
		select {
		case <-sawEnd:
			seen = true
		case <-time.After(50 * time.Millisecond): // only paces the resends
		case <-giveUp:
			t.Fatal("no end marker got through a healed link")
		}
	}
	// Datagrams delayed before the link was healed may still be in flight on either side.
	waitFor(t, "every delivery to be taken", func() bool {
		out, _ := sender.Stats()
		_, in := receiver.Stats()
		return out.Queued == 0 && in.Queued == 0
	})
	if err := receiver.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	readers.Wait()

	out, _ := sender.Stats()
	_, in := receiver.Stats()
	if got := uint64(data + end); got != in.Delivered || data == 0 {
		t.Errorf("readers got %d datagrams and %d markers, receiver delivered %d", data, end, in.Delivered)
	}
	if len(bad) > 0 {
		t.Errorf("unexpected datagrams: %v", bad)
	}
	if out.Offered < writers*perWriter {
		t.Errorf("sender offered %d, want at least %d", out.Offered, writers*perWriter)
	}
	checkStatsInvariant(t, out)
	checkStatsInvariant(t, in)
}

// fakeConn is a net.PacketConn whose reads a test scripts and whose writes it inspects.
type fakeConn struct {
	reads     chan fakeRead // ReadFrom takes the next one; unbuffered, so a send shows a read
	closed    chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	writes   []fakeWrite
	writeErr error // returned by every WriteTo while set
}

type fakeRead struct {
	data []byte
	addr net.Addr
	err  error
}

type fakeWrite struct {
	data []byte
	addr string // as addr.String() when it was written
}

var fakeLocal = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}

func newFakeConn() *fakeConn {
	return &fakeConn{reads: make(chan fakeRead), closed: make(chan struct{})}
}

func (f *fakeConn) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case r := <-f.reads:
		return copy(b, r.data), r.addr, r.err
	case <-f.closed:
		return 0, nil, net.ErrClosed
	}
}

func (f *fakeConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writeErr != nil {
		return 0, f.writeErr
	}
	f.writes = append(f.writes, fakeWrite{data: append([]byte(nil), b...), addr: addr.String()})
	return len(b), nil
}

func (f *fakeConn) written() []fakeWrite {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.writes)
}

func (f *fakeConn) Close() error {
	err := net.ErrClosed
	f.closeOnce.Do(func() { close(f.closed); err = nil })
	return err
}

func (f *fakeConn) LocalAddr() net.Addr              { return fakeLocal }
func (f *fakeConn) SetDeadline(time.Time) error      { return nil }
func (f *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (f *fakeConn) SetWriteDeadline(time.Time) error { return nil }

// feed hands one read result to the PacketConn's reader goroutine, failing the test if the
// reader does not take it.
func (f *fakeConn) feed(t *testing.T, r fakeRead) {
	t.Helper()
	select {
	case f.reads <- r:
	case <-time.After(patience):
		t.Fatal("the reader goroutine did not read")
	}
}

// TestPacketConnPassesInnerReadErrorsOnce: an error from the inner ReadFrom (an ICMP error,
// say) is returned by one ReadFrom, as the plain socket would have, and reading goes on.
func TestPacketConnPassesInnerReadErrorsOnce(t *testing.T) {
	noLeaks(t)
	inner := newFakeConn()
	p := WrapPacketConn(inner, 1, Settings{}, Settings{})
	t.Cleanup(func() { _ = p.Close() })
	from := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 9}

	refused := errors.New("connection refused")
	inner.feed(t, fakeRead{err: refused})
	if _, _, err := p.ReadFrom(make([]byte, 10)); !errors.Is(err, refused) {
		t.Fatalf("first ReadFrom: %v, want the inner error", err)
	}
	// The reader goes on only now that the error was taken.
	inner.feed(t, fakeRead{data: []byte("after"), addr: from})
	if msg, addr := readOne(t, p); msg != "after" || addr != from {
		t.Fatalf("second ReadFrom: %q from %v", msg, addr)
	}
}

// TestPacketConnBacklogStopsTheReader: when ReadFrom does not keep up, the reader goroutine
// stops reading at maxInBacklog datagrams (leaving the rest to the kernel's buffer) and goes on
// once ReadFrom makes room.
func TestPacketConnBacklogStopsTheReader(t *testing.T) {
	noLeaks(t)
	inner := newFakeConn()
	p := WrapPacketConn(inner, 1, Settings{}, Settings{})
	t.Cleanup(func() { _ = p.Close() })
	from := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 9}

	for i := range maxInBacklog {
		inner.feed(t, fakeRead{data: fmt.Append(nil, i), addr: from})
	}
	extra := fakeRead{data: []byte("extra"), addr: from}
	select {
	case inner.reads <- extra:
		t.Fatalf("the reader read past a full backlog of %d", maxInBacklog)
	case <-time.After(20 * time.Millisecond): // a correct reader never takes it
	}
	if msg, _ := readOne(t, p); msg != "0" {
		t.Fatalf("first datagram %q, want \"0\"", msg)
	}
	inner.feed(t, extra)
}

// TestPacketConnWriteErrors: an error writing a datagram due at once is returned by WriteTo;
// a delayed datagram whose write fails is lost, like one the network drops.
func TestPacketConnWriteErrors(t *testing.T) {
	noLeaks(t)
	inner := newFakeConn()
	p := WrapPacketConn(inner, 1, Settings{}, Settings{})
	t.Cleanup(func() { _ = p.Close() })
	to := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 9}

	tooBig := errors.New("message too long")
	inner.mu.Lock()
	inner.writeErr = tooBig
	inner.mu.Unlock()
	if _, err := p.WriteTo([]byte("x"), to); !errors.Is(err, tooBig) {
		t.Fatalf("WriteTo: %v, want the inner error", err)
	}

	if err := p.SetSettings(Settings{Latency: time.Millisecond}, Settings{}); err != nil {
		t.Fatal(err)
	}
	if n, err := p.WriteTo([]byte("delayed"), to); n != 7 || err != nil {
		t.Fatalf("delayed WriteTo = %d, %v; the error comes later and is nobody's", n, err)
	}
	waitFor(t, "the delayed write", func() bool {
		out, _ := p.Stats()
		return out.Delivered == 2
	})
	if w := inner.written(); len(w) != 0 {
		t.Errorf("written %v, want nothing", w)
	}
}

// TestPacketConnKeepsDestinationOfDelayedDatagrams: a delayed datagram goes where WriteTo was
// told, even if the caller reuses the address value afterwards.
func TestPacketConnKeepsDestinationOfDelayedDatagrams(t *testing.T) {
	noLeaks(t)
	inner := newFakeConn()
	p := WrapPacketConn(inner, 1, Settings{Latency: time.Millisecond, DupPercent: 100}, Settings{})
	t.Cleanup(func() { _ = p.Close() })

	to := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 9}
	writeOne(t, p, "first", to)
	to.IP[len(to.IP)-1], to.Port = 3, 10 // reuse the address for the next datagram
	writeOne(t, p, "second", to)
	waitFor(t, "both datagrams, twice each", func() bool { return len(inner.written()) == 4 })
	got := map[string][]string{}
	for _, w := range inner.written() {
		got[string(w.data)] = append(got[string(w.data)], w.addr)
	}
	want := map[string][]string{
		"first":  {"10.0.0.2:9", "10.0.0.2:9"},
		"second": {"10.0.0.3:10", "10.0.0.3:10"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("written %v, want %v", got, want)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.outAddrs) != 0 {
		t.Errorf("%d addresses still kept after every delivery", len(p.outAddrs))
	}
}

// TestWrapPacketConnPanicsOnInvalidSettings: like NewConditioner, and before anything starts.
func TestWrapPacketConnPanicsOnInvalidSettings(t *testing.T) {
	noLeaks(t)
	inner := listenUDP(t)
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	WrapPacketConn(inner, 1, Settings{}, Settings{DupPercent: -1})
}

// TestPacketConnObserveNoAlloc: with an observer on both ends, a datagram written with
// WriteToUDPAddrPort and read with ReadFromUDPAddrPort on a clean link allocates nothing: the
// observations carry the address as an AddrPort, as the inner sockets give it.
func TestPacketConnObserveNoAlloc(t *testing.T) {
	noLeaks(t)
	sender := wrapUDP(t, 1, Settings{}, Settings{})
	receiver := wrapUDP(t, 2, Settings{}, Settings{})
	var observed atomic.Int64
	var wrongAddr atomic.Bool
	to := receiver.LocalAddr().(*net.UDPAddr).AddrPort()
	from := sender.LocalAddr().(*net.UDPAddr).AddrPort()
	sender.Observe(func(o Observation) {
		wrongAddr.Store(wrongAddr.Load() || o.Addr != to)
		observed.Add(1)
	})
	receiver.Observe(func(o Observation) {
		wrongAddr.Store(wrongAddr.Load() || o.Addr != from)
		observed.Add(1)
	})
	msg, buf := []byte("datagram"), make([]byte, 64)
	if err := receiver.SetReadDeadline(time.Now().Add(patience)); err != nil {
		t.Fatal(err)
	}
	// round writes a datagram, waits until the receiver's reader has taken it in (and shown
	// it to the observer), so that the read finds it there and sets no timer of its own, and
	// reads it.
	round := func() {
		want := observed.Load() + 2
		if _, err := sender.WriteToUDPAddrPort(msg, to); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(patience); observed.Load() < want; runtime.Gosched() {
			if time.Now().After(deadline) {
				t.Fatal("the datagram never reached the receiver")
			}
		}
		if _, _, err := receiver.ReadFromUDPAddrPort(buf); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 { // the conns' buffers and maps reach their size
		round()
	}
	if allocs := testing.AllocsPerRun(50, round); allocs != 0 {
		t.Errorf("%v allocations per observed datagram", allocs)
	}
	if n := observed.Load(); n != 2*71 {
		t.Errorf("%d observations, want %d: one each way per datagram", n, 2*71)
	}
	if wrongAddr.Load() {
		t.Error("an observation with the wrong address")
	}
}

// TestPacketConnObserve: the observer sees every datagram offered in either direction, once,
// with the fate its conditioner gave it, and its counts agree with Stats: the datagrams a link
// dropped, which no reader ever sees, are seen there.
func TestPacketConnObserve(t *testing.T) {
	tests := []struct {
		name    string
		out, in Settings
	}{
		{"clean", Settings{}, Settings{}},
		{"lossy both ways", Settings{LossPercent: 30}, Settings{LossPercent: 30}},
		{"duplicating", Settings{DupPercent: 50}, Settings{DupPercent: 50}},
	}
	const n = 200
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			sender := wrapUDP(t, 1, tt.out, Settings{})
			receiver := wrapUDP(t, 2, Settings{}, tt.in)
			var mu sync.Mutex
			type key struct {
				out  bool
				fate Fate
			}
			seen := map[key]int{}
			observe := func(o Observation) {
				if len(o.Data) == 0 || !o.Addr.IsValid() || o.At.IsZero() {
					t.Errorf("observation without data, address or time: %+v", o)
				}
				mu.Lock()
				seen[key{o.Outgoing, o.Fate}]++
				mu.Unlock()
			}
			sender.Observe(observe)
			receiver.Observe(observe)
			for i := range n {
				writeOne(t, sender, fmt.Sprint("datagram ", i), receiver.LocalAddr())
			}
			// Most datagrams reach the receiver; under load the kernel may drop a few, which is
			// no matter: once both conns are closed, nothing more is observed or counted.
			for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				out, _ := sender.Stats()
				if _, in := receiver.Stats(); in.Offered == out.Delivered {
					break
				}
			}
			_ = sender.Close()
			_ = receiver.Close()
			out, _ := sender.Stats()
			_, in := receiver.Stats()
			if in.Offered == 0 {
				t.Fatal("the receiver read nothing")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range []struct {
				out   bool
				stats Stats
			}{{true, out}, {false, in}} {
				dropped, dup := seen[key{c.out, Dropped}], seen[key{c.out, Duplicated}]
				total := seen[key{c.out, Passed}] + dropped + dup
				if uint64(total) != c.stats.Offered || uint64(dropped) != c.stats.Dropped || uint64(dup) != c.stats.Duplicated {
					t.Errorf("outgoing %v: observed %d offered, %d dropped, %d duplicated; stats %+v", c.out, total, dropped, dup, c.stats)
				}
			}
			if seen[key{true, Passed}]+seen[key{true, Dropped}]+seen[key{true, Duplicated}] != n {
				t.Errorf("observed %v, want %d outgoing", seen, n)
			}
		})
	}
}
