package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/net/packet"
)

// AckData is one frame's worth of an endpoint's acknowledgement state, copied
// out by the host so that the view never reads live protocol state.
type AckData struct {
	History     []packet.PacketState // the last sent packets, oldest first, up to 32
	Seq, Ack    uint16               // our next sequence number; the newest one we received
	AckBits     uint32               // bit i: whether Ack-i was received (bit 0 is Ack itself)
	RTT         time.Duration        // smoothed round-trip time
	Jitter      time.Duration
	RTTSamples  []time.Duration // recent round-trip samples, oldest first
	LossPercent float64
	Resends     uint64 // messages sent again because their packet was lost
	Spurious    uint64 // of those, resends that turned out unneeded (an earlier copy arrived)
	Stale       uint64 // packets dropped as too old
	Duplicate   uint64 // packets dropped as already received (replays of a sealed connection included)
}

// ackHistoryCells is how many sent packets the view shows: as many as one
// header can acknowledge.
const ackHistoryCells = 32

// sparkLevels are the eight heights of a sparkline cell, lowest first.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// AckView draws the acknowledgement state of one endpoint as a few lines
// that fit in 40 columns:
//
//	sent  ██████x█████████████████████x█....
//	      █ acked  x lost  . in flight
//	seq   812   ack   790
//	bits 11111111 11111111 11111011 11111111
//	rtt   45.2ms ▃▄▄▅▃▂▃▄█▄▃
//	jitter 3.1ms   loss 2.5%
//	resend 4   stale 1   dup 0
//
// The row of cells is the picture a student needs: each sent packet is green
// once acknowledged, red once given up on, and yellow while still in flight,
// so a burst of loss or a stalled link shows at a glance. The bits are the
// header's AckBits with Ack itself on the right, exactly as they travel;
// below 40 columns their bytes are packed together so they still fit inside a
// border.
type AckView struct {
	*tview.Box
	data AckData
}

// NewAckView returns an empty view.
func NewAckView() *AckView {
	return &AckView{Box: tview.NewBox()}
}

// SetData replaces what the view draws. The slices are copied, so the caller
// may reuse its buffers for the next frame.
func (v *AckView) SetData(d AckData) *AckView {
	d.History = append([]packet.PacketState(nil), d.History...)
	d.RTTSamples = append([]time.Duration(nil), d.RTTSamples...)
	v.data = d
	return v
}

// Data returns what the view draws.
func (v *AckView) Data() AckData { return v.data }

// ackCell is the character and colour of one sent packet's cell.
func ackCell(s packet.State) (rune, tcell.Color) {
	switch s {
	case packet.Acked:
		return '█', tcell.ColorGreen
	case packet.Lost:
		return 'x', tcell.ColorRed
	case packet.InFlight:
		return '.', tcell.ColorYellow
	}
	return ' ', tcell.ColorDefault
}

// Draw draws the view into its inner rectangle; lines that do not fit are cut.
func (v *AckView) Draw(screen tcell.Screen) {
	drawFrame(screen, v.Box, v)
	x, y, width, height := v.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	d := v.data
	base := tcell.StyleDefault.Foreground(tview.Styles.PrimaryTextColor).Background(v.GetBackgroundColor())
	label := base.Foreground(tview.Styles.SecondaryTextColor)
	row := 0
	line := func(draw func(y int)) {
		if row < height {
			draw(y + row)
		}
		row++
	}

	line(func(y int) {
		col := x + printRunes(screen, x, y, width, "sent  ", label)
		hist := d.History
		if len(hist) > ackHistoryCells {
			hist = hist[len(hist)-ackHistoryCells:]
		}
		for _, p := range hist {
			if col >= x+width {
				break
			}
			r, c := ackCell(p.State)
			screen.SetContent(col, y, r, nil, base.Foreground(c))
			col++
		}
	})
	line(func(y int) {
		col := x + printRunes(screen, x, y, width, "      ", label)
		for _, s := range []packet.State{packet.Acked, packet.Lost, packet.InFlight} {
			r, c := ackCell(s)
			col += printRunes(screen, col, y, x+width-col, string(r), base.Foreground(c))
			col += printRunes(screen, col, y, x+width-col, " "+s.String()+"  ", base)
		}
	})
	line(func(y int) {
		printRunes(screen, x, y, width, fmt.Sprintf("seq   %-5d ack   %d", d.Seq, d.Ack), base)
		printRunes(screen, x, y, width, "seq", label)
		printRunes(screen, x+12, y, width-12, "ack", label)
	})
	line(func(y int) {
		// Bytes apart when there is room (40 cells), packed when not.
		b := fmt.Sprintf("%032b", d.AckBits)
		if width >= 40 {
			b = b[0:8] + " " + b[8:16] + " " + b[16:24] + " " + b[24:32]
		}
		printRunes(screen, x, y, width, "bits "+b, base)
		printRunes(screen, x, y, width, "bits", label)
	})
	line(func(y int) {
		text := "rtt   " + millis(d.RTT) + " "
		n := printRunes(screen, x, y, width, text, base)
		printRunes(screen, x, y, width, "rtt", label)
		printRunes(screen, x+n, y, width-n, sparkline(d.RTTSamples, width-n), base.Foreground(tview.Styles.TertiaryTextColor))
	})
	line(func(y int) {
		printRunes(screen, x, y, width, fmt.Sprintf("jitter %-8s loss %.1f%%", millis(d.Jitter), d.LossPercent), base)
		printRunes(screen, x, y, width, "jitter", label)
		printRunes(screen, x+16, y, width-16, "loss", label)
	})
	line(func(y int) {
		printRunes(screen, x, y, width, fmt.Sprintf("resend %d   stale %d   dup %d   in vain %d", d.Resends, d.Stale, d.Duplicate, d.Spurious), base)
	})
}

// millis formats a duration in milliseconds with one decimal, a precision that
// matches what a student can act on and keeps the layout steady.
func millis(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}

// sparkline draws the newest samples that fit in width cells, each scaled
// against the largest of them, so the shape shows how the round-trip time
// moves rather than its absolute size (the number beside it gives that).
func sparkline(samples []time.Duration, width int) string {
	if width <= 0 || len(samples) == 0 {
		return ""
	}
	if len(samples) > width {
		samples = samples[len(samples)-width:]
	}
	var peak time.Duration
	for _, s := range samples {
		peak = max(peak, s)
	}
	var b strings.Builder
	top := len(sparkLevels) - 1
	for _, s := range samples {
		level := 0
		if peak > 0 && s > 0 {
			level = int((int64(s)*int64(top) + int64(peak)/2) / int64(peak))
		}
		b.WriteRune(sparkLevels[min(max(level, 0), top)])
	}
	return b.String()
}

// printRunes writes text one rune per cell, cut at width cells, and returns
// how many cells it used. Every character the debug panel uses is one cell
// wide.
func printRunes(screen tcell.Screen, x, y, width int, text string, style tcell.Style) int {
	n := 0
	for _, r := range text {
		if n >= width {
			break
		}
		screen.SetContent(x+n, y, r, nil, style)
		n++
	}
	return n
}
