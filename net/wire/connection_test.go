package wire

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// padTo returns the hex string s followed by zero bytes up to size bytes.
func padTo(s string, size int) string {
	n := len(strings.ReplaceAll(s, " ", "")) / 2
	if n >= size {
		return s
	}
	return s + " " + strings.Repeat("00", size-n)
}

// padded returns the hex of a handshake packet: s, then zeros up to the
// fixed size.
func padded(s string) string { return padTo(s, HandshakeSize-ChecksumSize) }

// appendPacket appends the connection packet m, whatever its type.
func appendPacket(b []byte, m any) ([]byte, error) {
	switch m := m.(type) {
	case *ConnectRequest:
		return AppendConnectRequest(b, m)
	case *Challenge:
		return AppendChallenge(b, m), nil
	case *ChallengeResponse:
		return AppendChallengeResponse(b, m)
	case *Accepted:
		return AppendAccepted(b, m)
	case *Denied:
		return AppendDenied(b, m)
	case *Disconnect:
		return AppendDisconnect(b, m)
	case *Ping:
		return AppendPing(b, m), nil
	case *Pong:
		return AppendPong(b, m), nil
	}
	panic(fmt.Sprintf("appendPacket: %T", m))
}

// parsers maps each connection packet type to its parser; the result is a
// pointer, as appendPacket takes it.
var parsers = map[PacketType]func([]byte) (any, error){
	TypeConnectRequest:    parseAs(ParseConnectRequest),
	TypeChallenge:         parseAs(ParseChallenge),
	TypeChallengeResponse: parseAs(ParseChallengeResponse),
	TypeAccepted:          parseAs(ParseAccepted),
	TypeDenied:            parseAs(ParseDenied),
	TypeDisconnect:        parseAs(ParseDisconnect),
	TypePing:              parseAs(ParsePing),
	TypePong:              parseAs(ParsePong),
}

func parseAs[T any](parse func([]byte) (T, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		m, err := parse(b)
		if err != nil {
			var zero T
			if any(m) != any(zero) {
				return nil, fmt.Errorf("returned %+v alongside %w", m, err)
			}
			return nil, err
		}
		return &m, nil
	}
}

// samePacket compares two packets given as pointers.
func samePacket(a, b any) bool {
	switch a := a.(type) {
	case *ConnectRequest:
		b, ok := b.(*ConnectRequest)
		return ok && *a == *b
	case *Challenge:
		b, ok := b.(*Challenge)
		return ok && *a == *b
	case *ChallengeResponse:
		b, ok := b.(*ChallengeResponse)
		return ok && *a == *b
	case *Accepted:
		b, ok := b.(*Accepted)
		return ok && *a == *b
	case *Denied:
		b, ok := b.(*Denied)
		return ok && *a == *b
	case *Disconnect:
		b, ok := b.(*Disconnect)
		return ok && *a == *b
	case *Ping:
		b, ok := b.(*Ping)
		return ok && *a == *b
	case *Pong:
		b, ok := b.(*Pong)
		return ok && *a == *b
	}
	return false
}

