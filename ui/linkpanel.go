package ui

import (
	"math"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
)

// The link panel's sliders, top to bottom.
const (
	linkLoss = iota
	linkLatency
	linkJitter
	linkDup
	linkSliders
)

// linkLabelWidth is the label column of every slider: the longest label
// ("latency") plus two spaces, so the four bars start in the same column.
const linkLabelWidth = len("latency") + 2

// LinkPanel is the network lab's control panel: four sliders that set the
// simulated link's impairments while the game runs.
//
//	loss     [######-----------------]  15%
//	latency  [##---------------------]  100ms
//	jitter   [##---------------------]   20ms
//	dup      [-----------------------]   0%
//
// Loss drops datagrams (0-60 %), latency delays every one (0-1000 ms), jitter
// adds a random spread to that delay, which also reorders datagrams
// (0-200 ms), and dup delivers some twice (0-30 %). The ranges stop where the
// game is still playable, so a student can push the link hard without
// breaking the lesson; they are the bounds of a link the teacher's server may
// give the whole class too (game.MaxLinkLossPercent and the others).
//
// When the panel has focus, Up and Down (or k and j) pick a slider, which is
// drawn with its label reversed, and the picked slider takes the keys that
// change it ([ ] - + Left Right Home End, and { } or Shift with an arrow for
// the big steps a class talks in: 10% of loss, 50 ms of latency or jitter, 10%
// of duplication). The digits 0 to 4 apply a preset (LinkPresets): a clean
// link, 10% loss, 30% loss, 150 ms of round trip, a bad Wi-Fi. A click or drag
// on any bar picks that slider and sets it.
//
// The panel keeps the focus itself rather than handing it to a slider, so
// that the screen holding it sees one focusable widget (its Tab ring and its
// "who has the focus" checks compare against the panel); it passes keys and
// clicks on to the picked slider and tells that slider when to draw itself
// focused.
type LinkPanel struct {
	*tview.Box

	title   string
	sliders [linkSliders]*Slider
	current int // the slider that gets the keys, drawn focused while the panel has the focus

	// settings holds the fields the sliders do not set (burst loss,
	// reordering), so that Settings gives back what SetSettings was given.
	settings linksim.Settings
	changed  func(linksim.Settings)
	quiet    bool // SetSettings is moving the sliders: do not report it
}

// NewLinkPanel returns a panel with every slider at zero: a clean link.
func NewLinkPanel() *LinkPanel {
	p := &LinkPanel{Box: tview.NewBox()}
	ms := func(d time.Duration) int { return int(d / time.Millisecond) }
	p.sliders[linkLoss] = NewSlider("loss", 0, game.MaxLinkLossPercent, 1).SetUnit("%").SetBigStep(10)
	// Steps of 5 ms: a preset's 75 ms (150 ms of round trip) lies on them.
	p.sliders[linkLatency] = NewSlider("latency", 0, ms(game.MaxLinkLatency), 5).SetUnit("ms").SetBigStep(50)
	p.sliders[linkJitter] = NewSlider("jitter", 0, ms(game.MaxLinkJitter), 5).SetUnit("ms").SetBigStep(50)
	p.sliders[linkDup] = NewSlider("dup", 0, game.MaxLinkDupPercent, 1).SetUnit("%").SetBigStep(10)
	for _, s := range p.sliders {
		s.SetLabelWidth(linkLabelWidth)
		s.SetChangedFunc(func(int) { p.sliderChanged() })
	}
	return p
}

// SetTitleLine sets a line drawn above the sliders ("" for none). It is not
// the border's title, which Box.SetTitle sets.
func (p *LinkPanel) SetTitleLine(title string) *LinkPanel {
	p.title = title
	return p
}

