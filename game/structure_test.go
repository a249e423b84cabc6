package game

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxStructFields is the most fields a struct of the game's may have (an embedded struct
// counts as one). A struct that needs more holds several ideas, and each should be a part of
// its own (doc.go, "Parts"). Plain data that is only read (the --stats report, the counters,
// the snapshots a screen draws) is exempt: a report with many numbers is still one idea.
const maxStructFields = 20

// plainData reports whether a struct named name is read as plain data, exempt from the bound.
func plainData(name string) bool {
	if !ast.IsExported(name) {
		return false
	}
	for _, suffix := range []string{"Stats", "Report", "Snapshot"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// TestStructsStaySmall: no struct in game/ or its packages has more than maxStructFields
// fields, except plain data. The command that lists the counts: go test ./game -run
// StructsStaySmall -v.
func TestStructsStaySmall(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			fields := 0
			for _, fl := range st.Fields.List {
				fields += max(len(fl.Names), 1)
			}
			name := filepath.Join(filepath.Dir(path), ts.Name.Name)
			switch {
			case plainData(ts.Name.Name):
				t.Logf("%3d %s (plain data)", fields, name)
			case fields > maxStructFields:
				t.Errorf("%s has %d fields, at most %d: which of its ideas is a part of its own?", name, fields, maxStructFields)
			case fields > maxStructFields/2:
				t.Logf("%3d %s", fields, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
