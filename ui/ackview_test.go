package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/net/packet"
)

// drawText draws p alone on a fresh width×height simulated screen and returns
// the screen's characters, one line per row, trailing spaces trimmed. No
// application and no goroutine are involved: the test owns the screen.
func drawText(t *testing.T, p tview.Primitive, width, height int) (string, tcell.SimulationScreen) {
	t.Helper()
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(screen.Fini)
	screen.SetSize(width, height)
	p.SetRect(0, 0, width, height)
	p.Draw(screen)
	screen.Show()
	cells, w, h := screen.GetContents()
	var b strings.Builder
	for y := range h {
		var line strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				line.WriteByte(' ')
			} else {
				line.WriteString(string(c.Runes))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String(), screen
}

// sampleAckData is a link with a short burst of loss and four packets still
// in flight.
func sampleAckData() AckData {
	var hist []packet.PacketState
	for i := range 32 {
		s := packet.Acked
		switch {
		case i == 6 || i == 20 || i == 21:
			s = packet.Lost
		case i >= 28:
			s = packet.InFlight
		}
		hist = append(hist, packet.PacketState{Seq: uint16(780 + i), State: s})
	}
	return AckData{
		History:     hist,
		Seq:         812,
		Ack:         790,
		AckBits:     0xFFFF_FBFF,
		RTT:         45200 * time.Microsecond,
		Jitter:      3100 * time.Microsecond,
		RTTSamples:  []time.Duration{40, 42, 44, 50, 41, 38, 43, 45, 80, 46, 41},
		LossPercent: 2.5,
		Resends:     4,
		Spurious:    1,
		Stale:       1,
		Duplicate:   0,
	}
}

func TestAckViewText(t *testing.T) {
	tests := []struct {
		name  string
		data  AckData
		width int
		want  []string // lines, trailing spaces trimmed
	}{
		{
			name:  "sample",
			data:  sampleAckData(),
			width: 40,
			want: []string{
				"sent  ██████x█████████████xx██████....",
				"      █ acked  x lost  . in flight",
				"seq   812   ack   790",
				"bits 11111111 11111111 11111011 11111111",
				"rtt   45.2ms ▅▅▅▅▅▄▅▅█▅▅",
				"jitter 3.1ms    loss 2.5%",
				"resend 4   stale 1   dup 0   in vain 1",
			},
		},
		{
			name:  "empty",
			data:  AckData{},
			width: 40,
			want: []string{
				"sent",
				"      █ acked  x lost  . in flight",
				"seq   0     ack   0",
				"bits 00000000 00000000 00000000 00000000",
				"rtt   0.0ms",
				"jitter 0.0ms    loss 0.0%",
				"resend 0   stale 0   dup 0   in vain 0",
			},
		},
		{
			// Only the newest 32 packets are shown, and the sparkline keeps
			// the newest samples that fit.
			name: "long history, narrow",
			data: AckData{
				History: append(
					[]packet.PacketState{{Seq: 1, State: packet.Lost}, {Seq: 2, State: packet.Lost}},
					sampleAckData().History...),
				RTT:        time.Millisecond,
				RTTSamples: []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 0, 8},
				Resends:    1234567,
			},
			width: 16,
			want: []string{
				"sent  ██████x███",
				"      █ acked  x",
				"seq   0     ack",
				"bits 00000000000",
				"rtt   1.0ms ▇█▁█",
				"jitter 0.0ms",
				"resend 1234567",
			},
		},
		{
			name:  "ramp",
			data:  AckData{RTTSamples: []time.Duration{0, 1, 2, 3, 4, 5, 6, 7}},
			width: 40,
			want: []string{
				"sent",
				"      █ acked  x lost  . in flight",
				"seq   0     ack   0",
				"bits 00000000 00000000 00000000 00000000",
				"rtt   0.0ms ▁▂▃▄▅▆▇█",
				"jitter 0.0ms    loss 0.0%",
				"resend 0   stale 0   dup 0   in vain 0",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewAckView().SetData(tt.data)
			got, _ := drawText(t, v, tt.width, len(tt.want))
			want := strings.Join(tt.want, "\n") + "\n"
			if got != want {
				t.Errorf("drew\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestAckViewColours(t *testing.T) {
	v := NewAckView().SetData(sampleAckData())
	_, screen := drawText(t, v, 40, 7)
	for _, tc := range []struct {
		x    int
		want tcell.Color
	}{
		{6, tcell.ColorGreen},   // first packet, acked
		{12, tcell.ColorRed},    // packet 6, lost
		{37, tcell.ColorYellow}, // packet 31, in flight
	} {
		_, _, style, _ := screen.GetContent(tc.x, 0)
		if fg, _, _ := style.Decompose(); fg != tc.want {
			t.Errorf("cell (%d, 0) foreground %v, want %v", tc.x, fg, tc.want)
		}
	}
}

func TestAckViewCopiesData(t *testing.T) {
	d := sampleAckData()
	v := NewAckView().SetData(d)
	d.History[0].State = packet.Lost
	d.RTTSamples[0] = 999
	if got := v.Data(); got.History[0].State != packet.Acked || got.RTTSamples[0] != 40 {
		t.Error("SetData kept the caller's slices")
	}
}

func TestAckViewGolden(t *testing.T) {
	// A bordered panel 40 columns wide, as the debug panel has it.
	v := NewAckView().SetData(sampleAckData())
	v.SetBorder(true).SetTitle(" acks ")
	got, _ := drawText(t, v, 40, 9)
	checkGolden(t, "ackview_40", got)
}

// TestAckViewInApp sets new data from outside the event loop, as the host
// does each frame, and reads the screen back on the loop.
func TestAckViewInApp(t *testing.T) {
	v := NewAckView()
	sa := runApp(t, v, 40, 7)
	sa.do(func() { v.SetData(sampleAckData()) })
	sa.app.Draw()
	sa.waitFor("the new data to be drawn", func() bool {
		cells, w, _ := sa.screen.GetContents()
		c := cells[3*w+6]
		return len(c.Runes) > 0 && c.Runes[0] == '1'
	})
	checkGolden(t, "ackview_app", sa.text())
}
