package wire

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

func TestSeqList(t *testing.T) {
	tests := []struct {
		name string
		seq  uint16
		deps []uint16
		hex  string
	}{
		{"no deps", 5, nil, "0005"},
		{"one dep", 6, []uint16{5}, "8006 0005"},
		{"two deps", 0x7fff, []uint16{0, 1}, "ffff 8000 0001"},
		{"largest dep", 0, []uint16{SeqMask}, "8000 7fff"},
		{"order kept", 100, []uint16{99, 7, 98}, "8064 8063 8007 0062"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got, err := AppendSeqList([]byte{0xEE}, tt.seq, tt.deps)
			checkErr(t, err, nil)
			if !bytes.Equal(got, append([]byte{0xEE}, want...)) {
				t.Fatalf("AppendSeqList = %x, want ee%x", got, want)
			}
			if n := SeqListSize(len(tt.deps)); n != len(want) {
				t.Errorf("SeqListSize(%d) = %d, want %d", len(tt.deps), n, len(want))
			}
			buf := make([]uint16, 3, MaxDeps) // stale contents must be dropped
			seq, deps, n, err := ParseSeqList(append(want, 0x80, 0x01), buf)
			checkErr(t, err, nil)
			if seq != tt.seq || n != len(want) || !slices.Equal(deps, tt.deps) {
				t.Errorf("ParseSeqList = %d, %v, %d; want %d, %v, %d", seq, deps, n, tt.seq, tt.deps, len(want))
			}
			if len(deps) > 0 && &deps[0] != &buf[:1][0] {
				t.Errorf("ParseSeqList did not reuse the buffer")
			}
		})
	}
}

// seqRange returns the sequence numbers from, from+1, … (n of them).
func seqRange(from uint16, n int) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		s[i] = from + uint16(i)
	}
	return s
}

func TestAppendSeqListRejects(t *testing.T) {
	tests := []struct {
		name string
		seq  uint16
		deps []uint16
		want error
	}{
		{"seq above mask", 0x8000, nil, ErrRange},
		{"dep above mask", 1, []uint16{2, 0x8000}, ErrRange},
		{"too many deps", 0, seqRange(1, MaxDeps+1), ErrTooLong},
		{"duplicate dep", 1, []uint16{2, 3, 2}, ErrNonCanonical},
		{"self dep", 1, []uint16{2, 1}, ErrNonCanonical},
		{"duplicate in long list", 0, append(seqRange(1, 40), 17), ErrNonCanonical},
		{"self in long list", 20, seqRange(1, 40), ErrNonCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendSeqList([]byte{9}, tt.seq, tt.deps)
			checkErr(t, err, tt.want)
			if !bytes.Equal(got, []byte{9}) {
				t.Errorf("b changed to %x", got)
			}
		})
	}
}

// encodeWords writes raw list words without any checks, for broken inputs.
func encodeWords(words ...uint16) []byte {
	var b []byte
	for _, w := range words {
		b = binary.BigEndian.AppendUint16(b, w)
	}
	return b
}

// rawList returns the words of seq followed by deps, with the "more" bits set.
func rawList(seq uint16, deps []uint16) []byte {
	words := append([]uint16{seq}, deps...)
	for i := range len(words) - 1 {
		words[i] |= 0x8000
	}
	return encodeWords(words...)
}

func TestSeqListMaxDeps(t *testing.T) {
	deps := seqRange(1, MaxDeps)
	b, err := AppendSeqList(nil, 0, deps)
	checkErr(t, err, nil)
	if len(b) != 2+2*MaxDeps || !bytes.Equal(b, rawList(0, deps)) {
		t.Fatalf("255 deps encoded as %d bytes", len(b))
	}
	seq, got, n, err := ParseSeqList(b, nil)
	checkErr(t, err, nil)
	if seq != 0 || n != len(b) || !slices.Equal(got, deps) {
		t.Fatalf("ParseSeqList of 255 deps = %d, %d deps, %d", seq, len(got), n)
	}
}

func TestParseSeqListRejects(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"one byte", []byte{0x00}, ErrShort},
		{"dep promised, none", encodeWords(0x8005), ErrShort},
		{"dep cut in half", append(encodeWords(0x8005), 0x00), ErrShort},
		{"second dep promised, none", encodeWords(0x8005, 0x8006), ErrShort},
		{"256 deps", rawList(0, seqRange(1, MaxDeps+1)), ErrTooLong},
		{"256th dep promised, cut off", rawList(0, seqRange(1, MaxDeps+1))[:2+2*MaxDeps], ErrTooLong},
		{"duplicate dep", encodeWords(0x8001, 0x8002, 0x0002), ErrNonCanonical},
		{"self dep", encodeWords(0x8001, 0x0001), ErrNonCanonical},
		{"duplicate in long list", rawList(0, append(seqRange(1, 40), 40)), ErrNonCanonical},
		{"self in long list", rawList(7, seqRange(1, 40)), ErrNonCanonical},
		{"duplicate of largest", rawList(0, []uint16{SeqMask, 5, SeqMask}), ErrNonCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq, deps, n, err := ParseSeqList(tt.in, make([]uint16, 0, MaxDeps))
			checkErr(t, err, tt.want)
			if seq != 0 || n != 0 || len(deps) != 0 {
				t.Errorf("got %d, %v, %d alongside an error", seq, deps, n)
			}
		})
	}
}

func TestParseSeqListNoAlloc(t *testing.T) {
	long := rawList(1, seqRange(2, MaxDeps))
	short := rawList(1, []uint16{2, 3})
	buf := make([]uint16, 0, MaxDeps)
	allocs := testing.AllocsPerRun(100, func() {
		_, buf, _, _ = ParseSeqList(long, buf)
		_, buf, _, _ = ParseSeqList(short, buf)
	})
	if allocs != 0 {
		t.Errorf("ParseSeqList allocates %v times with a MaxDeps buffer", allocs)
	}
}
