package gamelab

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/cmd/netlab/internal/report"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// unitsPerSquad is the size of a starting squad (world.AddPlayerUnits).
const unitsPerSquad = 5

// gameSpec is a game of bot clients in virtual time.
type gameSpec struct {
	seed        uint64
	clients     int // bot players, 1..world.MaxPlayers
	spectators  int // clients that watch (game.ClientConfig.Spectate), 0..game.MaxSpectators
	units       int // about this many units once populated (at least a squad per seat)
	link        linksim.Settings
	late        game.LateMode
	direct      game.DirectMode // the server's --direct
	mapName     string
	realtimeMax int
	// sparse ticks each host at its own deadlines and datagrams (game.Virtual's
	// TickAtDeadlines), as a real host loop does: what the server's work per frame needs.
	sparse bool
}

// vgame is a game in virtual time: a server and bot clients on game.Virtual, every link
// (server to client, client to client) impaired the same way.
type vgame struct {
	*game.Virtual
	srv     *game.Server
	srvAddr netip.AddrPort
	clients []*game.Client // the players, then the spectators
	caddrs  []netip.AddrPort
	players int // how many of clients play
}

// startGame starts the server and its players, waits until every player plays, lets the
// spectators join the running game, waits until they have its world, and puts the spec's
// units in place. It returns once they are in every world.
func startGame(sp gameSpec) (*vgame, error) {
	if sp.clients < 1 || sp.clients > world.MaxPlayers {
		return nil, fmt.Errorf("%w: --clients must be 1..%d (a game has %d seats)", report.ErrSetting, world.MaxPlayers, world.MaxPlayers)
	}
	if sp.spectators < 0 || sp.spectators > game.MaxSpectators {
		return nil, fmt.Errorf("%w: %d spectators: a game admits 0..%d", report.ErrSetting, sp.spectators, game.MaxSpectators)
	}
	g := &vgame{Virtual: game.NewVirtual(sp.seed), srvAddr: netip.MustParseAddrPort("127.0.0.1:7777")}
	if sp.sparse {
		g.TickAtDeadlines()
	}
	cfg := game.ServerConfig{Map: sp.mapName, Seed: sp.seed, MinPlayers: sp.clients, StartDelay: 500 * time.Millisecond,
		Late: sp.late, RealtimeMax: sp.realtimeMax, Orders: game.Orders{Direct: sp.direct},
		// Populate's squads have ids the server's counter does not know of: a reinforcement
		// would reuse them.
		ReinforceBelow: -1}
	cfg.Transport.Rand = game.SeededRand(sp.seed, 0)
	srv, err := game.NewServer(cfg, g.Writer(g.AddNode(g.srvAddr, sp.link)))
	if err != nil {
		return nil, err
	}
	g.srv = srv
	g.Attach(g.srvAddr, srv)
	// join adds client i: a bot player, linked to every host, or a spectator that does nothing
	// but watch, linked to the server alone (a spectator takes no direct links). Each has an
	// address of its own, 250 to a /24.
	join := func(i int, spectate bool) error {
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, byte(1 + i/250), byte(1 + i%250)}), uint16(40000+i))
		cc := game.ClientConfig{Name: fmt.Sprintf("client%d", i+1), Bot: !spectate, Spectate: spectate, Seed: uint64(i + 1), Late: sp.late,
			PlayerID: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "netlab %d player %d", sp.seed, i))}
		cc.Transport.Rand = game.SeededRand(sp.seed, uint64(i+1))
		node := g.AddNode
		if spectate {
			node = func(addr netip.AddrPort, link linksim.Settings) *linksim.Node {
				return g.AddNodeLinkedTo(addr, g.srvAddr, link)
			}
		}
		c, err := game.NewClient(cc, g.Writer(node(addr, sp.link)), g.srvAddr)
		if err != nil {
			return err
		}
		g.clients = append(g.clients, c)
		g.caddrs = append(g.caddrs, addr)
		g.Attach(addr, c)
		return nil
	}
	for i := range sp.clients {
		if err := join(i, false); err != nil {
			return nil, err
		}
	}
	g.players = sp.clients
	if !g.RunUntil(g.Now().Add(30*time.Second), g.allStarted) {
		return nil, fmt.Errorf("the game did not start within 30 s of game time")
	}
	if sp.spectators > 0 {
		for i := range sp.spectators {
			if err := join(sp.clients+i, true); err != nil {
				return nil, err
			}
		}
		if !g.RunUntil(g.Now().Add(30*time.Second), g.allStarted) {
			return nil, fmt.Errorf("the spectators did not get the world within 30 s of game time")
		}
	}
	enemies := sp.units / 50
	squads := max(0, (sp.units-enemies)/(unitsPerSquad*sp.clients)-1)
	f, err := game.Populate(g.srv, g.clients, g.Now(), squads, enemies)
	if err != nil {
		return nil, err
	}
	if !g.RunUntil(g.Now().Add(30*time.Second), func() bool { return g.allAt(f + 1) }) {
		return nil, fmt.Errorf("the units did not arrive within 30 s of game time")
	}
	return g, nil
}

// allStarted reports whether the server runs and every client plays, or watches: a
// spectator joins a running game, whose world it has once its frame is past 0.
func (g *vgame) allStarted() bool {
	if s := g.srv.Snapshot(); s == nil || !s.Running {
		return false
	}
	for i, c := range g.clients {
		if s := c.Snapshot(); s == nil || !s.Started || i >= g.players && s.Frame == 0 {
			return false
		}
	}
	return true
}

// allAt reports whether every host's world is at frame f or later.
func (g *vgame) allAt(f uint32) bool {
	if s := g.srv.Snapshot(); s == nil || s.Frame < f {
		return false
	}
	for _, c := range g.clients {
		if s := c.Snapshot(); s == nil || s.Frame < f {
			return false
		}
	}
	return true
}

// units is how many units the server's world holds.
func (g *vgame) units() int { return len(g.srv.Snapshot().Units) }

// agreement compares the world hashes the server and each client recorded (every tenth frame
// of the last 300) at the frames after the last re-sync: how many were compared and how many
// differed.
func (g *vgame) agreement() (compared, differ int) {
	srv := g.srv.Report()
	for _, c := range g.clients {
		for f, h := range c.Report().WorldHashes {
			var frame uint32
			if _, err := fmt.Sscan(f, &frame); err != nil || frame <= srv.Sync.LastResyncFrame {
				continue
			}
			if sh, ok := srv.WorldHashes[f]; ok {
				compared++
				if sh != h {
					differ++
				}
			}
		}
	}
	return compared, differ
}

func (g *vgame) shutdown() {
	for _, c := range g.clients {
		c.Shutdown(g.Now())
	}
	g.srv.Shutdown(g.Now())
}
