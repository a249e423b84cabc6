package game

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// The headline benchmarks of a whole game: eight players (one bot on the server, seven bot
// clients) on the large map with about 2000 units, over real loopback UDP. Each one plays one
// game and reports what it measured with b.ReportMetric; none of them fails on a number. Run
// them with
//
//	go test ./game -run '^$' -bench . -benchtime 1x -v
//
// (-v prints each benchmark's whole log: where the bytes go, where a pause goes).
//
// How the 2000 units get into the game: after the start, the server schedules the same
// extra squads for every seat on every host at one frame a few seconds ahead (a UnitUpdate
// event put straight into each host's schedule, as if the game had started with bigger
// armies), and spawns enemies through its normal SpawnEnemy path for that same frame. Every
// host applies both at the start of that frame, so they stay in lockstep.

const (
	benchMap     = "continent"
	benchClients = 7 // plus one bot on the server: eight players
	setupFrames  = 30
	ipUDPHeader  = 28 // IPv4 + UDP header bytes per datagram, not counted by the transport
)

// benchScenario is the population of a benchmark game.
type benchScenario struct {
	name    string
	squads  int // extra squads per seat, on top of the starting one
	enemies int // enemies spawned up front
}

var (
	// armies: eight players with 245 units each (49 squads) and 40 enemies: about 2000 units
	// that stay about 2000 (enemies keep arriving, few units die).
	armies = benchScenario{name: "armies", squads: 48, enemies: 40}
	// battle: 1000 players' units against 1000 enemies scattered over the map: the world
	// shrinks as they fight, and every fallen enemy is a KillEnemy to each client.
	battle = benchScenario{name: "battle", squads: 24, enemies: 1000}
)

type benchGameSpec struct {
	link        *transport.LinkSettings // under the server's socket
	proxy       bool                    // route every client through a counting UDP relay
	realtimeMax int
}

// benchGame is a running game: the server, its clients, and what measures them.
type benchGame struct {
	srv      *Server
	cs       []*Client
	proxies  []*countingProxy
	srvTrace *bytes.Buffer
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	events   []string // the server's event lines, gathered while running
	seen     map[string]bool
}

