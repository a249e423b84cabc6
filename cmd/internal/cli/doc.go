// Package cli is the command-line plumbing both binaries share: the link flags, flag parsing
// with the exit codes of the README's contract, the choice between the terminal UI and
// headless, the log file and the --stats report. It lives under cmd because only the binaries
// have a command line; package game knows nothing of flags or terminals.
package cli
