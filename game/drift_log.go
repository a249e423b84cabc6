package game

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/world"
)

// The sync log: what the debug panel's "hash mismatches" and "re-sync pauses" views show. Both
// hosts keep the latest records (maxSyncRecords of each) and copy them into every snapshot.
//
// The log only watches: nothing in it is ever read back by the simulation, so keeping it
// cannot make two hosts' worlds differ.

const (
	maxSyncRecords = 32
	// maxRecordUnits is the most units one SyncRecord lists; SyncRecord.More counts the rest. A
	// stop-the-world re-sync can touch hundreds of units, and every snapshot copies the log.
	maxRecordUnits = 64
)

// Actions a SyncRecord can end in.
const (
	ActionDrillDown    = "drill-down"                            // groups differed; per-unit hashes asked for
	ActionRealtime     = "real-time re-sync"                     // the units' server state applied at Record.At on every host
	ActionStopWorld    = "stop-the-world"                        // the game pauses at Record.At and every host re-syncs
	ActionNoneLeft     = "already repairing"                     // everything that differed had a repair on its way
	ActionNoneDiffered = "no unit differed"                      // the answer's units, in the ranges it covers, were the server's, and so was the state
	ActionNoDrillDown  = "answer came too late"                  // the drill-down's answer did not match the request, or the frame was gone from the history
	ActionTooSoon      = "repair waits: one a second per player" // this player's reports led to a burst of repairs just now (realtimeRate)
	ActionNewRound     = "a new round replaces every world"      // a new round is announced: it repairs everything (round.go)
)

// UnitMismatch is one unit whose hash differed.
type UnitMismatch struct {
	ID     uint32
	Local  uint64 // the client's hash of the unit (0 with NoLocal: the client lacks it)
	Server uint64 // the server's hash (0 with NoServer: the server does not have it)
	// NoLocal: the client has no such unit; NoServer: the server has none (it is removed).
	NoLocal, NoServer bool
	// LocalKnown: Local and NoLocal are known. A client that records another player's repair
	// takes its own hash from its history of the checked frame; when that history is gone (it
	// keeps historyFrames frames, and a re-sync clears it), or when a stop-the-world batch
	// arrives before the client reached the paused frame and sent its hashes, it does not know
	// its hash, and Local is 0 without meaning. The server always knows the client's hash.
	LocalKnown bool
}

// StateMismatch is the world's state other than its units (the id counters, the random
// generator, the attacks in flight) when its hash differed: the two hashes. They say that the
// state differed, not which part of it: the repair carries the whole of it.
type StateMismatch struct {
	Local  uint64 // the client's state hash
	Server uint64 // the server's
	// LocalKnown: Local is known. A client that records another player's repair takes its own
	// hash from its history of the checked frame, which may be gone (as UnitMismatch's).
	LocalKnown bool
}