func startBenchGame(b *testing.B, sp benchGameSpec) *benchGame {
	b.Helper()
	g := &benchGame{srvTrace: new(bytes.Buffer), seen: map[string]bool{}}
	scfg := ServerConfig{Listen: "127.0.0.1:0", Map: benchMap, Bots: 1, MinPlayers: benchClients,
		StartDelay: 500 * time.Millisecond, RealtimeMax: sp.realtimeMax, Trace: g.srvTrace}
	scfg.Transport.Link = sp.link
	srv, err := NewServer(scfg)
	if err != nil {
		b.Fatal(err)
	}
	g.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	g.wg.Add(1)
	go func() { defer g.wg.Done(); srv.Run(ctx) }()
	for i := range benchClients {
		addr := srv.Addr()
		if sp.proxy {
			p, err := newCountingProxy(srv.Addr())
			if err != nil {
				g.stop()
				b.Fatal(err)
			}
			g.proxies = append(g.proxies, p)
			addr = p.Addr()
		}
		c, err := NewClient(ClientConfig{Connect: addr, Name: fmt.Sprintf("c%d", i+1), Bot: true, Seed: uint64(i + 1)})
		if err != nil {
			g.stop()
			b.Fatal(err)
		}
		g.cs = append(g.cs, c)
		g.wg.Add(1)
		go func() { defer g.wg.Done(); c.Run(ctx) }()
	}
	deadline := time.Now().Add(20 * time.Second)
	for !g.allStarted() {
		if time.Now().After(deadline) {
			g.stop()
			b.Fatal("the game did not start within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return g
}

func (g *benchGame) allStarted() bool {
	if !g.srv.Snapshot().Running {
		return false
	}
	for _, c := range g.cs {
		if !c.Snapshot().Started {
			return false
		}
	}
	return true
}

// stop ends the game and waits for every host's loop to return.
func (g *benchGame) stop() {
	g.cancel()
	g.wg.Wait()
	for _, p := range g.proxies {
		p.Close()
	}
	g.gatherEvents()
}

// gatherEvents keeps the server's event lines (its snapshot holds only the latest 200).
func (g *benchGame) gatherEvents() {
	for _, e := range g.srv.Snapshot().Events {
		if !g.seen[e] {
			g.seen[e] = true
			g.events = append(g.events, e)
		}
	}
}

// onServer runs f on the server's loop and returns its result.
func onServer[T any](b *testing.B, s *Server, f func(*Server) T) T {
	ch := make(chan T, 1)
	s.Do(func(s *Server) { ch <- f(s) })
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		b.Fatal("the server's loop did not answer within 10 s")
	}
	panic("unreachable")
}

// onClient runs f on a client's loop and returns its result.
func onClient[T any](b *testing.B, c *Client, f func(*Client) T) T {
	ch := make(chan T, 1)
	c.Do(func(c *Client) { ch <- f(c) })
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		b.Fatal("a client's loop did not answer within 10 s")
	}
	panic("unreachable")
}

// populate puts the scenario's units into every host's world at one frame a few seconds
// ahead and returns that frame.
func (g *benchGame) populate(b *testing.B, sc benchScenario) uint32 {
	b.Helper()
	type setup struct {
		frame  uint32
		update *UnitUpdate
		err    error
	}
	su := onServer(b, g.srv, func(s *Server) setup {
		f := s.w.Frame() + setupFrames
		up, err := extraSquads(s.cfg.Map, s.cfg.Seed, s.seatList(), sc.squads, f)
		if err != nil {
			return setup{err: err}
		}
		s.sched.add(event{frame: f, kind: evUpdate, update: up})
		spawnEnemiesNow(s, time.Now(), f, sc.enemies, rand.New(rand.NewPCG(2000, 2000)))
		return setup{frame: f, update: up}
	})
	if su.err != nil {
		b.Fatal(su.err)
	}
	for i, c := range g.cs {
		ok := onClient(b, c, func(c *Client) bool {
			if c.w == nil || c.w.Frame() >= su.frame {
				return false
			}
			c.sched.add(event{frame: su.frame, kind: evUpdate, update: su.update})
			return true
		})
		if !ok {
			b.Fatalf("client %d was already past frame %d when the extra squads were scheduled", i+1, su.frame)
		}
	}
	return su.frame
}

// extraSquads is a UnitUpdate with squads more starting squads for each seat, placed as
// AddPlayerUnits would place them in a world that began with one squad per seat.
func extraSquads(mapName string, seed uint64, seats []uint8, squads int, frame uint32) (*UnitUpdate, error) {
	w, err := world.NewWorld(mapName, seed)
	if err != nil {
		return nil, err
	}
	for _, s := range seats {
		if _, err := w.AddPlayerUnits(s); err != nil {
			return nil, err
		}
	}
	first := len(w.Units())
	for range squads {
		for _, s := range seats {
			if _, err := w.AddPlayerUnits(s); err != nil {
				return nil, err
			}
		}
	}
	return &UnitUpdate{Frame: frame, Units: slices.Clone(w.Units()[first:])}, nil
}

// spawnEnemiesNow spawns n enemies at frame on random ground reachable from seat 0's spawn,
// the way the server's enemies does: scheduled on the server, a SpawnEnemy to every client.
// Server loop only.
func spawnEnemiesNow(s *Server, now time.Time, frame uint32, n int, rng *rand.Rand) {
	kinds := enemyKinds()
	sx, sy, _ := s.w.Spawn(0)
	for placed := 0; placed < n; {
		x, y := rng.Int32N(s.w.Width()), rng.Int32N(s.w.Height())
		if s.w.Terrain(x, y) != world.Ground || !s.w.Reachable(sx, sy, x, y) {
			continue
		}
		sp := &SpawnEnemy{Frame: frame, ID: s.nextEnemyID, Kind: kinds[rng.IntN(len(kinds))], X: x, Y: y}
		s.nextEnemyID++
		s.stats.EnemiesSpawned++
		s.sched.add(event{frame: sp.Frame, kind: evSpawn, id: sp.ID, spawn: sp})
		for _, st := range s.seats {
			if st != nil && st.peer != nil && st.started {
				s.sendSpawn(st, now, sp)
			}
		}
		placed++
	}
}

// waitFrame waits until the server's world reaches frame f.
func (g *benchGame) waitFrame(b *testing.B, f uint32, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for g.srv.Snapshot().Frame < f {
		if time.Now().After(deadline) {
			b.Fatalf("the server did not reach frame %d within %v (at %d)", f, limit, g.srv.Snapshot().Frame)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unitCount is the number of units in the server's world.
func (g *benchGame) unitCount(b *testing.B) int {
	return onServer(b, g.srv, func(s *Server) int { return len(s.w.Units()) })
}

// clientNet sums, over the clients, their connection's counters.
type clientNet struct {
	at                       time.Time
	bytesIn, bytesOut        []uint64 // per client: received from the server, sent to it
	packetsIn, packetsOut    []uint64
	late, issued             []uint64
	serverRelayed, serverRes uint64
	serverSTW                uint64
	serverMismatchedUnits    uint64
}

func (g *benchGame) netNow() clientNet {
	n := clientNet{at: time.Now()}
	for _, c := range g.cs {
		st := c.Transport().Stats().Server
		n.bytesIn = append(n.bytesIn, st.BytesReceived)
		n.bytesOut = append(n.bytesOut, st.BytesSent)
		n.packetsIn = append(n.packetsIn, st.PacketsReceived)
		n.packetsOut = append(n.packetsOut, st.PacketsSent)
		r := c.Snapshot().Report
		n.late = append(n.late, r.Game.CommandsLate)
		n.issued = append(n.issued, r.Game.CommandsIssued)
	}
	ss := g.srv.Snapshot().Stats
	n.serverRelayed, n.serverRes, n.serverSTW, n.serverMismatchedUnits = ss.CommandsRelayed, ss.RealtimeResyncs, ss.StopWorldResyncs, ss.MismatchedUnits
	return n
}

// perSecond is (b[i]-a[i])/secs for each client.
func perSecond(a, b []uint64, secs float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = float64(b[i]-a[i]) / secs
	}
	return out
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// hashAgreement compares the world hashes in the final reports: at every frame recorded by
// both the server and a client after the last re-sync, they should be equal.
func (g *benchGame) hashAgreement() (compared, differ int) {
	srv := g.srv.Snapshot().Report
	for _, c := range g.cs {
		r := c.Snapshot().Report
		for f, h := range r.WorldHashes {
			n, _ := strconv.Atoi(f)
			sh, ok := srv.WorldHashes[f]
			if !ok || uint32(n) <= srv.Sync.LastResyncFrame {
				continue
			}
			compared++
			if sh != h {
				differ++
			}
		}
	}
	return compared, differ
}

// BenchmarkBandwidth: bytes per second per client, down (server → client) and up, for eight
// players and about 2000 units without loss, over 20 s of play after the units appear.
// The target is the 28.8 kbit/s modem of the classic lockstep RTS paper: 3,600 B/s down.
// The bytes are the transport's counters (UDP payloads: checksum, packet header, records);
// the per-message breakdown comes from a relay in front of each client that parses every
// datagram it forwards.
func BenchmarkBandwidth(b *testing.B) {
	if testing.Short() {
		b.Skip("a 30 s game; skipped with -short")
	}
	for _, sc := range []benchScenario{armies, battle} {
		b.Run(sc.name, func(b *testing.B) {
			for b.Loop() {
				benchBandwidth(b, sc, 20*time.Second)
			}
		})
	}
}

func benchBandwidth(b *testing.B, sc benchScenario, window time.Duration) {
	g := startBenchGame(b, benchGameSpec{proxy: true})
	f := g.populate(b, sc)
	g.waitFrame(b, f+20, 15*time.Second) // the setup's bytes are sent and acknowledged
	units0 := g.unitCount(b)
	for _, p := range g.proxies {
		p.counting.Store(true)
	}
	n0 := g.netNow()
	time.Sleep(window)
	n1 := g.netNow()
	for _, p := range g.proxies {
		p.counting.Store(false)
	}
	units1 := g.unitCount(b)
	g.stop()

	secs := n1.at.Sub(n0.at).Seconds()
	down, up := perSecond(n0.bytesIn, n1.bytesIn, secs), perSecond(n0.bytesOut, n1.bytesOut, secs)
	pktDown, pktUp := perSecond(n0.packetsIn, n1.packetsIn, secs), perSecond(n0.packetsOut, n1.packetsOut, secs)
	b.ReportMetric(mean(down), "down-B/s")
	b.ReportMetric(slices.Max(down), "down-max-B/s")
	b.ReportMetric(mean(up), "up-B/s")
	b.ReportMetric(slices.Max(up), "up-max-B/s")
	b.ReportMetric(mean(down)+ipUDPHeader*mean(pktDown), "down-with-IP-UDP-B/s")
	b.ReportMetric(mean(pktDown), "down-pkts/s")
	b.ReportMetric(mean(pktUp), "up-pkts/s")
	b.ReportMetric(float64(units0), "units-start")
	b.ReportMetric(float64(units1), "units-end")

	compared, differ := g.hashAgreement()
	late := uint64(0)
	for i := range n0.late {
		late += n1.late[i] - n0.late[i]
	}
	b.Logf("%s: %.1f s window, units %d → %d; per client down %.0f B/s (max %.0f), up %.0f B/s (max %.0f); packets %.1f/s down, %.1f/s up",
		sc.name, secs, units0, units1, mean(down), slices.Max(down), mean(up), slices.Max(up), mean(pktDown), mean(pktUp))
	b.Logf("lockstep: late commands on clients %d, real-time re-syncs %d, stop-the-world %d, mismatched units %d; world hashes compared %d, differing %d",
		late, n1.serverRes-n0.serverRes, n1.serverSTW-n0.serverSTW, n1.serverMismatchedUnits-n0.serverMismatchedUnits, compared, differ)
	var downT, upT typeBytes
	for _, p := range g.proxies {
		downT.merge(&p.down)
		upT.merge(&p.up)
	}
	perClient := secs * float64(len(g.proxies))
	b.Logf("down, per client, as the relay parsed it:\n%s", downT.table(perClient))
	b.Logf("up, per client, as the relay parsed it:\n%s", upT.table(perClient))
}

// BenchmarkLeadTime: the command lead time the server settles on when every client has a
// 100 ms round trip (50 ms each way under the server's socket), eight players, 2000 units,
// without loss and with 10% loss each way. The target is at most 250 ms. It also reports how
// many relayed commands arrive after their frame at the clients (and are applied late and
// fast-forwarded).
func BenchmarkLeadTime(b *testing.B) {
	if testing.Short() {
		b.Skip("a 30 s game; skipped with -short")
	}
	for _, loss := range []float64{0, 10} {
		b.Run(fmt.Sprintf("rtt=100ms/loss=%g%%", loss), func(b *testing.B) {
			for b.Loop() {
				benchLeadTime(b, loss)
			}
		})
	}
}

func benchLeadTime(b *testing.B, loss float64) {
	half := linksim.Settings{Latency: 50 * time.Millisecond, LossPercent: loss}
	g := startBenchGame(b, benchGameSpec{link: &transport.LinkSettings{Out: half, In: half}})
	f := g.populate(b, armies)
	g.waitFrame(b, f, 15*time.Second)
	// Let the lead settle (it may change every 2 s), then watch it for 15 s.
	time.Sleep(5 * time.Second)
	n0 := g.netNow()
	var leads []uint32
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		leads = append(leads, g.srv.Snapshot().Lead)
	}
	n1 := g.netNow()
	var rtt, pingAvg []float64
	for _, c := range g.cs {
		st := c.Transport().Stats().Server
		rtt = append(rtt, float64(st.RTT)/float64(time.Millisecond))
		pingAvg = append(pingAvg, float64(st.PingAvg)/float64(time.Millisecond))
	}
	units := g.unitCount(b)
	g.stop()
	snap := g.srv.Snapshot()
	frameMs := float64(DefaultFrame / time.Millisecond)
	leadMs := float64(snap.Report.Game.LeadTimeMillis)
	late, received := uint64(0), uint64(0)
	for i := range n0.late {
		late += n1.late[i] - n0.late[i]
		// every command relayed in the window except the client's own reached it
		received += (n1.serverRelayed - n0.serverRelayed) - (n1.issued[i] - n0.issued[i])
	}
	b.ReportMetric(leadMs, "lead_time_ms")
	b.ReportMetric(float64(slices.Min(leads))*frameMs, "lead-min-ms")
	b.ReportMetric(float64(slices.Max(leads))*frameMs, "lead-max-ms")
	b.ReportMetric(mean(pingAvg), "ping-rtt-ms")
	b.ReportMetric(mean(rtt), "srtt-ms")
	b.ReportMetric(100*float64(late)/float64(max(received, 1)), "late-cmd-%")
	b.Logf("lead %v ms (in the last 15 s between %d and %d frames; %d changes), ping RTT %.1f ms, smoothed RTT %.1f ms, %d units",
		leadMs, slices.Min(leads), slices.Max(leads), snap.Stats.LeadChanges, mean(pingAvg), mean(rtt), units)
	b.Logf("late relayed commands at the clients: %d of %d (%.1f%%); real-time re-syncs %d, stop-the-world %d in the window",
		late, received, 100*float64(late)/float64(max(received, 1)), n1.serverRes-n0.serverRes, n1.serverSTW-n0.serverSTW)
}

// BenchmarkStopTheWorld: the pauses of stop-the-world re-syncs with 2000 units and 10% loss
// each way under the server's socket, without and with 50 ms of latency each way. It forces
// them: with RealtimeMax 4, a client whose 40 units were corrupted (InjectDesync) is found
// by the next hash reports and answered with a pause. One is forced at a time, the next
// after the previous resumed, for about 38 s; the pause is the server's, from the moment its
// world reached the paused frame to the moment it resumed (Resume's wait included).
func BenchmarkStopTheWorld(b *testing.B) {
	if testing.Short() {
		b.Skip("a 55 s game; skipped with -short")
	}
	for _, latency := range []time.Duration{0, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("loss=10%%/rtt=%dms", 2*latency/time.Millisecond), func(b *testing.B) {
			for b.Loop() {
				benchStopTheWorld(b, linksim.Settings{LossPercent: 10, Latency: latency})
			}
		})
	}
}

func benchStopTheWorld(b *testing.B, link linksim.Settings) {
	g := startBenchGame(b, benchGameSpec{link: &transport.LinkSettings{Out: link, In: link}, realtimeMax: 4})
	f := g.populate(b, armies)
	g.waitFrame(b, f+10, 15*time.Second)
	units := g.unitCount(b)
	type state struct {
		pending bool
		done    int
	}
	serverState := func() state {
		return onServer(b, g.srv, func(s *Server) state { return state{s.pause != nil, len(s.stats.PauseMillis)} })
	}
	forced := 0
	for end, k := time.Now().Add(38*time.Second), 0; time.Now().Before(end); k++ {
		g.gatherEvents()
		st := serverState()
		if st.pending {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		c := g.cs[k%len(g.cs)]
		c.Do(func(c *Client) { c.InjectDesync(40) })
		forced++
		for wait := time.Now().Add(15 * time.Second); time.Now().Before(wait) && serverState().done == st.done; {
			g.gatherEvents()
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
	}
	for wait := time.Now().Add(8 * time.Second); time.Now().Before(wait) && serverState().pending; {
		time.Sleep(50 * time.Millisecond)
	}
	sizes := onServer(b, g.srv, func(s *Server) [2]int {
		wh, _ := AppendMsg(nil, &WorldHashes{Frame: s.w.Frame(), Hashes: s.w.UnitHashes(1, world.MaxUnitID, nil)})
		state, _ := s.w.AppendState(nil)
		return [2]int{len(wh), len(state)}
	})
	hashesLen, stateLen := sizes[0], sizes[1]
	g.stop()

	snap := g.srv.Snapshot()
	pauses := slices.Clone(snap.Stats.PauseMillis)
	if len(pauses) == 0 {
		b.Fatalf("no stop-the-world pause in %d tries", forced)
	}
	slices.Sort(pauses)
	var clientPauses []int64
	for _, c := range g.cs {
		clientPauses = append(clientPauses, c.Snapshot().Report.Sync.PauseMillis...)
	}
	slices.Sort(clientPauses)
	b.ReportMetric(float64(len(pauses)), "pauses")
	b.ReportMetric(float64(percentile(pauses, 50)), "pause-p50-ms")
	b.ReportMetric(float64(percentile(pauses, 95)), "pause-p95-ms")
	b.ReportMetric(float64(pauses[len(pauses)-1]), "pause-max-ms")
	if len(clientPauses) > 0 {
		// A client's pause runs from its own arrival at the paused frame to its own resume:
		// the freeze its player sees.
		b.ReportMetric(float64(percentile(clientPauses, 50)), "client-pause-p50-ms")
		b.ReportMetric(float64(percentile(clientPauses, 95)), "client-pause-p95-ms")
		b.ReportMetric(float64(clientPauses[len(clientPauses)-1]), "client-pause-max-ms")
	}
	b.Logf("%d units, %d pauses forced, %d stop-the-world re-syncs, %d real-time re-syncs; server pauses (ms) %v; client pauses p50 %d, p95 %d, max %d ms",
		units, forced, snap.Stats.StopWorldResyncs, snap.Stats.RealtimeResyncs, pauses,
		percentile(clientPauses, 50), percentile(clientPauses, 95), slices.Max(append(clientPauses, 0)))
	b.Logf("a client's WorldHashes of this world: %d bytes (%d fragments at a 1200-byte MTU); the world state in the last ResyncBatch: %d bytes (%d fragments)",
		hashesLen, fragmentsAt1200(hashesLen), stateLen, fragmentsAt1200(stateLen))
	b.Logf("where a pause goes (medians over the pauses, ms):\n%s", g.pausePhases())
}

// fragmentsAt1200 is how many fragments a guaranteed message of n bytes without dependencies
// takes at the default MTU: the stack's rule (net/message maxChunk) for 1200 bytes: the room
// of an empty packet (1200 less checksum and the largest header) less the fragment record's
// overhead.
func fragmentsAt1200(n int) int {
	chunk := 1200 - wire.ChecksumSize - wire.MaxHeaderSize - (1 + wire.SeqListSize(0) + 2 + wire.SizeUInt30(uint32(n)) + 2)
	if n <= chunk {
		return 1
	}
	return (n + chunk - 1) / chunk
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// pausePhases splits each pause at the server into: waiting for the last client's
// WorldHashes, then for the last BatchApplied, then the Resume's wait. The times come from
// the server's event lines (wall clock) and its trace of executed messages.
func (g *benchGame) pausePhases() string {
	day := func(t time.Time) time.Duration {
		h, m, s := t.Clock()
		return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second + time.Duration(t.Nanosecond())
	}
	type mark struct {
		at   time.Duration // since midnight
		what string
	}
	var marks []mark
	for _, e := range g.events {
		ts, rest, ok := strings.Cut(e, " ")
		if !ok {
			continue
		}
		t, err := time.ParseInLocation("15:04:05.000", ts, time.Local)
		if err != nil {
			continue
		}
		at := day(t)
		switch {
		case strings.Contains(rest, ": stop the world"):
			marks = append(marks, mark{at, "stop"})
		case strings.Contains(rest, ": paused"):
			marks = append(marks, mark{at, "paused"})
		case strings.Contains(rest, ": resumed"):
			marks = append(marks, mark{at, "resumed"})
		}
	}
	start := g.srv.trace.start
	sc := bufio.NewScanner(bytes.NewReader(g.srvTrace.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l traceLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if l.Type == "WorldHashes" || l.Type == "BatchApplied" || l.Type == "UnitHashes" {
			marks = append(marks, mark{day(start.Add(time.Duration(l.TMillis) * time.Millisecond)), l.Type})
		}
	}
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].at < marks[j].at })
	var decide, hashes, batches, resume, total []int64
	for i, m := range marks {
		if m.what != "paused" {
			continue
		}
		// The decision before it, then every WorldHashes and BatchApplied until it resumed.
		var stop, lastHashes, lastApplied, resumed time.Duration
		for j := i - 1; j >= 0 && stop == 0; j-- {
			if marks[j].what == "stop" {
				stop = marks[j].at
			}
		}
		for j := i - 1; j >= 0 && marks[j].at >= stop; j-- {
			if marks[j].what == "WorldHashes" {
				lastHashes = max(lastHashes, marks[j].at)
			}
		}
		for j := i + 1; j < len(marks) && resumed == 0; j++ {
			switch marks[j].what {
			case "WorldHashes":
				lastHashes = max(lastHashes, marks[j].at)
			case "BatchApplied":
				lastApplied = marks[j].at
			case "resumed":
				resumed = marks[j].at
			}
		}
		if resumed == 0 || stop == 0 {
			continue
		}
		lastHashes = max(lastHashes, m.at)
		lastApplied = max(lastApplied, lastHashes)
		decide = append(decide, (m.at - stop).Milliseconds())
		hashes = append(hashes, (lastHashes - m.at).Milliseconds())
		batches = append(batches, (lastApplied - lastHashes).Milliseconds())
		resume = append(resume, (resumed - lastApplied).Milliseconds())
		total = append(total, (resumed - m.at).Milliseconds())
	}
	med := func(v []int64) int64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return percentile(v, 50)
	}
	p95 := func(v []int64) int64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return percentile(v, 95)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "  %d pauses matched in the event log\n", len(total))
	fmt.Fprintf(&sb, "  decision → paused frame reached (not part of the pause): p50 %d, p95 %d\n", med(decide), p95(decide))
	fmt.Fprintf(&sb, "  paused → last WorldHashes in:                           p50 %d, p95 %d\n", med(hashes), p95(hashes))
	fmt.Fprintf(&sb, "  last WorldHashes → last BatchApplied in:                p50 %d, p95 %d\n", med(batches), p95(batches))
	fmt.Fprintf(&sb, "  last BatchApplied → resumed (Resume's wait):            p50 %d, p95 %d\n", med(resume), p95(resume))
	fmt.Fprintf(&sb, "  total:                                                  p50 %d, p95 %d", med(total), p95(total))
	return sb.String()
}

// countingProxy relays one client's datagrams to the server and back, and counts the bytes of
// each game message type in each direction while counting is on.
type countingProxy struct {
	front    *net.UDPConn // the client talks to this socket
	back     *net.UDPConn // connected to the server
	client   atomic.Pointer[netip.AddrPort]
	counting atomic.Bool
	down, up typeBytes
	done     sync.WaitGroup
}

func newCountingProxy(server string) (*countingProxy, error) {
	sa, err := netip.ParseAddrPort(server)
	if err != nil {
		return nil, err
	}
	front, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(sa.Addr(), 0)))
	if err != nil {
		return nil, err
	}
	back, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(sa))
	if err != nil {
		front.Close()
		return nil, err
	}
	p := &countingProxy{front: front, back: back}
	p.done.Add(2)
	go func() { // client → server
		defer p.done.Done()
		buf := make([]byte, 2048)
		for {
			n, from, err := front.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			p.client.Store(&from)
			if p.counting.Load() {
				p.up.add(buf[:n])
			}
			back.Write(buf[:n])
		}
	}()
	go func() { // server → client
		defer p.done.Done()
		buf := make([]byte, 2048)
		for {
			n, err := back.Read(buf)
			if err != nil {
				return
			}
			to := p.client.Load()
			if to == nil {
				continue
			}
			if p.counting.Load() {
				p.down.add(buf[:n])
			}
			front.WriteToUDPAddrPort(buf[:n], *to)
		}
	}()
	return p, nil
}

