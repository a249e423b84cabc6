package wire

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// sameRecord compares records field by field; a nil and an empty slice are
// the same (both encode to nothing).
func sameRecord(a, b *Record) bool {
	return a.Kind == b.Kind && a.Sync == b.Sync && a.Seq == b.Seq && slices.Equal(a.Deps, b.Deps) &&
		a.FragIndex == b.FragIndex && a.FragCount == b.FragCount && a.TotalLen == b.TotalLen &&
		bytes.Equal(a.Payload, b.Payload)
}

func TestRecord(t *testing.T) {
	tests := []struct {
		name string
		r    Record
		hex  string
	}{
		{"unreliable, empty", Record{Kind: KindUnreliable, Payload: []byte{}},
			"01 00"},
		{"unreliable", Record{Kind: KindUnreliable, Payload: []byte("hi")},
			"01 02 6869"},
		{"guaranteed, no deps", Record{Kind: KindGuaranteed, Seq: 5, Deps: []uint16{}, Payload: []byte("hi")},
			"02 0005 02 6869"},
		{"guaranteed, one dep", Record{Kind: KindGuaranteed, Seq: 6, Deps: []uint16{5}, Payload: []byte("yo")},
			"02 8006 0005 02 796f"},
		{"guaranteed, sync, empty", Record{Kind: KindGuaranteed, Sync: true, Seq: 7, Deps: []uint16{}, Payload: []byte{}},
			"06 0007 00"},
		{"guaranteed, highest seq", Record{Kind: KindGuaranteed, Seq: SeqMask, Deps: []uint16{0, 1}, Payload: []byte{0xAB}},
			"02 ffff 8000 0001 01 ab"},
		{"guaranteed, 128-byte payload", Record{Kind: KindGuaranteed, Seq: 1, Deps: []uint16{}, Payload: bytes.Repeat([]byte{0x55}, 128)},
			"02 0001 8080 " + strings.Repeat("55", 128)},
		{"fragment, first of two", Record{Kind: KindFragment, Seq: 9, Deps: []uint16{}, FragIndex: 0, FragCount: 2, TotalLen: 200, Payload: []byte("ab")},
			"03 0009 00 02 80c8 02 6162"},
		{"fragment, sync, deps, last of 255", Record{Kind: KindFragment, Sync: true, Seq: 10, Deps: []uint16{8, 9}, FragIndex: 254, FragCount: 255, TotalLen: MaxMessageSize, Payload: []byte{0}},
			"07 800a 8008 0009 fe ff c004ab50 01 00"},
		{"fragment, total 0", Record{Kind: KindFragment, Seq: 1, Deps: []uint16{}, FragIndex: 1, FragCount: 2, TotalLen: 0, Payload: []byte{}},
			"03 0001 01 02 00 00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got, err := AppendRecord([]byte{0xBB}, &tt.r)
			checkErr(t, err, nil)
			if !bytes.Equal(got, append([]byte{0xBB}, want...)) {
				t.Fatalf("AppendRecord = %x, want bb%x", got, want)
			}
			if n := tt.r.Size(); n != len(want) {
				t.Errorf("Size = %d, want %d", n, len(want))
			}
			r := Record{Deps: make([]uint16, 2, MaxDeps), Seq: 77, FragCount: 3, Payload: []byte("stale")}
			in := append(want, 0x01, 0x00) // a following record must not be read
			n, err := ParseRecord(in, &r)
			checkErr(t, err, nil)
			if n != len(want) {
				t.Errorf("ParseRecord used %d bytes, want %d", n, len(want))
			}
			if !sameRecord(&r, &tt.r) {
				t.Errorf("ParseRecord = %+v, want %+v", r, tt.r)
			}
			if len(r.Payload) > 0 && (&r.Payload[0] != &in[n-len(r.Payload)] || cap(r.Payload) != len(r.Payload)) {
				t.Errorf("payload does not alias the input with a capped slice")
			}
		})
	}
}

// TestRecordIgnoresFieldsOfOtherKinds: an unreliable record carries no
// sequence list and a guaranteed one no fragment fields, whatever r holds.
func TestRecordIgnoresFieldsOfOtherKinds(t *testing.T) {
	r := Record{Kind: KindUnreliable, Seq: 3, Deps: []uint16{1, 1}, FragIndex: 9, FragCount: 1, TotalLen: 1 << 30, Payload: []byte("x")}
	got, err := AppendRecord(nil, &r)
	checkErr(t, err, nil)
	if want := unhex(t, "01 01 78"); !bytes.Equal(got, want) || r.Size() != len(want) {
		t.Errorf("unreliable = %x (Size %d), want %x", got, r.Size(), want)
	}
	r.Kind, r.Deps = KindGuaranteed, nil
	got, err = AppendRecord(nil, &r)
	checkErr(t, err, nil)
	if want := unhex(t, "02 0003 01 78"); !bytes.Equal(got, want) || r.Size() != len(want) {
		t.Errorf("guaranteed = %x (Size %d), want %x", got, r.Size(), want)
	}
}

