package ui

import (
	"fmt"
	"slices"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/game/lesson"
)

// LessonOptions are the client screen's lessons.
type LessonOptions struct {
	// Scripts are the lessons the menu (F4) offers.
	Scripts []*lesson.Script
	// Running is the lesson on screen (nil for none), and Host the game it reads and acts on.
	Running *lesson.Script
	Host    lesson.Host
	// Start is called with the lesson the player starts from the menu; the screen then quits,
	// and the caller starts the lesson's game. Nil: the menu only lists them.
	Start func(*lesson.Script)
	// Elsewhere is the server the player plays on, when the game on screen is not one this
	// client hosts: the menu says that a lesson leaves it.
	Elsewhere string
}

// lessonUI is the client screen's part of the lessons: the menu, and for a lesson on screen
// its panel and the driver that walks it.
type lessonUI struct {
	opts   LessonOptions
	menu   *LessonMenu
	panel  *LessonPanel   // nil: no lesson on screen
	driver *lesson.Driver // walks the lesson on screen, once a frame (Refresh)
	open   bool           // the menu is up
}

// SetLessons gives the screen its lessons: the menu, and the panel of the one running. Call
// it before the screen is drawn (RunClient does).
func (s *ClientScreen) SetLessons(o LessonOptions) {
	scripts := o.Scripts
	if o.Running != nil && !slices.Contains(scripts, o.Running) {
		// A teacher's own file: listed last, so that it can be started again.
		scripts = append(slices.Clip(scripts), o.Running)
	}
	l := &lessonUI{opts: o, menu: NewLessonMenu(scripts)}
	l.menu.elsewhere = o.Elsewhere
	if o.Running != nil {
		l.menu.running = o.Running
		l.menu.picked = slices.Index(scripts, o.Running)
		if o.Host != nil {
			l.driver = lesson.NewDriver(o.Running, o.Host)
			l.panel = NewLessonPanel()
			l.panel.SetScript(o.Running)
			l.panel.SetProgress(lesson.Progress{Number: o.Running.Number, Title: o.Running.Title})
		}
	}
	s.lessons = l
	s.layout()
	s.pages.AddPage("lessons", l.menu, true, false)
	s.overlays = append(s.overlays, overlay{page: l.menu, shown: func() bool { return l.open }})
}

// LessonPanel returns the panel of the lesson on screen, nil for none.
func (s *ClientScreen) LessonPanel() *LessonPanel {
	if s.lessons == nil {
		return nil
	}
	return s.lessons.panel
}

// lessonSideWidth is the side column's width with a lesson on screen: wider than without,
// for the lesson's text, and never more than half the screen.
func (s *ClientScreen) lessonSideWidth() int {
	return min(max(s.width*2/5, sideMaxWidth-14), 60, s.width/2)
}

// The lesson panel's place. The lesson's steps are what the student reads, so the panel takes
// the rows its tallest step needs. In the side column, above the sliders and the chat, when it
// has them there; otherwise across the whole width under the map, which keeps lessonMapRows
// (the map, or the debug panel in its place, and beside it the sliders and a line of chat), and
// the panel shows what fits (LessonPanel.Draw: the step up, what to try and its events first).
const (
	lessonChatRows = 4 // the chat under the sliders, with a lesson in the side column
	lessonMapRows  = 9
)

// lessonPlace says where the lesson panel goes at the screen's size: below the map (or in the
// side column), and how many rows it takes.
func (s *ClientScreen) lessonPlace(panel *LessonPanel) (below bool, rows int) {
	top := s.height - 2 // the orders and status lines
	if side := top - linkRows - lessonChatRows; panel.Need(s.lessonSideWidth()-2)+2 <= side {
		return false, panel.Need(s.lessonSideWidth()-2) + 2
	}
	return true, max(min(panel.Need(s.width-2)+2, top-lessonMapRows), 0)
}

// refreshLesson walks the lesson on screen at now and shows where it is.
func (s *ClientScreen) refreshLesson(now time.Time) {
	if l := s.lessons; l != nil && l.driver != nil {
		l.panel.SetProgress(l.driver.Tick(now))
	}
}

// showLessons opens or closes the menu.
func (s *ClientScreen) showLessons(on bool) {
	l := s.lessons
	l.open = on
	if on {
		s.pages.ShowPage("lessons")
	} else {
		s.pages.HidePage("lessons")
	}
}

// lessonKey handles F4 and c, which open the menu, and every key while it is up. It returns
// the event to pass on and whether it decided.
func (s *ClientScreen) lessonKey(ev *tcell.EventKey, quit func()) (*tcell.EventKey, bool) {
	l := s.lessons
	if l == nil || s.helpOpen {
		return ev, false
	}
	if !l.open {
		if ev.Key() == tcell.KeyF4 || (ev.Key() == tcell.KeyRune && ev.Rune() == 'c') {
			if len(l.menu.scripts) == 0 {
				s.tell("no lessons in this client")
				return nil, true
			}
			s.showLessons(true)
			return nil, true
		}
		return ev, false
	}
	switch ev.Key() {
	case tcell.KeyCtrlC:
		quit()
	case tcell.KeyEscape, tcell.KeyF4:
		s.showLessons(false)
	case tcell.KeyUp:
		l.menu.Move(-1)
	case tcell.KeyDown:
		l.menu.Move(1)
	case tcell.KeyEnter:
		s.startLesson(l.menu.Picked(), quit)
	case tcell.KeyRune:
		switch r := ev.Rune(); {
		case r == 'q' || r == 'c':
			s.showLessons(false)
		case r == 'k':
			l.menu.Move(-1)
		case r == 'j':
			l.menu.Move(1)
		case r >= '1' && r <= '9':
			if sc, ok := l.menu.Number(int(r - '0')); ok {
				s.startLesson(sc, quit)
			}
		}
	}
	return nil, true
}

// startLesson hands sc to the caller and quits the screen: the lesson runs a game of its own.
func (s *ClientScreen) startLesson(sc *lesson.Script, quit func()) {
	l := s.lessons
	if sc == nil {
		return
	}
	if l.opts.Start == nil {
		s.tell(fmt.Sprintf("lesson %d runs its own game: go run ./cmd/client --lesson %d", sc.Number, sc.Number))
		s.showLessons(false)
		return
	}
	l.opts.Start(sc)
	quit()
}
