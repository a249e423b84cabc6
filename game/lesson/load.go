package lesson

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ackattack/ackattack/assets"
)

// Builtin parses the lessons that come with the game (assets/lessons/*.txt, embedded in the
// binary), ordered by number. An error names the file and line: a broken built-in lesson is
// a bug, which a test catches.
func Builtin() ([]*Script, error) {
	names, err := fs.Glob(assets.FS, "lessons/*.txt")
	if err != nil {
		return nil, err
	}
	var out []*Script
	for _, name := range names {
		data, err := fs.ReadFile(assets.FS, name)
		if err != nil {
			return nil, err
		}
		s, err := Parse(path.Join("assets", name), data)
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(out, func(o *Script) bool { return o.Number == s.Number }); i >= 0 {
			return nil, fmt.Errorf("%s: lesson %d again (also in %s)", s.File, s.Number, out[i].File)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Script) int { return a.Number - b.Number })
	return out, nil
}

// Find is the lesson arg names: the number of one of the built-in lessons (Builtin's, "3"),
// or the path of a script file (a teacher's own). An unknown number's error lists the
// lessons there are.
func Find(arg string, builtin []*Script) (*Script, error) {
	if n, err := strconv.Atoi(arg); err == nil {
		if i := slices.IndexFunc(builtin, func(s *Script) bool { return s.Number == n }); i >= 0 {
			return builtin[i], nil
		}
		return nil, fmt.Errorf("no lesson %d; the lessons are:\n%s", n, List(builtin))
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("%w (a lesson is a number or a script file; the lessons are:\n%s)", err, List(builtin))
	}
	return Parse(arg, data)
}

// List writes the lessons one a line: "  3  One ordered channel versus the graph".
func List(scripts []*Script) string {
	var b strings.Builder
	for _, s := range scripts {
		fmt.Fprintf(&b, "  %d  %s\n", s.Number, s.Title)
	}
	return strings.TrimRight(b.String(), "\n")
}
