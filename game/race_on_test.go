//go:build race

package game

const raceEnabled = true
