package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
)

func TestDistNearestRank(t *testing.T) {
	var d Dist
	for i := 100; i >= 1; i-- {
		d.Add(float64(i))
	}
	for _, c := range []struct{ p, want float64 }{{50, 50}, {95, 95}, {99, 99}, {99.5, 100}, {100, 100}, {1, 1}, {0.1, 1}} {
		if got := d.P(c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if d.Mean() != 50.5 || d.Max() != 100 || d.N() != 100 {
		t.Errorf("mean %v, max %v, n %d", d.Mean(), d.Max(), d.N())
	}
	var empty Dist
	if !math.IsNaN(empty.P(50)) || !math.IsNaN(empty.Mean()) {
		t.Error("an empty distribution has a percentile")
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{F(1234567.891, 1), "1,234,567.9"}, {F(-1234, 0), "-1,234"}, {F(0.5, 2), "0.50"}, {F(-0.01, 1), "0.0"},
		{F(math.NaN(), 1), "–"}, {Int(uint64(32768)), "32,768"}, {Pct(1, 3), "33.3%"}, {Pct(1, 0), "–"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func section() *Section {
	s := &Section{Name: "demo", Title: "Demo", Command: "go run ./cmd/netlab demo"}
	s.Textf("A paragraph with %d words in it.", 7)
	tb := &Table{Title: "Numbers", Head: []string{"name", "value"}}
	tb.Row("a|b", "1,234")
	tb.Row("c", "–")
	s.Add(tb,
		&Chart{Title: "Bars", Unit: "ms", Labels: []string{"x", "y"}, Series: []Series{{Values: []float64{1, 100}}}},
		&Chart{Title: "Lines", Kind: Lines, LogY: true, Unit: "B", XLabel: "loss", Labels: []string{"0%", "10%", "20%"},
			Series: []Series{{Name: "one", Values: []float64{1, 10, 1000}}, {Name: "two <&>", Values: []float64{math.NaN(), 0, 5}}}},
		&Chart{Title: "Empty", Labels: []string{"none"}})
	return s
}

func TestMarkdownAndText(t *testing.T) {
	var md, txt bytes.Buffer
	if err := WriteMarkdown(&md, []*Section{section()}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Demo\n", "```sh\ngo run ./cmd/netlab demo\n```", "| name | value |\n| --- | --- |\n| a\\|b | 1,234 |", "```text\nBars (ms)\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteText(&txt, []*Section{section()}); err != nil {
		t.Fatal(err)
	}
	// Numbers are right-aligned, names left-aligned.
	for _, want := range []string{"name  value\n", "a|b   1,234\n", "c         –\n", "Lines (B, log scale)\n", "* one   o two <&>"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
}

// TestSVGIsWellFormed: every chart is an XML document, its text escaped.
func TestSVGIsWellFormed(t *testing.T) {
	for _, p := range section().Parts {
		c, ok := p.(*Chart)
		if !ok {
			continue
		}
		dec := xml.NewDecoder(strings.NewReader(SVG(c)))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.Title, err, SVG(c))
			}
		}
	}
	dir := t.TempDir()
	paths, err := WriteSVG(dir, []*Section{section()})
	if err != nil || len(paths) != 3 {
		t.Fatalf("WriteSVG: %v, %v", paths, err)
	}
}