func TestAppendRecordRejects(t *testing.T) {
	frag := func(index, count uint8, total uint32) Record {
		return Record{Kind: KindFragment, Seq: 1, FragIndex: index, FragCount: count, TotalLen: total}
	}
	tests := []struct {
		name string
		r    Record
		want error
	}{
		{"kind 0", Record{}, ErrBadType},
		{"kind 4", Record{Kind: 4}, ErrBadType},
		{"sync on unreliable", Record{Kind: KindUnreliable, Sync: true}, ErrBadType},
		{"seq above mask", Record{Kind: KindGuaranteed, Seq: 0x8000}, ErrRange},
		{"dep above mask", Record{Kind: KindGuaranteed, Deps: []uint16{0xFFFF}}, ErrRange},
		{"self dep", Record{Kind: KindGuaranteed, Seq: 4, Deps: []uint16{4}}, ErrNonCanonical},
		{"duplicate dep", Record{Kind: KindFragment, Seq: 4, Deps: []uint16{3, 3}, FragCount: 2}, ErrNonCanonical},
		{"too many deps", Record{Kind: KindGuaranteed, Deps: seqRange(1, MaxDeps+1)}, ErrTooLong},
		{"fragment count 0", frag(0, 0, 10), ErrRange},
		{"fragment count 1", frag(0, 1, 10), ErrRange},
		{"fragment index = count", frag(2, 2, 10), ErrRange},
		{"fragment index 255", frag(255, 255, 10), ErrRange},
		{"total above max", frag(0, 2, MaxMessageSize+1), ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendRecord([]byte{3}, &tt.r)
			checkErr(t, err, tt.want)
			if !bytes.Equal(got, []byte{3}) {
				t.Errorf("b changed to %x", got)
			}
		})
	}
}

func TestParseRecordRejects(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want error
	}{
		{"empty", "", ErrShort},
		{"kind 0", "00 00", ErrBadType},
		{"kind 0 with sync", "04 0001 00", ErrBadType},
		{"sync on unreliable", "05 00", ErrBadType},
		{"reserved kind bit 3", "0a 0005 00", ErrNonCanonical},
		{"reserved kind bit 7", "81 00", ErrNonCanonical},
		{"no payload length", "01", ErrShort},
		{"payload cut off", "01 03 6869", ErrShort},
		{"payload length cut off", "01 80", ErrShort},
		{"payload length not canonical", "01 8002 6869", ErrNonCanonical},
		{"huge payload length", "01 ffffffff 00", ErrShort},
		{"no sequence list", "02", ErrShort},
		{"sequence list cut off", "02 8005 00", ErrShort},
		{"self dep", "02 8005 0005 00", ErrNonCanonical},
		{"guaranteed, no payload length", "02 0005", ErrShort},
		{"fragment, no index", "03 0009", ErrShort},
		{"fragment, no count", "03 0009 00", ErrShort},
		{"fragment, no total", "03 0009 00 02", ErrShort},
		{"fragment, total not canonical", "03 0009 00 02 8001 00", ErrNonCanonical},
		{"fragment count 0", "03 0009 00 00 00 00", ErrRange},
		{"fragment count 1", "03 0009 00 01 00 00", ErrRange},
		{"fragment index = count", "03 0009 02 02 00 00", ErrRange},
		{"fragment total above max", "03 0009 00 02 c004ab51 00", ErrTooLong},
		{"fragment total at UInt30 max", "03 0009 00 02 ffffffff 00", ErrTooLong},
		{"fragment, no payload length", "03 0009 00 02 05", ErrShort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Record{Deps: make([]uint16, 0, MaxDeps)}
			n, err := ParseRecord(unhex(t, tt.hex), &r)
			checkErr(t, err, tt.want)
			if n != 0 || !sameRecord(&r, &Record{}) || r.Payload != nil || cap(r.Deps) != MaxDeps {
				t.Errorf("got n=%d, %+v alongside an error", n, r)
			}
		})
	}
}

// TestParseRecordsBackToBack reads the body of a Data packet record by record,
// the way the message layer does.
func TestParseRecordsBackToBack(t *testing.T) {
	want := []Record{
		{Kind: KindUnreliable, Payload: []byte("pos")},
		{Kind: KindGuaranteed, Seq: 5, Deps: []uint16{}, Payload: []byte("hi")},
		{Kind: KindGuaranteed, Seq: 6, Deps: []uint16{5}, Payload: []byte("yo")},
		{Kind: KindFragment, Seq: 7, Deps: []uint16{6, 5}, FragIndex: 1, FragCount: 3, TotalLen: 3000, Payload: []byte("frag")},
		{Kind: KindGuaranteed, Sync: true, Seq: 8, Deps: []uint16{}, Payload: []byte{}},
	}
	var body []byte
	for i := range want {
		var err error
		if body, err = AppendRecord(body, &want[i]); err != nil {
			t.Fatal(err)
		}
	}
	var got []Record
	r := Record{Deps: make([]uint16, 0, MaxDeps)}
	for rest := body; len(rest) > 0; {
		n, err := ParseRecord(rest, &r)
		if err != nil {
			t.Fatalf("record %d: %v", len(got), err)
		}
		c := r
		c.Deps = append([]uint16{}, r.Deps...)
		got = append(got, c)
		rest = rest[n:]
	}
	if !slices.EqualFunc(got, want, func(a, b Record) bool { return sameRecord(&a, &b) }) {
		t.Errorf("records = %+v\nwant %+v", got, want)
	}
}

func TestRecordNoAlloc(t *testing.T) {
	in := unhex(t, "07 800a 8008 0009 fe ff c004ab50 01 00")
	r := Record{Deps: make([]uint16, 0, MaxDeps)}
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := ParseRecord(in, &r); err != nil {
			t.Fatal(err)
		}
		var err error
		if buf, err = AppendRecord(buf[:0], &r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("ParseRecord + AppendRecord allocate %v times", allocs)
	}
}

func TestMessageKindString(t *testing.T) {
	for k, want := range map[MessageKind]string{KindUnreliable: "Unreliable", KindGuaranteed: "Guaranteed", KindFragment: "Fragment", 0: "MessageKind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", uint8(k), got, want)
		}
	}
}
