package game

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// ClientConfig configures a game client.
type ClientConfig struct {
	Connect string // the server's address
	// Listen is the local address of the client's one socket, for the server connection and
	// the direct links from other players (game/hostloop): bound as given, so a client on a
	// machine with several addresses takes links on the one it names. Default: the address of
	// the interface that reaches the server, any free port (transport.LocalFor).
	Listen string
	Name   string
	// PlayerID names the player (default: a new random id), and Secret proves it: the
	// secret a server gave this player on its first join (zero: none yet). With both, a
	// player who restarts gets its seat back (identity.go).
	PlayerID uuid.UUID
	Secret   Secret
	// OnSecret, if set, is called on the owner loop when the server gives this player its
	// secret, to keep it with the player id (cmd/client's --identity file).
	OnSecret func(player uuid.UUID, secret Secret)
	// Bot makes the client play by itself (a headless bot client).
	Bot  bool
	Seed uint64 // seeds the bot
	// InjectDesync, if set, corrupts one of this player's units every InjectDesync: the
	// class watches the server detect and repair it.
	InjectDesync time.Duration
	// OnClassLink, if set, is called on the owner loop with the link settings the server gives
	// the whole class (classlink.go), to put them on the client's link conditioner, both ways;
	// game/hostloop puts them on its socket's. Its error is shown and logged.
	OnClassLink func(linksim.Settings) error
	// NoDirect turns off the direct links between clients: commands then travel only through
	// the server.
	NoDirect bool
	// Spectate asks the server to watch without a seat (spectate.go): the client's handshake
	// says it is an observer. A spectator takes no direct links, gives no orders (a Bot only
	// chats) and corrupts nothing. A client that does not ask may watch all the same, when
	// every seat is taken.
	Spectate bool
	// Late is what the client does with an event that arrives for a frame it already ran:
	// re-simulate (the default) or the seed's fast-forward (resim.go).
	Late      LateMode
	Transport transport.ClientConfig
	Logger    *slog.Logger
	Trace     io.Writer
}

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
	RealtimeResyncs  uint64
	StopWorldResyncs uint64
	PauseMillis      []int64 // the latest maxPausesKept pauses, oldest first
	Desyncs          uint64  // units corrupted on purpose
	BadMessages      uint64
	DirectLinks      uint64 // direct links to other players made
	DirectRedials    uint64 // dials of a direct link tried again after it ended
	DirectSilent     uint64 // dials that never got an answer: not tried again until the server lists the player anew
	DirectRefused    uint64 // direct connections dropped for not proving the pair's key (a wrong proof, or none in time)
	DirectLost       uint64 // direct links (proved connections) that ended, each told to the server (LinkLost)
	DirectQuiet      uint64 // direct links that fell quiet for linkQuiet, each told to the server (LinkLost)
	DirectStalled    uint64 // direct links whose oldest command went unacknowledged for stallAfter, each told to the server (LinkLost)
	// CommandsDirectFirst counts other players' commands that arrived on a direct link before
	// the server's relay.
	CommandsDirectFirst uint64
	// SendsRefused counts this player's messages refused by back-pressure (outbox.go): each
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
	Lead    uint32
	Players [world.MaxPlayers]PlayerInfo
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

// Client is one player's host: it runs its own copy of the world in lockstep with the server,
// sends the player's (or its bot's) commands, chats, and reports unit hashes. Like Server it
// is a session that does no I/O: Handle, Tick and NextDeadline, and a transport.Writer for
// what it sends. The server connection and the direct links to other players share that one
// writer (one socket), told apart by address. One goroutine owns it.
type Client struct {
	cfg ClientConfig
	tr  *transport.Client
	w   *world.World

	sched     *schedule
	hist      hashHistory
	hashes    worldHashLog
	seat      uint8
	seatKnown bool // a PlayerInfo named this client's seat
	players   [world.MaxPlayers]PlayerInfo
	started   bool
	awaiting  bool // a snapshot is on its way (joined a running game)
	copying   bool // a spectator's own copy of the world is on its way, the world waits (awaiting)
	frameDur  time.Duration
	lead      uint32
	leadNext  []LeadTime
	nextFrame time.Time
	syncFrame uint32
	syncAt    time.Time

	secret   Secret // proves cfg.PlayerID (identity.go)
	cmdID    uint32
	chat     message.Chain
	chatRate rateBucket // this player's own rate (chat.go)
	spectate *Spectate  // the server's latest word, when this client watches as a spectator
	bot      *Bot
	nextPing time.Time
	nextHurt time.Time
	hurtNext int               // where InjectDesync starts looking
	early    []*ResyncBatch    // batches that came before StartGame
	class    *linksim.Settings // the class's link, as the server last set it (classlink.go)
	classErr error             // why it is not on this client's link

	pauseFrame   uint32
	pausing      bool
	pauseReached time.Time
	resumeAt     time.Time
	sentHashes   bool
	pauseHashes  []world.UnitHash // the WorldHashes sent for the pause, ids ascending

	// The debug panel's logs (synclog.go) and the orders line. They only watch the game:
	// nothing here is read by the simulation.
	syncLog  []SyncRecord
	pauseLog []PauseRecord
	pending  []PendingOrder // this player's commands whose event has not run yet
	answers  []drillAnswer  // the latest answers to HashRequests, oldest first
	// pauseSeen: the units the stop-the-world record already holds or counts in More, so that
	// a unit sent in two batches counts once. Bookkeeping: never iterated.
	pauseSeen map[uint32]bool

	p2p     *p2p
	out     outbox // to the server
	rw      rewinder
	hurts   []hurt // the latest corruptions injected, for re-runs
	inFrame bool   // between the two halves of a frame's step
	begun   bool
	stats   ClientStats
	snap    atomic.Pointer[ClientSnapshot]
	trace   *tracer
	scratch []event
	groups  []world.GroupHash
	// The conversation: chatLog as the player sees it (own lines too), for the snapshot;
	// chatSent and chatReceived for the report. Each keeps its latest lines and a count.
	chatLog      boundedLog[ChatLine]
	chatSent     boundedLog[string]
	chatReceived boundedLog[ChatLine]
}

