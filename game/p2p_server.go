package game

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/ackattack/ackattack/world"
)

// Direct links, the server's side (the clients' side and the idea are in p2p.go).
//
// The server says where each player is (the address it sees its connection come from, never
// one a client names) and gives each pair of players a key (identity.go). A command names the
// players it went to directly (Command.Direct), and the server relays it to the others only.
// When a link stops delivering, one of its ends says so (LinkLost), and the server sends the
// commands that way may have lost again, and relays that way's commands for a while; a stalled
// link names its unacknowledged commands, and costs those alone.

// DirectMode is whether the players' commands go over direct links as well as to the server
// (ServerConfig.Orders.Direct, the --direct flag).
type DirectMode uint8

const (
	// DirectAuto: the direct links while the detour through the server would cost the lead
	// (directAutoOn), the server's relay alone while it would not.
	DirectAuto DirectMode = iota
	// DirectOn: the direct links always, whatever they cost.
	DirectOn
	// DirectOff: the server's relay alone, the fewest bytes: each order goes to the server
	// once, and the server sends it on with everything else a player gets.
	DirectOff
)

var directModeNames = [...]string{DirectAuto: "auto", DirectOn: "on", DirectOff: "off"}

func (m DirectMode) String() string {
	if int(m) < len(directModeNames) {
		return directModeNames[m]
	}
	return fmt.Sprintf("DirectMode(%d)", uint8(m))
}

// ParseDirectMode reads the --direct flag: auto, on or off.
func ParseDirectMode(s string) (DirectMode, error) {
	for m, name := range directModeNames {
		if s == name {
			return DirectMode(m), nil
		}
	}
	return DirectAuto, fmt.Errorf("direct links %q: want auto, on or off", s)
}

// What the direct links cost and what they save. Each order goes to every other player over
// its link, a datagram each, and each draws an ack back: at 8 players and 10% loss, 50 ms each
// way, a player sent and received about 3,000 B/s with the links, and 1,100 in and 900 out with
// the server's relay alone (BENCHMARKS.md, "A player in a modem"). What the links save is the
// detour: a relayed order takes its sender's way to the server and the server's way to the
// receiver, about a whole round trip, where a link takes half of one. While half the worst
// player's round trip is under a frame, the detour hides in the frame the lead already adds
// for an order issued inside a frame (lead.go), and the relay costs little: at 50 ms each way
// the same lead (200 ms) and 3.2% of late events re-run against 0.5% with the links, at
// 20 ms no more. At the class's presets (50 ms on each process, 100 ms a link) the detour is a
// frame, and the relay alone re-ran 38% of the late events against 12% with the links, at the
// same lead. So auto takes the links once half the worst round trip reaches directAutoOn, and
// leaves them once it falls below directAutoOff (apart, so that a round trip near the bound
// does not switch the links on and off: each switch costs the LinkLosts of the links that
// end). A student who slows their own path turns the links on for everybody: more bytes, a
// lead no longer than their path calls for anyway.
const (
	directAutoOn  = 3 * DefaultFrame / 4
	directAutoOff = 5 * DefaultFrame / 8
)

// directWanted is whether the players take direct links now: the mode, and in auto the
// server's measure of its players' round trips (pathRTT, as the lead takes them), once it has
// measured one (before, the relay alone).
func (s *Server) directWanted() bool {
	switch s.cfg.Orders.Direct {
	case DirectOn:
		return true
	case DirectOff:
		return false
	}
	var half time.Duration
	for _, st := range s.seats.players {
		if st == nil || st.peer == nil {
			continue
		}
		ps := st.peer.Stats()
		if ps.MinRTT == 0 {
			continue // no round trip measured yet: the initial guess is no path's
		}
		half = max(half, pathOf(ps, st.pings, s.drift.rw.mode).rtt/2)
	}
	frame := s.cfg.Frame
	if s.links.on {
		return half >= directAutoOff*frame/DefaultFrame
	}
	return half >= directAutoOn*frame/DefaultFrame
}

// updateDirect turns the direct links on or off as directWanted says: the players learn it in
// their Peers (an empty list ends their links, and each end tells the server, LinkLost, which
// sends again what they may have lost).
func (s *Server) updateDirect(now time.Time) {
	on := s.directWanted()
	if on == s.links.on {
		return
	}
	s.links.on = on
	s.stats.DirectSwitches++
	s.event(now, "direct links", "on", on, "mode", s.cfg.Orders.Direct.String())
	s.sendPeers(now)
}

// serverLinks is what the server keeps about the direct links of the whole game.
type serverLinks struct {
	secret [32]byte // derives the keys of the direct links (identity.go)
	on     bool     // the players take direct links now (ServerConfig.Orders.Direct, updateDirect)
}

// seatLinks is what the server keeps about one seat's direct links.
type seatLinks struct {
	direct bool       // the client takes direct links (its Peers), at the address it connects from
	sent   []PeerAddr // the Peers list this client has last been sent
	// relayAgain[o]: until then, seat o's commands are relayed to this client even when o
	// sent them over its direct link (the client's LinkLost); lostRate bounds its LinkLosts.
	relayAgain [world.MaxPlayers]time.Time
	// relayIDs[o]: seat o's commands with these ids are relayed to this client whatever their
	// Direct: o's link to it stalled with them unacknowledged (LinkLost.From..To). One that
	// reaches the server after the LinkLost is relayed as it comes.
	relayIDs [world.MaxPlayers]idRange
	lostRate rateBucket
}

