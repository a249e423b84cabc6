package wire

import (
	"bytes"
	"testing"
)

func TestHeader(t *testing.T) {
	tests := []struct {
		name string
		h    Header
		hex  string
	}{
		{"first packet, nothing received", Header{Seq: 0, Ack: 0, AckBits: 0},
			"01 1f 0000 00 00000000"},
		{"steady state", Header{Seq: 0x0100, Ack: 0x00FF, AckBits: 0xFFFFFFFF},
			"01 10 0100 01"},
		{"ack equals seq", Header{Seq: 10, Ack: 10, AckBits: 0xFFFFFFFF},
			"01 10 000a 00"},
		{"one loss just behind ack", Header{Seq: 0x0100, Ack: 0x00FF, AckBits: 0xFFFFFFFD},
			"01 11 0100 01 fd"},
		{"a burst lost in byte 2", Header{Seq: 0x0100, Ack: 0x00FF, AckBits: 0xFF00FFFF},
			"01 14 0100 01 00"},
		{"losses in bytes 1 and 3", Header{Seq: 0x0100, Ack: 0x00FF, AckBits: 0x7FFFFEFF},
			"01 1a 0100 01 fe 7f"},
		{"every ack-bits byte", Header{Seq: 0x0100, Ack: 0x00FF, AckBits: 0x12345678},
			"01 1f 0100 01 78 56 34 12"},
		{"early: 3 received", Header{Seq: 3, Ack: 2, AckBits: 0x00000007},
			"01 1f 0003 01 07 00 00 00"},
		{"wrap 65535 to 0", Header{Seq: 0x0000, Ack: 0xFFFF, AckBits: 0xFFFFFFFF},
			"01 10 0000 01"},
		{"wrap, distance 4", Header{Seq: 0x0002, Ack: 0xFFFE, AckBits: 0xFFFFFFFF},
			"01 10 0002 04"},
		{"distance 255", Header{Seq: 0x0100, Ack: 0x0001, AckBits: 0xFFFFFFFF},
			"01 10 0100 ff"},
		{"distance 256", Header{Seq: 0x0100, Ack: 0x0000, AckBits: 0xFFFFFFFF},
			"01 00 0100 0000"},
		{"distance 255 across the wrap", Header{Seq: 0x007F, Ack: 0xFF80, AckBits: 0xFFFFFFFF},
			"01 10 007f ff"},
		{"distance 256 across the wrap", Header{Seq: 0x007F, Ack: 0xFF7F, AckBits: 0xFFFFFFFF},
			"01 00 007f ff7f"},
		{"ack ahead of seq", Header{Seq: 0, Ack: 1, AckBits: 1},
			"01 0f 0000 0001 01 00 00 00"},
		{"largest header", Header{Seq: 0x8000, Ack: 0x0000, AckBits: 0},
			"01 0f 8000 0000 00 00 00 00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got := AppendHeader([]byte{0xCC}, tt.h)
			if !bytes.Equal(got, append([]byte{0xCC}, want...)) {
				t.Fatalf("AppendHeader = %x, want cc%x", got, want)
			}
			if n := tt.h.Size(); n != len(want) {
				t.Errorf("Size = %d, want %d", n, len(want))
			}
			if len(want) < MinHeaderSize || len(want) > MaxHeaderSize {
				t.Errorf("size %d outside [%d, %d]", len(want), MinHeaderSize, MaxHeaderSize)
			}
			h, n, err := ParseHeader(append(want, 0x02, 0x00, 0x05))
			checkErr(t, err, nil)
			wantH := tt.h
			wantH.Type = TypeData
			if h != wantH || n != len(want) {
				t.Errorf("ParseHeader = %+v, %d; want %+v, %d", h, n, wantH, len(want))
			}
		})
	}
}

