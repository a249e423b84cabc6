package confusables

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

//go:generate go run ./gentable -in testdata/confusables.txt.gz -out table.go

// Prototype returns the prototype of r, the string of characters that stands for everything
// drawn like r, and whether r has one (a character without one is its own prototype).
func Prototype(r rune) (string, bool) {
	i, ok := slices.BinarySearch(sources[:], r)
	if !ok {
		return "", false
	}
	start := 0
	if i > 0 {
		start = int(ends[i-1])
	}
	return prototypes[start:ends[i]], true
}

// Skeleton returns the skeleton of s (UTS #39, section 4): s in NFD, each character replaced
// by its prototype, and NFD again. Two strings with the same skeleton are confusable.
func Skeleton(s string) string {
	s = norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if p, ok := Prototype(r); ok {
			b.WriteString(p)
		} else {
			b.WriteRune(r)
		}
	}
	return norm.NFD.String(b.String())
}
