package game

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// Spectators: a class has more students than the game has seats.
//
// Beyond the 8 seats the server admits up to MaxSpectators clients that watch, and HostPlaces
// more from its own host (places.go): one that asked to (its handshake's role is an observer,
// cmd/client --spectate, which suits a teacher's projector), or one that asked for a seat when
// every seat was taken. A spectator has no seat and no units and gives no orders. It gets what
// a player who joins a running game gets (the PlayerInfo of every seat, StartGame, the world
// as it is, the events still to run) and from then on everything that changes the world, on
// the same frames as the players: commands, spawns, kills, repairs, squads, new rounds, lead
// times, pauses. Its client runs the world in lockstep like a player's, so its map is the
// game, and its debug panel shows its own connection. It chats, marked as a spectator's on
// every screen, unless the teacher turns spectator chat off (Server.SetSpectatorChat, the s key
// on the server's screen, the server's --spectator-chat=false).
//
// Trust. A spectator is somebody the teacher may not know, so what it does must never reach
// the players:
//
//   - It gets no Peers, no link key and no secret: nothing secret is broadcast, and a spectator
//     has nothing to say to a player directly. The server relays everything to it.
//   - The lead time comes from the players' links alone: a spectator on a bad link has late
//     events, which its client runs again (resim.go) or, past the window, fast-forwards.
//   - The server never waits for a spectator. In a stop-the-world pause it sends each spectator
//     the whole paused world in ResyncBatches, instead of asking for its hashes, and resumes
//     it with the players, whatever it applied. A spectator that never acknowledges its Pause
//     (a sync message, stop-and-wait on its own connection) holds up only its own connection.
//   - Its hash reports are checked like a player's, but a difference repairs its own world and
//     nobody else's: the server sends it the whole world (ResyncBatches as a joining client
//     gets them, the last with the state, to it alone), at most once every
//     spectatorResyncEvery. It never leads to a drill-down, a real-time repair (which would
//     move every host's units) or a pause. A spectator that lies in its reports earns a copy
//     of the world every 10 s, a few kilobytes of its own downlink.
//   - Its traffic is bounded. Its chat has a player's rate, and all the spectators' chat
//     together two players' (chat.go): a crowd of spectators cannot fill the players' links
//     with chat. What the server queues for it is bounded too: a spectator whose connection
//     has more than spectatorBacklog messages unacknowledged or waiting (it stopped
//     acknowledging, or its link cannot carry the game), beyond what its join was sent (the
//     world and the events still to run: the players' doing, not its own), is disconnected
//     with the reason, rather than queued for without end; and the message layer's resend
//     limit ends a connection whose messages go unacknowledged for the connection timeout.
//
// Why 256 spectators (MaxSpectators): a lecture hall, not only a class of 40. Each spectator
// costs the server one more copy of the game's stream, about 1 kB/s (256 of them: some
// 300 kB/s of the server's upload), one more connection and one more recipient of every chat
// line; the chat of all the spectators together has one rate (chat.go), so the chat each
// client receives does not grow with the hall. The players' frame deadline holds: in netlab
// scale, 8 players and 256 spectators cost the server 6 to 8 ms of work per 100 ms frame at
// the median and 30 ms at the most (BENCHMARKS.md), because the transport's Tick works only
// on the connections that need it, and the lead time comes from the players' links alone.
// Every table that grows with the spectators is sized by MaxSpectatorNumber (the seat table,
// each downlink's chat chains), the handshake budgets let the whole hall join at once
// (sizeTransport), and the per-spectator bound keeps a slow one from costing more than its
// share. The places are shared between addresses, and two are kept for the server's own host
// (places.go).

// Bounds of the spectators.
const (
	// spectatorBacklog: the most messages a spectator's connection may have unacknowledged or
	// waiting (message.Conn.Pending and the outbox) before the server drops it. A spectator
	// that keeps up has a few dozen: the messages of its last round trip (BENCHMARKS.md).
	spectatorBacklog = 256
	// spectatorResyncEvery: at most one copy of the world this often for a spectator whose
	// reports show a drift.
	spectatorResyncEvery = 10 * time.Second
	// spectateNoticeEvery: a spectator hears of its refused chat lines, and of the teacher's
	// toggle, at most this often (a Spectate says everything, so later news replaces earlier).
	spectateNoticeEvery = 200 * time.Millisecond
)

