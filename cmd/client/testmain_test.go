package main

import (
	"os"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// TestMain gives the tests, and the binaries they run, a configuration directory of their own
// (a client keeps identities there), and removes the binaries they built (tmuxtest.Main).
func TestMain(m *testing.M) { os.Exit(tmuxtest.Main(m)) }
