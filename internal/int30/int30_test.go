package int30

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"

	"github.com/ackattack/ackattack/internal/codectest"
)

var (
	unhex     = codectest.Unhex
	sentinels = []error{ErrShort, ErrRange, ErrNonCanonical, ErrTooLong}
)

func checkErr(tb testing.TB, err, want error) {
	tb.Helper()
	codectest.CheckErr(tb, err, want, "int30: ", sentinels...)
}

func checkSentinel(tb testing.TB, err error) {
	tb.Helper()
	codectest.CheckSentinel(tb, err, "int30: ", sentinels...)
}

// The fuzz targets check the two promises of a parser: it never panics, and whatever it
// accepts encodes back to exactly the bytes it read. The seed corpora are in testdata/fuzz.

func FuzzUInt30(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		v, n, err := ParseUInt30(in)
		if err != nil {
			checkSentinel(t, err)
			return
		}
		got, err := AppendUInt30(nil, v)
		if err != nil || !bytes.Equal(got, in[:n]) || SizeUInt30(v) != n {
			t.Fatalf("%x parsed as %d (%d bytes), encodes as %x, %v", in, v, n, got, err)
		}
	})
}

func FuzzInt30(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		v, n, err := ParseInt30(in)
		if err != nil {
			checkSentinel(t, err)
			return
		}
		got, err := AppendInt30(nil, v)
		if err != nil || !bytes.Equal(got, in[:n]) || SizeInt30(v) != n {
			t.Fatalf("%x parsed as %d (%d bytes), encodes as %x, %v", in, v, n, got, err)
		}
	})
}

func TestUInt30(t *testing.T) {
	tests := []struct {
		v   uint32
		hex string
	}{
		{0, "00"},
		{1, "01"},
		{63, "3f"},
		{64, "40"},
		{127, "7f"},
		{128, "8080"},
		{8191, "9fff"},
		{8192, "a000"},
		{16383, "bfff"},
		{16384, "c0004000"},
		{0x12345678, "d2345678"},
		{MaxUInt30, "ffffffff"},
	}
	for _, tt := range tests {
		want := unhex(t, tt.hex)
		prefix := []byte{0xAA}
		got, err := AppendUInt30(prefix, tt.v)
		checkErr(t, err, nil)
		if !bytes.Equal(got[1:], want) || got[0] != 0xAA {
			t.Errorf("AppendUInt30(%d) = %x, want aa%x", tt.v, got, want)
		}
		if n := SizeUInt30(tt.v); n != len(want) {
			t.Errorf("SizeUInt30(%d) = %d, want %d", tt.v, n, len(want))
		}
		// Parse must stop at the end of the value, whatever follows.
		v, n, err := ParseUInt30(append(want, 0xFF, 0x00))
		checkErr(t, err, nil)
		if v != tt.v || n != len(want) {
			t.Errorf("ParseUInt30(%s) = %d, %d; want %d, %d", tt.hex, v, n, tt.v, len(want))
		}
	}
}

func TestUInt30OutOfRange(t *testing.T) {
	for _, v := range []uint32{MaxUInt30 + 1, 1 << 31, math.MaxUint32} {
		if n := SizeUInt30(v); n != 0 {
			t.Errorf("SizeUInt30(%d) = %d, want 0", v, n)
		}
		b := []byte{1, 2}
		got, err := AppendUInt30(b, v)
		checkErr(t, err, ErrRange)
		if !bytes.Equal(got, []byte{1, 2}) {
			t.Errorf("AppendUInt30(%d) changed b to %x", v, got)
		}
	}
}

func TestParseUInt30Rejects(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want error
	}{
		{"empty", "", ErrShort},
		{"2-byte form cut", "80", ErrShort},
		{"4-byte form cut after 1", "c0", ErrShort},
		{"4-byte form cut after 3", "c00040", ErrShort},
		{"0 in 2 bytes", "8000", ErrNonCanonical},
		{"127 in 2 bytes", "807f", ErrNonCanonical},
		{"0 in 4 bytes", "c0000000", ErrNonCanonical},
		{"127 in 4 bytes", "c000007f", ErrNonCanonical},
		{"16383 in 4 bytes", "c0003fff", ErrNonCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, n, err := ParseUInt30(unhex(t, tt.hex))
			checkErr(t, err, tt.want)
			if v != 0 || n != 0 {
				t.Errorf("got %d, %d alongside an error", v, n)
			}
		})
	}
}

