package game

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/world"
)

// The teacher's kick: a player or a spectator removed from the game, by the server's own
// screen (Server.Kick, the K key there).
//
// A kicked player's seat is free at once for whoever joins next, not held SeatHold as for a
// player whose connection ended (seats.go): the teacher wants the seat for somebody else. Its
// units stay in the world and go with the seat, as a seat freed after its hold. A kicked
// spectator's place is freed as any spectator's that leaves. The client reads why (its
// connection ends DisconnectKicked with KickedText), shows it and exits; it may join again
// like anybody, as a new player.
//
// Trust: no message asks for a kick. Kick is an intent of the owner loop, which only the
// server's screen hands it (ui's ServerHost); nothing a client sends reaches it.

// KickedText is what a client the teacher kicked reads as the reason its connection ended.
const KickedText = "removed by the teacher"

// KickTarget names whom the teacher kicks, as the server's screen saw them: a seat or a
// spectator's number, and the player in it. The place must still hold that player when the
// owner loop takes the intent: a seat its player left and somebody else took since is not
// kicked by mistake.
type KickTarget struct {
	Player    uuid.UUID
	Seat      uint8  // the seat, when Spectator is 0
	Spectator uint16 // a spectator's number (1..MaxSpectatorNumber); 0: a seat
}

// ErrKickTarget is what Kick wraps when there is nobody to kick: the place is empty, holds
// another player, or a server's bot.
var ErrKickTarget = errors.New("nobody to kick")

// Kick removes a player or a spectator from the game (the teacher's K key): its connection,
// if it still has one, ends DisconnectKicked with KickedText, and its place is free at once.
// A seat held for a player who left is freed too. Owner loop only.
func (s *Server) Kick(now time.Time, k KickTarget) error {
	if k.Spectator != 0 {
		return s.kickSpectator(now, k)
	}
	if int(k.Seat) >= world.MaxPlayers {
		return fmt.Errorf("%w: no seat %d", ErrKickTarget, k.Seat)
	}
	st := s.seats.players[k.Seat]
	switch {
	case st == nil || st.player != k.Player:
		return fmt.Errorf("%w: seat %d is not that player's any more", ErrKickTarget, k.Seat)
	case st.bot != nil:
		return fmt.Errorf("%w: %s is the server's bot, with no client", ErrKickTarget, st.name)
	}
	s.stats.Kicks++
	s.event(now, "kicked by the teacher", "seat", st.idx, "name", st.name)
	if p := st.peer; p != nil {
		s.tr.Kick(p, now, KickedText) // onDisconnect holds the seat (playerLeft): freed below
	}
	s.freeSeatOf(st, now, "kicked by the teacher")
	return nil
}

// kickSpectator is Kick for a spectator: its place is freed as its connection ends.
func (s *Server) kickSpectator(now time.Time, k KickTarget) error {
	if int(k.Spectator) > MaxSpectatorNumber {
		return fmt.Errorf("%w: no spectator %d", ErrKickTarget, k.Spectator)
	}
	sp := s.seats.spectators[k.Spectator-1]
	if sp == nil || sp.player != k.Player || sp.peer == nil {
		return fmt.Errorf("%w: spectator %d is not that client any more", ErrKickTarget, k.Spectator)
	}
	s.stats.Kicks++
	s.event(now, "kicked by the teacher", "spectator", sp.num, "name", sp.name)
	s.tr.Kick(sp.peer, now, KickedText) // onDisconnect frees its place (spectatorLeft)
	return nil
}
