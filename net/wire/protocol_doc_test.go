package wire

import (
	"bytes"
	"encoding/hex"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/internal/int30"
)

// net/PROTOCOL.md is written for people implementing a compatible peer, so its examples must be
// right. These tests read the document and check its tables and its worked example against
// this package.

func readProtocolDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatalf("reading the protocol document: %v", err)
	}
	return string(b)
}

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

// exampleBytes reads the bytes of the example between <!-- name --> and
// <!-- /name -->: every line that starts with hex bytes contributes them.
func exampleBytes(t *testing.T, doc, name string) []byte {
	t.Helper()
	start := strings.Index(doc, "<!-- "+name+" -->")
	end := strings.Index(doc, "<!-- /"+name+" -->")
	if start < 0 || end < start {
		t.Fatalf("markers of the example %q not found", name)
	}
	var fromDoc []byte
	byteRe := regexp.MustCompile(`^(?:[0-9a-f]{2} )*[0-9a-f]{2}(?:\s|$)`)
	for _, line := range strings.Split(doc[start:end], "\n") {
		m := byteRe.FindString(line)
		if m == "" {
			continue
		}
		b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(m), " ", ""))
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		fromDoc = append(fromDoc, b...)
	}
	return fromDoc
}

func TestProtocolDocWorkedExample(t *testing.T) {
	doc := readProtocolDoc(t)
	fromDoc := exampleBytes(t, doc, "example-packet")

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
	whole := regexp.MustCompile("The whole datagram is ([0-9]+) bytes: `([0-9a-f ]+)`").FindStringSubmatch(doc)
	if whole == nil {
		t.Fatal("the one-line form of the example is missing")
	}
	if n, _ := strconv.Atoi(whole[1]); n != len(d) {
		t.Errorf("the document says %s bytes, the packet has %d", whole[1], len(d))
	}
	if got := strings.ReplaceAll(whole[2], " ", ""); got != hex.EncodeToString(d) {
		t.Errorf("one-line form %s, packet %x", got, d)
	}
}

func TestProtocolDocChallengeExample(t *testing.T) {
	doc := readProtocolDoc(t)
	fromDoc := exampleBytes(t, doc, "example-challenge")
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

// TestProtocolDocPacketTypes checks the table of connection packets: each
// type's name and the size of its datagram, from the smallest to the largest
// packet of the type.
func TestProtocolDocPacketTypes(t *testing.T) {
	doc := readProtocolDoc(t)
	row := regexp.MustCompile("(?m)^\\| ([0-9]) \\| (\\w+) \\| [^|]+ \\| [^|]+ \\| ([0-9]+)(?: – ([0-9]+))? \\|$")
	rows := row.FindAllStringSubmatch(doc, -1)
	// The smallest and the largest packet of each type.
	extremes := map[PacketType][2]any{
		TypeConnectRequest:    {&ConnectRequest{Name: "a"}, &ConnectRequest{Name: strings.Repeat("n", MaxNameLen)}},
		TypeChallenge:         {&Challenge{}, &Challenge{}},
		TypeChallengeResponse: {&ChallengeResponse{Name: "a"}, &ChallengeResponse{Name: strings.Repeat("n", MaxNameLen)}},
		TypeAccepted:          {&Accepted{Key: 1}, &Accepted{Key: 1}},
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
		want := r[3:5]
		if want[1] == "" {
			want[1] = want[0]
		}
		for i, m := range ms {
			d, err := appendPacket(BeginDatagram(nil), m)
			if err != nil {
				t.Fatal(err)
			}
			if strconv.Itoa(len(d)) != want[i] {
				t.Errorf("%v: the document says %s bytes, the datagram has %d", typ, want[i], len(d))
				break
			}
		}
	}
}
