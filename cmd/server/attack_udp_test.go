package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// The attacks of TestAttacks on the lead, the commands and the places, played again against
// the binaries over real UDP on the wall clock: the server binary and honest client binaries
// as processes of their own, and the student's program as this test process, which opens real
// UDP sockets and makes its connections with the project's own packages (net/transport, and
// game's message codec), as the virtual attacker does (vclass_test.go).

// BenchmarkAttacksOverRealUDP is a measured run (RELIABILITY.md, "The attacks, against a real
// server"), not part of the suite. Each sub-benchmark plays one attack against a server binary
// (one bot, --min-players 1) and honest client binaries, every process at the class's link
// (--loss 5 --latency 10ms --jitter 2ms), and fails when its target is not met:
//   - lying_ping_summary: a seated student on a slow link of its own reports, twice a second
//     for 20 s, a round trip of 4 s and 50% loss; the honest players' lead (their status lines) is no higher during the
//     lies and after them than before.
//   - far_future_commands: a seated student sends 300 commands for frame 1,000,000 and 10 for
//     frame 1, and leaves; a spectator binary that joins afterwards watches to the end, its
//     world the server's, and the server refuses the 310.
//   - command_flood: a seated student floods commands for its own seat for 8 s; what each
//     honest player received grows, against a quiet run of the same class, by no more than
//     the seat's rate lets through.
//   - spectator_places_one_network, spectator_places_one_address, seats_one_address: the
//     student's program takes the spectators' places from one /24 or one address, or the seats
//     from one address; then honest spectators (or players) and the projector join, and each
//     gets in. These play in network namespaces (kernelnet_test.go): the server in one, with
//     the projector; the program in another, its addresses in 198.18.9.0/24; each honest
//     client in one of its own, in 198.18.1.0/24. On loopback every address is the server's
//     own host, whose places are never taken back.
//
// -attack.bins attacks binaries built elsewhere (at the commit before a change) instead of this
// tree's. RELIABILITY.md's figures come from
//
//	go test ./cmd/server -run '^$' -bench AttacksOverRealUDP -v -count 3 -timeout 40m
//	go test ./cmd/server -run '^$' -bench AttacksOverRealUDP/spectator_places_one_address -v -count 2 -attack.places.address 264
//	go test ./cmd/server -run '^$' -bench 'AttacksOverRealUDP/(lying|far_future|command_flood)' -v -attack.bins /tmp/bins
func BenchmarkAttacksOverRealUDP(b *testing.B) {
	var server, client string
	if *udpAttackBins != "" {
		server, client = filepath.Join(*udpAttackBins, "server"), filepath.Join(*udpAttackBins, "client")
	} else {
		server = tmuxtest.Build(b, "server")
		client = tmuxtest.BuildPackage(b, "client", "github.com/ackattack/ackattack/cmd/client")
	}
	for _, tt := range []struct {
		name string
		play func(b *testing.B, server, client string)
	}{
		{"lying_ping_summary", udpLyingPingSummary},
		{"far_future_commands", udpFarFuture},
		{"command_flood", udpCommandFlood},
		{"spectator_places_one_network", udpSpectatorPlacesOneNetwork},
		{"spectator_places_one_address", udpSpectatorPlacesOneAddress},
		{"seats_one_address", udpSeatsOneAddress},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				tt.play(b, server, client)
			}
		})
	}
}

// udpOneAddress is how many spectators' connections the program of
// spectator_places_one_address opens from its one address.
var udpOneAddress = flag.Int("attack.places.address", 40, "BenchmarkAttacksOverRealUDP/spectator_places_one_address: spectators' connections the program opens from one address (40 as first measured; 264 fills every place and 8 more)")

// udpAttackBins is a directory with the server and client binaries to attack instead of
// this tree's, built at an earlier commit to measure the attacks before a change.
var udpAttackBins = flag.String("attack.bins", "", "BenchmarkAttacksOverRealUDP: attack the binaries server and client in this directory (built at another commit) instead of building this tree's")

