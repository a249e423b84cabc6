package game

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// Report is what --stats writes at exit: one JSON object. Scripts and graders read it; its
// field names are part of the command-line contract (see the README).
type Report struct {
	Role     string `json:"role"` // "server" or "client"
	Name     string `json:"name"`
	PlayerID string `json:"player_id"`
	// Spectator is a client's number among the spectators when it watched as one
	// (spectate.go); absent for a player and for the server.
	Spectator   uint32            `json:"spectator,omitempty"`
	Frame       uint32            `json:"frame"`        // the last frame simulated
	WorldHashes map[string]string `json:"world_hashes"` // frame (every 10th of the last 300) → 16 hex digits
	Net         NetReport         `json:"net"`
	Rejected    RejectedReport    `json:"rejected"`
	Game        GameReport        `json:"game"`
	Sync        SyncReport        `json:"sync"`
	Chat        ChatReport        `json:"chat"`
}

// NetReport sums the transport's counters over the connections of the host: on a server,
// every connection that ever existed, open or ended; on a client, its connection to the
// server.
type NetReport struct {
	RTTMillis        float64 `json:"rtt_ms"`
	LossPercent      float64 `json:"loss_pct"`
	PacketsSent      uint64  `json:"packets_sent"`
	PacketsReceived  uint64  `json:"packets_received"`
	BytesSent        uint64  `json:"bytes_sent"`
	BytesReceived    uint64  `json:"bytes_received"`
	Stale            uint64  `json:"stale"`
	Duplicate        uint64  `json:"duplicate"`
	Malformed        uint64  `json:"malformed"`
	Spoofed          uint64  `json:"spoofed"`
	GuaranteedSent   uint64  `json:"guaranteed_sent"`
	GuaranteedResent uint64  `json:"guaranteed_resent"`
	// SpuriousResends: resends that turned out unneeded (an earlier copy was acknowledged).
	SpuriousResends    uint64 `json:"spurious_resends"`
	GuaranteedExecuted uint64 `json:"guaranteed_executed"`
	DuplicatesIgnored  uint64 `json:"duplicates_ignored"`
	DependencyBytes    uint64 `json:"dependency_bytes"`
}

