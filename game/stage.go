package game

import (
	"errors"
	"time"
)

// A lesson's hands on the game.
//
// A lesson shows one idea, and it cannot wait for a game to stumble on it: at 10% loss a
// kill rarely overtakes its spawn, and a stop-the-world re-sync needs a drift the real-time
// re-sync cannot mend. So a lesson's script makes the game do the thing now (game/lesson):
// spawn enemies, spawn one and kill it a moment later, have the bots chat, stop the world.
// Each is what the game does anyway, on the same paths, at a moment the script chooses; none
// of it changes a rule. The class's game has the same hands for the teacher: the waves of
// stage_wave.go.
//
// None of it is in the session core either. A Stage holds what a lesson keeps (the enemies
// waiting for their scripted kill, the waves' schedule), and reaches the server only through
// stageHost: the game's own actions, nothing more. The server knows a stage only as a
// frameHook, called once a frame. The methods belong to the server's owner loop like every
// other intent.

// frameHook is all a server knows of what is attached to it: a call at every frame, after the
// fallen enemies' kills and before the new spawns.
type frameHook interface {
	onFrame(now time.Time, f uint32)
}

// stageHost is what a Stage may ask of a server.
type stageHost interface {
	// frame is the frame the server's world is at, and false before the game starts.
	frame() (uint32, bool)
	spawnEnemy(now time.Time, f uint32) (*SpawnEnemy, bool)
	// killOnce schedules enemy id's kill at frame, unless it is dead and its kill on its
	// way already, or it is gone (a kill at spawnAt or later still finds it).
	killOnce(now time.Time, id, spawnAt, frame uint32)
	botsSay(now time.Time, n int) int
	stopTheWorld(now time.Time, all bool) error
	frameLength() time.Duration
	// wave sends a wave at frame f (stage_wave.go) and returns the enemies it spawned.
	wave(now time.Time, f uint32, enemies, lines int) int
	event(now time.Time, what string, args ...any) // a line of the server's event log
}

// Stage is a lesson's hands on one server's game.
type Stage struct {
	host   stageHost
	doomed []doomed
	waves  waves
}

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

// StageOf is s's stage, attached at the first call. Owner loop only.
func StageOf(s *Server) *Stage {
	if st, ok := s.hook.(*Stage); ok {
		return st
	}
	st := &Stage{host: s}
	s.hook = st
	return st
}

// SpawnEnemies spawns up to n enemies now, each announced to every client like any spawn,
// past MaxEnemies too, and returns how many it spawned (fewer when it found no open ground).
func (st *Stage) SpawnEnemies(now time.Time, n int) (int, error) {
	f, ok := st.host.frame()
	if !ok {
		return 0, errNotRunning
	}
	done := 0
	for range n {
		if _, ok := st.host.spawnEnemy(now, f); ok {
			done++
		}
	}
	return done, nil
}

// SpawnDoomed spawns an enemy now and kills it after (at least a frame later): the kill
// leaves in a later packet than the spawn, and depends on it. On a lossy link the spawn's
// packet is sometimes lost and the kill's is not, and the kill waits on the client for the
// spawn's resend: the message dependency graph at work. After a few seconds the spawn has long
// executed, the kill carries no dependency at all: the sender pruned it.
func (st *Stage) SpawnDoomed(now time.Time, after time.Duration) error {
	f, ok := st.host.frame()
	if !ok {
		return errNotRunning
	}
	if len(st.doomed) >= maxDoomed {
		return errors.New("game: too many enemies waiting for their kill")
	}
	sp, ok := st.host.spawnEnemy(now, f)
	if !ok {
		return errors.New("game: no open ground for an enemy")
	}
	frames := max(uint32(after/st.host.frameLength()), 1)
	st.doomed = append(st.doomed, doomed{id: sp.ID, spawnAt: sp.Frame, at: f + frames})
	return nil
}

// onFrame schedules the kills of the doomed enemies whose frame has come. The kill may leave
// before the spawn runs (it runs a frame after it, like every kill); an enemy that fell in the
// meantime has its kill already.
func (st *Stage) onFrame(now time.Time, f uint32) {
	st.waveDue(now, f)
	keep := st.doomed[:0]
	for _, d := range st.doomed {
		if d.at > f {
			keep = append(keep, d)
			continue
		}
		st.host.killOnce(now, d.id, d.spawnAt, f)
	}
	st.doomed = keep
}

// BotsChat makes every server-side bot say n chat lines now (their next numbered lines), one
// after the other: a burst on each chat chain. It returns how many lines were said.
func (st *Stage) BotsChat(now time.Time, n int) int { return st.host.botsSay(now, n) }

// StopTheWorld starts a stop-the-world re-sync now, as a drift too wide for a real-time
// re-sync does: every client pauses at a frame ahead, sends the hash of every unit, gets what
// differs and resumes. With all, the server sends every unit at the pause whatever the hashes
// say: a re-sync as large as the world, cut into fragments. It fails before the start and
// while a pause is on.
func (st *Stage) StopTheWorld(now time.Time, all bool) error { return st.host.stopTheWorld(now, all) }

// The server's side of stageHost.

func (s *Server) frame() (uint32, bool) {
	if !s.clock.running || s.w == nil {
		return 0, false
	}
	return s.w.Frame(), true
}

func (s *Server) frameLength() time.Duration { return s.cfg.Frame }

func (s *Server) killOnce(now time.Time, id, spawnAt, f uint32) {
	_, alive := s.w.Unit(id)
	if (f < spawnAt || alive) && !s.enemies.killSent[id] {
		s.enemies.killSent[id] = true
		s.scheduleKill(now, id, max(f+s.lead.cur+1, spawnAt+1)) // never before its spawn
	}
}

func (s *Server) botsSay(now time.Time, n int) int {
	said := 0
	for _, st := range s.seats.players {
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

func (s *Server) stopTheWorld(now time.Time, all bool) error {
	if !s.clock.running || s.w == nil {
		return errNotRunning
	}
	if s.drift.pause != nil {
		return errors.New("game: a stop-the-world re-sync is already on")
	}
	var known []uint32
	if all {
		for _, u := range s.w.Units() {
			known = append(known, u.ID)
		}
	}
	s.event(now, "stop the world", "why", "on purpose", "all units", all)
	s.pauseWorld(now, known)
	return nil
}

// SetLate changes what the server does with a late event from now on (resim.go). The copies
// of the world kept for re-runs are dropped: the next late event runs again only as far back
// as frames kept from now on. Owner loop only.
func (s *Server) SetLate(mode LateMode) {
	s.drift.rw.mode = mode
	s.drift.rw.reset(s.frameNow())
}