// NewClient returns a client session of the server at server that sends its datagrams to out
// (one socket: the server sees the address it sends from, and tells the other players to
// reach this client's direct links there). It starts connecting at its first Tick. The error
// is a name the handshake cannot carry.
func NewClient(cfg ClientConfig, out transport.Writer, server netip.AddrPort) (*Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PlayerID == uuid.Nil {
		cfg.PlayerID = uuid.New()
	}
	if cfg.Transport.Rand == nil {
		cfg.Transport.Rand = rand.Reader
	}
	c := &Client{cfg: cfg, sched: newSchedule(), lead: minLeadFrames, frameDur: DefaultFrame, trace: newTracer(cfg.Trace), secret: cfg.Secret}
	c.rw.mode = cfg.Late
	// Command ids name a command with its seat, and every host drops a (seat, id) it has seen.
	// A player who comes back runs a new client: starting from a random id keeps its first
	// commands from looking like the previous client's.
	var b [4]byte
	if _, err := io.ReadFull(cfg.Transport.Rand, b[:]); err != nil {
		return nil, err
	}
	c.cmdID = binary.BigEndian.Uint32(b[:]) >> 4
	tc := cfg.Transport
	tc.Name, tc.PlayerID = cfg.Name, cfg.PlayerID
	tc.OnMessage = c.onMessage
	if cfg.Spectate {
		tc.Role = wire.RoleObserver
		c.cfg.NoDirect = true // a spectator is nobody's direct link: the server relays to it
	}
	if tc.Logger == nil {
		tc.Logger = cfg.Logger
	}
	tr, err := transport.NewClient(server, tc, out)
	if err != nil {
		return nil, err
	}
	c.tr = tr
	if !c.cfg.NoDirect {
		c.openP2P(out)
	}
	if cfg.Bot {
		c.bot = NewBot(0, cfg.Name, cfg.Seed)
	}
	c.snap.Store(&ClientSnapshot{})
	return c, nil
}

// Transport gives access to the transport (its Stats is safe from any goroutine).
func (c *Client) Transport() *transport.Client { return c.tr }

// ErrDisconnected is what Ended wraps once the connection ended; the rest of the error says
// why.
var ErrDisconnected = errors.New("game: disconnected")

// Handle takes one datagram that arrived at now: the server's, or a direct link's.
func (c *Client) Handle(now time.Time, d transport.Datagram) {
	c.begin(now)
	switch {
	case d.From == c.tr.Server():
		c.tr.Handle(now, d)
	case c.p2p != nil:
		c.p2p.handle(now, d)
	default:
		c.stats.StrayDatagrams++
	}
	c.resimulate()
}

func (c *Client) begin(now time.Time) {
	if !c.begun {
		c.begun = true
		c.trace.begin(now)
	}
}

// Tick does what time has made due by now: frames, the connections' resends, keepalives and
// handshakes, the outboxes, the snapshot.
func (c *Client) Tick(now time.Time) {
	c.begin(now)
	c.frames(now)
	if p := c.tr.Peer(); p != nil {
		c.out.flush(p.Conn(), now)
	}
	c.tr.Tick(now)
	c.tickP2P(now)
	c.publish(now, false)
	if c.tr.State() == transport.Disconnected {
		c.publish(now, true) // the final snapshot says so at once
	}
}

// NextDeadline is when Tick next has work if no datagram arrives.
func (c *Client) NextDeadline(now time.Time) time.Time {
	next := transport.Earliest(c.tr.NextTick(now), c.nextP2P(now))
	if c.started {
		next = transport.Earliest(next, c.nextFrame)
	}
	if !c.resumeAt.IsZero() {
		next = transport.Earliest(next, c.resumeAt)
	}
	if old := c.snap.Load(); old != nil {
		next = transport.Earliest(next, old.At.Add(snapshotEvery))
	}
	return next
}

// Ended says why the client's connection ended, nil while it has not.
func (c *Client) Ended() error {
	if c.tr.State() != transport.Disconnected {
		return nil
	}
	return errors.Join(ErrDisconnected, c.tr.Err())
}

