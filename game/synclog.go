package game

import "time"

// The sync log: what the debug panel's "hash mismatches" and "re-sync pauses" views show. Both
// hosts keep the latest records (maxSyncRecords of each) and copy them into every snapshot.

const maxSyncRecords = 32

// Actions a SyncRecord can end in.
const (
	ActionDrillDown   = "drill-down"           // groups differed; per-unit hashes asked for
	ActionRealtime    = "real-time re-sync"    // the units' server state applied at Record.At on every host
	ActionStopWorld   = "stop-the-world"       // the game pauses at Record.At and every host re-syncs
	ActionNoneLeft    = "already repairing"    // every differing unit had a repair on its way
	ActionNoDrillDown = "answer came too late" // the drill-down's answer did not match the request
)

// UnitMismatch is one unit whose hash differed.
type UnitMismatch struct {
	ID     uint32
	Local  uint64 // the client's hash of the unit (0 with NoLocal: the client lacks it)
	Server uint64 // the server's hash (0 with NoServer: the server does not have it)
	// NoLocal: the client has no such unit; NoServer: the server has none (it is removed).
	NoLocal, NoServer bool
}

// SyncRecord is one hash check that found a difference: the frame the hashes were taken at, the
// groups that differed, the units the drill-down found, and what was done about them.
type SyncRecord struct {
	When   time.Time
	Seat   uint8  // the player whose hashes differed
	Frame  uint32 // the frame the hashes describe
	Groups []IDRange
	Units  []UnitMismatch
	Action string // one of the Action constants
	At     uint32 // for ActionRealtime and ActionStopWorld: the frame the repair or pause takes effect
}

// PauseRecord is one stop-the-world re-sync.
type PauseRecord struct {
	Frame   uint32    // the paused frame
	Start   time.Time // when this host's world reached the frame (zero while on its way there)
	Millis  int64     // how long the world stood still; 0 while it still does
	Units   int       // units put in place (and removed) on this host (the server: on all clients)
	Running bool      // the pause is in progress
}

// PendingOrder is one of the player's own commands not yet executed: the UI shows it as
// "pending until frame Frame".
type PendingOrder struct {
	ID     uint32
	Frame  uint32
	Kind   uint8 // a world.CommandKind
	Units  []uint32
	X, Y   int32
	Target uint32
}

// SeatInfo is one row of the server's player table (the network columns come from the
// transport's PeerStats of the same seat).
type SeatInfo struct {
	Seat      uint8
	Name      string
	Bot       bool // a server-side bot
	Connected bool
	InGame    bool
	// LastHash is the latest hash check of this player's reports: "ok at frame F",
	// "mismatch at frame F: G groups", "real-time re-sync", "stop-the-world", or "" before any.
	LastHash string
	// State: "playing", "joining", "paused", "re-syncing", "disconnected: reason".
	State string
}

// pushRecord appends r to the log, keeping the latest maxSyncRecords.
func pushRecord[T any](log []T, r T) []T {
	log = append(log, r)
	if len(log) > maxSyncRecords {
		log = append(log[:0], log[len(log)-maxSyncRecords:]...)
	}
	return log
}
