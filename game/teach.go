package game

import (
	"errors"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Events on purpose, for a lesson.
//
// A lesson shows one idea, and it cannot wait for a game to stumble on it: at 10% loss a
// kill rarely overtakes its spawn, and a stop-the-world needs a drift the real-time re-sync
// cannot mend. So a lesson's script makes the game do the thing now (game/lesson): spawn
// enemies, spawn one and kill it a moment later, have the bots chat, stop the world. Each is
// what the game does anyway, on the same paths, at a moment the script chooses; none of it
// changes a rule. The methods belong to the owner loop like every other intent.

// maxDoomed bounds the enemies waiting for their scripted kill.
const maxDoomed = 64

// doomed is an enemy spawned to be killed at a frame (SpawnDoomed).
type doomed struct {
	id      uint32
	spawnAt uint32 // the frame its spawn runs at
	at      uint32 // the frame the server sends its kill at
}

// errNotRunning: the game has not started (or is not running any more).
var errNotRunning = errors.New("game: the game is not running")

// SpawnEnemies spawns up to n enemies now, each announced to every client like any spawn,
// past MaxEnemies too, and returns how many it spawned (fewer when it found no open ground).
// Owner loop only.
func (s *Server) SpawnEnemies(now time.Time, n int) (int, error) {
	if !s.running || s.w == nil {
		return 0, errNotRunning
	}
	done := 0
	for range n {
		if _, ok := s.spawnEnemy(now, s.w.Frame()); ok {
			done++
		}
	}
	return done, nil
}

// SpawnDoomed spawns an enemy now and kills it after (at least a frame later): the kill
// leaves in a later packet than the spawn, and depends on it. On a lossy link the spawn's
// packet is sometimes lost and the kill's is not, and the kill waits on the client for the
// spawn's resend: the dependency graph at work. After a few seconds the spawn has long
// executed, the kill carries no dependency at all: the sender pruned it. Owner loop only.
func (s *Server) SpawnDoomed(now time.Time, after time.Duration) error {
	if !s.running || s.w == nil {
		return errNotRunning
	}
	if len(s.doomed) >= maxDoomed {
		return errors.New("game: too many enemies waiting for their kill")
	}
	f := s.w.Frame()
	sp, ok := s.spawnEnemy(now, f)
	if !ok {
		return errors.New("game: no open ground for an enemy")
	}
	frames := max(uint32(after/s.cfg.Frame), 1)
	s.doomed = append(s.doomed, doomed{id: sp.ID, spawnAt: sp.Frame, at: f + frames})
	return nil
}

// killDoomed schedules the kills of the doomed enemies whose frame has come. The kill may
// leave before the spawn runs (it runs a frame after it, like every kill); an enemy that
// fell in the meantime has its kill already.
func (s *Server) killDoomed(now time.Time, f uint32) {
	keep := s.doomed[:0]
	for _, d := range s.doomed {
		if d.at > f {
			keep = append(keep, d)
			continue
		}
		_, alive := s.w.Unit(d.id)
		if (f < d.spawnAt || alive) && !s.killSent[d.id] {
			s.killSent[d.id] = true
			s.scheduleKill(now, d.id, max(f+s.lead+1, d.spawnAt+1)) // never before its spawn
		}
	}
	s.doomed = keep
}

// BotsChat makes every server-side bot say n chat lines now (their next numbered lines), one
// after the other: a burst on each chat chain. Owner loop only.
func (s *Server) BotsChat(now time.Time, n int) int {
	said := 0
	for _, st := range s.seats {
		if st == nil || st.bot == nil || st.bot.quiet {
			continue
		}
		for range n {
			line := st.bot.nextLine()
			s.stats.chatSent.add(line, maxChatReport)
			s.chat(now, st.idx, line)
			said++
		}
	}
	return said
}

// StopTheWorld starts a stop-the-world re-sync now, as a drift too wide for a real-time
// re-sync does: every client pauses at a frame ahead, sends the hash of every unit, gets what
// differs and resumes. With all, the server sends every unit at the pause whatever the hashes
// say: a re-sync as large as the world, cut into fragments. It fails before the start and
// while a pause is on. Owner loop only.
func (s *Server) StopTheWorld(now time.Time, all bool) error {
	if !s.running || s.w == nil {
		return errNotRunning
	}
	if s.pause != nil {
		return errors.New("game: a stop-the-world re-sync is already on")
	}
	var known []uint32
	if all {
		for _, u := range s.w.Units() {
			known = append(known, u.ID)
		}
	}
	s.event(now, "stop the world", "why", "on purpose", "all units", all)
	s.stopTheWorld(now, known)
	return nil
}

// SetLate changes what the server does with a late event from now on (resim.go). The copies
// of the world kept for re-runs are dropped: the next late event runs again only as far back
// as frames kept from now on. Owner loop only.
func (s *Server) SetLate(mode LateMode) {
	s.rw.mode = mode
	s.rw.reset(s.frameNow())
}

// SetLate changes what the client does with a late event from now on, as Server.SetLate.
// Owner loop only.
func (c *Client) SetLate(mode LateMode) {
	c.rw.mode = mode
	f := uint32(0)
	if c.w != nil {
		f = c.w.Frame()
	}
	c.rw.reset(f)
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
		sp := &SpawnEnemy{Frame: f + s.lead + 1, Kind: kinds[s.rng.IntN(len(kinds))], X: x, Y: y}
		s.announceSpawn(now, sp)
		s.event(now, "spawn", "enemy", sp.ID, "at frame", sp.Frame, "x", x, "y", y)
		return sp, true
	}
	return nil, false
}

// announceSpawn gives sp the next enemy id and announces it: an event of its frame here, and a
// SpawnEnemy to every client that follows the game.
func (s *Server) announceSpawn(now time.Time, sp *SpawnEnemy) {
	sp.ID = s.nextEnemyID
	s.nextEnemyID++
	s.stats.EnemiesSpawned++
	s.sched.add(event{frame: sp.Frame, kind: evSpawn, id: sp.ID, spawn: sp})
	for d := range s.following {
		s.sendSpawn(d, now, sp)
	}
}