// spectatorRoom is what the spectators share on the server: whether the teacher lets them
// chat, and the one rate all their lines together get (chat.go).
type spectatorRoom struct {
	chatOff  bool
	chatRate rateBucket
}

// spectator is a client that watches, on the server.
type spectator struct {
	downlink
	num    uint16 // its number, 1..MaxSpectatorNumber: its place is spectators[num-1]
	player uuid.UUID
	name   string
	why    uint8 // SpectateAsked or SpectateSeatsFull
	joined time.Time

	chatRate   rateBucket
	chatLines  uint32 // lines relayed
	refused    uint32 // lines refused (chat off, or too fast)
	refusedWhy uint8  // why the latest was
	// notify: a Spectate with news waits for noticeAt + spectateNoticeEvery.
	notify   bool
	noticeAt time.Time

	resyncedAt time.Time // when the server last sent it the whole world
	resyncs    int
	lastHash   string
}

// sizeTransport sizes the game server's transport for a whole class. Connections: a seat's
// each, a spectator's each (the host's places too), the claims on seats (identity.go), one
// more than their bound so that a new claim can push the oldest out, and one for a client
// being refused, which the server kicks with its reason the moment it connects. Handshakes: a
// lecture hall of 8 + 256 that joins at once from one LAN (a /24) must not wait for the
// per-prefix budget to refill, and the global budget stays twice the prefix's, so that a flood
// from one prefix leaves half of it to everybody else (transport's budget.go). The per-address
// budget covers the places one address keeps (places.go), and a quarter more for the retries:
// a class behind one NAT is one address, and its 34 clients started in the same second must
// not wait for the budget to refill past their connect timeout (at the transport's 16 per 5 s,
// 3 of 34 gave up: TestClassBehindOneNATJoinsAtOnce).
func sizeTransport(tc *transport.ServerConfig, places Places) {
	tc.MaxClients = world.MaxPlayers + MaxSpectatorNumber + maxClaims + 2
	class := world.MaxPlayers + MaxSpectators
	if tc.MaxHandshakesPerAddress <= 0 {
		perAddress := places.SeatsPerAddress + places.SpectatorsPerAddress
		tc.MaxHandshakesPerAddress = perAddress + perAddress/4
	}
	if tc.MaxHandshakesPerPrefix <= 0 {
		tc.MaxHandshakesPerPrefix = class + class/4
	}
	if tc.MaxPendingHandshakes <= 0 {
		tc.MaxPendingHandshakes = 2 * tc.MaxHandshakesPerPrefix
	}
}

// fullText is what a client the server cannot admit reads; beyond says why it took no place
// back (placeToTakeBack), if it says anything.
func (s *Server) fullText(now time.Time, beyond string) string {
	if s.freeSeat(now) >= 0 {
		return fmt.Sprintf("no room for another spectator: %d are watching (a seat is free: join without --spectate)", MaxSpectators)
	}
	text := fmt.Sprintf("the game is full: %d players and %d spectators", world.MaxPlayers, MaxSpectators)
	if beyond != "" {
		text += "; " + beyond
	}
	return text
}

// spectatorPlaceFree reports whether a spectator's place is free for a connection from the
// server's own host (host) or from anywhere else: those from elsewhere take at most
// MaxSpectators places, the host's connections every place (places.go).
func (s *Server) spectatorPlaceFree(host bool) bool {
	n := 0
	for _, sp := range s.seats.spectators {
		if sp != nil && (host || !s.isHost(sp.peer.Addr().Addr())) {
			n++
		}
	}
	if host {
		return n < MaxSpectatorNumber
	}
	return n < MaxSpectators
}

