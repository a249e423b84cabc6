package wire

import (
	"bytes"
	"crypto/ecdh"
	"encoding/hex"
	"math"
	"testing"
)

// The expected bytes in these tests were computed with another implementation (Python's
// cryptography package: X25519, HKDF, ChaCha20Poly1305) from the rules in net/PROTOCOL.md,
// not with this package.

// The key pairs of RFC 7748, section 6.1: the client is Alice, the server Bob.
const (
	rfcClientPrivate = "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"
	rfcClientPublic  = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
	rfcServerPrivate = "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"
	rfcServerPublic  = "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
	rfcShared        = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"

	// The keys ConnectionKeys derives from them.
	rfcToServer = "ec34ff33f467e85cd7a703c5f246a640090ff2c3087283a52e77ed70d2af4e2d"
	rfcToClient = "811632324e87fbabc68fd6ac7e0f6e9051304502b08cabcc535c6456902a3ec8"
)

func key32(tb testing.TB, s string) *[32]byte {
	tb.Helper()
	var k [32]byte
	if b := unhex(tb, s); len(b) != 32 || copy(k[:], b) != 32 {
		tb.Fatalf("key %q is not 32 bytes", s)
	}
	return &k
}

func TestConnectionKeys(t *testing.T) {
	curve := ecdh.X25519()
	cpriv, err := curve.NewPrivateKey(unhex(t, rfcClientPrivate))
	if err != nil {
		t.Fatal(err)
	}
	spriv, err := curve.NewPrivateKey(unhex(t, rfcServerPrivate))
	if err != nil {
		t.Fatal(err)
	}
	cpub, spub := (*PublicKey)(key32(t, rfcClientPublic)), (*PublicKey)(key32(t, rfcServerPublic))
	if !bytes.Equal(cpriv.PublicKey().Bytes(), cpub[:]) || !bytes.Equal(spriv.PublicKey().Bytes(), spub[:]) {
		t.Fatal("the public keys are not RFC 7748's")
	}
	for _, side := range []struct {
		priv *ecdh.PrivateKey
		peer *PublicKey
	}{{cpriv, spub}, {spriv, cpub}} {
		pub, err := curve.NewPublicKey(side.peer[:])
		if err != nil {
			t.Fatal(err)
		}
		shared, err := side.priv.ECDH(pub)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(shared) != rfcShared {
			t.Fatalf("shared secret %x, want %s", shared, rfcShared)
		}
		toServer, toClient := ConnectionKeys(shared, cpub, spub)
		if got := hex.EncodeToString(toServer[:]); got != rfcToServer {
			t.Errorf("client→server key %s, want %s", got, rfcToServer)
		}
		if got := hex.EncodeToString(toClient[:]); got != rfcToClient {
			t.Errorf("server→client key %s, want %s", got, rfcToClient)
		}
	}
	// Swapping the public keys (or changing either) gives other keys.
	shared := unhex(t, rfcShared)
	a, b := ConnectionKeys(shared, cpub, spub)
	c, d := ConnectionKeys(shared, spub, cpub)
	if a == c || b == d || a == b {
		t.Error("the keys do not depend on which public key is whose")
	}
}

