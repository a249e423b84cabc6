package ui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// TestEventRing: the ring takes from each snapshot the lines it has not seen, by the count of
// every line ever logged, and keeps the newest limit of them, counting those it let go; lines
// gone before a frame saw them leave a line that says so.
func TestEventRing(t *testing.T) {
	lines := func(from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprint(i))
		}
		return out
	}
	type snap struct {
		lines []string // the snapshot's latest lines
		total uint64   // every line ever logged
	}
	for _, c := range []struct {
		name  string
		snaps []snap
		want  []string
		letGo uint64
	}{
		{"nothing", []snap{{nil, 0}}, nil, 0},
		{"the same snapshot twice", []snap{{lines(1, 3), 3}, {lines(1, 3), 3}}, lines(1, 3), 0},
		{"a snapshot that stopped growing", []snap{{lines(1, 4), 4}, {lines(3, 6), 6}, {lines(5, 8), 8}}, lines(3, 8), 2},
		{"more than a snapshot carries between two frames", []snap{{lines(1, 2), 2}, {lines(7, 10), 10}},
			[]string{"2", "… 4 lines came and went between two frames (the server's log has every one)", "7", "8", "9", "10"}, 1},
		{"another server's count", []snap{{lines(1, 5), 5}, {lines(1, 2), 2}}, []string{"2", "3", "4", "5", "1", "2"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := eventRing{limit: 6}
			for _, s := range c.snaps {
				r.take(s.lines, s.total)
			}
			var got []string
			for i := range r.len() {
				got = append(got, r.at(i))
			}
			if !slices.Equal(got, c.want) || r.letGo != c.letGo {
				t.Errorf("ring %v, %d let go; want %v, %d", got, r.letGo, c.want, c.letGo)
			}
		})
	}
}

// logEvents logs n more event lines on the fake server, as the game does: the snapshot carries
// the latest maxEventsShown (200) and the count of every line.
func (f *fakeServer) logEvents(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	events := slices.Clone(f.snap.Events)
	for range n {
		f.snap.EventsTotal++
		events = append(events, fmt.Sprintf("12:01:00.000 frame 500: event %04d", f.snap.EventsTotal))
	}
	f.snap.Events = events[max(len(events)-200, 0):]
}

var eventNumber = regexp.MustCompile(`event (\d{4})`)

// eventsShown are the numbers of the event lines on the screen, in order.
func eventsShown(sa *screenApp) []string {
	var out []string
	for _, m := range eventNumber.FindAllStringSubmatch(screenText(sa), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestServerScreenEventLogFollows: the event log shows the newest lines for as long as a class
// lasts, past the 200 a snapshot carries; PgUp scrolls it back, and it stays still while lines
// come in below, which its title counts; End follows the newest again; Home shows how many old
// lines it let go, its memory bounded.
func TestServerScreenEventLogFollows(t *testing.T) {
	f := newFakeServer(t)
	sa, ss := fakeServerScreen(t, f, 120, 40)
	f.logEvents(150)
	waitText(sa, "the 150th line", "event 0154")
	f.logEvents(100) // the snapshot carries 200 lines from now on
	waitText(sa, "the 250th line", "event 0254")
	f.logEvents(50) // the snapshot's 200 lines are other lines now, not more
	waitText(sa, "the newest line past 200", "event 0304")

	sa.key(tcell.KeyPgUp)
	waitText(sa, "the log scrolled back", "events: scrolled back (End)")
	var before []string
	sa.waitFor("the lines read", func() bool { before = eventsShown(sa); return len(before) > 0 })
	f.logEvents(20)
	waitText(sa, "the lines below counted", "events: 20 newer below (End)")
	sa.waitFor("the same lines in view", func() bool { return slices.Equal(eventsShown(sa), before) })

	sa.key(tcell.KeyEnd)
	waitText(sa, "the newest line again", "event 0324")
	waitText(sa, "the log following", "─ events ─")

	for i := range 25 { // 2500 more, a frame's worth at a time
		f.logEvents(100)
		waitText(sa, "the newest line", fmt.Sprintf("event %04d", 424+100*i))
	}
	sa.key(tcell.KeyHome)
	waitText(sa, "what the log let go", fmt.Sprintf("… %d older lines let go", 2824-maxLogLines))
	sa.waitFor("the oldest line kept", func() bool {
		return strings.Contains(screenText(sa), fmt.Sprintf("event %04d", 2824-maxLogLines+1))
	})
	var kept int
	sa.do(func() { kept = ss.events.ring.len() })
	if kept != maxLogLines {
		t.Errorf("the log keeps %d lines, want %d", kept, maxLogLines)
	}
	for range 3 {
		sa.key(tcell.KeyPgDn)
	}
	sa.waitFor("still back after 3 pages", func() bool { return !ss.events.following() })
	sa.key(tcell.KeyEnd)
	waitText(sa, "the newest line once more", "event 2824")
}
