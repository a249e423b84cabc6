package game

import (
	"fmt"
	"slices"
	"time"

	"github.com/ackattack/ackattack/world"
)

// ServerStats are the server's counters.
type ServerStats struct {
	Frame                uint32
	CommandsRelayed      uint64
	CommandsLate         uint64 // applied after their frame (and fast-forwarded)
	CommandsLateAtServer uint64 // arrived at the server after their frame
	EnemiesSpawned       uint64
	EnemiesKilled        uint64
	ChatRelayed          uint64
	LeadChanges          uint64
	HashReports          uint64
	HashReportsTooOld    uint64
	MismatchedGroups     uint64
	MismatchedUnits      uint64
	RealtimeResyncs      uint64
	StopWorldResyncs     uint64
	PauseMillis          []int64
	Joins, Leaves        uint64
	BadMessages          uint64 // messages that failed to parse or broke the rules (a command for another seat)

	chatLines  [world.MaxPlayers]uint32
	chatSent   []string // lines of the server's own bots
	lastStepAt time.Time
	lastResync uint32 // frame of the latest re-sync (real-time or stop-the-world)
	hashes     worldHashLog
	events     []string
}

// ServerSnapshot is what a user interface reads: an immutable copy, safe from any goroutine.
type ServerSnapshot struct {
	At      time.Time
	Running bool
	Paused  bool
	Frame   uint32
	Lead    uint32
	Stats   ServerStats
	Events  []string // the latest event log lines
	Report  Report
	// The authoritative world as of Frame, for a spectator's map (empty before the start).
	Map     string
	Units   []world.Unit
	Attacks []world.Attack
	// For the player table and the debug panel: every seat taken (in seat order), the latest
	// hash mismatches found in any player's reports and the stop-the-world pauses (oldest first).
	Seats      []SeatInfo
	Mismatches []SyncRecord
	Pauses     []PauseRecord
}

const maxEvents = 200

// event logs something a class should see: joins, leaves, mismatches, re-syncs.
func (s *Server) event(now time.Time, what string, args ...any) {
	line := fmt.Sprintf("%s frame %d: %s", now.Format("15:04:05.000"), s.frameNow(), what)
	for i := 0; i+1 < len(args); i += 2 {
		line += fmt.Sprintf(" %v=%v", args[i], args[i+1])
	}
	s.stats.events = append(s.stats.events, line)
	if len(s.stats.events) > maxEvents {
		s.stats.events = s.stats.events[len(s.stats.events)-maxEvents:]
	}
	s.cfg.Logger.Info(what, args...)
}

func (s *Server) recordWorldHash() {
	s.stats.hashes.record(s.w.Frame(), s.w.Hash())
}

// publish stores a fresh snapshot (at most ten times a second, unless forced).
func (s *Server) publish(now time.Time, force bool) {
	if old := s.snap.Load(); !force && old != nil && now.Sub(old.At) < 100*time.Millisecond {
		return
	}
	snap := &ServerSnapshot{At: now, Running: s.running, Paused: s.pause != nil && !s.pause.reached.IsZero(),
		Frame: s.frameNow(), Lead: s.lead, Stats: s.stats, Events: append([]string(nil), s.stats.events...)}
	snap.Stats.PauseMillis = append([]int64(nil), s.stats.PauseMillis...)
	snap.Report = s.report()
	if s.w != nil {
		snap.Map, snap.Units, snap.Attacks = s.w.MapName(), slices.Clone(s.w.Units()), slices.Clone(s.w.Attacks())
	}
	snap.Seats = s.seatInfos()
	snap.Mismatches = copyRecords(s.syncLog)
	snap.Pauses = slices.Clone(s.pauseLog)
	s.snap.Store(snap)
}

// seatInfos is the player table: one row per seat taken, in seat order.
func (s *Server) seatInfos() []SeatInfo {
	var out []SeatInfo
	for _, st := range s.seats {
		if st == nil {
			continue
		}
		out = append(out, SeatInfo{Seat: st.idx, Player: st.player, Name: st.name, Bot: st.bot != nil, Connected: st.bot != nil || st.peer != nil,
			InGame: st.inGame, LastHash: st.lastHash, State: s.seatState(st)})
	}
	return out
}

// seatState is SeatInfo.State: what the seat is doing now.
func (s *Server) seatState(st *seat) string {
	switch {
	case st.bot != nil:
		return "bot"
	case st.peer == nil && st.gone != "":
		return "disconnected: " + st.gone
	case st.peer == nil:
		return "disconnected"
	case !st.started:
		return "joining"
	case s.pause != nil && st.pauseState != nil && uint32(len(st.pauseState.applied)) < st.pauseState.sent:
		return "re-syncing"
	case s.pause != nil:
		return "paused"
	}
	return "playing"
}

// Snapshot returns the latest snapshot. Safe from any goroutine.
func (s *Server) Snapshot() *ServerSnapshot { return s.snap.Load() }

func (s *Server) report() Report {
	r := Report{Role: "server", Name: "server", Frame: s.frameNow(), WorldHashes: s.stats.hashes.report(s.frameNow())}
	w := 0
	for _, p := range s.tr.Stats().Peers {
		r.Net.addPeer(p, &w)
	}
	r.Game = GameReport{LeadTimeMillis: int64(s.lead) * s.cfg.Frame.Milliseconds(), CommandsIssued: s.stats.CommandsRelayed,
		CommandsLate: s.stats.CommandsLate, EnemiesSpawned: s.stats.EnemiesSpawned, EnemiesKilled: s.stats.EnemiesKilled,
		LeadTimeChanges: s.stats.LeadChanges}
	r.Sync = SyncReport{HashReports: s.stats.HashReports, MismatchedGroups: s.stats.MismatchedGroups, MismatchedUnits: s.stats.MismatchedUnits,
		RealtimeResyncs: s.stats.RealtimeResyncs, StopWorldResyncs: s.stats.StopWorldResyncs, PauseMillis: append([]int64{}, s.stats.PauseMillis...)}
	r.Sync.LastResyncFrame = s.stats.lastResync
	r.Chat = ChatReport{Sent: append([]string{}, s.stats.chatSent...), Received: []ChatLine{}}
	return r
}
