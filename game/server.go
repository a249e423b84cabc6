package game

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// Server is the authoritative host: it runs the world, relays commands and chat, spawns and
// kills enemies, sets the command lead time and checks every client's hashes. It is a session
// that does no I/O: datagrams come in through Handle, time through Tick, and NextDeadline
// says when to call again; what it sends goes to the transport.Writer it was made with. One
// goroutine owns it (game/hostloop runs it on a real socket, the tests over a simulated
// network in virtual time).
//
// Server composes the parts of the game, each of which owns its state: the seat table (who
// each connection is, seats.go), the command lead time (lead.go), the enemies (enemies.go),
// the reinforcements (reinforce.go), the rounds (round.go), the class link (classlink.go),
// the spectators' shared limits (spectate.go), the direct links' keys (p2p_server.go), and
// drift checking and repair (drift_server.go). What it keeps of its own is the frame loop: the
// world, its schedule of events and the clock of its frames.
type Server struct {
	cfg ServerConfig
	tr  *transport.Server
	rng *rand.Rand // seeded: the enemies' places and kinds, the seeds of new rounds

	w     *world.World // nil before the game starts
	sched *schedule    // the events every host applies at their frames (schedule.go)
	clock frameClock

	lead     leadPolicy
	seats    seatTable
	audience spectatorRoom
	links    serverLinks
	enemies  enemyStream
	squads   squadPlan
	round    roundPlan
	class    classLink
	drift    serverDrift
	hook     frameHook // a lesson's stage, if one is attached (stage.go)

	stats ServerStats
	snap  atomic.Pointer[ServerSnapshot]
	trace *tracer
	buf   []byte // the encoding of the message being sent
}

// frameClock is when the server's frames run.
type frameClock struct {
	begun     bool      // the session's clock started (begin)
	running   bool      // the game started
	startAt   time.Time // when the start countdown ends (zero: it is not counting down)
	nextFrame time.Time // when the next frame is due
}

// NewServer returns a server session that sends its datagrams to out. The error is a map or
// seed the world refuses, or more bots than seats.
func NewServer(cfg ServerConfig, out transport.Writer) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Places.Check(); err != nil {
		return nil, err
	}
	if _, err := world.NewWorld(cfg.Map, cfg.Seed); err != nil {
		return nil, err
	}
	lead, err := cfg.Orders.Lead.rounded(cfg.Frame)
	if err != nil {
		return nil, err
	}
	if cfg.Orders.Direct > DirectOff {
		return nil, fmt.Errorf("game: direct links %v: want auto, on or off", cfg.Orders.Direct)
	}
	s := &Server{
		links:   serverLinks{on: cfg.Orders.Direct == DirectOn},
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(cfg.Seed, 0x5e77e5)),
		sched:   newSchedule(),
		lead:    leadPolicy{leadTimes: leadTimes{cur: minLeadFrames}, setting: lead, teacher: teacherLead{asked: lead}},
		round:   roundPlan{current: 1},
		enemies: enemyStream{nextID: world.FirstEnemyID, killSent: make(map[uint32]bool)},
		drift:   newServerDrift(cfg.Late),
		trace:   newTracer(cfg.Trace),
	}
	if _, err := io.ReadFull(cfg.Transport.Rand, s.links.secret[:]); err != nil {
		return nil, fmt.Errorf("game: no randomness for the link secret: %w", err)
	}
	for i := range cfg.Bots {
		if err := s.seatBot(i); err != nil {
			return nil, err
		}
	}
	tc := cfg.Transport
	tc.OnConnect = s.onConnect
	tc.OnDisconnect = s.onDisconnect
	tc.OnMessage = s.onMessage
	tc.Admit = s.admits
	// The lead takes each player's round trip from the acknowledgements of what the server
	// sends it (pathRTT); a connection that carries nothing, a spectator's idle one or a game
	// not started, pings as any does.
	tc.PingIdleOnly = true
	s.audience.chatOff = cfg.SpectatorChatOff
	sizeTransport(&tc, cfg.Places.withDefaults())
	if tc.Logger == nil {
		tc.Logger = cfg.Logger
	}
	s.tr = transport.NewServer(tc, out)
	s.takeLeadBeforeStart()
	s.snap.Store(&ServerSnapshot{})
	return s, nil
}

// Transport gives access to the transport (its Stats is safe from any goroutine).
func (s *Server) Transport() *transport.Server { return s.tr }

// StopBots makes the server-side bots stop playing (their units stay). Owner loop only.
func (s *Server) StopBots() {
	for _, st := range s.seats.players {
		if st != nil && st.bot != nil {
			st.bot.quiet = true
		}
	}
}