// processLink is one process's conditioner at the class's link flags (classLinkFlags): the
// student's program conditions its sockets as the binaries do theirs.
var processLink = transport.LinkSettings{Out: serverSideLink, In: serverSideLink}

// udpAttacker is one connection of the student's program over a real UDP socket: a transport
// client run by transport.Run on a goroutine of its own, and what it got from the server.
type udpAttacker struct {
	t    testing.TB
	c    *transport.Client
	do   chan func(now time.Time)
	stop context.CancelFunc
	done chan struct{}
	once sync.Once

	mu      sync.Mutex
	counts  map[string]int // the game messages received, by type
	players map[uint8]game.PlayerInfo
	frame   uint32 // the server's frame, from the latest FrameSync
}

// dialUDPAttacker connects to server over pc with cfg, its socket conditioned by cfg.Link, or
// as a binary's at the class's link when that is nil; the connection ends when t does.
func dialUDPAttacker(t testing.TB, pc net.PacketConn, server netip.AddrPort, cfg transport.ClientConfig) *udpAttacker {
	t.Helper()
	a := &udpAttacker{t: t, do: make(chan func(time.Time)), done: make(chan struct{}), counts: map[string]int{}, players: map[uint8]game.PlayerInfo{}}
	if cfg.Link == nil {
		cfg.Link = &processLink
	}
	cfg.LinkSeed = uint64(pc.LocalAddr().(*net.UDPAddr).Port) + 1
	cfg.OnMessage = func(_ *transport.Peer, _ time.Time, m *message.Message) {
		msg, err := game.ParseMsg(m.Payload)
		if err != nil {
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		a.counts[fmt.Sprintf("%T", msg)]++
		switch m := msg.(type) {
		case *game.PlayerInfo:
			a.players[m.Seat] = *m
		case *game.FrameSync:
			a.frame = max(a.frame, m.Frame)
		}
	}
	c, err := transport.DialOn(pc, server, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.c = c
	ctx, cancel := context.WithCancel(context.Background())
	a.stop = cancel
	go func() {
		defer close(a.done)
		_ = transport.Run(ctx, c, a.do)
	}()
	t.Cleanup(a.close)
	return a
}

// close stops the connection's loop without a goodbye, and closes its socket.
func (a *udpAttacker) close() {
	a.once.Do(func() {
		a.stop()
		<-a.done
		a.c.Close()
	})
}

// on runs f on the connection's loop and waits for it (false: the loop has ended).
func (a *udpAttacker) on(f func(now time.Time)) bool {
	ran := make(chan struct{})
	select {
	case a.do <- func(now time.Time) { f(now); close(ran) }:
		<-ran
		return true
	case <-a.done:
		return false
	}
}

// send sends ms as guaranteed messages, in order, and returns how many went out: it stops at
// the first the connection refuses (not connected, or its outbox full).
func (a *udpAttacker) send(ms ...game.Msg) (n int) {
	payloads := make([][]byte, len(ms))
	for i, m := range ms {
		b, err := game.AppendMsg(nil, m)
		if err != nil {
			a.t.Fatalf("the attacker cannot encode %T: %v", m, err)
		}
		payloads[i] = b
	}
	a.on(func(now time.Time) {
		p := a.c.Peer()
		for _, b := range payloads {
			if p == nil || !p.Connected() {
				return
			}
			if _, err := p.Conn().SendGuaranteed(now, b, nil, nil); err != nil {
				return
			}
			n++
		}
	})
	return n
}

// leave says goodbye, as a program that exits cleanly does.
func (a *udpAttacker) leave() { a.on(func(now time.Time) { a.c.Disconnect(now, "bye") }) }

func (a *udpAttacker) stats() transport.ClientStats { return a.c.Stats() }

func (a *udpAttacker) serverFrame() uint32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.frame
}

// udpCount is how many messages of type T the attacker got.
func udpCount[T game.Msg](a *udpAttacker) int {
	var m T
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.counts[fmt.Sprintf("%T", m)]
}

// seated waits until the attacker knows the seats of names, connected, and returns them by
// name.
func (a *udpAttacker) seated(names ...string) map[string]game.PlayerInfo {
	a.t.Helper()
	out := map[string]game.PlayerInfo{}
	waitWall(a.t, 30*time.Second, fmt.Sprintf("the seats of %v", names), func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return seatsOf(a.players, out, names)
	})
	return out
}