// GameReport counts the game's own events.
type GameReport struct {
	LeadTimeMillis int64  `json:"lead_time_ms"`
	CommandsIssued uint64 `json:"commands_issued"`
	CommandsLate   uint64 `json:"commands_late"`
	EnemiesSpawned uint64 `json:"enemies_spawned"`
	EnemiesKilled  uint64 `json:"enemies_killed"`
	// Reinforcements counts the starting squads announced to land as reinforcements
	// (reinforce.go): one per seat in each Reinforce the server sent, or this client received.
	Reinforcements uint64 `json:"reinforcements"`
	// NewRounds counts the new rounds the server announced, or this client was announced
	// (round.go).
	NewRounds       uint64 `json:"new_rounds"`
	LeadTimeChanges uint64 `json:"lead_time_changes"`
	// SendsRefused counts guaranteed messages a connection's outbox refused because the peer
	// was too far behind (game/send.go); each refusal went back to whoever issued it.
	SendsRefused uint64 `json:"sends_refused"`
	// BadMessages counts game messages that arrived on a connection and were refused: they
	// failed to parse, or broke the rules (a command for another player's seat).
	BadMessages uint64 `json:"bad_messages"`
	// CommandsRefused counts the commands the world refused when they ran, the same on every
	// host: orders for units that are not the ordering seat's, or no longer exist.
	CommandsRefused uint64 `json:"commands_refused"`
	// CommandsOutOfRange and CommandsTooFast count the players' commands the server refused
	// before taking them (commands.go): for a frame more than the re-run window before the
	// game's, or more than the lead and the window after it; or over the seat's rate (128
	// tokens at once, then one every 20 ms). Servers only.
	CommandsOutOfRange uint64 `json:"commands_out_of_range,omitempty"`
	CommandsTooFast    uint64 `json:"commands_too_fast,omitempty"`
	// DirectLinks counts the direct links to other players this client made (either side
	// dialling), DirectRedials the dials it tried again after one ended (p2p.go). Clients only.
	DirectLinks   uint64 `json:"direct_links,omitempty"`
	DirectRedials uint64 `json:"direct_redials,omitempty"`
	// DirectSilent counts the dials that got no answer at all: the address is not dialled
	// again until the server lists the player anew. Clients only.
	DirectSilent uint64 `json:"direct_silent,omitempty"`
	// DirectRefused counts the direct connections dropped for not proving the key the server
	// gave the pair: a wrong proof (somebody dialling as another player), or none in time.
	// Clients only.
	DirectRefused uint64 `json:"direct_refused,omitempty"`
	// DirectQuiet counts the direct links that went 1.5 s without a datagram, DirectStalled
	// the ones whose oldest command went unacknowledged for the lead time, and DirectLost the
	// proved ones that ended; each was told to the server (LinkLost), which relayed that way's
	// commands again (p2p.go). Clients only.
	DirectQuiet   uint64 `json:"direct_quiet,omitempty"`
	DirectStalled uint64 `json:"direct_stalled,omitempty"`
	DirectLost    uint64 `json:"direct_lost,omitempty"`
	// RelaysSaved counts the copies of commands the server did not relay, because their
	// player had sent them to that client over a direct link; LinksLost the clients' word that
	// a direct link stopped delivering, and CommandsRelayedAgain the commands it sent again
	// for them (p2p_server.go). Servers only.
	RelaysSaved          uint64 `json:"relays_saved,omitempty"`
	LinksLost            uint64 `json:"links_lost,omitempty"`
	CommandsRelayedAgain uint64 `json:"commands_relayed_again,omitempty"`
	// JoinsRefused counts connections the server turned away at once for their name: it
	// broke a rule, or was a bot's or another seat's (names.go). Servers only.
	JoinsRefused uint64 `json:"joins_refused,omitempty"`
	// SeatClaimsRefused counts connections that came with a seated player's id and did not
	// prove its secret (identity.go): a wrong proof, or none in time. SeatsReclaimed counts
	// those that proved it and took their seat back. Servers only.
	SeatClaimsRefused uint64 `json:"seat_claims_refused,omitempty"`
	SeatsReclaimed    uint64 `json:"seats_reclaimed,omitempty"`
	// ChatRefused counts the chat lines the server refused: faster than the chat's rate
	// (chat.go), or a spectator's while spectator chat was off. Servers only.
	ChatRefused uint64 `json:"chat_refused,omitempty"`
	// Spectators is what the spectators did (spectate.go). Servers only.
	Spectators *SpectatorReport `json:"spectators,omitempty"`
	// Places is how the server shared its seats and spectators' places between addresses
	// (places.go). Servers only.
	Places *PlacesReport `json:"places,omitempty"`
	// WorldCopies counts the copies of the whole world a spectator's client got because its
	// hash reports showed a drift. Spectators' clients only.
	WorldCopies uint64 `json:"world_copies,omitempty"`
	// FrameDeadlines: how late the frames started. Servers only: nil on a client, so that a
	// client's report has neither of its fields.
	*FrameDeadlines
}

// SpectatorReport is what the server's spectators did (spectate.go).
type SpectatorReport struct {
	Joins  uint64 `json:"joins"`
	Leaves uint64 `json:"leaves"`
	// ChatRelayed counts the spectators' lines relayed to the others.
	ChatRelayed uint64 `json:"chat_relayed"`
	HashReports uint64 `json:"hash_reports"`
	// Drifts counts the reports that showed a spectator's world differing from the server's,
	// WorldCopies the copies of the whole world that repaired them (at most one per spectator
	// every 10 s), Dropped the spectators disconnected for falling 256 messages behind.
	Drifts      uint64 `json:"drifts"`
	WorldCopies uint64 `json:"world_copies"`
	Dropped     uint64 `json:"dropped"`
}

// PlacesReport is how the server shared its places (places.go): the seats and spectators'
// places it took back from an address or network beyond its share, each for a newcomer from
// elsewhere that found none free, and the spectators it refused for want of a place (every
// place taken, and none it could take back).
type PlacesReport struct {
	SeatsTakenBack      uint64 `json:"seats_taken_back"`
	SpectatorsTakenBack uint64 `json:"spectators_taken_back"`
	SpectatorsRefused   uint64 `json:"spectators_refused"`
}

