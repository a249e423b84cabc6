package game

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// The class's link: one impairment for every player.
//
// Each host has its own link conditioner under its socket (net/linksim), with sliders to set
// it. A teacher who wants the whole class to see 10% loss at once should not have to walk
// round the room, so the server can push a link setting to every client (ClassLink), and each
// client puts it on its own conditioner, both ways, as its sliders would. A client that joins
// later gets the latest one when it is seated. The player's own sliders still work
// afterwards: the setting is where the class starts from, not a lock.
//
// What a student could do with it, and why it cannot:
//
//   - Send one to the others. A client's ClassLink to the server is a bad message, counted and
//     dropped, never relayed; on a direct link only commands and the link's proofs are taken,
//     so a ClassLink there is a bad message too. A client takes it from its connection to the
//     server alone, whose datagrams are sealed with keys only the two ends hold.
//   - Break everybody's game with one. Every field is bounded by the range of its slider: at
//     most 60% loss, bursts of at most 10 datagrams starting with at most 10% chance, 1 s of
//     latency, 200 ms of jitter, 30% duplication. A message beyond any of them does not parse.
//     (Only the server can send one anyway, but a client trusts no peer with its own link.)
//   - Flood the clients with them (a slider dragged to and fro on the teacher's screen). The
//     server sends at most one every classLinkEvery; a setting that comes sooner waits, and
//     only the latest goes. Each ClassLink depends on the one before it on its connection (a
//     chain), so an older setting never lands after a newer one.

// The bounds of a link setting the server may push: the ranges of the sliders.
const (
	MaxLinkLossPercent  = 60
	MaxLinkBurstPercent = 10
	MaxLinkBurstLength  = 10
	MaxLinkLatency      = time.Second
	MaxLinkJitter       = 200 * time.Millisecond
	MaxLinkDupPercent   = 30
)

// classLinkEvery is the least time between two ClassLinks on a connection.
const classLinkEvery = 250 * time.Millisecond

// errClassLink is what every refused link setting wraps.
var errClassLink = errors.New("game: a link setting the class cannot take")

// ClassLinkOf is the ClassLink for link settings s, its percentages rounded to tenths and its
// durations to milliseconds. It fails for settings beyond the bounds above, and for the ones a
// ClassLink cannot carry (reordering of its own: jitter reorders).
func ClassLinkOf(s linksim.Settings) (ClassLink, error) {
	var errs []error
	permille := func(name string, v float64, maxPercent int) uint32 {
		if math.IsNaN(v) || v < 0 || v > float64(maxPercent) {
			errs = append(errs, fmt.Errorf("%s %v%%, want 0..%d%%", name, v, maxPercent))
			return 0
		}
		return uint32(math.Round(v * 10))
	}
	millis := func(name string, d, most time.Duration) uint32 {
		if d < 0 || d > most {
			errs = append(errs, fmt.Errorf("%s %v, want 0..%v", name, d, most))
			return 0
		}
		return uint32(d.Round(time.Millisecond).Milliseconds())
	}
	m := ClassLink{
		LossPermille:  permille("loss", s.LossPercent, MaxLinkLossPercent),
		BurstPermille: permille("burst loss", s.BurstLossPercent, MaxLinkBurstPercent),
		LatencyMillis: millis("latency", s.Latency, MaxLinkLatency),
		JitterMillis:  millis("jitter", s.Jitter, MaxLinkJitter),
		DupPermille:   permille("duplication", s.DupPercent, MaxLinkDupPercent),
	}
	if m.BurstPermille > 0 {
		switch l := s.BurstLength; {
		case math.IsNaN(l) || l > MaxLinkBurstLength:
			errs = append(errs, fmt.Errorf("bursts of %v datagrams, want at most %d", l, MaxLinkBurstLength))
		default:
			m.BurstLength = max(uint32(math.Round(l)), 1)
		}
	}
	if s.ReorderPercent != 0 || s.ReorderDelay != 0 {
		errs = append(errs, errors.New("reordering of its own (jitter reorders)"))
	}
	if err := errors.Join(errs...); err != nil {
		return ClassLink{}, fmt.Errorf("%w: %w", errClassLink, err)
	}
	return m, nil
}

// Settings are the link conditioner's settings the message describes.
func (m *ClassLink) Settings() linksim.Settings {
	return linksim.Settings{
		LossPercent:      float64(m.LossPermille) / 10,
		BurstLossPercent: float64(m.BurstPermille) / 10,
		BurstLength:      float64(m.BurstLength),
		Latency:          time.Duration(m.LatencyMillis) * time.Millisecond,
		Jitter:           time.Duration(m.JitterMillis) * time.Millisecond,
		DupPercent:       float64(m.DupPermille) / 10,
	}
}

// classLink is the server's side: the latest setting, and its pace (at most one every
// classLinkEvery, the latest wins: rate.go).
type classLink struct {
	latest *ClassLink // nil: the teacher never pushed one
	pace   settingPace
}

// push makes m the class's setting, waiting to go out.
func (c *classLink) push(m *ClassLink) { c.latest = m; c.pace.changed() }

// PushLink gives every client the link settings s, now or (within classLinkEvery of the last
// push) as soon as the bound allows; clients that join later get them too. It fails, and
// changes nothing, for settings beyond the sliders' ranges (ClassLinkOf). Owner loop only.
func (s *Server) PushLink(now time.Time, ls linksim.Settings) error {
	m, err := ClassLinkOf(ls)
	if err != nil {
		return err
	}
	s.class.push(&m)
	s.event(now, "class link", "settings", m.Settings())
	s.flushClassLink(now)
	return nil
}

// ClassLink is the link setting last pushed to the class, if any (owner loop; the snapshot
// has a copy).
func (s *Server) ClassLink() (linksim.Settings, bool) {
	if s.class.latest == nil {
		return linksim.Settings{}, false
	}
	return s.class.latest.Settings(), true
}

// flushClassLink sends the waiting setting to every connected client once the bound allows.
func (s *Server) flushClassLink(now time.Time) {
	if !s.class.pace.due(now, classLinkEvery) {
		return
	}
	s.stats.ClassLinks++
	for d := range s.seats.connected {
		s.sendClassLink(d, now)
	}
}

// sendClassLink sends the latest setting to one client, as the next of its connection's chain.
func (s *Server) sendClassLink(st *downlink, now time.Time) {
	s.sendOn(st, now, &st.deps.class, s.class.latest)
}

// nextClassLink is when a waiting setting may go out (zero: none waits).
func (s *Server) nextClassLink() time.Time { return s.class.pace.next(classLinkEvery) }

// classLinkView is the client's side: the class's link as the server last set it (nil: never),
// and why it is not on this client's link (nil: it is).
type classLinkView struct {
	settings *linksim.Settings
	err      error
}

// takeClassLink: the server set the class's link. The client hands it to its conditioner
// (ClientConfig.OnClassLink) and remembers it for the screen.
func (c *Client) takeClassLink(m *ClassLink) {
	ls := m.Settings()
	c.stats.ClassLinks++
	c.class = classLinkView{settings: &ls}
	if c.cfg.OnClassLink == nil {
		c.class.err = errors.New("this client has no link conditioner")
	} else {
		c.class.err = c.cfg.OnClassLink(ls)
	}
	if c.class.err != nil {
		c.cfg.Logger.Warn("class link not applied", "settings", ls, "err", c.class.err)
	}
}