// waitWall polls cond on the wall clock every 20 ms, and fails t after d: a measured run's
// wait, never a test's.
func waitWall(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", d, what)
		}
	}
}

// udpSockets opens a UDP socket at each of addrs, in the network namespace ns ("": the test
// process's own). A socket stays in the namespace it was made in: a goroutine locked to its
// thread enters the namespace and opens them, and its thread ends with it, never to serve
// another goroutine.
func udpSockets(t testing.TB, ns string, addrs []netip.AddrPort) []*net.UDPConn {
	t.Helper()
	var pcs []*net.UDPConn
	errc := make(chan error)
	go func() {
		if ns != "" {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			f, err := os.Open("/run/netns/" + ns)
			if err != nil {
				errc <- err
				return
			}
			defer f.Close()
			if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
				errc <- fmt.Errorf("enter the network namespace %s: %w", ns, err)
				return
			}
		}
		for _, a := range addrs {
			pc, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(a))
			if err != nil {
				errc <- err
				return
			}
			pcs = append(pcs, pc)
		}
		errc <- nil
	}()
	if err := <-errc; err != nil {
		for _, pc := range pcs {
			pc.Close()
		}
		t.Fatal(err)
	}
	return pcs
}

// dialAttacker seats a student's program, named name, from an address of its own on loopback
// (127.0.3.n), its socket conditioned by link (nil: as a binary's at the class's link).
func (c *binClass) dialAttacker(n byte, name string, link *transport.LinkSettings) *udpAttacker {
	c.t.Helper()
	pc := udpSockets(c.t, "", []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 3, n}), 0)})[0]
	return dialUDPAttacker(c.t, pc, netip.MustParseAddrPort(c.addr), transport.ClientConfig{Name: name, Config: transport.Config{Link: link}})
}

// slowStudentSocket is a student's own slow link as its socket's conditioner: with the server's
// own 10 ms each way, 150 ms each way in all, as slowStudentLink is in virtual time. An honest
// path that long raises the lead a frame; a lie about loss then adds a round trip, which on
// loopback's few milliseconds would not cross a frame and so would show nothing.
var slowStudentSocket = transport.LinkSettings{
	Out: linksim.Settings{LossPercent: 5, Latency: 140 * time.Millisecond, Jitter: 2 * time.Millisecond},
	In:  linksim.Settings{LossPercent: 5, Latency: 140 * time.Millisecond, Jitter: 2 * time.Millisecond},
}

