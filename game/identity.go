package game

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// Who is who. A player id is public: PlayerInfo shows every player's to every client, so an id
// proves nothing, and nothing that an id alone opens is worth having. Three things stand on a
// secret instead.
//
// A seat. On a player's first join the server draws a secret of 32 random bytes for it and
// sends it in a PlayerSecret to that player's connection alone. A connection that comes with
// the id of a seated player (connected, or held for it after it left) is not seated: the
// server sends it a Challenge with a fresh nonce, and seats it only on a Proof, an HMAC of the
// nonce under the secret (seatMAC); a bot's seat is claimed the same way and never proved (its
// player id derives from its name, and it has no secret). Only then is an older connection of the player, if one is
// still open, replaced; until then it is left alone. A connection that sends a wrong proof,
// or none within claimDeadline, is kicked: "seat belongs to another player". A client keeps
// its id and secret (cmd/client: per server and name in the user's configuration directory, or
// in the file --identity names), so a player who restarts gets its seat back.
//
// The proof travels in the first game messages of the connection, not in the transport's
// handshake. The transport knows nothing of games or seats (its handshake packets carry no
// game data, and their sizes are what keeps a server from amplifying anything), the
// connection is already bound to an address the transport checked, and only a claim on a
// seat costs the round trip: a first join is seated at once. The secret itself travels once,
// in the PlayerSecret; a reclaim shows only an HMAC of a nonce the server never uses twice,
// so a proof seen on the way opens nothing later.
//
// A direct link. The server derives a key for every pair of players (linkKeyOf: an HMAC of the
// two seats and player ids under a secret of its own) and sends each client, in its own Peers,
// the keys it shares with the others: a key reaches the two players of its pair and nobody
// else. Each side of a new link sends the other a Challenge and answers the other's with a
// Proof under the pair's key (linkMAC, which names who proves to whom); the link counts, and
// carries commands, only once the other side has proved, and one that has not within
// linkProofDeadline is dropped (p2p.go). A player who dials as somebody else cannot prove, and
// its connection stands beside the real link without touching it.
//
// An address. The server lists the address it sees each client's connection come from
// (the client has one socket for everything, so that is where its direct links arrive too),
// never an address a client announces: a client's Peers says only "I take direct links". A
// client dials a player only at an address the server listed, and sends it nothing but the
// transport's connection requests (1200 bytes, one every directRetry, five at most) until the
// player has answered; it dials an address that never answered only when the server lists it
// anew (p2p.go).

// Sizes of the identity fields.
const (
	SecretSize = 32 // a player's secret
	NonceSize  = 16 // a Challenge's nonce
	MACSize    = sha256.Size
)

// Secret is what the server gives a player on its first join, and what the player proves to
// come back to its seat. The zero Secret stands for none.
type Secret [SecretSize]byte

// IsZero reports whether s is the zero Secret: none.
func (s Secret) IsZero() bool { return s == Secret{} }

// Nonce is a Challenge's random bytes.
type Nonce [NonceSize]byte

// MAC is a Proof's HMAC-SHA256.
type MAC [MACSize]byte

// LinkKey is the key two players share for their direct link.
type LinkKey [32]byte

// The labels that keep the three kinds of HMAC apart: a proof made for one can never pass for
// another.
const (
	labelSeat    = "ackattack seat proof\x00"
	labelLink    = "ackattack link proof\x00"
	labelLinkKey = "ackattack link key\x00"
)

// seatMAC is the Proof of a claim on player's seat: HMAC-SHA256 under its secret of the label,
// the player id and the server's nonce.
func seatMAC(secret Secret, player uuid.UUID, nonce Nonce) MAC {
	h := hmac.New(sha256.New, secret[:])
	h.Write([]byte(labelSeat))
	h.Write(player[:])
	h.Write(nonce[:])
	return MAC(h.Sum(nil))
}