func TestSealKeySeal(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		counter uint64
		packet  string // from the type byte on
		sealed  string // the whole datagram
	}{
		{"ping, client to server, counter 70000", rfcToServer, 70000, "08 00000001 17979cfe9c240000",
			"1170 ba2c4189ed4c5a66be26fefa 64289aef5a60eb4d77e7951738712bfa83"},
		{"keepalive, server to client, counter 0", rfcToClient, 0, "01 10 0100 01",
			"0000 19b35b3ef0 f0dda6b64a093dfa6172e488a8698ec3"},
		{"keepalive, counter 65535", rfcToClient, 65535, "01 10 0100 01",
			"ffff c15f3a6780 d6ae2e73738c3e95f7cd897b92561207"},
		{"keepalive, counter 65536: the field wraps, the nonce does not", rfcToClient, 65536, "01 10 0100 01",
			"0000 1b56281c45 afcaf080ec1b865c99e3219eab4ec3a7"},
		{"key 00 01 02 …", "0001020304050607080910111213141516171819202122232425262728293031", 1, "08 00000001 17979cfe9c240000",
			"0001 8b8bc1dd1ab9fa6c152f159e f5ebf1596fab31601c4b457de00f8a9e39"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := NewSealKey(key32(t, tt.key))
			packet := unhex(t, tt.packet)
			want := unhex(t, tt.sealed)
			prefix := []byte{0xAA, 0xBB} // Seal works on a datagram that starts inside b
			b := append(BeginSealed(bytes.Clone(prefix)), packet...)
			b = k.Seal(b, len(prefix), tt.counter)
			if !bytes.Equal(b[:2], prefix) || !bytes.Equal(b[2:], want) {
				t.Fatalf("sealed = %x, want %x", b[2:], want)
			}
			if len(want) != len(packet)+SealedOverhead {
				t.Fatalf("%d bytes sealed, %d of packet", len(want), len(packet))
			}
			// Opened into another buffer, the datagram stays as it was.
			d := bytes.Clone(want)
			got, counter, err := k.Open(make([]byte, 0, MaxDatagram), d, tt.counter)
			checkErr(t, err, nil)
			if !bytes.Equal(got, packet) || counter != tt.counter || !bytes.Equal(d, want) {
				t.Fatalf("Open = %x, counter %d; datagram now %x", got, counter, d)
			}
			// Opened in place, from any next within half the field's range.
			for _, next := range []uint64{tt.counter, tt.counter + 1, tt.counter + 32767, max(tt.counter, 32768) - 32768} {
				d := bytes.Clone(want)
				got, counter, err := k.Open(d[CounterSize:CounterSize], d, next)
				checkErr(t, err, nil)
				if !bytes.Equal(got, packet) || counter != tt.counter || &got[0] != &d[CounterSize] {
					t.Fatalf("next %d: Open in place = %x, counter %d", next, got, counter)
				}
			}
		})
	}
}

func TestSealKeyOpenRejects(t *testing.T) {
	k := NewSealKey(key32(t, rfcToServer))
	const counter = 70000
	good := k.Seal(append(BeginSealed(nil), unhex(t, "08 00000001 17979cfe9c240000")...), 0, counter)
	sealed := func(packet []byte, counter uint64) []byte {
		return k.Seal(append(BeginSealed(nil), packet...), 0, counter)
	}
	recounted := bytes.Clone(good)
	recounted[1] ^= 1 // the counter field names a neighbour: another nonce
	tests := []struct {
		name string
		d    []byte
		key  string
		next uint64
		want error
	}{
		{"good", good, rfcToServer, counter, nil},
		{"the other direction's key", good, rfcToClient, counter, ErrChecksum},
		{"counter field changed", recounted, rfcToServer, counter, ErrChecksum},
		{"a copy 32768 counters old", good, rfcToServer, counter + 32768, ErrChecksum},
		{"a copy 32767 counters old", good, rfcToServer, counter + 32767, nil},
		{"truncated by one", good[:len(good)-1], rfcToServer, counter, ErrChecksum},
		{"extended by one", append(bytes.Clone(good), 0), rfcToServer, counter, ErrChecksum},
		{"empty", nil, rfcToServer, 0, ErrShort},
		{"no packet type", good[:CounterSize+TagSize], rfcToServer, 0, ErrShort},
		{"counter and type only", sealed([]byte{8}, 3), rfcToServer, 3, nil},
		{"largest", sealed(make([]byte, MaxDatagram-SealedOverhead), 9), rfcToServer, 9, nil},
		{"one past largest", sealed(make([]byte, MaxDatagram-SealedOverhead+1), 9), rfcToServer, 9, ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := bytes.Clone(tt.d)
			got, _, err := NewSealKey(key32(t, tt.key)).Open(make([]byte, 0, MaxDatagram+TagSize), d, tt.next)
			checkErr(t, err, tt.want)
			if err != nil && got != nil {
				t.Errorf("returned %x alongside an error", got)
			}
			if !bytes.Equal(d, tt.d) {
				t.Errorf("the datagram changed: %x", d)
			}
		})
	}
}

// TestSealKeyFlippedBit flips every bit of a sealed datagram in turn; each one fails
// authentication. (The checksum of the plain frame promises the same against accidents; the
// tag promises it against somebody who tries.)
func TestSealKeyFlippedBit(t *testing.T) {
	k := NewSealKey(key32(t, rfcToClient))
	d := k.Seal(append(BeginSealed(nil), unhex(t, "01 10 0100 01 02 0005 02 6869 02 8006 0005 02 796f")...), 0, 5)
	buf := make([]byte, 0, MaxDatagram)
	for i := range 8 * len(d) {
		c := bytes.Clone(d)
		c[i/8] ^= 1 << (i % 8)
		if _, _, err := k.Open(buf, c, 5); err == nil {
			t.Fatalf("bit %d flipped, datagram still opens", i)
		} else {
			checkErr(t, err, ErrChecksum)
		}
	}
}

