package capture

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// ReportFilesRefused runs a binary's run function with args and a --stats, then a --trace,
// file that cannot be created, and checks what the binary makes of the error
// cli.TestOpenErrors checks (the flag and the file named): exit code 1, and one line on
// standard error, "binary: --stats: " with the file, before the run, so nothing else is
// printed: no game ran. args should make a run print something (not --quiet).
func ReportFilesRefused(t *testing.T, binary string, run func(args []string) int, args ...string) {
	t.Helper()
	bad := filepath.Join(t.TempDir(), "no-such-dir", "file")
	for _, flag := range []string{"--stats", "--trace"} {
		var code int
		stdout, stderr := Output(t, func() { code = run(append(slices.Clip(args), flag, bad)) })
		lines := strings.SplitAfter(stderr, "\n")
		if code != 1 || len(lines) != 2 || lines[1] != "" || !strings.HasPrefix(stderr, binary+": "+flag+": ") || !strings.Contains(stderr, bad) || stdout != "" {
			t.Errorf("%s %s: exit code %d, standard error %q, standard output %q: want 1, one line naming %s and the file, and no run",
				flag, bad, code, stderr, stdout, flag)
		}
	}
}
