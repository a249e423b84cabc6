package game

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// downlink is the server's side of one client's connection to the game, a player's or a
// spectator's (spectate.go): the connection, and the dependency handles of what the server
// sends on it. What goes to every client goes to every downlink that follows the game
// (Server.following), with that connection's handles.
type downlink struct {
	peer    *transport.Peer
	started bool   // this client was sent StartGame
	who     string // for the log: "seat 2", "spectator 5"

	// per-connection dependency handles (server → this client)
	infoDeps [world.MaxPlayers]depgraph.Dependency
	startDep depgraph.Dependency
	// Relayed chat lines: a chain per origin seat, and one per origin spectator.
	chat          [world.MaxPlayers]message.Chain
	spectatorChat [MaxSpectators]message.Chain
	leadChain     message.Chain
	classChain    message.Chain // the ClassLinks sent on this connection (classlink.go)
	spawnDeps     map[uint32]*depgraph.Dependency

	out        outbox       // messages refused by back-pressure, sent again later
	pauseState *clientPause // during a stop-the-world re-sync

	// reportRate: how fast this client's hash reports come; early: its reports of frames the
	// server has not settled yet, waiting (server_sync.go).
	reportRate rateBucket
	early      []*HashReport
}

func (d *downlink) link() *downlink { return d }

// linked is a seat or a spectator: whatever has a downlink.
type linked interface{ link() *downlink }

// seat is one player's place in the game, on the server.
type seat struct {
	downlink
	idx       uint8
	player    uuid.UUID
	secret    Secret // proves player (identity.go); a bot's is zero
	name      string
	bot       *Bot // a server-side bot plays this seat
	nextCmdID uint32
	chatRate  rateBucket // how fast its lines come (chat.go)

	// peersChain: each Peers sent on this connection replaces the one before, so it depends
	// on it (a list that overtook a newer one would bring back a player who left).
	peersChain message.Chain

	reportedRTT  time.Duration // from the client's PingSummary
	reportedLoss uint32        // per mille, from the client's PingSummary
	lastRequest  *HashRequest  // the drill-down waiting for its answer
	pauseMisses  int           // stop-the-world rounds in a row this client did not finish in time
	stoppedWorld time.Time     // when this client's report last made the server stop the world
	repairedAt   time.Time     // when this client's report last led to a real-time re-sync
	direct       bool          // the client takes direct links (its Peers), at the address it connects from
	peersSent    []PeerAddr    // the Peers list this client has last been sent
	left         time.Time     // when its player went away (the seat is held SeatHold from then)

	// relayAgain[o]: until then, seat o's commands are relayed to this client even when o
	// sent them over its direct link (the client's LinkLost); lostRate bounds its LinkLosts.
	relayAgain [world.MaxPlayers]time.Time
	lostRate   rateBucket

	// For the player table only (SeatInfo): the latest hash check of this player's reports,
	// and why its connection ended (kept until it comes back).
	lastHash string
	gone     string
}

// clientPause is one client's part in a stop-the-world re-sync.
type clientPause struct {
	pauseDep  depgraph.Dependency
	hashes    bool // its WorldHashes arrived
	sent      uint32
	applied   map[uint32]bool
	batchDeps []*depgraph.Dependency
	dropped   bool // it missed the pause's deadline: the round went on without it
}

// pause is a stop-the-world re-sync in progress.
type pause struct {
	frame    uint32
	reached  time.Time // when the server's world reached the frame (zero before)
	deadline time.Time // when the clients still missing are dropped from the round
	known    map[uint32]bool
}

// Server is the authoritative host: it runs the world, relays commands and chat, spawns and
// kills enemies, sets the lead time and checks every client's unit hashes. It is a session
// that does no I/O: datagrams come in through Handle, time through Tick, and NextDeadline
// says when to call again; what it sends goes to the transport.Writer it was made with. One
// goroutine owns it (game/hostloop runs it on a real socket, the tests over a simulated
// network in virtual time).
type Server struct {
	cfg ServerConfig
	tr  *transport.Server
	w   *world.World
	rng *rand.Rand

	sched *schedule
	hist  hashHistory
	seats [world.MaxPlayers]*seat // the one seat table: nil is a free seat
	// spectators watch beyond the seats (spectate.go): nil is a free place. spectatorChatOff:
	// the teacher turned their chat off.
	spectators       [MaxSpectators]*spectator
	spectatorChatOff bool
	// spectatorsChat is the one rate all the spectators' lines share (chat.go), on top of
	// each spectator's own.
	spectatorsChat rateBucket
	// claims are connections with a seated player's id that have not proved its secret yet,
	// and linkSecret derives the keys of the direct links (identity.go).
	claims     []*claim
	linkSecret [32]byte
	// inGame: the seat was taken when the game started, so its units are in the world. It
	// belongs to the seat's place, not its player: whoever takes the seat later plays them.
	inGame    [world.MaxPlayers]bool
	begun     bool     // the session's clock started (begin)
	rw        rewinder // copies of the world for re-running late commands
	running   bool
	startAt   time.Time
	nextFrame time.Time
	lead      uint32
	leadNext  []LeadTime // announced changes not yet in force
	lastLead  time.Time

	nextEnemyID uint32
	nextSpawn   time.Time
	noSpawns    bool
	killSent    map[uint32]bool // fallen enemies whose kill is scheduled, until it runs
	doomed      []doomed        // enemies spawned to be killed at a frame (teach.go)
	// squadAt is the frame each seat's announced squad lands at (reinforce.go); a frame
	// passed: none on its way.
	squadAt [world.MaxPlayers]uint32
	class   classLink // the link setting the teacher gave the class (classlink.go)
	// round is the round being played (1 for the first), roundNext the one announced and not
	// started yet (round.go).
	round     uint32
	roundNext *NewRound

	fixAt   map[uint32]uint32 // unit id → the frame its latest real-time repair takes effect
	lastFix uint32            // the frame of the latest real-time repair

	pause         *pause
	resumeAt      time.Time
	pendingHashes []pendingHashes // WorldHashes that came before the server reached the pause

	// The debug panel's logs (synclog.go): every mismatch found in any player's reports, and
	// every stop-the-world pause.
	syncLog  []SyncRecord
	pauseLog []PauseRecord

	stats   ServerStats
	snap    atomic.Pointer[ServerSnapshot]
	trace   *tracer
	scratch []event
	buf     []byte
}

