package wire

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"golang.org/x/crypto/chacha20poly1305"
)

// The sealed frame: how every datagram of an established connection travels (net/PROTOCOL.md
// section 3 is the reference).
//
// A checksum that anybody can compute protects nothing from somebody who tries: whoever sees
// one datagram of a connection can forge any other, and a copy of an old datagram is as good as
// new. So the datagrams of a connection are sealed with an AEAD, ChaCha20-Poly1305, as
// netcode.io seals its packets. Each direction has a key of its own (ConnectionKeys derives
// both from the handshake's X25519 exchange) and counts the datagrams it seals from 0, so no
// nonce is ever used twice with a key. The tag proves that the datagram comes from the holder
// of the key and was not changed on the way; the encryption keeps what the game says (a
// player's secret, a chat line) from anybody who merely sees the traffic. Only the low 16 bits
// of the counter travel: the receiver expands them to the value closest to the counter after
// the largest it accepted (ExpandCounter, QUIC's rule), right as long as fewer than 32,768
// datagrams in a row went missing, and a copy older than that expands to another counter and
// fails authentication. Which counters were already accepted is the receiver's to remember:
// the frame only makes every copy recognisable as one (net/transport refuses them).
//
//	offset  size  field
//	0       2     counter: the low 16 bits of the datagram's counter, big-endian
//	2       n     the packet (type byte and body), encrypted
//	2+n     16    tag
//
// The packet is sealed with ChaCha20-Poly1305 (RFC 8439): the key of the datagram's direction,
// the nonce 00 00 00 00 ‖ counter (the whole 64-bit counter, big-endian), the two counter
// bytes as additional data.
const (
	// CounterSize is the size of the counter field at the front of a sealed datagram.
	CounterSize = 2
	// TagSize is the size of the authentication tag at its end.
	TagSize = chacha20poly1305.Overhead
	// SealedOverhead is what the sealed frame adds to a packet: 18 bytes, where the plain
	// frame's checksum takes 4.
	SealedOverhead = CounterSize + TagSize
	// KeySize is the size of the key of one direction of a connection.
	KeySize = chacha20poly1305.KeySize
	// PublicKeySize is the size of an X25519 public key, as the handshake carries them.
	PublicKeySize = 32

	minSealed = CounterSize + 1 + TagSize
)

// The errors of Open are built once: a flood of forged datagrams should cost no allocations.
var (
	errSealedShort = fmt.Errorf("wire: sealed datagram shorter than counter, packet type and tag: %w", ErrShort)
	errSealedLong  = fmt.Errorf("wire: sealed datagram longer than %d bytes: %w", MaxDatagram, ErrTooLong)
	errSealedAuth  = fmt.Errorf("wire: sealed datagram fails authentication: %w", ErrChecksum)
)

// SealKey seals and opens the datagrams of one direction of a connection. It keeps nothing
// from one datagram to the next (the counters are the caller's), but it holds a scratch nonce,
// so it belongs to one goroutine at a time.
type SealKey struct {
	aead cipher.AEAD
	// nonce is scratch for every call: a nonce built in a local array would escape into the
	// AEAD's interface call, one allocation per datagram.
	nonce [chacha20poly1305.NonceSize]byte
}

// NewSealKey returns the sealer of one direction with key (ConnectionKeys derives the two).
func NewSealKey(key *[KeySize]byte) *SealKey {
	aead, err := chacha20poly1305.New(key[:])
	if err != nil {
		panic("wire: NewSealKey: " + err.Error()) // the key has the right size by its type
	}
	return &SealKey{aead: aead}
}

// BeginSealed appends the 2 bytes that Seal later fills with the counter. Append the packet
// after them.
func BeginSealed(b []byte) []byte {
	return append(b, 0, 0)
}

// Seal seals the datagram that starts at b[start]: its first CounterSize bytes (as BeginSealed
// appended them) get the low 16 bits of counter, the packet after them is encrypted in place,
// and the tag is appended. It returns b with the tag. A counter must never seal two datagrams
// with the same key: the caller counts from 0 and never goes back. A datagram without room for
// the counter and a packet type is a programming error and panics.
func (k *SealKey) Seal(b []byte, start int, counter uint64) []byte {
	if len(b)-start < CounterSize+1 {
		panic("wire: SealKey.Seal: datagram shorter than its counter and packet type")
	}
	b = slices.Grow(b, TagSize) // so the AEAD seals in place
	d := b[start:]
	binary.BigEndian.PutUint16(d, uint16(counter))
	k.setNonce(counter)
	sealed := k.aead.Seal(d[CounterSize:CounterSize], k.nonce[:], d[CounterSize:], d[:CounterSize])
	return b[:start+CounterSize+len(sealed)]
}

