package wire

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// unhex decodes a hex string in which spaces group the fields for the reader.
func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		tb.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

var sentinels = []error{ErrShort, ErrRange, ErrNonCanonical, ErrBadType, ErrChecksum, ErrTooLong, ErrTrailing, ErrBadName}

// checkErr fails unless err is want (nil meaning no error), and checks that
// every error wraps exactly one sentinel.
func checkErr(tb testing.TB, err, want error) {
	tb.Helper()
	if want == nil {
		if err != nil {
			tb.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if !errors.Is(err, want) {
		tb.Fatalf("error = %v, want %v", err, want)
	}
	checkSentinel(tb, err)
}

// checkSentinel fails unless err wraps exactly one of the package's sentinels.
func checkSentinel(tb testing.TB, err error) {
	tb.Helper()
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		tb.Fatalf("error %q wraps %d sentinels, want 1", err, n)
	}
	if !strings.HasPrefix(err.Error(), "wire: ") {
		tb.Fatalf("error %q does not start with the package name", err)
	}
}
