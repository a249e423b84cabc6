package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// table.go is what gentable makes of the confusables.txt kept in testdata: nobody edited it
// by hand, and the data it was made from is the data in the repository.
func TestTableIsGenerated(t *testing.T) {
	t.Parallel()
	want, err := generateFile("../testdata/confusables.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../table.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("table.go is not what gentable makes of testdata/confusables.txt.gz: run go generate ./internal/confusables")
	}
}

// A broken file is refused with the line and what is wrong with it.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	const head = "# Version: 1.0.0\n"
	for _, c := range []struct{ what, in, says string }{
		{"no version", "0030 ;\t004F ;\tMA\t# x\n", "Version"},
		{"no mapping", head, "no mapping"},
		{"two fields", head + "0030 ;\t004F\n", "line 2: 2 fields"},
		{"another type", head + "0030 ;\t004F ;\tSL\n", `type "SL"`},
		{"a bad source", head + "00G0 ;\t004F ;\tMA\n", "source"},
		{"a surrogate", head + "D800 ;\t004F ;\tMA\n", "source"},
		{"beyond Unicode", head + "110000 ;\t004F ;\tMA\n", "source"},
		{"no target", head + "0030 ;\t ;\tMA\n", "no target"},
		{"a bad target", head + "0030 ;\t004F XYZ ;\tMA\n", "target"},
		{"a long target", head + "0030 ;\t" + strings.Repeat("0041 ", 33) + ";\tMA\n", "at most 32"},
		{"a source twice", head + "0030 ;\t004F ;\tMA\n0030 ;\t006F ;\tMA\n", "twice"},
	} {
		_, err := parse(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error that says %q", c.what, err, c.says)
		}
	}
}

// FuzzParse: any input is parsed or refused, never a panic, and what is parsed makes a table
// that is valid Go.
func FuzzParse(f *testing.F) {
	f.Add("# Version: 1.0.0\n0030 ;\t004F ;\tMA\t# ( 0 → O )\n\n0031 ;\t006C ;\tMA\n")
	f.Add("# Version: 1.0.0\n006D ;\t0072 006E ;\tMA\n")
	f.Add("0030 ; 004F ; MA")
	f.Fuzz(func(t *testing.T, in string) {
		d, err := parse(strings.NewReader(in))
		if err != nil {
			return
		}
		if _, err := d.source(); err != nil {
			t.Fatalf("%+q parsed, but its table is not Go: %v", in, err)
		}
	})
}
