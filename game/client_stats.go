package game

import (
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// ClientStats are the client's counters.
type ClientStats struct {
	CommandsIssued   uint64
	CommandsLate     uint64 // applied after their frame (and fast-forwarded)
	EnemiesSpawned   uint64
	EnemiesKilled    uint64
	Squads           uint64 // starting squads announced as reinforcements, any seat's
	Rounds           uint64 // new rounds announced
	LeadTimes        uint64 // lead time changes announced
	ClassLinks       uint64 // link settings the server gave the class
	HashReports      uint64
	HashRequests     uint64
	MismatchedGroups uint64
	MismatchedUnits  uint64
	MismatchedStates uint64 // real-time re-syncs received with the server's core state (any player's drift)
	RealtimeResyncs  uint64
	StopWorldResyncs uint64
	PauseMillis      []int64 // the latest maxPausesKept pauses, oldest first
	Desyncs          uint64  // units corrupted on purpose
	BadMessages      uint64
	// CommandsRefused counts the commands the world refused when they ran: orders for units
	// that are not their seat's, or gone (every host refuses the same ones).
	CommandsRefused uint64
	DirectLinks     uint64 // direct links to other players made
	DirectRedials   uint64 // dials of a direct link tried again after it ended
	DirectSilent    uint64 // dials that never got an answer: not tried again until the server lists the player anew
	DirectRefused   uint64 // direct connections dropped for not proving the pair's key (a wrong proof, or none in time)
	DirectLost      uint64 // direct links (proved connections) that ended, each told to the server (LinkLost)
	DirectQuiet     uint64 // direct links that fell quiet for linkQuiet, each told to the server (LinkLost)
	DirectStalled   uint64 // direct links whose oldest command went unacknowledged for stallAfter, each told to the server (LinkLost)
	// CommandsDirectFirst counts other players' commands that arrived on a direct link before
	// the server's relay.
	CommandsDirectFirst uint64
	// SendsRefused counts this player's messages refused by back-pressure (send.go): each
	// refusal was returned to whoever issued the message.
	SendsRefused uint64
	// StrayDatagrams counts datagrams from an address that is neither the server nor a direct
	// link (the client has no listener without direct links).
	StrayDatagrams uint64
	// WorldCopies counts the copies of the whole world the server sent this client, a
	// spectator, because its reports showed a drift (spectate.go).
	WorldCopies uint64
}

// ClientSnapshot is what a user interface reads: an immutable copy, safe from any goroutine.
type ClientSnapshot struct {
	At      time.Time
	State   transport.ClientState
	Started bool
	Paused  bool
	Waiting bool // the connection waits for a sync message's ack
	Seat    uint8
	Frame   uint32
	Lead    uint32 // the command lead time in force, in frames
	// LeadFixed: the teacher fixed that lead (the server's --lead, or its key); false: the
	// server sets it from its players' links. LeadNext is the latest change announced for a
	// frame still to come (Frame 0: none), in force from LeadNext.Frame on.
	LeadFixed bool
	LeadNext  LeadTime
	Players   [world.MaxPlayers]PlayerInfo
	// The report's counters, for a status line (the whole --stats report, with its chat and
	// hash history, is built once at exit: Client.Report).
	Net  NetReport
	Game GameReport
	Sync SyncReport
	// The world as of Frame, for drawing: its map and copies of its units and attacks in
	// flight (empty before the game starts).
	Map     string
	Units   []world.Unit
	Attacks []world.Attack
	// For the debug panel and the orders line: the latest hash mismatches and re-sync pauses
	// seen by this client (oldest first), and its own commands not yet executed.
	// Chat is the conversation as this player sees it, own lines included, oldest first (the
	// latest maxChatShown lines); ChatTotal counts every line it ever held, so a reader can tell
	// which lines are new since its last look.
	Chat       []ChatLine
	ChatTotal  uint64
	Mismatches []SyncRecord
	Pauses     []PauseRecord
	Pending    []PendingOrder
	// Squad is the frame this player's next squad of reinforcements lands at (reinforce.go),
	// and NewRound the frame the next round starts at (round.go), 0 when none is announced;
	// FrameDur is the length of a frame, to say how soon that is.
	Squad    uint32
	NewRound uint32
	FrameDur time.Duration
	// ClassLink is the link setting the server last gave the class (classlink.go), nil for
	// none; ClassLinkErr says why it is not on this client's link ("" when it is); ClassLinks
	// counts them, so that a screen can tell a new one.
	ClassLink    *linksim.Settings
	ClassLinkErr string
	ClassLinks   uint64
	// Spectator is the server's latest Spectate when this client watches as a spectator
	// (spectate.go): its number, why it watches, whether spectator chat is on, and how many of
	// its lines the server refused; nil for a player.
	Spectator *Spectate
}
