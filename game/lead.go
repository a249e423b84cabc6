package game

import (
	"time"

	"github.com/ackattack/ackattack/net/transport"
)

// The command lead time: a command issued at frame f runs at f + lead on every host, so the
// lead is what a player waits between an order and its effect. It covers the usual delivery,
// not the worst: a command that comes after its frame is run again exactly, from a copy of the
// world kept from before that frame (rollback, resim.go), so a late command costs the host a
// re-run of a few frames, not a drift. A short lead makes orders feel instant; the re-runs pay
// for the few commands that need more than the usual time. (Age of Empires played lockstep
// with about 250 ms of command delay over modems and no re-runs; GGPO plays with one or two
// frames of input delay and rolls back everything late.)
//
// What the lead covers:
//   - the way there: half a round trip, the path of a command over a direct link or of the
//     server's own; the round trip is the worst of any player's, since every player's
//     commands go to every other player (a command the server relays takes about a whole
//     round trip, and is run again where it comes late), but one player's path counts only up
//     to 300 ms above the others' (leadForPaths);
//   - a frame: a command is issued somewhere inside a frame and must be there by the start of
//     its frame on a host whose frames start at about the same time;
//   - the jitter: twice the packet layer's variation of the round trip;
//   - one resend, and only when the loss is so high that a command needs one more often than
//     not (resendLossPercent): a round trip, the soonest a resent command can follow the first
//     (the sender waits a little more, for the peer's ack delay and the variation; what needs
//     that little more, or a second resend, is re-run).
//
// Every figure is the server's own measure of its connection to each player: the packet
// layer's round trip, variation and loss of what it sent (pathRTT). A client's PingSummary
// may lower them (pathOf), never raise them: a student who reported a 4 s round trip and 50%
// loss twice a second once set every player's lead to 5 s.
//
// The loss is what the packet layer counts on the path, one way: with the same conditioner on
// every process, 10% on each end is about 19% a datagram, and the jitter makes a third of that
// again, since a packet overtaken by a newer one is dropped too (the stale-packet rule): the
// class's 10% preset measures about 33%, its 30% preset about 55%.
//
// And never more than maxAutoLead, a second, however bad the link: past it, orders feel broken,
// and the re-runs and the hash checks handle what comes later. The teacher can set a lead of
// their own to show the trade (a long lead, sluggish orders and no re-runs).

// minLossSamples is how many of a connection's packets must have been acked or lost before
// its loss estimate counts: at the start of a game one loss (or one packet overtaken by the
// next under jitter) among a dozen packets reads as 8%, and would hold the lead high for the
// first 12 s. A command that comes late meanwhile is run again at its frame (resim.go).
//
// Under the fast-forward (--late fastforward) a late command is a drift, not a re-run, and a
// lead that assumed no loss for the first seconds made most of a game's drifts there: at the
// class's 30% preset the lead stayed at 200 ms while the first hundred packets were counted,
// and every host fast-forwarded several commands in the first 3 s. There, until the count is
// full, the loss is taken as the rule of succession gives it (earlyLoss): one half before any
// packet is counted, and close to the measure as they add up. A lead too long for a few seconds
// costs sluggish orders; one too short, worlds that differ.
const minLossSamples = 100

// earlyLoss is the loss in percent to assume of a path when only samples packets were counted,
// percent of them lost: Laplace's rule of succession, (lost+1)/(samples+2), which reads 50%
// before the first packet, and 1 in 14 (7%) after twelve with none lost.
func earlyLoss(percent float64, samples int) float64 {
	lost := percent / 100 * float64(samples)
	return 100 * (lost + 1) / float64(samples+2)
}

// pathLoss is the loss of a path to count in its lead, from its measure (percent, taken over
// samples packets): the measure once the count is full; before it, earlyLoss under the
// fast-forward, and none under rollback (minLossSamples).
func pathLoss(percent float64, samples int, late LateMode) float64 {
	switch {
	case samples >= minLossSamples:
		return percent
	case late == LateFastForward:
		return earlyLoss(percent, samples)
	}
	return 0
}