// SetSettings moves the sliders to s without calling the changed function: it
// is how the host shows settings that came from elsewhere (the command line,
// another screen). Values outside a slider's range are clamped and snapped to
// its step; fields without a slider are kept and given back by Settings.
func (p *LinkPanel) SetSettings(s linksim.Settings) *LinkPanel {
	p.quiet = true
	defer func() { p.quiet = false }()
	p.settings = s
	p.sliders[linkLoss].SetValue(int(math.Round(s.LossPercent)))
	p.sliders[linkLatency].SetValue(int(s.Latency.Round(time.Millisecond).Milliseconds()))
	p.sliders[linkJitter].SetValue(int(s.Jitter.Round(time.Millisecond).Milliseconds()))
	p.sliders[linkDup].SetValue(int(math.Round(s.DupPercent)))
	return p
}

// Settings returns the link settings the sliders show.
func (p *LinkPanel) Settings() linksim.Settings {
	s := p.settings
	s.LossPercent = float64(p.sliders[linkLoss].Value())
	s.Latency = time.Duration(p.sliders[linkLatency].Value()) * time.Millisecond
	s.Jitter = time.Duration(p.sliders[linkJitter].Value()) * time.Millisecond
	s.DupPercent = float64(p.sliders[linkDup].Value())
	return s
}

// SetChangedFunc sets the function called with the new settings after every
// change made by key or mouse. It runs on the application's event loop, so
// it should only hand the settings on, never block.
func (p *LinkPanel) SetChangedFunc(changed func(linksim.Settings)) *LinkPanel {
	p.changed = changed
	return p
}

// LinkPreset is a link setting a key applies at once.
type LinkPreset struct {
	Name     string
	Settings linksim.Settings
}

// LinkPresets are the settings a class goes through, on the digits 0 to 4 of a focused panel
// and on F5 to F9 anywhere. Latency is one way and the conditioner delays both ways, so
// 75 ms is a round trip of 150 ms to a host with a clean link. The bad Wi-Fi loses a few
// datagrams at random and, now and then (5% of datagrams start one), a burst of 4 in a row;
// its jitter reorders, and a few datagrams arrive twice.
var LinkPresets = []LinkPreset{
	{"clean", linksim.Settings{}},
	{"10% loss", linksim.Settings{LossPercent: 10}},
	{"30% loss", linksim.Settings{LossPercent: 30}},
	{"150 ms RTT", linksim.Settings{Latency: 75 * time.Millisecond}},
	{"bad Wi-Fi", linksim.Settings{LossPercent: 2, BurstLossPercent: 5, BurstLength: 4,
		Latency: 20 * time.Millisecond, Jitter: 40 * time.Millisecond, DupPercent: 1}},
}

// ApplyPreset moves the sliders (and the fields without a slider) to preset i of LinkPresets
// and reports the change like a slider's. It reports false for no such preset.
func (p *LinkPanel) ApplyPreset(i int) bool {
	if i < 0 || i >= len(LinkPresets) {
		return false
	}
	p.SetSettings(LinkPresets[i].Settings)
	p.sliderChanged()
	return true
}

// Current returns which slider is picked, 0 (loss) to 3 (dup).
func (p *LinkPanel) Current() int { return p.current }

func (p *LinkPanel) sliderChanged() {
	if p.quiet {
		return
	}
	p.settings = p.Settings()
	if p.changed != nil {
		p.changed(p.settings)
	}
}

// Draw draws the title line, if any, and a slider per row below it.
func (p *LinkPanel) Draw(screen tcell.Screen) {
	drawFrame(screen, p.Box, p)
	x, y, width, height := p.GetInnerRect()
	if width <= 0 || height <= 0 {
		for _, s := range p.sliders {
			s.SetRect(0, 0, 0, 0) // nothing drawn, nothing to click
		}
		return
	}
	if p.title != "" {
		printRunes(screen, x, y, width, p.title, tcell.StyleDefault.
			Foreground(tview.Styles.SecondaryTextColor).Background(p.GetBackgroundColor()).Bold(true))
		y, height = y+1, height-1
	}
	// The sliders' number columns differ ("60%" and "1000ms"): each is padded to the widest,
	// which ends every bar and every number in the same column.
	widest := 0
	for _, s := range p.sliders {
		widest = max(widest, len(s.SetValueWidth(0).valueText()))
	}
	for _, s := range p.sliders {
		s.SetValueWidth(widest)
	}
	for i, s := range p.sliders {
		if i >= height {
			s.SetRect(0, 0, 0, 0)
			continue
		}
		// Slider draws its label reversed while it has the focus.
		if i == p.current && p.HasFocus() {
			s.Focus(nil)
		} else {
			s.Blur()
		}
		s.SetBackgroundColor(p.GetBackgroundColor())
		s.SetRect(x, y+i, width, 1)
		s.Draw(screen)
	}
}

