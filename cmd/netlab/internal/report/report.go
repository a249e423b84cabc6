package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ackattack/ackattack/net/linksim"
)

// ErrSetting is wrapped by an experiment's error about a setting it cannot run with (a flag
// out of range), so that the command line can tell it from a failed run.
var ErrSetting = errors.New("bad setting")

// Section is what one experiment reports: a title, the command that reproduces it and its
// parts in reading order.
type Section struct {
	Name    string // the experiment's name, for file names ("hol")
	Title   string
	Command string // the command line that gives this section again
	Parts   []Part
}

// Part is one piece of a section: a Text, a *Table or a *Chart.
type Part interface{ part() }

// Text is a paragraph.
type Text string

func (Text) part()   {}
func (*Table) part() {}
func (*Chart) part() {}

// Add appends parts to the section.
func (s *Section) Add(parts ...Part) { s.Parts = append(s.Parts, parts...) }

// Textf appends a paragraph made with fmt.Sprintf.
func (s *Section) Textf(format string, args ...any) { s.Add(Text(fmt.Sprintf(format, args...))) }

// Table is a titled grid of cells. Cells that look like numbers are right-aligned in text.
type Table struct {
	Title string
	Head  []string
	Rows  [][]string
}

// Row appends a row of cells.
func (t *Table) Row(cells ...string) { t.Rows = append(t.Rows, cells) }

// ChartKind is how a chart draws its values.
type ChartKind uint8

const (
	// Bars: one bar per label and series, horizontal.
	Bars ChartKind = iota
	// Lines: Labels are the x axis, each series a line through one value per label.
	Lines
)

// Chart is a bar or line chart. Every series has one value per label; NaN means no value.
// Text charts are drawn with ASCII only (TextChart), so they survive any terminal, a Markdown
// code block and a copy into an e-mail. When values span orders of magnitude (a stop-and-wait
// sender's delay beside a dependency graph's), LogY draws them on a logarithmic scale and says
// so in the title; otherwise the small bars would all be empty. SVG output (SVG, WriteSVG) is
// hand-written with fmt: a chart is a few dozen elements, and the format is only ever written
// here, never parsed.
type Chart struct {
	Title  string
	Kind   ChartKind
	Unit   string   // of the values, for the axis and the bar labels
	XLabel string   // what the labels are (lines)
	Labels []string // the bars' names, or the x axis' categories
	Series []Series
	LogY   bool // a logarithmic value axis (values must be > 0 to be drawn)
}

// Series is one named row of values of a chart.
type Series struct {
	Name   string
	Values []float64
}

// Dist collects samples of one quantity and answers percentiles. Most of what netlab measures
// is a delay, and a delay is a distribution, not a number: at 10% loss nine messages in ten
// arrive on time and the tenth waits a round trip or two, so the mean moves little while the
// game stutters. Tables therefore give percentiles: p50 is the typical message, p95 and p99
// the ones that make a game feel laggy (at 20 messages a second, one in a hundred is one every
// five seconds), and max the worst one seen. Percentiles are nearest-rank: p99 of 200 samples
// is the 198th smallest, a value that was really measured, never an interpolation.
type Dist struct {
	v      []float64
	sorted bool
}

// Add records a sample.
func (d *Dist) Add(v float64) { d.v, d.sorted = append(d.v, v), false }

// N is the number of samples.
func (d *Dist) N() int { return len(d.v) }

func (d *Dist) sort() {
	if !d.sorted {
		slices.Sort(d.v)
		d.sorted = true
	}
}

// P is the nearest-rank percentile p (0 < p <= 100): the smallest sample with at least p% of
// the samples at or below it. NaN without samples.
func (d *Dist) P(p float64) float64 {
	if len(d.v) == 0 {
		return math.NaN()
	}
	d.sort()
	i := int(math.Ceil(p/100*float64(len(d.v)))) - 1
	return d.v[min(max(i, 0), len(d.v)-1)]
}

// Max is the largest sample (NaN without samples).
func (d *Dist) Max() float64 { return d.P(100) }