// resendLossPercent is the loss from which the lead covers one resend of a command: below it,
// fewer than half the commands need one, and those are re-run.
const resendLossPercent = 50

// maxAutoLead bounds the lead the server chooses on its own.
const maxAutoLead = time.Second

// fastForwardLate is the share of commands the lead may leave late when a late command is
// fast-forwarded rather than run again (--late fastforward): each one makes a drift, so there
// the lead covers as many resends as keep fewer than one command in a hundred late, as classic
// lockstep does, still never more than maxAutoLead.
const fastForwardLate = 0.01

// leadFor is the lead time in frames of frame for the worst path of a game: its round trip, the
// variation of the round trip and the loss in percent, for a game that does late with its
// late commands.
func leadFor(frame, rtt, jitter time.Duration, lossPercent float64, late LateMode) uint32 {
	d := rtt/2 + frame + 2*jitter
	p := min(max(lossPercent/100, 0), 1)
	switch {
	case late == LateFastForward:
		for left := p; left > fastForwardLate*(1+1e-9) && d < maxAutoLead; left *= p {
			d += rtt
		}
	case lossPercent >= resendLossPercent:
		d += rtt
	}
	lead := uint32((d + frame - 1) / frame)
	return min(max(lead, minLeadFrames), max(uint32(maxAutoLead/frame), minLeadFrames))
}

// leadTimes is a host's command lead time: the one in force (and whether the teacher fixed
// it, leadset.go), and the changes announced for later frames (LeadTime), in order. The server
// announces at most one change every teacherLeadEvery, and each comes into force within twice
// the largest lead and a frame: a few dozen at most wait here.
type leadTimes struct {
	cur   uint32
	fixed bool
	next  []LeadTime
}

// advance puts in force the changes whose frame has come by frame f.
func (l *leadTimes) advance(f uint32) {
	for len(l.next) > 0 && l.next[0].Frame <= f {
		l.cur, l.fixed = l.next[0].LeadFrames, l.next[0].Fixed
		l.next = l.next[1:]
	}
}

// latest is the lead time once every announced change is in force, and whether the teacher
// fixed it.
func (l *leadTimes) latest() (frames uint32, fixed bool) {
	if n := len(l.next); n > 0 {
		return l.next[n-1].LeadFrames, l.next[n-1].Fixed
	}
	return l.cur, l.fixed
}

// latestFrames is latest's lead time alone.
func (l *leadTimes) latestFrames() uint32 {
	frames, _ := l.latest()
	return frames
}

// leadPolicy is the server's side: its lead times, when it last changed them, and who sets
// them: the policy below (LeadAuto), or the teacher (leadset.go).
type leadPolicy struct {
	leadTimes
	lastChange time.Time
	setting    LeadSetting // the one the latest change went out with
	teacher    teacherLead // the teacher's latest, and its pace
}

// pingReport is what a client last reported of its link to the server (PingSummary): a
// claim, which may lower the server's own figures for that path but never raise them
// (pathOf).
type pingReport struct {
	rtt  time.Duration
	loss uint32 // per mille
	got  bool   // a report came
}

func (r *pingReport) take(v *PingSummary) {
	r.rtt = time.Duration(v.AvgRTTMicros) * time.Microsecond
	r.loss = v.LossPermille
	r.got = true
}

// change decides whether the lead moves to want at now, with the world at frame: it rises as
// soon as 2 s after the last change (commands would come late), and falls only 10 s after it
// (a loss estimate that wavers would otherwise move it every other second).
func (l *leadPolicy) change(now time.Time, want, frame uint32) (LeadTime, bool) {
	cur, _ := l.latest()
	since := now.Sub(l.lastChange)
	if want == cur || since < 2*time.Second || (want < cur && since < 10*time.Second) {
		return LeadTime{}, false
	}
	return l.announce(now, LeadTime{LeadFrames: want}, frame), true
}

