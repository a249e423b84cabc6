package hostloop

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks, once every test has ended, that no goroutine of a loop, a socket or a link
// conditioner is left behind. The tests that run loops on real sockets wait for the wall
// clock (a game's frames), so they run side by side: a check in each test would see the
// others' goroutines.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
