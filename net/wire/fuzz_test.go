package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// The fuzz targets check the two promises of every parser: it never panics,
// and whatever it accepts encodes back to exactly the bytes it read (one
// value, one encoding). Errors must wrap exactly one sentinel. The seed
// corpora live in testdata/fuzz/FuzzXxx.

func FuzzSeqList(f *testing.F) {
	buf := make([]uint16, 0, MaxDeps)
	f.Fuzz(func(t *testing.T, in []byte) {
		seq, deps, n, err := ParseSeqList(in, buf)
		if err != nil {
			checkSentinel(t, err)
			return
		}
		if len(deps) > MaxDeps || &deps[:1][0] != &buf[:1][0] {
			t.Fatalf("%d deps, buffer reused: %v", len(deps), &deps[:1][0] == &buf[:1][0])
		}
		got, err := AppendSeqList(nil, seq, deps)
		if err != nil || !bytes.Equal(got, in[:n]) || SeqListSize(len(deps)) != n {
			t.Fatalf("%x parsed as %d %v (%d bytes), encodes as %x, %v", in, seq, deps, n, got, err)
		}
	})
}

func FuzzHeader(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		h, n, err := ParseHeader(in)
		if err != nil {
			checkSentinel(t, err)
			return
		}
		got := AppendHeader(nil, h)
		if !bytes.Equal(got, in[:n]) || h.Size() != n {
			t.Fatalf("%x parsed as %+v (%d bytes), encodes as %x", in, h, n, got)
		}
	})
}

// FuzzRecord reads its input as a packet body: records back to back.
func FuzzRecord(f *testing.F) {
	r := Record{Deps: make([]uint16, 0, MaxDeps)}
	f.Fuzz(func(t *testing.T, in []byte) {
		for rest := in; len(rest) > 0; {
			n, err := ParseRecord(rest, &r)
			if err != nil {
				checkSentinel(t, err)
				return
			}
			if n <= 0 || n > len(rest) {
				t.Fatalf("ParseRecord used %d of %d bytes", n, len(rest))
			}
			got, err := AppendRecord(nil, &r)
			if err != nil || !bytes.Equal(got, rest[:n]) || r.Size() != n {
				t.Fatalf("%x parsed as %+v (%d bytes), encodes as %x, %v", rest, r, n, got, err)
			}
			rest = rest[n:]
		}
	})
}

// FuzzOpenDatagram runs the receiver's whole path: open, then the packet inside (a Data
// packet's header and records, or a connection packet: checkPacket).
// A datagram that fails only its checksum is sealed and opened again, which
// must then succeed, so mutations also reach the parsers behind the check.
func FuzzOpenDatagram(f *testing.F) {
	r := Record{Deps: make([]uint16, 0, MaxDeps)}
	f.Fuzz(func(t *testing.T, d []byte, key uint64) {
		packet, err := OpenDatagram(d, key)
		switch {
		case errors.Is(err, ErrChecksum):
			checkSentinel(t, err)
			sealed := bytes.Clone(d)
			SealDatagram(sealed, key)
			if packet, err = OpenDatagram(sealed, key); err != nil {
				t.Fatalf("%x sealed with key %#x does not open: %v", sealed, key, err)
			}
			if _, err := OpenDatagram(sealed, key^1); err == nil {
				t.Fatalf("%x sealed with key %#x opens with key %#x", sealed, key, key^1)
			}
		case err != nil:
			checkSentinel(t, err)
			return
		default:
			resealed := bytes.Clone(d)
			clear(resealed[:ChecksumSize])
			SealDatagram(resealed, key)
			if !bytes.Equal(resealed, d) || &packet[0] != &d[ChecksumSize] {
				t.Fatalf("%x opened, reseals as %x", d, resealed)
			}
		}
		checkPacket(t, packet, &r)
	})
}

// FuzzConnectionPackets reads its input as a packet from its type byte on,
// as OpenDatagram returns it. Every connection parser sees every input: the
// others refuse it by its type byte, and if the one the type names accepts
// it, it encodes back to exactly the input.
//
// With pad set, the input is first filled up with zeros to the size of a
// handshake packet. A request is mostly padding; without this the fuzzer
// would spend its mutations on 1,150 zeros instead of on the bytes that mean
// something, and minimizing each new full-size input it finds (which tries
// removing every run of bytes) would take longer than a whole fuzzing run.
// So the seeds stay short, and the rules about the exact size of a handshake
// packet are left to the table tests.
func FuzzConnectionPackets(f *testing.F) {
	const handshake = HandshakeSize - ChecksumSize
	f.Fuzz(func(t *testing.T, in []byte, pad bool) {
		if pad && len(in) < handshake {
			in = append(bytes.Clone(in), make([]byte, handshake-len(in))...)
		}
		if _, err := PeekType(in); err != nil {
			checkSentinel(t, err)
		}
		for typ, parse := range parsers {
			m, err := parse(in)
			if err != nil {
				checkSentinel(t, err)
				if len(in) > 0 && PacketType(in[0]) != typ && !errors.Is(err, ErrBadType) {
					t.Fatalf("%x: the %v parser fails with %v, want ErrBadType", in, typ, err)
				}
				continue
			}
			if PacketType(in[0]) != typ {
				t.Fatalf("%x: the %v parser accepts it", in, typ)
			}
			got, err := appendPacket(nil, m)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%x parsed as %+v, encodes as %x, %v", in, m, got, err)
			}
		}
	})
}

