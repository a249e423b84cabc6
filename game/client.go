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

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// Client is one player's host: it runs its own copy of the world in lockstep with the server,
// sends the player's (or its bot's) commands, chats, and reports unit hashes. Like Server it
// is a session that does no I/O: Handle, Tick and NextDeadline, and a transport.Writer for
// what it sends. The server connection and the direct links to other players share that one
// writer (one socket), told apart by address. One goroutine owns it.
//
// Client composes the parts of a player's host, each of which owns its state: its phase and
// role (phase.go), its clock of frames, its command lead time (lead.go), its orders and its
// chat, drift checking and repair (drift_client.go), the class link (classlink.go) and its
// direct links to the other players (p2p.go).
type Client struct {
	cfg ClientConfig
	tr  *transport.Client

	phase phase      // where it is in its life in the game (phase.go)
	role  clientRole // what it is in the game: a player's seat, or a spectator

	w       *world.World // nil before StartGame
	sched   *schedule
	clock   clientClock
	lead    leadTimes
	players [world.MaxPlayers]PlayerInfo
	secret  Secret // proves cfg.PlayerID (identity.go)
	orders  orders
	chat    playerChat
	bot     *Bot
	drift   clientDrift
	class   classLinkView
	p2p     *p2p   // its direct links (nil: it takes none)
	out     outbox // to the server (send.go)

	stats ClientStats
	snap  atomic.Pointer[ClientSnapshot]
	trace *tracer
}

// clientClock is when the client's frames run: at the server's frame boundaries, as it
// estimates them from the server's FrameSync.
type clientClock struct {
	frameDur  time.Duration
	nextFrame time.Time
	// syncFrame is the server's frame as its latest FrameSync said, syncAt when the server was
	// there (the FrameSync's arrival, less half the smallest round trip).
	syncFrame uint32
	syncAt    time.Time
	nextPing  time.Time // when the next PingSummary goes
}

// orders are this player's commands: their ids, and the ones not yet executed (the orders line
// of the screen).
type orders struct {
	lastID  uint32
	pending []PendingOrder
	rate    rateBucket // the commands' rate this client holds itself to (commands.go)
}

// playerChat is the player's chat: its chain of lines to the server, its rate, and the
// conversation (chat.go). Each log keeps its latest lines and a count.
type playerChat struct {
	chain    message.Chain
	rate     rateBucket           // this player's own rate
	log      boundedLog[ChatLine] // as the player sees it, own lines too, for the snapshot
	sent     boundedLog[string]   // for the report
	received boundedLog[ChatLine] // for the report
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
	c := &Client{cfg: cfg, sched: newSchedule(), lead: leadTimes{cur: minLeadFrames}, clock: clientClock{frameDur: DefaultFrame},
		trace: newTracer(cfg.Trace), secret: cfg.Secret, drift: clientDrift{rw: rewinder{mode: cfg.Late}}}
	// Command ids name a command with its seat, and every host drops a (seat, id) it has seen.
	// A player who comes back runs a new client: starting from a random id keeps its first
	// commands from looking like the previous client's.
	var b [4]byte
	if _, err := io.ReadFull(cfg.Transport.Rand, b[:]); err != nil {
		return nil, err
	}
	c.orders.lastID = binary.BigEndian.Uint32(b[:]) >> 4
	tc := cfg.Transport
	tc.Name, tc.PlayerID = cfg.Name, cfg.PlayerID
	tc.OnMessage = c.onMessage
	// The client's own pings feed only its PingSummary, which may lower the server's figures
	// of this path, never raise them (lead.go): while its commands are acknowledged, those acks
	// measure the round trip already, and a ping and its answer would be two more datagrams a
	// second, a tenth of a player's traffic. An idle client pings as any connection does. The
	// server keeps its own pings, whose average sets the lead.
	tc.PingIdleOnly = true
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
	c.trace.begin(now)
	switch {
	case d.From == c.tr.Server():
		c.tr.Handle(now, d)
		c.noteEnd()
	case c.p2p != nil:
		c.p2p.handle(now, d)
	default:
		c.stats.StrayDatagrams++
	}
	c.resimulate()
}

