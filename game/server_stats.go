package game

import (
	"fmt"
	"slices"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// ServerStats are the server's counters.
type ServerStats struct {
	Frame                uint32
	CommandsRelayed      uint64
	CommandsLate         uint64 // applied after their frame (and fast-forwarded)
	CommandsLateAtServer uint64 // arrived at the server after their frame
	// RelaysSaved counts the copies of commands the server did not relay, because their
	// player sent them to that client over a direct link (Command.Direct); LinksLost the
	// clients' LinkLosts, and CommandsRelayedAgain the commands it sent again for them
	// (p2p_server.go).
	RelaysSaved          uint64
	LinksLost            uint64
	CommandsRelayedAgain uint64
	LinkLostsLimited     uint64 // LinkLosts past lostLimit: relayed again, nothing sent again
	DirectSwitches       uint64 // the direct links turned on or off (updateDirect)
	EnemiesSpawned       uint64
	EnemiesKilled        uint64
	Squads               uint64 // starting squads announced as reinforcements (reinforce.go)
	Rounds               uint64 // new rounds announced (round.go)
	ClassLinks           uint64 // link settings pushed to the class (classlink.go)
	ChatRelayed          uint64
	LeadChanges          uint64 // lead time changes announced, the policy's and the teacher's
	LeadSettings         uint64 // the teacher's lead settings that went out (leadset.go)
	HashReports          uint64
	HashReportsTooOld    uint64
	// HashReportsDropped counts the reports, a player's or a spectator's, the server dropped
	// unchecked: over the connection's report rate, or pushed out of those waiting for their
	// frame to settle by newer ones (drift_server.go).
	HashReportsDropped uint64
	// HashReportsOtherInputs counts the reports, a player's or a spectator's, of a frame the
	// client had run with other inputs than the server's (an event still on its way to one of
	// them), left unchecked.
	HashReportsOtherInputs uint64
	// HashReportsAwaitingRepair counts the players' reports that differed while a drill-down
	// into an earlier one waited for its answer, or of a frame before a repair on its way.
	HashReportsAwaitingRepair uint64
	// UnitsLocated counts the drifts of one unit that a report's locator named, with no
	// drill-down.
	UnitsLocated     uint64
	MismatchedGroups uint64
	MismatchedUnits  uint64
	MismatchedStates uint64 // players' worlds whose state (not a unit) differed, counted when a repair is decided
	RealtimeResyncs  uint64
	StopWorldResyncs uint64
	PauseMillis      []int64
	PauseDropouts    uint64 // clients dropped from a stop-the-world round at its deadline
	RepairsDeferred  uint64 // real-time re-syncs put off: the player's reports had their burst of repairs (realtimeRate)
	PlayersDropped   uint64 // clients disconnected for keeping the game from going on
	Joins, Leaves    uint64
	JoinsRefused     uint64 // connections kicked at once for their name (names.go)
	ClaimsRefused    uint64 // connections with a seated player's id that did not prove its secret (identity.go)
	SeatsReclaimed   uint64 // connections that proved it and took their player's seat back
	SeatsFreed       uint64 // seats freed after their player was gone for SeatHold, or kicked, or taken back
	// The sharing of places (places.go): seats and spectators' places taken back for a
	// newcomer from elsewhere, and spectators refused for want of a place.
	SeatsTakenBack, SpectatorsTakenBack uint64
	PlacesRefused                       uint64
	Kicks                               uint64 // players and spectators the teacher kicked (kick.go)
	SendsRefused                        uint64 // messages to a client refused by back-pressure (send.go)
	// ChatRefused counts chat lines refused: over the chat's rate (chat.go), or a spectator's
	// while spectator chat is off.
	ChatRefused uint64
	// The spectators (spectate.go): joins and leaves, lines relayed, hash reports, the reports
	// that showed a drift and the copies of the world that repaired one, and the spectators
	// dropped for falling spectatorBacklog messages behind.
	SpectatorJoins, SpectatorLeaves uint64
	SpectatorChat                   uint64
	SpectatorHashReports            uint64
	SpectatorDrifts                 uint64
	SpectatorResyncs                uint64
	SpectatorsDropped               uint64
	BadMessages                     uint64 // messages that failed to parse or broke the rules (a command for another seat)
	// CommandsRefused counts the commands the world refused when they ran: orders for units
	// that are not their seat's, or gone (every host refuses the same ones).
	CommandsRefused uint64
	// CommandsOutOfRange and CommandsTooFast count the players' commands the server refused
	// before taking them (commands.go): for a frame outside the re-run window before the
	// game's frame and the lead and the window after it, or over the seat's rate.
	CommandsOutOfRange uint64
	CommandsTooFast    uint64
	// FramesLate counts the frames whose step started a whole frame period or more after its
	// due time (missed deadlines); MaxFrameLate is the latest start of any step.
	FramesLate   uint64
	MaxFrameLate time.Duration

	chatLines  [world.MaxPlayers]uint32
	chatSent   boundedLog[string] // lines of the server's own bots
	lastStepAt time.Time
	lastResync uint32 // frame of the latest re-sync (real-time or stop-the-world)
	hashes     worldHashLog
	events     boundedLog[string]
}

// ServerSnapshot is what a user interface reads: an immutable copy, safe from any goroutine.
type ServerSnapshot struct {
	At      time.Time
	Running bool
	Paused  bool
	Frame   uint32
	Lead    uint32 // the command lead time in force, in frames
	// LeadFixed: the teacher fixed the lead in force; LeadSetting is the teacher's latest
	// setting, rounded to frames (LeadAuto: the server's policy sets the lead, lead.go), which
	// may wait up to teacherLeadEvery to go out; LeadNext is the latest change announced for a
	// frame still to come (Frame 0: none), in force from LeadNext.Frame on.
	LeadFixed   bool
	LeadSetting LeadSetting
	LeadNext    LeadTime
	FrameDur    time.Duration // the length of a frame, to say how long a lead in frames is
	Stats       ServerStats
	// Events are the latest event log lines (at most maxEventsShown), EventsTotal counts every
	// line ever logged: a screen that keeps a longer log of its own takes the lines it has not
	// seen yet (EventsTotal less the total it saw), even once Events stops growing.
	Events      []string
	EventsTotal uint64
	// The report's counters, for a status line (the whole --stats report is built once at
	// exit: Server.Report).
	Net      NetReport
	Rejected RejectedReport
	Game     GameReport
	Sync     SyncReport
	// The authoritative world as of Frame, for a spectator's map (empty before the start).
	Map     string
	Units   []world.Unit
	Attacks []world.Attack
	// For the player table and the debug panel: every seat taken (in seat order), the latest
	// hash mismatches found in any player's reports and the stop-the-world pauses (oldest first).
	Seats []SeatInfo
	// Spectators are the clients that watch (by number), and SpectatorChat whether they may
	// chat (spectate.go).
	Spectators    []SpectatorInfo
	SpectatorChat bool
	Mismatches    []SyncRecord
	Pauses        []PauseRecord
	// Round is the round being played (1 for the first), NewRound the frame the next one
	// starts at, 0 when none is announced (round.go).
	Round    uint32
	NewRound uint32
	// ClassLink is the link setting the teacher last pushed to every client (classlink.go),
	// nil for none.
	ClassLink *linksim.Settings
	// Waves is how often the teacher's waves come (stage_wave.go), 0 when they do not.
	Waves time.Duration
}

// event logs something a class should see: joins, leaves, mismatches, re-syncs.
func (s *Server) event(now time.Time, what string, args ...any) {
	line := fmt.Sprintf("%s frame %d: %s", now.Format("15:04:05.000"), s.frameNow(), what)
	for i := 0; i+1 < len(args); i += 2 {
		line += fmt.Sprintf(" %v=%v", args[i], args[i+1])
	}
	s.stats.events.add(line, maxEventsShown)
	s.cfg.Logger.Info(what, args...)
}

func (s *Server) recordWorldHash() {
	s.stats.hashes.record(s.w.Frame(), s.w.Hash())
}

// publish stores a fresh snapshot (at most ten times a second, unless forced).
func (s *Server) publish(now time.Time, force bool) {
	if old := s.snap.Load(); !force && old != nil && now.Sub(old.At) < snapshotEvery {
		return
	}
	snap := &ServerSnapshot{At: now, Running: s.clock.running, Paused: s.drift.pause != nil && !s.drift.pause.reached.IsZero(),
		Frame: s.frameNow(), Lead: s.lead.cur, LeadFixed: s.lead.fixed, LeadSetting: s.lead.teacher.asked, FrameDur: s.cfg.Frame,
		Stats: s.stats, Events: s.stats.events.last(maxEventsShown), EventsTotal: s.stats.events.total}
	if n := len(s.lead.next); n > 0 {
		snap.LeadNext = s.lead.next[n-1]
	}
	// The snapshot's copy of the counters shares nothing with the loop's bookkeeping.
	snap.Stats.PauseMillis = slices.Clone(s.stats.PauseMillis)
	snap.Stats.chatSent, snap.Stats.events, snap.Stats.hashes = boundedLog[string]{}, boundedLog[string]{}, worldHashLog{}
	snap.Net, snap.Rejected, snap.Game, snap.Sync = s.counters(s.tr.Stats())
	if s.w != nil {
		snap.Map, snap.Units, snap.Attacks = s.w.MapName(), slices.Clone(s.w.Units()), slices.Clone(s.w.Attacks())
	}
	snap.Seats = s.seatInfos()
	snap.Spectators, snap.SpectatorChat = s.spectatorInfos(), !s.audience.chatOff
	snap.Mismatches = copyRecords(s.drift.log.records)
	snap.Pauses = slices.Clone(s.drift.log.pauses)
	snap.Round = s.round.current
	if ls, ok := s.ClassLink(); ok {
		snap.ClassLink = &ls
	}
	if st, ok := s.hook.(*Stage); ok {
		snap.Waves = st.Waves()
	}
	if r := s.round.next; r != nil {
		snap.NewRound = r.Frame
	}
	s.snap.Store(snap)
}

// seatInfos is the player table: one row per seat taken, in seat order.
func (s *Server) seatInfos() []SeatInfo {
	var out []SeatInfo
	for _, st := range s.seats.players {
		if st == nil {
			continue
		}
		out = append(out, SeatInfo{Seat: st.idx, Player: st.player, Name: st.name, Bot: st.bot != nil, Connected: st.bot != nil || st.peer != nil,
			InGame: s.seats.inGame[st.idx], LastHash: st.sync.lastHash, State: s.seatState(st)})
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
	case s.drift.pause != nil && st.drift.pause != nil && uint32(len(st.drift.pause.applied)) < st.drift.pause.sent:
		return "re-syncing"
	case s.drift.pause != nil:
		return "paused"
	}
	return "playing"
}

// Snapshot returns the latest snapshot. Safe from any goroutine.
func (s *Server) Snapshot() *ServerSnapshot { return s.snap.Load() }

// counters are the report's sections that a status line shows, from the transport's
// statistics st: the net section sums every connection that ever existed (st.Ended and the
// open ones).
func (s *Server) counters(st transport.ServerStats) (NetReport, RejectedReport, GameReport, SyncReport) {
	t := st.Ended
	for _, p := range st.Peers {
		t.Add(p)
	}
	g := GameReport{LeadTimeMillis: int64(s.lead.cur) * s.cfg.Frame.Milliseconds(), CommandsIssued: s.stats.CommandsRelayed,
		CommandsLate: s.stats.CommandsLate, EnemiesSpawned: s.stats.EnemiesSpawned, EnemiesKilled: s.stats.EnemiesKilled,
		Reinforcements: s.stats.Squads, NewRounds: s.stats.Rounds, LeadTimeChanges: s.stats.LeadChanges, SendsRefused: s.stats.SendsRefused, BadMessages: s.stats.BadMessages, CommandsRefused: s.stats.CommandsRefused,
		CommandsOutOfRange: s.stats.CommandsOutOfRange, CommandsTooFast: s.stats.CommandsTooFast,
		JoinsRefused: s.stats.JoinsRefused, SeatClaimsRefused: s.stats.ClaimsRefused, SeatsReclaimed: s.stats.SeatsReclaimed,
		RelaysSaved: s.stats.RelaysSaved, LinksLost: s.stats.LinksLost, CommandsRelayedAgain: s.stats.CommandsRelayedAgain,
		ChatRefused: s.stats.ChatRefused, Spectators: &SpectatorReport{Joins: s.stats.SpectatorJoins, Leaves: s.stats.SpectatorLeaves,
			ChatRelayed: s.stats.SpectatorChat, HashReports: s.stats.SpectatorHashReports, Drifts: s.stats.SpectatorDrifts,
			WorldCopies: s.stats.SpectatorResyncs, Dropped: s.stats.SpectatorsDropped},
		Places:         &PlacesReport{SeatsTakenBack: s.stats.SeatsTakenBack, SpectatorsTakenBack: s.stats.SpectatorsTakenBack, SpectatorsRefused: s.stats.PlacesRefused},
		FrameDeadlines: &FrameDeadlines{FramesLate: s.stats.FramesLate, MaxFrameLateMillis: float64(s.stats.MaxFrameLate) / float64(time.Millisecond)}}
	sy := SyncReport{HashReports: s.stats.HashReports, MismatchedGroups: s.stats.MismatchedGroups, MismatchedUnits: s.stats.MismatchedUnits,
		MismatchedStates: s.stats.MismatchedStates, RealtimeResyncs: s.stats.RealtimeResyncs, StopWorldResyncs: s.stats.StopWorldResyncs, PauseMillis: append([]int64{}, s.stats.PauseMillis...),
		LastResyncFrame: s.stats.lastResync, PauseDropouts: s.stats.PauseDropouts, PlayersDropped: s.stats.PlayersDropped,
		RepairsDeferred: s.stats.RepairsDeferred, ReportsDropped: s.stats.HashReportsDropped}
	sy.addResim(&s.drift.rw, s.w)
	return netReport(t), rejectedReport(st.Rejected), g, sy
}

// Report is the --stats report, built when asked (at exit). Owner loop only, or after it
// stopped.
func (s *Server) Report() Report {
	r := Report{Role: "server", Name: "server", Frame: s.frameNow(), WorldHashes: s.stats.hashes.report(s.frameNow())}
	r.Net, r.Rejected, r.Game, r.Sync = s.counters(s.tr.StatsNow()) // the live figures, not the latest published ones
	r.Chat = ChatReport{Sent: s.stats.chatSent.last(maxChatReport), Received: []ChatLine{}, SentTotal: s.stats.chatSent.total}
	return r
}
