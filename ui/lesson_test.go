package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game/lesson"
)

// progressAtStep2 is a lesson in its second step: the first done, the third to come.
var progressAtStep2 = lesson.Progress{Number: 2, Title: "Out of order: A, then B", Current: 1,
	Steps: []string{"A, then B", "B overtakes A", "Only B waited"},
	Text:  []string{"The link loses 30% of the packets. Now and then A's", "packet is lost and B's arrives: B must not run first."},
	Try:   []string{"f freezes the graph, . steps it."},
	Goals: []lesson.GoalProgress{{Label: "messages that waited in the graph (KillEnemy)", Have: 0, Want: 1}},
	Note:  "KillEnemy #57 waited 84 ms for #55",
	Show:  []lesson.Reading{{Label: "messages received", Value: "57"}, {Label: "waited in the graph, all told", Value: "84 ms"}}}

// TestLessonPanelGolden: the panel at a comfortable height, and on a short one, where the
// steps to come and done, the counters and the hints give way to the step up. The step's
// text lines, broken where the script broke them, are one paragraph wrapped to the panel.
func TestLessonPanelGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		height int
		want   []string
		gone   []string
	}{
		{"lessonpanel_44x22", 22, []string{"✓ A, then B", "▶ B overtakes A (2 of 3)", "try: f freezes", "◻ messages that waited", "0 of 1",
			"KillEnemy #57 waited 84 ms", "· Only B waited", "messages received: 57"}, nil},
		{"lessonpanel_44x9", 9, []string{"▶ B overtakes A (2 of 3)", "◻ messages that waited"}, []string{"✓ A, then B", "· Only B waited", "messages received"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewLessonPanel()
			p.SetProgress(progressAtStep2)
			sa := runApp(t, p, 44, tc.height)
			txt := sa.text()
			for _, w := range tc.want {
				if !strings.Contains(txt, w) {
					t.Errorf("no %q in\n%s", w, txt)
				}
			}
			for _, g := range tc.gone {
				if strings.Contains(txt, g) {
					t.Errorf("%q still there on a short panel:\n%s", g, txt)
				}
			}
			checkGolden(t, tc.name, txt)
		})
	}
}

// fakeLessonHost is a lesson's game over a fakeClient: the fake's snapshot and link, and the
// actions it was handed.
type fakeLessonHost struct {
	f    *fakeClient
	mu   sync.Mutex
	done []string
}

func (h *fakeLessonHost) Observe() lesson.Observation {
	p, _ := h.f.Peer()
	return lesson.Observation{Client: h.f.Snapshot(), Link: p}
}

func (h *fakeLessonHost) Perform(a lesson.Action, done func(error)) error {
	h.mu.Lock()
	h.done = append(h.done, a.String())
	h.mu.Unlock()
	done(nil)
	return nil
}

func (h *fakeLessonHost) performed() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.done...)
}

// testLesson has a first step the fake's game meets at once (it is at frame 100) and reads in
// no time, so that the screen shows the second.
const testLesson = `lesson 5
title A test lesson
about A lesson for the screen's tests.
show frames
step Met at once
  read 0s
  do spawn 2
  until frames >=100
step Waiting
  text The graph holds the kill until its spawn arrives.
  try d opens the debug panel.
  every 1s spawn-kill
  until messages-waited type=KillEnemy
step Last
  until seconds +5
`

// lessonScreen runs the client screen over a fake host with lessons: the built-in ones in the
// menu, and running (nil for none) on screen.
func lessonScreen(t *testing.T, width, height int, running *lesson.Script, edit func(o *LessonOptions)) (*screenApp, *ClientScreen, *fakeLessonHost) {
	t.Helper()
	scripts, err := lesson.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeClient(t)
	h := &fakeLessonHost{f: f}
	var cs *ClientScreen
	sa, _ := startScreen(t, width, height, 50, func(app *tview.Application) screenModel {
		cs = NewClientScreen(f, t.TempDir(), func(p tview.Primitive) { app.SetFocus(p) })
		cs.clock = func() time.Time { return fakeNow }
		o := LessonOptions{Scripts: scripts, Running: running, Host: h}
		if edit != nil {
			edit(&o)
		}
		cs.SetLessons(o)
		return cs
	})
	sa.waitFor("the map focused", func() bool { return cs.MapView() != nil && cs.MapView().HasFocus() })
	return sa, cs, h
}

// TestClientScreenRunsALesson: a lesson on screen has its panel at the top of the side
// column, wider than the side column without one; it walks the steps as the game's counters
// meet them, and hands the game each step's actions. The menu lists it too.
func TestClientScreenRunsALesson(t *testing.T) {
	s, err := lesson.Parse("test.txt", []byte(testLesson))
	if err != nil {
		t.Fatal(err)
	}
	sa, _, h := lessonScreen(t, 120, 36, s, nil)
	waitText(sa, "the second step up", "▶ Waiting (2 of 3)")
	sa.waitFor("the second step's actions", func() bool { return len(h.performed()) == 2 })
	if got := strings.Join(h.performed(), "; "); got != "spawn 2; spawn-kill" {
		t.Errorf("actions %q, want the first step's spawn and the second's spawn-kill", got)
	}
	txt := sa.text()
	for _, w := range []string{"lesson 5: A test lesson", "✓ Met at once", "The graph holds the kill", "try: d opens", "· Last", "frames run: 100"} {
		if !strings.Contains(txt, w) {
			t.Errorf("no %q on the screen:\n%s", w, txt)
		}
	}
	checkGolden(t, "client_lesson_120x36", txt)
	// A lesson from a file of its own is listed after the built-in ones, marked as the one on
	// screen.
	sa.key(tcell.KeyF4)
	waitText(sa, "the menu with the lesson on screen", "▶  5  A test lesson")
}

