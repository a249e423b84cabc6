package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
)

// The connection states a StatusLine knows how to colour.
const (
	StateRunning      = "RUNNING"
	StateWaitingSync  = "WAITING FOR SYNC ACK"
	StateResyncing    = "RE-SYNCING"
	StateDisconnected = "DISCONNECTED"
	// StateSpectating: the client watches as a spectator; Status.Reason says why.
	StateSpectating = "SPECTATING"
)

// Lead is the command lead time as the screens show it: how far ahead orders are scheduled,
// and whether the teacher fixed it (the server's --lead, or t on its screen) rather than the
// server's policy, which sets it from the players' links; and the change on its way, which
// every host puts in force at the same frame.
type Lead struct {
	Time  time.Duration
	Fixed bool
	// Next is the lead from frame NextFrame on (0: no change on its way), fixed by the teacher
	// (NextFixed) or not.
	Next      time.Duration
	NextFrame uint32
	NextFixed bool
}

// WithNext is l with the change next, a snapshot's LeadNext (Frame 0: none), in frames of
// frame.
func (l Lead) WithNext(next game.LeadTime, frame time.Duration) Lead {
	if next.Frame != 0 {
		l.Next, l.NextFrame, l.NextFixed = time.Duration(next.LeadFrames)*frame, next.Frame, next.Fixed
	}
	return l
}