// FrameDeadlines is how late the server's frames started. Each frame is due one frame period
// after the one before (the frame clock starts again after a pause, and after a stall of more
// than ten frames); a frame whose step starts a whole frame period or more after its due time
// missed its deadline: the host fell a frame behind its clock.
type FrameDeadlines struct {
	FramesLate         uint64  `json:"frames_late"`
	MaxFrameLateMillis float64 `json:"max_frame_late_ms"` // the latest start of any frame
}

// SyncReport counts the hash checks and re-syncs.
type SyncReport struct {
	HashReports      uint64 `json:"hash_reports"`
	MismatchedGroups uint64 `json:"mismatched_groups"`
	MismatchedUnits  uint64 `json:"mismatched_units"`
	// MismatchedStates counts the worlds whose state other than their units (the id counters,
	// the generator, the attacks in flight) differed: on the server, the players' reports whose
	// state it repaired or decided to; on a client, the repairs of a state it received.
	MismatchedStates uint64  `json:"mismatched_states"`
	RealtimeResyncs  uint64  `json:"realtime_resyncs"`
	StopWorldResyncs uint64  `json:"stop_world_resyncs"`
	PauseMillis      []int64 `json:"pause_ms"` // never null: [] when there was no pause
	// LastResyncFrame is the frame of the latest re-sync the server made (0: none).
	LastResyncFrame uint32 `json:"last_resync_frame"`
	// Server only: clients dropped from a stop-the-world round at its deadline, and clients
	// disconnected for keeping the game from going on (game/drift_server.go).
	PauseDropouts  uint64 `json:"pause_dropouts,omitempty"`
	PlayersDropped uint64 `json:"players_dropped,omitempty"`
	// RepairsDeferred counts real-time re-syncs the server put off: the player's reports had
	// led to a burst of three, and it repairs one a second after that (server only).
	RepairsDeferred uint64 `json:"repairs_deferred,omitempty"`
	// ReportsDropped counts the hash reports the server dropped unchecked: faster than twice
	// an honest client's rate, or more than a few waiting for their frame (server only).
	ReportsDropped uint64 `json:"hash_reports_dropped,omitempty"`
	// Late events run again exactly (resim.go): how many times the world went back, how many
	// frames it ran again, the latest event so run (frames after its frame), and the late
	// events beyond the window that fell back to the fast-forward.
	Resimulations    uint64 `json:"resimulations"`
	FramesRerun      uint64 `json:"frames_rerun"`
	MaxLateFrames    uint32 `json:"max_late_frames"`
	LateRerun        uint64 `json:"late_rerun"`          // late events run again exactly
	LateBeyondWindow uint64 `json:"late_beyond_window"`  // late events fast-forwarded
	WindowFrames     uint32 `json:"rerun_window_frames"` // the re-run window in force
	// Late is what the host does with a late event (--late); SettleFrames how many frames
	// after a frame ran its hashes are checked now (resim.go, settle).
	Late         LateMode `json:"late_mode"`
	SettleFrames uint32   `json:"settle_frames"`
}

// ChatReport lists the chat lines this host sent and the ones it showed, in order.
//
// The lists hold the latest maxChatReport lines each (a game of an hour keeps no more); the
// totals count every line.
type ChatReport struct {
	Sent          []string   `json:"sent"`
	Received      []ChatLine `json:"received"`
	SentTotal     uint64     `json:"sent_total"`
	ReceivedTotal uint64     `json:"received_total"`
}

// ChatLine is one received chat line.
type ChatLine struct {
	From      string `json:"from"`
	Text      string `json:"text"`
	Spectator bool   `json:"spectator,omitempty"` // a spectator's line (spectate.go)
	Own       bool   `json:"-"`                   // this player's own line (in a snapshot's conversation)
	Bot       bool   `json:"-"`                   // a line of one of the server's bots (bot.go)
}

// RejectedReport counts every datagram the host dropped, by reason (transport.Rejections:
// the README lists the reasons), and their total.
type RejectedReport struct {
	Total uint64 `json:"total"`
	transport.Rejections
}

func rejectedReport(r transport.Rejections) RejectedReport {
	return RejectedReport{Total: r.Total(), Rejections: r}
}

