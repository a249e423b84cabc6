package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
)

// The debug panel's views, in the order of their tabs. View and SetView use
// these numbers; the keys 1 to 4 select them.
const (
	DebugGraph  = iota // the dependency graph of the latest guaranteed messages each way
	DebugAcks          // the acknowledgement state of the link
	DebugHashes        // hash mismatches and what was done about them
	DebugPauses        // stop-the-world re-sync pauses
	debugViews
)

// debugTabNames are the tab labels, numbered as their keys.
var debugTabNames = [debugViews]string{" 1 graph ", " 2 acks ", " 3 hashes ", " 4 pauses "}

// debugHint is drawn at the right of the tab bar when there is room: the
// keys a student needs that the panel does not handle itself.
const debugHint = "n: next  f: freeze  x: export DOT"

// rttKept is how many round-trip samples the panel keeps for AckView's
// sparkline, one per cell of a 40-column panel's sparkline row at most.
const rttKept = 32

// DebugData is what the debug panel shows in one frame. The host copies it
// out of its snapshot; the panel never reads live protocol or game state.
type DebugData struct {
	Peer    transport.PeerStats // the link shown in the graph and acks views
	HasPeer bool                // false: there is no link to show (not connected, no player picked)
	Title   string              // which link Peer is, e.g. "server link" or "player ann"
	Now     time.Time           // the time ages and running timers are measured against

	Mismatches []game.SyncRecord // oldest first
	Pauses     []game.PauseRecord
	// NoHashes, if set, is what the hashes view says instead of "every report matched" when
	// the player sends no hash reports at all (a bot playing on the server's own world).
	NoHashes string
	// Sync is the host's sync report and Lead its command lead time in force, for the hashes
	// view's line on the lead and the late events it let through (HasSync: there is one to
	// show).
	Sync    game.SyncReport
	Lead    Lead
	HasSync bool
	// RTTSamples, when not nil, are the round-trip samples the acks view draws, oldest first,
	// instead of the ones the panel collects from frame to frame: a replay knows every one.
	RTTSamples []time.Duration
}

// DebugPanel puts the four debug views behind one tab bar:
//
//	 1 graph │ 2 acks │ 3 hashes │ 4 pauses      n: next  f: freeze  x: export DOT
//	server link
//	sent · 3 deps pruned          │received
//	  #903 Chat    executed       │╭▶#811 SpawnEnemy not arrived
//	  #904 Command in flight      │╰─#812 KillEnemy  waits on #811
//	...
//
// Each view answers one question a student asks while the link misbehaves:
// what the latest messages wait on, and which dependencies never needed to
// travel (graph), which packets got
// through (acks), which units drifted out of sync and how they were repaired
// (hashes), and how long the game stood still to repair them (pauses). Only
// one is shown at a time, so each gets the whole panel.
//
// When the panel has focus, 1 to 4 pick a view and n or F3 moves to the next
// one, f freezes the graph, . steps it and the arrow keys scroll it; a click
// on a tab picks it.
// Everything else, such as exporting the graph with DOT, is left to the
// screen that holds the panel.
type DebugPanel struct {
	*tview.Box

	view     int
	hint     string // the keys at the right of the tab bar
	data     DebugData
	graph    *GraphView
	acks     *AckView
	hashes   *MismatchView
	pauses   *PauseView
	tabStart [debugViews + 1]int // screen column where each tab begins; the last entry is where the bar ends
	tabRow   int                 // screen row of the tab bar, -1 before it is drawn

	// The packet layer reports only its latest round-trip sample, so the
	// panel collects them for the sparkline: one entry per new sample,
	// oldest first, reset when the panel starts showing another link.
	rtts      []time.Duration
	rttCount  uint64 // the packet layer's sample count when the last one was taken
	rttSource string // the link the samples came from
}

