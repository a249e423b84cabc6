package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The plain frame, the handshake's:
//
//	offset  size  field
//	0       4     checksum: CRC-32C over ProtocolID (8 bytes) ‖ key (8 bytes) ‖ datagram[4:]
//	4       1     packet type (0 is invalid, 1 is Data, 2..9 the connection packets)
//	5       …     type-specific body
//
// UDP's own checksum is weak and optional, and a datagram may come from a program that merely
// shares the port. The CRC is computed over two values that are never sent: ProtocolID, which
// rejects other programs, and a key, which the protocol always sets to 0, so that the eight
// bytes are zeros (a test may use another key to tell two streams apart). The check is against
// accidents and confusion, not against an attacker: CRC-32C is not a cryptographic MAC, so only
// the handshake travels in this frame, and a connection's datagrams are sealed instead
// (sealed.go).
//
// Build a datagram with BeginDatagram, append the header and records, then SealDatagram. On
// receipt, OpenDatagram verifies the checksum and returns the bytes from the packet type on.

// ProtocolID is mixed into every checksum but never sent, so datagrams of
// other programs (or other versions of this protocol) fail the check. It
// spells "ACKATT01".
const ProtocolID uint64 = 0x41434B4154543031

// ChecksumSize is the size of the checksum at the front of every datagram.
const ChecksumSize = 4

// MaxDatagram is the largest datagram OpenDatagram accepts.
const MaxDatagram = 1500

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	// protocolCRC is the CRC state after the ProtocolID bytes, the same for
	// every datagram.
	protocolCRC = crc32.Checksum(binary.BigEndian.AppendUint64(nil, ProtocolID), castagnoli)
)

// The errors of OpenDatagram are built once: a flood of garbage datagrams
// should cost no allocations.
var (
	errDatagramShort    = fmt.Errorf("wire: datagram shorter than checksum and packet type: %w", ErrShort)
	errDatagramLong     = fmt.Errorf("wire: datagram longer than %d bytes: %w", MaxDatagram, ErrTooLong)
	errDatagramChecksum = fmt.Errorf("wire: datagram checksum: %w", ErrChecksum)
)

// BeginDatagram appends the 4 zero bytes that SealDatagram later fills with
// the checksum. Append the packet after them.
func BeginDatagram(b []byte) []byte {
	return append(b, 0, 0, 0, 0)
}

// SealDatagram computes the plain frame's checksum of d with key (0 in the
// protocol: every handshake packet is checksummed with eight zero bytes) and
// writes it to d's first 4 bytes. Nothing is encrypted: "seal" here means
// only the checksum. d must start with the bytes BeginDatagram appended; a d
// shorter than ChecksumSize is a programming error and panics.
func SealDatagram(d []byte, key uint64) {
	if len(d) < ChecksumSize {
		panic(errors.New("wire: SealDatagram: datagram shorter than its checksum"))
	}
	binary.BigEndian.PutUint32(d, checksum(d[ChecksumSize:], key))
}

// OpenDatagram verifies the plain frame's checksum of the datagram d with key
// and returns the packet: d[ChecksumSize:], starting at the packet type. It
// returns ErrTooLong for a datagram longer than MaxDatagram, ErrShort for one
// without room for the checksum and a packet type, and ErrChecksum if the
// checksum does not match.
func OpenDatagram(d []byte, key uint64) ([]byte, error) {
	if len(d) > MaxDatagram {
		return nil, errDatagramLong
	}
	if len(d) < ChecksumSize+1 {
		return nil, errDatagramShort
	}
	if binary.BigEndian.Uint32(d) != checksum(d[ChecksumSize:], key) {
		return nil, errDatagramChecksum
	}
	return d[ChecksumSize:], nil
}

// checksum is CRC-32C over ProtocolID ‖ key ‖ body, all big-endian.
//
// The key's 8 bytes go through the table one at a time instead of as a slice:
// crc32.Update calls through a function variable, so a slice of a local array
// handed to it would escape to the heap, one allocation per datagram.
func checksum(body []byte, key uint64) uint32 {
	crc := ^protocolCRC
	for shift := 56; shift >= 0; shift -= 8 {
		crc = castagnoli[byte(crc)^byte(key>>shift)] ^ crc>>8
	}
	return crc32.Update(^crc, castagnoli, body)
}
