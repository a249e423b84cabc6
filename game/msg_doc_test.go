package game

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// PROTOCOL.md is written for people implementing a compatible peer, so its
// tables and examples must be right. These tests read it and check them
// against the codec.

func readMsgProtocolDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatalf("reading the protocol document: %v", err)
	}
	return string(b)
}

// msgDocTableHeader opens PROTOCOL.md's table of messages; the table ends at the first line
// after it that is not a row.
const msgDocTableHeader = "| type | message | direction | how it travels | depends on |\n| --- | --- | --- | --- | --- |\n"

// msgDocTable writes PROTOCOL.md's table of messages from msgTypes: a row per type.
func msgDocTable() string {
	var b strings.Builder
	b.WriteString(msgDocTableHeader)
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		e := msgTypes[typ]
		travels, dependsOn := e.delivery.String(), e.dependsOn
		if e.travels != "" {
			travels += ", " + e.travels
		}
		if dependsOn == "" {
			dependsOn = "—"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", typ, e.name, e.direction, travels, dependsOn)
	}
	return b.String()
}

// TestMsgDocTypeTable: PROTOCOL.md's table of messages is msgTypes, row for row: every type
// once, with its number, name, direction, delivery and dependencies. With -update it writes
// the table from msgTypes (go test ./game -run TestMsgDocTypeTable -update).
func TestMsgDocTypeTable(t *testing.T) {
	doc := readMsgProtocolDoc(t)
	start := strings.Index(doc, msgDocTableHeader)
	if start < 0 {
		t.Fatalf("PROTOCOL.md has no table of messages starting %q", msgDocTableHeader)
	}
	end := start + len(msgDocTableHeader)
	for strings.HasPrefix(doc[end:], "| ") {
		end += strings.Index(doc[end:], "\n") + 1
	}
	want := msgDocTable()
	if *update {
		if err := os.WriteFile("PROTOCOL.md", []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := doc[start:end]; got != want {
		gotRows, wantRows := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range max(len(gotRows), len(wantRows)) {
			if g, w := msgDocRow(gotRows, i), msgDocRow(wantRows, i); g != w {
				t.Errorf("table row %d:\n PROTOCOL.md %s\n msgTypes    %s", i-1, g, w)
			}
		}
		t.Log("go test ./game -run TestMsgDocTypeTable -update writes the table from msgTypes")
	}
	// The layouts name every message with its number too.
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		if !regexp.MustCompile(`(?m)^` + strconv.Itoa(int(typ)) + ` +` + typ.String() + ` `).MatchString(doc) {
			t.Errorf("no layout for %d %v", typ, typ)
		}
	}
}

// msgDocRow returns rows[i], or "(none)" past the end.
func msgDocRow(rows []string, i int) string {
	if i < len(rows) {
		return rows[i]
	}
	return "(none)"
}

// TestMsgDocExamples: every example row is a valid message of the type it
// names, and encodes back to the same bytes.
func TestMsgDocExamples(t *testing.T) {
	doc := readMsgProtocolDoc(t)
	rows := regexp.MustCompile("(?m)^\\| (\\w+) \\| [^|]+ \\| `([0-9a-f ]+)` \\|$").FindAllStringSubmatch(doc, -1)
	if len(rows) < int(maxMsgType) {
		t.Fatalf("found %d example rows, want at least %d", len(rows), maxMsgType)
	}
	seen := map[MsgType]bool{}
	for _, r := range rows {
		in := msgUnhex(t, r[2])
		m, err := ParseMsg(in)
		if err != nil {
			t.Errorf("example %s %q: %v", r[1], r[2], err)
			continue
		}
		if m.Type().String() != r[1] {
			t.Errorf("example %q is a %v, the row says %s", r[2], m.Type(), r[1])
		}
		seen[m.Type()] = true
		if got, err := AppendMsg(nil, m); err != nil || !bytes.Equal(got, in) {
			t.Errorf("example %s encodes back as % x, %v", r[1], got, err)
		}
	}
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		if !seen[typ] {
			t.Errorf("no example of %v", typ)
		}
	}
}

// TestMsgDocFieldByField: the UnitUpdate example taken apart field by field
// has the bytes of its row.
func TestMsgDocFieldByField(t *testing.T) {
	doc := readMsgProtocolDoc(t)
	start := strings.Index(doc, "The UnitUpdate row, field by field:")
	if start < 0 {
		t.Fatal("the field-by-field example is missing")
	}
	block := doc[start:]
	block = block[strings.Index(block, "```\n")+4:]
	block = block[:strings.Index(block, "```")]
	byteRe := regexp.MustCompile(`^\s*((?:[0-9a-f]{2} )*[0-9a-f]{2})(?:\s|$)`)
	var fromDoc []string
	for _, line := range strings.Split(block, "\n") {
		if m := byteRe.FindStringSubmatch(line); m != nil {
			fromDoc = append(fromDoc, m[1])
		}
	}
	got := msgUnhex(t, strings.Join(fromDoc, " "))
	want, err := AppendMsg(nil, msgEncodingTestUpdate(t))
	checkMsgErr(t, err, nil)
	if !bytes.Equal(got, want) {
		t.Errorf("the field-by-field bytes are % x, the message is % x", got, want)
	}
	// The example row of the table is the same message.
	row := regexp.MustCompile("(?m)^\\| UnitUpdate \\| [^|]+ \\| `([0-9a-f ]+)` \\|$").FindStringSubmatch(doc)
	if row == nil {
		t.Fatal("no UnitUpdate example row")
	}
	if inRow := msgUnhex(t, row[1]); !bytes.Equal(inRow, want) {
		t.Errorf("the UnitUpdate row is % x, the field-by-field example % x", inRow, want)
	}
}

// msgEncodingTestUpdate returns the message of the "unit update" encoding test.
func msgEncodingTestUpdate(t *testing.T) *UnitUpdate {
	t.Helper()
	for _, tt := range msgEncodingTests {
		if tt.name == "unit update" {
			return tt.m.(*UnitUpdate)
		}
	}
	t.Fatal(`no "unit update" encoding test`)
	return nil
}
