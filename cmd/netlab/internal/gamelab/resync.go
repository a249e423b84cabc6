package gamelab

import (
	"fmt"
	"slices"
	"time"

	"github.com/ackattack/ackattack/cmd/netlab/internal/report"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// ResyncConfig is the re-sync experiment's setting.
type ResyncConfig struct {
	Link       linksim.Settings // every link: server to client and client to client
	Seed       uint64
	Injections int // desyncs injected, one after the other
	Clients    int
	Units      int
	Late       game.LateMode
}

// Injection sizes: a few units are repaired in real time; more than the server's real-time
// limit at once make it stop the world. The limit is lowered from the game's default (24), as
// BenchmarkStopTheWorld does: a client reports a tenth of its hash groups each frame, so a
// corruption of 40 units spread over the map reaches the server a few units per check, and
// under the default limit all of it would be repaired in real time, piece by piece.
const (
	resyncRealtimeMax = 4
	smallDesync       = 2
	largeDesync       = 40
	largeEvery        = 4 // every fourth injection is a large one
	// injectWait is how long an injection may take to be found and repaired.
	injectWait = 15 * time.Second
	// injectGap is the game played between a repair and the next injection.
	injectGap = time.Second
	// largeSpan keeps two large injections into one client apart: the server lets one
	// player's reports stop the world at most once in 30 s, and drops a client that needs a
	// second stop within that span from the game (game/drift_server.go, stopWorldSpan).
	largeSpan = 31 * time.Second
)

// Injection is one desync injected on purpose and what the server did about it.
type Injection struct {
	Client   int
	Units    int // corrupted
	At       time.Duration
	Detected bool
	Detect   time.Duration // from the injection to the server's first mismatch record for the player
	// Repair is from the injection to the first frame at which the client's units and the
	// server's are the same again (their snapshots of one frame compared).
	Repair   time.Duration
	Repaired bool
	// The server's repairs of this player's units between the injection and then: a large
	// corruption may be found in pieces, some repaired in real time, the rest by a pause.
	Realtime, StopWorld int
}

// ResyncResult is the experiment's outcome.
type ResyncResult struct {
	Config     ResyncConfig
	UnitsStart int
	UnitsEnd   int
	Injections []Injection
	Server     game.SyncReport
	Pauses     []int64 // the server's stop-the-world pauses, ms
	ClientP    []int64 // every client's pauses, ms: the freeze its player saw
	Late       uint64  // commands the clients applied late
	Compared   int     // world hashes compared after the last re-sync
	Differ     int
	GameTime   time.Duration
}

// RunResync plays a game of bot clients, corrupts some of one client's units at a time
// (Client.InjectDesync, the debug key's machinery) and watches the server find and repair
// them: in real time for a few units, by stopping the world for many.
//
// Lockstep hosts run the same simulation and only orders travel, so a host whose world drifts
// (a late command fast-forwarded, a bug, the debug key) must be found and repaired, or its
// player sees a different game. Clients report the root of a hash tree over their units (the
// grouped unit hashes); the server compares it with its own history, drills down to the units
// that differ, and repairs them with a real-time re-sync, or, when too many differ, a
// stop-the-world re-sync. The experiment measures what a player would: how long until the
// server noticed, how long until the client's units were right again, how long everybody's game
// froze. netlab runs it with --late rollback (late events run again exactly) and --late
// fastforward (the classic lockstep fast-forward, which makes drift of its own).
func RunResync(cfg ResyncConfig) (*ResyncResult, error) {
	if cfg.Injections < 1 {
		return nil, fmt.Errorf("resync: %w: --messages (desyncs to inject) must be at least 1", report.ErrSetting)
	}
	g, err := startGame(gameSpec{seed: cfg.Seed, clients: cfg.Clients, units: cfg.Units, link: cfg.Link, late: cfg.Late,
		mapName: "continent", realtimeMax: resyncRealtimeMax})
	if err != nil {
		return nil, fmt.Errorf("resync: %w", err)
	}
	defer g.shutdown()
	r := &ResyncResult{Config: cfg, UnitsStart: g.units()}
	start := g.Now()
	lastLarge := make([]time.Time, len(g.clients))
	for i := range cfg.Injections {
		// The clients take turns, and so do the large injections (every largeEvery-th).
		k := (i + i/len(g.clients)) % len(g.clients)
		c := g.clients[k]
		if c.Ended() != nil {
			return r, fmt.Errorf("resync: client %d left the game: %v", k+1, c.Ended())
		}
		n := smallDesync
		if i%largeEvery == largeEvery-1 {
			n = largeDesync
			if !lastLarge[k].IsZero() {
				g.RunUntil(lastLarge[k].Add(largeSpan), nil)
			}
			lastLarge[k] = g.Now()
		}
		// Never inject into a pause under way: wait for the game to run.
		g.RunUntil(g.Now().Add(injectWait), func() bool { return !g.srv.Snapshot().Paused })
		inj := Injection{Client: k, At: g.Now().Sub(start)}
		at := g.Now()
		seat := c.Snapshot().Seat
		inj.Units = c.InjectDesync(n)
		g.RunUntil(at.Add(injectWait), func() bool {
			ss, cs := g.srv.Snapshot(), c.Snapshot()
			if !inj.Detected {
				rec := firstRecord(ss.Mismatches, seat, at)
				if rec == nil {
					return false
				}
				inj.Detected, inj.Detect = true, rec.When.Sub(at)
			}
			// Snapshots made since the injection, of the same frame.
			if !cs.At.After(at) || ss.Frame != cs.Frame || !sameUnits(ss.Units, cs.Units, seat) {
				return false
			}
			inj.Repaired, inj.Repair = true, g.Now().Sub(at)
			return true
		})
		// Each repair counted once by the frame it takes effect at (a pause makes a record of
		// the first mismatch and more of the clients' world hashes, all with its frame).
		repairs := map[[2]uint32]bool{}
		for _, rec := range g.srv.Snapshot().Mismatches {
			if rec.Seat != seat || rec.When.Before(at) || inj.Repaired && rec.When.After(at.Add(inj.Repair)) {
				continue
			}
			switch key := [2]uint32{0, rec.At}; rec.Action {
			case game.ActionRealtime, game.ActionStopWorld:
				if rec.Action == game.ActionStopWorld {
					key[0] = 1
				}
				if !repairs[key] {
					repairs[key] = true
					if key[0] == 1 {
						inj.StopWorld++
					} else {
						inj.Realtime++
					}
				}
			}
		}
		r.Injections = append(r.Injections, inj)
		g.Run(injectGap)
	}
	g.Run(10 * time.Second) // frames after the last repair, for the hash comparison
	r.GameTime = g.Now().Sub(start)
	r.UnitsEnd = g.units()
	srv := g.srv.Report()
	r.Server = srv.Sync
	r.Pauses = slices.Clone(srv.Sync.PauseMillis)
	for _, c := range g.clients {
		rep := c.Report()
		r.ClientP = append(r.ClientP, rep.Sync.PauseMillis...)
		r.Late += rep.Game.CommandsLate
	}
	r.Compared, r.Differ = g.agreement()
	return r, nil
}

// sameUnits reports whether the two worlds hold the same units of seat (both sorted by id).
func sameUnits(a, b []world.Unit, seat uint8) bool {
	next := func(u []world.Unit, i int) int {
		for i < len(u) && u[i].Owner != seat {
			i++
		}
		return i
	}
	i, j := next(a, 0), next(b, 0)
	for i < len(a) && j < len(b) {
		if a[i] != b[j] {
			return false
		}
		i, j = next(a, i+1), next(b, j+1)
	}
	return i == len(a) && j == len(b)
}

// firstRecord is the server's earliest mismatch record for seat made at or after t, or nil.
func firstRecord(recs []game.SyncRecord, seat uint8, t time.Time) *game.SyncRecord {
	for i := range recs {
		if recs[i].Seat == seat && !recs[i].When.Before(t) {
			return &recs[i]
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func distOf(v []int64) *report.Dist {
	var d report.Dist
	for _, x := range v {
		d.Add(float64(x))
	}
	return &d
}

// Section is the experiment's report.
func (r *ResyncResult) Section(command string) *report.Section {
	c := r.Config
	s := &report.Section{Name: "resync-" + c.Late.String(), Title: fmt.Sprintf("netlab resync: desyncs found and repaired, --late %s", c.Late), Command: command}
	s.Textf("A server and %d bot clients on the continent map with %s units (%s at the end), every link at %s, late events: %s (seed %d). %d desyncs are injected one after the other, each into the next client in turn (Client.InjectDesync, the debug key's machinery): %d units at a time, and every %dth time %d, more than the server's real-time limit, set to %d here (the game's default is %d: with it, the 40 units reach the server a few per check and are all repaired in real time, piece by piece), so that it stops the world (never twice within 30 s for one client: the server would drop it from the game). Detect is the time from the injection to the server's first mismatch record for that player; repair, to the first frame at which the client's units and the server's are the same again (their snapshots of one frame compared, so to within a frame); the repairs counted are the server's for that player in between (a large corruption may reach it in pieces, some repaired in real time and the rest by a pause). %v of game time in all.",
		c.Clients, report.Int(r.UnitsStart), report.Int(r.UnitsEnd), report.Link(c.Link), c.Late, c.Seed, len(r.Injections), smallDesync, largeEvery, largeDesync, resyncRealtimeMax, game.DefaultRealtimeMax, r.GameTime.Round(time.Second))
	t := &report.Table{Title: "Injected desyncs (ms)", Head: []string{"units corrupted", "injected", "found", "repaired", "by real-time re-syncs", "by stop-the-world", "detect p50", "p95", "max", "repair p50", "p95", "max"}}
	for _, size := range []int{smallDesync, largeDesync} {
		var det, rep report.Dist
		n, found, repaired, rt, stw := 0, 0, 0, 0, 0
		for _, inj := range r.Injections {
			if inj.Units != size {
				continue
			}
			n++
			rt += inj.Realtime
			stw += inj.StopWorld
			if inj.Detected {
				found++
				det.Add(ms(inj.Detect))
			}
			if inj.Repaired {
				repaired++
				rep.Add(ms(inj.Repair))
			}
		}
		if n == 0 {
			continue
		}
		t.Row(fmt.Sprint(size), fmt.Sprint(n), fmt.Sprintf("%d/%d", found, n), fmt.Sprintf("%d/%d", repaired, n), fmt.Sprint(rt), fmt.Sprint(stw),
			report.F(det.P(50), 0), report.F(det.P(95), 0), report.F(det.Max(), 0), report.F(rep.P(50), 0), report.F(rep.P(95), 0), report.F(rep.Max(), 0))
	}
	s.Add(t)
	sp, cp := distOf(r.Pauses), distOf(r.ClientP)
	p := &report.Table{Title: "Stop-the-world pauses (ms)", Head: []string{"whose", "pauses", "p50", "p95", "max"}}
	p.Row("server (paused frame reached → resumed)", fmt.Sprint(sp.N()), report.F(sp.P(50), 0), report.F(sp.P(95), 0), report.F(sp.Max(), 0))
	p.Row("clients (each its own freeze)", fmt.Sprint(cp.N()), report.F(cp.P(50), 0), report.F(cp.P(95), 0), report.F(cp.Max(), 0))
	s.Add(p)
	sv := r.Server
	s.Textf("All the desyncs the server saw, injected or not: %d mismatched hash groups, %d mismatched units, %d real-time re-syncs, %d stop-the-world re-syncs (%d repairs deferred, %d clients dropped from a pause, %d from the game). Late commands applied by the clients: %d; late events re-simulated on the server: %d (%d beyond the window). World hashes compared after the last re-sync: %d, differing: %d.",
		sv.MismatchedGroups, sv.MismatchedUnits, sv.RealtimeResyncs, sv.StopWorldResyncs, sv.RepairsDeferred, sv.PauseDropouts, sv.PlayersDropped, r.Late, sv.Resimulations, sv.LateBeyondWindow, r.Compared, r.Differ)
	return s
}
