package codectest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
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

// MustUnhex is Unhex for a table's values, made before any test runs: it panics on bad hex,
// which is the table's bug.
func MustUnhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(fmt.Sprintf("bad hex %q: %v", s, err))
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

// ReadDoc reads a document of the repository (net/PROTOCOL.md, game/PROTOCOL.md) whose
// examples a test checks against the code.
func ReadDoc(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("reading %s: %v", path, err)
	}
	return string(b)
}

// docBytes is the hex that opens a line of an example: bytes separated by single spaces, then
// a space or the end of the line, before the line's comment.
var docBytes = regexp.MustCompile(`^(?:[0-9a-f]{2} )*[0-9a-f]{2}(?:\s|$)`)

// DocExample reads the bytes of the example between <!-- name --> and <!-- /name --> in doc:
// the hex at the start of each line, comments after it ignored.
func DocExample(tb testing.TB, doc, name string) []byte {
	tb.Helper()
	start, end := strings.Index(doc, "<!-- "+name+" -->"), strings.Index(doc, "<!-- /"+name+" -->")
	if start < 0 || end < start {
		tb.Fatalf("markers of the example %q not found", name)
	}
	var out []byte
	for _, line := range strings.Split(doc[start:end], "\n") {
		if m := docBytes.FindString(line); m != "" {
			out = append(out, Unhex(tb, strings.TrimSpace(m))...)
		}
	}
	return out
}
