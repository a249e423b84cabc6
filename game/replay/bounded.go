package replay

import "slices"

// ring keeps the latest values pushed, at most the limit given to push: once full, a new
// value takes the place of the oldest, so a push costs the same however long the capture.
type ring[T any] struct {
	buf   []T
	start int // the oldest value, once full
}

func (r *ring[T]) push(v T, limit int) {
	if len(r.buf) < limit {
		r.buf = append(r.buf, v)
		return
	}
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
}

// all returns a copy of the values, oldest first.
func (r *ring[T]) all() []T { return append(slices.Clone(r.buf[r.start:]), r.buf[:r.start]...) }

// recentSet remembers the latest keys added, at most the limit given to add: what tells a
// copy of a message from a new one, when copies come close together (a server relays a
// chat line to every client at once), in memory that does not grow with the capture.
type recentSet[K comparable] struct {
	has   map[K]bool
	order ring[K]
}

// add reports whether k is new, and remembers it, forgetting the oldest key if it must.
func (s *recentSet[K]) add(k K, limit int) bool {
	if s.has[k] {
		return false
	}
	if s.has == nil {
		s.has = make(map[K]bool, limit)
	}
	if len(s.order.buf) == limit {
		delete(s.has, s.order.buf[s.order.start])
	}
	s.order.push(k, limit)
	s.has[k] = true
	return true
}