// spectate admits p as a spectator, or refuses it: a name the game refuses (a broken rule, a
// bot's, or a seat's or another spectator's: chat shows it), or no room left, and none lent
// beyond its share to an address or network that p may take back (places.go). Either refusal
// ends the connection at once, kicked with the reason as its text, which the client shows.
func (s *Server) spectate(p *transport.Peer, now time.Time, why uint8) {
	if err := s.refuseName(p.Name(), nil, now); err != nil {
		s.refuseJoin(p, now, err.Error())
		return
	}
	if !s.spectatorPlaceFree(s.isHost(p.Addr().Addr())) {
		h, ok, reason := s.placeToTakeBack(placeSpectator, p.Addr().Addr())
		if !ok {
			s.stats.PlacesRefused++
			s.refuseJoin(p, now, s.fullText(now, reason))
			return
		}
		s.takeBack(h, now, reason)
	}
	i := slices.Index(s.seats.spectators[:], nil)
	if i < 0 {
		s.stats.PlacesRefused++
		s.refuseJoin(p, now, s.fullText(now, ""))
		return
	}
	sp := &spectator{downlink: downlink{peer: p, who: fmt.Sprintf("spectator %d", i+1), out: outbox{timely: true}}, num: uint16(i + 1),
		player: p.PlayerID(), name: p.Name(), why: why, joined: now}
	if err := s.seats.move(p, role{kind: roleSpectator, spectator: sp}); err != nil {
		s.cfg.Logger.Error("spectate", "err", err)
		return
	}
	s.seats.spectators[i] = sp
	s.stats.SpectatorJoins++
	s.event(now, "spectator joins", "number", sp.num, "name", sp.name, "addr", p.Addr(), "why", spectateWhy(why))
	s.sendSpectate(sp, now) // first: what it is
	if s.class.latest != nil {
		s.sendClassLink(&sp.downlink, now)
	}
	s.tellSeats(sp, now)
	if s.clock.running {
		s.sendStart(&sp.downlink, now, true)
	}
}

// spectateWhy says why a spectator watches.
func spectateWhy(why uint8) string {
	if why == SpectateSeatsFull {
		return "the seats are full"
	}
	return "asked to watch"
}

// spectatorLeft frees the place of a spectator whose connection ended: a spectator has no
// seat to hold, and one that comes back is a new spectator.
func (s *Server) spectatorLeft(sp *spectator, now time.Time, reason fmt.Stringer, text string) {
	s.seats.spectators[sp.num-1] = nil
	sp.out.reset()
	s.stats.SpectatorLeaves++
	why := reason.String()
	if text != "" {
		why += ": " + text
	}
	s.event(now, "spectator leaves", "number", sp.num, "name", sp.name, "reason", why)
}

// spectatorMessage handles what a spectator's connection delivers: its chat, its hash reports
// and its ping summaries. Anything else (a command, a player's chat, a proof) is a bad message:
// a spectator has no seat to speak for.
func (s *Server) spectatorMessage(sp *spectator, now time.Time, m *message.Message, msg Msg) {
	if m.Guaranteed {
		s.trace.executed(now, s.frameNow(), sp.peer.Addr().String(), m, msg)
	}
	switch v := msg.(type) {
	case *SpectatorChat:
		if v.Spectator != uint32(sp.num) || v.Name != "" {
			s.stats.BadMessages++ // a spectator speaks only as itself, and the server names it
			return
		}
		s.spectatorSays(sp, now, v.Text)
	case *HashReport:
		s.spectatorReport(now, sp, v)
	case *PingSummary:
		// The lead time comes from the players' links alone: a spectator on a bad link must
		// not slow the game down for everybody.
	default:
		s.stats.BadMessages++
	}
}

// spectatorSays relays a spectator's line to every other client that follows the game, a chain
// per origin spectator on each connection, or refuses it (the teacher turned spectator chat
// off, or the lines come too fast) and tells the spectator in its next Spectate.
func (s *Server) spectatorSays(sp *spectator, now time.Time, text string) {
	switch {
	case s.audience.chatOff:
		s.refuseSpectatorLine(sp, RefusedChatOff)
		return
	case !sp.chatRate.take(now, serverChat), !s.audience.chatRate.take(now, spectatorsChat):
		s.refuseSpectatorLine(sp, RefusedTooFast)
		return
	}
	sp.chatLines++
	s.stats.ChatRelayed++
	s.stats.SpectatorChat++
	i := sp.num - 1
	c := &SpectatorChat{Spectator: uint32(sp.num), Name: sp.name, Line: sp.chatLines, Text: text}
	for d := range s.seats.following {
		if d != &sp.downlink {
			s.sendOn(d, now, &d.deps.spectatorChat[i], c)
		}
	}
}

func (s *Server) refuseSpectatorLine(sp *spectator, why uint8) {
	sp.refused++
	sp.refusedWhy = why
	sp.notify = true
	s.stats.ChatRefused++
}

// sendSpectate tells a spectator what it is, as the next of its connection's chain.
func (s *Server) sendSpectate(sp *spectator, now time.Time) {
	m := &Spectate{Number: uint32(sp.num), Why: sp.why, ChatOff: s.audience.chatOff, Refused: sp.refused, RefusedWhy: sp.refusedWhy}
	s.sendOn(&sp.downlink, now, &sp.deps.status, m)
	sp.notify, sp.noticeAt = false, now
}

