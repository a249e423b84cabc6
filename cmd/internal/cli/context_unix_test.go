//go:build unix

package cli

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestContextSignal: SIGTERM ends the run's context, a clean end like --duration, instead of
// killing the process before it writes its --stats file.
func TestContextSignal(t *testing.T) {
	c, _ := newTest(t)
	ctx, stop := c.Context()
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Error("did not end on SIGTERM")
	}
}