// idRange is the ids from..to of a seat's commands; from 0: none.
type idRange struct{ from, to uint32 }

func (r idRange) has(id uint32) bool { return r.from != 0 && r.from <= id && id <= r.to }

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

// takesDirectLinks: a client's Peers says that it takes direct links. It says only that:
// where, the server saw. An address it names could be anybody's (a victim of the other
// clients' dials), so a list is a bad message.
func (s *Server) takesDirectLinks(now time.Time, st *seat, v *Peers) {
	if len(v.List) != 0 {
		s.stats.BadMessages++
		return
	}
	st.links.direct = true
	s.sendPeers(now)
}

// sendPeers tells every client that takes direct links where the others that do are, at
// the address the server sees each one's connection come from, with the key of each pair
// (identity.go), or nobody while the direct links are off (updateDirect). A client gets its
// list only when it changed.
func (s *Server) sendPeers(now time.Time) {
	for _, x := range s.seats.players {
		if x == nil || x.peer == nil || !x.links.direct {
			continue
		}
		var ps Peers
		for _, y := range s.seats.players {
			if !s.links.on || y == nil || y == x || y.peer == nil || !y.links.direct {
				continue
			}
			a := y.peer.Addr()
			ps.List = append(ps.List, PeerAddr{Seat: y.idx, Addr: netip.AddrPortFrom(a.Addr().Unmap(), a.Port()),
				Key: linkKeyOf(s.links.secret, x.idx, x.player, y.idx, y.player)})
		}
		if slices.Equal(ps.List, x.links.sent) {
			continue
		}
		x.links.sent = ps.List
		s.sendOn(&x.downlink, now, &x.deps.peers, &ps)
	}
}

// sentDirect reports whether c's player sent it to the client of d over their direct link
// (c.Direct), so that the relay would be a second copy, and that client has not lost that
// link lately (relayAgain). Spectators have no links: they get every command from the server.
func (s *Server) sentDirect(now time.Time, c *Command, d *downlink) bool {
	if c.Direct == 0 {
		return false
	}
	for i, st := range s.seats.players {
		if st != nil && d == &st.downlink {
			return c.Direct&(1<<i) != 0 && !now.Before(st.links.relayAgain[c.Seat]) && !st.links.relayIDs[c.Seat].has(c.ID)
		}
	}
	return false
}

// linkLost: the direct link between st and seat o stopped delivering (p2p.go), so commands
// sent over it may be lost, and the server did not relay them. Why says which way: quiet, o's
// commands to st (st hears nothing); stalled, st's to o (st's command went unacknowledged);
// ended, both. For each such direction the server sends the receiver again the sender's
// commands it still holds that went over the link (an older one than the re-run window's
// frames ago can no longer be run exactly; the hashes repair what it changed), and relays the
// sender's commands to the receiver whatever their Direct, for relayAgainFor. A stall that
// names its commands (From..To) costs those alone: the server sends again and relays the ones
// with those ids, and the link carries the rest (st sends nothing over it until they are
// acknowledged). The receiver drops the copies it has.
func (s *Server) linkLost(now time.Time, st *seat, m *LinkLost) {
	o := m.Seat
	other := s.seats.players[o]
	if o == st.idx || other == nil {
		s.stats.BadMessages++
		return
	}
	s.stats.LinksLost++
	resend := st.links.lostRate.take(now, lostLimit)
	if !resend {
		s.stats.LinkLostsLimited++
	}
	if m.Why == LinkStalled && m.From != 0 && m.To >= m.From {
		ids := idRange{m.From, m.To}
		other.links.relayIDs[st.idx] = ids // st's commands to o
		s.relayAgain(now, st, other, resend, ids)
		return
	}
	if m.Why != LinkStalled {
		st.links.relayAgain[other.idx] = now.Add(relayAgainFor)
		s.relayAgain(now, other, st, resend, idRange{}) // o's commands to st
	}
	if m.Why != LinkQuiet {
		other.links.relayAgain[st.idx] = now.Add(relayAgainFor)
		s.relayAgain(now, st, other, resend, idRange{}) // st's commands to o
	}
}

// relayAgain, with resend, sends to's client again from's commands that went to it over their
// link (Direct), those with ids (any, if ids says none) that the server still holds for the
// re-run window's frames and still to run. The ones the server relayed to it it has.
func (s *Server) relayAgain(now time.Time, from, to *seat, resend bool, ids idRange) {
	if !resend || to.peer == nil || !to.started || s.w == nil {
		return
	}
	// Not before the world it started from, which holds those (a joiner's snapshot): sent
	// again, a command it never saw on its own would run twice.
	oldest := max(s.w.Frame()-min(s.w.Frame(), s.drift.rw.windowFrames()), to.startFrame)
	s.sched.each(func(e *event) {
		if e.kind == evCommand && e.cmd != nil && e.seat == from.idx && e.frame >= oldest &&
			e.cmd.Direct&(1<<to.idx) != 0 && (ids.from == 0 || ids.has(e.cmd.ID)) {
			s.stats.CommandsRelayedAgain++
			s.send(&to.downlink, now, e.cmd)
		}
	})
}
