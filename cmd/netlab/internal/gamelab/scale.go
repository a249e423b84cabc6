package gamelab

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/ackattack/ackattack/cmd/netlab/internal/report"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// ScaleConfig is the scale experiment's setting: one game per number of clients and of units.
type ScaleConfig struct {
	Link   linksim.Settings
	Seed   uint64
	Frames int // frames measured per game (100 ms each)
	// Clients are the games' numbers of bot clients: the first world.MaxPlayers play, those
	// beyond them watch as spectators (up to game.MaxSpectators more).
	Clients []int
	Units   []int
	// CPU times the server's calls by the wall clock: this machine's numbers, not the game's.
	CPU bool
	// Direct is the server's --direct: whether the players' orders also go over direct links.
	Direct game.DirectMode
}

// ScaleRow is one game's measurement over its window.
type ScaleRow struct {
	Clients, Units       int         // the game's setting
	Spectators           int         // of the clients, those beyond the seats
	UnitsStart, UnitsEnd int         // in the server's world when the window began and ended
	Seconds              float64     // of game time measured
	Up, Down             report.Dist // B/s per player: sent to the server, sent by the server to it
	DirectIn             float64     // B/s per player received on the direct links from the other players
	PacketsDown          float64     // datagrams/s per player from the server
	// Play and Idle are each player's traffic over all its links, the server's and the direct
	// ones: while the bots play (the measured window), and once they stopped (IdleFrames more,
	// after a second to settle), when the game still runs its frames but nobody gives orders.
	Play, Idle       Traffic
	SpecUp, SpecDown report.Dist // B/s per spectator, as Up and Down
	// With CPU: the server's work (every call into its session) per second of game time, per
	// frame period, and how many frame periods took more work than the period lasts.
	ServerMsPerSec float64
	FrameWork      report.Dist // ms per 100 ms frame period
	Missed         int
	Periods        int
	FramesLate     uint64 // the server's own count (0 in virtual time: it is ticked on time)
}

// UDPHeader is what IPv4 and UDP put in front of every datagram's payload: 20 and 8 bytes.
const UDPHeader = 28

// ModemBytes is what a 28.8 kbit/s modem carries each way, in bytes a second: what Age of
// Empires fitted eight players into.
const ModemBytes = 28800 / 8

// IdleFrames is how many frames the idle window of a scale game lasts.
const IdleFrames = 50

// Traffic is a player's datagrams over all its links in a window, per second: what it sent
// and what reached it (its link up and its link down), the mean over the players, and the
// datagrams per second each connection sent in each direction.
type Traffic struct {
	In, Out           float64 // B/s, UDP payloads
	InWire, OutWire   float64 // B/s with UDPHeader per datagram
	DgramIn, DgramOut float64 // datagrams/s over all links
	// Datagrams/s on one connection, one way: the server's link down (to the player) and up,
	// and a direct link (the mean over the player's direct links, each way).
	Down, Up, Direct float64
}

// trafficCounter counts every datagram a host sends while on, by player.
type trafficCounter struct {
	on                         bool
	player                     map[string]int // address → player index
	server                     string
	in, out, inN, outN         []uint64
	downN, upN, directN, links []uint64
}

func newTrafficCounter(g *vgame) *trafficCounter {
	t := &trafficCounter{player: map[string]int{}, server: g.srvAddr.String()}
	for i := range g.players {
		t.player[g.caddrs[i].String()] = i
	}
	n := g.players
	t.in, t.out, t.inN, t.outN = make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]uint64, n)
	t.downN, t.upN, t.directN = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	return t
}

func (t *trafficCounter) sent(from, to string, data []byte) {
	if !t.on {
		return
	}
	src, fromPlayer := t.player[from]
	dst, toPlayer := t.player[to]
	if fromPlayer {
		t.out[src] += uint64(len(data))
		t.outN[src]++
		if to == t.server {
			t.upN[src]++
		}
	}
	if toPlayer {
		switch {
		case from == t.server:
			t.downN[dst]++
		case fromPlayer:
			t.directN[dst]++
		}
	}
}

// arrived counts a datagram the network delivered (a copy it made too): what reaches a
// player's socket is what its link down carries.
func (t *trafficCounter) arrived(d linksim.Datagram) {
	if dst, ok := t.player[d.To]; ok && t.on {
		t.in[dst] += uint64(len(d.Data))
		t.inN[dst]++
	}
}

// reset zeroes the counters and turns counting on.
func (t *trafficCounter) reset() {
	for _, c := range [][]uint64{t.in, t.out, t.inN, t.outN, t.downN, t.upN, t.directN} {
		clear(c)
	}
	t.on = true
}