// StopSpawning stops new enemies (the ones on the map stay, and fallen ones are still killed).
// Owner loop only.
func (s *Server) StopSpawning() { s.enemies.noSpawns = true }

// Handle takes one datagram that arrived at now.
func (s *Server) Handle(now time.Time, d transport.Datagram) {
	s.begin(now)
	s.tr.Handle(now, d)
	s.resimulate()
}

// begin starts the session's clock at its first call: the start countdown of a server with
// bots only, and the trace's time origin.
func (s *Server) begin(now time.Time) {
	if s.clock.begun {
		return
	}
	s.clock.begun = true
	s.trace.begin(now)
	if s.cfg.Bots > 0 && s.cfg.MinPlayers == 0 {
		s.clock.startAt = now.Add(s.cfg.StartDelay)
	}
}

// Tick does what time has made due by now: the frames, held seats that expire, the outboxes,
// the transport's resends, keepalives and timeouts, and the snapshot.
func (s *Server) Tick(now time.Time) {
	s.begin(now)
	s.frames(now)
	s.freeHeldSeats(now)
	s.expireClaims(now)
	s.flushClassLink(now)
	s.flushLead(now)
	s.flushSpectateNotices(now)
	s.flushOutboxes(now) // also while paused or before the start: a Pause may be waiting there
	s.tr.Tick(now)
	s.publish(now, false)
}

// NextDeadline is when Tick next has work if no datagram arrives.
func (s *Server) NextDeadline(now time.Time) time.Time {
	next := transport.Earliest(transport.Earliest(s.tr.NextTick(now), s.nextClaimDeadline()), s.nextClassLink())
	next = transport.Earliest(next, s.nextSpectateNotice())
	next = transport.Earliest(next, s.nextLead())
	if s.clock.running {
		next = transport.Earliest(next, s.clock.nextFrame)
	}
	if !s.clock.running && !s.clock.startAt.IsZero() {
		next = transport.Earliest(next, s.clock.startAt)
	}
	next = transport.Earliest(next, s.drift.nextDeadline())
	next = transport.Earliest(next, s.nextHoldEnd())
	if old := s.snap.Load(); old != nil {
		next = transport.Earliest(next, old.At.Add(snapshotEvery))
	}
	return next
}

// Intent marks that something outside the game (the teacher's screen) changed the session:
// the next snapshot comes at once.
func (s *Server) Intent(now time.Time) { s.publish(now, true) }

// Shutdown tells every client the server is shutting down, flushes the trace and publishes a
// last snapshot. The session does nothing after it.
func (s *Server) Shutdown(now time.Time) {
	s.tr.Shutdown(now)
	s.trace.flush()
	s.publish(now, true)
}

// frames steps the world for every frame whose time has come.
func (s *Server) frames(now time.Time) {
	c := &s.clock
	if !c.running {
		if !c.startAt.IsZero() && !now.Before(c.startAt) {
			s.start(now)
		}
		return
	}
	if p := s.drift.pause; p != nil && !s.drift.resumeAt.IsZero() && !now.Before(s.drift.resumeAt) {
		s.resume(now)
	}
	s.pauseOverdue(now)
	for n := 0; !now.Before(c.nextFrame) && n < maxCatchUpPerTick; n++ {
		if p := s.drift.pause; p != nil && s.w.Frame() >= p.frame {
			if p.reached.IsZero() {
				s.reachPause(now)
			}
			c.nextFrame = now.Add(s.cfg.Frame)
			return
		}
		// A step that starts a whole frame period or more after its due time missed its
		// deadline: the host could not keep up (in virtual time this never happens).
		late := now.Sub(c.nextFrame)
		if late >= s.cfg.Frame {
			s.stats.FramesLate++
		}
		s.stats.MaxFrameLate = max(s.stats.MaxFrameLate, late)
		s.step(now)
		c.nextFrame = c.nextFrame.Add(s.cfg.Frame)
	}
	if now.Sub(c.nextFrame) > 10*s.cfg.Frame {
		c.nextFrame = now // far behind (the machine stalled): do not try to catch up forever
	}
}

