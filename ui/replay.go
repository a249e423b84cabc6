package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/replay"
)

// The replay screen: a capture (--record) played back, for a teacher who walks a class
// through a re-sync one datagram at a time.
//
//	┌ debug panel of the picked connection ─────────┐┌ events ─────────────────────────┐
//	│ 1 graph │ 2 acks │ 3 hashes │ 4 pauses        ││ 2.181 in  UnitUpdate: real-time │
//	│ ...                                           ││ 3.512 in  Pause: stop the world │
//	└───────────────────────────────────────────────┘└─────────────────────────────────┘
//	┌ replay game.pcapng ────────────────────────────────────────────────────────────────┐
//	│ datagram 222 of 293 · 3.512 s of 6.120 s · 1× · paused · server link: c1 127.0.0.1:7777│
//	│ in  ← 127.0.0.1:7777  Data 31 B  received: accepted                                  │
//	│ seq 97 ack 96 bits 0111… · sync #24 Pause                                            │
//	│ space play/pause  . step  +/- speed  n next re-sync  r restart  c connection  f , graph │
//	└────────────────────────────────────────────────────────────────────────────────────┘
//
// The debug panel is the live game's own, fed the snapshots the replay rebuilds
// (game/replay), so a class sees the panel it saw while playing. The screen takes its time
// only from Refresh: the binary's ticker gives it the wall clock, a test a clock of its own.

// ReplayKeys are the replay screen's keys, for its help line and the README.
var ReplayKeys = []KeyHelp{
	{"space", "play or pause"},
	{".", "step one datagram (pauses)"},
	{"+ -", "speed: 0.25× to 16×"},
	{"n", "seek to the next re-sync (Pause or UnitUpdate)"},
	{"r", "restart from the first datagram"},
	{"c", "next connection"},
	{"1-4", "debug panel view; ↑ ↓ scroll the graph"},
	{"f ,", "freeze the graph; step it one message at a time"},
	{"q", "quit"},
}

// replayHint is the keys in one line, under the timeline.
const replayHint = "space play/pause  . step  +/- speed  n next re-sync  r restart  c connection  1-4 view  f , graph  q quit"

// replaySideWidth is the events pane's width beside the panel on a wide terminal.
const replaySideWidth = 44

// ReplayOptions configure the replay screen.
type ReplayOptions struct {
	Name  string        // the capture's name, in the title
	Model *replay.Model // the capture, read (replay.New), before its first datagram
	// Note, if set, is said under the timeline from the start: what the capture cannot show
	// (no key file).
	Note   string
	Paused bool         // start paused (default: playing at 1×)
	Screen tcell.Screen // nil: the terminal
	FPS    int
}

// RunReplay shows a capture until the user quits or ctx is done.
func RunReplay(ctx context.Context, opts ReplayOptions) error {
	if opts.Model == nil || opts.Model.Len() == 0 {
		return errors.New("ui: the capture holds no datagram")
	}
	return runScreen(ctx, opts.Screen, opts.FPS, func(app *tview.Application) screenModel {
		s := NewReplayScreen(opts.Name, opts.Model, opts.Note)
		if !opts.Paused {
			s.player.Play()
		}
		return s
	})
}

// ReplayScreen is the debug panel of a capture's connection, the events of the capture and
// the timeline, played by a replay.Player.
type ReplayScreen struct {
	name   string
	player *replay.Player
	conn   int // the connection the panel shows
	note   string
	msg    string    // what the latest key did, for the timeline's last line
	last   time.Time // the time of the latest Refresh
	pos    int       // the player's position at the latest update

	panel    *DebugPanel
	events   *replayEvents
	timeline *replayTimeline
	root     *tview.Flex
	top      *tview.Flex
	wide     bool
}

