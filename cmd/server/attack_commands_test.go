package main

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// The attacks on the command lead time and on the commands (TestAttacks, attack_test.go):
// a seated student lies about its link, or makes its link look slow, to set every player's
// lead; schedules commands for a frame far ahead, to lock later spectators out; or floods the
// others with commands.

// slowStudentLink is a student's own slow link (150 ms each way) to every host: an honest
// path, which raises the lead by its own measure.
var slowStudentLink = linksim.Settings{LossPercent: 9.75, Latency: 150 * time.Millisecond, Jitter: 4 * time.Millisecond}

// leadWatch samples the lead time the honest players run with (each client's, in its report),
// and the most it reached since the last reset.
type leadWatch struct {
	c    *vclass
	most time.Duration
}

// sample reads every honest player's lead now, and returns the largest.
func (w *leadWatch) sample() time.Duration {
	var lead time.Duration
	for _, p := range w.c.players {
		if !p.p.gone {
			lead = max(lead, time.Duration(p.c.Report().Game.LeadTimeMillis)*time.Millisecond)
		}
	}
	w.most = max(w.most, lead)
	return lead
}

// run runs the class for d, sampling the lead every 100 ms of it; each runs f first if not nil.
func (w *leadWatch) run(d time.Duration, f func()) {
	for end := w.c.v.Now().Add(d); w.c.v.Now().Before(end); {
		if f != nil {
			f()
		}
		w.c.run(100 * time.Millisecond)
		w.sample()
	}
}

// settle runs the class until the honest players' lead has not changed for 11 s (the lead falls
// only 10 s after a change), at most 30 s, and returns it; the most reached counts from then.
func (w *leadWatch) settle(t *testing.T) time.Duration {
	t.Helper()
	lead, since := w.sample(), w.c.v.Now()
	for start := w.c.v.Now(); w.c.v.Now().Sub(since) < 11*time.Second; {
		if w.c.v.Now().Sub(start) > 30*time.Second {
			t.Fatalf("the lead did not settle in 30 s (%v now)", lead)
		}
		w.c.run(100 * time.Millisecond)
		if l := w.sample(); l != lead {
			lead, since = l, w.c.v.Now()
		}
	}
	w.most = lead
	return lead
}

