package report

import (
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Text charts: ASCII only.
const (
	barWidth    = 50 // the longest bar, in characters
	lineHeight  = 12 // rows of a line chart's plot
	columnWidth = 9  // characters per category of a line chart
)

// markers are the series' symbols in a text line chart, in order.
var markers = []byte{'*', 'o', '+', 'x', '#', '@', '%', '&'}

// scale maps a value to [0, 1] on the chart's axis, between lo and hi.
type scale struct {
	lo, hi float64
	log    bool
}

func (s scale) at(v float64) float64 {
	if s.log {
		if v <= 0 {
			return math.NaN()
		}
		return (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	}
	return (v - s.lo) / (s.hi - s.lo)
}

// chartScale is the axis of c: from 0 (or, on a log axis, the largest power of ten at or below
// the smallest value) to the largest value.
func chartScale(c *Chart) scale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, v := range s.Values {
			if math.IsNaN(v) || c.LogY && v <= 0 {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(hi, -1) {
		return scale{lo: 0, hi: 1, log: c.LogY}
	}
	if c.LogY {
		lo = math.Pow(10, math.Floor(math.Log10(lo)))
		if hi <= lo {
			hi = lo * 10
		}
		return scale{lo: lo, hi: hi, log: true}
	}
	lo = math.Min(0, lo)
	if hi <= lo {
		hi = lo + 1
	}
	return scale{lo: lo, hi: hi}
}

func (c *Chart) title() string {
	t := c.Title
	if c.Unit != "" {
		t += " (" + c.Unit
		if c.LogY {
			t += ", log scale"
		}
		t += ")"
	} else if c.LogY {
		t += " (log scale)"
	}
	return t
}

// short formats a chart value: few digits, as a label.
func short(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "–"
	case a >= 100 || a == math.Trunc(a):
		return F(v, 0)
	case a >= 10:
		return F(v, 1)
	default:
		return F(v, 2)
	}
}

// TextChart draws c in ASCII, ending with a newline.
func TextChart(c *Chart) string {
	if c.Kind == Lines {
		return textLines(c)
	}
	return textBars(c)
}

func textBars(c *Chart) string {
	var b strings.Builder
	b.WriteString(c.title() + "\n")
	sc := chartScale(c)
	labelW := 0
	for _, l := range c.Labels {
		labelW = max(labelW, len([]rune(l)))
	}
	nameW := 0
	if len(c.Series) > 1 {
		for _, s := range c.Series {
			nameW = max(nameW, len([]rune(s.Name)))
		}
	}
	for i, l := range c.Labels {
		for j, s := range c.Series {
			label := ""
			if j == 0 {
				label = l
			}
			fmt.Fprintf(&b, "%-*s ", labelW, label)
			if nameW > 0 {
				fmt.Fprintf(&b, "%-*s ", nameW, s.Name)
			}
			v := math.NaN()
			if i < len(s.Values) {
				v = s.Values[i]
			}
			n := 0
			if f := sc.at(v); !math.IsNaN(f) {
				n = int(math.Round(math.Max(0, f) * barWidth))
			}
			if !math.IsNaN(v) && v > 0 && n == 0 && !sc.log {
				n = 1 // a value above zero never looks like none
			}
			fmt.Fprintf(&b, "|%s %s\n", strings.Repeat("#", n), short(v))
		}
	}
	return b.String()
}

func textLines(c *Chart) string {
	var b strings.Builder
	b.WriteString(c.title() + "\n")
	sc := chartScale(c)
	cols := max(len(c.Labels)*columnWidth, 30)
	grid := make([][]byte, lineHeight)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", cols))
	}
	xAt := func(i int) int {
		if len(c.Labels) <= 1 {
			return 0
		}
		return i * (cols - 1) / (len(c.Labels) - 1)
	}
	yAt := func(v float64) (int, bool) {
		f := sc.at(v)
		if math.IsNaN(f) {
			return 0, false
		}
		return lineHeight - 1 - int(math.Round(math.Min(1, math.Max(0, f))*float64(lineHeight-1))), true
	}
	for si, s := range c.Series {
		mark := markers[si%len(markers)]
		// Dots between points first, so that the points win where they meet.
		for i := 0; i+1 < len(s.Values) && i+1 < len(c.Labels); i++ {
			x0, x1 := xAt(i), xAt(i+1)
			for x := x0 + 1; x < x1; x++ {
				t := float64(x-x0) / float64(x1-x0)
				v0, v1 := sc.at(s.Values[i]), sc.at(s.Values[i+1])
				if math.IsNaN(v0) || math.IsNaN(v1) {
					continue
				}
				f := v0 + t*(v1-v0)
				y := lineHeight - 1 - int(math.Round(math.Min(1, math.Max(0, f))*float64(lineHeight-1)))
				if grid[y][x] == ' ' {
					grid[y][x] = '.'
				}
			}
		}
		for i, v := range s.Values {
			if i >= len(c.Labels) {
				break
			}
			if y, ok := yAt(v); ok {
				grid[y][xAt(i)] = mark
			}
		}
	}
	axis := func(row int) string {
		f := float64(lineHeight-1-row) / float64(lineHeight-1)
		var v float64
		if sc.log {
			v = math.Pow(10, math.Log10(sc.lo)+f*(math.Log10(sc.hi)-math.Log10(sc.lo)))
		} else {
			v = sc.lo + f*(sc.hi-sc.lo)
		}
		return short(v)
	}
	labelW := 0
	for _, row := range []int{0, lineHeight / 2, lineHeight - 1} {
		labelW = max(labelW, len(axis(row)))
	}
	for row := range grid {
		label := ""
		if row == 0 || row == lineHeight/2 || row == lineHeight-1 {
			label = axis(row)
		}
		fmt.Fprintf(&b, "%*s |%s\n", labelW, label, strings.TrimRight(string(grid[row]), " "))
	}
	fmt.Fprintf(&b, "%*s +%s\n", labelW, "", strings.Repeat("-", cols))
	// The categories under their points, as far as they fit.
	under := []byte(strings.Repeat(" ", cols+columnWidth))
	for i, l := range c.Labels {
		x := xAt(i)
		if i == len(c.Labels)-1 && len(c.Labels) > 1 {
			x = max(0, x-len(l)+1)
		}
		copy(under[x:], l)
	}
	fmt.Fprintf(&b, "%*s  %s", labelW, "", strings.TrimRight(string(under), " "))
	if c.XLabel != "" {
		fmt.Fprintf(&b, "  (%s)", c.XLabel)
	}
	b.WriteString("\n")
	var legend []string
	for si, s := range c.Series {
		legend = append(legend, fmt.Sprintf("%c %s", markers[si%len(markers)], s.Name))
	}
	fmt.Fprintf(&b, "%*s  %s\n", labelW, "", strings.Join(legend, "   "))
	return b.String()
}

// SVG charts.

// palette are the series' colours, in order.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// WriteSVG writes every chart of the sections into dir as NAME-N.svg (N counts the section's
// charts from 1) and returns the paths it wrote.
func WriteSVG(dir string, sections []*Section) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, s := range sections {
		n := 0
		for _, p := range s.Parts {
			c, ok := p.(*Chart)
			if !ok {
				continue
			}
			n++
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.svg", s.Name, n))
			if err := os.WriteFile(path, []byte(SVG(c)), 0o644); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// SVG draws c as a standalone SVG document.
func SVG(c *Chart) string {
	if c.Kind == Lines {
		return svgLines(c)
	}
	return svgBars(c)
}

func esc(s string) string { return html.EscapeString(s) }

func svgBars(c *Chart) string {
	sc := chartScale(c)
	const left, right, top, bar, gap = 220, 90, 40, 16, 6
	plotW := 480
	rows := len(c.Labels) * len(c.Series)
	h := top + rows*(bar+gap) + len(c.Labels)*gap + 30
	w := left + plotW + right
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="10" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", esc(c.title()))
	y := top
	for i, l := range c.Labels {
		for j, s := range c.Series {
			v := math.NaN()
			if i < len(s.Values) {
				v = s.Values[i]
			}
			name := l
			if len(c.Series) > 1 {
				name = l + " · " + s.Name
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+bar-4, esc(name))
			bw := 0.0
			if f := sc.at(v); !math.IsNaN(f) {
				bw = math.Max(0, f) * float64(plotW)
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", left, y, bw, bar, palette[j%len(palette)])
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", float64(left)+bw+4, y+bar-4, esc(short(v)))
			y += bar + gap
		}
		y += gap
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top-4, left, y)
	b.WriteString("</svg>\n")
	return b.String()
}

func svgLines(c *Chart) string {
	sc := chartScale(c)
	const left, top, plotW, plotH, bottom = 70, 40, 560, 280, 80
	w, h := left+plotW+30, top+plotH+bottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="10" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", esc(c.title()))
	xAt := func(i int) float64 {
		if len(c.Labels) <= 1 {
			return left + plotW/2
		}
		return left + float64(i)*plotW/float64(len(c.Labels)-1)
	}
	yAt := func(v float64) (float64, bool) {
		f := sc.at(v)
		if math.IsNaN(f) {
			return 0, false
		}
		return top + plotH - math.Min(1, math.Max(0, f))*plotH, true
	}
	// Axes, with five ticks on the value axis.
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, top+plotH)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top+plotH, left+plotW, top+plotH)
	for k := 0; k <= 4; k++ {
		f := float64(k) / 4
		v := sc.lo + f*(sc.hi-sc.lo)
		if sc.log {
			v = math.Pow(10, math.Log10(sc.lo)+f*(math.Log10(sc.hi)-math.Log10(sc.lo)))
		}
		y := top + plotH - f*plotH
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, left+plotW, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, esc(short(v)))
	}
	for i, l := range c.Labels {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", xAt(i), top+plotH+16, esc(l))
	}
	if c.XLabel != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+plotW/2, top+plotH+34, esc(c.XLabel))
	}
	for si, s := range c.Series {
		col := palette[si%len(palette)]
		var pts []string
		for i, v := range s.Values {
			if i >= len(c.Labels) {
				break
			}
			if y, ok := yAt(v); ok {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xAt(i), y))
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", xAt(i), y, col)
			}
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), col)
		lx := left + (si%4)*140
		ly := top + plotH + 52 + (si/4)*16
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, ly-9, col, lx+14, ly, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