// NewReplayScreen returns a screen before the first datagram of m, paused.
func NewReplayScreen(name string, m *replay.Model, note string) *ReplayScreen {
	s := &ReplayScreen{name: name, player: replay.NewPlayer(m), note: note, wide: true}
	// '.' steps a datagram here, so the frozen graph steps with ','.
	s.panel = NewDebugPanel().SetHint("F3: view  f: freeze  ,: step").SetStepKey(',')
	s.panel.SetBorder(true).SetTitle(" debug panel ")
	s.events = &replayEvents{Box: tview.NewBox()}
	s.events.SetBorder(true).SetTitle(" events ")
	s.timeline = &replayTimeline{Box: tview.NewBox(), s: s}
	s.timeline.SetBorder(true).SetTitle(" replay " + name + " ")
	s.top = tview.NewFlex()
	s.root = tview.NewFlex().SetDirection(tview.FlexRow).AddItem(s.top, 0, 1, false).AddItem(s.timeline, 6, 0, false)
	s.layout()
	s.update()
	return s
}

// Root is the screen's primitive.
func (s *ReplayScreen) Root() tview.Primitive { return s.root }

// Player is the screen's player.
func (s *ReplayScreen) Player() *replay.Player { return s.player }

// Panel is the debug panel.
func (s *ReplayScreen) Panel() *DebugPanel { return s.panel }

// Resize lays the screen out for a terminal of width×height: the events beside the panel on a
// wide terminal, under it on a narrow one.
func (s *ReplayScreen) Resize(width, height int) {
	if wide := width >= 100; wide != s.wide {
		s.wide = wide
		s.layout()
	}
}

func (s *ReplayScreen) layout() {
	s.top.Clear()
	if s.wide {
		s.top.SetDirection(tview.FlexColumn).AddItem(s.panel, 0, 1, true).AddItem(s.events, replaySideWidth, 0, false)
	} else {
		s.top.SetDirection(tview.FlexRow).AddItem(s.panel, 0, 1, true).AddItem(s.events, 7, 0, false)
	}
}

// Refresh plays the time since the last Refresh (none at the first) and shows the state.
func (s *ReplayScreen) Refresh(now time.Time) {
	if !s.last.IsZero() {
		s.player.Advance(now.Sub(s.last))
	}
	s.last = now
	s.update()
}

// update gives the panel and the panes the replay's state.
func (s *ReplayScreen) update() {
	m := s.player.Model
	if m.Pos() < s.pos {
		s.panel.Forget() // back to the start: what the graph gathered lies ahead now
	}
	s.pos = m.Pos()
	conns := m.Conns()
	if s.conn >= len(conns) {
		s.conn = 0
	}
	d := DebugData{Now: s.player.Cursor(), Mismatches: m.Mismatches(), Pauses: m.Pauses(),
		NoHashes: "no re-sync in the capture up to here"}
	if len(conns) > 0 {
		d.Peer, d.HasPeer = m.PeerStats(s.conn), true
		d.Title = s.connTitle(conns[s.conn])
		d.RTTSamples = m.RTTSamples(s.conn)
	}
	s.panel.SetData(d)
	s.events.events = m.Events()
	s.events.start = m.Start()
}

// connTitle names a connection: "link 1 of 2: c1 at 127.0.0.1:7777".
func (s *ReplayScreen) connTitle(c replay.Conn) string {
	t := fmt.Sprintf("link %d of %d: ", s.conn+1, len(s.player.Model.Conns()))
	if c.Name != "" {
		t += c.Name + " at "
	}
	t += c.Peer.String()
	if c.Closed != "" {
		t += " (" + c.Closed + ")"
	}
	return t
}

