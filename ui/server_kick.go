package ui

import (
	"fmt"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/game"
)

// The teacher's kick on the server's screen: K on the row selected in the player table asks
// "kick bob (seat 2)?", and K again or y kicks (game.Server.Kick); any other key, or
// noticeFor without an answer, kicks nobody. A kick is a step nobody can undo, so it takes two
// keys, and the question names whom.

// serverKick is a kick asked for on the server's screen: whom, when K was pressed, and, once
// confirmed, the intent on its way.
type serverKick struct {
	target game.KickTarget
	who    string // as the notices name it: "bob (seat 2)"
	asked  time.Time
	ticket *OrderTicket
}

// kickKey handles a key while a kick waits for its answer: K or y kicks; any other key kicks
// nobody and goes on to do what it does. done: the key was the answer.
func (s *ServerScreen) kickKey(ev *tcell.EventKey) (done bool) {
	k := s.kickAsked
	if k == nil {
		return false
	}
	s.kickAsked = nil
	if ev.Key() != tcell.KeyRune || ev.Rune() != 'K' && ev.Rune() != 'y' {
		s.tell("no kick: " + k.who + " stays")
		return ev.Key() == tcell.KeyEscape // Esc only cancels
	}
	t, ok := s.host.Kick(k.target)
	if !ok {
		s.tell(errBusy.Error())
		return true
	}
	k.ticket, s.kicking = t, k
	return true
}

// askKick asks the teacher to confirm the kick of the row selected in the player table.
func (s *ServerScreen) askKick() {
	snap := s.snap
	if snap == nil {
		return
	}
	var k *serverKick
	for _, st := range snap.Seats {
		if int(st.Seat) != s.seat {
			continue
		}
		if st.Bot {
			s.tell(st.Name + " is the server's bot: there is no client to kick")
			return
		}
		k = &serverKick{target: game.KickTarget{Seat: st.Seat, Player: st.Player}, who: fmt.Sprintf("%s (seat %d)", st.Name, st.Seat)}
	}
	for _, sp := range snap.Spectators {
		if spectatorRow(sp.Number) == s.seat {
			k = &serverKick{target: game.KickTarget{Spectator: sp.Number, Player: sp.Player}, who: fmt.Sprintf("%s (spectator %d)", sp.Name, sp.Number)}
		}
	}
	if k == nil {
		s.tell("nobody selected to kick: ↑↓ in the player table selects")
		return
	}
	k.asked = s.now
	s.kickAsked = k
	s.tell("kick " + k.who + "? K or y: yes, any other key: no")
}

// refreshKick lets an unanswered question go after noticeFor (its notice goes with it), and
// says what came of a kick on its way.
func (s *ServerScreen) refreshKick(now time.Time) {
	if k := s.kickAsked; k != nil && now.Sub(k.asked) > noticeFor {
		s.kickAsked = nil
	}
	k := s.kicking
	if k == nil {
		return
	}
	_, err, ok := k.ticket.Result()
	if !ok {
		return
	}
	s.kicking = nil
	switch {
	case err != nil:
		s.tell("no kick: " + err.Error())
	case k.target.Spectator != 0:
		s.tell("kicked " + k.who + ": its place is free")
	default:
		s.tell(fmt.Sprintf("kicked %s: seat %d is free for whoever joins next", k.who, k.target.Seat))
	}
}

// kickKeyFree: K is the kick's, but on the map, whose cursor it moves 8 cells up.
func (s *ServerScreen) kickKeyFree() bool {
	return s.mapView == nil || !s.mapView.HasFocus()
}