// String is "lead 300 ms", and "lead 300 ms (teacher)" when the teacher fixed it; with a change
// on its way, "lead 100 ms → 300 ms (teacher) at frame 1234".
func (l Lead) String() string {
	ms := func(d time.Duration, fixed bool) string {
		if fixed {
			return fmt.Sprintf("%d ms (teacher)", d.Milliseconds())
		}
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	s := "lead " + ms(l.Time, l.Fixed)
	if l.NextFrame != 0 {
		s += fmt.Sprintf(" → %s at frame %d", ms(l.Next, l.NextFixed), l.NextFrame)
	}
	return s
}

// Status is what the status line shows: the simulation frame, the link's
// numbers and the connection state.
type Status struct {
	Frame          uint32
	Lead           Lead
	RTT            time.Duration // round-trip time
	LossPercent    float64       // packets lost, 0..100
	BytesInPerSec  float64
	BytesOutPerSec float64
	Link           string        // the simulated link's settings, as LinkText gives them; "" for none
	State          string        // one of the State constants
	Since          time.Duration // for StateResyncing: how long the pause has lasted
	Reason         string        // for StateDisconnected and StateSpectating: why
}

// StatusLine is one line of the numbers a student watches while playing with
// the link, for example
//
//	frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  in 1.2 kB/s  out 0.8 kB/s  loss 30% lat 100ms jit 20ms dup 0%  RUNNING
//
// The lead says "(teacher)" after it when the teacher fixed it. The first loss is measured, the packets that really went missing; the
// second is the network lab's setting (see LinkText), so a student can compare
// what was asked of the link with what the protocol saw.
//
// The state at the end is coloured so a change catches the eye: RUNNING
// green, WAITING FOR SYNC ACK yellow, RE-SYNCING magenta with a running timer,
// DISCONNECTED red with its reason, SPECTATING aqua with why (a spectator's
// game runs like a player's, and the line says whose screen this is).
//
// On a narrow terminal the least important fields go first: the link
// settings (the sliders show them too), then the byte rates, then the loss,
// then lead, rtt and frame; the state is always kept, because it is what
// tells a player whether the game is running at all.
type StatusLine struct {
	*tview.Box
	status Status
}

// NewStatusLine returns a status line showing a zero Status.
func NewStatusLine() *StatusLine {
	return &StatusLine{Box: tview.NewBox()}
}

// SetStatus sets what is shown.
func (s *StatusLine) SetStatus(st Status) *StatusLine {
	s.status = st
	return s
}

// Status returns what is shown.
func (s *StatusLine) Status() Status { return s.status }

// statusFields are the fields before the state, in the order drawn. An
// empty field (Link when unset) is left out when the line is put together.
func statusFields(st Status) []string {
	return []string{
		fmt.Sprintf("frame %d", st.Frame),
		st.Lead.String(),
		"rtt " + rttText(st.RTT),
		fmt.Sprintf("loss %.1f%%", st.LossPercent),
		"in " + byteRate(st.BytesInPerSec),
		"out " + byteRate(st.BytesOutPerSec),
		st.Link,
	}
}

// statusLevels are the sets of statusFields tried, widest first: the byte
// rates go first (as a pair, since one without the other says little), then
// the link settings (a slider's change should show here as long as it can),
// the loss, the lead, the round-trip time and the frame.
var statusLevels = [][]int{
	{0, 1, 2, 3, 4, 5, 6},
	{0, 1, 2, 3, 6},
	{0, 1, 2, 3},
	{0, 1, 2},
	{0, 2},
	{0},
	{},
}

// LinkText describes simulated link settings for the status line, as
// "loss 30% lat 100ms jit 20ms dup 0%", with burst loss and reordering added
// when they are set, or "link clean" when the link is perfect.
func LinkText(s linksim.Settings) string {
	var parts []string
	if s.LossPercent != 0 {
		parts = append(parts, "loss "+percent(s.LossPercent)+"%")
	}
	if s.BurstLossPercent != 0 {
		parts = append(parts, "burst "+percent(s.BurstLossPercent)+"%")
	}
	if s.Latency != 0 {
		parts = append(parts, fmt.Sprintf("lat %dms", s.Latency.Milliseconds()))
	}
	if s.Jitter != 0 {
		parts = append(parts, fmt.Sprintf("jit %dms", s.Jitter.Milliseconds()))
	}
	if s.DupPercent != 0 {
		parts = append(parts, "dup "+percent(s.DupPercent)+"%")
	}
	if s.ReorderPercent != 0 {
		parts = append(parts, "reorder "+percent(s.ReorderPercent)+"%")
	}
	if len(parts) == 0 {
		return "link clean"
	}
	// "link:" sets the settings apart from the measured loss next to them.
	return "link: " + strings.Join(parts, " ")
}

// percent formats a percentage with no more digits than it has: 30, 2.5.
func percent(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// byteRate formats bytes per second in kB/s (MB/s from a million up).
func byteRate(perSec float64) string {
	if perSec >= 1e6 {
		return fmt.Sprintf("%.1f MB/s", perSec/1e6)
	}
	return fmt.Sprintf("%.1f kB/s", perSec/1e3)
}

// stateText is the state as shown, with its timer or reason.
func stateText(st Status) string {
	switch st.State {
	case StateResyncing:
		return fmt.Sprintf("%s %.1f s", st.State, st.Since.Seconds())
	case StateDisconnected, StateSpectating:
		if st.Reason != "" {
			return st.State + ": " + st.Reason
		}
	}
	return st.State
}

// stateColor is the colour of the state.
func stateColor(state string) tcell.Color {
	switch state {
	case StateRunning:
		return tcell.ColorGreen
	case StateWaitingSync:
		return tcell.ColorYellow
	case StateResyncing:
		return tcell.ColorFuchsia
	case StateDisconnected:
		return tcell.ColorRed
	case StateSpectating:
		return tcell.ColorAqua
	}
	return tview.Styles.PrimaryTextColor
}

// statusText returns the fields part and the state part of the line for a
// given width, leaving out fields (see statusLevels) until both fit. If even
// the state alone does not fit, it is cut.
func statusText(st Status, width int) (fields, state string) {
	state = stateText(st)
	all := statusFields(st)
	for _, level := range statusLevels {
		var parts []string
		for _, i := range level {
			if all[i] != "" {
				parts = append(parts, all[i])
			}
		}
		fields = strings.Join(parts, "  ")
		if fields != "" {
			fields += "  "
		}
		if utf8.RuneCountInString(fields)+utf8.RuneCountInString(state) <= width {
			return fields, state
		}
	}
	if r := []rune(state); len(r) > width {
		state = string(r[:max(width, 0)])
	}
	return "", state
}

// Draw draws the line on the first row of the inner rectangle.
func (s *StatusLine) Draw(screen tcell.Screen) {
	drawFrame(screen, s.Box, s)
	x, y, width, height := s.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	fields, state := statusText(s.status, width)
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(s.GetBackgroundColor())
	x = statusPrint(screen, x, y, fields, base)
	statusPrint(screen, x, y, state, base.Foreground(stateColor(s.status.State)).Bold(true))
}

// statusPrint writes text one rune per cell and returns the column after it.
func statusPrint(screen tcell.Screen, x, y int, text string, style tcell.Style) int {
	for _, r := range text {
		screen.SetContent(x, y, r, nil, style)
		x++
	}
	return x
}

// rttText is a round-trip time in milliseconds, with a decimal below 10 ms (loopback and a LAN
// are well under one millisecond, and "0 ms" would say nothing).
func rttText(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}