// Shutdown disconnects cleanly (the server learns DisconnectClosed), closes the direct links,
// flushes the trace and publishes a last snapshot. The session does nothing after it.
func (c *Client) Shutdown(now time.Time) {
	c.tr.Shutdown(now)
	c.closeP2P(now)
	c.trace.flush()
	c.publish(now, true)
}

// Intent marks that something outside the game (a key press) changed the session: the next
// snapshot comes at once, not up to 100 ms later.
func (c *Client) Intent(now time.Time) { c.publish(now, true) }

// target is the frame the client should be at now: the server's last reported frame plus the
// time since (its report took about half a round trip to come).
func (c *Client) target(now time.Time) uint32 {
	return c.syncFrame + uint32(now.Sub(c.syncAt)/c.frameDur)
}

func (c *Client) frames(now time.Time) {
	if !c.started || c.awaiting {
		return
	}
	if c.pausing && !c.resumeAt.IsZero() && !now.Before(c.resumeAt) {
		c.resume(now)
	}
	if now.Before(c.nextFrame) {
		return
	}
	// Step at the server's frame boundaries (as estimated from its FrameSync), not at times of
	// our own: every client then starts a frame at about the same moment, and a command issued
	// lead frames ahead reaches the others in time.
	tgt := c.target(now)
	c.nextFrame = c.syncAt.Add(time.Duration(tgt+1-c.syncFrame) * c.frameDur)
	for n := 0; n < maxCatchUpPerTick && c.w.Frame() < tgt; n++ {
		if c.pausing && c.w.Frame() >= c.pauseFrame {
			c.reachPause(now)
			return
		}
		c.step(now)
	}
}

// step runs one frame.
func (c *Client) step(now time.Time) {
	w := c.w
	f := w.Frame()
	for len(c.leadNext) > 0 && c.leadNext[0].Frame <= f {
		c.lead = c.leadNext[0].LeadFrames
		c.leadNext = c.leadNext[1:]
	}
	c.beginFrame(false)
	c.inFrame = true
	c.dropStalePending(f)
	c.reportHashes(f)
	if c.bot != nil {
		if cmd := c.bot.Think(w, c.issueFrame(now)); cmd != nil && !c.spectating() {
			c.issue(now, cmd)
		}
		if line, ok := c.bot.Chat(f); ok {
			c.Say(now, line)
		}
	}
	if c.cfg.InjectDesync > 0 && !now.Before(c.nextHurt) {
		if !c.nextHurt.IsZero() {
			c.InjectDesync(1)
		}
		c.nextHurt = now.Add(c.cfg.InjectDesync)
	}
	c.inFrame = false
	c.endFrame()
	if !now.Before(c.nextPing) {
		c.sendPingSummary()
		c.nextPing = now.Add(DefaultPingReport)
	}
}

// beginFrame is the first half of a frame, the part a re-run repeats: a copy of the world
// kept for re-runs, the corruptions injected at this frame (a re-run must not heal them), the
// frame's events, and the hash history. A late event that no re-run covers is fast-forwarded.
func (c *Client) beginFrame(rerun bool) {
	w := c.w
	f := w.Frame()
	c.rw.keep(w)
	c.rehurt(rerun, f, false)
	c.scratch = c.sched.due(f, c.scratch[:0])
	for i := range c.scratch {
		e := &c.scratch[i]
		if err := apply(w, e); err != nil {
			c.cfg.Logger.Debug("event refused", "frame", f, "kind", e.kind, "err", err)
		}
		if e.frame < f {
			if e.kind == evCommand {
				c.stats.CommandsLate++
			}
			w.FastForward(unitsOf(e), int(f-e.frame))
		}
		if e.kind == evCommand && e.seat == c.seat {
			c.executed(e.id)
		}
	}
	c.hist.record(w)
	c.rehurt(rerun, f, true)
}

// rehurt repeats, in a re-run, the corruptions injected at frame f before or after its events.
func (c *Client) rehurt(rerun bool, f uint32, afterEvents bool) {
	if !rerun {
		return
	}
	for _, h := range c.hurts {
		if h.frame == f && h.afterEvents == afterEvents {
			hurtUnit(c.w, h.id)
		}
	}
}

// endFrame is the second half of a frame: the world's step and the world hash log.
func (c *Client) endFrame() {
	c.w.Step()
	c.hashes.record(c.w.Frame(), c.w.Hash())
}

// schedule takes an event from the network; a late one is run again exactly if it can be
// (resim.go). It reports false for an event already taken.
func (c *Client) schedule(e event) bool {
	if !c.sched.add(e) {
		return false
	}
	if c.w != nil && c.started && !c.awaiting {
		c.rw.late(e.frame, c.w.Frame())
	}
	return true
}

// resimulate runs again, exactly, the frames that late events changed (resim.go).
func (c *Client) resimulate() {
	if c.w == nil || c.awaiting {
		return
	}
	c.rw.rerun(c.w, c.sched, func(w *world.World) { c.w = w }, func() { c.beginFrame(true); c.endFrame() })
}

