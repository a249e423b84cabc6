package game

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// The sessions do no I/O and read no clock: time comes in as an argument, datagrams come in
// through Handle and go out through a transport.Writer, and nothing runs on a goroutine of its
// own. That is what lets a whole game run in virtual time, seeded and repeatable
// (vgame_test.go); a single time.Now would make two runs differ. This test type-checks the
// package's own (non-test) source and fails on any use of the clock, timers, sockets, the
// operating system, the command line, or a go statement. (The loop that owns the socket and
// the clock is game/hostloop.)

// forbiddenTime are the time package's functions that read the clock or start a timer.
var forbiddenTime = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}

// forbiddenPackages may not be used at all.
var forbiddenPackages = map[string]bool{"net": true, "os": true, "os/signal": true, "os/exec": true, "syscall": true, "flag": true}

func TestSessionsDoNoIO(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	if len(parsed) < 10 {
		t.Fatalf("only %d source files found", len(parsed))
	}
	for _, p := range ioProblems(t, fset, parsed) {
		t.Error(p)
	}
}

func ioProblems(t *testing.T, fset *token.FileSet, files []*ast.File) []string {
	t.Helper()
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("github.com/ackattack/ackattack/game", fset, files, info); err != nil {
		t.Fatalf("type-checking: %v", err)
	}
	var problems []string
	for _, f := range files {
		for _, imp := range f.Imports {
			if path := strings.Trim(imp.Path.Value, `"`); forbiddenPackages[path] {
				problems = append(problems, fset.Position(imp.Pos()).String()+": imports "+path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				problems = append(problems, fset.Position(n.Pos()).String()+": starts a goroutine")
			case *ast.Ident:
				obj := info.Uses[n]
				if obj == nil || obj.Pkg() == nil {
					return true
				}
				if obj.Pkg().Path() == "time" && forbiddenTime[obj.Name()] {
					if _, isFunc := obj.(*types.Func); isFunc && obj.Parent() == obj.Pkg().Scope() {
						problems = append(problems, fset.Position(n.Pos()).String()+": time."+obj.Name())
					}
				}
			}
			return true
		})
	}
	return problems
}

// The check itself catches the clock, a timer, a socket and a goroutine.
func TestSessionsDoNoIOCatchesEach(t *testing.T) {
	src := `package game

import (
	"net"
	"time"
)

func bad(d time.Duration) time.Time {
	go func() {}()
	time.Sleep(d)
	_ = time.NewTimer(d)
	net.Dial("udp", "127.0.0.1:1")
	return time.Now().Add(d) // Add is a method: fine
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := ioProblems(t, fset, []*ast.File{f})
	want := []string{"bad.go:4:2: imports net", "bad.go:9:2: starts a goroutine", "bad.go:10:7: time.Sleep", "bad.go:11:11: time.NewTimer", "bad.go:13:14: time.Now"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