// udpLyingPingSummary: the student, seated on a slow link of its own (150 ms each way, which
// honestly makes the lead 300 ms), waits until the honest players' lead has settled (the same
// in their last 11 status lines: it falls only 10 s after a change), reports twice a second
// for 20 s a round trip of 4 s and 50% loss, stops lying, and leaves 8 s later. The honest
// players' lead, from their status lines (one a second), is never higher during the lies and
// the 15 s after them than the settled lead before.
//
// The student's slow path, as the server measures it, now and then calls for 400 ms by itself,
// lies or no lies (a run with true reports instead does it about as often: RELIABILITY.md), and
// such a run fails too; the binaries before the lead came from the server's own measures went
// to 600 ms within 3 s of the first lie in every run.
func udpLyingPingSummary(b *testing.B, server, client string) {
	const play, settled = 80 * time.Second, 11
	c := startBinClassAt(b, freeUDPAddr(b), nil, server, client, play)
	honest := []string{"ann", "bob"}
	c.joinFor(play, []string{"--bot"}, honest...) // not --quiet: their status lines say the lead
	eve := c.dialAttacker(1, "eve", &slowStudentSocket)
	eve.seated("ann", "bob", "eve")
	leads := func() (all [][]int64) {
		for _, h := range c.hosts[1:] {
			l, _, err := readStatusLines(h.out, 0)
			if err != nil {
				b.Fatal(err)
			}
			all = append(all, l)
		}
		return all
	}
	waitWall(b, 45*time.Second, "the honest players' lead settled", func() bool {
		for _, l := range leads() {
			if len(l) < udpWarmUp+settled || slices.Min(l[len(l)-settled:]) != slices.Max(l[len(l)-settled:]) {
				return false
			}
		}
		return true
	})
	var began []int
	for _, l := range leads() {
		began = append(began, len(l))
	}
	lies := 0
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		lies += eve.send(&game.PingSummary{AvgRTTMicros: 4_000_000, MinRTTMicros: 4_000_000, MaxRTTMicros: 4_000_000, LossPermille: 500})
	}
	var ended []int
	for _, l := range leads() {
		ended = append(ended, len(l))
	}
	if left := time.Until(c.began.Add(play)); left < 15*time.Second {
		b.Fatalf("the honest players end %v after the lies, want 15 s at least", left.Round(time.Second))
	}
	time.Sleep(8 * time.Second)
	eve.leave()
	srv, clients := c.finish()

	var before, during, after []int64
	for i, l := range leads() {
		h := c.hosts[1+i]
		// Up to 15 status lines after the lies: the players' last lines, after the student
		// left, follow the student's path no more.
		afterLies := l[ended[i]:min(len(l), ended[i]+15)]
		before = append(before, l[began[i]-1])
		during = append(during, l[began[i]:ended[i]]...)
		after = append(after, afterLies...)
		b.Logf("%s: lead %v ms in the status lines before the lies, %v during, %v in the 15 s after, %v to the end",
			h.name, l[:began[i]], l[began[i]:ended[i]], afterLies, l[ended[i]+len(afterLies):])
	}
	if len(during) == 0 || len(after) == 0 {
		b.Fatalf("the honest players wrote %d status lines during the lies and %d after them: they ended early", len(during), len(after))
	}
	b.ReportMetric(float64(lies), "lies")
	b.ReportMetric(float64(slices.Max(before)), "lead-before-ms")
	b.ReportMetric(float64(slices.Max(during)), "lead-during-ms")
	b.ReportMetric(float64(slices.Max(after)), "lead-after-ms")
	b.ReportMetric(float64(srv.Game.LeadTimeChanges), "lead-changes")
	b.Logf("%d lies in 20 s; the server: %d lead changes, lead %d ms at the end", lies, srv.Game.LeadTimeChanges, srv.Game.LeadTimeMillis)
	if lies < 30 {
		b.Errorf("the attacker told only %d lies", lies)
	}
	if most := max(slices.Max(during), slices.Max(after)); most > slices.Max(before) {
		b.Errorf("the honest players' lead went from %d ms, settled before the lies, to %d ms", slices.Max(before), most)
	}
	checkHonest(b, srv, clients, false)
}