// reportHashes sends, once a second, the root of the hash tree over the units: one group, ids 1
// to world.MaxUnitID, the XOR of every unit's hash, about 19 bytes whatever the world's size.
// When it differs from the server's, the server asks for the next level down (a HashRequest
// with its hashes of at most ten sub-ranges, drillRequest), and the client answers the units of
// the sub-ranges that differ (hashRequest): the drifted unit is still named one round trip
// after the report that found it, and only a mismatch costs more than the root. One report a
// second rather than one every frame: each datagram with a record costs the server an
// acknowledgement of its own. At frame now it reports the frame that has settled (resim.go):
// its hashes as they are after every re-run, from the hash history.
func (c *Client) reportHashes(now uint32) {
	settle := c.rw.settle(now)
	if now < settle {
		return
	}
	f := now - settle
	if f%hashReportEvery != 0 {
		return // not this frame's turn: the root walks every unit, so only for a report
	}
	hs, ok := c.hist.at(f)
	if !ok {
		return // before the start, or before the world was put in place by a re-sync
	}
	c.groups = world.GroupUnitHashes(hs, len(hs), c.groups) // one group of every unit: the root
	if len(c.groups) == 0 {
		return
	}
	c.stats.HashReports++
	c.sendUnreliable(&HashReport{Frame: f, Groups: c.groups})
}

func (c *Client) sendPingSummary() {
	ps := c.tr.Stats().Server
	c.sendUnreliable(&PingSummary{AvgRTTMicros: uint32(ps.PingAvg.Microseconds()), MinRTTMicros: uint32(ps.PingMin.Microseconds()),
		MaxRTTMicros: uint32(ps.PingMax.Microseconds()), LossPermille: uint32(min(ps.LossPercent*10, 1000))})
}

// Command gives an order to some of this player's units; it executes lead frames from now on
// every host. The fields its kind does not use are sent as 0 (x and y are for a move, target
// for an attack). It returns the frame it is scheduled for, or why it was refused (not started, or
// the connection is too far behind: then it runs nowhere, here included). Owner loop only.
func (c *Client) Command(now time.Time, kind world.CommandKind, units []uint32, x, y int32, target uint32) (uint32, error) {
	if c.spectating() {
		return 0, ErrSpectatorOrder
	}
	if !c.started || c.w == nil {
		return 0, errors.New("game: not started")
	}
	// A kind sends 0 in the fields it does not use (a cursor's cell under an attack order).
	switch kind {
	case world.CommandMove:
		target = 0
	case world.CommandAttack:
		x, y = 0, 0
	default:
		x, y, target = 0, 0, 0
	}
	cmd := &Command{Frame: c.issueFrame(now), Kind: kind, Units: units, X: x, Y: y, Target: target}
	if err := c.issue(now, cmd); err != nil {
		return 0, err
	}
	return cmd.Frame, nil
}

// issueFrame is the frame a command issued now executes at: lead frames after the frame the
// game is at. That is the frame this host should be at (the target), not the one it is at: a
// host catching up would otherwise schedule into frames the others already ran.
func (c *Client) issueFrame(now time.Time) uint32 {
	return max(c.w.Frame(), c.target(now)) + c.lead
}

// issue sends a command of this player's and schedules it here. A command the server's
// connection refuses is not scheduled either: a command must run on every host or on none.
func (c *Client) issue(now time.Time, cmd *Command) error {
	cmd.Seat, cmd.ID = c.seat, c.cmdID+1
	cmd.Direct = c.directSeats(now)
	payload, err := c.sendGuaranteed(now, cmd, nil)
	if err != nil {
		return err
	}
	c.cmdID++
	c.stats.CommandsIssued++
	c.sched.add(event{frame: cmd.Frame, kind: evCommand, seat: cmd.Seat, id: cmd.ID, cmd: cmd})
	c.pending = append(c.pending, PendingOrder{ID: cmd.ID, Frame: cmd.Frame, Kind: uint8(cmd.Kind), Units: slices.Clone(cmd.Units),
		X: cmd.X, Y: cmd.Y, Target: cmd.Target})
	c.sendDirect(now, payload, cmd.Direct)
	return nil
}

// Say sends a chat line (a chain: lines keep their order, and hold nothing else back). A line
// the connection refuses is not counted as sent, and the error says why.
func (c *Client) Say(now time.Time, text string) error {
	var line Msg = &Chat{Seat: c.seat, Line: uint32(c.chatSent.total + 1), Text: text}
	switch sp := c.spectate; {
	case sp != nil && sp.ChatOff:
		return ErrSpectatorChatOff
	case sp != nil:
		line = &SpectatorChat{Spectator: sp.Number, Line: uint32(c.chatSent.total + 1), Text: text}
	case c.cfg.Spectate:
		return errNotSpectating
	}
	if !c.chatRate.fits(now, clientChat) {
		return ErrChatTooFast
	}
	if _, err := c.sendGuaranteed(now, line, &c.chat); err != nil {
		return err
	}
	c.chatRate.take(now, clientChat)
	c.chatSent.add(text, maxChatReport)
	c.chatLog.add(ChatLine{From: c.cfg.Name, Text: text, Own: true, Spectator: c.spectate != nil}, maxChatShown)
	return nil
}