func TestInt30(t *testing.T) {
	tests := []struct {
		v   int32
		hex string
	}{
		{0, "00"},
		{1, "01"},
		{-1, "41"},
		{63, "3f"},
		{-63, "7f"},
		{64, "8040"},
		{-64, "a040"},
		{8191, "9fff"},
		{-8191, "bfff"},
		{8192, "c0002000"},
		{-8192, "e0002000"},
		{MaxInt30, "dfffffff"},
		{-MaxInt30, "ffffffff"},
	}
	for _, tt := range tests {
		want := unhex(t, tt.hex)
		got, err := AppendInt30(nil, tt.v)
		checkErr(t, err, nil)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendInt30(%d) = %x, want %x", tt.v, got, want)
		}
		if n := SizeInt30(tt.v); n != len(want) {
			t.Errorf("SizeInt30(%d) = %d, want %d", tt.v, n, len(want))
		}
		v, n, err := ParseInt30(append(want, 0x80))
		checkErr(t, err, nil)
		if v != tt.v || n != len(want) {
			t.Errorf("ParseInt30(%s) = %d, %d; want %d, %d", tt.hex, v, n, tt.v, len(want))
		}
	}
}

func TestInt30OutOfRange(t *testing.T) {
	for _, v := range []int32{MaxInt30 + 1, -MaxInt30 - 1, math.MaxInt32, math.MinInt32} {
		if n := SizeInt30(v); n != 0 {
			t.Errorf("SizeInt30(%d) = %d, want 0", v, n)
		}
		got, err := AppendInt30([]byte{7}, v)
		checkErr(t, err, ErrRange)
		if !bytes.Equal(got, []byte{7}) {
			t.Errorf("AppendInt30(%d) changed b to %x", v, got)
		}
	}
}

func TestParseInt30Rejects(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want error
	}{
		{"empty", "", ErrShort},
		{"2-byte form cut", "a0", ErrShort},
		{"4-byte form cut", "e00020", ErrShort},
		{"negative zero, 1 byte", "40", ErrNonCanonical},
		{"negative zero, 2 bytes", "a000", ErrNonCanonical},
		{"negative zero, 4 bytes", "e0000000", ErrNonCanonical},
		{"0 in 2 bytes", "8000", ErrNonCanonical},
		{"63 in 2 bytes", "803f", ErrNonCanonical},
		{"-63 in 2 bytes", "a03f", ErrNonCanonical},
		{"8191 in 4 bytes", "c0001fff", ErrNonCanonical},
		{"-8191 in 4 bytes", "e0001fff", ErrNonCanonical},
		{"-1 in 4 bytes", "e0000001", ErrNonCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, n, err := ParseInt30(unhex(t, tt.hex))
			checkErr(t, err, tt.want)
			if v != 0 || n != 0 {
				t.Errorf("got %d, %d alongside an error", v, n)
			}
		})
	}
}

// TestShortFormsExhaustive parses every 1- and 2-byte input and checks that
// whatever parses encodes back to the same bytes, and that the values that
// parse are exactly the ones the forms can hold.
func TestShortFormsExhaustive(t *testing.T) {
	unsigned, signed := 0, 0
	for i := range 1 << 16 {
		in := []byte{byte(i >> 8), byte(i)}
		if i < 256 {
			in = []byte{byte(i)}
		}
		if u, n, err := ParseUInt30(in); err == nil {
			got, _ := AppendUInt30(nil, u)
			if !bytes.Equal(got, in[:n]) {
				t.Fatalf("UInt30 %x -> %d -> %x", in, u, got)
			}
			if n == len(in) {
				unsigned++
			}
		}
		if s, n, err := ParseInt30(in); err == nil {
			got, _ := AppendInt30(nil, s)
			if !bytes.Equal(got, in[:n]) {
				t.Fatalf("Int30 %x -> %d -> %x", in, s, got)
			}
			if n == len(in) {
				signed++
			}
		}
	}
	// 1 byte: 128 unsigned values, 127 signed (±63, one zero).
	// 2 bytes: 16384-128 unsigned values, 2·(8191-63) signed.
	if want := 128 + 16384 - 128; unsigned != want {
		t.Errorf("%d unsigned values in 1 and 2 bytes, want %d", unsigned, want)
	}
	if want := 127 + 2*(8191-63); signed != want {
		t.Errorf("%d signed values in 1 and 2 bytes, want %d", signed, want)
	}
}

// TestInt30RoundTripBoundaries walks both sides of every boundary.
func TestInt30RoundTripBoundaries(t *testing.T) {
	for _, edge := range []int32{0, 63, 64, 8191, 8192, MaxInt30} {
		for d := int32(-2); d <= 2; d++ {
			for _, v := range []int32{edge + d, -(edge + d)} {
				b, err := AppendInt30(nil, v)
				if SizeInt30(v) == 0 {
					checkErr(t, err, ErrRange)
					continue
				}
				checkErr(t, err, nil)
				got, n, err := ParseInt30(b)
				checkErr(t, err, nil)
				if got != v || n != len(b) {
					t.Errorf("Int30 %d -> %s -> %d, %d", v, hex.EncodeToString(b), got, n)
				}
			}
		}
	}
}