// HandleKey plays, steps and seeks; the keys of the debug panel's views go on to it.
func (s *ReplayScreen) HandleKey(ev *tcell.EventKey, quit func()) *tcell.EventKey {
	p := s.player
	switch ev.Key() {
	case tcell.KeyEscape, tcell.KeyCtrlC:
		quit()
		return nil
	case tcell.KeyTab:
		s.nextConn()
		return nil
	case tcell.KeyRune:
	default:
		s.panelKey(ev) // the arrows, F3
		return nil
	}
	switch r := ev.Rune(); {
	case r == 'q':
		quit()
		return nil
	case r == ' ':
		p.Toggle()
		s.msg = ""
	case r == '.':
		s.msg = failed(p.Step(), "the end of the capture: r restarts")
	case r == '+' || r == '=':
		s.msg = failed(p.Faster(), "16× is the fastest")
	case r == '-':
		s.msg = failed(p.Slower(), "0.25× is the slowest")
	case r == 'n':
		if p.SeekResync() {
			s.msg = "a re-sync starts here: . steps through it"
		} else {
			s.msg = "no re-sync after this point"
		}
	case r == 'r':
		p.Restart()
		s.msg = "restarted: space plays, . steps"
	case r == 'c':
		s.nextConn()
	case r == 'f':
		s.msg = s.panel.ToggleFreeze()
	case r == ',':
		s.msg = s.panel.Step()
	case r >= '1' && r <= '4':
		s.panelKey(ev) // the views
	default:
		return nil
	}
	s.update()
	return nil
}

// failed is what to tell the user after an action: why when it did nothing, else nothing.
func failed(ok bool, why string) string {
	if ok {
		return ""
	}
	return why
}

// panelKey hands a key to the debug panel, whatever has the focus: every key of the screen is
// the replay's or the panel's.
func (s *ReplayScreen) panelKey(ev *tcell.EventKey) {
	s.panel.InputHandler()(ev, func(tview.Primitive) {})
}

func (s *ReplayScreen) nextConn() {
	if n := len(s.player.Model.Conns()); n > 1 {
		s.conn = (s.conn + 1) % n
		s.msg = s.connTitle(s.player.Model.Conns()[s.conn])
	}
	s.update()
}

// replayTimeline draws the timeline: the player's position, the current datagram and the
// keys (or what the latest key did).
type replayTimeline struct {
	*tview.Box
	s *ReplayScreen
}

func (t *replayTimeline) Draw(screen tcell.Screen) {
	drawFrame(screen, t.Box, t)
	x, y, width, height := t.GetInnerRect()
	s := t.s
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(t.GetBackgroundColor())
	type line struct {
		text  string
		style tcell.Style
	}
	lines := []line{{s.player.Status(), base.Bold(true)}}
	if d, ok := s.player.Model.Current(); ok {
		style := base
		if d.Fate != 0 { // dropped, duplicated or lost to a full queue
			style = base.Foreground(tcell.ColorRed)
		}
		lines = append(lines, line{fmt.Sprintf("#%d %s", d.Index, d.Headline()), style}, line{d.Detail(), base})
	} else {
		lines = append(lines, line{"before the first datagram", base}, line{"", base})
	}
	last := line{replayHint, base.Foreground(ageColor)}
	switch {
	case s.msg != "":
		last = line{s.msg, base.Foreground(tcell.ColorYellow)}
	case s.note != "":
		last = line{s.note, base.Foreground(tcell.ColorYellow)}
	}
	lines = append(lines, last)
	for i, l := range lines[:min(len(lines), max(height, 0))] {
		printRunes(screen, x, y+i, width, l.text, l.style)
	}
}

// replayEvents lists the latest events of the capture, newest at the bottom: re-sync
// messages in yellow (the Pause in red), chat lines, connection packets.
type replayEvents struct {
	*tview.Box
	events []replay.Event
	start  time.Time
}

func (v *replayEvents) Draw(screen tcell.Screen) {
	drawFrame(screen, v.Box, v)
	x, y, width, height := v.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(v.GetBackgroundColor())
	if len(v.events) == 0 {
		printRunes(screen, x, y, width, "nothing yet", base.Foreground(ageColor))
		return
	}
	shown := v.events[max(len(v.events)-height, 0):]
	for i, e := range shown {
		dir := "in "
		if e.Out {
			dir = "out"
		}
		style := base
		switch {
		case e.Type == game.MsgPause:
			style = base.Foreground(tcell.ColorRed)
		case e.Kind == replay.EventResync:
			style = base.Foreground(tcell.ColorYellow)
		case e.Kind == replay.EventConnection:
			style = base.Foreground(ageColor)
		}
		printRunes(screen, x, y+i, width, fmt.Sprintf("%7.3f %s %s", e.At.Sub(v.start).Seconds(), dir, e.Text), style)
	}
}