// traffic is the mean per player over seconds of counting.
func (t *trafficCounter) traffic(seconds float64) Traffic {
	var r Traffic
	n := float64(len(t.in))
	if n == 0 || seconds <= 0 {
		return r
	}
	links := max(n-1, 1) // each player's direct links: one to every other player
	for i := range t.in {
		r.In += float64(t.in[i]) / seconds / n
		r.Out += float64(t.out[i]) / seconds / n
		r.DgramIn += float64(t.inN[i]) / seconds / n
		r.DgramOut += float64(t.outN[i]) / seconds / n
		r.Down += float64(t.downN[i]) / seconds / n
		r.Up += float64(t.upN[i]) / seconds / n
		r.Direct += float64(t.directN[i]) / seconds / n / links
	}
	r.InWire = r.In + UDPHeader*r.DgramIn
	r.OutWire = r.Out + UDPHeader*r.DgramOut
	return r
}

// ScaleResult is every game of the grid.
type ScaleResult struct {
	Config ScaleConfig
	Rows   []ScaleRow
}

// timedServer is the server's session with a stopwatch around every call while on: the work
// is added to the frame period its virtual time falls in.
type timedServer struct {
	game.Session
	on     bool
	from   time.Time
	period time.Duration
	work   []time.Duration
}

func (t *timedServer) time(now time.Time, began time.Time) {
	if !t.on {
		return
	}
	i := int(now.Sub(t.from) / t.period)
	if i < 0 {
		return
	}
	for len(t.work) <= i {
		t.work = append(t.work, 0)
	}
	t.work[i] += time.Since(began)
}

func (t *timedServer) Handle(now time.Time, d transport.Datagram) {
	began := time.Now()
	t.Session.Handle(now, d)
	t.time(now, began)
}

func (t *timedServer) Tick(now time.Time) {
	began := time.Now()
	t.Session.Tick(now)
	t.time(now, began)
}

func (t *timedServer) NextDeadline(now time.Time) time.Time {
	began := time.Now()
	next := t.Session.NextDeadline(now)
	t.time(now, began)
	return next
}

// RunScale plays one game per number of clients and units and measures its window. Lockstep
// sends orders, not state, so the bytes a client receives should barely depend on the units,
// nor should what it sends (its orders, and one root hash of its units a second), while what
// the server computes (every unit, every frame) grows with them. The units are put in place at
// once (game.Populate). A game has 8 seats; the clients beyond them join as spectators (up to
// 32), which get every order through the server and give none, and are measured apart from the
// players. The bytes are the game's, repeatable; the server's work is this machine's wall time
// around each call into its session, and is labelled so.
func RunScale(cfg ScaleConfig) (*ScaleResult, error) {
	if cfg.Frames < 1 {
		return nil, fmt.Errorf("scale: %w: --messages (frames measured) must be at least 1", report.ErrSetting)
	}
	r := &ScaleResult{Config: cfg}
	for _, n := range cfg.Clients {
		if most := world.MaxPlayers + game.MaxSpectators; n < 1 || n > most {
			return nil, fmt.Errorf("scale: %w: %d clients: a game has %d seats for players and room for %d spectators, %d clients at most", report.ErrSetting, n, world.MaxPlayers, game.MaxSpectators, most)
		}
		for _, u := range cfg.Units {
			row, err := scaleGame(cfg, n, u)
			if err != nil {
				return r, fmt.Errorf("scale: %d clients, %d units: %w", n, u, err)
			}
			r.Rows = append(r.Rows, row)
		}
	}
	return r, nil
}

// scaleCounts are the byte counters of one moment.
type scaleCounts struct {
	up, down, pktDown []uint64
}

func (g *vgame) scaleCounts() scaleCounts {
	var c scaleCounts
	byAddr := map[netip.AddrPort]transport.PeerStats{}
	for _, p := range g.srv.Transport().Peers() {
		byAddr[p.Addr()] = p.Stats()
	}
	for i, cl := range g.clients {
		var up uint64
		if p := cl.Transport().Peer(); p != nil {
			up = p.Stats().BytesSent
		}
		st := byAddr[g.caddrs[i]]
		c.up = append(c.up, up)
		c.down = append(c.down, st.BytesSent)
		c.pktDown = append(c.pktDown, st.PacketsSent)
	}
	return c
}

