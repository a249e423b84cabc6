package lesson

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
)

// A lesson's game in virtual time: the script's server and the player's host in a
// game.Virtual, with no socket, no goroutine and no wall clock, as game's own tests run whole
// games (game/vgame_test.go). The network's clock is the game's; the harness moves it to the
// next datagram or deadline, and ticks the lesson's driver every tenth of a second, as the
// screen does. The same seed gives the same run.

// vlesson is a lesson running in virtual time. It is the driver's Host.
type vlesson struct {
	t        testing.TB
	v        *game.Virtual
	srv      *game.Server
	cli      *game.Client
	srvAddr  netip.AddrPort
	cliAddr  netip.AddrPort
	drv      *Driver
	progress Progress
	nextTick time.Time
}

// newVLesson starts s's game; with autoplay the player's units play by themselves (a bot
// client), without it the player watches.
func newVLesson(t testing.TB, s *Script, autoplay bool) *vlesson {
	t.Helper()
	g := &vlesson{t: t, v: game.NewVirtual(s.Setup.Seed),
		srvAddr: netip.MustParseAddrPort("127.0.0.1:7777"), cliAddr: netip.MustParseAddrPort("127.0.1.1:40000")}
	scfg := s.ServerConfig(game.ServerConfig{StartDelay: 500 * time.Millisecond})
	scfg.Transport.Rand = game.SeededRand(s.Setup.Seed, 0)
	srvNode := g.v.AddNode(g.srvAddr, s.Link())
	cliNode := g.v.AddNode(g.cliAddr, s.Link())
	srv, err := game.NewServer(scfg, g.v.Writer(srvNode))
	if err != nil {
		t.Fatal(err)
	}
	ccfg := s.ClientConfig(game.ClientConfig{Name: "student", Bot: autoplay, Seed: s.Setup.Seed,
		PlayerID: uuid.NewSHA1(uuid.NameSpaceOID, []byte("lesson student"))})
	ccfg.Transport.Rand = game.SeededRand(s.Setup.Seed, 1)
	cli, err := game.NewClient(ccfg, g.v.Writer(cliNode), g.srvAddr)
	if err != nil {
		t.Fatal(err)
	}
	g.v.Attach(g.srvAddr, srv)
	g.v.Attach(g.cliAddr, cli)
	g.v.Attach(screenAddr, screen{g})
	g.srv, g.cli = srv, cli
	g.drv = NewDriver(s, g)
	return g
}

// screenAddr names the driver's place among the hosts; no node is there, nothing is sent to it.
var screenAddr = netip.MustParseAddrPort("127.0.2.1:1")

// now is the game's clock.
func (g *vlesson) now() time.Time { return g.v.Now() }

// Observe reads the two sessions' snapshots, as Embedded reads the loops'.
func (g *vlesson) Observe() Observation {
	o := Observation{Client: g.cli.Snapshot(), Link: g.cli.Transport().Stats().Server, Server: g.srv.Snapshot()}
	for _, p := range g.srv.Transport().Stats().Peers {
		if p.Connected {
			o.ServerLink = p
		}
	}
	return o
}

// Perform does a at once: the sessions are the harness's own.
func (g *vlesson) Perform(a Action, done func(error)) error {
	if a.Kind == ActLink {
		return g.v.Network().SetLink(g.srvAddr.String(), g.cliAddr.String(), a.Link, a.Link)
	}
	if a.OnServer() {
		done(ApplyServer(a, g.srv, g.now()))
	}
	if a.OnClient() {
		done(ApplyClient(a, g.cli, g.now()))
	}
	return nil
}

// run plays until the lesson is over or limit of game time has passed; it reports whether
// the lesson ended.
func (g *vlesson) run(limit time.Duration) bool {
	return g.v.RunUntil(g.now().Add(limit), g.drv.Runner().Done)
}

// screen is the lesson's driver as one more host of the game: ticked after the two sessions,
// every tenth of a second, as the screen ticks it; its deadline is that tick, so the game's
// clock stops there even when no session has a deadline then. It receives nothing.
type screen struct{ g *vlesson }

func (s screen) Tick(now time.Time) {
	if !now.Before(s.g.nextTick) {
		s.g.progress = s.g.drv.Tick(now)
		s.g.nextTick = now.Add(100 * time.Millisecond)
	}
}

func (s screen) NextDeadline(time.Time) time.Time     { return s.g.nextTick }
func (s screen) Handle(time.Time, transport.Datagram) {}
func (s screen) Intent(time.Time)                     {}
func (s screen) Shutdown(time.Time)                   {}