// FuzzOpenSealed runs a receiver's path for the datagrams of a connection: open the sealed
// frame with a fixed key, then parse the packet inside (a Data packet's header and records,
// or a connection packet). Nothing may panic, every error wraps one sentinel, and whatever
// opens seals back to exactly the bytes that came in. The fuzzer cannot forge a tag, so a
// datagram that fails authentication has its middle sealed as the packet, with the counter it
// expands to, and opened again, which must then succeed (and fail under the other direction's
// key): so mutations reach the parsers behind the tag too.
func FuzzOpenSealed(f *testing.F) {
	var key, other [KeySize]byte
	copy(key[:], unhex(f, rfcToServer))
	copy(other[:], unhex(f, rfcToClient))
	k, wrong := NewSealKey(&key), NewSealKey(&other)
	r := Record{Deps: make([]uint16, 0, MaxDeps)}
	buf := make([]byte, 0, MaxDatagram)
	f.Fuzz(func(t *testing.T, d []byte, next uint64) {
		packet, counter, err := k.Open(buf, d, next)
		switch {
		case errors.Is(err, ErrChecksum):
			checkSentinel(t, err)
			counter = ExpandCounter(next, binary.BigEndian.Uint16(d))
			d = k.Seal(append(BeginSealed(nil), d[CounterSize:len(d)-TagSize]...), 0, counter)
			var again uint64
			if packet, again, err = k.Open(buf, d, next); err != nil || again != counter {
				t.Fatalf("%x sealed with counter %d does not open from next %d: counter %d, %v", d, counter, next, again, err)
			}
			if _, _, err := wrong.Open(nil, d, next); err == nil {
				t.Fatalf("%x opens under the other direction's key", d)
			}
		case err != nil:
			checkSentinel(t, err)
			return
		}
		// The counter is the closest to next with its low bits (none is below 0).
		if uint16(counter) != binary.BigEndian.Uint16(d) || (next >= 1<<15 && counter <= next-1<<15) || (counter > next && counter-next > 1<<15 && counter >= 1<<16) {
			t.Fatalf("%x opened from next %d with counter %d", d, next, counter)
		}
		if resealed := k.Seal(append(BeginSealed(nil), packet...), 0, counter); !bytes.Equal(resealed, d) {
			t.Fatalf("%x opened as %x, reseals as %x", d, packet, resealed)
		}
		inPlace := bytes.Clone(d)
		if got, c, err := k.Open(inPlace[CounterSize:CounterSize], inPlace, next); err != nil || c != counter || !bytes.Equal(got, packet) {
			t.Fatalf("%x opened in place as %x, counter %d, %v", d, got, c, err)
		}
		checkPacket(t, packet, &r)
	})
}

// checkPacket parses a packet from its type byte on as a receiver would, and checks that what
// parses encodes back to the same bytes.
func checkPacket(t *testing.T, packet []byte, r *Record) {
	typ, err := PeekType(packet)
	if err != nil {
		checkSentinel(t, err)
		return
	}
	if typ != TypeData {
		m, err := parsers[typ](packet)
		if err != nil {
			checkSentinel(t, err)
			return
		}
		if got, err := appendPacket(nil, m); err != nil || !bytes.Equal(got, packet) {
			t.Fatalf("%x parsed as %+v, encodes as %x, %v", packet, m, got, err)
		}
		return
	}
	h, n, err := ParseHeader(packet)
	if err != nil {
		checkSentinel(t, err)
		return
	}
	if !bytes.Equal(AppendHeader(nil, h), packet[:n]) {
		t.Fatalf("header %x does not re-encode", packet[:n])
	}
	for rest := packet[n:]; len(rest) > 0; rest = rest[n:] {
		if n, err = ParseRecord(rest, r); err != nil {
			checkSentinel(t, err)
			return
		}
		if got, err := AppendRecord(nil, r); err != nil || !bytes.Equal(got, rest[:n]) {
			t.Fatalf("record %x re-encodes as %x, %v", rest[:n], got, err)
		}
	}
}
