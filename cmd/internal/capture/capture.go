// Package capture gives the binaries' tests what their main functions print.
package capture

import (
	"io"
	"os"
	"testing"
)

// Output runs f with standard output and standard error going to pipes, and returns what was
// written to them. Not for parallel tests: it swaps the process's own os.Stdout and os.Stderr.
func Output(t testing.TB, f func()) (stdout, stderr string) {
	t.Helper()
	read := func(w **os.File) (done func() string) {
		r, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		old := *w
		*w = pw
		out := make(chan string)
		go func() {
			b, _ := io.ReadAll(r) // drained as it comes, so a full pipe never blocks f
			out <- string(b)
		}()
		return func() string {
			*w = old
			pw.Close()
			return <-out
		}
	}
	doneOut, doneErr := read(&os.Stdout), read(&os.Stderr)
	f()
	return doneOut(), doneErr()
}
