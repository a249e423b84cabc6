package wire

import (
	"testing"

	"github.com/ackattack/ackattack/internal/codectest"
)

// unhex decodes a hex string in which spaces group the fields for the reader.
func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	return codectest.Unhex(tb, s)
}

var sentinels = []error{ErrShort, ErrRange, ErrNonCanonical, ErrBadType, ErrChecksum, ErrTooLong, ErrTrailing, ErrBadName}

// checkErr fails unless err is want (nil meaning no error), and checks that
// every error wraps exactly one sentinel.
func checkErr(tb testing.TB, err, want error) {
	tb.Helper()
	codectest.CheckErr(tb, err, want, "wire: ", sentinels...)
}

// checkSentinel fails unless err wraps exactly one of the package's sentinels.
func checkSentinel(tb testing.TB, err error) {
	tb.Helper()
	codectest.CheckSentinel(tb, err, "wire: ", sentinels...)
}