// NewDebugPanel returns a panel showing the dependency graph view, with no
// link.
func NewDebugPanel() *DebugPanel {
	return &DebugPanel{
		Box:    tview.NewBox(),
		graph:  NewGraphView().SetNamer(msgName),
		acks:   NewAckView(),
		hashes: NewMismatchView(),
		pauses: NewPauseView(),
		tabRow: -1,
		hint:   debugHint,
	}
}

// SetStepKey makes key the one that steps the frozen graph, in the panel's keys, its notices
// and the graph's footer, for a screen whose '.' does something else (a replay's steps a
// datagram).
func (p *DebugPanel) SetStepKey(key rune) *DebugPanel {
	p.graph.SetStepKey(key)
	return p
}

// SetHint replaces the keys drawn at the right of the tab bar, for a screen whose keys differ
// (a replay's n seeks).
func (p *DebugPanel) SetHint(hint string) *DebugPanel {
	p.hint = hint
	return p
}

// AckDataFrom copies what AckView shows out of a link's snapshot. RTTSamples
// stays empty: the snapshot has only the latest sample (DebugPanel collects
// them across frames). With no debug views in the snapshot (Debug is nil),
// the packet history stays empty too.
func AckDataFrom(p transport.PeerStats) AckData {
	d := AckData{
		Seq:         p.Message.Packet.Seq,
		Ack:         p.Message.Packet.Ack,
		AckBits:     p.Message.Packet.AckBits,
		RTT:         p.RTT,
		Jitter:      p.Jitter,
		LossPercent: p.LossPercent,
		Resends:     p.GuaranteedResent,
		Spurious:    p.SpuriousResends,
		Stale:       p.Stale,
		// Copies of a sealed connection's datagrams (the link's duplication among them) are
		// refused as replays before the packet layer sees them: dup counts both.
		Duplicate: p.Duplicate + p.Replayed,
	}
	if p.Debug != nil {
		d.History = p.Debug.History
	}
	return d
}

// SetData replaces what the panel shows. Call it from the application's event
// loop (QueueUpdate), once per frame or a few times a second.
func (p *DebugPanel) SetData(d DebugData) *DebugPanel {
	p.data = d
	p.collectRTT(d)
	if d.HasPeer {
		p.graph.SetHistory(linkSource(d), d.Peer.Debug, d.Peer.Message.PrunedDeps)
		ack := AckDataFrom(d.Peer)
		ack.RTTSamples = p.rtts
		if d.RTTSamples != nil {
			ack.RTTSamples = d.RTTSamples
		}
		p.acks.SetData(ack)
	} else {
		p.graph.SetHistory("", nil, 0)
	}
	p.hashes.SetRecords(d.Mismatches, d.Now).SetEmptyText(d.NoHashes)
	if d.HasSync {
		p.hashes.SetLate(d.Lead, d.Sync)
	}
	p.pauses.SetPauses(d.Pauses, d.Now)
	return p
}

// linkSource names the link a frame's data is of: another name means another connection,
// whose round-trip samples and message history start afresh.
func linkSource(d DebugData) string {
	if !d.HasPeer {
		return ""
	}
	return d.Title + "|" + d.Peer.Addr.String() + "|" + d.Peer.PlayerID.String()
}

// Forget drops what the panel gathered across frames, the graph's merged history and the
// round-trip samples, as for a new link: a replay that goes back to its start would show
// messages it has not reached yet otherwise.
func (p *DebugPanel) Forget() {
	p.graph.SetHistory("", nil, 0)
	p.rtts, p.rttCount, p.rttSource = p.rtts[:0], 0, ""
}

// ToggleFreeze freezes the graph view at its latest step, or makes it live again, and returns
// what to tell the user.
func (p *DebugPanel) ToggleFreeze() string {
	p.graph.Freeze(!p.graph.Frozen())
	if p.graph.Frozen() {
		return p.frozenNotice()
	}
	return "graph live"
}

// frozenNotice is what to tell the user when the graph freezes.
func (p *DebugPanel) frozenNotice() string {
	return fmt.Sprintf("graph frozen: %c steps one message at a time, > to the next that waits, f goes live", p.graph.stepKey)
}

