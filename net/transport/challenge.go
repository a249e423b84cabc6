package transport

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
	"net/netip"
	"time"

	"github.com/ackattack/ackattack/net/wire"
)

// The challenge is the handshake's cookie, as QUIC's Retry token, DTLS's HelloVerifyRequest
// cookie or netcode.io's connect token: the server answers a request with a tag that only it
// can compute, and keeps nothing. The tag is the first 16 bytes of
// HMAC-SHA256(secret, client address ‖ client port ‖ issued ‖ player id); the client echoes it
// with the issued time, and the server computes it again from the address the response came
// from. A valid tag proves that the client receives at that address, and an issued time less
// than ChallengeTTL old proves the tag fresh.
//
// The secret rotates: each period of ChallengeTTL on the server's clock (issued / period,
// counted from the Unix epoch) has a secret of its own, drawn from Config.Rand when the period's
// first challenge is issued or checked, and the server keeps the current period's and the one
// before. A fresh tag was issued in one of the two, since it is less than a period old, and
// the issued time says which. An older secret is gone for good: whoever learned one (from a
// core dump, or a memory bug) can forge tags for two periods at most, not for the server's
// whole life. Rotating needs no state per client, and a request never causes a draw of its
// own: at most one per period.

// challengeSecrets are the secrets of the current period and of the one before. Owner loop
// only, like the rest of the server.
type challengeSecrets struct {
	rand   io.Reader
	period int64 // milliseconds, at least 1
	epoch  int64 // the period of cur; bound is false until the first challenge binds it
	bound  bool
	cur    hash.Hash // HMAC-SHA256 under the current period's secret
	prev   hash.Hash // under the period before's, nil if that period had none
}

// newChallengeSecrets starts with first as the secret of the period of the first challenge:
// a server that takes no more than a period of joins draws only that one.
func newChallengeSecrets(r io.Reader, ttl time.Duration, first []byte) *challengeSecrets {
	return &challengeSecrets{rand: r, period: max(ttl.Milliseconds(), 1), cur: hmac.New(sha256.New, first)}
}

// rotate makes the secret of now's period the current one, drawing it if it is new. A clock
// that went back to an earlier period gets a new secret too (the tags of the later one could
// not be fresh anyway), so that a challenge issued now can always be checked.
func (c *challengeSecrets) rotate(now time.Time) {
	e := now.UnixMilli() / c.period
	switch {
	case !c.bound:
		c.epoch, c.bound = e, true
	case e != c.epoch:
		c.prev = nil
		if e == c.epoch+1 {
			c.prev = c.cur
		}
		var secret [32]byte
		if _, err := io.ReadFull(c.rand, secret[:]); err != nil {
			panic("transport: no randomness for the challenge secret: " + err.Error())
		}
		c.cur, c.epoch = hmac.New(sha256.New, secret[:]), e
	}
}

// of is the HMAC of the period that issued (milliseconds) falls in, nil if the server keeps
// no secret of that period (it ended more than a period ago, or it is to come).
func (c *challengeSecrets) of(issued uint64) hash.Hash {
	switch e := int64(issued / uint64(c.period)); {
	case issued > 1<<62:
		return nil
	case e == c.epoch:
		return c.cur
	case e == c.epoch-1:
		return c.prev
	}
	return nil
}

// tag computes the challenge's tag for a client at from, issued at issued, for player, under
// the secret of issued's period (ok false: the server has none: the challenge is not fresh).
func (c *challengeSecrets) tag(from netip.AddrPort, issued uint64, player wire.PlayerID) (tag [16]byte, ok bool) {
	mac := c.of(issued)
	if mac == nil {
		return tag, false
	}
	mac.Reset()
	a := from.Addr().As16()
	mac.Write(a[:])
	var b [10]byte
	binary.BigEndian.PutUint16(b[:2], from.Port())
	binary.BigEndian.PutUint64(b[2:], issued)
	mac.Write(b[:])
	mac.Write(player[:])
	var sum [sha256.Size]byte
	copy(tag[:], mac.Sum(sum[:0]))
	return tag, true
}