var (
	testPlayer = PlayerID{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	testTag    = [16]byte{0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f}
	// RFC 7748's public keys (sealed_test.go).
	testClientKey = mustPublicKey(rfcClientPublic)
	testServerKey = mustPublicKey(rfcServerPublic)
)

func mustPublicKey(s string) PublicKey {
	var k PublicKey
	if b, err := hex.DecodeString(s); err != nil || copy(k[:], b) != PublicKeySize {
		panic("bad public key " + s)
	}
	return k
}

const (
	testPlayerHex = "00112233445566778899aabbccddeeff"
	testTagHex    = "f0e1d2c3b4a5968778695a4b3c2d1e0f"
)

var connectionPacketTests = []struct {
	name string
	m    any    // a pointer to the packet
	hex  string // from the type byte on
}{
	{"connect request", &ConnectRequest{Version: 2, Player: testPlayer, Name: "Ada"},
		padded("02 02 " + testPlayerHex + " 03 416461")},
	{"connect request, other version", &ConnectRequest{Version: 7, Player: testPlayer, Name: "Ada"},
		padded("02 07 " + testPlayerHex + " 03 416461")},
	{"connect request, UTF-8 name", &ConnectRequest{Version: 2, Name: "Zoë"},
		padded("02 02 00000000000000000000000000000000 04 5a6fc3ab")},
	{"connect request, CJK name", &ConnectRequest{Version: 2, Player: testPlayer, Name: "玩家"},
		padded("02 02 " + testPlayerHex + " 06 e78ea9e5aeb6")},
	{"connect request, longest name", &ConnectRequest{Version: 2, Player: testPlayer, Name: strings.Repeat("n", MaxNameLen)},
		padded("02 02 " + testPlayerHex + " 20 " + strings.Repeat("6e", 32))},
	{"connect request, an observer", &ConnectRequest{Version: 2, Player: testPlayer, Name: "Ada", Role: RoleObserver},
		padded("02 02 " + testPlayerHex + " 03 416461 01")},
	{"challenge", &Challenge{Issued: 1_700_000_000_000, Tag: testTag},
		"03 0000018bcfe56800 " + testTagHex},
	{"challenge, zero", &Challenge{},
		"03 0000000000000000 00000000000000000000000000000000"},
	{"challenge response", &ChallengeResponse{Version: 2, Player: testPlayer, Name: "Ada", Challenge: Challenge{Issued: 1_700_000_000_000, Tag: testTag}, PublicKey: testClientKey},
		padded("04 02 " + testPlayerHex + " 03 416461 0000018bcfe56800 " + testTagHex + " " + rfcClientPublic)},
	{"challenge response, longest name", &ChallengeResponse{Version: 2, Player: testPlayer, Name: strings.Repeat("n", MaxNameLen), Challenge: Challenge{Issued: 1<<64 - 1, Tag: testTag}, PublicKey: PublicKey{31: 1}},
		padded("04 02 " + testPlayerHex + " 20 " + strings.Repeat("6e", 32) + " ffffffffffffffff " + testTagHex + " " + strings.Repeat("00", 31) + "01")},
	{"challenge response, an observer", &ChallengeResponse{Version: 2, Player: testPlayer, Name: "Ada", Challenge: Challenge{Issued: 1_700_000_000_000, Tag: testTag}, PublicKey: testClientKey, Role: RoleObserver},
		padded("04 02 " + testPlayerHex + " 03 416461 0000018bcfe56800 " + testTagHex + " " + rfcClientPublic + " 01")},
	{"accepted", &Accepted{PublicKey: testServerKey},
		"05 " + rfcServerPublic},
	{"accepted, key of ones", &Accepted{PublicKey: PublicKey{0: 0xff, 31: 0xff}},
		"05 ff" + strings.Repeat("00", 30) + "ff"},
	{"denied, server full", &Denied{Reason: DenyServerFull}, "06 01"},
	{"denied, version", &Denied{Reason: DenyVersion}, "06 02"},
	{"denied, challenge", &Denied{Reason: DenyChallenge}, "06 03"},
	{"denied, bad request", &Denied{Reason: DenyBadRequest}, "06 04"},
	{"disconnect, closed, no text", &Disconnect{Reason: DisconnectClosed}, "07 01 00"},
	{"disconnect, kicked with text", &Disconnect{Reason: DisconnectKicked, Text: "spam"}, "07 02 04 7370616d"},
	{"disconnect, timeout", &Disconnect{Reason: DisconnectTimeout}, "07 03 00"},
	{"disconnect, error", &Disconnect{Reason: DisconnectError, Text: "dependency expired"},
		"07 04 12 646570656e64656e63792065787069726564"},
	{"disconnect, replaced", &Disconnect{Reason: DisconnectReplaced}, "07 05 00"},
	{"disconnect, shutdown, longest text", &Disconnect{Reason: DisconnectShutdown, Text: strings.Repeat("x", MaxReasonText)},
		"07 06 64 " + strings.Repeat("78", 100)},
	{"ping", &Ping{ID: 1, T0: 1_700_000_000_123_456_789}, "08 00000001 17979cfe3d85cd15"},
	{"ping, negative time", &Ping{ID: 0xffffffff, T0: -1}, "08 ffffffff ffffffffffffffff"},
	{"pong", &Pong{ID: 1, T0: 1_700_000_000_123_456_789, T1: 0x0102030405060708, T2: 0x0102030405060709},
		"09 00000001 17979cfe3d85cd15 0102030405060708 0102030405060709"},
	{"pong, zero", &Pong{}, "09 00000000 0000000000000000 0000000000000000 0000000000000000"},
}

func TestConnectionPackets(t *testing.T) {
	for _, tt := range connectionPacketTests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got, err := appendPacket([]byte{0xCC}, tt.m)
			checkErr(t, err, nil)
			if !bytes.Equal(got, append([]byte{0xCC}, want...)) {
				t.Fatalf("append = %x\nwant cc%x", got, want)
			}
			typ, err := PeekType(want)
			checkErr(t, err, nil)
			m, err := parsers[typ](want)
			checkErr(t, err, nil)
			if !samePacket(m, tt.m) {
				t.Errorf("parse = %+v, want %+v", m, tt.m)
			}
			// Every other parser refuses the packet by its type byte.
			for other, parse := range parsers {
				if other != typ {
					_, err := parse(want)
					checkErr(t, err, ErrBadType)
				}
			}
			_, _, err = ParseHeader(want)
			checkErr(t, err, ErrBadType)
		})
	}
}

