package game

import (
	"errors"
	"fmt"
	"time"
)

// Commands are bounded: in their frame, and in their rate.
//
// A command the server takes it keeps until its frame has run, relays to every other client
// and sends again to every client that joins before then (the events still to run, server.go's
// sendSnapshot). So a command for any frame at all would let one player fill the server's
// memory with commands for frame 10⁶, and every later joiner's connection with them (a
// spectator who joined after 300 such commands was dropped at once, too far behind); and a
// command at any rate would let one player fill every other player's link (21,511 commands in
// 8 s reached each of them, 1.07 MB). So the server takes a player's command only
//
//   - for a frame from the re-run window before the frame the game is at (a late command is
//     run as the late mode says, resim.go) to the lead and the window after it: an honest
//     client issues its commands at its frame plus the lead, and its frame follows the
//     server's within a few frames, the window's slack. Anything else no honest client sends,
//     and is refused and counted (CommandsOutOfRange);
//   - within the seat's rate (serverCommands), counted in tokens: a command is one, and one
//     more for every unitsPerToken units it names past the first, so that its bytes and not
//     only its count are bounded (a command may name 1,024 units). Over it, it is refused and
//     counted (CommandsTooFast).
//
// A refused command runs nowhere but on its sender's host (and the hosts it sent it to
// directly), whose world then drifts until the hash checks repair it: the sender's own doing.
// The server compares those hosts' reports with the command counted in its inputs' digest
// (refusedRan), so that the drift is found at once. The server logs a seat's refusals at most
// every refusalLogEvery, so the teacher sees who it was (the event log on the server's screen).
//
// The rate. The server's bots order one group every 2 to 5 frames, at most 5 commands a second
// (bot.go), each naming at most 4 units. A human gives an order per click or key: a fast
// clicker makes about 10 a second; a key held down repeats 25 to 30 times a second (the
// systems' default and fastest repeat rates), and each repeat of m, a or s is an order for the
// whole selection, a player's few units (five to start, a squad more at most). So a client
// holds itself to commandBurst tokens at once, then one every commandEvery: 50 a second, ten
// times the bot, above any key's repeat; an order past it is refused on the player's screen
// (ErrCommandsTooFast), before it runs anywhere. The server holds each seat to twice that
// burst at the same rate: commands that waited behind a lost packet arrive together, closer
// than they left, and the slack (a second and a quarter of the full rate) keeps the server
// from refusing an honest client's. What one seat's flood costs every other player is then at
// most 128 tokens at once and 50 a second, each a command of 16 units or fewer: about 4 kB a
// second of their link at the most, and nothing for a flood of one-unit orders beyond a
// command every 20 ms.
const (
	commandBurst       = 64
	commandEvery       = 20 * time.Millisecond
	serverCommandBurst = 2 * commandBurst
	// unitsPerToken: a command's fixed fields weigh about as much as 16 of its unit ids, so a
	// token is a command of up to 16 units; a command of 1,024 is 64, a whole client burst.
	unitsPerToken = 16
	// refusalLogEvery: at most one event line per seat this often for its refused commands.
	refusalLogEvery = 5 * time.Second
)

// The rates of commands (rate.go).
var (
	clientCommands = rateLimit{commandBurst, commandEvery}       // what a client holds itself to
	serverCommands = rateLimit{serverCommandBurst, commandEvery} // what the server holds each seat to
)

// ErrCommandsTooFast is a client's refusal of an order over the commands' rate.
var ErrCommandsTooFast = fmt.Errorf("orders: at most %d at once, then one every %v: wait a moment", commandBurst, commandEvery)

// errNoGame: a command before the game started, or after it ended.
var errNoGame = errors.New("no game is running")

// commandTokens is what a command costs of its seat's rate: 1, and 1 more for every
// unitsPerToken units past the first.
func commandTokens(c *Command) int { return 1 + max(len(c.Units)-1, 0)/unitsPerToken }

// commandFrames is the range of frames a host at frame now, with the lead and the re-run
// window given (in frames), takes commands for: from the window before now to the lead and
// the window after it.
func commandFrames(now, lead, window uint32) (first, last uint32) {
	return now - min(now, window), now + lead + window
}

// commandLimits is what the server keeps of one seat's commands: its rate, and its refusals.
type commandLimits struct {
	rate     rateBucket
	refused  uint64    // refused in all
	loggedAt time.Time // the latest event line about them
}

// admitCommand reports whether the server takes c, a command of st's own seat: for a frame
// it may run at, within the seat's rate. A refusal is counted, and logged at most every
// refusalLogEvery per seat.
func (s *Server) admitCommand(now time.Time, st *seat, c *Command) bool {
	err := s.commandFrameOK(c.Frame)
	switch {
	case err != nil:
		s.stats.CommandsOutOfRange++
	case !st.commands.rate.takeN(now, serverCommands, commandTokens(c)):
		s.stats.CommandsTooFast++
		err = fmt.Errorf("faster than %d tokens at once, then one every %v", serverCommands.burst, serverCommands.every)
	default:
		return true
	}
	s.refusedRan(st, c)
	st.commands.refused++
	if st.commands.loggedAt.IsZero() || now.Sub(st.commands.loggedAt) >= refusalLogEvery {
		st.commands.loggedAt = now
		s.event(now, "commands refused", "seat", st.idx, "name", st.name, "why", err, "refused", st.commands.refused)
	}
	return false
}

// refusedRan keeps the refused command c of st's seat in the digests the server compares
// with the reports of the hosts that ran it all the same (inputsFor): its player's, which
// scheduled it as it sent it, and, unless its frame is past the range (they refuse that
// too, directCommand), those of the players it says it went to directly (c.Direct).
// Their worlds drift by it, and the hash checks must see that at once, not once the command
// has left the digest's window.
func (s *Server) refusedRan(st *seat, c *Command) {
	if !s.clock.running || s.w == nil {
		return // no game: the client refused it too
	}
	now := s.w.Frame()
	in := refusedInput{frame: c.Frame, hash: (&event{frame: c.Frame, kind: evCommand, seat: c.Seat, id: c.ID}).digest()}
	st.drift.keepRefused(in, now)
	if _, last, _, _ := s.commandRange(); c.Frame > last {
		return
	}
	for i, o := range s.seats.players {
		if o != nil && o != st && c.Direct&(1<<i) != 0 {
			o.drift.keepRefused(in, now)
		}
	}
}

// commandFrameOK says why a command for frame is refused, if it is (nil: it may run).
func (s *Server) commandFrameOK(frame uint32) error {
	if !s.clock.running || s.w == nil {
		return errNoGame
	}
	now := s.w.Frame()
	first, last, lead, window := s.commandRange()
	switch {
	case frame < first:
		return fmt.Errorf("frame %d is before %d: more than the re-run window (%d frames) before the game's frame %d", frame, first, window, now)
	case frame > last:
		return fmt.Errorf("frame %d is after %d: the game's frame %d, the lead (%d) and the re-run window (%d)", frame, last, now, lead, window)
	}
	return nil
}

// commandRange is the range of frames the server takes commands for (commandFrames), with the
// lead and the re-run window it comes from. The game must be running.
func (s *Server) commandRange() (first, last, lead, window uint32) {
	lead, window = max(s.lead.cur, s.lead.latestFrames()), s.drift.rw.windowFrames()
	first, last = commandFrames(s.w.Frame(), lead, window)
	return first, last, lead, window
}