// InjectDesync corrupts n of this player's units locally (their hit points), so that the
// server's hash checks find and repair them. More than the real-time limit at once makes the
// server stop the world. It returns how many it corrupted: fewer than n when the player has
// fewer units with hit points to spare (none before the game starts).
func (c *Client) InjectDesync(n int) int {
	if c.w == nil || c.spectating() {
		return 0 // a spectator has no units to corrupt
	}
	done := 0
	// Take the player's units in turn, starting after the one hurt last, so that a repeated
	// injection does not keep hitting a unit the server has just repaired.
	var mine []world.Unit
	for _, u := range c.w.Units() {
		if u.Owner == c.seat && !u.IsEnemy() && u.HP > 1 {
			mine = append(mine, u)
		}
	}
	start := c.hurtNext
	for i := 0; i < len(mine) && n > 0; i++ {
		j := (start + i) % len(mine)
		if hurtUnit(c.w, mine[j].ID) {
			n--
			done++
			c.stats.Desyncs++
			c.hurtNext = j + 1
			c.hurts = appendBounded(c.hurts, hurt{frame: c.w.Frame(), id: mine[j].ID, afterEvents: c.inFrame}, 64)
		}
	}
	return done
}

// hurt is a corruption injected on purpose, kept so that a re-run of its frame repeats it
// (resim.go): a desync the class is waiting to see found must not be healed by a late command.
type hurt struct {
	frame       uint32
	id          uint32
	afterEvents bool // injected during the frame's step, after its events (a timed injection)
}

// hurtUnit takes a hit point from unit id, if it has one to spare.
func hurtUnit(w *world.World, id uint32) bool {
	u, ok := w.Unit(id)
	if !ok || u.HP <= 1 {
		return false
	}
	u.HP--
	return w.SetUnit(u) == nil
}

// errNotConnected: a message for the server before the connection exists.
var errNotConnected = errors.New("game: not connected to the server")

// sendGuaranteed encodes m and sends it to the server through the connection's outbox
// (outbox.go), as the next message of chain if chain is not nil. It returns the encoding, or
// why the message was refused (counted).
func (c *Client) sendGuaranteed(now time.Time, m Msg, chain *message.Chain) ([]byte, error) {
	p := c.tr.Peer()
	if p == nil || !p.Connected() {
		return nil, errNotConnected
	}
	payload, err := AppendMsg(nil, m)
	if err != nil {
		c.cfg.Logger.Error("encode", "type", m.Type(), "err", err)
		return nil, err
	}
	var deps []*depgraph.Dependency
	var out *depgraph.Dependency
	if chain != nil {
		deps, out = []*depgraph.Dependency{chain.Last()}, chain.Last()
	}
	if err := c.out.send(p.Conn(), now, payload, deps, out, false); err != nil {
		c.stats.SendsRefused++
		c.cfg.Logger.Warn("send refused", "type", m.Type(), "err", err)
		return nil, err
	}
	return payload, nil
}

func (c *Client) sendUnreliable(m Msg) {
	p := c.tr.Peer()
	if p == nil {
		return
	}
	payload, err := AppendMsg(nil, m)
	if err == nil {
		p.Conn().SendUnreliable(payload)
	}
}

