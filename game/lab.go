package game

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ackattack/ackattack/world"
)

// A lab's hands on a game: thousands of units, without minutes of play, as the benchmarks and
// the experiments of cmd/netlab measure. Only a game whose hosts all live in one process
// (Virtual) can be set up this way, since Populate writes into every host's schedule at once;
// it reaches the hosts through labHost and labServer alone, outside the session core.

// populateFrames is how far ahead of the server's frame Populate puts the units: far enough
// that every client, up to a frame ahead or behind, is still before it.
const populateFrames = 30

// labHost is what Populate needs of a host, a server's or a client's: its world, to read,
// and its schedule, to put an event in. Nothing else of the session is open to a lab.
type labHost interface {
	labWorld() *world.World
	labSchedule(e event)
}

// labServer is what Populate needs of the server besides: its game (map, seed, the seats in
// it) and its spawning.
type labServer interface {
	labHost
	labGame() (mapName string, seed uint64, seats []uint8)
	announceSpawn(now time.Time, sp *SpawnEnemy)
}

func (s *Server) labWorld() *world.World { return s.w }
func (s *Server) labSchedule(e event)    { s.sched.add(e) }
func (s *Server) labGame() (string, uint64, []uint8) {
	return s.cfg.Map, s.cfg.Seed, s.seats.inGameList()
}
func (c *Client) labWorld() *world.World { return c.w }
func (c *Client) labSchedule(e event)    { c.sched.add(e) }

// Populate gives every seat of a running game squads more starting squads and spawns enemies
// enemies, all at one frame populateFrames ahead, and returns that frame. The squads go
// straight into the schedule of the server and of every client in clients (as if the game had
// started with bigger armies; each host applies them at the start of the frame, so they stay
// in lockstep); the enemies go through the server's normal spawning, a SpawnEnemy to each
// client, on random ground reachable from seat 0's spawn (seeded, so the same game gets the
// same enemies). The server should run with ReinforceBelow -1: the squads' ids are unknown to
// its world's counter, and a reinforcement would be given the same ones.
func Populate(s *Server, clients []*Client, now time.Time, squads, enemies int) (uint32, error) {
	hosts := make([]labHost, len(clients))
	for i, c := range clients {
		hosts[i] = c
	}
	return populate(s, hosts, now, squads, enemies)
}

func populate(s labServer, clients []labHost, now time.Time, squads, enemies int) (uint32, error) {
	w := s.labWorld()
	if w == nil {
		return 0, fmt.Errorf("populate: the game has not started")
	}
	f := w.Frame() + populateFrames
	mapName, seed, seats := s.labGame()
	up, err := extraSquads(mapName, seed, seats, squads, f)
	if err != nil {
		return 0, err
	}
	for i, c := range clients {
		if cw := c.labWorld(); cw == nil || cw.Frame() >= f {
			return 0, fmt.Errorf("populate: client %d is not before frame %d", i+1, f)
		}
	}
	if err := spawnEnemies(s, now, f, enemies, rand.New(rand.NewPCG(2000, 2000))); err != nil {
		return 0, err
	}
	s.labSchedule(event{frame: up.Frame, kind: evUpdate, seat: up.Seat, update: up})
	for _, c := range clients {
		c.labSchedule(event{frame: up.Frame, kind: evUpdate, seat: up.Seat, update: up})
	}
	return f, nil
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

// spawnTries is how many random cells spawnEnemies tries for each enemy before it gives up:
// a map with any reachable ground to speak of has some in far fewer.
const spawnTries = 1000

// spawnEnemies spawns n enemies at frame on random ground reachable from seat 0's spawn, the
// way the server's enemies do: scheduled on the server, a SpawnEnemy to every client. It fails
// when there is no enemy kind, or when spawnTries cells in a row are no reachable ground.
func spawnEnemies(s labServer, now time.Time, frame uint32, n int, rng *rand.Rand) error {
	kinds := enemyKinds()
	if len(kinds) == 0 && n > 0 {
		return fmt.Errorf("populate: no unit kind is an enemy's")
	}
	w := s.labWorld()
	sx, sy, _ := w.Spawn(0)
	reachable := func(x, y int32) bool { return w.Terrain(x, y) == world.Ground && w.Reachable(sx, sy, x, y) }
	for placed := range n {
		x, y, ok := randomCell(rng, w.Width(), w.Height(), reachable)
		if !ok {
			return fmt.Errorf("populate: %d of %d enemies placed, then %d cells in a row were no ground reachable from seat 0's spawn", placed, n, spawnTries)
		}
		s.announceSpawn(now, &SpawnEnemy{Frame: frame, Kind: kinds[rng.IntN(len(kinds))], X: x, Y: y})
	}
	return nil
}

// randomCell draws cells of a w×h map from rng until ok holds for one, at most spawnTries.
func randomCell(rng *rand.Rand, w, h int32, ok func(x, y int32) bool) (x, y int32, found bool) {
	for range spawnTries {
		x, y = rng.Int32N(w), rng.Int32N(h)
		if ok(x, y) {
			return x, y, true
		}
	}
	return 0, 0, false
}
