package game

import (
	"errors"
	"fmt"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Rounds: the teacher starts the game again.
//
// A new round is one more event of a frame, announced ahead like a spawn (NewRound): at its
// frame every host empties its world and seeds it again (world.Reset), and each seat whose
// player is there gets a starting squad at its spawn point, in seat order. So every host,
// a client that joins between the announcement and the frame included (it gets the NewRound
// with the other pending events), comes out of that frame with the same fresh world, and one
// that joins later is sent that world like any late joiner. The frame counter goes on: the
// hash history, the re-runs of late events and the re-syncs all count in frames, and a round
// that put the clock back would make two moments share a name.
//
// Events decided before the announcement may land after the round's frame, and they are
// harmless because every host runs them alike: an old unit's command is refused (the unit
// is gone, or now another seat's), an old enemy's kill finds nobody, a spawn adds its enemy to
// the new round. Two kinds would not be harmless, and the server keeps them out: a squad
// (the round gives squads itself) and a real-time repair (it would put an old unit into the
// new world). The round comes after every squad and repair already announced, and none is
// announced while it is on its way.
//
// The server also starts a new round on its own when the players' unit ids would run out: a
// world hands out ids from 1 to world.FirstEnemyID-1 and never reuses one, and a new round
// starts them from 1 again. With reinforcements every few minutes that takes hours.

// roundPlan is the server's rounds: the one being played, and the one announced and not
// started yet.
type roundPlan struct {
	current uint32 // 1 for the first
	next    *NewRound
}

// roundNotice is the least time between a new round's announcement and its frame: long
// enough for the class to read it on their screens.
const roundNotice = 2 * time.Second

// errRoundAnnounced: a new round is on its way already.
var errRoundAnnounced = errors.New("game: a new round is already announced")

// NewRound announces a new round (the teacher's restart) and returns the frame it starts
// at: at least roundNotice and twice the lead time ahead (with the margin of a pause), after
// every squad and repair already announced. It fails before the game starts and while a
// round is already announced. Owner loop only.
func (s *Server) NewRound(now time.Time) (uint32, error) {
	if !s.clock.running {
		return 0, errors.New("game: the game has not started")
	}
	return s.announceRound(now, "the teacher")
}

// announceRound announces the next round, saying why in the event log.
func (s *Server) announceRound(now time.Time, why string) (uint32, error) {
	if r := s.round.next; r != nil {
		return r.Frame, fmt.Errorf("%w for frame %d", errRoundAnnounced, r.Frame)
	}
	f := s.w.Frame()
	at := f + max(2*s.lead.cur+pauseMarginFrames, uint32(roundNotice/s.cfg.Frame))
	at = max(at, s.drift.lastFix+1)
	for _, sq := range s.squads.landsAt {
		at = max(at, sq+1)
	}
	r := &NewRound{Frame: at, Round: s.round.current + 1, Seed: s.rng.Uint64(), Seats: s.seats.playing()}
	s.round.next = r
	s.stats.Rounds++
	s.event(now, "new round", "round", r.Round, "at frame", r.Frame, "seats", r.Seats, "why", why)
	s.sched.add(event{frame: r.Frame, kind: evRound, round: r})
	for d := range s.seats.following {
		s.sendAfter(d, now, r, d.afterNames(r.Seats), nil)
	}
	return r.Frame, nil
}

// roundStarted: a NewRound ran on the server's world (at its frame, or again in a re-run).
// The seats it listed are the game's now, and what the server remembered about units and
// enemies of the old round goes: unit ids start again from 1, so a repair remembered for an
// id would be taken for the new unit's, and an enemy that was never killed leaves its spawn's
// dependency behind. (The squads of the old round all landed before it: announceRound saw
// to that.)
func (s *Server) roundStarted(r *NewRound) {
	s.round.current = r.Round
	if s.round.next != nil && s.round.next.Frame <= r.Frame {
		s.round.next = nil
	}
	s.seats.inGame = [world.MaxPlayers]bool{}
	for _, seat := range r.Seats {
		s.seats.inGame[seat] = true
	}
	for id, at := range s.drift.fixAt { // bookkeeping only, like the deletions below
		if at < r.Frame {
			delete(s.drift.fixAt, id) // an old round's repair (none is announced for its frame or later)
		}
	}
	spawning := make(map[uint32]bool)
	for i := range s.sched.pending {
		if e := &s.sched.pending[i]; e.kind == evSpawn && e.frame >= r.Frame {
			spawning[e.id] = true
		}
	}
	for i := range s.sched.ran {
		if e := &s.sched.ran[i]; e.kind == evSpawn && e.frame >= r.Frame {
			spawning[e.id] = true
		}
	}
	for d := range s.seats.connected {
		for id := range d.deps.spawns { // bookkeeping only: the order of deletion changes nothing
			if !spawning[id] {
				delete(d.deps.spawns, id)
			}
		}
	}
}

// idsRunOut reports whether squads for n more seats would take the world's players' unit ids
// past the last one.
func (s *Server) idsRunOut(n int) bool {
	return int(s.w.NextID())+n*len(world.StartingSquad()) > world.FirstEnemyID
}

// nextRound is the frame of the round the client has been announced, or 0.
func (c *Client) nextRound() uint32 {
	for i := range c.sched.pending {
		if e := &c.sched.pending[i]; e.kind == evRound {
			return e.frame
		}
	}
	return 0
}
