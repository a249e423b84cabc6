package game

import "slices"

// History that grows with the length of a game (chat lines, pause lengths, event lines) is
// kept bounded: a count of everything, and the latest lines only. A class runs a game for an
// hour; nothing a host keeps may grow with that hour.

// Bounds of the kept history.
const (
	maxChatShown   = 200  // chat lines a snapshot carries: more than any pane shows
	maxChatReport  = 1000 // chat lines of each list in the --stats report
	maxPausesKept  = 1000 // pause lengths in the stats
	maxEventsShown = 200  // event log lines of the server's snapshot
)

// appendBounded appends v to s and keeps at most the latest limit elements. The slice is cut
// only when it reaches twice the limit, so appending costs amortized O(1) and the backing
// array never grows past 2·limit.
func appendBounded[T any](s []T, v T, limit int) []T {
	s = append(s, v)
	if len(s) >= 2*limit {
		n := copy(s, s[len(s)-limit:])
		clear(s[n:])
		s = s[:n]
	}
	return s
}

// lastOf returns a copy of the latest n elements of s (fewer if s is shorter).
func lastOf[T any](s []T, n int) []T {
	return slices.Clone(s[max(len(s)-n, 0):])
}

// boundedLog is a history kept bounded: the latest lines and a count of all of them.
type boundedLog[T any] struct {
	items []T
	total uint64
}

func (l *boundedLog[T]) add(v T, limit int) {
	l.items = appendBounded(l.items, v, limit)
	l.total++
}

// last returns a copy of the latest n lines.
func (l *boundedLog[T]) last(n int) []T { return lastOf(l.items, n) }
