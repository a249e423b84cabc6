//go:build !race

package depgraph

const raceEnabled = false
