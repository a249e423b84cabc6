package wire

import (
	"bytes"
	"crypto/ecdh"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/internal/codectest"
	"github.com/ackattack/ackattack/internal/int30"
)

// net/PROTOCOL.md is written for people implementing a compatible peer, so its examples must be
// right. These tests read the document and check its tables and its worked example against
// this package.

func readProtocolDoc(t *testing.T) string { return codectest.ReadDoc(t, "../PROTOCOL.md") }

// hexCell turns "`80 40`" into bytes; "" and "(out of range)" give nil, false.
func hexCell(cell string) ([]byte, bool) {
	cell = strings.TrimSpace(cell)
	if !strings.HasPrefix(cell, "`") {
		return nil, false
	}
	b, err := hex.DecodeString(strings.ReplaceAll(strings.Trim(cell, "`"), " ", ""))
	return b, err == nil
}

func TestProtocolDocIntegerTable(t *testing.T) {
	doc := readProtocolDoc(t)
	row := regexp.MustCompile("(?m)^\\| (−?[0-9,]+) \\| ([^|]*)\\| ([^|]*)\\|$")
	rows := row.FindAllStringSubmatch(doc, -1)
	if len(rows) < 10 {
		t.Fatalf("found %d rows of the integer table, want at least 10", len(rows))
	}
	for _, r := range rows {
		v, err := strconv.ParseInt(strings.ReplaceAll(strings.ReplaceAll(r[1], ",", ""), "−", "-"), 10, 64)
		if err != nil {
			t.Fatalf("row %q: %v", r[0], err)
		}
		if want, ok := hexCell(r[2]); ok {
			got, err := int30.AppendUInt30(nil, uint32(v))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("UInt30(%d) = % x, %v; the document says % x", v, got, err, want)
			}
		}
		if want, ok := hexCell(r[3]); ok {
			got, err := int30.AppendInt30(nil, int32(v))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("Int30(%d) = % x, %v; the document says % x", v, got, err, want)
			}
		} else if strings.Contains(r[3], "out of range") {
			if _, err := int30.AppendInt30(nil, int32(v)); err == nil && v <= 1<<31-1 {
				t.Errorf("Int30(%d) encoded; the document says out of range", v)
			}
		}
	}
}

func TestProtocolDocWorkedExample(t *testing.T) {
	doc := readProtocolDoc(t)
	fromDoc := codectest.DocExample(t, doc, "example-packet")

	d := BeginDatagram(nil)
	d = AppendHeader(d, Header{Type: TypeData, Seq: 0x0100, Ack: 0x00FF, AckBits: 0xFFFFFFFF})
	var err error
	d, err = AppendRecord(d, &Record{Kind: KindGuaranteed, Seq: 5, Payload: []byte("hi")})
	if err != nil {
		t.Fatal(err)
	}
	d, err = AppendRecord(d, &Record{Kind: KindGuaranteed, Seq: 6, Deps: []uint16{5}, Payload: []byte("yo")})
	if err != nil {
		t.Fatal(err)
	}
	SealDatagram(d, 0)
	if !bytes.Equal(fromDoc, d) {
		t.Fatalf("the document's example is\n% x\nbut the packet is\n% x", fromDoc, d)
	}
	checkOneLine(t, doc, "The whole datagram is ([0-9]+) bytes: `([0-9a-f ]+)`", d)
}

// checkOneLine checks the one-line form of an example in doc, which form matches with the
// size in bytes and the hex as its two groups, against the datagram d.
func checkOneLine(t *testing.T, doc, form string, d []byte) {
	t.Helper()
	whole := regexp.MustCompile(form).FindStringSubmatch(doc)
	if whole == nil {
		t.Fatalf("the one-line form %q is missing", form)
	}
	if n, _ := strconv.Atoi(whole[1]); n != len(d) {
		t.Errorf("the document says %s bytes, the datagram has %d", whole[1], len(d))
	}
	if got := strings.ReplaceAll(whole[2], " ", ""); got != hex.EncodeToString(d) {
		t.Errorf("one-line form %s, datagram %x", got, d)
	}
}