func (p *countingProxy) Addr() string { return p.front.LocalAddr().String() }

func (p *countingProxy) Close() {
	p.front.Close()
	p.back.Close()
	p.done.Wait()
}

// typeBytes attributes the bytes of datagrams to what they carry: a record's bytes (kind,
// sequence list, length, payload) to the game message type of its payload, the checksum and
// Data header to "packet headers", datagrams other than Data to "connection packets".
type typeBytes struct {
	mu        sync.Mutex
	bytes     map[string]uint64
	msgs      map[string]uint64
	recordOH  uint64 // of the record bytes: kind, sequence list and length
	datagrams uint64
	ackOnly   uint64 // Data packets without records: acknowledgements and keepalives
	total     uint64
	fragType  map[uint16]string
	rec       wire.Record
}

const (
	catHeaders    = "packet headers (checksum, seq, acks)"
	catConnection = "connection packets (ping, pong)"
	catBroken     = "unparsed"
)

func (t *typeBytes) add(d []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bytes == nil {
		t.bytes, t.msgs, t.fragType = map[string]uint64{}, map[string]uint64{}, map[uint16]string{}
		t.rec.Deps = make([]uint16, 0, wire.MaxDeps)
	}
	t.datagrams++
	t.total += uint64(len(d))
	if len(d) < wire.ChecksumSize+1 || wire.PacketType(d[wire.ChecksumSize]) != wire.TypeData {
		t.bytes[catConnection] += uint64(len(d))
		t.msgs[catConnection]++
		return
	}
	_, n, err := wire.ParseHeader(d[wire.ChecksumSize:])
	if err != nil {
		t.bytes[catBroken] += uint64(len(d))
		return
	}
	t.bytes[catHeaders] += uint64(wire.ChecksumSize + n)
	t.msgs[catHeaders]++
	rest := d[wire.ChecksumSize+n:]
	if len(rest) == 0 {
		t.ackOnly++
	}
	for len(rest) > 0 {
		m, err := wire.ParseRecord(rest, &t.rec)
		if err != nil {
			t.bytes[catBroken] += uint64(len(rest))
			return
		}
		name := catBroken
		switch t.rec.Kind {
		case wire.KindUnreliable, wire.KindGuaranteed:
			name = payloadName(t.rec.Payload)
		case wire.KindFragment:
			if t.rec.FragIndex == 0 {
				t.fragType[t.rec.Seq] = payloadName(t.rec.Payload)
			}
			name = t.fragType[t.rec.Seq]
			if name == "" {
				name = "fragment (type unknown)"
			}
		}
		t.bytes[name] += uint64(m)
		if t.rec.Kind != wire.KindFragment || t.rec.FragIndex == 0 {
			t.msgs[name]++
		}
		t.recordOH += uint64(m - len(t.rec.Payload))
		rest = rest[m:]
	}
}

