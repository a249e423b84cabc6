package game

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// Places: how the seats and the spectators' places are shared between the class's addresses.
//
// A place is a seat or a spectator's place. Each is counted for the address of the client that
// holds it, and for that address's network (transport.Network: the /24 of an IPv4 address, the
// /64 of an IPv6 one, what one home, one LAN or one customer of a provider holds). A seat held
// for a player who vanished (seats.go) counts for the address it last played from; a bot's
// seat counts for nobody.
//
// Each kind of place has a share per address and a share per network (Places, the
// server's --seats-per-address, --seats-per-network, --spectators-per-address and
// --spectators-per-network): what an address, or a network, keeps whoever else comes. Beyond
// its share an address still takes places, as long as they are free: a class behind one NAT,
// every student at one address, fills every seat and every place as it would alone. But those
// places are lent. A newcomer that finds no place free, and whose own address and network hold
// less than their shares, takes one lent place back (placeToTakeBack): the newest place of the
// address or network furthest beyond its share, whose client is disconnected with the reason
// and may come back as anybody does. A newcomer beyond its own share takes nothing back: it
// watches if a seat was what it wanted, or is refused with the reason. So one program at one
// address, or at every address of one network, can take every free place, and then loses one to
// each newcomer from elsewhere until it is down to its share: it cannot keep anybody out.
//
// The server's own host. HostPlaces spectators' places beyond MaxSpectators are kept for
// connections from the server's own host (Places.Host: its loopback and the machine's
// own addresses), the teacher's projector (`--connect 127.0.0.1:7777 --spectate` on the
// teacher's machine) and a second view, or the projector started again while its old
// connection times out. A connection from anywhere else takes at most MaxSpectators places,
// so the projector always finds one, however full the hall; and a place the host holds is
// never taken back. Trust: a connection's address is one its client receives at (the
// transport's handshake sends a challenge there, which the client must echo), so a student
// cannot pass for the host: a datagram from another machine never comes from the server's
// loopback, and a challenge to one of the server's own addresses arrives at the server, not at
// the student. (A relay on the server's machine, a userland proxy in front of the port, would
// make every connection the host's: do not put one there.)
//
// Why these defaults (RELIABILITY.md has the reasoning and the attacks):
//
//   - 2 seats per address: two players on one machine (two terminals, a teacher's demo); a
//     class behind one NAT still fills all 8 seats while nobody from elsewhere wants one.
//   - 8 seats per network, all of them: a class on the teacher's LAN is one /24, and a
//     smaller share would let anybody from outside (or the teacher's own machine) take seats
//     from it.
//   - 32 spectators' places per address: a class of 40 behind one NAT keeps its 32
//     spectators, the whole class's, whoever else comes.
//   - 128 per network: half the hall. However many addresses one network holds, the other
//     half goes to everybody else when the hall is full.

// Places is how a server shares its places: the places of each kind one address and one
// network keep when others want them (beyond them, their places are lent; the zero value of
// each means its default), the server's own host, and how long a seat is held.
type Places struct {
	SeatsPerAddress      int // 1..world.MaxPlayers
	SeatsPerNetwork      int // 1..world.MaxPlayers
	SpectatorsPerAddress int // 1..MaxSpectators
	SpectatorsPerNetwork int // 1..MaxSpectators
	// Host are the server's own host's addresses: a connection from one of them is the
	// teacher's own, the projector's, and may take the HostPlaces spectators' places nobody
	// else may. cmd/server gives the loopback networks and the machine's interfaces'
	// addresses; empty, no connection is the host's.
	Host []netip.Prefix
	// SeatHold: a seat whose player vanished is kept for it this long (so that it can come
	// back to its units), then freed for anybody (seats.go). Default and maximum MaxSeatHold.
	SeatHold time.Duration
}

// The default shares (places.go says why).
const (
	DefaultSeatsPerAddress      = 2
	DefaultSeatsPerNetwork      = world.MaxPlayers
	DefaultSpectatorsPerAddress = 32
	DefaultSpectatorsPerNetwork = MaxSpectators / 2
)

func (p Places) withDefaults() Places {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&p.SeatsPerAddress, DefaultSeatsPerAddress)
	def(&p.SeatsPerNetwork, DefaultSeatsPerNetwork)
	def(&p.SpectatorsPerAddress, DefaultSpectatorsPerAddress)
	def(&p.SpectatorsPerNetwork, DefaultSpectatorsPerNetwork)
	if p.SeatHold <= 0 || p.SeatHold > MaxSeatHold {
		p.SeatHold = MaxSeatHold
	}
	return p
}

// Check says which share is out of its range, if one is: a share is at least one place, and
// at most the places of its kind (0 stands for the default).
func (p Places) Check() error {
	for _, f := range []struct {
		name      string
		v, places int
	}{
		{"seats per address", p.SeatsPerAddress, world.MaxPlayers},
		{"seats per network", p.SeatsPerNetwork, world.MaxPlayers},
		{"spectators per address", p.SpectatorsPerAddress, MaxSpectators},
		{"spectators per network", p.SpectatorsPerNetwork, MaxSpectators},
	} {
		if f.v < 0 || f.v > f.places {
			return fmt.Errorf("game: %d %s: want 1..%d", f.v, f.name, f.places)
		}
	}
	return nil
}

// placeKind is a seat or a spectator's place.
type placeKind uint8

const (
	placeSeat placeKind = iota
	placeSpectator
)

