package game

import (
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// The seat table: who each connection is to the game.
//
// The transport knows connections; the game knows players. Every connection the server's
// transport accepts is in exactly one role, kept in one map (seatTable.roles):
//
//	claiming   it came with the id of a seated player, and has not proved the player's secret
//	           yet (identity.go): it may send a Proof and nothing else
//	player     it plays a seat (seat)
//	spectator  it watches (spectate.go)
//
// A connection's role is one map lookup (roleOf), and it changes only through move, which
// refuses the moves the game has no path for (seatMoves): a spectator never becomes a player
// (it must connect again), and a player never goes back to claiming. Each role has one dispatch
// of the messages its connection delivers (roleSteps, in the manner of a state machine's step
// function per state), so a message a role may not send is refused in one place.
//
// The places themselves outlive connections: a seat whose player vanished is held for it for
// SeatHold (so it can come back to its units), then freed for anybody (freeHeldSeats); a seat
// whose player the teacher kicked is freed at once (kick.go); a spectator's place is freed when
// its connection ends.

// roleKind is what a connection is to the game.
type roleKind uint8

const (
	roleNone      roleKind = iota // not in the game: never admitted, or gone
	roleClaiming                  // claims a seated player's seat, proof pending (identity.go)
	rolePlayer                    // plays a seat
	roleSpectator                 // watches (spectate.go)
)

func (k roleKind) String() string {
	switch k {
	case roleNone:
		return "none"
	case roleClaiming:
		return "claiming"
	case rolePlayer:
		return "player"
	case roleSpectator:
		return "spectator"
	}
	return fmt.Sprintf("roleKind(%d)", uint8(k))
}

// role is a connection's role and the place it holds in it: the seat of a player, the
// spectator, or the claim.
type role struct {
	kind      roleKind
	seat      *seat
	spectator *spectator
	claim     *claim
}

// seatMoves are the moves between roles the game makes: admitted as one of the three, a
// claim settled (claiming → player: proved, or its seat was freed meanwhile and it joined as a
// new player; claiming → spectator: freed, and every seat taken), and leaving any of them.
// Everything else is a bug, and move refuses it.
var seatMoves = [...][4]bool{
	roleNone:      {roleClaiming: true, rolePlayer: true, roleSpectator: true},
	roleClaiming:  {roleNone: true, rolePlayer: true, roleSpectator: true},
	rolePlayer:    {roleNone: true},
	roleSpectator: {roleNone: true},
}

// seatTable is the server's one table of places: the seats, the spectators' places, the
// claims on seats, and the role of every connection.
type seatTable struct {
	players    [world.MaxPlayers]*seat        // nil is a free seat
	spectators [MaxSpectatorNumber]*spectator // nil is a free place; spectators[n-1] is number n
	claims     []*claim                       // at most maxClaims (identity.go), oldest first
	roles      map[*transport.Peer]role
	// inGame: the seat was taken when the game started (or a squad or a round gave it units
	// since), so its units are in the world. It belongs to the seat's place, not its player:
	// whoever takes the seat later plays them.
	inGame [world.MaxPlayers]bool
}

// roleOf is p's role: one lookup.
func (t *seatTable) roleOf(p *transport.Peer) role { return t.roles[p] }

// move puts p in role to, or refuses a move the game has no path for.
func (t *seatTable) move(p *transport.Peer, to role) error {
	from := t.roles[p].kind
	if !seatMoves[from][to.kind] {
		return fmt.Errorf("game: a connection cannot go from %v to %v", from, to.kind)
	}
	if to.kind == roleNone {
		delete(t.roles, p)
		return nil
	}
	if t.roles == nil {
		t.roles = make(map[*transport.Peer]role)
	}
	t.roles[p] = to
	return nil
}

// seatOfPlayer is the seat of player, a bot's included (a bot's player id, derived from its
// name, is no secret either), or nil: a connection with its id claims it (identity.go).
func (t *seatTable) seatOfPlayer(player uuid.UUID) *seat {
	for _, st := range t.players {
		if st != nil && st.player == player {
			return st
		}
	}
	return nil
}

// humans counts the seats whose player's client is connected.
func (t *seatTable) humans() int {
	n := 0
	for _, st := range t.players {
		if st != nil && st.peer != nil {
			n++
		}
	}
	return n
}

// inGameList lists the seats whose units are in the world, in order.
func (t *seatTable) inGameList() []uint8 {
	var out []uint8
	for _, st := range t.players {
		if st != nil && t.inGame[st.idx] {
			out = append(out, st.idx)
		}
	}
	return out
}

// playing lists the seats whose player is there, in order: a server's bot, or a connected
// client that was sent the game.
func (t *seatTable) playing() []uint8 {
	var seats []uint8
	for _, st := range t.players {
		if st != nil && st.present() {
			seats = append(seats, st.idx)
		}
	}
	return seats
}

// connected yields the downlink of every client connected to the game, a seat's (in seat
// order) then a spectator's, whether or not it was sent the game yet.
func (t *seatTable) connected(yield func(*downlink) bool) {
	for _, st := range t.players {
		if st != nil && st.peer != nil && !yield(&st.downlink) {
			return
		}
	}
	for _, sp := range t.spectators {
		if sp != nil && sp.peer != nil && !yield(&sp.downlink) {
			return
		}
	}
}

// following yields the downlink of every client that follows the game (it was sent
// StartGame): everything that changes the world goes to each of them.
func (t *seatTable) following(yield func(*downlink) bool) {
	for d := range t.connected {
		if d.started && !yield(d) {
			return
		}
	}
}

// downlink is the server's side of one client's connection to the game, a player's or a
// spectator's (spectate.go): the connection, and what the server keeps per connection. What
// goes to every client goes to every downlink that follows the game (seatTable.following),
// each with its own dependency handles.
type downlink struct {
	peer    *transport.Peer
	started bool // this client was sent StartGame
	// startFrame is the frame of the world it started from: a joiner's snapshot holds every
	// command before it, run or pending, and none of them may reach it again.
	startFrame uint32
	// joinBacklog is what a joiner's snapshot queued (the world, the events still to run),
	// shrinking to the least it has had waiting since: a spectator may have that much waiting
	// beyond spectatorBacklog (spectate.go), since the events still to run are the players'
	// doing, not its own.
	joinBacklog int
	who         string // for the log: "seat 2", "spectator 5"
	deps        downDeps
	out         outbox    // messages refused by back-pressure, sent again later (send.go)
	drift       connDrift // its hash reports and its part in a stop-the-world (drift_server.go)
}

func (d *downlink) link() *downlink { return d }

// linked is a seat or a spectator: whatever has a downlink.
type linked interface{ link() *downlink }

// downDeps are the dependency handles of what the server sends on one connection: the
// chains, and the messages others must come after.
type downDeps struct {
	infos [world.MaxPlayers]depgraph.Dependency // the latest PlayerInfo of each seat
	start depgraph.Dependency                   // StartGame
	// Relayed chat lines: a chain per origin seat, and one per origin spectator.
	chat          [world.MaxPlayers]message.Chain
	spectatorChat [MaxSpectatorNumber]message.Chain
	lead          message.Chain // LeadTimes
	class         message.Chain // ClassLinks (classlink.go)
	// peers: each Peers replaces the one before, so it depends on it (a list that overtook a
	// newer one would bring back a player who left); status: the Spectates of a spectator.
	peers, status message.Chain
	spawns        map[uint32]*depgraph.Dependency // each enemy's SpawnEnemy, until its kill
}

// seat is one player's place in the game, on the server: the connection, who plays it, and
// what each part of the game keeps about its player.
type seat struct {
	downlink
	idx       uint8
	player    uuid.UUID
	secret    Secret // proves player (identity.go); a bot's is zero
	name      string
	bot       *Bot // a server-side bot plays this seat
	nextCmdID uint32
	chatRate  rateBucket    // how fast its lines come (chat.go)
	commands  commandLimits // how fast its commands come, and those refused (commands.go)
	sync      playerDrift   // what the drift checks hold against this player (drift_server.go)
	links     seatLinks     // its direct links (p2p_server.go)
	pings     pingReport    // what its client reports of its link (lead.go)
	left      time.Time     // when its player went away (the seat is held SeatHold from then)
	gone      string        // why its connection ended, for the player table (kept until it comes back)
	// addr is the address its player last played from, since when the player has held the
	// seat: what the sharing of places counts (places.go), kept while the seat is held.
	addr  netip.Addr
	since time.Time
}

// afterNames are the dependencies of a message that shows players' names on a screen (a chat
// line beside its writer's name, the squads of a Reinforce or the seats of a NewRound under
// their owners' names): the latest PlayerInfo of each seat named, so that no client runs it
// before the roster that gives the names. Once a PlayerInfo has executed on the client, the
// sender's local graph prunes the dependency, and it costs nothing on the wire.
func (d *downlink) afterNames(seats []uint8) []*depgraph.Dependency {
	after := make([]*depgraph.Dependency, 0, len(seats)+1)
	for _, s := range seats {
		after = append(after, &d.deps.infos[s])
	}
	return after
}

// present: the seat's player is there, a bot or a connected client that was sent the game.
func (st *seat) present() bool { return st.bot != nil || st.peer != nil && st.started }

// freeSeat is the lowest seat nobody holds at now (a hold that ran out counts as free), or -1.
func (s *Server) freeSeat(now time.Time) int {
	for i, st := range s.seats.players {
		if st == nil || s.holdExpired(st, now) {
			return i
		}
	}
	return -1
}

// holdExpired: st's player left more than SeatHold ago, so the seat is anybody's.
func (s *Server) holdExpired(st *seat, now time.Time) bool {
	return st.bot == nil && st.peer == nil && !st.left.IsZero() && now.Sub(st.left) >= s.cfg.Places.SeatHold
}

// freeHeldSeats frees the seats whose player has been gone for SeatHold: a player that
// vanished (a killed process, a lost laptop) does not keep a seat from the class for good.
// Its units stay in the world and go with the seat to whoever takes it next.
func (s *Server) freeHeldSeats(now time.Time) {
	for _, st := range s.seats.players {
		if st != nil && s.holdExpired(st, now) {
			s.freeSeatOf(st, now, "held "+s.cfg.Places.SeatHold.String())
		}
	}
}

// freeSeatOf frees st's seat for anybody, its player gone (why: the hold ran out, a kick). Its
// units stay in the world and go with the seat to whoever takes it next; a claim on it that is
// still proving becomes a new player's join (onClaimMessage).
func (s *Server) freeSeatOf(st *seat, now time.Time, why string) {
	s.seats.players[st.idx] = nil
	s.stats.SeatsFreed++
	s.event(now, "seat freed", "seat", st.idx, "name", st.name, "why", why)
}

// nextHoldEnd is when the next held seat is freed (zero: none is held).
func (s *Server) nextHoldEnd() time.Time {
	var next time.Time
	for _, st := range s.seats.players {
		if st != nil && st.bot == nil && st.peer == nil && !st.left.IsZero() {
			next = transport.Earliest(next, st.left.Add(s.cfg.Places.SeatHold))
		}
	}
	return next
}

// seatBot gives a server-side bot the lowest free seat.
func (s *Server) seatBot(i int) error {
	idx := s.freeSeat(time.Time{})
	if idx < 0 {
		return fmt.Errorf("game: no free seat for a bot")
	}
	name := botName(i)
	st := &seat{idx: uint8(idx), player: uuid.NewSHA1(uuid.NameSpaceOID, []byte(name)), name: name}
	st.bot = NewBot(st.idx, name, s.cfg.Seed+uint64(idx)*7919)
	st.bot.chatGap = framesOf(DefaultBotChat, s.cfg.Frame)
	s.seats.players[idx] = st
	return nil
}

// onConnect gives a new connection its role. One that asked to watch is a spectator. One with
// the id of a seated player (connected, or held for it) is a claim on that seat: it is seated
// only once it proves the player's secret (identity.go). Any other joins: a free seat, and its
// player's secret, or a spectator's place when every seat is taken.
func (s *Server) onConnect(p *transport.Peer, now time.Time) {
	s.freeHeldSeats(now) // a hold that ran out is a free seat, not one to claim
	switch {
	case p.Role() == wire.RoleObserver:
		s.spectate(p, now, SpectateAsked) // it asked to watch (spectate.go)
	case s.seats.seatOfPlayer(p.PlayerID()) != nil:
		s.claimSeat(p, now)
	default:
		s.join(p, now)
	}
}

// join seats a new player, or refuses it: a name the seats refuse (refuseName: a broken
// rule, a bot's, or another seat's or spectator's) ends the connection at once, kicked with
// the reason as its text, which the client shows and exits on. With every seat taken, the
// player takes back a seat lent beyond its share to an address or network (places.go), or
// else watches as a spectator if there is room (spectate.go).
func (s *Server) join(p *transport.Peer, now time.Time) {
	if err := s.refuseName(p.Name(), nil, now); err != nil {
		s.refuseJoin(p, now, err.Error())
		return
	}
	idx := s.freeSeat(now)
	if idx < 0 {
		if h, ok, why := s.placeToTakeBack(placeSeat, p.Addr().Addr()); ok {
			s.takeBack(h, now, why)
			idx = int(h.seat.idx)
		}
	}
	if idx < 0 {
		s.spectate(p, now, SpectateSeatsFull)
		return
	}
	st := &seat{idx: uint8(idx), player: p.PlayerID(), since: now}
	if _, err := io.ReadFull(s.cfg.Transport.Rand, st.secret[:]); err != nil {
		s.cfg.Logger.Error("join: no randomness for a secret", "err", err)
		s.tr.Kick(p, now, "server error: no randomness")
		return
	}
	s.seats.players[idx] = st
	s.seatPeer(st, p, now, true)
}

// refuseJoin ends a connection the game will not take, kicked with why as its text.
func (s *Server) refuseJoin(p *transport.Peer, now time.Time, why string) {
	s.stats.JoinsRefused++
	s.event(now, "join refused", "addr", p.Addr(), "why", why)
	s.tr.Kick(p, now, why)
}

// seatPeer puts the connection p in st: a new player's seat (fresh: it is sent its secret
// first), or a seat its player reclaimed.
func (s *Server) seatPeer(st *seat, p *transport.Peer, now time.Time, fresh bool) {
	// What the server holds against the player (drift_server.go) outlives a connection: a
	// client dropped for stalling the game must not come back with a clean slate.
	*st = seat{downlink: downlink{peer: p, who: fmt.Sprintf("seat %d", st.idx), out: outbox{timely: true}}, idx: st.idx, player: st.player, secret: st.secret,
		name: p.Name(), nextCmdID: st.nextCmdID, chatRate: st.chatRate, sync: st.sync.kept(), addr: p.Addr().Addr().Unmap(), since: st.since}
	if err := s.seats.move(p, role{kind: rolePlayer, seat: st}); err != nil {
		s.cfg.Logger.Error("seat", "err", err)
	}
	s.stats.Joins++
	s.event(now, "join", "seat", st.idx, "name", st.name, "addr", p.Addr())
	if fresh {
		s.send(st, now, &PlayerSecret{Secret: st.secret})
	}
	if s.class.latest != nil {
		s.sendClassLink(&st.downlink, now) // the class's link holds for latecomers too
	}
	// Everybody learns who sits where; the newcomer learns about everybody.
	s.tellSeats(st, now)
	s.tellSeat(now, st, &st.downlink)
	if s.clock.running {
		s.sendStart(&st.downlink, now, true)
	} else if s.clock.startAt.IsZero() && s.seats.humans() >= max(s.cfg.MinPlayers, 1) {
		s.clock.startAt = now.Add(s.cfg.StartDelay)
	}
}

func (s *Server) info(st *seat) *PlayerInfo {
	return &PlayerInfo{Seat: st.idx, Player: wire.PlayerID(st.player), Name: st.name, Bot: st.bot != nil, Connected: st.bot != nil || st.peer != nil}
}

// tellSeats sends a client that joins the PlayerInfo of every seat taken.
func (s *Server) tellSeats(to linked, now time.Time) {
	d := to.link()
	for _, x := range s.seats.players {
		if x != nil {
			s.sendAfter(d, now, s.info(x), nil, &d.deps.infos[x.idx])
		}
	}
}

// tellSeat sends the PlayerInfo of st to every connected client, players and spectators, but
// skip.
func (s *Server) tellSeat(now time.Time, st *seat, skip *downlink) {
	for d := range s.seats.connected {
		if d != skip {
			s.sendAfter(d, now, s.info(st), nil, &d.deps.infos[st.idx])
		}
	}
}

// onDisconnect: a connection ended. What it held goes by its role: a claim is forgotten, a
// spectator's place freed, a player's seat held for it (SeatHold).
func (s *Server) onDisconnect(p *transport.Peer, now time.Time, reason wire.DisconnectReason, text string) {
	r := s.seats.roleOf(p)
	if r.kind == roleNone {
		return
	}
	if err := s.seats.move(p, role{}); err != nil {
		s.cfg.Logger.Error("leave", "err", err)
	}
	switch r.kind {
	case roleClaiming:
		s.dropClaim(r.claim) // a claim that ended: it had no seat
	case roleSpectator:
		s.spectatorLeft(r.spectator, now, reason, text)
	case rolePlayer:
		s.playerLeft(r.seat, now, reason, text)
	}
}

// playerLeft holds st for its player, whose connection ended, and tells everybody.
func (s *Server) playerLeft(st *seat, now time.Time, reason wire.DisconnectReason, text string) {
	st.peer, st.started, st.left = nil, false, now
	st.out.reset()
	st.gone = reason.String()
	if text != "" {
		st.gone += ": " + text
	}
	s.stats.Leaves++
	s.event(now, "leave", "seat", st.idx, "name", st.name, "reason", st.gone)
	s.tellSeat(now, st, nil)
	if s.drift.pause != nil {
		s.checkResume(now)
	}
	if st.links.direct {
		st.links.direct = false
		s.sendPeers(now) // the others stop dialling it
	}
}

// roleSteps is the dispatch of each role: what a connection in that role may send, and what
// the server does with it. A message its role has no use for is a bad message.
var roleSteps = [...]func(s *Server, r role, now time.Time, m *message.Message, msg Msg){
	roleClaiming: func(s *Server, r role, now time.Time, _ *message.Message, msg Msg) {
		s.onClaimMessage(r.claim, now, msg)
	},
	rolePlayer: func(s *Server, r role, now time.Time, m *message.Message, msg Msg) {
		s.playerMessage(r.seat, now, m, msg)
	},
	roleSpectator: func(s *Server, r role, now time.Time, m *message.Message, msg Msg) {
		s.spectatorMessage(r.spectator, now, m, msg)
	},
}

// onMessage handles every message a client's connection delivers: parsed once, then handed to
// the step of the connection's role.
func (s *Server) onMessage(p *transport.Peer, now time.Time, m *message.Message) {
	r := s.seats.roleOf(p)
	if r.kind == roleNone {
		return
	}
	msg, err := ParseMsg(m.Payload)
	if err != nil {
		s.stats.BadMessages++
		return
	}
	roleSteps[r.kind](s, r, now, m, msg)
}
