// Package codectest holds the checks every codec's table tests share: expected bytes written as
// hex with spaces between the fields, and errors that must wrap exactly one of the codec's
// sentinel errors and name the package they come from, so that a caller can test them with
// errors.Is and a reader can tell where they came from.
package codectest

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// Unhex decodes a hex string in which spaces group the fields for the reader.
func Unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		tb.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// CheckErr fails unless err is want (nil meaning no error), and then checks it as
// CheckSentinel does.
func CheckErr(tb testing.TB, err, want error, prefix string, sentinels ...error) {
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
	CheckSentinel(tb, err, prefix, sentinels...)
}

// CheckSentinel fails unless err wraps exactly one of sentinels and its text starts with
// prefix (the package's name and a colon).
func CheckSentinel(tb testing.TB, err error, prefix string, sentinels ...error) {
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
	if !strings.HasPrefix(err.Error(), prefix) {
		tb.Fatalf("error %q does not start with %q", err, prefix)
	}
}
