package wire

import (
	"fmt"

	"github.com/ackattack/ackattack/internal/int30"
)

// MessageKind is the low two bits of a record's kind byte.
type MessageKind uint8

const (
	// KindUnreliable is sent once; nothing waits for it or resends it.
	KindUnreliable MessageKind = 1
	// KindGuaranteed is resent until acknowledged and carries a sequence list.
	KindGuaranteed MessageKind = 2
	// KindFragment is one piece of a guaranteed message too large for a
	// datagram; all its pieces share the message's sequence list.
	KindFragment MessageKind = 3
)

func (k MessageKind) String() string {
	switch k {
	case KindUnreliable:
		return "Unreliable"
	case KindGuaranteed:
		return "Guaranteed"
	case KindFragment:
		return "Fragment"
	}
	return fmt.Sprintf("MessageKind(%d)", uint8(k))
}

// MaxMessageSize is the largest message after reassembly: 255 fragments of
// 1200 bytes.
const MaxMessageSize = 255 * 1200

// Kind byte bits.
const (
	kindMask     = 0x03
	kindSync     = 0x04
	kindReserved = 0xF8
)

// Record is one message record in the body of a Data packet. The body is zero or more records
// back to back, up to the end of the datagram (a packet with none is a keepalive or a pure
// ack):
//
//	byte 0   kind: bits 0..1  1 unreliable, 2 guaranteed, 3 fragment (0 invalid)
//	               bit 2      sync (guaranteed or fragment only)
//	               bit 3..7   0
//	guaranteed or fragment:
//	         sequence list (2 + 2n bytes, seqlist.go)
//	fragment:
//	         1 byte fragment index, 1 byte fragment count (2..255, index < count)
//	         UInt30 total length of the reassembled message (≤ MaxMessageSize)
//	UInt30   payload length L (0 allowed)
//	L bytes  payload
//
// An unreliable record is sent once and forgotten. A guaranteed record is carried again in
// later packets until a packet holding it is acknowledged. A message too big for one datagram
// travels as fragments that share its sequence number, so that the receiver can reassemble it
// and each fragment is acknowledged on its own. The sync bit marks a message that the sender
// treats as stop-and-wait. A complete Data datagram with two guaranteed records, in the plain
// frame (net/PROTOCOL.md, section 8):
//
//	49be273a              checksum
//	01 10 0100 01         header: Seq 0x0100, Ack 0x00FF, AckBits 0xFFFFFFFF
//	02 0005 02 6869       guaranteed, seq 5, no deps, payload "hi"
//	02 8006 0005 02 796f  guaranteed, seq 6, deps [5], payload "yo"
type Record struct {
	Kind      MessageKind
	Sync      bool     // stop-and-wait message; guaranteed and fragment only
	Seq       uint16   // guaranteed/fragment only
	Deps      []uint16 // guaranteed/fragment only; ParseRecord reuses its backing array (cap MaxDeps avoids allocation)
	FragIndex uint8    // fragment only
	FragCount uint8    // fragment only
	TotalLen  uint32   // fragment only: the reassembled message's length
	Payload   []byte   // aliases the input of ParseRecord
}

// sequenced reports whether the kind carries a sequence list.
func (k MessageKind) sequenced() bool { return k == KindGuaranteed || k == KindFragment }

// Size reports how many bytes AppendRecord writes for r. For a record that
// AppendRecord rejects the number has no meaning. Fields that r's kind does
// not carry (Seq and Deps of an unreliable record, the fragment fields of a
// whole message) are not counted, just as they are not written.
func (r *Record) Size() int {
	n := 1
	if r.Kind.sequenced() {
		n += SeqListSize(len(r.Deps))
	}
	if r.Kind == KindFragment {
		n += 2 + int30.SizeUInt30(r.TotalLen)
	}
	return n + int30.SizeUInt30(uint32(len(r.Payload))) + len(r.Payload)
}

// check reports why AppendRecord would reject r, or nil.
func (r *Record) check() error {
	switch r.Kind {
	case KindUnreliable:
		if r.Sync {
			return fmt.Errorf("wire: record: sync on an unreliable message: %w", ErrBadType)
		}
	case KindGuaranteed, KindFragment:
		if err := checkSeqList(r.Seq, r.Deps); err != nil {
			return err
		}
	default:
		return fmt.Errorf("wire: record: kind %v: %w", r.Kind, ErrBadType)
	}
	if r.Kind == KindFragment {
		if err := checkFragment(r.FragIndex, r.FragCount, r.TotalLen); err != nil {
			return err
		}
	}
	if len(r.Payload) > int30.MaxUInt30 {
		return fmt.Errorf("wire: record: payload of %d bytes: %w", len(r.Payload), ErrTooLong)
	}
	return nil
}

