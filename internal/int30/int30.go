package int30

import (
	"errors"
	"fmt"
)

// The sentinel errors. Every error of this package wraps exactly one of them; net/wire's
// errors of the same names are these, so a caller tests either with errors.Is.
var (
	// ErrShort: the input ends before the value does.
	ErrShort = errors.New("input too short")
	// ErrRange: a value does not fit its field.
	ErrRange = errors.New("value out of range")
	// ErrNonCanonical: a value is encoded in a longer form than needed, or as negative zero
	// (and, in a codec built on these integers, any other second spelling of one value).
	ErrNonCanonical = errors.New("non-canonical encoding")
	// ErrTooLong: a list or a length beyond a codec's limits (for the codecs built on these
	// integers: this package itself has none).
	ErrTooLong = errors.New("too long")
)

// MaxUInt30 is the largest value a UInt30 holds: 30 data bits.
const MaxUInt30 = 1<<30 - 1

// MaxInt30 is the largest magnitude an Int30 holds: 29 magnitude bits after
// the sign bit. The smallest value is -MaxInt30.
const MaxInt30 = 1<<29 - 1

// The forms. The first bits of the first byte say how long the number is; all integers are
// big-endian. Most numbers in a game are small (a unit id, a payload length) but a few are not,
// and 4 bytes for every one would waste bandwidth.
//
//	size     layout                               unsigned            signed (sign-magnitude)
//	1 byte   0ddddddd                             0..127              ±63
//	2 bytes  10dddddd dddddddd                    0..16,383           ±8,191
//	4 bytes  11dddddd dddddddd dddddddd dddddddd  0..1,073,741,823    ±536,870,911
//
// A signed value is sign-magnitude: the first data bit is the sign (1 = negative) and the
// other data bits hold the magnitude, which is why the ranges are symmetric. The shortest form
// that fits is the only valid one, and negative zero is rejected: one value, one encoding, so
// parsing and encoding again gives back the input (the fuzz targets check exactly that).
//
// Largest value of each form, unsigned and as signed magnitude.
const (
	maxUInt30Short = 1<<7 - 1  // 0ddddddd
	maxUInt30Mid   = 1<<14 - 1 // 10dddddd dddddddd
	maxInt30Short  = 1<<6 - 1  // 0smmmmmm
	maxInt30Mid    = 1<<13 - 1 // 10smmmmm mmmmmmmm
)

// SizeUInt30 reports how many bytes AppendUInt30 writes for v: 1, 2 or 4, or
// 0 if v is larger than MaxUInt30.
func SizeUInt30(v uint32) int {
	switch {
	case v <= maxUInt30Short:
		return 1
	case v <= maxUInt30Mid:
		return 2
	case v <= MaxUInt30:
		return 4
	}
	return 0
}

// AppendUInt30 appends v in its shortest form. It returns ErrRange, and b
// unchanged, if v is larger than MaxUInt30.
func AppendUInt30(b []byte, v uint32) ([]byte, error) {
	switch {
	case v <= maxUInt30Short:
		return append(b, byte(v)), nil
	case v <= maxUInt30Mid:
		return append(b, 0x80|byte(v>>8), byte(v)), nil
	case v <= MaxUInt30:
		return append(b, 0xC0|byte(v>>24), byte(v>>16), byte(v>>8), byte(v)), nil
	}
	return b, fmt.Errorf("int30: UInt30 %d exceeds %d: %w", v, MaxUInt30, ErrRange)
}

// ParseUInt30 reads a UInt30 from the front of b and returns it with the
// number of bytes it used. A value in a longer form than it needs is
// ErrNonCanonical.
func ParseUInt30(b []byte) (v uint32, n int, err error) {
	raw, n, err := parse30(b)
	if err != nil {
		return 0, 0, err
	}
	if SizeUInt30(raw) != n {
		return 0, 0, fmt.Errorf("int30: UInt30 %d in %d bytes: %w", raw, n, ErrNonCanonical)
	}
	return raw, n, nil
}

// SizeInt30 reports how many bytes AppendInt30 writes for v: 1, 2 or 4, or 0
// if v is outside ±MaxInt30.
func SizeInt30(v int32) int {
	mag := magnitude(v)
	switch {
	case mag <= maxInt30Short:
		return 1
	case mag <= maxInt30Mid:
		return 2
	case mag <= MaxInt30:
		return 4
	}
	return 0
}

// AppendInt30 appends v in its shortest sign-magnitude form. It returns
// ErrRange, and b unchanged, if v is outside ±MaxInt30.
func AppendInt30(b []byte, v int32) ([]byte, error) {
	mag := magnitude(v)
	neg := v < 0
	switch {
	case mag <= maxInt30Short:
		if neg {
			mag |= 1 << 6
		}
		return append(b, byte(mag)), nil
	case mag <= maxInt30Mid:
		if neg {
			mag |= 1 << 13
		}
		return append(b, 0x80|byte(mag>>8), byte(mag)), nil
	case mag <= MaxInt30:
		if neg {
			mag |= 1 << 29
		}
		return append(b, 0xC0|byte(mag>>24), byte(mag>>16), byte(mag>>8), byte(mag)), nil
	}
	return b, fmt.Errorf("int30: Int30 %d outside ±%d: %w", v, MaxInt30, ErrRange)
}

// ParseInt30 reads an Int30 from the front of b and returns it with the number
// of bytes it used. A value in a longer form than it needs, and negative zero,
// are ErrNonCanonical.
func ParseInt30(b []byte) (v int32, n int, err error) {
	raw, n, err := parse30(b)
	if err != nil {
		return 0, 0, err
	}
	// The data bits are one sign bit followed by the magnitude; the width
	// of the magnitude depends on the form.
	var magBits uint
	switch n {
	case 1:
		magBits = 6
	case 2:
		magBits = 13
	default:
		magBits = 29
	}
	neg := raw>>magBits&1 == 1
	mag := raw & (1<<magBits - 1)
	if neg && mag == 0 {
		return 0, 0, fmt.Errorf("int30: Int30 negative zero: %w", ErrNonCanonical)
	}
	v = int32(mag)
	if neg {
		v = -v
	}
	if SizeInt30(v) != n {
		return 0, 0, fmt.Errorf("int30: Int30 %d in %d bytes: %w", v, n, ErrNonCanonical)
	}
	return v, n, nil
}

// magnitude returns |v| without overflowing on math.MinInt32.
func magnitude(v int32) uint32 {
	if v < 0 {
		return uint32(-int64(v))
	}
	return uint32(v)
}

// parse30 reads the length prefix and returns the data bits of a 1-, 2- or
// 4-byte form without any canonical check.
func parse30(b []byte) (raw uint32, n int, err error) {
	if len(b) == 0 {
		return 0, 0, fmt.Errorf("int30: 30-bit integer: empty input: %w", ErrShort)
	}
	switch b[0] >> 6 {
	case 0, 1:
		return uint32(b[0]), 1, nil
	case 2:
		if len(b) < 2 {
			return 0, 0, fmt.Errorf("int30: 30-bit integer: need 2 bytes, have %d: %w", len(b), ErrShort)
		}
		return uint32(b[0]&0x3F)<<8 | uint32(b[1]), 2, nil
	default:
		if len(b) < 4 {
			return 0, 0, fmt.Errorf("int30: 30-bit integer: need 4 bytes, have %d: %w", len(b), ErrShort)
		}
		return uint32(b[0]&0x3F)<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), 4, nil
	}
}
