// Package capture gives the binaries' tests what their main functions print, and the check
// both binaries share of a file flag that cannot be opened.
//
// # The map
//
//	capture.go  Output (standard output and standard error of a function, through pipes),
//	            ReportFilesRefused (--stats and --trace naming a file that cannot be created:
//	            exit code 1 and one line naming the flag and the file, before any run)
//
// # Usage
//
//	stdout, stderr := capture.Output(t, func() { code = run([]string{"--help"}) })
//
// # Rules
//
//   - Not for parallel tests: Output swaps the process's own os.Stdout and os.Stderr.
package capture