// linkMAC is the Proof that prover gives verifier on their direct link: HMAC-SHA256 under the
// pair's key of the label, the prover's seat, the verifier's seat and the verifier's nonce.
// Naming both seats makes the proof one way: an answer to a challenge can never serve as the
// other side's.
func linkMAC(key LinkKey, prover, verifier uint8, nonce Nonce) MAC {
	h := hmac.New(sha256.New, key[:])
	h.Write([]byte(labelLink))
	h.Write([]byte{prover, verifier})
	h.Write(nonce[:])
	return MAC(h.Sum(nil))
}

// linkKeyOf derives the key of the link between seats a and b, played by players pa and pb:
// HMAC-SHA256 under the server's link secret of the label, then the lower seat and its player,
// then the higher seat and its player. A seat that changes player changes its keys.
func linkKeyOf(secret [32]byte, a uint8, pa uuid.UUID, b uint8, pb uuid.UUID) LinkKey {
	if a > b {
		a, pa, b, pb = b, pb, a, pa
	}
	h := hmac.New(sha256.New, secret[:])
	h.Write([]byte(labelLinkKey))
	h.Write([]byte{a})
	h.Write(pa[:])
	h.Write([]byte{b})
	h.Write(pb[:])
	return LinkKey(h.Sum(nil))
}

// macEqual compares two MACs in constant time.
func macEqual(a, b MAC) bool { return subtle.ConstantTimeCompare(a[:], b[:]) == 1 }

// The server's side of a seat's secret.

// claimDeadline is how long a connection that claims a seated player's id has to prove the
// player's secret; maxClaims bounds the claims waiting at once.
const (
	claimDeadline = 5 * time.Second
	maxClaims     = 4
)

// errSeatTaken is what a connection that claims a seat and cannot prove it reads.
const errSeatTaken = "seat belongs to another player"

// claim is a connection that came with the id of a seated player and has not proved it yet.
type claim struct {
	peer     *transport.Peer
	nonce    Nonce
	deadline time.Time
}

// claimSeat answers a connection with the id of a seated player: a Challenge, and no seat
// until its Proof. The player's open connection, if any, is left alone. Too many claims at
// once: the oldest from the same address (IP) goes, or else the oldest, so that one source
// cannot crowd out the player's own claim. A bot's seat is refused at once: a bot has no
// secret, so no proof can come, and the claim would hold one of the maxClaims places for
// claimDeadline for nothing.
func (s *Server) claimSeat(p *transport.Peer, now time.Time) {
	c := &claim{peer: p, deadline: now.Add(claimDeadline)}
	if s.seats.seatOfPlayer(p.PlayerID()).bot != nil {
		s.refuseClaim(c, now, errSeatTaken+": a bot plays it")
		return
	}
	if _, err := io.ReadFull(s.cfg.Transport.Rand, c.nonce[:]); err != nil {
		s.cfg.Logger.Error("claim: no randomness for a nonce", "err", err)
		s.tr.Kick(p, now, "server error: no randomness")
		return
	}
	s.seats.claims = append(s.seats.claims, c)
	if err := s.seats.move(p, role{kind: roleClaiming, claim: c}); err != nil {
		s.cfg.Logger.Error("claim", "err", err)
	}
	if len(s.seats.claims) > maxClaims {
		out := toPushOut(s.seats.claims[:len(s.seats.claims)-1], p, func(c *claim) *transport.Peer { return c.peer })
		s.refuseClaim(out, now, errSeatTaken+": too many claims at once")
	}
	s.event(now, "seat claimed", "seat", s.seats.seatOfPlayer(p.PlayerID()).idx, "addr", p.Addr())
	if err := sendFirst(p.Conn(), now, &Challenge{Nonce: c.nonce}, &s.stats.SendsRefused); err != nil {
		s.cfg.Logger.Warn("send refused", "addr", p.Addr(), "type", MsgChallenge, "err", err)
	}
}

// toPushOut is the connection a table of connections waiting to prove themselves (the
// claims on seats, a client's unproved direct links) pushes out when a newcomer takes it past
// its bound: of the older ones, oldest first, the oldest from the newcomer's address (IP), or
// else the oldest, so that one source cannot crowd out everybody else's.
func toPushOut[T any](older []T, newcomer *transport.Peer, peer func(T) *transport.Peer) T {
	for _, o := range older {
		if peer(o).Addr().Addr() == newcomer.Addr().Addr() {
			return o
		}
	}
	return older[0]
}