// TestHandshakeDatagramSize: a request datagram begun with BeginDatagram is
// exactly HandshakeSize bytes, whatever the name, and it opens again.
func TestHandshakeDatagramSize(t *testing.T) {
	for _, name := range []string{"a", "Ada", strings.Repeat("n", MaxNameLen)} {
		for _, m := range []any{
			&ConnectRequest{Player: testPlayer, Name: name},
			&ChallengeResponse{Player: testPlayer, Name: name, Challenge: Challenge{Issued: 5, Tag: testTag}, PublicKey: testClientKey},
		} {
			d, err := appendPacket(BeginDatagram(nil), m)
			checkErr(t, err, nil)
			if len(d) != HandshakeSize {
				t.Errorf("%T with name %q: datagram of %d bytes, want %d", m, name, len(d), HandshakeSize)
			}
			SealDatagram(d, 0)
			packet, err := OpenDatagram(d, 0)
			checkErr(t, err, nil)
			if _, err := parsers[PacketType(packet[0])](packet); err != nil {
				t.Errorf("%T with name %q: %v", m, name, err)
			}
		}
	}
}

// TestNoAmplification: every reply a server sends before the client has
// proven its address (a Challenge, a Denied) is at most 29 bytes, 0.024 of the
// request it answers, so a spoofed request cannot make the server send more
// bytes to a victim than the attacker sent; and the Accepted, sent once the
// address is proven, is still far smaller than the request.
func TestNoAmplification(t *testing.T) {
	replies := []struct {
		m   any
		max int
	}{
		{&Challenge{Issued: 1<<64 - 1, Tag: testTag}, 29},
		{&Denied{Reason: DenyBadRequest}, 29},
		{&Accepted{PublicKey: testServerKey}, HandshakeSize / 32},
	}
	for _, r := range replies {
		d, err := appendPacket(BeginDatagram(nil), r.m)
		checkErr(t, err, nil)
		if len(d) > r.max {
			t.Errorf("%T datagram is %d bytes, at most %d (the request is %d)", r.m, len(d), r.max, HandshakeSize)
		}
	}
}

