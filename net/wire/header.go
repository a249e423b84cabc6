package wire

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// PacketType is the byte after the checksum that says how to read the rest.
type PacketType uint8

const (
	// TypeInvalid is never sent: a zeroed buffer must not parse as a packet.
	TypeInvalid PacketType = 0
	// TypeData carries a Header followed by message records. Types 2 to 9
	// are the connection packets (connection.go).
	TypeData PacketType = 1
)

func (t PacketType) String() string {
	switch t {
	case TypeInvalid:
		return "Invalid"
	case TypeData:
		return "Data"
	case TypeConnectRequest:
		return "ConnectRequest"
	case TypeChallenge:
		return "Challenge"
	case TypeChallengeResponse:
		return "ChallengeResponse"
	case TypeAccepted:
		return "Accepted"
	case TypeDenied:
		return "Denied"
	case TypeDisconnect:
		return "Disconnect"
	case TypePing:
		return "Ping"
	case TypePong:
		return "Pong"
	}
	return fmt.Sprintf("PacketType(%d)", uint8(t))
}

// Header is the start of a Data packet: its own sequence number and the
// acknowledgement of what the peer has sent.
//
//	byte 0     packet type (TypeData)
//	byte 1     flags  bit 0..3  ack-bits byte k is present (k=0 holds AckBits bits 0..7,
//	                            k=3 bits 24..31); an absent byte means 0xFF
//	                  bit 4     Ack is sent as a 1-byte distance back from Seq
//	                  bit 5..7  0
//	bytes 2-3  Seq
//	then       bit 4 set: 1 byte d = (Seq - Ack) mod 65536 (0..255); else 2 bytes Ack
//	then       the present ack-bits bytes, k = 0, 1, 2, 3 in that order
//
// Bit i of AckBits says whether packet Ack-i arrived, so every packet acknowledges the last 32
// the peer sent (the ack bitfield), and one lost packet costs nothing as long as a later one
// gets through. The flags make the steady state cheap. The peers send to each other all the
// time, so Ack is almost always just behind Seq and fits a one-byte distance; and on a healthy
// link every recent packet arrived, so the ack-bits bytes are 0xFF and are left out. The
// smallest header is 5 bytes:
//
//	01 10 0100 01   Data, distance form, Seq 0x0100, Ack 0x00FF, AckBits 0xFFFFFFFF
//
// To keep one encoding per header, an ack-bits byte of 0xFF must be omitted, and the distance
// form must be used whenever it fits.
type Header struct {
	Type    PacketType
	Seq     uint16 // this packet's sequence number
	Ack     uint16 // newest packet sequence received from the peer
	AckBits uint32 // bit i set = packet (Ack - i) was received; bit 0 is Ack itself. 0 = nothing received yet
}

// MaxHeaderSize is the largest encoded Header: type, flags, Seq, a 2-byte Ack
// and all four ack-bits bytes.
const MaxHeaderSize = 10

// MinHeaderSize is the smallest encoded Header: type, flags, Seq and a 1-byte
// Ack distance, every ack bit set. On a healthy link it is the header of the
// side whose Seq is 0 to 255 ahead of the Ack it sends; the other side writes
// Ack in full, one byte more.
const MinHeaderSize = 5

// Header flag bits.
const (
	flagAckBytes    = 0x0F // bit k: ack-bits byte k is present
	flagAckDistance = 0x10 // Ack is a 1-byte distance back from Seq
	flagReserved    = 0xE0
)

// ackDistance returns (Seq - Ack) mod 65536 and whether it fits the 1-byte
// distance form.
func (h Header) ackDistance() (uint16, bool) {
	d := h.Seq - h.Ack
	return d, d <= 0xFF
}

// flags returns the flags byte for h.
func (h Header) flags() byte {
	var f byte
	for k := range 4 {
		if byte(h.AckBits>>(8*k)) != 0xFF {
			f |= 1 << k
		}
	}
	if _, ok := h.ackDistance(); ok {
		f |= flagAckDistance
	}
	return f
}

// Size reports how many bytes AppendHeader writes for h (5 to 10).
func (h Header) Size() int {
	f := h.flags()
	n := 4 + bits.OnesCount8(f&flagAckBytes)
	if f&flagAckDistance != 0 {
		return n + 1
	}
	return n + 2
}

// AppendHeader appends h. The zero Type (TypeInvalid) is written as TypeData,
// so a Header filled in with only its sequence fields is a Data header; any
// other Type is written as it is.
func AppendHeader(b []byte, h Header) []byte {
	t := h.Type
	if t == TypeInvalid {
		t = TypeData
	}
	f := h.flags()
	b = append(b, byte(t), f)
	b = binary.BigEndian.AppendUint16(b, h.Seq)
	if d, ok := h.ackDistance(); ok {
		b = append(b, byte(d))
	} else {
		b = binary.BigEndian.AppendUint16(b, h.Ack)
	}
	for k := range 4 {
		if f&(1<<k) != 0 {
			b = append(b, byte(h.AckBits>>(8*k)))
		}
	}
	return b
}

// ParseHeader reads a Data header from the front of b, which starts at the
// packet type (after the checksum). A type other than TypeData is ErrBadType;
// reserved flag bits, a 2-byte Ack that fits the distance form, and a present
// ack-bits byte of 0xFF are ErrNonCanonical.
func ParseHeader(b []byte) (h Header, n int, err error) {
	if len(b) == 0 {
		return Header{}, 0, fmt.Errorf("wire: header: empty packet: %w", ErrShort)
	}
	if t := PacketType(b[0]); t != TypeData {
		return Header{}, 0, fmt.Errorf("wire: header: packet type %v: %w", t, ErrBadType)
	}
	if len(b) < 2 {
		return Header{}, 0, fmt.Errorf("wire: header: no flags byte: %w", ErrShort)
	}
	f := b[1]
	if f&flagReserved != 0 {
		return Header{}, 0, fmt.Errorf("wire: header: reserved flag bits %#02x set: %w", f&flagReserved, ErrNonCanonical)
	}
	ackSize := 2
	if f&flagAckDistance != 0 {
		ackSize = 1
	}
	n = 4 + ackSize + bits.OnesCount8(f&flagAckBytes)
	if len(b) < n {
		return Header{}, 0, fmt.Errorf("wire: header: flags %#02x need %d bytes, have %d: %w", f, n, len(b), ErrShort)
	}
	h.Type = TypeData
	h.Seq = binary.BigEndian.Uint16(b[2:])
	i := 4
	if ackSize == 1 {
		h.Ack = h.Seq - uint16(b[i])
	} else {
		h.Ack = binary.BigEndian.Uint16(b[i:])
		if _, ok := h.ackDistance(); ok {
			return Header{}, 0, fmt.Errorf("wire: header: Ack %#04x sent in full, fits a distance from Seq %#04x: %w", h.Ack, h.Seq, ErrNonCanonical)
		}
	}
	i += ackSize
	for k := range 4 {
		v := byte(0xFF)
		if f&(1<<k) != 0 {
			v = b[i]
			i++
			if v == 0xFF {
				return Header{}, 0, fmt.Errorf("wire: header: ack-bits byte %d present as 0xff: %w", k, ErrNonCanonical)
			}
		}
		h.AckBits |= uint32(v) << (8 * k)
	}
	return h, n, nil
}