func TestProtocolDocChallengeExample(t *testing.T) {
	doc := readProtocolDoc(t)
	fromDoc := codectest.DocExample(t, doc, "example-challenge")
	d := AppendChallenge(BeginDatagram(nil), &Challenge{
		Issued: 1_700_000_000_000,
		Tag:    [16]byte{0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f},
	})
	SealDatagram(d, 0)
	if !bytes.Equal(fromDoc, d) {
		t.Fatalf("the document's Challenge is\n% x\nbut the packet is\n% x", fromDoc, d)
	}
	whole := regexp.MustCompile("the Challenge datagram is ([0-9]+) bytes: `([0-9a-f ]+)`").FindStringSubmatch(doc)
	if whole == nil {
		t.Fatal("the one-line form of the Challenge is missing")
	}
	if n, _ := strconv.Atoi(whole[1]); n != len(d) {
		t.Errorf("the document says %s bytes, the Challenge has %d", whole[1], len(d))
	}
	if got := strings.ReplaceAll(whole[2], " ", ""); got != hex.EncodeToString(d) {
		t.Errorf("one-line form %s, packet %x", got, d)
	}
}

// TestProtocolDocKeysExample checks section 9's keys: the X25519 step (RFC 7748's
// key pairs) and the derivation of the two keys.
func TestProtocolDocKeysExample(t *testing.T) {
	doc := readProtocolDoc(t)
	start, end := strings.Index(doc, "<!-- example-keys -->"), strings.Index(doc, "<!-- /example-keys -->")
	if start < 0 || end < start {
		t.Fatal("markers of the keys example not found")
	}
	vals := map[string][]byte{}
	for _, m := range regexp.MustCompile(`(?m)^(\S.*?)\s{2,}([0-9a-f]{64})$`).FindAllStringSubmatch(doc[start:end], -1) {
		vals[m[1]] = unhex(t, m[2])
	}
	if len(vals) != 7 {
		t.Fatalf("found %d values in the keys example, want 7: %v", len(vals), vals)
	}
	curve := ecdh.X25519()
	cpriv, err := curve.NewPrivateKey(vals["client private key"])
	if err != nil {
		t.Fatal(err)
	}
	spriv, err := curve.NewPrivateKey(vals["server private key"])
	if err != nil {
		t.Fatal(err)
	}
	var cpub, spub PublicKey
	copy(cpub[:], cpriv.PublicKey().Bytes())
	copy(spub[:], spriv.PublicKey().Bytes())
	if !bytes.Equal(cpub[:], vals["client public key"]) || !bytes.Equal(spub[:], vals["server public key"]) {
		t.Errorf("public keys %x and %x, the document says %x and %x", cpub, spub, vals["client public key"], vals["server public key"])
	}
	shared, err := cpriv.ECDH(spriv.PublicKey())
	if err != nil || !bytes.Equal(shared, vals["shared secret"]) {
		t.Fatalf("shared secret %x, %v; the document says %x", shared, err, vals["shared secret"])
	}
	toServer, toClient := ConnectionKeys(shared, &cpub, &spub)
	if !bytes.Equal(toServer[:], vals["client → server key"]) || !bytes.Equal(toClient[:], vals["server → client key"]) {
		t.Errorf("keys %x and %x, the document says %x and %x", toServer, toClient, vals["client → server key"], vals["server → client key"])
	}
}