// udpFarFuture: the student, seated, sends 300 commands for its own seat at frame 1,000,000
// and 10 for frame 1 (the game past frame 70, so that frame 1 is beyond the re-run window), in
// batches of 30 every 10 ms, and leaves 2 s later; a spectator binary joins a second after
// that and watches until the honest players end. It must watch to the end, its world the
// server's, and the server refuses the 310.
func udpFarFuture(b *testing.B, server, client string) {
	c := startBinClass(b, server, client, 30*time.Second)
	c.join("ann", "bob")
	eve := c.dialAttacker(1, "eve", nil)
	seat := eve.seated("ann", "bob", "eve")["eve"].Seat
	waitWall(b, 20*time.Second, "frame 70", func() bool { return eve.serverFrame() > 70 })
	sent := 0
	for i := 0; i < 310; i += 30 {
		var batch []game.Msg
		for j := i; j < min(i+30, 310); j++ {
			frame := uint32(1_000_000)
			if j >= 300 {
				frame = 1
			}
			batch = append(batch, &game.Command{Seat: seat, ID: uint32(j + 1), Frame: frame, Kind: world.CommandStop, Units: []uint32{1}})
		}
		sent += eve.send(batch...)
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // every one arrives
	eve.leave()
	time.Sleep(time.Second)
	c.joinFor(c.untilEnd(), []string{"--spectate"}, "watcher")
	srv, clients := c.finish()
	w := clients["watcher"]
	agreed, common := agreement(srv, w)
	b.ReportMetric(float64(sent), "sent")
	b.ReportMetric(float64(srv.Game.CommandsOutOfRange), "out-of-range")
	b.ReportMetric(float64(srv.Game.Spectators.Dropped), "spectators-dropped")
	// The server plays udpServerExtra (30 frames) longer than its clients.
	b.ReportMetric(float64(int(srv.Frame)-int(w.Frame)), "frames-behind")
	if common > 0 {
		b.ReportMetric(100*float64(agreed)/float64(common), "agree%")
	}
	b.Logf("%d commands sent; server: %d out of range, %d relayed, %d spectators dropped, frame %d; the spectator: number %d, frame %d, world equal to the server's at %d of %d settled frames",
		sent, srv.Game.CommandsOutOfRange, srv.Game.CommandsIssued, srv.Game.Spectators.Dropped, srv.Frame, w.Spectator, w.Frame, agreed, common)
	checkFarFuture(b, sent, srv, clients, "watcher")
}

// playUDPFlood plays a class of ann and bob with the student seated, for floodPlay; when
// flood, the student sends commands for its own seat (one unit, a frame just ahead) for 8 s
// from frame 20, 30 every 10 ms or as many as its connection takes. It returns the reports
// and how many it sent.
func playUDPFlood(b *testing.B, server, client string, flood bool) (srv game.Report, clients map[string]game.Report, sent int) {
	c := startBinClass(b, server, client, floodPlay)
	c.join("ann", "bob")
	eve := c.dialAttacker(1, "eve", nil)
	seat := eve.seated("ann", "bob", "eve")["eve"].Seat
	waitWall(b, 10*time.Second, "frame 20", func() bool { return eve.serverFrame() > 20 })
	if flood {
		for end := time.Now().Add(8 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			batch := make([]game.Msg, 30)
			frame := eve.serverFrame() + 3
			for i := range batch {
				batch[i] = &game.Command{Seat: seat, ID: uint32(sent + i + 1), Frame: frame, Kind: world.CommandStop, Units: []uint32{1}}
			}
			sent += eve.send(batch...)
		}
	}
	srv, clients = c.finish()
	return srv, clients, sent
}

// udpCommandFlood: the same class played quiet and then with the student's flood; each honest
// player receives no more in the flood than in the quiet run, give or take what the seat's
// rate lets through (the allowance of the virtual attack, attackCommandFlood).
func udpCommandFlood(b *testing.B, server, client string) {
	quiet, quietClients, _ := playUDPFlood(b, server, client, false)
	srv, clients, sent := playUDPFlood(b, server, client, true)
	const perCommand = 40 // as attackCommandFlood: a relayed command of one unit, with its share of the datagram
	allowed := int64(128+50*8) * perCommand
	b.ReportMetric(float64(sent), "sent")
	b.ReportMetric(float64(srv.Game.CommandsTooFast), "too-fast")
	b.ReportMetric(float64(allowed), "allowed-B")
	b.Logf("%d commands sent in 8 s; server: %d refused as too fast, %d out of range, %d relayed in all (%d in the quiet run)",
		sent, srv.Game.CommandsTooFast, srv.Game.CommandsOutOfRange, srv.Game.CommandsIssued, quiet.Game.CommandsIssued)
	if sent < 5000 {
		b.Errorf("the attacker sent only %d commands", sent)
	}
	var most int64
	for _, p := range []string{"ann", "bob"} {
		got, was := clients[p].Net.BytesReceived, quietClients[p].Net.BytesReceived
		extra := int64(got) - int64(was)
		most = max(most, extra)
		b.Logf("%s received %d bytes, %d in the quiet run: %+d (at most %d allowed)", p, got, was, extra, allowed)
		if extra > allowed {
			b.Errorf("%s received %d bytes more than in the quiet run, want at most %d", p, extra, allowed)
		}
	}
	b.ReportMetric(float64(most), "extra-B")
	checkHonest(b, srv, clients, false)
}

// nsClass is a class in network namespaces: the server and the projector in the first, the
// student's program in the second (its addresses 198.18.9.1 to 198.18.9.250), and each honest
// client in one of its own (198.18.1.1, 198.18.1.2, …), all on one bridge.
type nsClass struct {
	*binClass
	k       *kernelNet
	program string         // the namespace of the student's program
	server  netip.AddrPort // the server's address
}

// nsProgramAddr is the student's program's address n (1 to 250).
func nsProgramAddr(n int) netip.Addr { return netip.AddrFrom4([4]byte{198, 18, 9, byte(n)}) }

// startNSClass makes the namespaces for honest (each honest client's name) and starts the
// server in its own, for play.
func startNSClass(b *testing.B, server, client string, play time.Duration, honest ...string) *nsClass {
	b.Helper()
	addrs := []string{"198.18.0.1/16", nsProgramAddr(1).String() + "/16"}
	for i := range honest {
		addrs = append(addrs, fmt.Sprintf("198.18.1.%d/16", i+1))
	}
	k := newNamespaces(b, addrs)
	for n := 2; n <= 250; n++ {
		if err := runTool("ip", "-n", k.hosts[1], "addr", "add", nsProgramAddr(n).String()+"/16", "dev", "eth0"); err != nil {
			b.Fatal(err)
		}
	}
	netns := func(name string) string {
		if i := slices.Index(honest, name); i >= 0 {
			return k.hosts[2+i]
		}
		return k.hosts[0] // the server, and the projector on its host
	}
	c := &nsClass{k: k, program: k.hosts[1], server: netip.MustParseAddrPort("198.18.0.1:7777")}
	c.binClass = startBinClassAt(b, c.server.String(), netns, server, client, play)
	return c
}

// dial opens the program's connections, one from each of addrs, each named after its address
// and port, as role.
func (c *nsClass) dial(addrs []netip.AddrPort, role wire.Role, name func(a netip.AddrPort) string) []*udpAttacker {
	var out []*udpAttacker
	for _, pc := range udpSockets(c.t, c.program, addrs) {
		a := pc.LocalAddr().(*net.UDPAddr).AddrPort()
		out = append(out, dialUDPAttacker(c.t, pc, c.server, transport.ClientConfig{Name: name(a), Role: role}))
	}
	return out
}

// spectatorName names a spectator connection of the program after its address and port.
func spectatorName(a netip.AddrPort) string {
	return fmt.Sprintf("eve%d-%d", a.Addr().As4()[3], a.Port())
}

// settledUDP waits until each of the connections is in the game (a seat's secret, or a
// spectator's number, came) or has ended, for up to d.
func settledUDP(t testing.TB, d time.Duration, conns []*udpAttacker) {
	t.Helper()
	waitWall(t, d, fmt.Sprintf("%d connections in or refused", len(conns)), func() bool {
		for _, a := range conns {
			if udpCount[*game.PlayerSecret](a)+udpCount[*game.Spectate](a) == 0 && a.stats().State != transport.Disconnected {
				return false
			}
		}
		return true
	})
}

// watched counts the names that played to the end as spectators.
func watched(clients map[string]game.Report, names ...string) (n int) {
	for _, name := range names {
		if r, ok := clients[name]; ok && r.Spectator != 0 {
			n++
		}
	}
	return n
}

// udpSpectatorPlacesOneNetwork: the program opens a spectator's connection from each address
// of its /24 in turn, as many as the server has places and 8 more, while ann and bob play;
// then four honest spectators join, each from a host of its own on another /24, and the
// projector from the server's host. Each of the five must watch to the end.
func udpSpectatorPlacesOneNetwork(b *testing.B, server, client string) {
	honest := []string{"ann", "bob", "sam", "tom", "uma", "vic"}
	c := startNSClass(b, server, client, 45*time.Second, honest...)
	c.joinFor(c.play, []string{"--bot", "--quiet"}, "ann", "bob")
	time.Sleep(2 * time.Second)
	addrs := make([]netip.AddrPort, game.MaxSpectators+8)
	for i := range addrs {
		addrs[i] = netip.AddrPortFrom(nsProgramAddr(1+i%250), uint16(40000+i/250))
	}
	began := time.Now()
	eve := c.dial(addrs, wire.RoleObserver, spectatorName)
	settledUDP(b, 20*time.Second, eve)
	in, refused := placesOf(eve, noRoom...)
	took := time.Since(began)
	b.Logf("the program's %d connections from one /24: %d in, %d refused, in %v", len(eve), in, refused, took.Round(time.Millisecond))

	watchers := []string{"sam", "tom", "uma", "vic", "projector"}
	c.joinFor(c.untilEnd(), []string{"--spectate"}, watchers...)
	time.Sleep(5 * time.Second)
	left, told := placesOf(eve, "your place went to a newcomer: your network holds")
	srv, clients := c.finish()
	got := watched(clients, watchers...)
	p := srv.Game.Places
	b.ReportMetric(float64(in), "program-in")
	b.ReportMetric(float64(refused), "program-refused")
	b.ReportMetric(float64(told), "taken-back")
	b.ReportMetric(float64(got), "honest-in")
	b.Logf("then: %d of the program's connections in, %d of them taken back with the reason; server: %d spectators joined, %d places taken back, %d refused, %d spectators dropped, frames late %d; %d of %d honest spectators watched to the end",
		left, told, srv.Game.Spectators.Joins, p.SpectatorsTakenBack, p.SpectatorsRefused, srv.Game.Spectators.Dropped, srv.Game.FramesLate, got, len(watchers))
	checkWatched(b, clients, watchers...)
	checkHonest(b, srv, clients, false)
}

// udpSpectatorPlacesOneAddress: the program opens -attack.places.address spectators'
// connections (40 by default) from one address, 8 at a time, each batch once the one before is
// in or refused; then four honest spectators and the projector join. Each of the five must
// watch to the end; where the program took more than its address's share, each honest
// spectator takes one back.
func udpSpectatorPlacesOneAddress(b *testing.B, server, client string) {
	honest := []string{"ann", "bob", "sam", "tom", "uma", "vic"}
	n := *udpOneAddress
	if n < 1 || n > 1000 {
		b.Fatalf("-attack.places.address %d: want 1 to 1000", n)
	}
	// The address's handshake budget lets about 8 connections a second through.
	c := startNSClass(b, server, client, 40*time.Second+time.Duration(n)*time.Second/8, honest...)
	c.joinFor(c.play, []string{"--bot", "--quiet"}, "ann", "bob")
	time.Sleep(2 * time.Second)
	began := time.Now()
	var eve []*udpAttacker
	for len(eve) < n {
		addrs := make([]netip.AddrPort, min(8, n-len(eve)))
		for j := range addrs {
			addrs[j] = netip.AddrPortFrom(nsProgramAddr(1), uint16(40000+len(eve)+j))
		}
		batch := c.dial(addrs, wire.RoleObserver, spectatorName)
		settledUDP(b, 15*time.Second, batch)
		eve = append(eve, batch...)
	}
	in, refused := placesOf(eve, noRoom...)
	took := time.Since(began)
	b.Logf("the program's %d connections from one address: %d in, %d refused (no room), %d ended otherwise, in %v", n, in, refused, n-in-refused, took.Round(time.Millisecond))

	watchers := []string{"sam", "tom", "uma", "vic", "projector"}
	c.joinFor(c.untilEnd(), []string{"--spectate"}, watchers...)
	time.Sleep(5 * time.Second)
	left, told := placesOf(eve, "your place went to a newcomer: your address holds")
	srv, clients := c.finish()
	got := watched(clients, watchers...)
	b.ReportMetric(float64(in), "program-in")
	b.ReportMetric(float64(told), "taken-back")
	b.ReportMetric(float64(got), "honest-in")
	b.Logf("then: %d of the program's connections in, %d taken back with the reason; server: %d spectators joined, %d places taken back, %d refused, %d handshakes throttled by address; %d of %d honest spectators watched to the end",
		left, told, srv.Game.Spectators.Joins, srv.Game.Places.SpectatorsTakenBack, srv.Game.Places.SpectatorsRefused, srv.Rejected.ThrottledAddress, got, len(watchers))
	checkWatched(b, clients, watchers...)
	checkHonest(b, srv, clients, false)
}

// udpSeatsOneAddress: the program takes 6 seats from one address (with the server's bot, 7 of
// 8); ann takes the last; then bob, cat, dan and fay join, each from a host of its own, and
// must play to the end in a seat. The program keeps its address's share, 2; its seventh
// connection finds no seat to take back, and watches.
func udpSeatsOneAddress(b *testing.B, server, client string) {
	honest := []string{"ann", "bob", "cat", "dan", "fay"}
	c := startNSClass(b, server, client, 40*time.Second, honest...)
	addrs := make([]netip.AddrPort, 6)
	for i := range addrs {
		addrs[i] = netip.AddrPortFrom(nsProgramAddr(1), uint16(40000+i))
	}
	n := 0
	eve := c.dial(addrs, wire.RolePlayer, func(netip.AddrPort) string { n++; return fmt.Sprintf("eve%d", n) })
	settledUDP(b, 15*time.Second, eve)
	c.joinFor(c.play, []string{"--bot", "--quiet"}, "ann")
	seats := eve[0].seated("eve1", "eve2", "eve3", "eve4", "eve5", "eve6", "ann", "bot1")
	b.Logf("the program holds %d seats", len(seats)-2)

	c.joinFor(c.untilEnd(), []string{"--bot", "--quiet"}, "bob", "cat", "dan", "fay")
	time.Sleep(5 * time.Second)
	left, told := placesOf(eve, "your place went to a newcomer: your address holds")
	again := c.dial([]netip.AddrPort{netip.AddrPortFrom(nsProgramAddr(1), 40100)}, wire.RolePlayer, func(netip.AddrPort) string { return "eve7" })[0]
	waitWall(b, 15*time.Second, "the program's seventh connection in", func() bool {
		return udpCount[*game.Spectate](again) > 0 || again.stats().State == transport.Disconnected
	})
	srv, clients := c.finish()
	played := 0
	for _, name := range honest {
		if r, ok := clients[name]; ok && r.Spectator == 0 {
			played++
		} else {
			b.Errorf("%s watched as spectator %d instead of playing", name, r.Spectator)
		}
	}
	b.ReportMetric(float64(len(seats)-2), "program-seats-before")
	b.ReportMetric(float64(left), "program-seats-after")
	b.ReportMetric(float64(told), "taken-back")
	b.ReportMetric(float64(played), "honest-played")
	b.Logf("then: %d of the program's seats left, %d taken back with the reason; its seventh connection got %d Spectates (%s); server: %d seats taken back; %d of %d honest players played",
		left, told, udpCount[*game.Spectate](again), stateText(again.stats()), srv.Game.Places.SeatsTakenBack, played, len(honest))
	if left > game.DefaultSeatsPerAddress {
		b.Errorf("the program keeps %d seats, want at most %d", left, game.DefaultSeatsPerAddress)
	}
	if udpCount[*game.Spectate](again) == 0 {
		b.Errorf("the program's seventh connection: %s; want it watching, no seat taken back", stateText(again.stats()))
	}
	checkHonest(b, srv, clients, false)
}