func TestAppendConnectionPacketVersionZero(t *testing.T) {
	got, err := AppendConnectRequest(nil, &ConnectRequest{Player: testPlayer, Name: "Ada"})
	checkErr(t, err, nil)
	if want := unhex(t, padded("02 02 "+testPlayerHex+" 03 416461")); !bytes.Equal(got, want) {
		t.Errorf("request with version 0 = %x, want %x", got, want)
	}
	got, err = AppendChallengeResponse(nil, &ChallengeResponse{Player: testPlayer, Name: "Ada", PublicKey: testClientKey})
	checkErr(t, err, nil)
	if want := unhex(t, padded("04 02 "+testPlayerHex+" 03 416461 0000000000000000 00000000000000000000000000000000 "+rfcClientPublic)); !bytes.Equal(got, want) {
		t.Errorf("response with version 0 = %x, want %x", got, want)
	}
}

func TestAppendConnectionPacketRejects(t *testing.T) {
	tests := []struct {
		name string
		m    any
		want error
	}{
		{"request, empty name", &ConnectRequest{}, ErrBadName},
		{"request, name too long", &ConnectRequest{Name: strings.Repeat("n", MaxNameLen+1)}, ErrTooLong},
		{"request, long in bytes, short in characters", &ConnectRequest{Name: strings.Repeat("ë", 17)}, ErrTooLong},
		{"request, invalid UTF-8", &ConnectRequest{Name: "A\xffa"}, ErrBadName},
		{"request, line break", &ConnectRequest{Name: "A\nda"}, ErrBadName},
		{"response, empty name", &ChallengeResponse{PublicKey: testClientKey}, ErrBadName},
		{"response, escape", &ChallengeResponse{Name: "\x1b[31mAda", PublicKey: testClientKey}, ErrBadName},
		{"response, public key of zeros", &ChallengeResponse{Name: "Ada"}, ErrRange},
		{"accepted, public key of zeros", &Accepted{}, ErrRange},
		{"denied, reason 0", &Denied{}, ErrRange},
		{"denied, reason 5", &Denied{Reason: 5}, ErrRange},
		{"disconnect, reason 0", &Disconnect{}, ErrRange},
		{"disconnect, reason 7", &Disconnect{Reason: 7}, ErrRange},
		{"disconnect, text too long", &Disconnect{Reason: DisconnectKicked, Text: strings.Repeat("x", MaxReasonText+1)}, ErrTooLong},
		{"disconnect, invalid UTF-8", &Disconnect{Reason: DisconnectKicked, Text: "\xc3"}, ErrBadName},
		{"disconnect, control character", &Disconnect{Reason: DisconnectKicked, Text: "a\x00b"}, ErrBadName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := appendPacket([]byte{3}, tt.m)
			checkErr(t, err, tt.want)
			if !bytes.Equal(got, []byte{3}) {
				t.Errorf("b changed to %x", got)
			}
		})
	}
}

