package game

import (
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
// (identity.go). A client gets its list only when it changed.
func (s *Server) sendPeers(now time.Time) {
	for _, x := range s.seats.players {
		if x == nil || x.peer == nil || !x.links.direct {
			continue
		}
		var ps Peers
		for _, y := range s.seats.players {
			if y == nil || y == x || y.peer == nil || !y.links.direct {
				continue
			}
			a := y.peer.Addr()
			ps.List = append(ps.List, PeerAddr{Seat: y.idx, Addr: netip.AddrPortFrom(a.Addr().Unmap(), a.Port()),
				Key: linkKeyOf(s.linkSecret, x.idx, x.player, y.idx, y.player)})
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