func TestExpandCounter(t *testing.T) {
	tests := []struct {
		next uint64
		low  uint16
		want uint64
	}{
		{0, 0, 0},
		{0, 5, 5},
		{0, 0x7FFF, 0x7FFF},
		{0, 0x8000, 0x8000}, // 32768 ahead; nothing below 0 anyway
		{0, 0xFFFF, 0xFFFF},
		{1, 0, 0},
		{0x7FFF, 0, 0},
		{0x8000, 0, 0x10000}, // 32768 either way: ahead wins, as in QUIC
		{0x8001, 0, 0x10000}, // 0 is 32769 behind, 65536 is 32767 ahead
		{0x10000, 0xFFFF, 0xFFFF},
		{0x10000, 0x0000, 0x10000},
		{0x10000, 0x7FFF, 0x17FFF},
		{0x10000, 0x8000, 0x18000}, // 32768 either way: ahead wins
		{0x10001, 0x8000, 0x18000},
		{0x10000, 0x8001, 0x8001},
		{70000, 0x1170, 70000},
		{70000 + 32767, 0x1170, 70000},
		{70000 + 32768, 0x1170, 70000 + 65536},
		{70000 - 32767, 0x1170, 70000},
		{70000 - 32768, 0x1170, 70000},
		{70000 - 32769, 0x1170, 70000 - 65536},
		{math.MaxUint64, 0xFFFE, math.MaxUint64 - 1},
		{math.MaxUint64, 0x0000, math.MaxUint64 - 0xFFFF},
	}
	for _, tt := range tests {
		if got := ExpandCounter(tt.next, tt.low); got != tt.want {
			t.Errorf("ExpandCounter(%#x, %#04x) = %#x, want %#x", tt.next, tt.low, got, tt.want)
		}
	}
	// The rule: the result has the low bits and lies within (next-32768, next+32768].
	for _, next := range []uint64{0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x123456789, math.MaxUint64 - 0x10000} {
		for low := range 1 << 16 {
			c := ExpandCounter(next, uint16(low))
			if uint16(c) != uint16(low) {
				t.Fatalf("ExpandCounter(%#x, %#x) = %#x: other low bits", next, low, c)
			}
			if next >= 0x8000 && (c <= next-0x8000 || c > next+0x8000) {
				t.Fatalf("ExpandCounter(%#x, %#x) = %#x: not the closest", next, low, c)
			}
		}
	}
}

func TestSealPanicsWhenShort(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Seal of a datagram without a packet type did not panic")
		}
	}()
	NewSealKey(key32(t, rfcToClient)).Seal(BeginSealed(nil), 0, 0)
}

// TestSealedNoAlloc: sealing and opening, in place or into a buffer, good or forged, allocate
// nothing.
func TestSealedNoAlloc(t *testing.T) {
	k := NewSealKey(key32(t, rfcToServer))
	buf := make([]byte, 0, MaxDatagram)
	d := append(BeginSealed(make([]byte, 0, MaxDatagram)), make([]byte, 1200-SealedOverhead)...)
	d[CounterSize] = byte(TypeData)
	n := len(d)
	var counter uint64
	allocs := testing.AllocsPerRun(100, func() {
		counter++
		d = k.Seal(d[:n], 0, counter)
		if _, c, err := k.Open(buf, d, counter); err != nil || c != counter {
			t.Fatal(err)
		}
		d[n-1] ^= 1
		if _, _, err := k.Open(buf, d, counter); err == nil {
			t.Fatal("forged datagram opened")
		}
		d[n-1] ^= 1
		if _, _, err := k.Open(d[CounterSize:CounterSize], d, counter); err != nil {
			t.Fatal(err)
		}
		if _, _, err := k.Open(buf, d[:3], counter); err == nil {
			t.Fatal("3-byte datagram opened")
		}
	})
	if allocs != 0 {
		t.Errorf("Seal/Open allocate %v times", allocs)
	}
}