func TestParseConnectionPacketRejects(t *testing.T) {
	const (
		request  = "02 02 " + testPlayerHex
		response = "04 02 " + testPlayerHex
		size     = HandshakeSize - ChecksumSize
	)
	tests := []struct {
		name string
		typ  PacketType // the parser to use
		hex  string
		want error
	}{
		{"request, empty", TypeConnectRequest, "", ErrShort},
		{"request, wrong type", TypeConnectRequest, padded(response + " 03 416461"), ErrBadType},
		{"request, one byte short", TypeConnectRequest, padTo(request+" 03 416461", size-1), ErrShort},
		{"request, one byte long", TypeConnectRequest, padTo(request+" 03 416461", size+1), ErrTrailing},
		{"request, only the body", TypeConnectRequest, request + " 03 416461", ErrShort},
		{"request, version 0", TypeConnectRequest, padded("02 00 " + testPlayerHex + " 03 416461"), ErrRange},
		{"request, empty name", TypeConnectRequest, padded(request + " 00"), ErrBadName},
		{"request, name of 33 bytes", TypeConnectRequest, padded(request + " 21 " + strings.Repeat("6e", 33)), ErrTooLong},
		{"request, name of 255 bytes", TypeConnectRequest, padded(request + " ff"), ErrTooLong},
		{"request, name length runs into the padding", TypeConnectRequest, padded(request + " 05 416461"), ErrBadName},
		{"request, invalid UTF-8", TypeConnectRequest, padded(request + " 02 c328"), ErrBadName},
		{"request, overlong UTF-8", TypeConnectRequest, padded(request + " 02 c081"), ErrBadName},
		{"request, surrogate", TypeConnectRequest, padded(request + " 03 eda080"), ErrBadName},
		{"request, NUL", TypeConnectRequest, padded(request + " 03 410061"), ErrBadName},
		{"request, DEL", TypeConnectRequest, padded(request + " 01 7f"), ErrBadName},
		{"request, C1 control", TypeConnectRequest, padded(request + " 02 c285"), ErrBadName},
		{"request, unknown role", TypeConnectRequest, padded(request + " 03 416461 02"), ErrRange},
		{"request, first padding byte", TypeConnectRequest, padded(request + " 03 416461 00 01"), ErrNonCanonical},
		{"request, last padding byte", TypeConnectRequest, padTo(request+" 03 416461", size-1) + " 80", ErrNonCanonical},

		{"response, wrong type", TypeChallengeResponse, padded(request + " 03 416461"), ErrBadType},
		{"response, one byte short", TypeChallengeResponse, padTo(response+" 03 416461", size-1), ErrShort},
		{"response, one byte long", TypeChallengeResponse, padTo(response+" 03 416461", size+1), ErrTrailing},
		{"response, version 0", TypeChallengeResponse, padded("04 00 " + testPlayerHex + " 03 416461"), ErrRange},
		{"response, empty name", TypeChallengeResponse, padded(response + " 00"), ErrBadName},
		{"response, name too long", TypeChallengeResponse, padded(response + " 21 " + strings.Repeat("6e", 33)), ErrTooLong},
		{"response, tab in name", TypeChallengeResponse, padded(response + " 03 410961"), ErrBadName},
		{"response, unknown role", TypeChallengeResponse, padded(response + " 03 416461 0000018bcfe56800 " + testTagHex + " " + rfcClientPublic + " ff"), ErrRange},
		{"response, padding", TypeChallengeResponse, padded(response + " 03 416461 0000018bcfe56800 " + testTagHex + " " + rfcClientPublic + " 00 00 ff"), ErrNonCanonical},
		{"response, public key of zeros (the old layout's padding)", TypeChallengeResponse, padded(response + " 03 416461 0000018bcfe56800 " + testTagHex), ErrRange},

		{"challenge, empty", TypeChallenge, "", ErrShort},
		{"challenge, wrong type", TypeChallenge, "02 0000018bcfe56800 " + testTagHex, ErrBadType},
		{"challenge, short", TypeChallenge, "03 0000018bcfe56800 " + testTagHex[:30], ErrShort},
		{"challenge, type only", TypeChallenge, "03", ErrShort},
		{"challenge, trailing", TypeChallenge, "03 0000018bcfe56800 " + testTagHex + " 00", ErrTrailing},
		{"challenge, padded like a request", TypeChallenge, padded("03 0000018bcfe56800 " + testTagHex), ErrTrailing},

		{"accepted, public key of zeros", TypeAccepted, "05 " + strings.Repeat("00", 32), ErrRange},
		{"accepted, short", TypeAccepted, "05 " + rfcServerPublic[:62], ErrShort},
		{"accepted, trailing", TypeAccepted, "05 " + rfcServerPublic + " 00", ErrTrailing},
		{"accepted, the old layout: a connection key", TypeAccepted, "05 0000000000000001", ErrShort},

		{"denied, reason 0", TypeDenied, "06 00", ErrRange},
		{"denied, reason 5", TypeDenied, "06 05", ErrRange},
		{"denied, reason 255", TypeDenied, "06 ff", ErrRange},
		{"denied, no reason", TypeDenied, "06", ErrShort},
		{"denied, trailing", TypeDenied, "06 01 00", ErrTrailing},

		{"disconnect, empty", TypeDisconnect, "", ErrShort},
		{"disconnect, no reason", TypeDisconnect, "07", ErrShort},
		{"disconnect, reason 0", TypeDisconnect, "07 00 00", ErrRange},
		{"disconnect, reason 7", TypeDisconnect, "07 07 00", ErrRange},
		{"disconnect, no text length", TypeDisconnect, "07 01", ErrShort},
		{"disconnect, text cut off", TypeDisconnect, "07 02 05 6869", ErrShort},
		{"disconnect, text too long", TypeDisconnect, "07 02 65 " + strings.Repeat("78", 101), ErrTooLong},
		{"disconnect, trailing", TypeDisconnect, "07 01 00 00", ErrTrailing},
		{"disconnect, trailing after text", TypeDisconnect, "07 02 02 6869 00", ErrTrailing},
		{"disconnect, invalid UTF-8", TypeDisconnect, "07 02 01 ff", ErrBadName},
		{"disconnect, line break", TypeDisconnect, "07 02 03 610a62", ErrBadName},

		{"ping, short", TypePing, "08 00000001 17979cfe3d85cd", ErrShort},
		{"ping, trailing", TypePing, "08 00000001 17979cfe3d85cd15 00", ErrTrailing},
		{"ping, a pong", TypePing, "09 00000001 17979cfe3d85cd15", ErrBadType},
		{"pong, short", TypePong, "09 00000001 17979cfe3d85cd15", ErrShort},
		{"pong, trailing", TypePong, "09 00000001 17979cfe3d85cd15 0102030405060708 0102030405060709 00", ErrTrailing},
		{"pong, a ping", TypePong, "08 00000001 17979cfe3d85cd15 0102030405060708 0102030405060709", ErrBadType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parsers[tt.typ](unhex(t, tt.hex))
			checkErr(t, err, tt.want)
		})
	}
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		want error
	}{
		{"Ada", nil},
		{"a", nil},
		{"Zoë", nil},
		{"玩家", nil},
		{"two words", nil},
		{"🙂", nil},
		{strings.Repeat("n", MaxNameLen), nil},
		{strings.Repeat("ë", 16), nil},
		{"", ErrBadName},
		{strings.Repeat("n", MaxNameLen+1), ErrTooLong},
		{"\xff", ErrBadName},
		{"a\x00", ErrBadName},
		{"a\tb", ErrBadName},
		{"a\u007fb", ErrBadName},
		{"a\u0085b", ErrBadName},
		{"\x1b[2J", ErrBadName},
	}
	for _, tt := range tests {
		checkErr(t, CheckName(tt.name), tt.want)
	}
}