// onMessage handles every message from the server.
func (c *Client) onMessage(p *transport.Peer, now time.Time, m *message.Message) {
	msg, err := ParseMsg(m.Payload)
	if err != nil {
		c.stats.BadMessages++
		return
	}
	if m.Guaranteed {
		f := uint32(0)
		if c.w != nil {
			f = c.w.Frame()
		}
		c.trace.executed(now, f, p.Addr().String(), m, msg)
	}
	switch v := msg.(type) {
	case *PlayerInfo:
		c.players[v.Seat] = *v
		if uuid.UUID(v.Player) == c.cfg.PlayerID {
			c.seat, c.seatKnown = v.Seat, true
			if c.bot != nil {
				c.bot.seat = v.Seat
			}
			c.tellServer(now)
			c.dialLower(now)
		}
	case *StartGame:
		c.start(now, v)
	case *Command:
		c.schedule(event{frame: v.Frame, kind: evCommand, seat: v.Seat, id: v.ID, cmd: v})
	case *SpawnEnemy:
		c.stats.EnemiesSpawned++
		c.schedule(event{frame: v.Frame, kind: evSpawn, id: v.ID, spawn: v})
	case *KillEnemy:
		c.stats.EnemiesKilled++
		c.schedule(event{frame: v.Frame, kind: evKill, id: v.ID})
	case *Reinforce:
		c.stats.Squads += uint64(len(v.Seats))
		c.schedule(event{frame: v.Frame, kind: evReinforce, reinforce: v})
	case *NewRound:
		c.stats.Rounds++
		c.schedule(event{frame: v.Frame, kind: evRound, round: v})
	case *ClassLink:
		c.takeClassLink(v)
	case *Chat:
		l := ChatLine{From: c.players[v.Seat].Name, Text: v.Text}
		c.chatReceived.add(l, maxChatReport)
		c.chatLog.add(l, maxChatShown)
	case *SpectatorChat:
		if v.Name == "" {
			c.stats.BadMessages++ // the server's relay names the spectator
			return
		}
		l := ChatLine{From: v.Name, Text: v.Text, Spectator: true}
		c.chatReceived.add(l, maxChatReport)
		c.chatLog.add(l, maxChatShown)
	case *Spectate:
		c.takeSpectate(v)
	case *LeadTime:
		c.stats.LeadTimes++
		c.leadNext = append(c.leadNext, *v)
	case *HashRequest:
		c.hashRequest(now, v)
	case *UnitUpdate:
		c.stats.RealtimeResyncs++
		c.stats.MismatchedUnits += uint64(len(v.Units) + len(v.Removed))
		c.schedule(event{frame: v.Frame, kind: evUpdate, update: v})
		c.logUpdate(now, v)
	case *Pause:
		c.stats.StopWorldResyncs++
		c.logPause(now, v.Frame)
		c.pausing, c.pauseFrame, c.sentHashes, c.pauseReached, c.resumeAt = true, v.Frame, false, time.Time{}, time.Time{}
		c.pauseHashes = nil
		if c.w != nil && c.w.Frame() >= v.Frame {
			c.reachPause(now) // the order came late: pause where we are
		}
	case *ResyncBatch:
		c.resyncBatch(now, v)
	case *Resume:
		if c.pausing && v.Frame == c.pauseFrame {
			c.resumeAt = now.Add(time.Duration(v.AfterMillis) * time.Millisecond)
		}
	case *FrameSync:
		// The report left the server about half a round trip ago. The smallest round trip seen
		// is the best estimate of the path's own delay (queues only add to it); before any
		// sample, assume none rather than the initial guess, which would put us ahead.
		half := p.Stats().MinRTT / 2
		c.syncFrame, c.syncAt = v.Frame, now.Add(-half)
		c.nextFrame = now // look again at once: we may be a frame behind
	case *Peers:
		c.peers(now, v)
	case *PlayerSecret:
		c.takeSecret(v)
	case *Challenge:
		c.answerSeatChallenge(now, v)
	default:
		c.stats.BadMessages++
	}
}

func (c *Client) start(now time.Time, sg *StartGame) {
	w, err := world.NewWorld(sg.Map, sg.Seed)
	if err != nil {
		c.cfg.Logger.Error("start", "err", err)
		return
	}
	for _, s := range sg.Seats {
		if _, err := w.AddPlayerUnits(s); err != nil {
			c.cfg.Logger.Error("units", "seat", s, "err", err)
		}
	}
	c.w, c.started = w, true
	c.rw.reset(sg.Frame)
	c.frameDur = time.Duration(sg.FrameMillis) * time.Millisecond
	if c.frameDur <= 0 {
		c.frameDur = DefaultFrame
	}
	c.lead = sg.LeadFrames
	c.syncFrame, c.syncAt, c.nextFrame = sg.Frame, now, now
	c.awaiting = sg.Frame > 0 // a running game: the world comes in ResyncBatches
	for _, b := range c.early {
		c.resyncBatch(now, b)
	}
	c.early = nil
}

// hashRequest answers the server's drill-down from the history of that frame
// (answerDrillDown).
func (c *Client) hashRequest(now time.Time, r *HashRequest) {
	c.stats.HashRequests++
	rec := SyncRecord{When: now, Seat: c.seat, Frame: r.Frame, Action: ActionDrillDown}
	hs, ok := c.hist.at(r.Frame)
	if !ok {
		if len(r.Hashes) == 0 {
			rec.Groups = slices.Clone(r.Ranges) // with the server's hashes, which differ is unknown here
		}
		rec.Action = ActionNoDrillDown
		c.syncLog = pushRecord(c.syncLog, rec)
		return // too old: the next report will show the problem again
	}
	answer, differ := answerDrillDown(hs, r)
	c.stats.MismatchedGroups += uint64(len(differ))
	rec.Groups = slices.Clone(differ)
	c.syncLog = pushRecord(c.syncLog, rec)
	// Kept aside, not in the record: these are candidates, most of them equal to the server's.
	// The server's UnitUpdate says which ones differed.
	c.answers = append(c.answers, drillAnswer{frame: r.Frame, hashes: answer.Hashes})
	if len(c.answers) > maxAnswers {
		c.answers = slices.Delete(c.answers, 0, len(c.answers)-maxAnswers)
	}
	c.sendGuaranteed(now, answer, nil)
}

// answerDrillDown is the answer to the drill-down r from the unit hashes hs of its frame (id
// order), and the ranges it answers. A request with the server's hash of each range is
// answered with the units of the ranges whose hashes differ here, and lists the others as
// skipped; one without, with every unit of every range. The work is a binary search and a walk
// per range, and a pass over the units, for at most MaxHashRanges ranges.
func answerDrillDown(hs []world.UnitHash, r *HashRequest) (*UnitHashes, []IDRange) {
	answer := &UnitHashes{Frame: r.Frame}
	differ := r.Ranges
	if len(r.Hashes) > 0 && len(r.Hashes) == len(r.Ranges) {
		differ = nil
		for i, rg := range r.Ranges {
			if rangeHash(hs, rg.Start, rg.End) == r.Hashes[i] {
				answer.Skipped = append(answer.Skipped, rg)
			} else {
				differ = append(differ, rg)
			}
		}
	}
	for _, h := range hs {
		if inRanges(differ, h.ID) {
			answer.Hashes = append(answer.Hashes, h)
		}
	}
	return answer, differ
}

