package game

import (
	"fmt"
	"time"
)

// Waves: dependencies a class can watch on the wire.
//
// In a class's game a kill comes seconds after its enemy's spawn, and a chat line seconds
// after the one before. By then the server's local graph has long executed the spawn, or the
// line, and prunes the dependency: no kill names its spawn on the wire, so none ever waits on
// a client, at any loss, and a student's frozen graph shows every message executed. A wave
// makes the dependencies live. It spawns a few enemies and kills each at once, and has each
// server bot say a few lines, and it cuts them into packets of their own on every connection,
// all sent in the same instant, one after another:
//
//	packet 1: spawn A, a line of each bot
//	packet 2: kill A, spawn B, the bots' next lines
//	…
//	packet n+1: kill of the last
//
// A kill leaves in the packet after its spawn's, a line in the packet after the one before,
// both before anything was acknowledged: each names its dependency on the wire. When a packet
// is lost and the next one arrives (at 30% loss, 21% of the pairs), the kill or the line is
// there first and waits in the client's graph for the resend, a round trip and the ack delay
// later, while the spawns beside it run at once: a lost chat line holds up no spawn. On the
// server's own graph of that connection the same kill is "acked, waits on" its spawn.
//
// Like the rest of a Stage it is what the game does anyway (spawns, kills and the bots' chat,
// on their own paths), at moments chosen to show it; only the packets are cut. The teacher's
// key on the server's screen turns waves on (one every WaveEvery) and off again.

// The size of a wave: the enemies spawned and killed, and the lines each server bot says. A
// lost packet early in a wave holds its kill waiting while the rest of the wave arrives, so a
// longer wave shows a wait in more of a frozen graph's steps: with sixteen, a fifth of a
// student's and of the projector's steps at 30% loss (BENCHMARKS.md, "The graph in the
// class's game"); with twelve a tenth of the projector's, with six a twelfth. The lines are few, or the bots' numbered lines would flood every chat.
const (
	WaveEnemies = 16
	WaveLines   = 2
	// WaveEvery is how often the teacher's waves come: often enough that a student who
	// freezes the graph steps into one within a few seconds of the game.
	WaveEvery = 2 * time.Second
)

// The bounds of a wave and of the time between two.
const (
	maxWaveEnemies = 32
	maxWaveLines   = 4
	minWaveEvery   = 500 * time.Millisecond
	maxWaveEvery   = time.Minute
)

// waves is a Stage's schedule of waves.
type waves struct {
	every time.Duration // 0: off
	next  time.Time
}

// SpawnWave sends a wave now: enemies enemies, each killed in the packet after its spawn's,
// and lines lines from each server bot, one a packet (see above). It returns how many enemies
// it spawned (fewer when it found no open ground).
func (st *Stage) SpawnWave(now time.Time, enemies, lines int) (int, error) {
	f, ok := st.host.frame()
	if !ok {
		return 0, errNotRunning
	}
	if enemies < 0 || enemies > maxWaveEnemies || lines < 0 || lines > maxWaveLines {
		return 0, fmt.Errorf("game: a wave of %d enemies and %d lines a bot, want at most %d and %d", enemies, lines, maxWaveEnemies, maxWaveLines)
	}
	n := st.host.wave(now, f, enemies, lines)
	st.host.event(now, "wave", "enemies", n, "bot lines", lines)
	return n, nil
}

// SetWaves sends a wave (WaveEnemies, WaveLines) every every from now on, the first at the
// next frame of the game; 0 stops them. It fails for a time between waves out of bounds. The
// event log says when they start and stop, not every wave.
func (st *Stage) SetWaves(now time.Time, every time.Duration) error {
	if every != 0 && (every < minWaveEvery || every > maxWaveEvery) {
		return fmt.Errorf("game: a wave every %v, want %v to %v (or 0: none)", every, minWaveEvery, maxWaveEvery)
	}
	if every == st.waves.every {
		return nil
	}
	st.waves = waves{every: every, next: now}
	if every == 0 {
		st.host.event(now, "waves off")
	} else {
		st.host.event(now, "waves on", "every", every, "enemies", WaveEnemies, "bot lines", WaveLines)
	}
	return nil
}

// Waves is how often waves come (0: they do not).
func (st *Stage) Waves() time.Duration { return st.waves.every }

// waveDue sends the wave whose time has come, at frame f.
func (st *Stage) waveDue(now time.Time, f uint32) {
	w := &st.waves
	if w.every == 0 || now.Before(w.next) {
		return
	}
	w.next = now.Add(w.every)
	st.host.wave(now, f, WaveEnemies, WaveLines)
}

// The server's side.

// wave spawns and kills enemies and has the bots say lines, cutting the packets after each
// step (see above). Its spawns and kills are not logged one by one: a wave every two seconds
// would push everything else out of the teacher's event log.
func (s *Server) wave(now time.Time, f uint32, enemies, lines int) int {
	s.enemies.quiet = true
	spawned := 0
	var last *SpawnEnemy // spawned in the packet before, killed in this one
	for i := 0; i <= max(enemies, lines); i++ {
		if last != nil {
			s.killOnce(now, last.ID, last.Frame, f)
			last = nil
		}
		if i < enemies {
			if sp, ok := s.spawnEnemy(now, f); ok {
				last, spawned = sp, spawned+1
			}
		}
		// The lines go in the wave's last packets: the newest messages are the ones a debug
		// panel's snapshot holds (32 a direction), so a line that waits on the one before it is
		// still there when the resend comes.
		if i > max(enemies, lines)-lines {
			s.botsSay(now, 1)
		}
		// What this step queued leaves now, in packets of its own on every connection.
		s.flushOutboxes(now)
		s.tr.Flush(now)
	}
	s.enemies.quiet = false
	return spawned
}