func TestPeekType(t *testing.T) {
	for b := range 256 {
		typ, err := PeekType([]byte{byte(b), 0xAA})
		if b >= 1 && b <= 9 {
			checkErr(t, err, nil)
			if typ != PacketType(b) {
				t.Errorf("PeekType(%02x) = %v", b, typ)
			}
		} else {
			checkErr(t, err, ErrBadType)
			if typ != TypeInvalid {
				t.Errorf("PeekType(%02x) = %v alongside an error", b, typ)
			}
		}
	}
	_, err := PeekType(nil)
	checkErr(t, err, ErrShort)
}

func TestReasonStrings(t *testing.T) {
	for r, want := range map[DenyReason]string{
		DenyServerFull: "server full", DenyVersion: "protocol version mismatch",
		DenyChallenge: "invalid or expired challenge", DenyBadRequest: "bad request", 0: "DenyReason(0)",
	} {
		if got := r.String(); got != want {
			t.Errorf("DenyReason %d = %q, want %q", uint8(r), got, want)
		}
	}
	for r, want := range map[DisconnectReason]string{
		DisconnectClosed: "closed", DisconnectKicked: "kicked", DisconnectTimeout: "timeout",
		DisconnectError: "connection error", DisconnectReplaced: "replaced", DisconnectShutdown: "server shutdown",
		7: "DisconnectReason(7)",
	} {
		if got := r.String(); got != want {
			t.Errorf("DisconnectReason %d = %q, want %q", uint8(r), got, want)
		}
	}
}