func (k placeKind) String() string {
	if k == placeSeat {
		return "seat"
	}
	return "spectator"
}

// share is what one address and one network keep of a kind of place.
func (s *Server) share(kind placeKind) (perAddr, perNet int) {
	if kind == placeSeat {
		return s.cfg.Places.SeatsPerAddress, s.cfg.Places.SeatsPerNetwork
	}
	return s.cfg.Places.SpectatorsPerAddress, s.cfg.Places.SpectatorsPerNetwork
}

// isHost reports whether a is one of the server's own host's addresses (Places.Host).
func (s *Server) isHost(a netip.Addr) bool {
	a = a.Unmap().WithZone("") // a prefix contains no address with a zone
	for _, p := range s.cfg.Places.Host {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// placeHolder is a place as the sharing sees it: whose address holds it, since when, and
// the place (a seat or a spectator).
type placeHolder struct {
	addr      netip.Addr
	since     time.Time
	seat      *seat
	spectator *spectator
}

// holders lists the places of kind that count for an address: every seat but a bot's and
// an empty one, or every spectator.
func (s *Server) holders(kind placeKind) []placeHolder {
	var out []placeHolder
	if kind == placeSeat {
		for _, st := range s.seats.players {
			if st != nil && st.bot == nil && st.addr.IsValid() {
				out = append(out, placeHolder{addr: st.addr, since: st.since, seat: st})
			}
		}
		return out
	}
	for _, sp := range s.seats.spectators {
		if sp != nil && sp.peer != nil {
			out = append(out, placeHolder{addr: sp.peer.Addr().Addr().Unmap(), since: sp.joined, spectator: sp})
		}
	}
	return out
}

// placeCounts are the places of one kind each address and each network holds.
type placeCounts struct {
	byAddr map[netip.Addr]int
	byNet  map[netip.Prefix]int
}

func countPlaces(hs []placeHolder) placeCounts {
	c := placeCounts{byAddr: make(map[netip.Addr]int, len(hs)), byNet: make(map[netip.Prefix]int)}
	for _, h := range hs {
		c.byAddr[h.addr]++
		c.byNet[transport.Network(h.addr)]++
	}
	return c
}

// beyondShare is how far a's address or network is beyond its share, the further of the two
// (0 or less: within both).
func (c placeCounts) beyondShare(a netip.Addr, perAddr, perNet int) int {
	return max(c.byAddr[a]-perAddr, c.byNet[transport.Network(a)]-perNet)
}

// placeToTakeBack picks the place of kind that a newcomer from a, finding none free, takes
// back (lentPlace).
func (s *Server) placeToTakeBack(kind placeKind, a netip.Addr) (h placeHolder, ok bool, why string) {
	perAddr, perNet := s.share(kind)
	return lentPlace(s.holders(kind), a.Unmap(), kind, perAddr, perNet, s.isHost)
}

// lentPlace picks, of the places hs of kind, the one a newcomer from a takes back: the newest
// place of the address or network furthest beyond its share (perAddr, perNet), never one of
// the server's own host (host). ok is false when there is none to take: the newcomer's own
// address or network already holds its share (why says so, for its refusal), or no place is
// lent (why is empty). With ok, why is what the place's holder reads as the reason it lost it.
func lentPlace(hs []placeHolder, a netip.Addr, kind placeKind, perAddr, perNet int, host func(netip.Addr) bool) (h placeHolder, ok bool, why string) {
	c := countPlaces(hs)
	switch n, net := c.byAddr[a], transport.Network(a); {
	case n >= perAddr:
		return h, false, fmt.Sprintf("%d are your address's, which keeps %d", n, perAddr)
	case c.byNet[net] >= perNet:
		return h, false, fmt.Sprintf("%d are your network's, which keeps %d", c.byNet[net], perNet)
	}
	best := 0
	for _, x := range hs {
		if host(x.addr) {
			continue
		}
		if b := c.beyondShare(x.addr, perAddr, perNet); b > best || b == best && b > 0 && x.since.After(h.since) {
			h, best = x, b
		}
	}
	if best == 0 {
		return h, false, ""
	}
	whose, n, keeps := "your address", c.byAddr[h.addr], perAddr
	if net := transport.Network(h.addr); c.byNet[net]-perNet > n-perAddr {
		whose, n, keeps = "your network", c.byNet[net], perNet
	}
	return h, true, fmt.Sprintf("your place went to a newcomer: %s holds %d %ss and keeps %d while others wait", whose, n, kind, keeps)
}

// takeBack ends the connection that holds h's place, with why as its reason, for a newcomer
// from elsewhere, and frees the place. A seat's units stay in the world and go with it, as a
// kicked player's (kick.go).
func (s *Server) takeBack(h placeHolder, now time.Time, why string) {
	if st := h.seat; st != nil {
		s.stats.SeatsTakenBack++
		s.event(now, "seat taken back", "seat", st.idx, "name", st.name, "addr", h.addr, "why", why)
		if st.peer != nil {
			s.tr.Kick(st.peer, now, why) // onDisconnect holds the seat (playerLeft): freed below
		}
		s.freeSeatOf(st, now, "taken back for a newcomer from elsewhere")
		return
	}
	sp := h.spectator
	s.stats.SpectatorsTakenBack++
	s.event(now, "spectator's place taken back", "number", sp.num, "name", sp.name, "addr", h.addr, "why", why)
	s.tr.Kick(sp.peer, now, why) // onDisconnect frees its place (spectatorLeft)
}