func scaleGame(cfg ScaleConfig, clients, units int) (ScaleRow, error) {
	players := min(clients, world.MaxPlayers)
	row := ScaleRow{Clients: clients, Units: units, Spectators: clients - players}
	g, err := startGame(gameSpec{seed: cfg.Seed, clients: players, spectators: row.Spectators, units: units, link: cfg.Link, mapName: "continent", sparse: true, direct: cfg.Direct})
	if err != nil {
		return row, err
	}
	defer g.shutdown()
	row.UnitsStart = g.units()
	isClient := map[string]int{}
	for i, a := range g.caddrs {
		isClient[a.String()] = i
	}
	direct := make([]uint64, clients)
	counting := false
	traffic := newTrafficCounter(g)
	g.Tap(func(d linksim.Datagram) {
		traffic.arrived(d)
		_, fromClient := isClient[d.From]
		if to, ok := isClient[d.To]; ok && fromClient && counting {
			direct[to] += uint64(len(d.Data))
		}
	})
	var timed *timedServer
	if cfg.CPU {
		timed = &timedServer{Session: g.srv, period: game.DefaultFrame}
		g.Attach(g.srvAddr, timed)
	}
	g.OnSend(func(from, to string, data []byte, _ linksim.Fate) { traffic.sent(from, to, data) })
	late0 := g.srv.Snapshot().Game
	c0, t0 := g.scaleCounts(), g.Now()
	counting = true
	traffic.reset()
	if timed != nil {
		timed.on, timed.from = true, g.Now()
	}
	g.Run(time.Duration(cfg.Frames) * game.DefaultFrame)
	counting = false
	if timed != nil {
		timed.on = false
	}
	traffic.on = false
	c1 := g.scaleCounts()
	row.Seconds = g.Now().Sub(t0).Seconds()
	row.Play = traffic.traffic(row.Seconds)
	row.UnitsEnd = g.units()
	var sumDirect, sumPkt float64
	for i := range clients {
		up, down := float64(c1.up[i]-c0.up[i])/row.Seconds, float64(c1.down[i]-c0.down[i])/row.Seconds
		if i >= players {
			row.SpecUp.Add(up)
			row.SpecDown.Add(down)
			continue
		}
		row.Up.Add(up)
		row.Down.Add(down)
		sumPkt += float64(c1.pktDown[i]-c0.pktDown[i]) / row.Seconds
		sumDirect += float64(direct[i]) / row.Seconds
	}
	row.DirectIn, row.PacketsDown = sumDirect/float64(players), sumPkt/float64(players)
	if fd := g.srv.Snapshot().Game.FrameDeadlines; fd != nil && late0.FrameDeadlines != nil {
		row.FramesLate = fd.FramesLate - late0.FramesLate
	}
	if timed != nil {
		work := timed.work[:min(len(timed.work), cfg.Frames)]
		var total time.Duration
		for _, w := range work {
			total += w
			row.FrameWork.Add(ms(w))
			if w > game.DefaultFrame {
				row.Missed++
			}
		}
		row.Periods = len(work)
		row.ServerMsPerSec = ms(total) / row.Seconds
	}
	// Idle: the bots stop giving orders; after a second for the last ones' acks, the links
	// carry what a game without orders needs.
	for _, c := range g.clients[:players] {
		c.StopBot()
	}
	g.Run(time.Second)
	traffic.reset()
	idle := time.Duration(IdleFrames) * game.DefaultFrame
	g.Run(idle)
	traffic.on = false
	row.Idle = traffic.traffic(idle.Seconds())
	return row, nil
}