// start begins the game: every seated player gets units, every connected client StartGame.
func (s *Server) start(now time.Time) {
	w, err := world.NewWorld(s.cfg.Map, s.cfg.Seed)
	if err != nil {
		s.cfg.Logger.Error("start", "err", err)
		return
	}
	s.w = w
	for _, st := range s.seats.players {
		if st != nil && (st.bot != nil || st.peer != nil) {
			if _, err := w.AddPlayerUnits(st.idx); err != nil {
				s.cfg.Logger.Error("units", "seat", st.idx, "err", err)
			}
			s.seats.inGame[st.idx] = true
		}
	}
	s.clock.running = true
	// The first lead is the teacher's, or comes from what the handshakes and pings measured so
	// far; the policy revises it once a second from then on.
	s.lead.cur, s.lead.fixed, s.lead.lastChange = s.leadWanted(), s.lead.setting != LeadAuto, now
	s.drift.rw.reset(0)
	s.clock.nextFrame = now
	s.enemies.nextSpawn = now.Add(s.cfg.EnemyEvery)
	for d := range s.seats.connected {
		s.sendStart(d, now, false)
	}
	s.event(now, "game started", "map", s.cfg.Map, "seats", s.seats.inGameList())
}

// sendStart tells a client the game is on: StartGame depends on every PlayerInfo sent on its
// connection, so it never starts without knowing every player. A client that arrives after the
// start (snapshot) also gets the world as it is now, the events not yet run, and the pause in
// progress if there is one.
func (s *Server) sendStart(d *downlink, now time.Time, snapshot bool) {
	d.started, d.startFrame = true, s.w.Frame()
	after := make([]*depgraph.Dependency, 0, world.MaxPlayers)
	for i := range d.deps.infos {
		after = append(after, &d.deps.infos[i])
	}
	s.sendAfter(d, now, &StartGame{Map: s.cfg.Map, Seed: s.cfg.Seed, Frame: s.w.Frame(), FrameMillis: uint32(s.cfg.Frame / time.Millisecond),
		LeadFrames: s.lead.cur, Seats: s.seats.inGameList(), LeadFixed: s.lead.fixed}, after, &d.deps.start)
	if !snapshot {
		return
	}
	s.sendSnapshot(d, now)
	if s.drift.pause != nil {
		s.sendPause(d, now, []*depgraph.Dependency{&d.deps.start})
	}
	d.joinBacklog = d.peer.Conn().Pending() + d.out.waiting()
}

// sendSnapshot sends a client the whole world (joining or coming back mid-game), after its
// StartGame, and the events still to run.
func (s *Server) sendSnapshot(d *downlink, now time.Time) {
	s.sendWorld(d, now, &d.deps.start) // after StartGame: a batch that ran first would find no world to go into
	for _, e := range s.sched.all() {
		s.sendEvent(d, now, &e)
	}
	for _, lt := range s.lead.next {
		s.sendOn(d, now, &d.deps.lead, &lt)
	}
}

// sendEvent sends d a scheduled event: a client that joins gets the ones still to run.
func (s *Server) sendEvent(d *downlink, now time.Time, e *event) {
	switch e.kind {
	case evCommand:
		s.send(d, now, e.cmd)
	case evSpawn:
		s.sendSpawn(d, now, e.spawn)
	case evKill:
		s.sendKill(d, now, e.id, e.frame)
	case evUpdate:
		s.send(d, now, e.update)
	case evReinforce:
		s.sendAfter(d, now, e.reinforce, d.afterNames(e.reinforce.Seats), nil)
	case evRound:
		s.sendAfter(d, now, e.round, d.afterNames(e.round.Seats), nil)
	}
}

// step runs one frame: due events, bots, enemies, the world step.
func (s *Server) step(now time.Time) {
	f := s.w.Frame()
	s.lead.advance(f)
	s.beginFrame(false)
	for _, st := range s.seats.players {
		if st != nil && st.bot != nil && s.seats.inGame[st.idx] {
			if c := st.bot.Think(s.w, f+s.lead.cur); c != nil {
				st.nextCmdID++
				c.Seat, c.ID = st.idx, st.nextCmdID
				s.command(now, c, nil)
			}
			if line, ok := st.bot.Chat(f); ok {
				s.stats.chatSent.add(line, maxChatReport)
				s.chat(now, st.idx, line)
			}
		}
	}
	armies := s.spawnAndKill(now, f)
	s.reinforce(now, f, &armies)
	s.endFrame()
	s.stats.Frame = s.w.Frame()
	s.stats.lastStepAt = now
	s.checkEarly(now)
	if f%frameSyncEvery == 0 {
		fs := &FrameSync{Frame: s.w.Frame(), ServerUnixNanos: now.UnixNano()}
		for d := range s.seats.following {
			s.send(d, now, fs)
		}
		s.updateLead(now)
		s.sizeWindow()
		s.updateDirect(now)
	}
	s.flushOutboxes(now)
}