// reachPause: the world is at the paused frame. The client sends the hash of every unit and of
// the attacks in flight, and waits for the server's batches.
func (c *Client) reachPause(now time.Time) {
	if c.sentHashes {
		return
	}
	c.sentHashes, c.pauseReached = true, now
	if pr := c.runningPause(); pr != nil {
		pr.Start = now
	}
	if c.spectating() {
		return // the server sends a spectator the whole paused world, and wants no hashes
	}
	hs := c.w.UnitHashes(1, world.MaxUnitID, nil)
	c.pauseHashes = hs
	var ah uint64
	for _, a := range c.w.Attacks() {
		ah ^= a.Hash()
	}
	c.sendGuaranteed(now, &WorldHashes{Frame: c.pauseFrame, Hashes: hs, AttacksHash: ah}, nil)
}

// resyncBatch puts the server's units in place (a stop-the-world re-sync, or the world of a game
// joined while running) and tells the server.
func (c *Client) resyncBatch(now time.Time, b *ResyncBatch) {
	if c.w == nil {
		// Before StartGame (the server makes batches depend on it, so only a peer that does not
		// could do this): keep it for when the world exists.
		c.early = append(c.early, b)
		return
	}
	// A spectator's own copy of the world, sent to it alone while the game runs because its
	// reports showed a drift (spectate.go): the whole world, which replaces its own. It comes
	// in batches, a chain, the one with the state last: from the first batch on, the world
	// waits, as a joining client's does, and it goes on from the state.
	fresh := c.spectating() && !c.pausing && (c.copying || !c.awaiting)
	if fresh && len(b.State) == 0 {
		c.copying, c.awaiting = true, true
	}
	if !c.awaiting && !c.pausing && !fresh {
		c.stats.BadMessages++ // no snapshot expected and no pause: a batch would rewrite a running world
		return
	}
	if c.pausing && !c.awaiting && b.Frame == c.pauseFrame && !c.spectating() {
		c.logBatch(b) // a spectator's batch is the whole world: it says nothing about what differed
	}
	for _, id := range b.Removed {
		c.w.RemoveUnit(id)
	}
	for _, u := range b.Units {
		if err := c.w.SetUnit(u); err != nil {
			c.cfg.Logger.Warn("resync unit", "err", err)
		}
	}
	if len(b.State) > 0 && (c.awaiting || c.pausing || fresh) {
		if st, _, err := world.ParseState(b.State); err == nil {
			was := c.w.Frame()
			if err := c.w.ApplyState(st); err != nil {
				c.cfg.Logger.Warn("resync state", "err", err)
			} else if c.w.Frame() < was {
				// The world went back (the Pause came after this client had run past its
				// frame): the events of the frames it runs again must run again too.
				c.sched.rewind(c.w.Frame())
			}
		}
	}
	c.hist.clear()
	// The world was put in place: no re-run may go back before it.
	c.rw.reset(c.w.Frame())
	if len(b.State) > 0 && (c.pausing || fresh) {
		// A stop-the-world re-sync: the world is now the server's as of the paused frame, and
		// the server applied every late event it had before it sent that state and refuses
		// later ones; events for earlier frames still waiting here must not run.
		// A spectator's own copy of the world is treated the same way: an event for an earlier
		// frame still on its way is in that world already (or, rarely, the server ran it late
		// after the copy left, and the spectator's next report shows the difference).
		// (A snapshot for a joining client is different: the server still applies its late
		// events at its next step, and sends them along.)
		c.sched.dropBefore(b.Frame)
	}
	if fresh && len(b.State) > 0 {
		c.stats.WorldCopies++
		c.copying, c.awaiting = false, false
		return
	}
	if fresh {
		return // more of the copy to come
	}
	if c.awaiting && len(b.State) > 0 {
		c.awaiting, c.copying = false, false
		c.syncFrame, c.syncAt = c.w.Frame(), now
		return
	}
	if c.pausing && !c.spectating() {
		c.stats.MismatchedUnits += uint64(len(b.Units) + len(b.Removed))
		c.sendGuaranteed(now, &BatchApplied{Frame: b.Frame, Batch: b.Batch}, nil)
	}
}

func (c *Client) resume(now time.Time) {
	pr := c.runningPause()
	if !c.pauseReached.IsZero() {
		c.stats.PauseMillis = appendBounded(c.stats.PauseMillis, now.Sub(c.pauseReached).Milliseconds(), maxPausesKept)
		if pr != nil {
			pr.Millis = now.Sub(c.pauseReached).Milliseconds()
		}
	}
	if pr != nil {
		pr.Running = false
	}
	c.pauseHashes, c.pauseSeen = nil, nil
	c.pausing, c.resumeAt = false, time.Time{}
	// The server stepped the paused frame the moment it resumed, and it counted the delay from
	// when it sent the Resume, about half a round trip before it arrived here: so it is now at
	// the frame after the pause, since about half a round trip.
	half := time.Duration(0)
	if p := c.tr.Peer(); p != nil {
		half = p.Stats().MinRTT / 2
	}
	c.syncFrame, c.syncAt, c.nextFrame = c.w.Frame()+1, now.Add(-half), now
	c.hist.clear()
}