// announce adds the change lt (its frame left to fill) at now, with the world at frame. A
// change is announced for a frame far enough ahead that every client has it in time: twice
// the largest lead (the one in force, the latest announced, the new one) and one; and never
// before a change announced earlier, which comes into force first.
func (l *leadPolicy) announce(now time.Time, lt LeadTime, frame uint32) LeadTime {
	latest, _ := l.latest()
	lt.Frame = frame + 2*max(l.cur, latest, lt.LeadFrames) + 1
	if n := len(l.next); n > 0 {
		lt.Frame = max(lt.Frame, l.next[n-1].Frame+1)
	}
	l.lastChange = now
	l.next = append(l.next, lt)
	return lt
}

// updateLead sets the command lead time from the players' paths (leadForPaths; leadPolicy.change
// says when), and announces a change to every client; while the teacher has fixed the lead
// (leadset.go), it changes nothing.
func (s *Server) updateLead(now time.Time) {
	if s.lead.setting != LeadAuto {
		return
	}
	lt, ok := s.lead.change(now, s.wantLead(), s.w.Frame())
	if !ok {
		return
	}
	s.sendLead(now, lt)
}

// sendLead counts a change of the lead time, logs it and sends it to every client.
func (s *Server) sendLead(now time.Time, lt LeadTime) {
	s.stats.LeadChanges++
	s.event(now, "lead time", "frames", lt.LeadFrames, "from frame", lt.Frame, "set by", leadSetBy(lt.Fixed))
	for d := range s.seats.following {
		s.sendOn(d, now, &d.deps.lead, &lt)
	}
}

// pathFigures are what the server measured of a path to a player: the round trip, its
// variation, the loss in percent (once enough packets were counted) and the resend delay; or
// the worst of several paths, figure by figure.
type pathFigures struct {
	rtt, jitter, resend time.Duration
	loss                float64
}

// worse is the worst of p and q, figure by figure.
func (p pathFigures) worse(q pathFigures) pathFigures {
	return pathFigures{rtt: max(p.rtt, q.rtt), jitter: max(p.jitter, q.jitter), resend: max(p.resend, q.resend), loss: max(p.loss, q.loss)}
}

// pathOf is the path of one connection as the server measured it (ps), lowered where the
// client's report (r) says it is better: a client may say its link is better than the
// server sees it, which shortens its own commands' lead and no one else's, but never that it
// is worse. Its loss is counted as pathLoss says for the game's late mode.
func pathOf(ps transport.PeerStats, r pingReport, late LateMode) pathFigures {
	p := pathFigures{rtt: pathRTT(ps), jitter: ps.Jitter, resend: ps.Message.ResendDelay,
		loss: pathLoss(ps.LossPercent, ps.Message.Packet.LossSamples, late)}
	if r.got {
		if r.rtt > 0 {
			p.rtt = min(p.rtt, r.rtt)
		}
		p.loss = min(p.loss, float64(r.loss)/10)
	}
	return p
}

// playerPaths are the paths to the players that have a connection: every player's commands
// go to every other player. Spectators have none here: a spectator never slows the players.
func (s *Server) playerPaths() []pathFigures {
	var paths []pathFigures
	for _, st := range s.seats.players {
		if st != nil && st.peer != nil {
			paths = append(paths, pathOf(st.peer.Stats(), st.pings, s.drift.rw.mode))
		}
	}
	return paths
}

// worstPath is the worst of every player's connection, figure by figure.
func (s *Server) worstPath() pathFigures {
	var p pathFigures
	for _, q := range s.playerPaths() {
		p = p.worse(q)
	}
	return p
}