func payloadName(p []byte) string {
	if len(p) == 0 {
		return "empty"
	}
	return MsgType(p[0]).String()
}

func (t *typeBytes) merge(o *typeBytes) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if t.bytes == nil {
		t.bytes, t.msgs = map[string]uint64{}, map[string]uint64{}
	}
	for k, v := range o.bytes {
		t.bytes[k] += v
	}
	for k, v := range o.msgs {
		t.msgs[k] += v
	}
	t.recordOH += o.recordOH
	t.datagrams += o.datagrams
	t.ackOnly += o.ackOnly
	t.total += o.total
}

// table lists the categories by bytes, divided by clientSeconds (clients × seconds).
func (t *typeBytes) table(clientSeconds float64) string {
	names := make([]string, 0, len(t.bytes))
	for k := range t.bytes {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return t.bytes[names[i]] > t.bytes[names[j]] })
	var sb strings.Builder
	fmt.Fprintf(&sb, "  %-40s %10s %8s %10s %10s\n", "what", "B/s", "share", "per s", "B each")
	for _, k := range names {
		bs := float64(t.bytes[k]) / clientSeconds
		each := 0.0
		if t.msgs[k] > 0 {
			each = float64(t.bytes[k]) / float64(t.msgs[k])
		}
		fmt.Fprintf(&sb, "  %-40s %10.0f %7.1f%% %10.1f %10.1f\n", k, bs, 100*float64(t.bytes[k])/float64(max(t.total, 1)), float64(t.msgs[k])/clientSeconds, each)
	}
	fmt.Fprintf(&sb, "  %-40s %10.0f   (%.1f datagrams/s, %.1f of them without records; record overhead %.0f B/s)", "total",
		float64(t.total)/clientSeconds, float64(t.datagrams)/clientSeconds, float64(t.ackOnly)/clientSeconds, float64(t.recordOH)/clientSeconds)
	return sb.String()
}