// Open verifies and decrypts the sealed datagram d. next is the counter after the largest one
// the receiver has accepted in this direction (0 before the first): the full counter is the
// one closest to next with the low 16 bits that d carries (ExpandCounter). Open appends the
// packet, from its type byte on, to dst and returns it with the full counter; the receiver
// decides whether that counter is new (the replay window is the connection's). dst must have
// room for the packet and may not overlap d, except as d[CounterSize:CounterSize] to open in
// place. It returns ErrTooLong for a datagram longer than MaxDatagram, ErrShort for one
// without room for the counter, a packet type and the tag, and ErrChecksum if it fails
// authentication: forged, altered, sealed with another key, or a copy so old that its counter
// expands to another value. After a failure d is unchanged unless it was opened in place, and
// the spare capacity of dst is cleared as far as the packet would have reached.
func (k *SealKey) Open(dst, d []byte, next uint64) (packet []byte, counter uint64, err error) {
	if len(d) > MaxDatagram {
		return nil, 0, errSealedLong
	}
	if len(d) < minSealed {
		return nil, 0, errSealedShort
	}
	counter = ExpandCounter(next, binary.BigEndian.Uint16(d))
	k.setNonce(counter)
	packet, err = k.aead.Open(dst, k.nonce[:], d[CounterSize:], d[:CounterSize])
	if err != nil {
		return nil, 0, errSealedAuth
	}
	return packet, counter, nil
}

func (k *SealKey) setNonce(counter uint64) {
	binary.BigEndian.PutUint64(k.nonce[4:], counter) // bytes 0-3 stay 0
}

// ExpandCounter returns the full counter of a datagram that carries its low 16 bits: the value
// with those bits that is closest to next, the counter after the largest one accepted so far
// (0 before the first), so within (next-32768, next+32768]; of two values 32768 away, the one
// ahead. This is QUIC's packet number decoding (RFC 9000, appendix A.3) with a 16-bit field.
// A copy whose true counter is 32768 or more behind next expands to another counter, so it
// fails authentication.
func ExpandCounter(next uint64, low uint16) uint64 {
	const window = 1 << 16
	const half = window / 2
	c := next&^(window-1) | uint64(low)
	switch {
	case c <= next && next-c >= half && c <= math.MaxUint64-window:
		return c + window
	case c > next && c-next > half && c >= window:
		return c - window
	}
	return c
}

// keyInfo starts the HKDF info of ConnectionKeys; the two public keys follow it.
const keyInfo = "ackattack connection keys"

// ConnectionKeys derives the keys of a connection's two directions from the handshake: the
// X25519 shared secret of the client's and the server's key pairs, and the two public keys
// as the handshake carried them. It is HKDF-SHA256 (RFC 5869) with
//
//	secret  the 32-byte shared secret
//	salt    "ACKATT01", ProtocolID's 8 bytes
//	info    "ackattack connection keys" ‖ client public key ‖ server public key
//	length  64 bytes: the client→server key, then the server→client key
//
// Both public keys go into the info, so a key pair that an attacker swapped in on the way gives
// other keys on the two sides, and the connection carries nothing.
func ConnectionKeys(shared []byte, client, server *PublicKey) (toServer, toClient [KeySize]byte) {
	info := make([]byte, 0, len(keyInfo)+2*PublicKeySize)
	info = append(append(append(info, keyInfo...), client[:]...), server[:]...)
	salt := binary.BigEndian.AppendUint64(nil, ProtocolID)
	out, err := hkdf.Key(sha256.New, shared, salt, string(info), 2*KeySize)
	if err != nil {
		panic("wire: ConnectionKeys: " + err.Error()) // 64 bytes of SHA-256 is always allowed
	}
	copy(toServer[:], out)
	copy(toClient[:], out[KeySize:])
	return toServer, toClient
}