// pathRTT is the round trip of a connection as the server measured it: the packet layer's
// smoothed estimate, from the acknowledgements of what the server sends the player (its
// commands, kills, chat: several packets a second in play), and from the server's pings while
// the connection carries none (transport.Config.PingIdleOnly: a ping and its answer would be
// two more datagrams a second each way on every player's link). A sample is taken only from an
// ack that is the first packet the player sent after it received ours (net/packet), and never
// from a packet the player may have held for the handshake (Endpoint.DiscardRTTSamples), so a
// lost ack or a slow handshake makes no long sample. Before those two rules the smoothed
// estimate held the lead at 600 to 800 ms for the first 20 s at the 30% preset in several of 60
// seeded games, and the average of the pings stood in; with them, seeds 1 to 60 keep the lead's
// p95 at 500 ms (all but seed 39, whose client never joins: BENCHMARKS.md). The lead's jitter
// term covers the spread, and a command later than the lead is re-run.
func pathRTT(ps transport.PeerStats) time.Duration {
	return ps.RTT
}

// outlierLead is the most one player's path adds to the lead the other players' paths call
// for (leadForPaths).
const outlierLead = 300 * time.Millisecond

// leadForPaths is the lead time, in frames of frame, for the players' paths. It is the lead
// of their worst figures (leadFor), with one bound: no one path raises it by more than
// outlierLead over the lead of all the others.
//
// Why the bound. The server measures each path itself, and a client's report only lowers its own
// path's figures (pathOf). But a client can still make its own path look slow to the server: its
// program reads its socket late, so that its acknowledgements and its answers to the pings leave
// late and each by a different delay (the round trip and its variation grow; an answer later than
// the next ping, a second on, counts for nothing), or drops what it receives (the loss grows).
// Without the bound, a student who read up to a second late took every player's lead from 200 ms
// to 700 ms, and could take it to the second the policy stops at. Leaving the worst path out
// altogether would make one slow path cost nothing, but would also leave out an honest one: a
// student who moves their own latency slider up a few steps (50 ms each, HANDOUT.md) watches the
// lead follow. So the worst path counts in full while it is within 300 ms of the others' (its
// latency up to 300 ms higher each way, six steps of the slider), and past that its player's
// commands come late to the others and are run again (resim.go) rather than every order of the
// class waiting for them: what a slow path costs the others is then at most 300 ms of lead, and
// the re-runs of one player's late commands, which its rate bounds (commands.go). A lone player's
// path has no others to be compared with and counts in full: its lead delays nobody's orders but
// its own (the server's bots do not mind). Two students who both slow their paths still raise
// everyone's lead, up to maxAutoLead: the bound makes it take two.
func leadForPaths(frame time.Duration, paths []pathFigures, late LateMode) uint32 {
	var all pathFigures
	worst, worstLead := -1, uint32(0)
	for i, p := range paths {
		all = all.worse(p)
		if l := leadFor(frame, p.rtt, p.jitter, p.loss, late); worst < 0 || l > worstLead {
			worst, worstLead = i, l
		}
	}
	lead := leadFor(frame, all.rtt, all.jitter, all.loss, late)
	if len(paths) < 2 {
		return lead
	}
	var others pathFigures
	for i, p := range paths {
		if i != worst {
			others = others.worse(p)
		}
	}
	bound := leadFor(frame, others.rtt, others.jitter, others.loss, late) + uint32((outlierLead+frame-1)/frame)
	return min(lead, bound)
}

// wantLead is the lead time the players' links call for now.
func (s *Server) wantLead() uint32 {
	return leadForPaths(s.cfg.Frame, s.playerPaths(), s.drift.rw.mode)
}

// sizeWindow sets the server's re-run window for its worst path and the lead (resim.go).
func (s *Server) sizeWindow() {
	s.drift.rw.setWindow(windowFor(s.cfg.Frame, s.lead.latestFrames(), s.worstPath().resend))
}

// sizeWindow sets the client's re-run window for its path to the server and the lead: the
// events it gets come over it (or over a direct link, a shorter path).
func (c *Client) sizeWindow() {
	c.drift.rw.setWindow(windowFor(c.clock.frameDur, c.lead.latestFrames(), c.tr.Stats().Server.Message.ResendDelay))
}
