package transport

import (
	"crypto/ecdh"
	"errors"
	"fmt"
	"io"
	"net/netip"

	"github.com/ackattack/ackattack/net/wire"
)

// The keys of a connection and what it remembers of them (net/PROTOCOL.md section 3, "The
// sealed frame"). The handshake is an X25519 exchange: the client sends a fresh public key in
// its ChallengeResponse, the server answers with one of its own in Accepted, and each side
// derives the same two keys from its private key and the other's public key (wire.ConnectionKeys).
// The keys never travel, so somebody who sees the whole handshake learns nothing that opens
// the connection's datagrams. The exchange keeps the handshake's rules against amplification:
// the client's public key arrives only with the response, and the server spends an X25519
// operation only on a response whose tag is good. It does not authenticate the server:
// somebody who can rewrite the handshake in flight (not merely read it) can sit in the middle;
// a LAN game has no key it could know beforehand.
//
// After the handshake every datagram of the connection, Data, Ping, Pong and Disconnect alike,
// is sealed: encrypted, authenticated, and numbered by a counter per direction that the
// connection's sealer keeps. A datagram from the peer's address that fails authentication
// (forged or altered, a spoofer who guessed the address, a stale connection) is dropped and
// counted as wrong_key; one that authenticates but whose counter was accepted before, or lies
// 1,024 or more behind the largest accepted, is a copy (ReplayRecord) and is dropped and
// counted as replay, unanswered: a replayed Ping gets no Pong. Config.KeyLog hands the keys to
// a test or a debugging tool that wants to decode a capture.

// errReplay is what open reports for a datagram that authenticates but was accepted before,
// or is older than the replay window.
var errReplay = errors.New("transport: replayed datagram: its counter was accepted before, or is older than the replay window")

// replayWindow is how many counters below the largest one accepted a receiver still tells
// apart, new from seen: a datagram that the link delayed behind up to 1,023 later ones still
// counts. Anything older is refused as a replay (a Data packet that old would be stale anyway,
// and a Ping or Pong that old has lost its meaning).
const replayWindow = 1024

// replayWords is the ring of bitmap words: one more than the window needs, so that moving the
// window on clears whole words without forgetting a counter still inside it (RFC 6479).
const replayWords = replayWindow/64 + 1

// ReplayRecord remembers which counters of the last 1,024 a receiver accepted, to refuse a
// copy of a datagram (net/PROTOCOL.md section 3). Every sealed connection keeps one; a replay
// of a capture (game/replay) keeps one per direction to tell which datagrams the host refused.
// The zero value has accepted nothing.
type ReplayRecord struct {
	next uint64 // the counter after the largest accepted; 0 before the first
	bits [replayWords]uint64
}

// Accept reports whether counter c is new and inside the window, and if so marks it seen.
func (w *ReplayRecord) Accept(c uint64) bool {
	if c >= w.next {
		if w.next > 0 {
			// The words between the largest's and c's come into use for new counters.
			from, to := (w.next-1)>>6, c>>6
			for i := from + 1; i <= to && i <= from+replayWords; i++ {
				w.bits[i%replayWords] = 0
			}
		}
		w.next = c + 1
	} else if w.next-1-c >= replayWindow {
		return false
	}
	word, bit := &w.bits[(c>>6)%replayWords], uint64(1)<<(c&63)
	if *word&bit != 0 {
		return false
	}
	*word |= bit
	return true
}

// sealer is one connection's sealing state: the key of each direction, the counter of the
// next datagram it seals, and the record of the counters it opened. It is the connection's
// message.Frame, and the transport seals its Ping, Pong and Disconnect packets with it too, so
// all of them share one counter.
type sealer struct {
	send, recv *wire.SealKey
	sent       uint64
	seen       ReplayRecord
}

func newSealer(send, recv *[wire.KeySize]byte) *sealer {
	return &sealer{send: wire.NewSealKey(send), recv: wire.NewSealKey(recv)}
}

// Overhead: the counter in front, the tag behind.
func (s *sealer) Overhead() (front, back int) { return wire.CounterSize, wire.TagSize }

// Begin appends room for the counter.
func (s *sealer) Begin(b []byte) []byte { return wire.BeginSealed(b) }

// Seal seals the datagram at b[start:] with the next counter.
func (s *sealer) Seal(b []byte, start int) []byte {
	c := s.sent
	s.sent++
	return s.send.Seal(b, start, c)
}

// Open opens d in place and refuses a replay.
func (s *sealer) Open(d []byte) ([]byte, error) {
	if len(d) < wire.CounterSize {
		return s.open(nil, d)
	}
	return s.open(d[wire.CounterSize:wire.CounterSize], d)
}

// open opens d into dst (so d stays as it was if it fails) and checks its counter: a datagram
// that fails authentication is the wire's ErrChecksum, one whose counter was accepted before
// or is too old errReplay.
func (s *sealer) open(dst, d []byte) ([]byte, error) {
	packet, counter, err := s.recv.Open(dst, d, s.seen.next)
	if err != nil {
		return nil, err
	}
	if !s.seen.Accept(counter) {
		return nil, errReplay
	}
	return packet, nil
}

// ConnKeys are the keys of one connection, as Config.KeyLog reports them.
type ConnKeys struct {
	Peer netip.AddrPort     // the other end
	Send [wire.KeySize]byte // the key of the datagrams to Peer
	Recv [wire.KeySize]byte // the key of the datagrams from Peer
}

// keyPair is one side's X25519 key pair for one connection.
type keyPair struct {
	private *ecdh.PrivateKey
	public  wire.PublicKey
}

// newKeyPair draws a key pair from r (Config.Rand: crypto/rand, or a seeded source in tests).
func newKeyPair(r io.Reader) keyPair {
	var b [32]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		panic("transport: no randomness for a key pair: " + err.Error())
	}
	priv, err := ecdh.X25519().NewPrivateKey(b[:])
	if err != nil {
		panic("transport: X25519 private key: " + err.Error()) // any 32 bytes are one
	}
	var kp keyPair
	kp.private = priv
	copy(kp.public[:], priv.PublicKey().Bytes())
	return kp
}

// connKeys derives a connection's keys from our key pair and the peer's public key; client
// says which side we are. A peer key that gives no secret (a point of small order) is an error.
func (kp *keyPair) connKeys(peer netip.AddrPort, theirs *wire.PublicKey, client bool) (ConnKeys, error) {
	pub, err := ecdh.X25519().NewPublicKey(theirs[:])
	if err != nil {
		return ConnKeys{}, fmt.Errorf("transport: the peer's public key: %w", err)
	}
	shared, err := kp.private.ECDH(pub)
	if err != nil {
		return ConnKeys{}, fmt.Errorf("transport: the peer's public key: %w", err)
	}
	k := ConnKeys{Peer: peer}
	if client {
		k.Send, k.Recv = wire.ConnectionKeys(shared, &kp.public, theirs)
	} else {
		k.Recv, k.Send = wire.ConnectionKeys(shared, theirs, &kp.public)
	}
	return k, nil
}
