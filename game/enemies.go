package game

import (
	"slices"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/world"
)

// Enemies: the server spawns them and kills the ones that fell.
//
// Every host runs the same world, so an enemy's birth and death are events like a command: the
// server announces each for a frame far enough ahead (the command lead time and a frame) that
// every client has it in time, and every host applies it at that frame. A kill depends on its
// enemy's spawn on each connection (the message dependency graph): no host can kill an enemy
// it never spawned, and a kill that overtakes its spawn on a lossy link waits for it. Once the
// spawn has executed on the client (the sender's local graph knows), the dependency is pruned
// and costs nothing on the wire.

// enemyStream is the server's enemies: the next id, when the next one comes, and the fallen
// ones whose kill is on its way.
type enemyStream struct {
	nextID    uint32
	nextSpawn time.Time
	noSpawns  bool            // StopSpawning
	killSent  map[uint32]bool // fallen enemies whose kill is scheduled, until it runs
	// quiet: a wave is under way (stage_wave.go), logged as one event, not one a spawn and a
	// kill.
	quiet bool
}

// spawnAndKill spawns an enemy now and then and kills the ones that fell. It returns the number
// of units each seat has, counted in the same pass over the units, for reinforce.
func (s *Server) spawnAndKill(now time.Time, f uint32) (armies [world.MaxPlayers]int) {
	live := 0
	for _, u := range s.w.Units() {
		if !u.IsEnemy() {
			armies[u.Owner]++
			continue
		}
		if u.Dead {
			if !s.enemies.killSent[u.ID] {
				s.enemies.killSent[u.ID] = true
				s.scheduleKill(now, u.ID, f+s.lead.cur+1)
			}
			continue
		}
		live++
	}
	if s.hook != nil {
		s.hook.onFrame(now, f) // a lesson's scripted kills (stage.go)
	}
	if s.enemies.noSpawns || now.Before(s.enemies.nextSpawn) || live >= s.cfg.MaxEnemies {
		return armies
	}
	s.enemies.nextSpawn = now.Add(s.cfg.EnemyEvery)
	s.spawnEnemy(now, f)
	return armies
}

// enemyKinds are the unit kinds the server spawns as enemies: those no player starts with.
func enemyKinds() []uint8 {
	var out []uint8
	squad := world.StartingSquad()
	for i, k := range world.Kinds() {
		if !slices.Contains(squad, k.Name) {
			out = append(out, uint8(i))
		}
	}
	return out
}

// spawnEnemy spawns one enemy at a random open cell, announced for a frame after f and the
// lead time, and sends it to every client. ok is false when fifty tries found no open ground
// (or the table of unit kinds has no enemy kind).
func (s *Server) spawnEnemy(now time.Time, f uint32) (*SpawnEnemy, bool) {
	kinds := enemyKinds()
	if len(kinds) == 0 {
		return nil, false
	}
	for try := 0; try < 50; try++ {
		x, y := s.rng.Int32N(s.w.Width()), s.rng.Int32N(s.w.Height())
		if s.w.Terrain(x, y) != world.Ground {
			continue
		}
		sp := &SpawnEnemy{Frame: f + s.lead.cur + 1, Kind: kinds[s.rng.IntN(len(kinds))], X: x, Y: y}
		s.announceSpawn(now, sp)
		if !s.enemies.quiet {
			s.event(now, "spawn", "enemy", sp.ID, "at frame", sp.Frame, "x", x, "y", y)
		}
		return sp, true
	}
	return nil, false
}

// announceSpawn gives sp the next enemy id and announces it: an event of its frame here, and a
// SpawnEnemy to every client that follows the game.
func (s *Server) announceSpawn(now time.Time, sp *SpawnEnemy) {
	sp.ID = s.enemies.nextID
	s.enemies.nextID++
	s.stats.EnemiesSpawned++
	s.sched.add(event{frame: sp.Frame, kind: evSpawn, id: sp.ID, spawn: sp})
	for d := range s.seats.following {
		s.sendSpawn(d, now, sp)
	}
}

// sendSpawn sends d a spawn, and keeps its handle for the kill.
func (s *Server) sendSpawn(d *downlink, now time.Time, sp *SpawnEnemy) {
	if d.deps.spawns == nil {
		d.deps.spawns = make(map[uint32]*depgraph.Dependency)
	}
	h := new(depgraph.Dependency)
	d.deps.spawns[sp.ID] = h
	s.sendAfter(d, now, sp, nil, h)
}

// scheduleKill removes a fallen enemy at frame on every host. The kill depends on the spawn on
// each connection: no host can kill an enemy it never spawned.
func (s *Server) scheduleKill(now time.Time, id, frame uint32) {
	s.stats.EnemiesKilled++
	if !s.enemies.quiet {
		s.event(now, "kill", "enemy", id, "at frame", frame)
	}
	s.sched.add(event{frame: frame, kind: evKill, id: id})
	for d := range s.seats.following {
		s.sendKill(d, now, id, frame)
	}
}

// sendKill sends d a kill, after its enemy's spawn on that connection.
func (s *Server) sendKill(d *downlink, now time.Time, id, frame uint32) {
	var after []*depgraph.Dependency
	if h := d.deps.spawns[id]; h != nil {
		after = []*depgraph.Dependency{h}
		delete(d.deps.spawns, id)
	}
	s.sendAfter(d, now, &KillEnemy{Frame: frame, ID: id}, after, nil)
}
