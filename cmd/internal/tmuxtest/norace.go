//go:build !race

package tmuxtest

// raceEnabled: the test binary was built with -race, so Build builds the binary with it too.
const raceEnabled = false
