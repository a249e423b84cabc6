package game

import "time"

// rateLimit is a rate of things (chat lines, hash reports): burst at once, then one every
// every.
type rateLimit struct {
	burst int
	every time.Duration
}

// rateBucket is a token bucket, kept as the one time at which it will be full again (the
// generic cell rate algorithm, as the transport's handshake budgets are kept): one more fits
// while that time is at most (burst−1)·every ahead of now, and each one taken moves it every
// on. The zero value is a full bucket.
type rateBucket struct{ full time.Time }

// fits reports whether the bucket has room for one more at now, under limit l.
func (r *rateBucket) fits(now time.Time, l rateLimit) bool { return r.fitsN(now, l, 1) }

// take takes one from the bucket at now, if it has one under limit l.
func (r *rateBucket) take(now time.Time, l rateLimit) bool { return r.takeN(now, l, 1) }

// fitsN reports whether the bucket has room for n more at now, under limit l: never for more
// than the burst.
func (r *rateBucket) fitsN(now time.Time, l rateLimit, n int) bool {
	return n <= l.burst && r.full.Sub(now) <= time.Duration(l.burst-n)*l.every
}

// takeN takes n from the bucket at now, if it has them under limit l (all or none).
func (r *rateBucket) takeN(now time.Time, l rateLimit, n int) bool {
	if !r.fitsN(now, l, n) {
		return false
	}
	r.full = maxTime(r.full, now).Add(time.Duration(n) * l.every)
	return true
}

// settingPace is the pace of a setting the teacher changes while the game runs (the class's
// link, the command lead time): a change goes out at once if the last one went out at least
// every ago, and otherwise waits until then; a change that comes while another waits takes
// its place, so only the latest goes. (A slider dragged to and fro, a key pressed five times
// in a row: the clients get the one the teacher stopped at, not every step on the way.) The
// setting itself is its owner's; the pace keeps only when.
type settingPace struct {
	sentAt  time.Time
	waiting bool // the latest change has not gone out yet
}

// changed marks that a change waits to go out.
func (p *settingPace) changed() { p.waiting = true }

// due reports whether the waiting change may go out at now, at most one every every, and if so
// marks it sent.
func (p *settingPace) due(now time.Time, every time.Duration) bool {
	if !p.waiting || now.Before(p.sentAt.Add(every)) {
		return false
	}
	p.waiting, p.sentAt = false, now
	return true
}

// next is when a waiting change may go out (zero: none waits).
func (p *settingPace) next(every time.Duration) time.Time {
	if !p.waiting {
		return time.Time{}
	}
	return p.sentAt.Add(every)
}
