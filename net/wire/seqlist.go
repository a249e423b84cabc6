package wire

import (
	"encoding/binary"
	"fmt"
)

// A sequence list: a guaranteed message's own 15-bit sequence number followed by the sequence
// numbers of the messages it depends on (the receiver executes it only after those). Each
// number is a 2-byte word whose top bit says whether another word follows, so the list needs
// no count and a message with n dependencies costs 2 + 2n bytes:
//
//	word   bit 15                                  bits 14..0
//	0      1 if dependencies follow                the message's own sequence number
//	1..n   1 if another dependency follows         a dependency's sequence number
//
// A message never depends on itself and names each dependency once; a list of more than
// MaxDeps dependencies is rejected.

// SeqBits is the width of a message sequence number. The 16th bit of each
// word is the "another word follows" flag.
const SeqBits = 15

// SeqMask masks a message sequence number out of a list word.
const SeqMask = 1<<SeqBits - 1 // 0x7fff

// MaxDeps is the most dependencies one message may list.
const MaxDeps = 255

// seqMore is the bit that says another word of the list follows.
const seqMore = 0x8000

// SeqListSize reports the encoded size of a sequence list with nDeps
// dependencies: 2 + 2·nDeps bytes.
func SeqListSize(nDeps int) int { return 2 + 2*nDeps }

// AppendSeqList appends a message's sequence number seq followed by its
// dependencies. It returns b unchanged and ErrRange if a number is larger than
// SeqMask, ErrTooLong if there are more than MaxDeps dependencies, and
// ErrNonCanonical if a dependency is listed twice or equals seq (the parser
// rejects those, so the writer never produces them).
func AppendSeqList(b []byte, seq uint16, deps []uint16) ([]byte, error) {
	if err := checkSeqList(seq, deps); err != nil {
		return b, err
	}
	return appendSeqList(b, seq, deps), nil
}

func checkSeqList(seq uint16, deps []uint16) error {
	if seq > SeqMask {
		return fmt.Errorf("wire: sequence number %d exceeds %d: %w", seq, SeqMask, ErrRange)
	}
	if len(deps) > MaxDeps {
		return fmt.Errorf("wire: %d dependencies, at most %d: %w", len(deps), MaxDeps, ErrTooLong)
	}
	for _, d := range deps {
		if d > SeqMask {
			return fmt.Errorf("wire: dependency %d exceeds %d: %w", d, SeqMask, ErrRange)
		}
	}
	return checkDeps(seq, deps)
}

// appendSeqList writes a list that checkSeqList accepted.
func appendSeqList(b []byte, seq uint16, deps []uint16) []byte {
	w := seq
	for _, d := range deps {
		b = binary.BigEndian.AppendUint16(b, w|seqMore)
		w = d
	}
	return binary.BigEndian.AppendUint16(b, w)
}

// ParseSeqList reads a sequence list from the front of b. It appends the
// dependencies to deps[:0] and returns that slice, so a caller that passes a
// buffer with capacity MaxDeps never allocates. A list that runs off the end
// of b is ErrShort, one with more than MaxDeps dependencies ErrTooLong, and one
// that lists a dependency twice or names the message itself ErrNonCanonical.
func ParseSeqList(b []byte, deps []uint16) (seq uint16, out []uint16, n int, err error) {
	out = deps[:0]
	if len(b) < 2 {
		return 0, out, 0, fmt.Errorf("wire: sequence list: need 2 bytes, have %d: %w", len(b), ErrShort)
	}
	w := binary.BigEndian.Uint16(b)
	seq, n = w&SeqMask, 2
	for w&seqMore != 0 {
		if len(out) == MaxDeps {
			return 0, out[:0], 0, fmt.Errorf("wire: sequence list: more than %d dependencies: %w", MaxDeps, ErrTooLong)
		}
		if len(b) < n+2 {
			return 0, out[:0], 0, fmt.Errorf("wire: sequence list: dependency %d at offset %d runs past %d bytes: %w", len(out), n, len(b), ErrShort)
		}
		w = binary.BigEndian.Uint16(b[n:])
		out = append(out, w&SeqMask)
		n += 2
	}
	if err := checkDeps(seq, out); err != nil {
		return 0, out[:0], 0, err
	}
	return seq, out, n, nil
}

// smallDeps is the list length up to which checkDeps compares pairs directly;
// longer lists use a bitmap of the whole sequence space, whose fixed cost
// (4 KiB zeroed on the stack) beats n² comparisons only for long lists.
const smallDeps = 16

// checkDeps reports ErrNonCanonical if a dependency equals seq or appears
// twice. All numbers are ≤ SeqMask.
func checkDeps(seq uint16, deps []uint16) error {
	if len(deps) <= smallDeps {
		for i, d := range deps {
			if d == seq {
				return errSelfDep(seq)
			}
			for _, e := range deps[:i] {
				if d == e {
					return errDupDep(d)
				}
			}
		}
		return nil
	}
	var seen [(SeqMask + 1) / 64]uint64
	seen[seq>>6] |= 1 << (seq & 63)
	for _, d := range deps {
		d &= SeqMask
		bit := uint64(1) << (d & 63)
		if seen[d>>6]&bit != 0 {
			if d == seq {
				return errSelfDep(seq)
			}
			return errDupDep(d)
		}
		seen[d>>6] |= bit
	}
	return nil
}

func errSelfDep(seq uint16) error {
	return fmt.Errorf("wire: message %d depends on itself: %w", seq, ErrNonCanonical)
}

func errDupDep(d uint16) error {
	return fmt.Errorf("wire: dependency %d listed twice: %w", d, ErrNonCanonical)
}