// Section is the experiment's report.
func (r *ScaleResult) Section(command string) *report.Section {
	c := r.Config
	s := &report.Section{Name: "scale", Title: "netlab scale: bytes per client and the server's work as the game grows", Command: command}
	s.Textf("One game per row on the continent map: bot clients (no bots on the server), every link at %s (seed %d), the units put in place at once (game.Populate: extra starting squads for every seat and a fiftieth of them as enemies), then %d frames (%v of game time) measured; each host is ticked at its own deadlines and when a datagram comes for it, as a real host loop is. Up is what a client sends the server, down what the server sends it (UDP payloads, the transport's counters: sent, so at loss more than arrives); direct is what a player receives from the others on the direct links. A game has %d seats for players: the clients beyond them join as spectators (game.ClientConfig.Spectate, at most %d), which watch and give no orders, and are measured apart; the columns before theirs are per player.",
		report.Link(c.Link), c.Seed, c.Frames, time.Duration(c.Frames)*game.DefaultFrame, world.MaxPlayers, game.MaxSpectators)
	head := []string{"clients", "spectators", "units", "at the start", "at the end", "down B/s", "down max", "up B/s", "up max", "direct in B/s", "datagrams down/s", "spectator down B/s", "spectator up B/s"}
	if c.CPU {
		head = append(head, "server ms per game s", "work per frame p50 ms", "p99", "max", "periods over 100 ms")
	}
	t := &report.Table{Title: "Per player, and per spectator, over the measured window", Head: head}
	down := &report.Chart{Title: "Bytes a second per player from the server", Kind: report.Lines, Unit: "B/s", XLabel: "units"}
	up := &report.Chart{Title: "Bytes a second per player to the server", Kind: report.Lines, Unit: "B/s", XLabel: "units"}
	cpu := &report.Chart{Title: "The server's work per second of game time (this machine)", Unit: "ms"}
	var cpuSeries report.Series
	units := []int{}
	for _, row := range r.Rows {
		if !slices.Contains(units, row.Units) {
			units = append(units, row.Units)
		}
	}
	for _, u := range units {
		down.Labels = append(down.Labels, report.Int(u))
		up.Labels = append(up.Labels, report.Int(u))
	}
	seriesOf := map[int]int{}
	for _, row := range r.Rows {
		specDown, specUp := "–", "–"
		if row.Spectators > 0 {
			specDown, specUp = report.F(row.SpecDown.Mean(), 0), report.F(row.SpecUp.Mean(), 0)
		}
		cells := []string{fmt.Sprint(row.Clients), fmt.Sprint(row.Spectators), report.Int(row.Units), report.Int(row.UnitsStart), report.Int(row.UnitsEnd), report.F(row.Down.Mean(), 0), report.F(row.Down.Max(), 0),
			report.F(row.Up.Mean(), 0), report.F(row.Up.Max(), 0), report.F(row.DirectIn, 0), report.F(row.PacketsDown, 1), specDown, specUp}
		if c.CPU {
			cells = append(cells, report.F(row.ServerMsPerSec, 1), report.F(row.FrameWork.P(50), 2), report.F(row.FrameWork.P(99), 2),
				report.F(row.FrameWork.Max(), 2), fmt.Sprintf("%d/%d", row.Missed, row.Periods))
			cpu.Labels = append(cpu.Labels, fmt.Sprintf("%d clients, %s units", row.Clients, report.Int(row.Units)))
			cpuSeries.Values = append(cpuSeries.Values, row.ServerMsPerSec)
		}
		t.Row(cells...)
		i, ok := seriesOf[row.Clients]
		if !ok {
			i = len(down.Series)
			seriesOf[row.Clients] = i
			name := fmt.Sprintf("%d clients", row.Clients)
			nan := make([]float64, len(units))
			for k := range nan {
				nan[k] = math.NaN() // no game with these clients and units
			}
			down.Series = append(down.Series, report.Series{Name: name, Values: slices.Clone(nan)})
			up.Series = append(up.Series, report.Series{Name: name, Values: slices.Clone(nan)})
		}
		k := slices.Index(units, row.Units)
		down.Series[i].Values[k], up.Series[i].Values[k] = row.Down.Mean(), row.Up.Mean()
	}
	total := &report.Table{Title: fmt.Sprintf("Each player's total over all its links (the server's and the direct ones), per second: in play, and idle (the bots stopped, %d frames measured after a second)", IdleFrames),
		Head: []string{"clients", "units", "window", "in B/s", "out B/s", "in with headers", "out with headers", "of a 28.8k modem", "datagrams in/s", "out/s", "per connection: down/s", "up/s", "direct (each way)/s"}}
	for _, row := range r.Rows {
		for _, w := range []struct {
			name string
			t    Traffic
		}{{"in play", row.Play}, {"idle", row.Idle}} {
			total.Row(fmt.Sprint(row.Clients), report.Int(row.Units), w.name, report.F(w.t.In, 0), report.F(w.t.Out, 0),
				report.F(w.t.InWire, 0), report.F(w.t.OutWire, 0), report.F(100*max(w.t.InWire, w.t.OutWire)/ModemBytes, 0)+"%",
				report.F(w.t.DgramIn, 1), report.F(w.t.DgramOut, 1), report.F(w.t.Down, 1), report.F(w.t.Up, 1), report.F(w.t.Direct, 1))
		}
	}
	s.Add(t, total)
	s.Textf("With headers is the UDP payload plus %d bytes of IPv4 and UDP header per datagram, what a modem carries; a 28.8 kbit/s modem carries %s B/s each way, and the column before the datagrams is the busier direction's share of it. Out counts every datagram the player sent in the window, in every datagram that reached it (from the server and from the other players), so at loss out is what its link up carries and in what its link down carries; the datagrams per connection are those each end sent.", UDPHeader, report.Int(ModemBytes))
	s.Add(down, up)
	if c.CPU {
		cpu.Series = []report.Series{cpuSeries}
		s.Add(cpu)
		s.Textf("Machine-dependent: the server's work is the wall time of every call into its session (Handle, Tick, NextDeadline) while the window ran, read around each call, and added to the 100 ms frame period of game time the call fell in; a period whose work took more than 100 ms is one this machine could not have kept in real time (a missed frame deadline). The clients run on the same goroutine between the server's calls, so the garbage they make is sometimes collected during a server call. The server's own count of late frames (game.frames_late) is %d: in virtual time every frame is ticked on time by construction.", r.totalLate())
	} else {
		s.Textf("The server's work per frame is left out (--deterministic): it is this machine's wall time, not the game's.")
	}
	return s
}

func (r *ScaleResult) totalLate() uint64 {
	var n uint64
	for _, row := range r.Rows {
		n += row.FramesLate
	}
	return n
}
