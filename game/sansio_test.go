package game

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/internal/pkgsource"
)

// The sessions do no I/O and read no clock: time comes in as an argument, datagrams come in
// through Handle and go out through a transport.Writer, and nothing runs on a goroutine of its
// own. That is what lets a whole game run in virtual time, seeded and repeatable
// (vgame_test.go); a single time.Now would make two runs differ. This test type-checks the
// package's own (non-test) source and fails on any use of the clock, timers, sockets, the
// operating system, the command line, or a go statement. (It resolves names from the syntax
// and the parser's scopes: type-checking the whole tree from source takes many seconds, and
// everything forbidden is a package-level name of the standard library.) (The loop that owns the socket and
// the clock is game/hostloop.)

// forbiddenTime are the time package's functions that read the clock or start a timer.
var forbiddenTime = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}

// forbiddenPackages may not be used at all.
var forbiddenPackages = map[string]bool{"net": true, "os": true, "os/signal": true, "os/exec": true, "syscall": true, "flag": true}

func TestSessionsDoNoIO(t *testing.T) {
	fset, files := pkgsource.Parse(t)
	if len(files) < 10 {
		t.Fatalf("only %d source files found", len(files))
	}
	for _, p := range ioProblems(t, fset, files) {
		t.Error(p)
	}
}

// ioProblems finds, in files, the imports of forbidden packages, the go statements and the
// uses of the time package's clock and timers. It resolves names the way the compiler does
// for package-level references: a selector x.Sel whose x is the name a file imports "time"
// under (and that no enclosing scope redeclares, which the parser's object resolution tells).
func ioProblems(t *testing.T, fset *token.FileSet, files []*ast.File) []string {
	t.Helper()
	var problems []string
	for _, f := range files {
		timeName := ""
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if forbiddenPackages[path] {
				problems = append(problems, fset.Position(imp.Pos()).String()+": imports "+path)
			}
			if path == "time" {
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				problems = append(problems, fset.Position(n.Pos()).String()+": starts a goroutine")
			case *ast.SelectorExpr:
				// An identifier the parser resolved to a local declaration is not the package.
				if x, ok := n.X.(*ast.Ident); ok && x.Name == timeName && x.Obj == nil && forbiddenTime[n.Sel.Name] {
					problems = append(problems, fset.Position(x.Pos()).String()+": time."+n.Sel.Name)
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

type clock struct{}

func (clock) Now() time.Time { return time.Time{} }

func fine(time clock) { _ = time.Now() } // a parameter named time is not the package
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := ioProblems(t, fset, []*ast.File{f})
	want := []string{"bad.go:4:2: imports net", "bad.go:9:2: starts a goroutine", "bad.go:10:2: time.Sleep", "bad.go:11:6: time.NewTimer", "bad.go:13:9: time.Now"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
