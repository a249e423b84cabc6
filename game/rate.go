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
func (r *rateBucket) fits(now time.Time, l rateLimit) bool {
	return r.full.Sub(now) <= time.Duration(l.burst-1)*l.every
}

// take takes one from the bucket at now, if it has one under limit l.
func (r *rateBucket) take(now time.Time, l rateLimit) bool {
	if !r.fits(now, l) {
		return false
	}
	r.full = maxTime(r.full, now).Add(l.every)
	return true
}
