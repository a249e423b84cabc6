//go:build race

package depgraph

const raceEnabled = true
