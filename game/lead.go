package game

import "time"

// The command lead time: a command issued at frame f runs at f + lead on every
// host, so lead must cover the time a command takes to reach the other hosts. A command that
// arrives after its frame is late, and a late command makes the worlds differ until a re-sync.
//
// What the time is made of:
//   - the way there: half a round trip over a direct link, or a hop to the server and one on
//     (the relay); the round trip is the worst of any player's, since every player's commands
//     go to every other player;
//   - a frame: a command is issued somewhere inside a frame and must be there by the start of
//     its frame on a host whose frames start at about the same time;
//   - the jitter: twice the packet layer's variation of the round trip;
//   - the losses: a lost packet costs a resend delay. With loss p, a command needs k resends
//     with probability p^k, so covering k resends leaves p^(k+1) of the commands late. The lead
//     covers as many resends as it takes to bring that under lateTarget.
//
// Measured in virtual time (2 server bots and 3 bot clients, 50 ms ± 10 ms each way, 60 s of
// play, BENCHMARKS.md): a lead of 1 frame left 2.2% of the commands late on a clean link,
// 2 frames 0.2%; at 10% loss 3 frames left 0.3% late and 4 frames none; at 30% loss 6 frames
// left 1.0% late.

// minLossSamples is how many of a connection's packets must have been acked or lost before
// its loss estimate counts: at the start of a game one loss (or one packet overtaken by the
// next under jitter) among a dozen packets reads as 8%, and would hold the lead high for the
// first 12 s. A command that comes late meanwhile is run again at its frame (resim.go).
const minLossSamples = 100

// lateTarget is the share of commands the lead time may leave late.
const lateTarget = 0.01

// maxLeadResends bounds the resends the lead covers: past it, the link is too bad for lockstep
// to keep up, and re-syncs repair what arrives late.
const maxLeadResends = 4

// leadFor is the lead time in frames of frame for the worst path of a game: its round trip, the
// variation of the round trip, the loss in percent and the resend delay.
func leadFor(frame, rtt, jitter time.Duration, lossPercent float64, resend time.Duration) uint32 {
	d := rtt/2 + frame + 2*jitter
	p := min(max(lossPercent/100, 0), 1)
	for late, k := p, 0; late > lateTarget*(1+1e-9) && k < maxLeadResends; late, k = late*p, k+1 {
		d += max(resend, rtt)
	}
	lead := uint32((d + frame - 1) / frame)
	return min(max(lead, minLeadFrames), maxLeadFrames)
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

// leadPolicy is the server's side: its lead times, when it last changed them, and who sets
// them: the policy below (LeadAuto), or the teacher (leadset.go).
type leadPolicy struct {
	leadTimes
	lastChange time.Time
	setting    LeadSetting // the one the latest change went out with
	teacher    teacherLead // the teacher's latest, and its pace
}

// pingReport is what a client last reported of its link to the server (PingSummary).
type pingReport struct {
	rtt  time.Duration
	loss uint32 // per mille
}

func (r *pingReport) take(v *PingSummary) {
	r.rtt = time.Duration(v.AvgRTTMicros) * time.Microsecond
	r.loss = v.LossPermille
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

// updateLead sets the command lead time from the worst path among the players (leadPolicy.change
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

// wantLead is the lead time the players' links call for now.
func (s *Server) wantLead() uint32 {
	// The worst path: every player's commands go to every other player.
	var rtt, jitter, resend time.Duration
	var loss float64
	for _, st := range s.seats.players {
		if st == nil || st.peer == nil {
			continue
		}
		ps := st.peer.Stats()
		rtt = max(rtt, st.pings.rtt, ps.PingAvg, ps.RTT)
		jitter = max(jitter, ps.Jitter)
		resend = max(resend, ps.Message.ResendDelay)
		if ps.Message.Packet.LossSamples >= minLossSamples {
			loss = max(loss, ps.LossPercent, float64(st.pings.loss)/10)
		}
	}
	return leadFor(s.cfg.Frame, rtt, jitter, loss, resend)
}
