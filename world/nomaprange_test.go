package world

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/internal/pkgsource"
)

// Go randomises the order in which a range over a map visits its keys, on
// purpose, so a simulation that ranges over a map can differ between two runs
// of the same program. This test type-checks the package's own (non-test)
// source and fails on any range over a value of map type, and on any use of
// the maps package, whose iterators have the same random order.
func TestNoRangeOverMaps(t *testing.T) {
	t.Parallel()
	fset, parsed := pkgsource.Parse(t)
	problems := rangesOverMaps(t, fset, parsed)
	for _, p := range problems {
		t.Error(p)
	}
}

func rangesOverMaps(t *testing.T, fset *token.FileSet, files []*ast.File) []string {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("github.com/ackattack/ackattack/world", fset, files, info); err != nil {
		t.Fatalf("type-checking: %v", err)
	}
	var problems []string
	for _, f := range files {
		for _, imp := range f.Imports {
			if imp.Path.Value == `"maps"` {
				problems = append(problems, fset.Position(imp.Pos()).String()+": imports package maps")
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			rs, ok := n.(*ast.RangeStmt)
			if !ok {
				return true
			}
			if tv, ok := info.Types[rs.X]; ok {
				if _, isMap := tv.Type.Underlying().(*types.Map); isMap {
					problems = append(problems, fset.Position(rs.Pos()).String()+": range over a map")
				}
			}
			return true
		})
	}
	return problems
}

// The check itself catches a range over a map, also through a named type.
func TestNoRangeOverMapsCatchesOne(t *testing.T) {
	src := `package world

type index map[string]int

func sum(m map[int32]int, ix index) (s int) {
	for _, v := range m {
		s += v
	}
	for k := range ix {
		s += len(k)
	}
	for i := range []int{1, 2} {
		s += i
	}
	return s
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	problems := rangesOverMaps(t, fset, []*ast.File{f})
	if len(problems) != 2 || !strings.HasPrefix(problems[0], "bad.go:6:") || !strings.HasPrefix(problems[1], "bad.go:9:") {
		t.Errorf("problems %q, want the ranges on lines 6 and 9", problems)
	}
}
