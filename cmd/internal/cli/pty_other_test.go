//go:build !linux

package cli

import (
	"os"
	"testing"
)

// openPTY skips the test: opening a pseudo-terminal with the standard library alone is done
// for Linux only.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	t.Skip("pseudo-terminals are opened on Linux only")
	return nil
}