func TestAppendHeaderType(t *testing.T) {
	h := Header{Seq: 1, Ack: 0, AckBits: 0xFFFFFFFF}
	zero := AppendHeader(nil, h)
	h.Type = TypeData
	data := AppendHeader(nil, h)
	if !bytes.Equal(zero, data) || zero[0] != byte(TypeData) {
		t.Errorf("zero Type wrote %x, TypeData wrote %x", zero, data)
	}
	h.Type = 7
	if got := AppendHeader(nil, h); got[0] != 7 {
		t.Errorf("Type 7 wrote %x", got)
	}
}

func TestParseHeaderRejects(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want error
	}{
		{"empty", "", ErrShort},
		{"type invalid", "00 10 0100 01", ErrBadType},
		{"type ConnectRequest", "02 10 0100 01", ErrBadType},
		{"type 0xff", "ff", ErrBadType},
		{"type only", "01", ErrShort},
		{"no seq", "01 10", ErrShort},
		{"half a seq", "01 10 01", ErrShort},
		{"no distance", "01 10 0100", ErrShort},
		{"half an ack", "01 00 0100 00", ErrShort},
		{"missing ack-bits byte", "01 11 0100 01", ErrShort},
		{"missing last of four", "01 1f 0100 01 00 00 00", ErrShort},
		{"reserved flag bit 5", "01 30 0100 01", ErrNonCanonical},
		{"reserved flag bit 6", "01 50 0100 01", ErrNonCanonical},
		{"reserved flag bit 7", "01 90 0100 01", ErrNonCanonical},
		{"full ack that fits distance 0", "01 00 0100 0100", ErrNonCanonical},
		{"full ack that fits distance 255", "01 00 0100 0001", ErrNonCanonical},
		{"full ack that fits across wrap", "01 00 0000 ffff", ErrNonCanonical},
		{"present ack-bits byte 0xff", "01 11 0100 01 ff", ErrNonCanonical},
		{"present 0xff among others", "01 1f 0100 01 00 00 ff 00", ErrNonCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, n, err := ParseHeader(unhex(t, tt.hex))
			checkErr(t, err, tt.want)
			if h != (Header{}) || n != 0 {
				t.Errorf("got %+v, %d alongside an error", h, n)
			}
		})
	}
}

// TestHeaderAllAckForms round-trips every distance and every pattern of
// present ack-bits bytes.
func TestHeaderAllAckForms(t *testing.T) {
	patterns := []byte{0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF}
	for d := range 1 << 16 {
		h := Header{Seq: 0x1234, Ack: 0x1234 - uint16(d), AckBits: 0xFFFFFFFF}
		for k := range 4 {
			h.AckBits &^= 0xFF << (8 * k)
			h.AckBits |= uint32(patterns[(d+k)%len(patterns)]) << (8 * k)
		}
		b := AppendHeader(nil, h)
		if len(b) != h.Size() {
			t.Fatalf("%+v: Size %d, wrote %d", h, h.Size(), len(b))
		}
		got, n, err := ParseHeader(b)
		h.Type = TypeData
		if err != nil || got != h || n != len(b) {
			t.Fatalf("%+v -> %x -> %+v, %d, %v", h, b, got, n, err)
		}
	}
}

func TestHeaderNoAlloc(t *testing.T) {
	buf := make([]byte, 0, MaxHeaderSize)
	h := Header{Seq: 0x0100, Ack: 0x00F0, AckBits: 0xFFFF00FF}
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendHeader(buf[:0], h)
		if _, _, err := ParseHeader(buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("AppendHeader + ParseHeader allocate %v times", allocs)
	}
}

func TestPacketTypeString(t *testing.T) {
	for typ, want := range map[PacketType]string{
		TypeInvalid: "Invalid", TypeData: "Data", TypeConnectRequest: "ConnectRequest", TypeChallenge: "Challenge",
		TypeChallengeResponse: "ChallengeResponse", TypeAccepted: "Accepted", TypeDenied: "Denied",
		TypeDisconnect: "Disconnect", TypePing: "Ping", TypePong: "Pong", 10: "PacketType(10)",
	} {
		if got := typ.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", uint8(typ), got, want)
		}
	}
}
