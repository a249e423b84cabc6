package lesson

import (
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// A lesson's game in virtual time: the script's server and the player's host over a
// linksim.Network, with no socket, no goroutine and no wall clock, as game's own tests run
// whole games (game/vgame_test.go). The network's clock is the game's; the harness moves it
// to the next datagram or deadline, and ticks the lesson's driver every tenth of a second, as
// the screen does. The same seed gives the same run.

// vlesson is a lesson running in virtual time. It is the driver's Host.
type vlesson struct {
	t        testing.TB
	nw       *linksim.Network
	now      time.Time
	srv      *game.Server
	cli      *game.Client
	srvAddr  netip.AddrPort
	cliAddr  netip.AddrPort
	drv      *Driver
	progress Progress
	nextTick time.Time
}

type vWriter struct{ node *linksim.Node }

func (w vWriter) WriteTo(b []byte, to netip.AddrPort) error { return w.node.Send(to.String(), b) }

// seededRand is a deterministic source for the handshakes' keys and the players' secrets.
func seededRand(seed, who uint64) *rand.ChaCha8 {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	binary.LittleEndian.PutUint64(key[8:], who)
	return rand.NewChaCha8(key)
}

// newVLesson starts s's game; with autoplay the player's units play by themselves (a bot
// client), without it the player watches.
func newVLesson(t testing.TB, s *Script, autoplay bool) *vlesson {
	t.Helper()
	g := &vlesson{t: t, nw: linksim.NewNetwork(s.Setup.Seed),
		srvAddr: netip.MustParseAddrPort("127.0.0.1:7777"), cliAddr: netip.MustParseAddrPort("127.0.1.1:40000")}
	g.now = g.nw.Now()
	scfg := s.ServerConfig(game.ServerConfig{StartDelay: 500 * time.Millisecond})
	scfg.Transport.Rand = seededRand(s.Setup.Seed, 0)
	srvNode := g.nw.AddNode(g.srvAddr.String())
	cliNode := g.nw.AddNode(g.cliAddr.String())
	g.nw.Link(g.srvAddr.String(), g.cliAddr.String(), s.Link(), s.Link())
	srv, err := game.NewServer(scfg, vWriter{srvNode})
	if err != nil {
		t.Fatal(err)
	}
	ccfg := s.ClientConfig(game.ClientConfig{Name: "student", Bot: autoplay, Seed: s.Setup.Seed,
		PlayerID: uuid.NewSHA1(uuid.NameSpaceOID, []byte("lesson student"))})
	ccfg.Transport.Rand = seededRand(s.Setup.Seed, 1)
	cli, err := game.NewClient(ccfg, vWriter{cliNode}, g.srvAddr)
	if err != nil {
		t.Fatal(err)
	}
	g.srv, g.cli = srv, cli
	g.drv = NewDriver(s, g)
	return g
}

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
		return g.nw.SetLink(g.srvAddr.String(), g.cliAddr.String(), a.Link, a.Link)
	}
	if a.OnServer() {
		done(ApplyServer(a, g.srv, g.now))
	}
	if a.OnClient() {
		done(ApplyClient(a, g.cli, g.now))
	}
	return nil
}

// run plays until the lesson is over or limit of game time has passed; it reports whether
// the lesson ended.
func (g *vlesson) run(limit time.Duration) bool {
	end := g.now.Add(limit)
	hosts := []game.Session{g.srv, g.cli}
	var dgrams []linksim.Datagram
	for {
		for _, h := range hosts {
			h.Tick(g.now)
		}
		if !g.now.Before(g.nextTick) {
			g.progress = g.drv.Tick(g.now)
			g.nextTick = g.now.Add(100 * time.Millisecond)
		}
		if g.drv.Runner().Done() {
			return true
		}
		if !g.now.Before(end) {
			return false
		}
		next := g.nextTick
		for _, h := range hosts {
			if d := h.NextDeadline(g.now); !d.IsZero() && d.Before(next) {
				next = d
			}
		}
		if next.Before(g.now.Add(time.Millisecond)) {
			next = g.now.Add(time.Millisecond)
		}
		g.now, dgrams = g.nw.Step(next, dgrams[:0])
		for _, d := range dgrams {
			from, err := netip.ParseAddrPort(d.From)
			if err != nil {
				g.t.Fatal(err)
			}
			dg := transport.Datagram{From: from, Data: d.Data}
			switch d.To {
			case g.srvAddr.String():
				g.srv.Handle(g.now, dg)
			case g.cliAddr.String():
				g.cli.Handle(g.now, dg)
			}
		}
	}
}