// Step moves the frozen graph view one step (freezing it first if it is live) and returns
// what to tell the user: what happened at that step.
func (p *DebugPanel) Step() string {
	if !p.graph.Frozen() {
		p.graph.Freeze(true)
		return p.frozenNotice()
	}
	if what := p.graph.Step(); what != "" {
		return "step: " + what
	}
	if held := p.graph.hist.held; held > 0 {
		// The frozen view took in all it keeps after its moment (graphAhead a direction).
		return fmt.Sprintf("the last step kept (%d newer messages not kept): f twice freezes again at the latest", held)
	}
	return "no newer step yet: the graph steps as messages flow"
}

// waitSearch is how many steps > takes at most looking for the next wait: the messages a
// frozen view takes in after its moment, both directions.
const waitSearch = 2 * graphAhead

// StepToWait moves the frozen graph view (freezing it first if it is live) to the next step at
// which a message starts to wait on a dependency, and returns what to tell the user.
func (p *DebugPanel) StepToWait() string {
	n, what, found := p.graph.StepToWait(waitSearch)
	switch {
	case found:
		return fmt.Sprintf("a message waits, %d steps on: %s", n, what)
	case n >= waitSearch:
		return fmt.Sprintf("no message started to wait in the next %d steps: > looks further", n)
	case n > 0:
		return fmt.Sprintf("no message started to wait in the %d steps kept: f twice freezes again at the latest", n)
	}
	return p.Step()
}

// collectRTT appends the link's latest round-trip sample, dropping the oldest
// past rttKept, when the packet layer took a new one since the last call.
func (p *DebugPanel) collectRTT(d DebugData) {
	source := linkSource(d)
	if !d.HasPeer || source != p.rttSource {
		p.rtts, p.rttCount, p.rttSource = p.rtts[:0], 0, source
	}
	if !d.HasPeer {
		return
	}
	pk := d.Peer.Message.Packet
	if pk.RTTSamples < p.rttCount {
		p.rtts = p.rtts[:0] // a new connection on the same address
	}
	if pk.RTTSamples > p.rttCount {
		if len(p.rtts) == rttKept {
			p.rtts = append(p.rtts[:0], p.rtts[1:]...)
		}
		p.rtts = append(p.rtts, pk.LatestRTT)
	}
	p.rttCount = pk.RTTSamples
}

// View returns the view shown, one of DebugGraph, DebugAcks, DebugHashes and
// DebugPauses.
func (p *DebugPanel) View() int { return p.view }

// SetView shows view i (DebugGraph to DebugPauses); other values are ignored.
func (p *DebugPanel) SetView(i int) *DebugPanel {
	if i >= 0 && i < debugViews {
		p.view = i
	}
	return p
}

// NextView shows the next view, from the last back to the first.
func (p *DebugPanel) NextView() { p.view = (p.view + 1) % debugViews }

// DOT returns the graph view's graph in Graphviz form, the link named in a comment; with no
// link, an empty graph.
func (p *DebugPanel) DOT() string { return p.graph.DOT(p.data.Title) }

// msgName is the game message type a payload's first byte names, "" if it names none (another
// use of the stack, or no payload). The message layer hands the byte up without knowing what
// it means; the game's registry of message types does.
func msgName(first int16) string {
	if first < 0 {
		return ""
	}
	if t := game.MsgType(first).String(); !strings.HasPrefix(t, "MsgType(") {
		return t
	}
	return ""
}