// TestProtocolDocSealedExample seals section 8's packet as section 9 does and
// compares it with the document, one-line form and the rebuilding of the
// counter included.
func TestProtocolDocSealedExample(t *testing.T) {
	doc := readProtocolDoc(t)
	fromDoc := codectest.DocExample(t, doc, "example-sealed")
	packet := codectest.DocExample(t, doc, "example-packet")[ChecksumSize:]
	k := NewSealKey(key32(t, rfcToServer))
	const counter = 70_000
	d := k.Seal(append(BeginSealed(nil), packet...), 0, counter)
	if !bytes.Equal(fromDoc, d) {
		t.Fatalf("the document's sealed datagram is\n% x\nbut the datagram is\n% x", fromDoc, d)
	}
	checkOneLine(t, doc, "the sealed datagram is ([0-9]+) bytes:\\s+`([0-9a-f ]+)`", d)
	for next, opens := range map[uint64]bool{37_231: false, 37_232: true, 70_000: true, 102_767: true, 102_768: false} {
		got, c, err := k.Open(nil, d, next)
		if opens != (err == nil) || opens && (c != counter || !bytes.Equal(got, packet)) {
			t.Errorf("from next %d: counter %d, %v; the document says it opens: %v", next, c, err, opens)
		}
	}
}

// TestProtocolDocPacketTypes checks the table of connection packets: each
// type's name, its frame and the size of its datagram, from the smallest to
// the largest packet of the type.
func TestProtocolDocPacketTypes(t *testing.T) {
	doc := readProtocolDoc(t)
	row := regexp.MustCompile("(?m)^\\| ([0-9]) \\| (\\w+) \\| [^|]+ \\| (plain|sealed) \\| ([0-9]+)(?: – ([0-9]+))? \\|$")
	rows := row.FindAllStringSubmatch(doc, -1)
	// The smallest and the largest packet of each type.
	extremes := map[PacketType][2]any{
		TypeConnectRequest:    {&ConnectRequest{Name: "a"}, &ConnectRequest{Name: strings.Repeat("n", MaxNameLen)}},
		TypeChallenge:         {&Challenge{}, &Challenge{}},
		TypeChallengeResponse: {&ChallengeResponse{Name: "a", PublicKey: PublicKey{1}}, &ChallengeResponse{Name: strings.Repeat("n", MaxNameLen), PublicKey: PublicKey{1}}},
		TypeAccepted:          {&Accepted{PublicKey: PublicKey{1}}, &Accepted{PublicKey: PublicKey{1}}},
		TypeDenied:            {&Denied{Reason: DenyServerFull}, &Denied{Reason: DenyServerFull}},
		TypeDisconnect:        {&Disconnect{Reason: DisconnectClosed}, &Disconnect{Reason: DisconnectClosed, Text: strings.Repeat("x", MaxReasonText)}},
		TypePing:              {&Ping{}, &Ping{}},
		TypePong:              {&Pong{}, &Pong{}},
	}
	if len(rows) != len(extremes) {
		t.Fatalf("found %d rows of the packet type table, want %d", len(rows), len(extremes))
	}
	for _, r := range rows {
		n, _ := strconv.Atoi(r[1])
		typ := PacketType(n)
		if r[2] != typ.String() {
			t.Errorf("type %d is called %s in the document, %v here", n, r[2], typ)
		}
		ms, ok := extremes[typ]
		if !ok {
			t.Errorf("type %d is not a connection packet", n)
			continue
		}
		// The handshake's packets are plain, a connection's sealed.
		sealed := typ >= TypeDisconnect
		if (r[3] == "sealed") != sealed {
			t.Errorf("%v: the document says its frame is %s", typ, r[3])
		}
		want := r[4:6]
		if want[1] == "" {
			want[1] = want[0]
		}
		for i, m := range ms {
			p, err := appendPacket(nil, m)
			if err != nil {
				t.Fatal(err)
			}
			size := ChecksumSize + len(p)
			if sealed {
				size = SealedOverhead + len(p)
			}
			if strconv.Itoa(size) != want[i] {
				t.Errorf("%v: the document says %s bytes, the datagram has %d", typ, want[i], size)
				break
			}
		}
	}
}
