package lesson

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/transport"
)

// The built-in lessons, each run in virtual time to its end: the player watching (a student
// at the keyboard doing nothing) and the player's units played by a bot. Each must end within
// lessonLimit of game time, reach every step in order, and make the event it teaches happen,
// checked on the game's own counters.

// lessonLimit bounds a lesson's game time in the tests: a lesson whose events do not come
// within it would leave a class waiting.
const lessonLimit = 3 * time.Minute

// taught checks, for each lesson by number, that the event it teaches happened.
var taught = map[int]func(t *testing.T, g *vlesson){
	1: func(t *testing.T, g *vlesson) {
		lost := g.cli.Transport().Stats().Server.Message.Packet.PacketsLost
		resent := serverLink(g).GuaranteedResent
		if lost == 0 || resent == 0 {
			t.Errorf("packets lost %d, server's messages resent %d: want both", lost, resent)
		}
	},
}

func serverLink(g *vlesson) (ps transport.PeerStats) {
	for _, p := range g.srv.Transport().Stats().Peers {
		if p.Connected {
			ps = p
		}
	}
	return ps
}

func TestBuiltinLessons(t *testing.T) {
	scripts, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scripts {
		for _, autoplay := range []bool{false, true} {
			name := "watching"
			if autoplay {
				name = "autoplay"
			}
			t.Run(s.Title+"/"+name, func(t *testing.T) {
				t.Parallel()
				check := taught[s.Number]
				if check == nil {
					t.Fatalf("lesson %d has no check of what it teaches", s.Number)
				}
				g := newVLesson(t, s, autoplay)
				start := g.now
				if !g.run(lessonLimit) {
					p := g.progress
					t.Fatalf("lesson %d not over after %v: at step %d (%q), goals %+v", s.Number, lessonLimit, p.Current+1, p.Steps[min(p.Current, len(p.Steps)-1)], p.Goals)
				}
				var last time.Time
				for i := range s.Steps {
					at := g.drv.Runner().Reached(i)
					if at.IsZero() || at.Before(last) {
						t.Errorf("step %d reached at %v, after step %d at %v", i+1, at.Sub(start), i, last.Sub(start))
					}
					last = at
				}
				t.Logf("lesson %d over after %v of game time", s.Number, g.now.Sub(start).Round(time.Millisecond))
				check(t, g)
			})
		}
	}
}