// NewServer returns a server session that sends its datagrams to out. The error is a map or
// seed the world refuses, or more bots than seats.
func NewServer(cfg ServerConfig, out transport.Writer) (*Server, error) {
	cfg = cfg.withDefaults()
	if _, err := world.NewWorld(cfg.Map, cfg.Seed); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:         cfg,
		rng:         rand.New(rand.NewPCG(cfg.Seed, 0x5e77e5)),
		sched:       newSchedule(),
		lead:        minLeadFrames,
		round:       1,
		nextEnemyID: world.FirstEnemyID,
		killSent:    make(map[uint32]bool),
		fixAt:       make(map[uint32]uint32),
		trace:       newTracer(cfg.Trace),
	}
	s.rw.mode = cfg.Late
	if _, err := io.ReadFull(cfg.Transport.Rand, s.linkSecret[:]); err != nil {
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
	s.spectatorChatOff = cfg.SpectatorChatOff
	sizeTransport(&tc)
	if tc.Logger == nil {
		tc.Logger = cfg.Logger
	}
	s.tr = transport.NewServer(tc, out)
	s.snap.Store(&ServerSnapshot{})
	return s, nil
}

// Transport gives access to the transport (its Stats is safe from any goroutine).
func (s *Server) Transport() *transport.Server { return s.tr }

func (s *Server) seatBot(i int) error {
	idx := -1
	for j, st := range s.seats {
		if st == nil {
			idx = j
			break
		}
	}
	if idx < 0 {
		return errors.New("game: no free seat for a bot")
	}
	name := botName(i)
	st := &seat{idx: uint8(idx), player: uuid.NewSHA1(uuid.NameSpaceOID, []byte(name)), name: name}
	st.bot = NewBot(st.idx, name, s.cfg.Seed+uint64(idx)*7919)
	s.seats[idx] = st
	return nil
}

// StopBots makes the server-side bots stop playing (their units stay). Owner loop only.
func (s *Server) StopBots() {
	for _, st := range s.seats {
		if st != nil && st.bot != nil {
			st.bot.quiet = true
		}
	}
}

// StopSpawning stops new enemies (the ones on the map stay, and fallen ones are still killed).
// Owner loop only.
func (s *Server) StopSpawning() { s.noSpawns = true }

// Handle takes one datagram that arrived at now.
func (s *Server) Handle(now time.Time, d transport.Datagram) {
	s.begin(now)
	s.tr.Handle(now, d)
	s.resimulate()
}