// leadClass starts a class of ann and bob, playing for 45 s, and seats the student eve at an
// address of its own whose link to every host is link, run by host (nil: as it is); it
// returns the student, the honest players' lead once settled, and the watch on it.
func leadClass(t *testing.T, seed uint64, link linksim.Settings, host func(attackerHost) game.Session) (*attacker, time.Duration, *leadWatch) {
	c := startVClass(t, seed, 45*time.Second, nil)
	c.join("ann", "bob")
	addr := c.nextAddr(3)
	eve := c.dialAttackerFrom(addr, c.v.AddNode(addr, link), c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	if host != nil {
		c.v.Attach(addr, host(attackerHost{eve.c}))
	}
	eve.seated("ann", "bob", "eve")
	eve.waitFor(10*time.Second, "the game", func() bool { return count[*game.StartGame](eve) > 0 })
	w := &leadWatch{c: c}
	return eve, w.settle(t), w
}

// attackLyingPingSummary: the student plays over a slow link of its own (150 ms each way),
// which honestly raises the lead a frame; then, twice a second for 8 s, it reports a round
// trip of 4 s and 50% loss. The honest players' lead stays where the links put it (with the
// reports taken as the worst path, it rose from 300 ms to 600 ms).
func attackLyingPingSummary(t *testing.T, seed uint64) {
	eve, honest, w := leadClass(t, seed, slowStudentLink, nil)
	c := w.c
	lies := 0
	w.run(8*time.Second, func() {
		if c.v.Now().UnixMilli()%500 < 100 && eve.send(&game.PingSummary{AvgRTTMicros: 4_000_000, MinRTTMicros: 4_000_000, MaxRTTMicros: 4_000_000, LossPermille: 500}) {
			lies++
		}
	})
	w.run(3*time.Second, nil) // a change the lies caused would be in force by now
	t.Logf("the honest players' lead: %v before the lies, at most %v during them and 3 s after; %d lies", honest, w.most, lies)
	if lies < 12 {
		t.Fatalf("the attacker told only %d lies", lies)
	}
	if w.most != honest {
		t.Errorf("the honest players' lead went from %v to %v, want unchanged", honest, w.most)
	}
	if honest > 400*time.Millisecond {
		t.Errorf("the honest lead was %v before the lies, want what the links call for (300 ms)", honest)
	}
	srv, clients := c.finish()
	checkHonest(t, srv, clients, false)
}

// slowReader is a student's program that makes its own path look slow: it reads its socket
// late, each datagram it receives after a delay of its own, drawn between 0 and most, in the
// order they came (so its acknowledgements and its answers to the server's pings leave that
// much later, and each by a different delay). From is when it starts.
type slowReader struct {
	attackerHost
	most time.Duration
	rng  *rand.Rand
	from time.Time
	held []heldDatagram
}

type heldDatagram struct {
	at time.Time
	d  transport.Datagram
}

func (h *slowReader) Handle(now time.Time, d transport.Datagram) {
	if h.from.IsZero() || now.Before(h.from) {
		h.attackerHost.Handle(now, d)
		return
	}
	at := now.Add(time.Duration(h.rng.Int64N(int64(h.most))))
	if n := len(h.held); n > 0 && at.Before(h.held[n-1].at) {
		at = h.held[n-1].at // in order: a datagram read late holds up the ones after it
	}
	d.Data = append([]byte(nil), d.Data...)
	h.held = append(h.held, heldDatagram{at, d})
}

func (h *slowReader) Tick(now time.Time) {
	for len(h.held) > 0 && !now.Before(h.held[0].at) {
		d := h.held[0].d
		h.held = h.held[1:]
		h.attackerHost.Handle(now, d)
	}
	h.attackerHost.Tick(now)
}

func (h *slowReader) NextDeadline(now time.Time) time.Time {
	next := h.attackerHost.NextDeadline(now)
	if len(h.held) > 0 {
		next = transport.Earliest(next, h.held[0].at)
	}
	return next
}

// attackSlowPath: the student makes the server's own measures of its path say it is slow:
// for 15 s it reads each datagram it receives between 0 and 1 s late (the server's pings come
// once a second, and only the answer to the latest counts: a later one would measure
// nothing), so that the round trip the server measures grows and varies by hundreds of
// milliseconds. Its path counts for the lead only up to 300 ms above the others': the honest
// players' lead rises by that at most (it rose to 700 ms before), and the student's own
// commands come late to the others and are run again.
func attackSlowPath(t *testing.T, seed uint64) {
	var slow *slowReader
	eve, honest, w := leadClass(t, seed, classLink, func(h attackerHost) game.Session {
		slow = &slowReader{attackerHost: h, most: time.Second, rng: rand.New(rand.NewPCG(seed, 0x5105))}
		return slow
	})
	c := w.c
	slow.from = c.v.Now()
	w.run(15*time.Second, nil)
	ps := eve.c.Stats()
	t.Logf("the honest players' lead: %v before, at most %v while the student read up to 1 s late; its connection: %s",
		honest, w.most, stateText(ps))
	if eve.c.State() != transport.Connected {
		t.Fatalf("the slow student's connection ended: %s", stateText(ps))
	}
	if honest > 300*time.Millisecond {
		t.Errorf("the honest lead was %v before, want what the links call for (200 ms)", honest)
	}
	if w.most > honest+300*time.Millisecond {
		t.Errorf("the honest players' lead went from %v to %v, want at most 300 ms more", honest, w.most)
	}
	srv, clients := c.finish()
	checkHonest(t, srv, clients, false)
}

// eveFrame is the server's frame as the attacker last heard it (FrameSync).
func eveFrame(eve *attacker) uint32 {
	if fs, ok := latest[*game.FrameSync](eve); ok {
		return fs.Frame
	}
	return 0
}

// attackFarFuture: the student sends 300 commands for its own seat at frame 1,000,000 in
// 110 ms, and 10 for frame 1, then leaves. A spectator who joins afterwards watches the game
// to its end, its world the server's (it was dropped at once before, too far behind: every
// one of those commands waited for it).
func attackFarFuture(t *testing.T, seed uint64) {
	c := startVClass(t, seed, 24*time.Second, nil)
	c.join("ann", "bob")
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	seats := eve.seated("ann", "bob", "eve")
	// Past the re-run window's frames (3 s to 6 s), so that frame 1 is too late to run.
	eve.waitFor(15*time.Second, "frame 70", func() bool { return eveFrame(eve) > 70 })
	seat := seats["eve"].Seat
	sent := 0
	for i := range 310 {
		frame := uint32(1_000_000)
		if i >= 300 {
			frame = 1
		}
		if eve.send(&game.Command{Seat: seat, ID: uint32(i + 1), Frame: frame, Kind: world.CommandStop, Units: []uint32{1}}) {
			sent++
		}
		if i%30 == 29 {
			c.run(10 * time.Millisecond)
		}
	}
	c.run(2 * time.Second) // every one arrives
	eve.c.Disconnect(c.v.Now(), "bye")
	c.run(time.Second)
	// An honest spectator (the client binary's --spectate), until the honest players leave.
	c.joinWith(c.player("ann").p.end.Sub(c.v.Now()), func(cfg *game.ClientConfig) { cfg.Bot, cfg.Spectate = false, true }, "watcher")
	srv, clients := c.finish()
	w := clients["watcher"]
	t.Logf("%d commands sent; server: %d out of range, %d relayed, %d spectators dropped; the spectator: frame %d (the server %d)",
		sent, srv.Game.CommandsOutOfRange, srv.Game.CommandsIssued, srv.Game.Spectators.Dropped, w.Frame, srv.Frame)
	checkFarFuture(t, sent, srv, clients, "watcher")
}

// checkFarFuture: the attacker sent its 310 commands, the server refused them all, and the
// spectator watcher, who joined after them, watched to the end (finish checks it stayed
// connected), its world the server's.
func checkFarFuture(t testing.TB, sent int, srv game.Report, clients map[string]game.Report, watcher string) {
	t.Helper()
	w := clients[watcher]
	if sent != 310 {
		t.Fatalf("the attacker sent %d commands of 310", sent)
	}
	if srv.Game.CommandsOutOfRange != 310 {
		t.Errorf("server: %d commands refused for their frame, want 310", srv.Game.CommandsOutOfRange)
	}
	if srv.Game.Spectators.Dropped != 0 || w.Spectator == 0 {
		t.Errorf("the spectator: %d dropped, number %d; want it watching to the end", srv.Game.Spectators.Dropped, w.Spectator)
	}
	if int(w.Frame)+20 < int(srv.Frame)-int(udpServerExtra/(100*time.Millisecond)) {
		t.Errorf("the spectator reached frame %d, the server %d", w.Frame, srv.Frame)
	}
	checkHonest(t, srv, clients, false)
}

// floodPlay is how long the honest players of the flood play.
const floodPlay = 12 * time.Second

// playFlood plays a class in which the student, from 2 s after the start, sends commands for
// its own seat (one unit, a frame just ahead) as fast as its connection takes them, 8 s long,
// when flood; and sends nothing otherwise. It returns the reports and how many it sent.
func playFlood(t *testing.T, seed uint64, flood bool) (srv game.Report, clients map[string]game.Report, sent int) {
	c := startVClass(t, seed, floodPlay, nil)
	c.join("ann", "bob")
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	seats := eve.seated("ann", "bob", "eve")
	eve.waitFor(10*time.Second, "the game", func() bool { return eveFrame(eve) > 20 })
	if flood {
		seat := seats["eve"].Seat
		for end := c.v.Now().Add(8 * time.Second); c.v.Now().Before(end); {
			for range 30 { // 3,000 a second, as many as the connection takes
				if !eve.send(&game.Command{Seat: seat, ID: uint32(sent + 1), Frame: eveFrame(eve) + 3, Kind: world.CommandStop, Units: []uint32{1}}) {
					break
				}
				sent++
			}
			c.run(10 * time.Millisecond)
		}
	}
	srv, clients = c.finish()
	return srv, clients, sent
}

// attackCommandFlood: the student sends commands for its own units as fast as its connection
// takes them, for 8 s (21,511 in 8 s against the binaries). What an honest player receives
// grows by no more than the seat's rate lets through: 128 commands at once and 50 a second,
// against a run of the same game without the flood (every command was relayed before: 1.07
// MB to each player against 13 kB).
func attackCommandFlood(t *testing.T, seed uint64) {
	quiet, quietClients, _ := playFlood(t, seed, false)
	srv, clients, sent := playFlood(t, seed, true)
	// A relayed command of one unit is about 20 bytes in its datagram, with its message's
	// header; the rate lets 128 + 50 a second through in 8 s. At the class's 9.75% a tenth of
	// them go again, twice each (message.Conn.SendTimely), and acks come back: about 42 bytes
	// a command in all (38 when a resend went once).
	const perCommand = 44
	allowed := int64(128+50*8) * perCommand
	t.Logf("%d commands sent in 8 s; server: %d refused as too fast, %d relayed in all (%d in the quiet run)",
		sent, srv.Game.CommandsTooFast, srv.Game.CommandsIssued, quiet.Game.CommandsIssued)
	if sent < 5000 {
		t.Fatalf("the attacker sent only %d commands", sent)
	}
	if srv.Game.CommandsTooFast == 0 {
		t.Error("server: no command refused as too fast")
	}
	for _, p := range []string{"ann", "bob"} {
		got, was := clients[p].Net.BytesReceived, quietClients[p].Net.BytesReceived
		extra := int64(got) - int64(was)
		t.Logf("%s received %d bytes, %d in the quiet run: %+d (at most %d allowed)", p, got, was, extra, allowed)
		if extra > allowed {
			t.Errorf("%s received %d bytes more than in the quiet run, want at most %d", p, extra, allowed)
		}
	}
	checkHonest(t, srv, clients, false)
}