// Draw draws the tab bar on the first row and the current view below it.
func (p *DebugPanel) Draw(screen tcell.Screen) {
	drawFrame(screen, p.Box, p)
	x, y, width, height := p.GetInnerRect()
	p.tabRow = -1
	if width <= 0 || height <= 0 {
		return
	}
	p.drawTabs(screen, x, y, width)
	y, height = y+1, height-1
	if height <= 0 {
		return
	}

	if p.view == DebugGraph || p.view == DebugAcks {
		// These two show one link, so they say which.
		if p.data.Title != "" {
			printRunes(screen, x, y, width, p.data.Title, tcell.StyleDefault.
				Foreground(tview.Styles.SecondaryTextColor).Background(p.GetBackgroundColor()).Bold(true))
			y, height = y+1, height-1
		}
		if !p.data.HasPeer && height > 0 {
			printRunes(screen, x, y, width, "not connected", tcell.StyleDefault.
				Foreground(tview.Styles.PrimaryTextColor).Background(p.GetBackgroundColor()))
			return
		}
	}
	if height <= 0 {
		return
	}
	var view interface {
		tview.Primitive
		SetBackgroundColor(tcell.Color) *tview.Box
	}
	switch p.view {
	case DebugGraph:
		view = p.graph
	case DebugAcks:
		view = p.acks
	case DebugHashes:
		view = p.hashes
	default:
		view = p.pauses
	}
	view.SetBackgroundColor(p.GetBackgroundColor())
	view.SetRect(x, y, width, height)
	view.Draw(screen)
}

// drawTabs draws the tab bar, the current tab reversed, and remembers where
// each tab is for the mouse.
func (p *DebugPanel) drawTabs(screen tcell.Screen, x, y, width int) {
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(p.GetBackgroundColor())
	col := 0
	for i, name := range debugTabNames {
		if i > 0 {
			col += printRunes(screen, x+col, y, width-col, "│", base.Foreground(tview.Styles.BorderColor))
		}
		p.tabStart[i] = x + col
		style := base
		if i == p.view {
			style = style.Reverse(true)
		}
		col += printRunes(screen, x+col, y, width-col, name, style)
	}
	p.tabStart[debugViews] = x + col
	p.tabRow = y
	if hint := len(p.hint); col+2+hint <= width {
		printRunes(screen, x+width-hint, y, hint, p.hint, base.Foreground(ageColor))
	}
}

// tabAt returns the tab drawn at screen column col on the tab row, or -1.
func (p *DebugPanel) tabAt(col int) int {
	for i := range debugViews {
		if col >= p.tabStart[i] && col < p.tabStart[i+1] {
			return i
		}
	}
	return -1
}

// InputHandler switches views: 1 to 4 pick one, n and F3 go to the next. On the graph, Up and
// Down scroll it a message back or forth, Home to the first and End to the latest; f freezes it
// and . (SetStepKey) steps it, > to the next message that waits (the screens handle these
// before the panel sees them, and tell the user).
func (p *DebugPanel) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return p.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		switch event.Key() {
		case tcell.KeyUp, tcell.KeyDown, tcell.KeyHome, tcell.KeyEnd:
			if p.view == DebugGraph {
				p.graph.Scroll(map[tcell.Key]int{tcell.KeyUp: 1, tcell.KeyDown: -1, tcell.KeyHome: graphKept, tcell.KeyEnd: -graphKept}[event.Key()])
			}
		case tcell.KeyF3:
			p.NextView()
		case tcell.KeyRune:
			switch r := event.Rune(); {
			case r >= '1' && r < '1'+debugViews:
				p.SetView(int(r - '1'))
			case r == 'n':
				p.NextView()
			case r == 'f':
				p.ToggleFreeze()
			case r == p.graph.stepKey:
				p.Step()
			case r == '>':
				p.StepToWait()
			}
		}
	})
}

// MouseHandler focuses the panel on a click and, on the tab bar, picks the
// tab under the pointer.
func (p *DebugPanel) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return p.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
		x, y := event.Position()
		if action != tview.MouseLeftDown || !p.InRect(x, y) {
			return false, nil
		}
		setFocus(p)
		if y == p.tabRow {
			if i := p.tabAt(x); i >= 0 {
				p.view = i
			}
		}
		return true, nil
	})
}