// TestLessonMenu: F4 opens the menu over the game, with a note when the player plays on
// another server; the arrows pick a lesson, Enter starts it (the screen quits, the caller
// starts its game), a digit starts the lesson of that number, Esc closes the menu.
func TestLessonMenu(t *testing.T) {
	var mu sync.Mutex
	var started []int
	start := func(o *LessonOptions) {
		o.Elsewhere = "192.168.1.20:7777"
		o.Start = func(s *lesson.Script) {
			mu.Lock()
			started = append(started, s.Number)
			mu.Unlock()
		}
	}
	startedNow := func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), started...)
	}

	sa, _, _ := lessonScreen(t, 120, 36, nil, start)
	sa.key(tcell.KeyF4)
	waitText(sa, "the menu", "Packets, acks and the ack bitfield")
	txt := sa.text()
	for _, w := range []string{" 9  Fragments", "You play on 192.168.1.20:7777", "Every packet says which"} {
		if !strings.Contains(txt, w) {
			t.Errorf("no %q in the menu:\n%s", w, txt)
		}
	}
	checkGolden(t, "client_lesson_menu", txt)
	sa.key(tcell.KeyEscape)
	sa.waitFor("the menu closed", func() bool { return !strings.Contains(screenText(sa), "Packets, acks") })

	sa.rune('c')
	waitText(sa, "the menu again", "Packets, acks and the ack bitfield")
	sa.key(tcell.KeyDown)
	sa.key(tcell.KeyEnter)
	waitQuit(t, sa, "the lesson")
	if got := startedNow(); len(got) != 1 || got[0] != 2 {
		t.Errorf("started %v, want lesson 2", got)
	}

	sa2, _, _ := lessonScreen(t, 80, 24, nil, start)
	sa2.key(tcell.KeyF4)
	waitText(sa2, "the menu", "Packets, acks")
	sa2.rune('7')
	waitQuit(t, sa2, "lesson 7")
	if got := startedNow(); len(got) != 2 || got[1] != 7 {
		t.Errorf("started %v, want lesson 7 second", got)
	}
}

// waitQuit waits for the screen to quit by itself (the test's cleanup then has nothing to
// stop).
func waitQuit(t *testing.T, sa *screenApp, what string) {
	t.Helper()
	quit := false
	sa.once.Do(func() {
		select {
		case err := <-sa.done:
			quit = true
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(pollLimit):
		}
	})
	if !quit {
		t.Fatalf("the screen did not quit for %s", what)
	}
}

// TestEveryLessonFitsASmallTerminal: at 80×24 and 100×30, every step of every built-in lesson
// shows on screen whole where it matters: the step up with its place ("(2 of 3)"), the start
// of its text, all of what to try, and each event it waits for with its count ("0 of 3"),
// even with a note and the script's counters to show. The map keeps rows of its own.
func TestEveryLessonFitsASmallTerminal(t *testing.T) {
	scripts, err := lesson.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {100, 30}} {
		for _, sc := range scripts {
			t.Run(fmt.Sprintf("%dx%d/lesson %d", size.w, size.h, sc.Number), func(t *testing.T) {
				sa, cs, _ := lessonScreen(t, size.w, size.h, sc, nil)
				sa.do(func() { cs.lessons.driver = nil }) // the test sets the progress itself
				for i, st := range sc.Steps {
					p := stepProgress(sc, i)
					p.Note = "KillEnemy #57 waited 84 ms for #55"
					sa.app.QueueUpdateDraw(func() { cs.LessonPanel().SetProgress(p) }) // drawn once it returns
					want := []string{fmt.Sprintf("▶ %s (%d of %d)", st.Title, i+1, len(sc.Steps))}
					if len(st.Text) > 0 {
						want = append(want, strings.Join(strings.Fields(st.Text[0])[:3], " "))
					}
					if len(st.Try) > 0 {
						want = append(want, "try: "+strings.Join(st.Try, " "))
					}
					for _, g := range st.Until {
						unit := lesson.Unit(g.Key)
						want = append(want, fmt.Sprintf("◻ %s: %s of %s", lesson.Label(g.Key), lesson.ValueText(0, unit), lesson.ValueText(g.N, unit)))
					}
					var panel string
					var mapRows int
					sa.waitFor(fmt.Sprintf("step %d drawn", i+1), func() bool {
						panel = panelText(sa, cs.LessonPanel())
						_, _, _, mapRows = cs.MapView().GetInnerRect()
						return strings.Contains(panel, want[0])
					})
					for _, w := range want[1:] {
						if !strings.Contains(panel, w) {
							t.Errorf("step %d: the panel lacks %q:\n%s", i+1, w, panel)
						}
					}
					if mapRows < 5 {
						t.Errorf("step %d: the map has %d rows", i+1, mapRows)
					}
				}
			})
		}
	}
}

// panelText is the text inside p's border, its rows joined and every run of spaces one
// space, so that a line wrapped anywhere is found whole. Call it on the event loop.
func panelText(sa *screenApp, p *LessonPanel) string {
	x, y, w, h := p.GetInnerRect()
	rows := screenRows(sa.screen)
	var b strings.Builder
	for r := y; r < y+h && r < len(rows); r++ {
		cells := []rune(rows[r])
		if x+w <= len(cells) {
			b.WriteString(string(cells[x:x+w]) + " ")
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