// SyncRecord is one hash check that found a difference: the frame the hashes were taken at, the
// groups that differed, the units the drill-down found, whether the world's state differed, and
// what was done about them.
type SyncRecord struct {
	When   time.Time
	Seat   uint8     // the player whose hashes differed
	Frame  uint32    // the frame the hashes describe
	Groups []IDRange // the groups that differed (nil where this host does not know them)
	// Units are the units that differed, ids ascending, at most maxRecordUnits (64) of them. With
	// ActionRealtime, the units the repair puts in place (or removes); with ActionNoneLeft, the
	// ones already being repaired. With ActionStopWorld the hashes are those of the paused frame
	// At (the state a stop-the-world compares), not of Frame: on the server, when the record
	// is of a client's WorldHashes; on a client, always, since it learns which units differed
	// only from the server's re-sync batches.
	Units []UnitMismatch
	// State is set when the world's state other than its units differed at Frame: with
	// ActionRealtime the repair carries the server's state as well as its units.
	State  *StateMismatch
	More   int    // how many more units differed than Units lists
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

// syncLog is a host's log of drift for the debug panel: the latest records of hash checks
// that found a difference, and of stop-the-world pauses, maxSyncRecords of each.
type syncLog struct {
	records []SyncRecord
	pauses  []PauseRecord
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
	Seat uint8
	// Player is the player's id: the transport's PeerStats of the same player has it (its own
	// seat numbers are the transport's, not the game's).
	Player    uuid.UUID
	Name      string
	Bot       bool // a server-side bot
	Connected bool
	InGame    bool
	// LastHash is the latest hash check of this player's reports: "ok at frame F",
	// "mismatch at frame F: G groups", "mismatch at frame F: the world's state" (or "G groups
	// and the world's state"), "real-time re-sync at frame F" (F: when the repair takes
	// effect), "stop-the-world at frame F" (F: the paused frame), or "" before any.
	LastHash string
	// State: "playing", "joining" (connected, the game not started for it), "paused" (a
	// stop-the-world is under way), "re-syncing" (its re-sync batches are not all applied),
	// "disconnected: reason", or "bot" for a server-side bot.
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

// setUnits replaces the record's units with us (ids ascending), keeping the first
// maxRecordUnits and counting the rest in More.
func (r *SyncRecord) setUnits(us []UnitMismatch) {
	r.Units, r.More = nil, 0
	for _, u := range us {
		r.addUnit(u)
	}
}

// addUnit puts u into the record, in id order. A unit already listed is replaced: a
// stop-the-world can send a unit twice (once at once, once after comparing the client's
// hashes), and the later word is the one that counts. Past maxRecordUnits, a new unit only
// counts in More.
func (r *SyncRecord) addUnit(u UnitMismatch) {
	i, found := slices.BinarySearchFunc(r.Units, u.ID, func(m UnitMismatch, id uint32) int { return cmp.Compare(m.ID, id) })
	switch {
	case found:
		r.Units[i] = u
	case len(r.Units) < maxRecordUnits:
		r.Units = slices.Insert(r.Units, i, u)
	default:
		r.More++
	}
}

// lists reports whether the record lists unit id.
func (r *SyncRecord) lists(id uint32) bool {
	_, found := slices.BinarySearchFunc(r.Units, id, func(m UnitMismatch, id uint32) int { return cmp.Compare(m.ID, id) })
	return found
}

// findRecord returns the latest record of seat about frame with action, or nil.
func findRecord(log []SyncRecord, seat uint8, frame uint32, action string) *SyncRecord {
	for i := len(log) - 1; i >= 0; i-- {
		if r := &log[i]; r.Seat == seat && r.Frame == frame && r.Action == action {
			return r
		}
	}
	return nil
}

// copyRecords is a deep copy of the log for a snapshot: the host keeps changing its records
// (a drill-down's answer fills in the units) while other goroutines read the snapshot.
func copyRecords(log []SyncRecord) []SyncRecord {
	out := slices.Clone(log)
	for i := range out {
		out[i].Groups = slices.Clone(out[i].Groups)
		out[i].Units = slices.Clone(out[i].Units)
		out[i].State = copyState(out[i].State)
	}
	return out
}

// copyState is a copy of a record's state mismatch (nil stays nil).
func copyState(m *StateMismatch) *StateMismatch {
	if m == nil {
		return nil
	}
	c := *m
	return &c
}

// copyPending is a deep copy of the pending orders for a snapshot.
func copyPending(ps []PendingOrder) []PendingOrder {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Units = slices.Clone(out[i].Units)
	}
	return out
}

// hashOf finds id's hash in hs (ids ascending, as world.UnitHashes gives them).
func hashOf(hs []world.UnitHash, id uint32) (uint64, bool) {
	i, found := slices.BinarySearchFunc(hs, id, func(h world.UnitHash, id uint32) int { return cmp.Compare(h.ID, id) })
	if !found {
		return 0, false
	}
	return hs[i].Hash, true
}
