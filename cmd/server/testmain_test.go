package main

import (
	"os"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// TestMain removes the binaries the terminal and process tests built (tmuxtest.Main).
func TestMain(m *testing.M) { os.Exit(tmuxtest.Main(m)) }