// netReport is the net section over the counters of connections; RTT and loss are averaged
// over them.
func netReport(t transport.PeerTotals) NetReport {
	n := NetReport{
		PacketsSent: t.PacketsSent, PacketsReceived: t.PacketsReceived, BytesSent: t.BytesSent, BytesReceived: t.BytesReceived,
		Stale: t.Stale, Duplicate: t.Duplicate, Malformed: t.Malformed, Spoofed: t.Spoofed,
		GuaranteedSent: t.GuaranteedSent, GuaranteedResent: t.GuaranteedResent, SpuriousResends: t.SpuriousResends,
		GuaranteedExecuted: t.GuaranteedExecuted, DuplicatesIgnored: t.DuplicatesIgnored, DependencyBytes: t.DependencyBytes,
	}
	if t.Connections > 0 {
		n.RTTMillis = float64(t.RTT) / float64(time.Millisecond) / float64(t.Connections)
		n.LossPercent = t.LossPercent / float64(t.Connections)
	}
	return n
}

// worldHashLog keeps the world hash of every 10th frame of the last 300.
type worldHashLog struct {
	frames [30]uint32
	hashes [30]uint64
	valid  [30]bool
}

func (l *worldHashLog) record(frame uint32, h uint64) {
	if frame%10 != 0 {
		return
	}
	i := (frame / 10) % 30
	l.frames[i], l.hashes[i], l.valid[i] = frame, h, true
}

func (l *worldHashLog) report(last uint32) map[string]string {
	out := make(map[string]string)
	for i := range l.valid {
		if l.valid[i] && l.frames[i]+300 > last {
			out[strconv.FormatUint(uint64(l.frames[i]), 10)] = fmt.Sprintf("%016x", l.hashes[i])
		}
	}
	return out
}

// tracer writes --trace: one JSON line for every guaranteed message executed.
type tracer struct {
	w     *bufio.Writer
	start time.Time
	enc   *json.Encoder
}

type traceLine struct {
	TMillis int64    `json:"t_ms"`
	Frame   uint32   `json:"frame"`
	Peer    string   `json:"peer"`
	Seq     uint16   `json:"seq"`
	Deps    []uint16 `json:"deps"`
	Type    string   `json:"type"`
	ID      *uint32  `json:"id,omitempty"` // the enemy id of spawn and kill messages
}

func newTracer(w io.Writer) *tracer {
	if w == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	return &tracer{w: bw, enc: json.NewEncoder(bw)}
}

// begin sets the trace's time origin (t_ms 0): the session's first moment.
func (t *tracer) begin(now time.Time) {
	if t != nil && t.start.IsZero() {
		t.start = now
	}
}

func (t *tracer) executed(now time.Time, frame uint32, peer string, m *message.Message, msg Msg) {
	if t == nil {
		return
	}
	l := traceLine{TMillis: now.Sub(t.start).Milliseconds(), Frame: frame, Peer: peer, Seq: m.Seq, Deps: append([]uint16{}, m.Deps...), Type: msg.Type().String()}
	switch v := msg.(type) {
	case *SpawnEnemy:
		l.ID = &v.ID
	case *KillEnemy:
		l.ID = &v.ID
	}
	t.enc.Encode(l)
}

func (t *tracer) flush() error {
	if t == nil {
		return nil
	}
	return t.w.Flush()
}

// addResim puts the re-simulation counters and settings of a host whose world is w (nil
// before the start) into a sync report.
func (r *SyncReport) addResim(rw *rewinder, w *world.World) {
	st := rw.stats
	r.Resimulations, r.FramesRerun, r.MaxLateFrames, r.LateBeyondWindow = st.Resimulations, st.FramesRerun, st.MaxLateFrames, st.LateBeyondWindow
	r.LateRerun, r.WindowFrames = st.LateRerun, rw.windowFrames()
	r.Late, r.SettleFrames = rw.mode, 1
	if w != nil {
		r.SettleFrames = rw.settle(w.Frame())
	}
}

// rejected is a client's rejections: on its connection to the server, and on its direct
// links (the acceptor's, and those of its open dials).
func (c *Client) rejected() RejectedReport {
	r := c.tr.Stats().Rejected
	if c.p2p != nil {
		r.Add(c.p2p.acceptor.Stats().Rejected)
		for _, d := range c.p2p.dials {
			if d != nil {
				r.Add(d.Stats().Rejected)
			}
		}
	}
	return rejectedReport(r)
}
