//go:build race

package message

const raceEnabled = true