// noteEnd moves the client to its last phase once its connection to the server ended.
func (c *Client) noteEnd() {
	if c.tr.State() == transport.Disconnected && c.phase != phaseEnded {
		c.moveTo(phaseEnded)
	}
}

// Tick does what time has made due by now: frames, the connections' resends, keepalives and
// handshakes, the outboxes, the snapshot.
func (c *Client) Tick(now time.Time) {
	c.trace.begin(now)
	c.frames(now)
	if p := c.tr.Peer(); p != nil {
		c.out.flush(p.Conn(), now)
	}
	c.tr.Tick(now)
	c.noteEnd()
	c.tickP2P(now)
	c.publish(now, false)
	if c.phase == phaseEnded {
		c.publish(now, true) // the final snapshot says so at once
	}
}

// NextDeadline is when Tick next has work if no datagram arrives.
func (c *Client) NextDeadline(now time.Time) time.Time {
	next := transport.Earliest(c.tr.NextTick(now), c.nextP2P(now))
	if c.w != nil {
		next = transport.Earliest(next, c.clock.nextFrame)
	}
	if p := c.drift.pause; p != nil && !p.resumeAt.IsZero() {
		next = transport.Earliest(next, p.resumeAt)
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
	return c.clock.syncFrame + uint32(now.Sub(c.clock.syncAt)/c.clock.frameDur)
}

func (c *Client) frames(now time.Time) {
	if c.w == nil || c.phase == phaseAwaitingWorld {
		return // no world, or not all of it yet
	}
	if p := c.drift.pause; p != nil && !p.resumeAt.IsZero() && !now.Before(p.resumeAt) {
		c.resume(now)
	}
	if now.Before(c.clock.nextFrame) {
		return
	}
	// Step at the server's frame boundaries (as estimated from its FrameSync), not at times of
	// our own: every client then starts a frame at about the same moment, and a command issued
	// lead frames ahead reaches the others in time.
	tgt := c.target(now)
	c.clock.nextFrame = c.clock.syncAt.Add(time.Duration(tgt+1-c.clock.syncFrame) * c.clock.frameDur)
	for n := 0; n < maxCatchUpPerTick && c.w.Frame() < tgt; n++ {
		if p := c.drift.pause; p != nil && c.w.Frame() >= p.frame {
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
	c.lead.advance(f)
	c.beginFrame(false)
	c.dropStalePending(f)
	c.reportHashes(now, f) // the frame's hashes are in the history now, after its events
	if c.bot != nil {
		if cmd := c.bot.Think(w, c.issueFrame(now)); cmd != nil && !c.spectating() {
			c.issue(now, cmd)
		}
		if line, ok := c.bot.Chat(f); ok {
			c.Say(now, line)
		}
	}
	c.injectOnTimer(now)
	if f%frameSyncEvery == 0 {
		c.sizeWindow()
	}
	c.endFrame()
	// With a frame's hash report, whose datagram it shares: alone it would be a datagram of its
	// own every 4 s, 18 sealed bytes and 28 of IP and UDP for 7 of summary.
	if !now.Before(c.clock.nextPing) && f%hashReportEvery == 0 {
		c.sendPingSummary(now)
		c.clock.nextPing = now.Add(DefaultPingReport)
	}
}

// beginFrame is the first half of a frame, the part a re-run repeats: a copy of the world
// kept for re-runs, the corruptions injected at this frame (a re-run must not heal them), the
// frame's events, and the hash history. A late event that no re-run covers is fast-forwarded.
func (c *Client) beginFrame(rerun bool) {
	w := c.w
	f := w.Frame()
	c.drift.rw.keep(w)
	c.drift.inject.rehurt(w, rerun, f, false)
	for _, e := range c.sched.runDue(w, f) {
		if e.err != nil {
			c.cfg.Logger.Debug("event refused", "frame", f, "kind", e.kind, "err", e.err)
			if e.kind == evCommand && !rerun {
				c.stats.CommandsRefused++
			}
		}
		if e.frame < f && e.kind == evCommand && !rerun { // a re-run fast-forwards it again
			c.stats.CommandsLate++
		}
		if e.kind == evCommand && e.seat == c.role.seat {
			c.executed(e.id)
		}
	}
	c.drift.hist.record(w, c.sched.inputDigests(f))
	c.drift.inject.rehurt(w, rerun, f, true)
}

// endFrame is the second half of a frame: the world's step and the world hash log.
func (c *Client) endFrame() {
	c.w.Step()
	c.drift.hashes.record(c.w.Frame(), c.w.Hash())
}

// schedule takes an event from the network; a late one is run again exactly if it can be
// (resim.go). It reports false for an event already taken.
func (c *Client) schedule(e event) bool {
	if !c.sched.add(e) {
		return false
	}
	if c.w != nil && c.phase != phaseAwaitingWorld {
		if late := e.frame < c.w.Frame(); !c.drift.rw.late(e.kind, e.frame, c.w.Frame()) && late {
			c.drift.reportsAfterLate = reportsAfterLate
		}
	}
	return true
}

// resimulate runs again, exactly, the frames that late events changed (resim.go).
func (c *Client) resimulate() {
	if c.w == nil || c.phase == phaseAwaitingWorld {
		return
	}
	if c.drift.rw.rerun(c.w, c.sched, func(w *world.World) { c.w, c.drift.inject.from = w, w.Frame() }, func() { c.beginFrame(true); c.endFrame() }) {
		// The re-run stops where the world was, before that frame's events: a corruption
		// injected there, between two frames, was in the world it replaced, and goes again.
		c.drift.inject.rehurt(c.w, true, c.w.Frame(), false)
		// The reports since the late event's frame described a world without it, which the
		// server cannot compare until it runs the same inputs: the next frame reports at once,
		// whichever its turn, so that a drift behind the late event is found a frame sooner.
		c.drift.reportNext = true
	}
}

// sendPingSummary tells the server the client's own measure of its path: the packet layer's
// round trip (from the acknowledgements of its commands, and from its pings while it gives
// none) and the loss of what it sent. Before its first sample (no smallest round trip yet) the
// round trips are 0, which the server reads as none: the packet layer's initial guess is no
// measure of the path.
func (c *Client) sendPingSummary(now time.Time) {
	ps := c.tr.Stats().Server
	// A loss counted over a handful of packets is sent as the rule of succession reads it
	// (earlyLoss): a server that counts it before its own count is full (the fast-forward's
	// lead) must not take none from a dozen packets that happened to arrive.
	loss := ps.LossPercent
	if n := ps.Message.Packet.LossSamples; n < minLossSamples {
		loss = earlyLoss(loss, n)
	}
	v := PingSummary{LossPermille: uint32(min(loss*10, 1000))}
	if ps.MinRTT > 0 {
		v.AvgRTTMicros, v.MinRTTMicros, v.MaxRTTMicros = uint32(ps.RTT.Microseconds()), uint32(ps.MinRTT.Microseconds()), uint32(ps.MaxRTT.Microseconds())
	}
	c.send(now, &v)
}

// Command gives an order to some of this player's units; it executes lead frames from now on
// every host. The fields its kind does not use are sent as 0 (x and y are for a move, target
// for an attack). It returns the frame it is scheduled for, or why it was refused (not started,
// faster than the commands' rate, or the connection is too far behind: then it runs nowhere,
// here included). Owner loop only.
func (c *Client) Command(now time.Time, kind world.CommandKind, units []uint32, x, y int32, target uint32) (uint32, error) {
	if c.spectating() {
		return 0, ErrSpectatorOrder
	}
	if c.w == nil {
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
	return max(c.w.Frame(), c.target(now)) + c.lead.cur
}

// issue sends a command of this player's and schedules it here. A command over the commands'
// rate (commands.go), or that the server's connection refuses, is not scheduled either: a
// command must run on every host or on none.
func (c *Client) issue(now time.Time, cmd *Command) error {
	tokens := commandTokens(cmd)
	if !c.orders.rate.fitsN(now, clientCommands, tokens) {
		return ErrCommandsTooFast
	}
	cmd.Seat, cmd.ID = c.role.seat, c.orders.lastID+1
	cmd.Direct = c.directSeats(now)
	payload, err := c.sendToServer(now, cmd, nil)
	if err != nil {
		return err
	}
	c.orders.lastID++
	c.orders.rate.takeN(now, clientCommands, tokens)
	c.stats.CommandsIssued++
	c.sched.add(event{frame: cmd.Frame, kind: evCommand, seat: cmd.Seat, id: cmd.ID, cmd: cmd})
	c.orders.pending = append(c.orders.pending, PendingOrder{ID: cmd.ID, Frame: cmd.Frame, Kind: uint8(cmd.Kind), Units: slices.Clone(cmd.Units),
		X: cmd.X, Y: cmd.Y, Target: cmd.Target})
	c.sendDirect(now, cmd.ID, payload, cmd.Direct)
	return nil
}

// pendingStale is how long after its frame a pending order is dropped even though its event
// never ran. An order normally leaves the list when it runs; one that never will must not stay
// forever: a stop-the-world re-sync drops the events before the paused frame (the server
// refused them too), and the list would otherwise show "pending until frame F" for a frame
// long gone. Five seconds is far more than any order waits to run.
const pendingStale = 5 * time.Second

// executed takes a command of this player off the pending list: its event ran.
func (c *Client) executed(id uint32) {
	c.orders.pending = slices.DeleteFunc(c.orders.pending, func(o PendingOrder) bool { return o.ID == id })
}

// dropStalePending drops the orders whose frame is pendingStale behind frame f.
func (c *Client) dropStalePending(f uint32) {
	stale := uint32(pendingStale / c.clock.frameDur)
	c.orders.pending = slices.DeleteFunc(c.orders.pending, func(o PendingOrder) bool { return o.Frame+stale < f })
}

// Say sends a chat line (a chain: lines keep their order, and hold nothing else back). A line
// the connection refuses is not counted as sent, and the error says why.
func (c *Client) Say(now time.Time, text string) error {
	var line Msg = &Chat{Seat: c.role.seat, Line: uint32(c.chat.sent.total + 1), Text: text}
	switch sp := c.role.spectate; {
	case sp != nil && sp.ChatOff:
		return ErrSpectatorChatOff
	case sp != nil:
		line = &SpectatorChat{Spectator: sp.Number, Line: uint32(c.chat.sent.total + 1), Text: text}
	case c.cfg.Spectate:
		return errNotSpectating
	}
	if !c.chat.rate.fits(now, clientChat) {
		return ErrChatTooFast
	}
	if err := c.sendOn(now, &c.chat.chain, line); err != nil {
		return err
	}
	c.chat.rate.take(now, clientChat)
	c.chat.sent.add(text, maxChatReport)
	c.chat.log.add(ChatLine{From: c.cfg.Name, Text: text, Own: true, Spectator: c.role.spectate != nil}, maxChatShown)
	return nil
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
		c.playerInfo(now, v)
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
		c.heard(ChatLine{From: c.players[v.Seat].Name, Text: v.Text, Bot: c.players[v.Seat].Bot})
	case *SpectatorChat:
		if v.Name == "" {
			c.stats.BadMessages++ // the server's relay names the spectator
			return
		}
		c.heard(ChatLine{From: v.Name, Text: v.Text, Spectator: true})
	case *Spectate:
		c.takeSpectate(v)
	case *LeadTime:
		c.stats.LeadTimes++
		c.lead.next = append(c.lead.next, *v)
	case *HashRequest:
		c.hashRequest(now, v)
	case *UnitUpdate:
		c.stats.RealtimeResyncs++
		c.stats.MismatchedUnits += uint64(len(v.Units) + len(v.Removed))
		if len(v.State) > 0 {
			c.stats.MismatchedStates++
		}
		c.schedule(event{frame: v.Frame, kind: evUpdate, seat: v.Seat, update: v})
		c.logUpdate(now, v)
		if v.Seat == c.role.seat {
			c.cfg.Logger.Info("repair received", "frame", v.Frame, "checked", v.Checked, "units", len(v.Units)+len(v.Removed), "state", len(v.State) > 0)
		}
	case *Pause:
		c.pauseOrdered(now, v)
	case *ResyncBatch:
		c.resyncBatch(now, v)
	case *Resume:
		if p := c.drift.pause; p != nil && v.Frame == p.frame {
			p.resumeAt = now.Add(time.Duration(v.AfterMillis) * time.Millisecond)
		}
	case *FrameSync:
		// The report left the server about half a round trip ago. The smallest round trip seen
		// is the best estimate of the path's own delay (queues only add to it); before any
		// sample, assume none rather than the initial guess, which would put us ahead.
		half := p.Stats().MinRTT / 2
		c.clock.syncFrame, c.clock.syncAt = v.Frame, now.Add(-half)
		c.clock.nextFrame = now // look again at once: we may be a frame behind
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

// playerInfo keeps who sits in a seat; the one that names this client's player is its seat.
func (c *Client) playerInfo(now time.Time, v *PlayerInfo) {
	c.players[v.Seat] = *v
	if uuid.UUID(v.Player) != c.cfg.PlayerID {
		return
	}
	c.role.kind, c.role.seat = rolePlayer, v.Seat
	if c.phase == phaseConnecting || c.phase == phaseChallenged {
		c.moveTo(phaseAdmitted)
	}
	if c.bot != nil {
		c.bot.seat = v.Seat
	}
	c.tellServer(now)
	c.dialLower(now)
}

// heard keeps a chat line from another player or a spectator.
func (c *Client) heard(l ChatLine) {
	c.chat.received.add(l, maxChatReport)
	c.chat.log.add(l, maxChatShown)
}

// start makes the world StartGame describes. At frame 0 it runs at once; in a running game
// (a client that joined late) the world comes in ResyncBatches, and the client awaits it.
func (c *Client) start(now time.Time, sg *StartGame) {
	to := phaseRunning
	if sg.Frame > 0 {
		to = phaseAwaitingWorld // a running game: the world comes in ResyncBatches
	}
	if _, err := c.phase.next(to); err != nil || c.w != nil {
		c.stats.BadMessages++ // a second StartGame, or one after the end
		return
	}
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
	c.w = w
	c.moveTo(to)
	c.drift.rw.reset(sg.Frame)
	c.clock.frameDur = time.Duration(sg.FrameMillis) * time.Millisecond
	if c.clock.frameDur <= 0 {
		c.clock.frameDur = DefaultFrame
	}
	c.lead.cur, c.lead.fixed = sg.LeadFrames, sg.LeadFixed
	c.clock.syncFrame, c.clock.syncAt, c.clock.nextFrame = sg.Frame, now, now
	for _, b := range c.drift.early {
		c.resyncBatch(now, b)
	}
	c.drift.early = nil
}

// Snapshot returns the latest snapshot. Safe from any goroutine.
func (c *Client) Snapshot() *ClientSnapshot { return c.snap.Load() }

func (c *Client) publish(now time.Time, force bool) {
	if old := c.snap.Load(); !force && old != nil && now.Sub(old.At) < snapshotEvery {
		return
	}
	s := &ClientSnapshot{At: now, State: c.tr.State(), Started: c.w != nil, Paused: c.phase == phasePaused,
		Seat: c.role.seat, Lead: c.lead.cur, LeadFixed: c.lead.fixed, Players: c.players}
	if n := len(c.lead.next); n > 0 {
		s.LeadNext = c.lead.next[n-1]
	}
	if p := c.tr.Peer(); p != nil {
		s.Waiting = p.Conn().WaitingForSync()
	}
	if c.w != nil {
		s.Frame = c.w.Frame()
		s.Map = c.w.MapName()
		s.Units = slices.Clone(c.w.Units())
		s.Attacks = slices.Clone(c.w.Attacks())
	}
	s.Mismatches = copyRecords(c.drift.log.records)
	s.Pauses = slices.Clone(c.drift.log.pauses)
	s.Pending = copyPending(c.orders.pending)
	if c.role.kind == rolePlayer {
		s.Squad = c.nextSquad(c.role.seat)
	}
	s.NewRound, s.FrameDur = c.nextRound(), c.clock.frameDur
	s.ClassLink, s.ClassLinks = c.class.settings, c.stats.ClassLinks
	if c.role.spectate != nil {
		sp := *c.role.spectate
		s.Spectator = &sp
	}
	if c.class.err != nil {
		s.ClassLinkErr = c.class.err.Error()
	}
	s.Net, s.Game, s.Sync = c.counters(c.tr.Stats().Server)
	s.Chat, s.ChatTotal = c.chat.log.last(maxChatShown), c.chat.log.total
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
	g := GameReport{LeadTimeMillis: int64(c.lead.cur) * c.clock.frameDur.Milliseconds(), CommandsIssued: c.stats.CommandsIssued,
		CommandsLate: c.stats.CommandsLate, EnemiesSpawned: c.stats.EnemiesSpawned, EnemiesKilled: c.stats.EnemiesKilled,
		Reinforcements: c.stats.Squads, NewRounds: c.stats.Rounds, LeadTimeChanges: c.stats.LeadTimes, SendsRefused: c.stats.SendsRefused,
		BadMessages: c.stats.BadMessages, CommandsRefused: c.stats.CommandsRefused, DirectLinks: c.stats.DirectLinks, DirectRedials: c.stats.DirectRedials,
		DirectSilent: c.stats.DirectSilent, DirectRefused: c.stats.DirectRefused, DirectQuiet: c.stats.DirectQuiet,
		DirectStalled: c.stats.DirectStalled, DirectLost: c.stats.DirectLost, WorldCopies: c.stats.WorldCopies}
	sy := SyncReport{HashReports: c.stats.HashReports, MismatchedGroups: c.stats.MismatchedGroups, MismatchedUnits: c.stats.MismatchedUnits,
		MismatchedStates: c.stats.MismatchedStates, RealtimeResyncs: c.stats.RealtimeResyncs, StopWorldResyncs: c.stats.StopWorldResyncs, PauseMillis: append([]int64{}, c.stats.PauseMillis...)}
	sy.addResim(&c.drift.rw, c.w)
	return n, g, sy
}

// Report is the --stats report, built when asked (at exit): the counters, the recent world
// hashes and the latest chat lines with their counts. Owner loop only, or after it stopped.
func (c *Client) Report() Report {
	r := Report{Role: "client", Name: c.cfg.Name, PlayerID: c.cfg.PlayerID.String(), WorldHashes: map[string]string{}}
	if c.role.spectate != nil {
		r.Spectator = c.role.spectate.Number
	}
	if c.w != nil {
		r.Frame = c.w.Frame()
		r.WorldHashes = c.drift.hashes.report(r.Frame)
	}
	server := c.tr.Stats().Server
	if p := c.tr.Peer(); p != nil {
		server = p.Stats() // the live figures, not the latest published ones
	}
	r.Net, r.Game, r.Sync = c.counters(server)
	r.Rejected = c.rejected()
	r.Chat = ChatReport{Sent: c.chat.sent.last(maxChatReport), Received: c.chat.received.last(maxChatReport),
		SentTotal: c.chat.sent.total, ReceivedTotal: c.chat.received.total}
	return r
}

// StopBot makes a bot client stop playing (it keeps its connection and its world). Owner loop
// only.
func (c *Client) StopBot() { c.bot = nil }

// SetLate changes what the client does with a late event from now on, as Server.SetLate.
// Owner loop only.
func (c *Client) SetLate(mode LateMode) {
	c.drift.rw.mode = mode
	f := uint32(0)
	if c.w != nil {
		f = c.w.Frame()
	}
	c.drift.rw.reset(f)
}
