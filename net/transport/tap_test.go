package transport

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
)

// tapLog is a Tap that keeps what it was shown.
type tapLog struct {
	mu   sync.Mutex
	seen []TappedDatagram
}

func (l *tapLog) Tapped(d TappedDatagram) {
	d.Data = slices.Clone(d.Data) // valid only during the call
	l.mu.Lock()
	l.seen = append(l.seen, d)
	l.mu.Unlock()
}

// count is how many datagrams of a direction had a fate.
func (l *tapLog) count(out bool, fate TapFate) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n uint64
	for _, d := range l.seen {
		if d.Out == out && d.Fate == fate {
			n++
		}
	}
	return n
}

// TestTapSeesEveryDatagram: a client's tap is shown every datagram it sends and gets, and,
// under a lossy conditioner, every one the conditioner dropped, in counts that agree with the
// conditioner's own; the first it sends is the 1200-byte ConnectRequest to the server.
func TestTapSeesEveryDatagram(t *testing.T) {
	runParallel(t)
	lossy := linksim.Settings{LossPercent: 30, DupPercent: 10}
	tests := []struct {
		name string
		link *LinkSettings
	}{
		{"no conditioner", nil},
		{"30% loss, 10% duplication", &LinkSettings{Out: lossy, In: lossy}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer verifyNoLeaks(t)
			var mu sync.Mutex
			echoes := 0
			srv, err := Listen("127.0.0.1:0", ServerConfig{Config: Config{
				OnMessage: func(p *Peer, now time.Time, m *message.Message) {
					p.Conn().SendGuaranteed(now, m.Payload, nil, nil)
				},
			}})
			if err != nil {
				t.Fatal(err)
			}
			sl := startLoop(srv)
			tap := &tapLog{}
			cli, err := Dial(srv.LocalAddr().String(), ClientConfig{Name: "ann", Config: Config{
				Link: tt.link, Tap: tap,
				OnMessage: func(*Peer, time.Time, *message.Message) { mu.Lock(); echoes++; mu.Unlock() },
			}})
			if err != nil {
				t.Fatal(err)
			}
			cl := startLoop(cli)
			waitFor(t, "connected", 10*time.Second, func() bool { return cli.Stats().State == Connected })
			const n = 20
			cl.call(func(now time.Time) {
				for i := range n {
					cli.Peer().Conn().SendGuaranteed(now, []byte{byte(i)}, nil, nil)
				}
			})
			waitFor(t, "echoes", 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return echoes == n })
			cl.stop()
			sl.stop()
			if err := cli.Close(); err != nil {
				t.Error(err)
			}
			if err := srv.Close(); err != nil {
				t.Error(err)
			}

			tap.mu.Lock()
			first := tap.seen[0]
			for _, d := range tap.seen {
				if d.Local != cli.sock.local || d.Peer != srv.sock.LocalAddr() || d.At.IsZero() {
					t.Errorf("datagram %v → %v at %v, want between %v and %v", d.Local, d.Peer, d.At, cli.sock.local, srv.sock.LocalAddr())
					break
				}
			}
			tap.mu.Unlock()
			if !first.Out || len(first.Data) != 1200 {
				t.Errorf("first datagram: out %v, %d bytes; want the ConnectRequest, out, 1200 bytes", first.Out, len(first.Data))
			}
			sent, got := tap.count(true, TapPassed)+tap.count(true, TapDuplicated), tap.count(false, TapPassed)
			if sent == 0 || got == 0 {
				t.Fatalf("tap saw %d datagrams sent and %d received", sent, got)
			}
			out, in, ok := cli.sock.LinkStats()
			if !ok {
				if d := tap.count(true, TapDropped) + tap.count(false, TapDropped); d != 0 {
					t.Errorf("%d dropped without a conditioner", d)
				}
				return
			}
			for _, c := range []struct {
				what      string
				tap, link uint64
			}{
				{"sent (all fates)", sent + tap.count(true, TapDropped), out.Offered},
				{"dropped on the way out", tap.count(true, TapDropped), out.Dropped},
				{"duplicated on the way out", tap.count(true, TapDuplicated), out.Duplicated},
				{"dropped on the way in", tap.count(false, TapDropped), in.Dropped},
				{"handed to the host", got + tap.count(false, TapOverflow), in.Delivered},
			} {
				if c.tap != c.link {
					t.Errorf("%s: tap saw %d, the conditioner counted %d", c.what, c.tap, c.link)
				}
			}
			if out.Dropped == 0 || in.Dropped == 0 {
				t.Errorf("at 30%% loss nothing dropped: out %+v, in %+v", out, in)
			}
		})
	}
}
