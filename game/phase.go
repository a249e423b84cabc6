package game

import "fmt"

// A client's life in the game is one phase at a time, and its role (player or spectator) is
// kept beside it (clientRole): the two are independent, since a spectator goes through the
// same phases as a player.
//
//	connecting ──► challenged ──► admitted ──► running ◄──► paused
//	    │                           │  ▲          │
//	    │                           ▼  │          ▼
//	    └──────────────────────► awaiting the world
//	(every phase) ──► ended
//
//   - connecting: the transport's handshake, and until the server says who this client is.
//   - challenged: the server asked this client to prove its player's secret (a claim on the
//     seat it held before, identity.go).
//   - admitted: seated or spectating (the role says which); the game has not started here.
//   - awaiting the world: the game runs, and its world is on its way in ResyncBatches (a
//     client that joined a running game, or a spectator whose own copy of the world is being
//     replaced because its reports showed a drift, spectate.go). Its frames wait.
//   - running: the world steps at the server's frame boundaries.
//   - paused: the world stands at the frame of a stop-the-world re-sync until the Resume.
//   - ended: the connection ended, and nothing comes from the server any more. A world that
//     exists goes on stepping alone, as the screen shows it until the program exits (the
//     binaries exit when the connection ends; a game in virtual time keeps the host).
//
// A client may go from connecting straight to running or awaiting the world: a spectator's
// Spectate and its StartGame travel on different chains, and the StartGame may come first.
// The moves the game has no path for are refused (phaseMoves): a second StartGame, a
// batch that would rewrite a running player's world, anything after the end.

// phase is where a client is in its life in the game.
type phase uint8

const (
	phaseConnecting phase = iota
	phaseChallenged
	phaseAdmitted
	phaseAwaitingWorld
	phaseRunning
	phasePaused
	phaseEnded
	numPhases
)

var phaseNames = [numPhases]string{
	phaseConnecting:    "connecting",
	phaseChallenged:    "challenged",
	phaseAdmitted:      "admitted",
	phaseAwaitingWorld: "awaiting the world",
	phaseRunning:       "running",
	phasePaused:        "paused",
	phaseEnded:         "ended",
}

func (p phase) String() string {
	if p < numPhases {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// phaseMoves are the moves a client makes between phases. Staying in a phase is always
// allowed (a PlayerInfo naming this client's seat again, while it runs, changes nothing).
var phaseMoves = [numPhases][numPhases]bool{
	phaseConnecting:    {phaseChallenged: true, phaseAdmitted: true, phaseAwaitingWorld: true, phaseRunning: true, phaseEnded: true},
	phaseChallenged:    {phaseAdmitted: true, phaseEnded: true},
	phaseAdmitted:      {phaseAwaitingWorld: true, phaseRunning: true, phaseEnded: true},
	phaseAwaitingWorld: {phaseRunning: true, phaseEnded: true},
	phaseRunning:       {phaseAwaitingWorld: true, phasePaused: true, phaseEnded: true},
	phasePaused:        {phaseRunning: true, phaseEnded: true},
	phaseEnded:         {},
}

// next is the phase after a move from p to to, or an error for a move the game has no path
// for (p stays).
func (p phase) next(to phase) (phase, error) {
	if to >= numPhases || p >= numPhases {
		return p, fmt.Errorf("game: no phase %v", to)
	}
	if to != p && !phaseMoves[p][to] {
		return p, fmt.Errorf("game: a client cannot go from %v to %v", p, to)
	}
	return to, nil
}

// moveTo moves the client to phase to, and reports whether it could: a move the game has no
// path for is a message that should not have come, counted as a bad message.
func (c *Client) moveTo(to phase) bool {
	p, err := c.phase.next(to)
	if err != nil {
		c.stats.BadMessages++
		c.cfg.Logger.Warn("phase", "err", err)
		return false
	}
	c.phase = p
	return true
}

// clientRole is what a client is in the game, known once the server says it: a player (its
// seat) or a spectator (the server's latest Spectate).
type clientRole struct {
	kind     roleKind // roleNone until the server says; then rolePlayer or roleSpectator
	seat     uint8
	spectate *Spectate
}
