package wire

import (
	"errors"

	"github.com/ackattack/ackattack/internal/int30"
)

// The sentinel errors. Every error returned by this package wraps exactly one
// of them, with detail added, so callers test with errors.Is. The first four
// are internal/int30's, the package of the variable-length integers: an error
// about an integer is the same error whichever codec read it.
var (
	// ErrShort: the input ends before the value does.
	ErrShort = int30.ErrShort
	// ErrRange: a value does not fit its field (on write), or a field holds a
	// value the format forbids (a fragment index or count).
	ErrRange = int30.ErrRange
	// ErrNonCanonical: a value is encoded in a longer form than needed, or in
	// any other second spelling of the same thing (negative zero, a reserved
	// bit set, a dependency listed twice).
	ErrNonCanonical = int30.ErrNonCanonical
	// ErrBadType: an unknown or invalid packet type or record kind.
	ErrBadType = errors.New("bad type")
	// ErrChecksum: the datagram's checksum does not match its contents, the
	// protocol, or the key; or a sealed datagram fails authentication.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrTooLong: a list or length beyond the protocol's limits.
	ErrTooLong = int30.ErrTooLong
	// ErrTrailing: bytes are left over where none may be.
	ErrTrailing = errors.New("trailing bytes")
	// ErrBadName: a player name or a disconnect text that is not valid
	// UTF-8, holds a control character, or (a name) is empty.
	ErrBadName = errors.New("bad name or text")
)