// begin starts the session's clock at its first call: the start countdown of a server with
// bots only, and the trace's time origin.
func (s *Server) begin(now time.Time) {
	if s.begun {
		return
	}
	s.begun = true
	s.trace.begin(now)
	if s.cfg.Bots > 0 && s.cfg.MinPlayers == 0 {
		s.startAt = now.Add(s.cfg.StartDelay)
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
	s.flushSpectateNotices(now)
	s.flushOutboxes(now) // also while paused or before the start: a Pause may be waiting there
	s.tr.Tick(now)
	s.publish(now, false)
}

// NextDeadline is when Tick next has work if no datagram arrives.
func (s *Server) NextDeadline(now time.Time) time.Time {
	next := transport.Earliest(transport.Earliest(s.tr.NextTick(now), s.nextClaimDeadline()), s.nextClassLink())
	next = transport.Earliest(next, s.nextSpectateNotice())
	if s.running {
		next = transport.Earliest(next, s.nextFrame)
	}
	if !s.running && !s.startAt.IsZero() {
		next = transport.Earliest(next, s.startAt)
	}
	if !s.resumeAt.IsZero() {
		next = transport.Earliest(next, s.resumeAt)
	}
	if p := s.pause; p != nil && !p.deadline.IsZero() && s.resumeAt.IsZero() {
		next = transport.Earliest(next, p.deadline)
	}
	for _, st := range s.seats {
		if st != nil && st.bot == nil && st.peer == nil && !st.left.IsZero() {
			next = transport.Earliest(next, st.left.Add(s.cfg.SeatHold))
		}
	}
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
	if !s.running {
		if !s.startAt.IsZero() && !now.Before(s.startAt) {
			s.start(now)
		}
		return
	}
	if s.pause != nil && !s.resumeAt.IsZero() && !now.Before(s.resumeAt) {
		s.resume(now)
	}
	s.pauseOverdue(now)
	for n := 0; !now.Before(s.nextFrame) && n < maxCatchUpPerTick; n++ {
		if s.pause != nil && s.w.Frame() >= s.pause.frame {
			if s.pause.reached.IsZero() {
				s.reachPause(now)
			}
			s.nextFrame = now.Add(s.cfg.Frame)
			return
		}
		// A step that starts a whole frame period or more after its due time missed its
		// deadline: the host could not keep up (in virtual time this never happens).
		late := now.Sub(s.nextFrame)
		if late >= s.cfg.Frame {
			s.stats.FramesLate++
		}
		s.stats.MaxFrameLate = max(s.stats.MaxFrameLate, late)
		s.step(now)
		s.nextFrame = s.nextFrame.Add(s.cfg.Frame)
	}
	if now.Sub(s.nextFrame) > 10*s.cfg.Frame {
		s.nextFrame = now // far behind (the machine stalled): do not try to catch up forever
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
	for _, st := range s.seats {
		if st != nil && (st.bot != nil || st.peer != nil) {
			if _, err := w.AddPlayerUnits(st.idx); err != nil {
				s.cfg.Logger.Error("units", "seat", st.idx, "err", err)
			}
			s.inGame[st.idx] = true
		}
	}
	s.running = true
	// The first lead comes from what the handshakes and pings measured so far; it is revised
	// once a second from then on.
	s.lead, s.lastLead = s.wantLead(), now
	s.rw.reset(0)
	s.nextFrame = now
	s.nextSpawn = now.Add(s.cfg.EnemyEvery)
	for d := range s.connected {
		s.sendStart(d, now, false)
	}
	s.event(now, "game started", "map", s.cfg.Map, "seats", s.seatList())
}

func (s *Server) seatList() []uint8 {
	var out []uint8
	for _, st := range s.seats {
		if st != nil && s.inGame[st.idx] {
			out = append(out, st.idx)
		}
	}
	return out
}

// sendStart tells a client the game is on: StartGame depends on every PlayerInfo sent on its
// connection, so it never starts without knowing every player. A client that arrives after the
// start (snapshot) also gets the world as it is now, the events not yet run, and the pause in
// progress if there is one.
func (s *Server) sendStart(st *downlink, now time.Time, snapshot bool) {
	st.started = true
	deps := make([]*depgraph.Dependency, 0, world.MaxPlayers)
	for i := range st.infoDeps {
		deps = append(deps, &st.infoDeps[i])
	}
	f := s.w.Frame()
	s.send(st, now, &StartGame{Map: s.cfg.Map, Seed: s.cfg.Seed, Frame: f, FrameMillis: uint32(s.cfg.Frame / time.Millisecond),
		LeadFrames: s.lead, Seats: s.seatList()}, deps, &st.startDep, false)
	if !snapshot {
		return
	}
	s.sendSnapshot(st, now)
	if s.pause != nil {
		st.pauseState = &clientPause{applied: make(map[uint32]bool)}
		s.send(st, now, &Pause{Frame: s.pause.frame}, []*depgraph.Dependency{&st.startDep}, &st.pauseState.pauseDep, true)
	}
}

// connected yields the downlink of every client connected to the game, a seat's (in seat
// order) then a spectator's, whether or not it was sent the game yet.
func (s *Server) connected(yield func(*downlink) bool) {
	for _, st := range s.seats {
		if st != nil && st.peer != nil && !yield(&st.downlink) {
			return
		}
	}
	for _, sp := range s.spectators {
		if sp != nil && sp.peer != nil && !yield(&sp.downlink) {
			return
		}
	}
}

// following yields the downlink of every client that follows the game (it was sent
// StartGame): everything that changes the world goes to each of them.
func (s *Server) following(yield func(*downlink) bool) {
	for d := range s.connected {
		if d.started && !yield(d) {
			return
		}
	}
}

// sendSnapshot sends a client the whole world (joining or coming back mid-game), after its
// StartGame, and the events still to run.
func (s *Server) sendSnapshot(st *downlink, now time.Time) {
	s.sendWorld(st, now, &st.startDep) // after StartGame: a batch that ran first would find no world to go into
	for _, e := range s.sched.all() {
		s.sendEvent(st, now, &e)
	}
	for _, lt := range s.leadNext {
		s.send(st, now, &lt, []*depgraph.Dependency{st.leadChain.Last()}, st.leadChain.Last(), false)
	}
}

// sendWorld sends d the server's whole world at its frame, cut into ResyncBatches of
// resyncBatchUnits units (in one message, a large world would pass the message layer's
// largest), each after after (nil: nothing) and after the batch before it: a chain, so that
// the last batch, which carries the attacks in flight and the world's state and so completes
// the world, runs on the client only once every unit is in place.
func (s *Server) sendWorld(d *downlink, now time.Time, after *depgraph.Dependency) {
	units := s.w.Units()
	state, err := s.w.AppendState(nil)
	if err != nil {
		// The client then waits for a state that never comes; say why.
		s.cfg.Logger.Error("the world's state cannot be sent", "to", d.who, "err", err)
	}
	prev := new(depgraph.Dependency) // the batch before: none yet
	for i := 0; i == 0 || i < len(units); i += resyncBatchUnits {
		b := &ResyncBatch{Frame: s.w.Frame(), Batch: uint32(i / resyncBatchUnits), Units: slices.Clone(units[i:min(i+resyncBatchUnits, len(units))])}
		if i+resyncBatchUnits >= len(units) {
			b.HasAttacks, b.Attacks, b.State = true, slices.Clone(s.w.Attacks()), state
		}
		deps := []*depgraph.Dependency{prev}
		if after != nil {
			deps = append(deps, after)
		}
		s.send(d, now, b, deps, prev, false)
	}
}

func (s *Server) sendEvent(st *downlink, now time.Time, e *event) {
	switch e.kind {
	case evCommand:
		s.send(st, now, e.cmd, nil, nil, false)
	case evSpawn:
		s.sendSpawn(st, now, e.spawn)
	case evKill:
		s.sendKill(st, now, e.id, e.frame)
	case evUpdate:
		s.send(st, now, e.update, nil, nil, false)
	case evReinforce:
		s.send(st, now, e.reinforce, nil, nil, false)
	case evRound:
		s.send(st, now, e.round, nil, nil, false)
	}
}

// step runs one frame: due events, bots, enemies, the world step.
func (s *Server) step(now time.Time) {
	f := s.w.Frame()
	for len(s.leadNext) > 0 && s.leadNext[0].Frame <= f {
		s.lead = s.leadNext[0].LeadFrames
		s.leadNext = s.leadNext[1:]
	}
	s.beginFrame()
	for _, st := range s.seats {
		if st != nil && st.bot != nil && s.inGame[st.idx] {
			if c := st.bot.Think(s.w, f+s.lead); c != nil {
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
	armies := s.enemies(now, f)
	s.reinforce(now, f, &armies)
	s.endFrame()
	s.stats.Frame = s.w.Frame()
	s.stats.lastStepAt = now
	s.checkEarly(now)
	if f%frameSyncEvery == 0 {
		fs := &FrameSync{Frame: s.w.Frame(), ServerUnixNanos: now.UnixNano()}
		for d := range s.following {
			s.sendUnreliable(d, fs)
		}
		s.updateLead(now)
	}
	s.flushOutboxes(now)
}

// beginFrame is the first half of a frame, the part a re-run repeats (resim.go): a copy of
// the world kept for re-runs, the frame's events, and the hash history. A late event that no
// re-run covers is fast-forwarded.
func (s *Server) beginFrame() {
	f := s.w.Frame()
	s.rw.keep(s.w)
	s.scratch = s.sched.due(f, s.scratch[:0])
	for i := range s.scratch {
		e := &s.scratch[i]
		if err := apply(s.w, e); err != nil {
			s.cfg.Logger.Debug("event refused", "frame", f, "kind", e.kind, "err", err)
		}
		switch e.kind {
		case evKill:
			delete(s.killSent, e.id) // the enemy is gone: nothing left to remember (a bound)
		case evReinforce:
			s.squadLanded(e.reinforce)
		case evRound:
			s.roundStarted(e.round)
		}
		if e.frame < f {
			s.stats.CommandsLate++
			s.w.FastForward(unitsOf(e), int(f-e.frame))
		}
	}
	s.hist.record(s.w)
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
	if !s.running || s.w == nil {
		return
	}
	s.rw.rerun(s.w, s.sched, func(w *world.World) { s.w = w }, func() { s.beginFrame(); s.endFrame() })
}

// enemies spawns an enemy now and then and kills the ones that fell. It returns the number of
// units each seat has, counted in the same pass over the units, for reinforce.
func (s *Server) enemies(now time.Time, f uint32) (armies [world.MaxPlayers]int) {
	live := 0
	for _, u := range s.w.Units() {
		if !u.IsEnemy() {
			armies[u.Owner]++
			continue
		}
		if u.Dead {
			if !s.killSent[u.ID] {
				s.killSent[u.ID] = true
				s.scheduleKill(now, u.ID, f+s.lead+1)
			}
			continue
		}
		live++
	}
	s.killDoomed(now, f)
	if s.noSpawns || now.Before(s.nextSpawn) || live >= s.cfg.MaxEnemies {
		return armies
	}
	s.nextSpawn = now.Add(s.cfg.EnemyEvery)
	s.spawnEnemy(now, f)
	return armies
}

// enemyKinds are the unit kinds the server spawns as enemies: those no player starts with.
func enemyKinds() []uint8 {
	var out []uint8
	squad := world.StartingSquad()
	for i, k := range world.Kinds() {
		if !slices.Contains(squad, k.Name) {
			out = append(out, uint8(i))
		}
	}
	return out
}

func (s *Server) sendSpawn(st *downlink, now time.Time, sp *SpawnEnemy) {
	if st.spawnDeps == nil {
		st.spawnDeps = make(map[uint32]*depgraph.Dependency)
	}
	d := new(depgraph.Dependency)
	st.spawnDeps[sp.ID] = d
	s.send(st, now, sp, nil, d, false)
}

// scheduleKill removes a fallen enemy at frame on every host. The kill depends on the spawn on
// each connection: no host can kill an enemy it never spawned.
func (s *Server) scheduleKill(now time.Time, id, frame uint32) {
	s.stats.EnemiesKilled++
	s.event(now, "kill", "enemy", id, "at frame", frame)
	s.sched.add(event{frame: frame, kind: evKill, id: id})
	for d := range s.following {
		s.sendKill(d, now, id, frame)
	}
}

func (s *Server) sendKill(st *downlink, now time.Time, id, frame uint32) {
	var deps []*depgraph.Dependency
	if d := st.spawnDeps[id]; d != nil {
		deps = []*depgraph.Dependency{d}
		delete(st.spawnDeps, id)
	}
	s.send(st, now, &KillEnemy{Frame: frame, ID: id}, deps, nil, false)
}

// command takes a command from a player (from the network, or a server-side bot), schedules
// it and relays it to every client except its sender.
func (s *Server) command(now time.Time, c *Command, from *seat) {
	if !s.sched.add(event{frame: c.Frame, kind: evCommand, seat: c.Seat, id: c.ID, cmd: c}) {
		return // it came twice, or for a frame before the last stop-the-world re-sync
	}
	if s.running {
		s.rw.late(c.Frame, s.w.Frame())
	}
	s.stats.CommandsRelayed++
	if s.running && c.Frame < s.w.Frame() {
		s.stats.CommandsLateAtServer++
	}
	for d := range s.following {
		switch {
		case from != nil && d == &from.downlink:
		case s.sentDirect(now, c, d):
			s.stats.RelaysSaved++
		default:
			s.send(d, now, c, nil, nil, false)
		}
	}
}

// sentDirect reports whether c's player sent it to the client of d over their direct link
// (c.Direct), so that the relay would be a second copy, and that client has not lost that
// link lately (relayAgain). Spectators have no links: they get every command from the server.
func (s *Server) sentDirect(now time.Time, c *Command, d *downlink) bool {
	if c.Direct == 0 {
		return false
	}
	for i, st := range s.seats {
		if st != nil && d == &st.downlink {
			return c.Direct&(1<<i) != 0 && !now.Before(st.relayAgain[c.Seat])
		}
	}
	return false
}

// relayAgainFor is how long after a LinkLost the server relays each end of the link the
// other's commands whatever their Direct: twice linkQuiet. The end that did not tell stops
// sending over the link within linkQuiet (it hears nothing) or stallAfter (its command goes
// unacknowledged), whichever comes first, and what it sent over it before then has reached the
// server by the end of this.
const relayAgainFor = 2 * linkQuiet

// lostLimit bounds the LinkLosts of a client the server sends commands again for: each costs
// a walk of the schedule (a few hundred events) and the client the commands it gets again. An
// honest client tells each link's stall at most once per stallAfter (200 ms or more) and its
// quiet once per linkQuiet; at 10% loss and 50 ms its seven links stalled 0.3 times a second
// (BenchmarkDirectLinksAtLoss), in bursts. A LinkLost past the limit still has the server relay
// that way again (a timestamp), without the walk.
var lostLimit = rateLimit{burst: 2 * world.MaxPlayers, every: 100 * time.Millisecond}

// linkLost: the direct link between st and seat o stopped delivering (p2p.go), so commands
// sent over it may be lost, and the server did not relay them. Why says which way: quiet, o's
// commands to st (st hears nothing); stalled, st's to o (st's command went unacknowledged);
// ended, both. For each such direction the server sends the receiver again the sender's
// commands it still holds, back to resimWindow frames ago (an older one can no longer be run
// exactly; the hashes repair what it changed), and relays the sender's commands to the
// receiver whatever their Direct, for relayAgainFor. The receiver drops the copies it has.
func (s *Server) linkLost(now time.Time, st *seat, m *LinkLost) {
	o := m.Seat
	other := s.seats[o]
	if o == st.idx || other == nil {
		s.stats.BadMessages++
		return
	}
	s.stats.LinksLost++
	resend := st.lostRate.take(now, lostLimit)
	if !resend {
		s.stats.LinkLostsLimited++
	}
	if m.Why != LinkStalled {
		s.relayAgain(now, other, st, resend) // o's commands to st
	}
	if m.Why != LinkQuiet {
		s.relayAgain(now, st, other, resend) // st's commands to o
	}
}

// relayAgain relays to's client from's commands whatever their Direct for relayAgainFor, and
// with resend sends it the ones the server still holds for the last resimWindow frames and the
// ones still to run.
func (s *Server) relayAgain(now time.Time, from, to *seat, resend bool) {
	to.relayAgain[from.idx] = now.Add(relayAgainFor)
	if !resend || to.peer == nil || !to.started || s.w == nil {
		return
	}
	oldest := s.w.Frame() - min(s.w.Frame(), resimWindow)
	s.sched.each(func(e *event) {
		if e.kind == evCommand && e.cmd != nil && e.seat == from.idx && e.frame >= oldest {
			s.stats.CommandsRelayedAgain++
			s.send(&to.downlink, now, e.cmd, nil, nil, false)
		}
	})
}

// chat relays a line to every other client, spectators included: a chain per origin seat on
// each connection.
func (s *Server) chat(now time.Time, origin uint8, text string) {
	st0 := s.seats[origin]
	if st0 == nil {
		return
	}
	c := &Chat{Seat: origin, Line: s.stats.chatLines[origin] + 1, Text: text}
	s.stats.chatLines[origin]++
	s.stats.ChatRelayed++
	for d := range s.following {
		if d != &st0.downlink {
			s.send(d, now, c, []*depgraph.Dependency{d.chat[origin].Last()}, d.chat[origin].Last(), false)
		}
	}
}

// updateLead sets the command lead time from the worst path among the players (lead.go), at
// most once every 2 s up and every 10 s down. A change is announced for a frame far enough ahead that every client
// has it in time.
func (s *Server) updateLead(now time.Time) {
	want := s.wantLead()
	cur := s.lead
	if n := len(s.leadNext); n > 0 {
		cur = s.leadNext[n-1].LeadFrames
	}
	// It rises as soon as 2 s after the last change (commands would come late), and falls only
	// 10 s after it: a loss estimate that wavers would otherwise move it every other second.
	if want == cur || now.Sub(s.lastLead) < 2*time.Second || (want < cur && now.Sub(s.lastLead) < 10*time.Second) {
		return
	}
	s.lastLead = now
	lt := LeadTime{Frame: s.w.Frame() + 2*max(cur, want) + 1, LeadFrames: want}
	s.leadNext = append(s.leadNext, lt)
	s.stats.LeadChanges++
	s.event(now, "lead time", "frames", want, "from frame", lt.Frame)
	for d := range s.following {
		s.send(d, now, &lt, []*depgraph.Dependency{d.leadChain.Last()}, d.leadChain.Last(), false)
	}
}

// wantLead is the lead time the players' links call for now (lead.go).
func (s *Server) wantLead() uint32 {
	// The worst path: every player's commands go to every other player.
	var rtt, jitter, resend time.Duration
	var loss float64
	for _, st := range s.seats {
		if st == nil || st.peer == nil {
			continue
		}
		ps := st.peer.Stats()
		rtt = max(rtt, st.reportedRTT, ps.PingAvg, ps.RTT)
		jitter = max(jitter, ps.Jitter)
		resend = max(resend, ps.Message.ResendDelay)
		if ps.Message.Packet.LossSamples >= minLossSamples {
			loss = max(loss, ps.LossPercent, float64(st.reportedLoss)/10)
		}
	}
	return leadFor(s.cfg.Frame, rtt, jitter, loss, resend)
}

// send encodes m and sends it to st as a guaranteed (or sync) message, through the seat's
// outbox (outbox.go). A refusal is counted and logged: the server's messages are its own
// doing, and a client that far behind is about to time out.
func (s *Server) send(to linked, now time.Time, m Msg, deps []*depgraph.Dependency, out *depgraph.Dependency, sync bool) {
	st := to.link()
	if st.peer == nil {
		return
	}
	payload, err := AppendMsg(s.buf[:0], m)
	if err != nil {
		s.cfg.Logger.Error("encode", "type", m.Type(), "err", err)
		return
	}
	s.buf = payload
	if err := st.out.send(st.peer.Conn(), now, payload, deps, out, sync); err != nil {
		s.stats.SendsRefused++
		s.cfg.Logger.Warn("send refused", "to", st.who, "type", m.Type(), "err", err)
	}
}

func (s *Server) flushOutboxes(now time.Time) {
	for d := range s.connected {
		d.out.flush(d.peer.Conn(), now)
	}
	s.boundSpectators(now)
}

func (s *Server) sendUnreliable(st *downlink, m Msg) {
	payload, err := AppendMsg(s.buf[:0], m)
	if err != nil {
		return
	}
	s.buf = payload
	st.peer.Conn().SendUnreliable(payload)
}

// admits is the transport's Admit. It lets in every connection the transport has room for
// (sizeTransport counts that room), because onConnect answers each in words the player
// reads: a seat, a claim on a seat (identity.go), a place among the spectators, or a Kick
// whose text says why not, "the game is full: 8 players and 32 spectators". A Denied would say
// only "server full", and a client would not know whether to try again as a spectator.
func (s *Server) admits(uuid.UUID, time.Time) bool { return true }

// seatClaimed is the seat of player, a bot's included (a bot's player id, derived from its
// name, is no secret either), or nil: a connection with its id claims it (identity.go).
func (s *Server) seatClaimed(player uuid.UUID) *seat {
	for _, st := range s.seats {
		if st != nil && st.player == player {
			return st
		}
	}
	return nil
}

// freeSeat is the lowest seat nobody holds at now (a hold that ran out counts as free), or -1.
func (s *Server) freeSeat(now time.Time) int {
	for i, st := range s.seats {
		if st == nil || s.holdExpired(st, now) {
			return i
		}
	}
	return -1
}

// holdExpired: st's player left more than SeatHold ago, so the seat is anybody's.
func (s *Server) holdExpired(st *seat, now time.Time) bool {
	return st.bot == nil && st.peer == nil && !st.left.IsZero() && now.Sub(st.left) >= s.cfg.SeatHold
}

// freeHeldSeats frees the seats whose player has been gone for SeatHold: a player that
// vanished (a killed process, a lost laptop) does not keep a seat from the class for good.
// Its units stay in the world and go with the seat to whoever takes it next.
func (s *Server) freeHeldSeats(now time.Time) {
	for i, st := range s.seats {
		if st != nil && s.holdExpired(st, now) {
			s.seats[i] = nil
			s.stats.SeatsFreed++
			s.event(now, "seat freed", "seat", st.idx, "name", st.name, "held", s.cfg.SeatHold)
		}
	}
}

// onConnect seats a client. A connection with the id of a seated player (connected, or held
// for it) is a claim on that seat: it is seated only once it proves the player's secret
// (identity.go). Any other gets a free seat (Admit made sure there is one when the
// connection was accepted), and its player's secret.
func (s *Server) onConnect(p *transport.Peer, now time.Time) {
	s.freeHeldSeats(now) // a hold that ran out is a free seat, not one to claim
	if p.Role() == wire.RoleObserver {
		s.spectate(p, now, SpectateAsked) // it asked to watch (spectate.go)
		return
	}
	if s.seatClaimed(p.PlayerID()) != nil {
		s.claimSeat(p, now)
		return
	}
	s.join(p, now)
}

// join seats a new player, or refuses it: a name the seats refuse (refuseName: a broken
// rule, a bot's, or another seat's or spectator's) ends the connection at once, kicked with
// the reason as its text, which the client shows and exits on. With every seat taken, the
// player watches as a spectator if there is room (spectate.go).
func (s *Server) join(p *transport.Peer, now time.Time) {
	if err := s.refuseName(p.Name(), nil, now); err != nil {
		s.stats.JoinsRefused++
		s.event(now, "join refused", "addr", p.Addr(), "why", err)
		s.tr.Kick(p, now, err.Error())
		return
	}
	idx := s.freeSeat(now)
	if idx < 0 {
		s.spectate(p, now, SpectateSeatsFull)
		return
	}
	st := &seat{idx: uint8(idx), player: p.PlayerID()}
	if _, err := io.ReadFull(s.cfg.Transport.Rand, st.secret[:]); err != nil {
		s.cfg.Logger.Error("join: no randomness for a secret", "err", err)
		s.tr.Kick(p, now, "server error: no randomness")
		return
	}
	s.seats[idx] = st
	s.seatPeer(st, p, now, true)
}

// seatPeer puts the connection p in st: a new player's seat (fresh: it is sent its secret
// first), or a seat its player reclaimed.
func (s *Server) seatPeer(st *seat, p *transport.Peer, now time.Time, fresh bool) {
	// What the server holds against the player (server_sync.go) outlives a connection: a
	// client dropped for stalling the game must not come back with a clean slate.
	*st = seat{downlink: downlink{peer: p, who: fmt.Sprintf("seat %d", st.idx)}, idx: st.idx, player: st.player, secret: st.secret,
		name: p.Name(), nextCmdID: st.nextCmdID, chatRate: st.chatRate, pauseMisses: st.pauseMisses, stoppedWorld: st.stoppedWorld,
		repairedAt: st.repairedAt}
	s.stats.Joins++
	s.event(now, "join", "seat", st.idx, "name", st.name, "addr", p.Addr())
	if fresh {
		s.send(st, now, &PlayerSecret{Secret: st.secret}, nil, nil, false)
	}
	if s.class.latest != nil {
		s.sendClassLink(&st.downlink, now) // the class's link holds for latecomers too
	}
	// Everybody learns who sits where; the newcomer learns about everybody.
	s.tellSeats(st, now)
	s.tellSeat(now, st, &st.downlink)
	if s.running {
		s.sendStart(&st.downlink, now, true)
	} else if s.startAt.IsZero() && s.humans() >= max(s.cfg.MinPlayers, 1) {
		s.startAt = now.Add(s.cfg.StartDelay)
	}
}

// sendPeers tells every client that takes direct links where the others that do are, at
// the address the server sees each one's connection come from, with the key of each pair
// (identity.go). A client gets its list only when it changed.
func (s *Server) sendPeers(now time.Time) {
	for _, x := range s.seats {
		if x == nil || x.peer == nil || !x.direct {
			continue
		}
		var ps Peers
		for _, y := range s.seats {
			if y == nil || y == x || y.peer == nil || !y.direct {
				continue
			}
			a := y.peer.Addr()
			ps.List = append(ps.List, PeerAddr{Seat: y.idx, Addr: netip.AddrPortFrom(a.Addr().Unmap(), a.Port()),
				Key: linkKeyOf(s.linkSecret, x.idx, x.player, y.idx, y.player)})
		}
		if slices.Equal(ps.List, x.peersSent) {
			continue
		}
		x.peersSent = ps.List
		s.send(x, now, &ps, []*depgraph.Dependency{x.peersChain.Last()}, x.peersChain.Last(), false)
	}
}

func (s *Server) humans() int {
	n := 0
	for _, st := range s.seats {
		if st != nil && st.peer != nil {
			n++
		}
	}
	return n
}

func (s *Server) info(st *seat) *PlayerInfo {
	return &PlayerInfo{Seat: st.idx, Player: wire.PlayerID(st.player), Name: st.name, Bot: st.bot != nil, Connected: st.bot != nil || st.peer != nil}
}

// tellSeats sends a client that joins the PlayerInfo of every seat taken.
func (s *Server) tellSeats(to linked, now time.Time) {
	d := to.link()
	for _, x := range s.seats {
		if x != nil {
			s.send(d, now, s.info(x), nil, &d.infoDeps[x.idx], false)
		}
	}
}

// tellSeat sends the PlayerInfo of st to every connected client, players and spectators, but
// skip.
func (s *Server) tellSeat(now time.Time, st *seat, skip *downlink) {
	for d := range s.connected {
		if d != skip {
			s.send(d, now, s.info(st), nil, &d.infoDeps[st.idx], false)
		}
	}
}

func (s *Server) onDisconnect(p *transport.Peer, now time.Time, reason wire.DisconnectReason, text string) {
	if c := s.claimOf(p); c != nil {
		s.dropClaim(c) // a claim that ended: it had no seat
		return
	}
	if sp := s.spectatorOf(p); sp != nil {
		s.spectatorLeft(sp, now, reason, text)
		return
	}
	for _, st := range s.seats {
		if st != nil && st.peer == p {
			st.peer, st.started, st.left = nil, false, now
			st.out.reset()
			st.gone = reason.String()
			if text != "" {
				st.gone += ": " + text
			}
			s.stats.Leaves++
			s.event(now, "leave", "seat", st.idx, "name", st.name, "reason", st.gone)
			s.tellSeat(now, st, nil)
			if s.pause != nil {
				s.checkResume(now)
			}
			if st.direct {
				st.direct = false
				s.sendPeers(now) // the others stop dialling it
			}
		}
	}
}

func (s *Server) seatOf(p *transport.Peer) *seat {
	for _, st := range s.seats {
		if st != nil && st.peer == p {
			return st
		}
	}
	return nil
}

// onMessage handles every message a client's connection delivers.
func (s *Server) onMessage(p *transport.Peer, now time.Time, m *message.Message) {
	st := s.seatOf(p)
	if st == nil {
		if sp := s.spectatorOf(p); sp != nil {
			s.spectatorMessage(sp, now, m)
			return
		}
		if c := s.claimOf(p); c != nil {
			if msg, err := ParseMsg(m.Payload); err != nil {
				s.stats.BadMessages++
			} else {
				s.onClaimMessage(c, now, msg)
			}
		}
		return
	}
	msg, err := ParseMsg(m.Payload)
	if err != nil {
		s.stats.BadMessages++
		return
	}
	if m.Guaranteed {
		s.trace.executed(now, s.frameNow(), p.Addr().String(), m, msg)
	}
	switch v := msg.(type) {
	case *Command:
		if v.Seat != st.idx {
			s.stats.BadMessages++ // a player commands only its own seat
			return
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
		if len(v.List) != 0 {
			// A client says only that it takes direct links: where, the server saw. An address
			// it names could be anybody's (a victim of the other clients' dials).
			s.stats.BadMessages++
			return
		}
		st.direct = true
		s.sendPeers(now)
	case *LinkLost:
		s.linkLost(now, st, v)
	case *PingSummary:
		st.reportedRTT = time.Duration(v.AvgRTTMicros) * time.Microsecond
		st.reportedLoss = v.LossPermille
	case *HashReport:
		s.hashReport(now, st, v)
	case *UnitHashes:
		s.unitHashes(now, st, v)
	case *WorldHashes:
		s.worldHashes(now, st, v)
	case *BatchApplied:
		if cp := st.pauseState; cp != nil && s.pause != nil && v.Frame == s.pause.frame {
			cp.applied[v.Batch] = true
			s.checkResume(now)
		}
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
