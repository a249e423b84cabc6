package cli

import "os"

// terminal tells whether stdin and stdout are both terminals, as the terminal UI needs (it
// reads keys from one and draws on the other). When one is not, it names it, for the note of
// the fallback to headless. It looks at the file's mode only, so it needs nothing beyond the
// standard library: a terminal is a character device. /dev/null is a character device too,
// but nobody can type into it or read it, so it does not count.
func terminal(stdin, stdout *os.File) (ok bool, notTerminal string) {
	devNull, _ := os.Stat(os.DevNull)
	for _, f := range []struct {
		file *os.File
		name string
	}{{stdout, "standard output"}, {stdin, "standard input"}} {
		fi, err := f.file.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 || (devNull != nil && os.SameFile(fi, devNull)) {
			return false, f.name
		}
	}
	return true, ""
}