// flushSpectateNotices sends the spectators that have news a Spectate, once spectateNoticeEvery
// has passed since their last.
func (s *Server) flushSpectateNotices(now time.Time) {
	for _, sp := range s.seats.spectators {
		if sp != nil && sp.peer != nil && sp.notify && !now.Before(sp.noticeAt.Add(spectateNoticeEvery)) {
			s.sendSpectate(sp, now)
		}
	}
}

// nextSpectateNotice is when the next waiting Spectate may go (zero: none waits).
func (s *Server) nextSpectateNotice() time.Time {
	var next time.Time
	for _, sp := range s.seats.spectators {
		if sp != nil && sp.peer != nil && sp.notify {
			next = transport.Earliest(next, sp.noticeAt.Add(spectateNoticeEvery))
		}
	}
	return next
}

// SetSpectatorChat turns the spectators' chat on or off (the teacher's s key). Off, the server
// refuses every spectator's line and each spectator is told; the players' chat goes on. Owner
// loop only.
func (s *Server) SetSpectatorChat(now time.Time, on bool) {
	if s.audience.chatOff == !on {
		return
	}
	s.audience.chatOff = !on
	s.event(now, "spectator chat", "on", on)
	for _, sp := range s.seats.spectators {
		if sp != nil {
			sp.notify = true
		}
	}
	s.flushSpectateNotices(now)
}

// SpectatorChat reports whether the spectators may chat. Owner loop only (the snapshot has a
// copy).
func (s *Server) SpectatorChat() bool { return !s.audience.chatOff }

// spectatorsPaused: the server's world reached the paused frame. Each spectator paused too (its
// Pause came with the players'); it sends no hashes, so it gets the whole paused world, after
// the Pause, and is resumed with the players whatever it did with it.
func (s *Server) spectatorsPaused(now time.Time) {
	var ids []uint32 // every unit: made for the first spectator that needs them
	for _, sp := range s.seats.spectators {
		if sp == nil || sp.peer == nil || sp.drift.pause == nil {
			continue
		}
		if ids == nil {
			ids = make([]uint32, 0, len(s.w.Units()))
			for _, u := range s.w.Units() {
				ids = append(ids, u.ID)
			}
		}
		s.sendBatches(now, &sp.downlink, worldPart{ids: ids, complete: true})
	}
}

// resumeSpectators sends each paused spectator the players' Resume, after its world's batches (or
// its Pause, for one that joined after the batches went out).
func (s *Server) resumeSpectators(now time.Time, r *Resume) {
	for _, sp := range s.seats.spectators {
		if sp == nil || sp.peer == nil || sp.drift.pause == nil {
			continue
		}
		deps := sp.drift.pause.batchDeps
		if len(deps) == 0 {
			deps = []*depgraph.Dependency{&sp.drift.pause.pauseDep}
		}
		s.sendAfter(sp, now, r, deps, nil)
	}
}

// spectatorReport takes a spectator's hash report (reportArrived) and checks them against
// the server's history of that frame, as a player's are checked, now or once the frame has
// settled here.
func (s *Server) spectatorReport(now time.Time, sp *spectator, r *HashReport) {
	if s.reportArrived(now, &sp.downlink, &s.stats.SpectatorHashReports, r) {
		s.checkSpectatorReport(now, sp, r)
	}
}

// checkSpectatorReport checks a spectator's report, its units and its state. A difference
// repairs the spectator's world alone: the whole world, to it, at most once every
// spectatorResyncEvery.
func (s *Server) checkSpectatorReport(now time.Time, sp *spectator, r *HashReport) {
	if !s.clock.running || s.drift.pause != nil {
		return
	}
	mine, ok := s.drift.hist.at(r.Frame)
	if !ok {
		return // too old: its next report shows the same
	}
	if len(mismatchedRanges(mine, r.Root)) == 0 && s.stateMismatch(r) == nil {
		sp.lastHash = fmt.Sprintf("ok at frame %d", r.Frame)
		return
	}
	s.stats.SpectatorDrifts++
	sp.lastHash = fmt.Sprintf("mismatch at frame %d", r.Frame)
	if !sp.resyncedAt.IsZero() && now.Sub(sp.resyncedAt) < spectatorResyncEvery {
		return
	}
	sp.resyncedAt = now
	sp.resyncs++
	s.stats.SpectatorResyncs++
	sp.lastHash = fmt.Sprintf("re-sync at frame %d", s.w.Frame())
	s.event(now, "spectator re-sync", "number", sp.num, "name", sp.name, "drift at frame", r.Frame, "world of frame", s.w.Frame())
	s.sendWorld(&sp.downlink, now, nil)
}

