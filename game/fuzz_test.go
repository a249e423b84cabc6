package game

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/ackattack/ackattack/internal/seedcorpus"
)

// FuzzParseMsg checks the two promises of ParseMsg: it never panics, and
// whatever it accepts encodes back to exactly the bytes it read (one value,
// one encoding), which MsgSize measures. Errors must wrap exactly one sentinel and come with no
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
		if n, err := MsgSize(m); n != len(in) || err != nil {
			t.Fatalf("%x parsed as %+v, measures %d bytes, %v", in, m, n, err)
		}
	})
}

// TestMsgFuzzCorpus keeps the seed corpus honest: a file named broken_… is
// refused, every other file is a valid message, and every message type has
// one. A change to an encoding that leaves the corpus behind fails here, not
// silently in a fuzzer that starts from nothing.
func TestMsgFuzzCorpus(t *testing.T) {
	seen := map[MsgType]bool{}
	for _, seed := range seedcorpus.Read(t, filepath.Join("testdata", "fuzz", "FuzzParseMsg")) {
		m, err := ParseMsg(seed.Data)
		if seed.Broken {
			if err == nil {
				t.Errorf("%s parses as %+v", seed.Name, m)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", seed.Name, err)
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
