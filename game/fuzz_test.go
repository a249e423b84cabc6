package game

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseMsg checks the two promises of ParseMsg: it never panics, and
// whatever it accepts encodes back to exactly the bytes it read (one value,
// one encoding). Errors must wrap exactly one sentinel and come with no
// message. The seed corpus in testdata/fuzz/FuzzParseMsg holds one real
// encoding of every message type and a few broken ones.
func FuzzParseMsg(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ParseMsg(in)
		if err != nil {
			checkMsgSentinel(t, err)
			if m != nil {
				t.Fatalf("%x: ParseMsg returned %+v alongside %v", in, m, err)
			}
			return
		}
		if m.Type() != MsgType(in[0]) {
			t.Fatalf("%x: type byte %d parsed as a %v", in, in[0], m.Type())
		}
		got, err := AppendMsg(nil, m)
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("%x parsed as %+v, encodes as %x, %v", in, m, got, err)
		}
	})
}

// msgCorpusDir is FuzzParseMsg's seed corpus.
var msgCorpusDir = filepath.Join("testdata", "fuzz", "FuzzParseMsg")

// readMsgCorpusFile reads a seed file of the form "go test fuzz v1" followed
// by one []byte("…") line.
func readMsgCorpusFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" ||
		!strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		t.Fatalf("%s: not a one-value []byte seed file", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}

// TestMsgFuzzCorpus keeps the seed corpus honest: a file named broken_… is
// refused, every other file is a valid message, and every message type has
// one. A change to an encoding that leaves the corpus behind fails here, not
// silently in a fuzzer that starts from nothing.
func TestMsgFuzzCorpus(t *testing.T) {
	entries, err := os.ReadDir(msgCorpusDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[MsgType]bool{}
	for _, e := range entries {
		in := readMsgCorpusFile(t, filepath.Join(msgCorpusDir, e.Name()))
		m, err := ParseMsg(in)
		if strings.HasPrefix(e.Name(), "broken_") {
			if err == nil {
				t.Errorf("%s parses as %+v", e.Name(), m)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		seen[m.Type()] = true
	}
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		if !seen[typ] {
			t.Errorf("the corpus has no valid %v", typ)
		}
	}
}