func checkFragment(index, count uint8, total uint32) error {
	if count < 2 || index >= count {
		return fmt.Errorf("wire: record: fragment %d of %d: %w", index, count, ErrRange)
	}
	if total > MaxMessageSize {
		return fmt.Errorf("wire: record: message of %d bytes exceeds %d: %w", total, MaxMessageSize, ErrTooLong)
	}
	return nil
}

// AppendRecord appends r. It checks the whole record first and returns b
// unchanged with an error if anything is out of range: a kind other than the
// three (ErrBadType), Sync on an unreliable record (ErrBadType), a bad
// sequence list (as AppendSeqList), a fragment count below 2 or index not
// below the count (ErrRange), a TotalLen above MaxMessageSize (ErrTooLong).
// Fields the kind does not carry are ignored.
func AppendRecord(b []byte, r *Record) ([]byte, error) {
	if err := r.check(); err != nil {
		return b, err
	}
	kind := byte(r.Kind)
	if r.Sync {
		kind |= kindSync
	}
	b = append(b, kind)
	if r.Kind.sequenced() {
		b = appendSeqList(b, r.Seq, r.Deps)
	}
	if r.Kind == KindFragment {
		b = append(b, r.FragIndex, r.FragCount)
		b, _ = int30.AppendUInt30(b, r.TotalLen) // checked: ≤ MaxMessageSize
	}
	b, _ = int30.AppendUInt30(b, uint32(len(r.Payload))) // checked: ≤ int30.MaxUInt30
	return append(b, r.Payload...), nil
}

// ParseRecord reads one record from the front of b into r and returns the
// number of bytes it used. Every field of r is overwritten; r.Deps keeps its
// backing array and r.Payload aliases b. On error r holds no record.
//
// Errors: an empty or cut-off record is ErrShort; kind 0, or sync on an
// unreliable record, is ErrBadType; reserved kind bits are ErrNonCanonical; a
// bad sequence list fails as in ParseSeqList; a fragment count below 2 or an
// index not below it is ErrRange; a total length above MaxMessageSize is
// ErrTooLong; integers fail as in int30.ParseUInt30.
func ParseRecord(b []byte, r *Record) (n int, err error) {
	deps := r.Deps[:0]
	*r = Record{Deps: deps}
	n, err = parseRecord(b, r)
	if err != nil {
		*r = Record{Deps: deps}
		return 0, err
	}
	return n, nil
}

func parseRecord(b []byte, r *Record) (int, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("wire: record: empty input: %w", ErrShort)
	}
	kb := b[0]
	if kb&kindReserved != 0 {
		return 0, fmt.Errorf("wire: record: kind byte %#02x has reserved bits set: %w", kb, ErrNonCanonical)
	}
	r.Kind = MessageKind(kb & kindMask)
	r.Sync = kb&kindSync != 0
	switch r.Kind {
	case KindUnreliable:
		if r.Sync {
			return 0, fmt.Errorf("wire: record: sync on an unreliable message: %w", ErrBadType)
		}
	case KindGuaranteed, KindFragment:
	default:
		return 0, fmt.Errorf("wire: record: kind %v: %w", r.Kind, ErrBadType)
	}
	n := 1
	if r.Kind.sequenced() {
		seq, deps, m, err := ParseSeqList(b[n:], r.Deps)
		r.Deps = deps
		if err != nil {
			return 0, err
		}
		r.Seq = seq
		n += m
	}
	if r.Kind == KindFragment {
		if len(b) < n+2 {
			return 0, fmt.Errorf("wire: record: fragment index and count: %w", ErrShort)
		}
		r.FragIndex, r.FragCount = b[n], b[n+1]
		n += 2
		total, m, err := int30.ParseUInt30(b[n:])
		if err != nil {
			return 0, fmt.Errorf("wire: record: total length: %w", err)
		}
		n += m
		if err := checkFragment(r.FragIndex, r.FragCount, total); err != nil {
			return 0, err
		}
		r.TotalLen = total
	}
	size, m, err := int30.ParseUInt30(b[n:])
	if err != nil {
		return 0, fmt.Errorf("wire: record: payload length: %w", err)
	}
	n += m
	if uint64(size) > uint64(len(b)-n) {
		return 0, fmt.Errorf("wire: record: payload of %d bytes, %d left: %w", size, len(b)-n, ErrShort)
	}
	end := n + int(size)
	r.Payload = b[n:end:end]
	return end, nil
}