// Mean is the average of the samples (NaN without samples).
func (d *Dist) Mean() float64 {
	if len(d.v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range d.v {
		s += x
	}
	return s / float64(len(d.v))
}

// Ms formats a duration in milliseconds with one decimal.
func Ms(d time.Duration) string { return F(float64(d)/float64(time.Millisecond), 1) }

// F formats v with prec decimals and thousands separators; "–" for NaN.
func F(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.IsInf(v, 0) {
		return "∞"
	}
	s := fmt.Sprintf("%.*f", prec, v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg && strings.Trim(out, "0.,") != "" {
		out = "-" + out
	}
	return out
}

// Int formats n with thousands separators.
func Int[T ~int | ~int64 | ~uint64 | ~uint32](n T) string { return F(float64(n), 0) }

// Pct formats part/whole as a percentage with one decimal.
func Pct(part, whole float64) string {
	if whole == 0 {
		return "–"
	}
	return F(100*part/whole, 1) + "%"
}

// Link describes link settings: loss, then Delays.
func Link(l linksim.Settings) string {
	return fmt.Sprintf("%g%% loss, %s", l.LossPercent, Delays(l))
}

// Delays describes the latency, jitter and duplication of link settings.
func Delays(l linksim.Settings) string {
	s := fmt.Sprintf("%v latency", l.Latency)
	if l.Jitter > 0 {
		s += fmt.Sprintf(" ± %v jitter", l.Jitter)
	}
	if l.DupPercent > 0 {
		s += fmt.Sprintf(", %g%% duplication", l.DupPercent)
	}
	return s
}

// WriteText writes the sections for a terminal.
func WriteText(w io.Writer, sections []*Section) error {
	return write(w, sections, func(ew *errWriter, s *Section) {
		ew.printf("%s\n%s\n", s.Title, strings.Repeat("=", len([]rune(s.Title))))
		if s.Command != "" {
			ew.printf("$ %s\n", s.Command)
		}
	}, writeTextTable, func(ew *errWriter, c *Chart) { ew.printf("%s", TextChart(c)) })
}

// WriteMarkdown writes the sections as Markdown, each under a level-3 heading. Charts go in as
// their text drawing, in a code block.
func WriteMarkdown(w io.Writer, sections []*Section) error {
	return write(w, sections, func(ew *errWriter, s *Section) {
		ew.printf("### %s\n", s.Title)
		if s.Command != "" {
			ew.printf("\n```sh\n%s\n```\n", s.Command)
		}
	}, writeMarkdownTable, func(ew *errWriter, c *Chart) { ew.printf("```text\n%s```\n", TextChart(c)) })
}

// write walks the sections, a blank line between parts, with the format's way of writing a
// section's head, a table and a chart (paragraphs are the same in both).
func write(w io.Writer, sections []*Section, head func(*errWriter, *Section), table func(*errWriter, *Table), chart func(*errWriter, *Chart)) error {
	ew := &errWriter{w: w}
	for i, s := range sections {
		if i > 0 {
			ew.printf("\n")
		}
		head(ew, s)
		for _, p := range s.Parts {
			ew.printf("\n")
			switch p := p.(type) {
			case Text:
				ew.printf("%s\n", wrap(string(p), 100))
			case *Table:
				table(ew, p)
			case *Chart:
				chart(ew, p)
			}
		}
	}
	return ew.err
}

// errWriter keeps the first write error, so that the writers above check it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// wrap breaks a paragraph into lines of at most width runes, at spaces.
func wrap(s string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		n := len([]rune(word))
		if i > 0 {
			if line+1+n > width {
				b.WriteByte('\n')
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// numeric reports whether a cell reads as a number (to be right-aligned): it starts with a
// digit, a sign or a point, and has no letters.
func numeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "–" {
		return true
	}
	if s == "" || !strings.ContainsAny(s[:1], "0123456789+-.") {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func writeTextTable(ew *errWriter, t *Table) {
	if t.Title != "" {
		ew.printf("%s\n", t.Title)
	}
	widths := make([]int, len(t.Head))
	for _, row := range append([][]string{t.Head}, t.Rows...) {
		for i, c := range row {
			if i < len(widths) {
				widths[i] = max(widths[i], len([]rune(c)))
			}
		}
	}
	line := func(row []string, head bool) {
		var b strings.Builder
		for i := range widths {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if !head && i > 0 && numeric(c) {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		ew.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	line(t.Head, true)
	total := 2 * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	ew.printf("%s\n", strings.Repeat("-", total))
	for _, r := range t.Rows {
		line(r, false)
	}
}

func writeMarkdownTable(ew *errWriter, t *Table) {
	if t.Title != "" {
		ew.printf("%s\n\n", t.Title)
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i := range t.Head {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + cell(c) + " |")
		}
		ew.printf("%s\n", b.String())
	}
	row(t.Head)
	seps := make([]string, len(t.Head))
	for i := range seps {
		seps[i] = "---"
	}
	row(seps)
	for _, r := range t.Rows {
		row(r)
	}
}