// Snapshot returns the latest snapshot. Safe from any goroutine.
func (c *Client) Snapshot() *ClientSnapshot { return c.snap.Load() }

func (c *Client) publish(now time.Time, force bool) {
	if old := c.snap.Load(); !force && old != nil && now.Sub(old.At) < snapshotEvery {
		return
	}
	s := &ClientSnapshot{At: now, State: c.tr.State(), Started: c.started, Paused: c.pausing && !c.pauseReached.IsZero(),
		Seat: c.seat, Lead: c.lead, Players: c.players}
	if p := c.tr.Peer(); p != nil {
		s.Waiting = p.Conn().WaitingForSync()
	}
	if c.w != nil {
		s.Frame = c.w.Frame()
		s.Map = c.w.MapName()
		s.Units = slices.Clone(c.w.Units())
		s.Attacks = slices.Clone(c.w.Attacks())
	}
	s.Mismatches = copyRecords(c.syncLog)
	s.Pauses = slices.Clone(c.pauseLog)
	s.Pending = copyPending(c.pending)
	if c.seatKnown {
		s.Squad = c.nextSquad(c.seat)
	}
	s.NewRound, s.FrameDur = c.nextRound(), c.frameDur
	s.ClassLink, s.ClassLinks = c.class, c.stats.ClassLinks
	if c.spectate != nil {
		sp := *c.spectate
		s.Spectator = &sp
	}
	if c.classErr != nil {
		s.ClassLinkErr = c.classErr.Error()
	}
	s.Net, s.Game, s.Sync = c.counters(c.tr.Stats().Server)
	s.Chat, s.ChatTotal = c.chatLog.last(maxChatShown), c.chatLog.total
	c.snap.Store(s)
}

// counters are the report's sections that a status line shows, over server the connection's
// statistics.
func (c *Client) counters(server transport.PeerStats) (NetReport, GameReport, SyncReport) {
	var t transport.PeerTotals
	if c.tr.Peer() != nil || server.PacketsSent > 0 {
		t.Add(server)
	}
	n := netReport(t)
	g := GameReport{LeadTimeMillis: int64(c.lead) * c.frameDur.Milliseconds(), CommandsIssued: c.stats.CommandsIssued,
		CommandsLate: c.stats.CommandsLate, EnemiesSpawned: c.stats.EnemiesSpawned, EnemiesKilled: c.stats.EnemiesKilled,
		Reinforcements: c.stats.Squads, NewRounds: c.stats.Rounds, LeadTimeChanges: c.stats.LeadTimes, SendsRefused: c.stats.SendsRefused, BadMessages: c.stats.BadMessages, DirectLinks: c.stats.DirectLinks, DirectRedials: c.stats.DirectRedials,
		DirectSilent: c.stats.DirectSilent, DirectRefused: c.stats.DirectRefused, DirectQuiet: c.stats.DirectQuiet,
		DirectStalled: c.stats.DirectStalled, DirectLost: c.stats.DirectLost, WorldCopies: c.stats.WorldCopies}
	sy := SyncReport{HashReports: c.stats.HashReports, MismatchedGroups: c.stats.MismatchedGroups, MismatchedUnits: c.stats.MismatchedUnits,
		RealtimeResyncs: c.stats.RealtimeResyncs, StopWorldResyncs: c.stats.StopWorldResyncs, PauseMillis: append([]int64{}, c.stats.PauseMillis...)}
	sy.addResim(&c.rw, c.w)
	return n, g, sy
}

// Report is the --stats report, built when asked (at exit): the counters, the recent world
// hashes and the latest chat lines with their counts. Owner loop only, or after it stopped.
func (c *Client) Report() Report {
	r := Report{Role: "client", Name: c.cfg.Name, PlayerID: c.cfg.PlayerID.String(), WorldHashes: map[string]string{}}
	if c.spectate != nil {
		r.Spectator = c.spectate.Number
	}
	if c.w != nil {
		r.Frame = c.w.Frame()
		r.WorldHashes = c.hashes.report(r.Frame)
	}
	server := c.tr.Stats().Server
	if p := c.tr.Peer(); p != nil {
		server = p.Stats() // the live figures, not the latest published ones
	}
	r.Net, r.Game, r.Sync = c.counters(server)
	r.Rejected = c.rejected()
	r.Chat = ChatReport{Sent: c.chatSent.last(maxChatReport), Received: c.chatReceived.last(maxChatReport),
		SentTotal: c.chatSent.total, ReceivedTotal: c.chatReceived.total}
	return r
}

// StopBot makes a bot client stop playing (it keeps its connection and its world). Owner loop
// only.
func (c *Client) StopBot() { c.bot = nil }