// beginFrame is the first half of a frame, the part a re-run repeats (resim.go): a copy of
// the world kept for re-runs, the frame's events, and the hash history. A late event that no
// re-run covers is fast-forwarded.
func (s *Server) beginFrame(rerun bool) {
	f := s.w.Frame()
	s.drift.rw.keep(s.w)
	for _, e := range s.sched.runDue(s.w, f) {
		s.countRefused(e, rerun)
		switch e.kind {
		case evKill:
			delete(s.enemies.killSent, e.id) // the enemy is gone: nothing left to remember (a bound)
		case evReinforce:
			s.squadLanded(e.reinforce)
		case evRound:
			s.roundStarted(e.round)
		case evCommand:
			s.drift.ordered(e.cmd, e.frame)
		}
		if e.frame < f && !rerun { // a re-run fast-forwards it again
			s.stats.CommandsLate++
		}
	}
	s.drift.hist.record(s.w, s.sched.inputDigests(f))
}

// countRefused counts a command the world refused when it ran (a command for units that are
// not its seat's, or gone): the first time only, not in a re-run of its frame.
func (s *Server) countRefused(e dueEvent, rerun bool) {
	if e.err == nil {
		return
	}
	s.cfg.Logger.Debug("event refused", "frame", e.frame, "kind", e.kind, "err", e.err)
	if e.kind == evCommand && !rerun {
		s.stats.CommandsRefused++
	}
}

// endFrame is the second half of a frame: the world's step and the world hash log.
func (s *Server) endFrame() {
	s.w.Step()
	s.recordWorldHash()
}

// resimulate runs again, exactly, the frames that late commands changed (resim.go). Only the
// world and its hash history run again: the bots' orders, the spawns and the kills of those
// frames went out already, and are events of their own.
func (s *Server) resimulate() {
	if !s.clock.running || s.w == nil {
		return
	}
	s.drift.rw.rerun(s.w, s.sched, func(w *world.World) { s.w = w }, func() { s.beginFrame(true); s.endFrame() })
}

// command takes a command from a player (from the network, or a server-side bot), schedules
// it and relays it to every client except its sender, and those it went to directly
// (p2p_server.go).
func (s *Server) command(now time.Time, c *Command, from *seat) {
	if !s.sched.add(event{frame: c.Frame, kind: evCommand, seat: c.Seat, id: c.ID, cmd: c}) {
		return // it came twice, or for a frame before the last stop-the-world re-sync
	}
	if s.clock.running {
		s.drift.rw.late(evCommand, c.Frame, s.w.Frame())
	}
	s.stats.CommandsRelayed++
	if s.clock.running && c.Frame < s.w.Frame() {
		s.stats.CommandsLateAtServer++
	}
	for d := range s.seats.following {
		switch {
		case from != nil && d == &from.downlink:
		case s.sentDirect(now, c, d):
			s.stats.RelaysSaved++
		default:
			s.send(d, now, c)
		}
	}
}

// admits is the transport's Admit. It lets in every connection the transport has room for
// (sizeTransport counts that room), because onConnect answers each in words the player
// reads: a seat, a claim on a seat (identity.go), a place among the spectators, or a Kick
// whose text says why not, "the game is full: 8 players and 32 spectators". A Denied would say
// only "server full", and a client would not know whether to try again as a spectator.
func (s *Server) admits(uuid.UUID, time.Time) bool { return true }

// playerMessage is the player's step (seats.go): what a seated player's connection may send.
func (s *Server) playerMessage(st *seat, now time.Time, m *message.Message, msg Msg) {
	if m.Guaranteed {
		s.trace.executed(now, s.frameNow(), st.peer.Addr().String(), m, msg)
	}
	switch v := msg.(type) {
	case *Command:
		if v.Seat != st.idx {
			s.stats.BadMessages++ // a player commands only its own seat
			return
		}
		if !s.admitCommand(now, st, v) {
			return // for a frame it cannot run at, or too fast (commands.go)
		}
		s.command(now, v, st)
	case *Chat:
		if v.Seat != st.idx {
			s.stats.BadMessages++
			return
		}
		if !st.chatRate.take(now, serverChat) {
			s.stats.ChatRefused++ // faster than an honest client sends (chat.go)
			return
		}
		s.chat(now, st.idx, v.Text)
	case *Peers:
		s.takesDirectLinks(now, st, v)
	case *LinkLost:
		s.linkLost(now, st, v)
	case *PingSummary:
		st.pings.take(v)
	case *HashReport:
		s.hashReport(now, st, v)
	case *UnitHashes:
		s.unitHashes(now, st, v)
	case *WorldHashes:
		s.worldHashes(now, st, v)
	case *BatchApplied:
		s.batchApplied(now, st, v)
	default:
		s.stats.BadMessages++
	}
}

func (s *Server) frameNow() uint32 {
	if s.w == nil {
		return 0
	}
	return s.w.Frame()
}