// dropClaim forgets c (it was settled, or its connection ended).
func (s *Server) dropClaim(c *claim) {
	for i, o := range s.seats.claims {
		if o == c {
			s.seats.claims = append(s.seats.claims[:i], s.seats.claims[i+1:]...)
			return
		}
	}
}

// refuseClaim ends a claim that failed: its connection is kicked with the reason.
func (s *Server) refuseClaim(c *claim, now time.Time, why string) {
	s.dropClaim(c)
	s.stats.ClaimsRefused++
	s.event(now, "seat claim refused", "addr", c.peer.Addr(), "why", why)
	s.tr.Kick(c.peer, now, why)
}

// onClaimMessage handles a message from a connection that claims a seat: only its Proof
// counts.
func (s *Server) onClaimMessage(c *claim, now time.Time, msg Msg) {
	pr, ok := msg.(*Proof)
	if !ok {
		s.stats.BadMessages++ // nothing else is for a connection without a seat
		return
	}
	st := s.seats.seatOfPlayer(c.peer.PlayerID())
	if st == nil || s.holdExpired(st, now) {
		// The seat was freed while the proof was on its way: the player is new again.
		s.dropClaim(c)
		s.join(c.peer, now)
		return
	}
	// A bot has no secret: nobody proves its seat.
	if st.bot != nil || !macEqual(pr.MAC, seatMAC(st.secret, st.player, c.nonce)) {
		s.refuseClaim(c, now, errSeatTaken)
		return
	}
	s.dropClaim(c)
	if err := s.refuseName(c.peer.Name(), st, now); err != nil {
		s.refuseJoin(c.peer, now, err.Error())
		return
	}
	if old := st.peer; old != nil {
		// Only now: the newcomer proved to be the player.
		s.tr.Drop(old, now, wire.DisconnectReplaced, "the player connected again from "+c.peer.Addr().String())
	}
	s.stats.SeatsReclaimed++
	s.event(now, "seat reclaimed", "seat", st.idx, "addr", c.peer.Addr())
	s.seatPeer(st, c.peer, now, false)
}

// expireClaims refuses the claims whose deadline passed.
func (s *Server) expireClaims(now time.Time) {
	for len(s.seats.claims) > 0 {
		i := -1
		for j, c := range s.seats.claims {
			if !now.Before(c.deadline) {
				i = j
				break
			}
		}
		if i < 0 {
			return
		}
		s.refuseClaim(s.seats.claims[i], now, errSeatTaken+": no proof of its secret within "+claimDeadline.String())
	}
}

// nextClaimDeadline is the earliest claim deadline (zero: none).
func (s *Server) nextClaimDeadline() time.Time {
	var next time.Time
	for _, c := range s.seats.claims {
		next = transport.Earliest(next, c.deadline)
	}
	return next
}

// The client's side of its secret.

// answerSeatChallenge proves this player's secret to the server.
func (c *Client) answerSeatChallenge(now time.Time, ch *Challenge) {
	if c.secret.IsZero() {
		// The server knows this player id and this client has no secret for it: the server
		// ends the connection with its reason when the claim's deadline passes.
		c.cfg.Logger.Warn("the server asks for this player's secret, and this client has none")
		return
	}
	c.send(now, &Proof{MAC: seatMAC(c.secret, c.cfg.PlayerID, ch.Nonce)})
}

// takeSecret keeps the secret the server gave this player, and hands it to OnSecret.
func (c *Client) takeSecret(ps *PlayerSecret) {
	if ps.Secret.IsZero() {
		c.stats.BadMessages++
		return
	}
	c.secret = ps.Secret
	if c.cfg.OnSecret != nil {
		c.cfg.OnSecret(c.cfg.PlayerID, c.secret)
	}
}

// Identity is this player's id and its secret (zero before the server gave one). Owner loop
// only.
func (c *Client) Identity() (uuid.UUID, Secret) { return c.cfg.PlayerID, c.secret }
