package wire

import (
	"bytes"
	"encoding/hex"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
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
			got, err := AppendUInt30(nil, uint32(v))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("UInt30(%d) = % x, %v; the document says % x", v, got, err, want)
			}
		}
		if want, ok := hexCell(r[3]); ok {
			got, err := AppendInt30(nil, int32(v))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("Int30(%d) = % x, %v; the document says % x", v, got, err, want)
			}
		} else if strings.Contains(r[3], "out of range") {
			if _, err := AppendInt30(nil, int32(v)); err == nil && v <= 1<<31-1 {
				t.Errorf("Int30(%d) encoded; the document says out of range", v)
			}
		}
	}
}

func TestProtocolDocWorkedExample(t *testing.T) {
	doc := readProtocolDoc(t)
	start := strings.Index(doc, "<!-- example-packet -->")
	end := strings.Index(doc, "<!-- /example-packet -->")
	if start < 0 || end < start {
		t.Fatal("worked example markers not found")
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
