package seedcorpus

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Seed is one file of a seed corpus.
type Seed struct {
	Name   string // the file's name
	Data   []byte // the one []byte argument it holds
	Broken bool   // the name starts with "broken_": the parser must refuse Data
}

// Read returns every seed in dir, a corpus of a fuzz target with one []byte
// argument, in the order of the file names. It fails the test on a file that
// is not one such seed.
func Read(tb testing.TB, dir string) []Seed {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	seeds := make([]Seed, 0, len(entries))
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		raw, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 2 || lines[0] != "go test fuzz v1" ||
			!strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
			tb.Fatalf("%s: not a one-value []byte seed file", path)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		seeds = append(seeds, Seed{Name: e.Name(), Data: []byte(s), Broken: strings.HasPrefix(e.Name(), "broken_")})
	}
	return seeds
}
