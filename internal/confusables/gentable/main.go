// Command gentable writes internal/confusables/table.go from Unicode's confusables.txt (UTS #39,
// section 4), plain or gzipped. The package's go:generate line runs it on the copy kept in
// testdata:
//
//	go generate ./internal/confusables
//
// To move to a newer Unicode version, replace testdata/confusables.txt.gz with the new file
// (https://www.unicode.org/Public/security/latest/confusables.txt, gzipped) and run it again;
// the version and date of the file go into the table, and the package's tests say what the
// new data changed for player names.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

func main() {
	in := flag.String("in", "testdata/confusables.txt.gz", "Unicode's `confusables.txt`, plain or gzipped (.gz)")
	out := flag.String("out", "table.go", "the Go `file` to write")
	flag.Parse()
	src, err := generateFile(*in)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentable:", err)
		os.Exit(1)
	}
}

// generateFile reads path (gunzipped if it ends in .gz) and returns the table's source.
func generateFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	d, err := parse(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d.source()
}

// data is what the table keeps of confusables.txt.
type data struct {
	version, date string
	from          []rune   // in increasing order
	to            []string // to[i] is the prototype of from[i]
}

// Limits of what parse accepts, far above what any version of the file holds (17.0.0: 6,565
// mappings, prototypes of at most 18 characters, 19,659 bytes of them in all), so that a
// broken file is refused rather than written into a table the server then carries.
const (
	maxMappings    = 50_000
	maxPrototype   = 32 // characters
	maxPrototypeSz = math.MaxUint16
)

// parse reads confusables.txt: "# Version: " and "# Date: " in the header, then one mapping a
// line, "SOURCE ;\tTARGET… ;\tMA\t# comment", with code points in hex. An error names the line.
func parse(r io.Reader) (*data, error) {
	d := &data{}
	seen := map[rune]bool{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimPrefix(sc.Text(), "\uFEFF")
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			rest = strings.TrimSpace(rest)
			if v, ok := strings.CutPrefix(rest, "Version:"); ok && d.version == "" {
				d.version = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(rest, "Date:"); ok && d.date == "" {
				d.date = strings.TrimSpace(v)
			}
			continue
		}
		if code, _, _ := strings.Cut(line, "#"); strings.TrimSpace(code) == "" {
			continue
		}
		from, to, err := parseMapping(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if seen[from] {
			return nil, fmt.Errorf("line %d: %U mapped twice", n, from)
		}
		if len(d.from) == maxMappings {
			return nil, fmt.Errorf("line %d: more than %d mappings", n, maxMappings)
		}
		seen[from] = true
		d.from, d.to = append(d.from, from), append(d.to, to)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	switch {
	case d.version == "":
		return nil, errors.New(`no "# Version:" line in the header`)
	case len(d.from) == 0:
		return nil, errors.New("no mapping")
	}
	idx := make([]int, len(d.from))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(d.from[a]) - int(d.from[b]) })
	from, to := make([]rune, len(idx)), make([]string, len(idx))
	size := 0
	for i, j := range idx {
		from[i], to[i] = d.from[j], d.to[j]
		size += len(to[i])
	}
	if size > maxPrototypeSz {
		return nil, fmt.Errorf("%d bytes of prototypes, at most %d", size, maxPrototypeSz)
	}
	d.from, d.to = from, to
	return d, nil
}

// parseMapping reads one mapping line.
func parseMapping(line string) (rune, string, error) {
	code, _, _ := strings.Cut(line, "#")
	f := strings.Split(code, ";")
	if len(f) != 3 {
		return 0, "", fmt.Errorf("%d fields, want 3 (source ; target ; type)", len(f))
	}
	if t := strings.TrimSpace(f[2]); t != "MA" {
		return 0, "", fmt.Errorf("type %q, want MA", t)
	}
	from, err := codePoint(f[0])
	if err != nil {
		return 0, "", fmt.Errorf("source: %w", err)
	}
	cps := strings.Fields(f[1])
	switch {
	case len(cps) == 0:
		return 0, "", errors.New("no target")
	case len(cps) > maxPrototype:
		return 0, "", fmt.Errorf("target of %d characters, at most %d", len(cps), maxPrototype)
	}
	var to strings.Builder
	for _, c := range cps {
		r, err := codePoint(c)
		if err != nil {
			return 0, "", fmt.Errorf("target: %w", err)
		}
		to.WriteRune(r)
	}
	return from, to.String(), nil
}

// codePoint reads one code point in hex (1 to 6 digits) that is a valid scalar value.
func codePoint(s string) (rune, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 6 {
		return 0, fmt.Errorf("%q is not a code point", s)
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return 0, fmt.Errorf("%q is not a code point", s)
	}
	return rune(v), nil
}

// source is table.go.
func (d *data) source() ([]byte, error) {
	var b bytes.Buffer
	date := "."
	if d.date != "" {
		date = ":\n// the file dated " + d.date + "."
	}
	fmt.Fprintf(&b, `// Code generated by gentable from Unicode's confusables.txt; DO NOT EDIT.

package confusables

// Version is the version of Unicode's confusables.txt (UTS #39) that the table holds%s
const Version = %q

// sources are the characters that have a prototype, in increasing order: %d of them.
var sources = [...]rune{
`, date, d.version, len(d.from))
	src := make([]string, len(d.from))
	for i, r := range d.from {
		src[i] = fmt.Sprintf("0x%04X", r)
	}
	writeRows(&b, src, 10)
	b.WriteString(`}

// ends[i] is where the prototype of sources[i] ends in prototypes; it starts where the one
// before ends.
var ends = [...]uint16{
`)
	ends, end := make([]string, len(d.to)), 0
	for i, p := range d.to {
		end += len(p)
		ends[i] = strconv.Itoa(end)
	}
	writeRows(&b, ends, 12)
	b.WriteString("}\n\n// prototypes are the prototypes of sources, one after the other.\nconst prototypes = \"\" +\n")
	for i := 0; i < len(d.to); i += 16 {
		chunk := strings.Join(d.to[i:min(i+16, len(d.to))], "")
		plus := " +"
		if i+16 >= len(d.to) {
			plus = ""
		}
		fmt.Fprintf(&b, "\t%s%s\n", strconv.QuoteToASCII(chunk), plus)
	}
	return format.Source(b.Bytes())
}

// writeRows writes the elements of a composite literal, perRow a line.
func writeRows(b *bytes.Buffer, elems []string, perRow int) {
	for i := 0; i < len(elems); i += perRow {
		fmt.Fprintf(b, "\t%s,\n", strings.Join(elems[i:min(i+perRow, len(elems))], ", "))
	}
}
