package game

import (
	"errors"
	"fmt"
	"time"
)

// The teacher's hand on the command lead time.
//
// The lead time is a trade, and a class should watch it being made. A long lead hides the
// network: every command reaches every host before its frame and nothing is ever run again,
// but an order takes the whole lead to happen, and the game feels sluggish. A short one makes
// orders happen at once, but a command that takes longer than the lead to arrive is late, and
// every host that ran its frame without it runs those frames again (resim.go), or, later than
// the window, fast-forwards it. The server's policy (lead.go) picks the shortest lead that
// leaves under 1% of the commands late. The teacher can take that choice over, with --lead or
// a key on the server's screen, and give it back (LeadAuto).
//
// While the teacher has fixed the lead, the policy changes nothing. A change of the teacher's
// goes out at once, as a LeadTime whose flag says the teacher fixed it (so that every status
// line can say who set the lead), for a frame far enough ahead that every client has it in time
// (leadPolicy.announce): without the policy's 2 s and 10 s, which keep a wavering estimate from
// moving the lead, since the teacher means it. A key pressed five times in a row does not send
// five: at most one change goes every teacherLeadEvery, and the latest wins (settingPace). A
// client that joins later gets the lead in force in StartGame, with its flag, and the changes
// still to come.

// LeadSetting is who sets the command lead time, and to what: LeadAuto (the zero value), the
// server's policy, from its players' links; or a duration the teacher fixed (FixedLead), which
// the server rounds to whole frames.
type LeadSetting time.Duration

// LeadAuto leaves the command lead time to the server's policy (lead.go).
const LeadAuto LeadSetting = 0

// MaxFixedLead is the longest lead time a teacher may fix. At 3 s an order takes three seconds
// to happen, which any class feels; a longer lead teaches nothing more, and holds every later
// change of the lead back for longer (a change is announced twice the lead ahead).
const MaxFixedLead = 3 * time.Second

// teacherLeadEvery is the least time between two of the teacher's changes going out.
const teacherLeadEvery = 500 * time.Millisecond

// FixedLead is the setting that fixes the command lead time to d. (FixedLead(0) is LeadAuto.)
func FixedLead(d time.Duration) LeadSetting { return LeadSetting(d) }

// Fixed is the lead time the teacher fixed, and false for LeadAuto.
func (l LeadSetting) Fixed() (time.Duration, bool) { return time.Duration(l), l != LeadAuto }

// String is "auto", or the fixed lead time: "300ms".
func (l LeadSetting) String() string {
	if l == LeadAuto {
		return "auto"
	}
	return time.Duration(l).String()
}

// errLead is what every refused lead setting wraps.
var errLead = errors.New("game: a lead time the teacher cannot fix")

// ParseLead reads a lead setting as --lead takes it: "auto", or a duration above 0 and at
// most MaxFixedLead ("300ms", "1s").
func ParseLead(s string) (LeadSetting, error) {
	if s == "auto" {
		return LeadAuto, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return LeadAuto, fmt.Errorf("%w: %q: want auto, or a duration such as 300ms", errLead, s)
	}
	if d <= 0 || d > MaxFixedLead {
		return LeadAuto, fmt.Errorf("%w: %v: want auto, or above 0 and at most %v", errLead, d, MaxFixedLead)
	}
	return FixedLead(d), nil
}

// rounded is the setting as the server takes it with frames of length frame: a fixed lead
// rounded to the nearest whole number of frames, at least one. It fails for a lead below 0 or
// above MaxFixedLead, or longer than any lead may be (maxLeadFrames, with frames under 60 ms).
func (l LeadSetting) rounded(frame time.Duration) (LeadSetting, error) {
	d, fixed := l.Fixed()
	if !fixed {
		return LeadAuto, nil
	}
	if d < 0 || d > MaxFixedLead {
		return LeadAuto, fmt.Errorf("%w: %v: want above 0 and at most %v", errLead, d, MaxFixedLead)
	}
	n := max((d+frame/2)/frame, minLeadFrames)
	if n > maxLeadFrames {
		return LeadAuto, fmt.Errorf("%w: %v is %d frames of %v: want at most %d", errLead, d, n, frame, maxLeadFrames)
	}
	return FixedLead(n * frame), nil
}

// leadSetBy says who set a lead time, for the event log: "teacher" or "auto".
func leadSetBy(fixed bool) string {
	if fixed {
		return "teacher"
	}
	return "auto"
}

// teacherLead is the teacher's latest setting, rounded to frames, and its pace.
type teacherLead struct {
	asked LeadSetting
	pace  settingPace
}

// SetLead changes who sets the command lead time while the game runs: LeadAuto gives it back
// to the server's policy, which sets it from the players' links at once and then as it always
// does; a FixedLead fixes it, rounded to whole frames, and the policy leaves it alone. The
// change goes to every client (LeadTime), spectators included, for a frame far enough ahead
// that each has it in time: at once, or within teacherLeadEvery of the teacher's last change
// as soon as that allows (the latest wins). Before the start it is the lead the game starts
// with. It returns the setting as the clients will have it, or fails, changing nothing, for a
// lead below 0 or above MaxFixedLead. Owner loop only.
func (s *Server) SetLead(now time.Time, l LeadSetting) (LeadSetting, error) {
	l, err := l.rounded(s.cfg.Frame)
	if err != nil {
		return LeadAuto, err
	}
	s.lead.teacher.asked = l
	s.lead.teacher.pace.changed()
	s.event(now, "lead set", "to", l)
	s.flushLead(now)
	return l, nil
}

// leadWanted is the lead time, in frames, the setting in force calls for: the teacher's, or
// the policy's.
func (s *Server) leadWanted() uint32 {
	if d, fixed := s.lead.setting.Fixed(); fixed {
		return uint32(d / s.cfg.Frame) // rounded to frames when the teacher set it
	}
	return s.wantLead()
}

// flushLead puts the teacher's waiting setting in force once its pace allows, and announces
// the change it makes to every client. Before the start nothing has gone out yet: the setting
// is taken at once, and StartGame carries it.
func (s *Server) flushLead(now time.Time) {
	t := &s.lead.teacher
	if !s.clock.running {
		if t.pace.waiting {
			s.lead.setting, t.pace.waiting = t.asked, false
			s.takeLeadBeforeStart()
		}
		return
	}
	if !t.pace.due(now, teacherLeadEvery) {
		return
	}
	s.lead.setting = t.asked
	lt := LeadTime{LeadFrames: s.leadWanted(), Fixed: s.lead.setting != LeadAuto}
	if frames, fixed := s.lead.latest(); lt.LeadFrames == frames && lt.Fixed == fixed {
		return // the lead is, or is announced to be, what the teacher asks
	}
	s.stats.LeadSettings++
	s.sendLead(now, s.lead.announce(now, lt, s.w.Frame()))
}

// takeLeadBeforeStart puts the setting's lead in force before the game starts, for the
// snapshots of the lobby (the start takes it again, from what the links measured by then).
func (s *Server) takeLeadBeforeStart() {
	s.lead.cur, s.lead.fixed = s.leadWanted(), s.lead.setting != LeadAuto
}

// nextLead is when the teacher's waiting setting may go out (zero: none waits).
func (s *Server) nextLead() time.Time { return s.lead.teacher.pace.next(teacherLeadEvery) }
