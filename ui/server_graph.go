package ui

import (
	"fmt"
	"time"

	"github.com/ackattack/ackattack/game"
)

// The server's screen and the dependency graph.
//
// In a class's game a student's graph has little to show on its own: a kill comes seconds
// after its spawn, long after the server's graph executed it, so the server prunes the
// dependency and no kill ever waits on a client. The teacher has two ways to show the graph
// at work:
//
//   - w turns the waves on (game.Stage.SetWaves): every 2 s, a few enemies each killed in the
//     packet after its spawn's, and a few lines of each server bot, a packet each. At the
//     class's loss presets some kills and lines arrive first and wait, in every student's
//     graph and the projector's, for a round trip and the ack delay. w again turns them off.
//   - The debug panel (d) shows the graph of the connection selected in the player table
//     (↑↓), a player's or a spectator's, from the server's side: the sender's. There the
//     dependencies the server pruned are drawn dotted, "pruned", on every kill of the
//     game's own and every chat line, and a wave's kill shows "acked, waits on" its spawn
//     while the spawn's resend is on its way. The projector can show this screen.

// waveControl is the w key's state: the setting it last asked for, shown until the server's
// snapshot has it, and the intent whose refusal, if any, the next frame reports.
type waveControl struct {
	asked  *time.Duration
	ticket *OrderTicket
}

// waveSetting is how often the teacher's waves come as the screen should show it (0: off):
// what w last asked for, until the frame's snapshot has it, then the snapshot's.
func (s *ServerScreen) waveSetting() time.Duration {
	switch {
	case s.waves.asked != nil:
		return *s.waves.asked
	case s.snap != nil:
		return s.snap.Waves
	}
	return 0
}

// toggleWaves turns the waves on or off through the owner loop, and says what the class will
// see.
func (s *ServerScreen) toggleWaves() {
	next := game.WaveEvery
	if s.waveSetting() != 0 {
		next = 0
	}
	t, ok := s.host.SetWaves(next)
	if !ok {
		s.tell(errBusy.Error())
		return
	}
	s.waves.asked, s.waves.ticket = &next, t
	if next == 0 {
		s.tell("waves off (w: on)")
		return
	}
	s.tell(fmt.Sprintf("waves every %v: kills right behind their spawns, bot lines a packet each; at F6/F7 they wait in the graphs (w: off)", next))
}

// refreshWaves, once a frame: lets go of the setting asked for once the snapshot has it, and
// says why the server refused it, if it did.
func (s *ServerScreen) refreshWaves() {
	if a := s.waves.asked; a != nil && s.snap != nil && s.snap.Waves == *a {
		s.waves.asked = nil
	}
	t := s.waves.ticket
	if t == nil {
		return
	}
	if _, err, ok := t.Result(); ok {
		s.waves.ticket = nil
		if err != nil {
			s.waves.asked = nil
			s.tell("waves unchanged: " + err.Error())
		}
	}
}

// SetWaves hands the setting to the server's loop.
func (g gameServer) SetWaves(every time.Duration) (*OrderTicket, bool) {
	t := &OrderTicket{}
	ok := g.s.TryDo(func(s *game.Server, now time.Time) {
		err := game.StageOf(s).SetWaves(now, every)
		s.Intent(now)
		t.settle(0, err)
	})
	if !ok {
		return nil, false
	}
	return t, true
}