// InputHandler moves between the sliders with Up, Down, k and j and passes
// every other key to the current slider.
func (p *LinkPanel) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return p.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		switch {
		case event.Key() == tcell.KeyUp || event.Key() == tcell.KeyRune && event.Rune() == 'k':
			p.current = max(p.current-1, 0)
		case event.Key() == tcell.KeyDown || event.Key() == tcell.KeyRune && event.Rune() == 'j':
			p.current = min(p.current+1, linkSliders-1)
		case event.Key() == tcell.KeyRune && event.Rune() >= '0' && event.Rune() <= '9':
			p.ApplyPreset(int(event.Rune() - '0'))
		default:
			if handler := p.sliders[p.current].InputHandler(); handler != nil {
				handler(event, setFocus)
			}
		}
	})
}

// MouseHandler sends a mouse event to the slider on the row it happened on.
// A press there picks that slider and focuses the panel; the slider itself
// sets the value and, while the button is held, captures the mouse so that
// the rest of the drag goes to it directly, wherever the pointer wanders.
func (p *LinkPanel) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return p.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
		x, y := event.Position()
		if !p.InRect(x, y) {
			return false, nil
		}
		// A slider focuses itself on a press; the focus belongs to the panel.
		focusPanel := func(tview.Primitive) { setFocus(p) }
		for i, s := range p.sliders {
			if !s.InRect(x, y) {
				continue
			}
			if action == tview.MouseLeftDown {
				p.current = i
			}
			return s.MouseHandler()(action, event, focusPanel)
		}
		if action == tview.MouseLeftDown {
			setFocus(p)
			return true, nil
		}
		return false, nil
	})
}

// linkControl is a LinkPanel bound to a host's link conditioner: a slider's change applies at
// once (or, refused, puts the sliders back), and a change made elsewhere shows on the sliders.
type linkControl struct {
	panel   *LinkPanel
	current linksim.Settings
	get     func() (linksim.Settings, bool)
	set     func(linksim.Settings) error
	tell    func(msg string)
	refused bool // the latest change was refused (and the sliders put back)
}

func newLinkControl(title string, get func() (linksim.Settings, bool), set func(linksim.Settings) error, tell func(string)) *linkControl {
	c := &linkControl{panel: NewLinkPanel(), get: get, set: set, tell: tell}
	c.panel.SetBorder(true).SetTitle(title)
	c.sync()
	c.panel.SetChangedFunc(func(ls linksim.Settings) {
		if err := c.set(ls); err != nil {
			c.refused = true
			c.tell("link: " + err.Error())
			if old, ok := c.get(); ok {
				c.panel.SetSettings(old)
			}
			return
		}
		c.current = ls
	})
	return c
}

// sync shows the conditioner's settings on the sliders if they changed; once per frame.
func (c *linkControl) sync() {
	if ls, ok := c.get(); ok && ls != c.current {
		c.current = ls
		c.panel.SetSettings(ls)
	}
}

// preset applies preset i to the link (its change goes where a slider's goes) and says so.
func (c *linkControl) preset(i int) {
	if i < 0 || i >= len(LinkPresets) {
		return
	}
	c.refused = false
	c.panel.ApplyPreset(i)
	if !c.refused {
		c.tell("link preset " + LinkPresets[i].Name + ": " + LinkText(c.current))
	}
}
