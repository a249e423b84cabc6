package linksim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrInvalidSettings is wrapped by every error Settings.Validate returns, so callers can test
// for it with errors.Is while the message still names the offending field.
var ErrInvalidSettings = errors.New("linksim: invalid settings")

// Settings describes the impairments of one direction of a link. The zero value is a perfect
// link: nothing lost, nothing duplicated, every datagram delivered at the moment it is sent.
//
// Percentages are in the range 0..100. Durations must not be negative. Settings may change at
// any moment (Conditioner.SetSettings, Network.SetLink) and apply to datagrams sent afterwards,
// which is how a test walks a player out of Wi-Fi range and back again.
//
// What each impairment does to a game protocol:
//
// Independent loss (LossPercent) flips a coin for every datagram. It is the easy kind of loss:
// losses are isolated, so the next packet's ack bitfield still reports everything around the
// gap, and a guaranteed message resent one round trip later almost always gets through.
//
// Burst loss (BurstLossPercent, BurstLength) is the Gilbert-Elliott model: the link is in a
// good state or a bad state, enters the bad state with probability BurstLossPercent per
// datagram, leaves it with probability 1/BurstLength, and loses everything while bad. Real
// links lose like this: a microwave oven next to the access point, a router queue that
// overflows, a route change. At the same average it is far harsher than independent loss. With
// 5% independent loss the chance of losing a message and its resend is 0.25%; inside a burst
// that outlasts a round trip it is certain, because the resend falls into the same burst. Acks
// are lost in runs too, so the sender can see dozens of packets go unacknowledged and resend
// messages that had in fact arrived; once a run is longer than the ack bitfield (32 packets),
// some acks are never reported at all. A protocol tested only with independent loss has not
// been tested against the losses players actually see.
//
// Latency is the one-way delay. It sets the round trip, hence how soon a lost message can be
// resent and how far ahead a command must be scheduled to reach every host before its frame.
//
// Jitter (uniform in ±Jitter around Latency, never below zero) makes the delay vary from
// datagram to datagram. It is what a round-trip estimator has to smooth out, and what makes a
// resend timer set to exactly one round trip fire too early. As soon as the jitter exceeds the
// gap between two sends, datagrams overtake each other without any reordering setting: two
// packets sent 16 ms apart over ±20 ms of jitter swap places often.
//
// Duplication (DupPercent) delivers a datagram twice. The copy is a separate delivery with its
// own jitter, so it can arrive right after the original or well after newer packets. The packet
// layer must recognise a sequence number it has already accepted, and the message layer must
// not run a guaranteed message twice; the late copy also exercises the stale-packet rule.
//
// Reordering (ReorderPercent, ReorderDelay) holds a delivery back so that later datagrams
// overtake it. A receiver that drops any packet older than the newest it has seen leaves a
// guaranteed message riding in the dropped packet unacknowledged, to be resent, and messages
// that depend on one another arrive out of order and wait in the dependency graph. Reordering
// also tests sequence-number comparisons near wrap-around.
type Settings struct {
	// LossPercent is the probability (percent) that a datagram is lost, decided independently
	// for every datagram.
	LossPercent float64
	// BurstLossPercent is the Gilbert-Elliott probability (percent), per datagram, of leaving
	// the good state for the bad state. 0 turns burst loss off.
	BurstLossPercent float64
	// BurstLength is the mean number of datagrams in one burst: the probability of leaving the
	// bad state is 1/BurstLength per datagram, and in the bad state every datagram is lost.
	// 0 is taken as 1; other values below 1 are invalid.
	BurstLength float64
	// Latency is the one-way delay every delivery gets before jitter.
	Latency time.Duration
	// Jitter adds a uniform offset in [-Jitter, +Jitter) to Latency for every delivery. The
	// sum is clamped at 0, so a datagram is never delivered before it was sent.
	Jitter time.Duration
	// DupPercent is the probability (percent) that a datagram is delivered twice. The copy is a
	// separate delivery with its own jitter and its own reorder decision.
	DupPercent float64
	// ReorderPercent is the probability (percent) that a delivery is held back an extra
	// ReorderDelay, which lets datagrams sent after it overtake it.
	ReorderPercent float64
	// ReorderDelay is how long a reordered delivery is held back. 0 means 2×Jitter + 1ms, long
	// enough to be overtaken even by a datagram that drew the worst jitter.
	ReorderDelay time.Duration
}

// defaultReorderExtra is the part of the default ReorderDelay that does not depend on Jitter.
const defaultReorderExtra = time.Millisecond

// Validate reports every out-of-range field, joined into one error. Each part wraps
// ErrInvalidSettings.
func (s Settings) Validate() error {
	var errs []error
	percent := func(name string, v float64) {
		if math.IsNaN(v) || v < 0 || v > 100 {
			errs = append(errs, fmt.Errorf("%w: %s is %v, want 0..100", ErrInvalidSettings, name, v))
		}
	}
	duration := func(name string, v time.Duration) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("%w: %s is %v, want >= 0", ErrInvalidSettings, name, v))
		}
	}
	percent("LossPercent", s.LossPercent)
	percent("BurstLossPercent", s.BurstLossPercent)
	percent("DupPercent", s.DupPercent)
	percent("ReorderPercent", s.ReorderPercent)
	if l := s.BurstLength; math.IsNaN(l) || math.IsInf(l, 0) || (l != 0 && l < 1) {
		errs = append(errs, fmt.Errorf("%w: BurstLength is %v, want 0 (same as 1) or a finite value >= 1", ErrInvalidSettings, l))
	}
	duration("Latency", s.Latency)
	duration("Jitter", s.Jitter)
	duration("ReorderDelay", s.ReorderDelay)
	return errors.Join(errs...)
}

// reorderDelay is the hold-back a reordered delivery actually gets.
func (s Settings) reorderDelay() time.Duration {
	if s.ReorderDelay > 0 {
		return s.ReorderDelay
	}
	return 2*s.Jitter + defaultReorderExtra
}

// burstExit is the per-datagram probability of leaving the bad state.
func (s Settings) burstExit() float64 {
	if s.BurstLength <= 1 {
		return 1
	}
	return 1 / s.BurstLength
}