// TestConnectionPacketsNoAlloc: the packets a connection sends every second
// cost no allocations.
func TestConnectionPacketsNoAlloc(t *testing.T) {
	buf := make([]byte, 0, MaxDatagram)
	ping := Ping{ID: 3, T0: 1_700_000_000_123_456_789}
	pong := Pong{ID: 3, T0: 1, T1: 2, T2: 3}
	challenge := Challenge{Issued: 9, Tag: testTag}
	accepted := Accepted{PublicKey: testServerKey}
	denied := Denied{Reason: DenyServerFull}
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendPing(buf[:0], &ping)
		if _, err := ParsePing(buf); err != nil {
			t.Fatal(err)
		}
		buf = AppendPong(buf[:0], &pong)
		if _, err := ParsePong(buf); err != nil {
			t.Fatal(err)
		}
		buf = AppendChallenge(buf[:0], &challenge)
		if _, err := ParseChallenge(buf); err != nil {
			t.Fatal(err)
		}
		buf, _ = AppendAccepted(buf[:0], &accepted)
		if _, err := ParseAccepted(buf); err != nil {
			t.Fatal(err)
		}
		buf, _ = AppendDenied(buf[:0], &denied)
		if _, err := ParseDenied(buf); err != nil {
			t.Fatal(err)
		}
		buf = BeginDatagram(buf[:0])
		if buf, _ = AppendConnectRequest(buf, &ConnectRequest{Name: "Ada"}); len(buf) != HandshakeSize {
			t.Fatalf("request datagram of %d bytes", len(buf))
		}
	})
	if allocs != 0 {
		t.Errorf("connection packets allocate %v times", allocs)
	}
}

// TestFitReasonText: a text too long for a Disconnect is cut at the last character boundary
// within MaxReasonText bytes, never inside a multi-byte character, and whatever comes in,
// AppendDisconnect accepts what comes out.
func TestFitReasonText(t *testing.T) {
	r := strings.Repeat
	for _, tt := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"short", "bye", "bye"},
		{"100 ASCII bytes", r("a", 100), r("a", 100)},
		{"101 ASCII bytes", r("a", 101), r("a", 100)},
		{"2-byte characters ending at the limit", r("é", 50), r("é", 50)},
		{"a 2-byte character across the limit", "a" + r("é", 50), "a" + r("é", 49)},
		{"a 3-byte character across the limit, 1 byte in", r("€", 34), r("€", 33)},
		{"a 3-byte character across the limit, 2 bytes in", "a" + r("€", 33), "a" + r("€", 33)},
		{"a 3-byte character across the limit, 2 bytes in, longer", "aa" + r("€", 33), "aa" + r("€", 32)},
		{"4-byte characters ending at the limit", r("😀", 25), r("😀", 25)},
		{"a 4-byte character across the limit", "a" + r("😀", 25), "a" + r("😀", 24)},
		{"a 4-byte character across the limit, 3 bytes in", "aaa" + r("😀", 25), "aaa" + r("😀", 24)},
		{"invalid UTF-8", "bad \xff\xfe byte", "bad \ufffd byte"},
		{"a line break", "one\ntwo", "one\ufffdtwo"},
		{"a C1 control", "a\u0085b", "a\ufffdb"},
		{"invalid UTF-8 made long by its replacement", r("a", 98) + "\xff", r("a", 98)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := FitReasonText(tt.in)
			if got != tt.want {
				t.Errorf("FitReasonText(%q) = %q (%d bytes), want %q", tt.in, got, len(got), tt.want)
			}
			b, err := AppendDisconnect(nil, &Disconnect{Reason: DisconnectClosed, Text: got})
			if err != nil {
				t.Fatalf("AppendDisconnect refuses %q: %v", got, err)
			}
			if m, err := ParseDisconnect(b); err != nil || m.Text != got {
				t.Errorf("ParseDisconnect: %q, %v", m.Text, err)
			}
		})
	}
}
