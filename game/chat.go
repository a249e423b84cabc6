package game

import (
	"errors"
	"fmt"
	"time"
)

// How fast chat may flow. Every line a client sends, a player's or a spectator's, the server
// relays to every other client: with 8 players and 256 spectators one line is 263 messages, so a
// client that typed without a limit would spend everybody's bandwidth. So every origin of chat,
// a seat or a spectator alike, has the same rate: chatBurst lines at once, then one every
// chatEvery. That is faster than anybody types, and than a script that shows a class chat
// flowing (a line every 150 ms); a flood is cut to ten lines a second, and the chat each
// client receives is bounded by the number of origins times that.
//
// The client holds itself to the rate (Say refuses a line over it, with a reason the player
// reads), and the server holds every client to twice the burst: a line that waited for a lost
// packet arrives with the ones after it, so an honest client's lines can reach the server
// closer together than they left, and the slack keeps the server from refusing them. A line
// over the server's limit is refused and counted (a player's in ChatRefused; a spectator is
// told in its next Spectate).
const (
	chatBurst       = 10
	chatEvery       = 100 * time.Millisecond
	serverChatBurst = 2 * chatBurst
)

// The spectators together share one more rate at the server (spectatorsChat), on top of each
// one's own: 32 spectators at their own rate would be 320 lines a second into every player's
// connection (some 75 KB/s), and a hall of 256 ten times that, sharing its congestion window
// with the commands that keep the game going. Together they get two players' worth: 20 lines a second, with a burst of twice
// the server's slack for one client. So the chat a player's link carries from spectators is
// never more than two more chatting players would send, whatever the number of spectators;
// and two rather than one because a class that chats in earnest (32 students each typing a
// line every two seconds: 16 a second) still gets every line through. A line over it is
// refused as too fast, like a line over the spectator's own rate, and the spectator is told.
const (
	spectatorsChatBurst = 2 * serverChatBurst
	spectatorsChatEvery = chatEvery / 2
)

// ErrChatTooFast is Say's refusal of a line over the chat's rate.
var ErrChatTooFast = fmt.Errorf("chat: at most %d lines at once, then one every %v: wait a moment", chatBurst, chatEvery)

// ErrSpectatorChatOff is a spectator's Say when the teacher turned spectator chat off.
var ErrSpectatorChatOff = errors.New("spectator chat is off: the teacher turned it off")

// The rates of chat (rate.go).
var (
	clientChat     = rateLimit{chatBurst, chatEvery}                     // what a client holds itself to
	serverChat     = rateLimit{serverChatBurst, chatEvery}               // what the server holds each origin to
	spectatorsChat = rateLimit{spectatorsChatBurst, spectatorsChatEvery} // what the spectators together get
)

// chat relays a line to every other client, spectators included: a chain per origin seat on
// each connection.
func (s *Server) chat(now time.Time, origin uint8, text string) {
	st0 := s.seats.players[origin]
	if st0 == nil {
		return
	}
	c := &Chat{Seat: origin, Line: s.stats.chatLines[origin] + 1, Text: text}
	s.stats.chatLines[origin]++
	s.stats.ChatRelayed++
	for d := range s.seats.following {
		if d != &st0.downlink {
			ch := &d.deps.chat[origin] // the origin's chain, after its writer's PlayerInfo
			s.sendAfter(d, now, c, append(d.afterNames([]uint8{origin}), ch.Last()), ch.Last())
		}
	}
}
