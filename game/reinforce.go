package game

import (
	"slices"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Reinforcements: a game that lasts.
//
// The enemies never stop coming, and a squad of five falls to them within a minute or two. A
// class period is 45 minutes, so every player, bots included, gets a fresh starting squad
// whenever its army runs low: fewer than ReinforceBelow units (2 by default). The squad
// lands at the seat's spawn point ReinforceDelay after the server noticed (3 s by default),
// so a player without units waits at most that long, and its screen says so.
//
// Who decides. Every host could apply such a rule to its own copy of the world at agreed
// frames, with no message at all: the rule is deterministic and the worlds are meant to be
// equal. But a copy can drift (a command that came too late, a host dropped from a re-sync),
// and a drifted host would then also add squads the others do not, with ids the others give
// to other units; the real-time repair puts units back but not the world's counter of unit
// ids, so the drift would outlive every repair. So the server decides, from its own world,
// and announces each squad like an enemy's spawn: a Reinforce message with the frame it lands
// at, far enough ahead that every client has it in time (never less than the lead time and a
// frame). Every host then runs it as an event of that frame: the same squads, in seat order,
// with the same ids everywhere; a late one is run again exactly like any late event
// (resim.go), and a client that joins before it lands gets it with the other pending events.
//
// A seat is reinforced while a player holds it: a server's bot, or a connected client that
// was sent the game. A player who joined a running game (and so had no units) is reinforced
// like any other, and plays from then on. A seat whose player has gone keeps what it has.
// While a seat's squad is on its way, the seat is not considered again: one squad at a time.

// Defaults of the reinforcements.
const (
	DefaultReinforceBelow = 2
	DefaultReinforceDelay = 3 * time.Second
)

// squadPlan is the server's reinforcements: the frame each seat's announced squad lands at; a
// frame passed: none on its way.
type squadPlan struct {
	landsAt [world.MaxPlayers]uint32
}

// reinforceDelay is how many frames ahead a squad is announced: the configured delay, and
// never less than the lead time and a frame, so that it reaches every client in time.
func (s *Server) reinforceDelay() uint32 {
	return max(uint32(s.cfg.ReinforceDelay/s.cfg.Frame), s.lead.cur+1, 1)
}

// reinforce announces a squad for every seat whose army runs low, at frame f (after the
// frame's events ran, before its step). units is the number of units of each seat, which
// enemies counted in its pass over the world.
func (s *Server) reinforce(now time.Time, f uint32, units *[world.MaxPlayers]int) {
	if s.cfg.ReinforceBelow <= 0 || s.round.next != nil {
		return // none, or the new round on its way gives squads itself
	}
	var seats []uint8
	for _, st := range s.seats.players {
		if st == nil || !st.present() {
			continue // nobody plays the seat
		}
		if s.squads.landsAt[st.idx] > f || units[st.idx] >= s.cfg.ReinforceBelow {
			continue // a squad is on its way, or the army is not low
		}
		seats = append(seats, st.idx)
	}
	if len(seats) == 0 {
		return
	}
	onTheirWay := 0
	for _, sq := range s.squads.landsAt {
		if sq > f {
			onTheirWay++
		}
	}
	if s.idsRunOut(len(seats) + onTheirWay) {
		s.announceRound(now, "the players' unit ids ran out")
		return
	}
	r := &Reinforce{Frame: f + s.reinforceDelay(), Seats: seats}
	for _, seat := range seats {
		s.squads.landsAt[seat] = r.Frame
	}
	s.stats.Squads += uint64(len(seats))
	s.event(now, "reinforcements", "seats", seats, "at frame", r.Frame)
	s.sched.add(event{frame: r.Frame, kind: evReinforce, reinforce: r})
	for d := range s.seats.following {
		s.sendAfter(d, now, r, d.afterNames(r.Seats), nil)
	}
}

// squadLanded: a Reinforce ran on the server's world, so its seats play in this game (their
// bots think, the table says so).
func (s *Server) squadLanded(r *Reinforce) {
	for _, seat := range r.Seats {
		s.seats.inGame[seat] = true
	}
}

// nextSquad is the frame the squad of seat lands at, from the client's pending events, or 0
// if none is announced.
func (c *Client) nextSquad(seat uint8) uint32 {
	for i := range c.sched.pending {
		e := &c.sched.pending[i]
		if e.kind == evReinforce && slices.Contains(e.reinforce.Seats, seat) {
			return e.frame
		}
	}
	return 0
}