// boundSpectators drops each spectator whose connection is more than spectatorBacklog
// messages behind: it stopped acknowledging, or its link cannot carry the game. Queued for, it
// would hold the server's memory for as long as it liked; dropped, it reads why, and may join
// again with a fresh copy of the world. What its join queued (the world and the events still
// to run, which the players scheduled: joinBacklog) it may have waiting on top of that until
// it has caught up on it, so that no player's commands keep a spectator out.
func (s *Server) boundSpectators(now time.Time) {
	for _, sp := range s.seats.spectators {
		if sp == nil || sp.peer == nil {
			continue
		}
		n := sp.peer.Conn().Pending() + sp.out.waiting()
		sp.joinBacklog = min(sp.joinBacklog, n) // what it caught up on is no longer allowed
		if n > spectatorBacklog+sp.joinBacklog {
			s.stats.SpectatorsDropped++
			why := fmt.Sprintf("too far behind: %d messages wait for this spectator's acknowledgements (at most %d)", n, spectatorBacklog+sp.joinBacklog)
			s.event(now, "spectator dropped", "number", sp.num, "name", sp.name, "why", why)
			s.tr.Kick(sp.peer, now, why) // onDisconnect frees its place
		}
	}
}

// SpectatorInfo is one spectator, for the server's screen.
type SpectatorInfo struct {
	Number uint16    // 1..MaxSpectatorNumber
	Player uuid.UUID // the transport's PeerStats of the same player id has its link
	Name   string
	Asked  bool // it asked to watch (false: every seat was taken)
	// State: "joining" (before the game reached it), "watching", "paused" (a stop-the-world
	// is under way).
	State string
	// LastHash is the latest check of its reports: "ok at frame F", "mismatch at frame F",
	// "re-sync at frame F" (F: the frame of the world it was sent), or "" before any.
	LastHash  string
	ChatLines uint32 // lines relayed
	Refused   uint32 // lines refused
}

// spectatorInfos lists the spectators, by number.
func (s *Server) spectatorInfos() []SpectatorInfo {
	var out []SpectatorInfo
	for _, sp := range s.seats.spectators {
		if sp == nil {
			continue
		}
		state := "watching"
		switch {
		case !sp.started:
			state = "joining"
		case s.drift.pause != nil:
			state = "paused"
		}
		out = append(out, SpectatorInfo{Number: sp.num, Player: sp.player, Name: sp.name, Asked: sp.why == SpectateAsked,
			State: state, LastHash: sp.lastHash, ChatLines: sp.chatLines, Refused: sp.refused})
	}
	return out
}

// The client's side.

// ErrSpectatorOrder is a spectator's Command: it has no units.
var ErrSpectatorOrder = errors.New("a spectator gives no orders: it has no units (watch, chat with Enter, d shows your link)")

// errNotSpectating: a client that asked to watch, before the server said it does.
var errNotSpectating = errors.New("game: not admitted as a spectator yet")

// spectating reports whether this client watches as a spectator (or asked to, and waits to
// hear that it does).
func (c *Client) spectating() bool { return c.role.kind == roleSpectator || c.cfg.Spectate }

// takeSpectate keeps the server's word on this spectator. A Spectate is a chain on the
// connection, so the latest to arrive is the latest sent.
func (c *Client) takeSpectate(m *Spectate) {
	sp := *m
	c.role.kind, c.role.spectate = roleSpectator, &sp
	if c.phase == phaseConnecting {
		c.moveTo(phaseAdmitted)
	}
}

// WhyText says why a spectator watches, for its status line.
func (m *Spectate) WhyText() string {
	if m.Why == SpectateSeatsFull {
		return fmt.Sprintf("all %d seats are taken", world.MaxPlayers)
	}
	return "you asked to (--spectate)"
}

// RefusedText says why the server refused this spectator's latest chat line ("" for none).
func (m *Spectate) RefusedText() string {
	switch m.RefusedWhy {
	case RefusedChatOff:
		return ErrSpectatorChatOff.Error()
	case RefusedTooFast:
		return ErrChatTooFast.Error()
	}
	return ""
}
