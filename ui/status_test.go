package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
)

// statusSample is a status with every field set, in the given state.
func statusSample(state string) Status {
	return Status{
		Frame:          1234,
		Lead:           Lead{Time: 200 * time.Millisecond},
		RTT:            48 * time.Millisecond,
		LossPercent:    3.2,
		BytesInPerSec:  1200,
		BytesOutPerSec: 800,
		Link:           "link: loss 30% lat 100ms jit 20ms",
		State:          state,
		Since:          800 * time.Millisecond,
		Reason:         "no packets from the server for 10 s",
	}
}

var statusStates = []struct {
	name, state string
	color       tcell.Color
}{
	{"running", StateRunning, tcell.ColorGreen},
	{"waiting", StateWaitingSync, tcell.ColorYellow},
	{"resyncing", StateResyncing, tcell.ColorFuchsia},
	{"disconnected", StateDisconnected, tcell.ColorRed},
}

func TestStatusLineScreens(t *testing.T) {
	for _, width := range []int{80, 120} {
		for _, st := range statusStates {
			t.Run(fmt.Sprintf("%s_%d", st.name, width), func(t *testing.T) {
				line := NewStatusLine().SetStatus(statusSample(st.state))
				sa := runApp(t, line, width, 1)
				got := sa.text()
				if !strings.Contains(got, st.state) {
					t.Errorf("state %q not shown: %q", st.state, got)
				}
				col := strings.Index(got, st.state)
				if _, style := sa.cell(col, 0); foreground(style) != st.color {
					t.Errorf("state drawn in %v, want %v", foreground(style), st.color)
				}
				checkGolden(t, fmt.Sprintf("status_%s_%d", st.name, width), got)
			})
		}
	}
}

func TestStatusTextDropsFields(t *testing.T) {
	tests := []struct {
		state string
		width int
		want  string
	}{
		{StateRunning, 116, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  in 1.2 kB/s  out 0.8 kB/s  link: loss 30% lat 100ms jit 20ms  RUNNING"},
		{StateRunning, 115, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  link: loss 30% lat 100ms jit 20ms  RUNNING"},
		{StateRunning, 89, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  link: loss 30% lat 100ms jit 20ms  RUNNING"},
		{StateRunning, 88, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  RUNNING"},
		{StateRunning, 80, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  RUNNING"},
		{StateRunning, 50, "frame 1234  lead 200 ms  rtt 48 ms  RUNNING"},
		{StateRunning, 30, "frame 1234  rtt 48 ms  RUNNING"},
		{StateRunning, 20, "frame 1234  RUNNING"},
		{StateRunning, 10, "RUNNING"},
		{StateRunning, 4, "RUNN"},
		{StateResyncing, 125, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  in 1.2 kB/s  out 0.8 kB/s  link: loss 30% lat 100ms jit 20ms  RE-SYNCING 0.8 s"},
		{StateResyncing, 100, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  link: loss 30% lat 100ms jit 20ms  RE-SYNCING 0.8 s"},
		{StateResyncing, 80, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  RE-SYNCING 0.8 s"},
		{StateDisconnected, 40, "DISCONNECTED: no packets from the server"},
		{StateDisconnected, 0, ""},
	}
	for _, tt := range tests {
		fields, state := statusText(statusSample(tt.state), tt.width)
		if got := fields + state; got != tt.want {
			t.Errorf("%s at %d columns:\n got %q\nwant %q", tt.state, tt.width, got, tt.want)
		}
		if n := len(fields + state); n > tt.width {
			t.Errorf("%s at %d columns: %d characters", tt.state, tt.width, n)
		}
	}
}

// TestStatusWithoutLink: an empty Link leaves no gap in the line.
func TestStatusWithoutLink(t *testing.T) {
	st := statusSample(StateRunning)
	st.Link = ""
	fields, state := statusText(st, 120)
	if got, want := fields+state, "frame 1234  lead 200 ms  rtt 48 ms  loss 3.2%  in 1.2 kB/s  out 0.8 kB/s  RUNNING"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestStatusLeadByTeacher: a lead the teacher fixed says so; the lead goes with the loss, before
// the round-trip time, when the line is short of room.
func TestStatusLeadByTeacher(t *testing.T) {
	st := statusSample(StateRunning)
	st.Lead.Fixed = true
	for width, want := range map[int]string{
		120: "frame 1234  lead 200 ms (teacher)  rtt 48 ms  loss 3.2%  link: loss 30% lat 100ms jit 20ms  RUNNING",
		60:  "frame 1234  lead 200 ms (teacher)  rtt 48 ms  RUNNING",
		40:  "frame 1234  rtt 48 ms  RUNNING",
	} {
		if fields, state := statusText(st, width); fields+state != want {
			t.Errorf("at %d columns:\n got %q\nwant %q", width, fields+state, want)
		}
	}
	// A change on its way, back to the server's policy.
	st.Lead = st.Lead.WithNext(game.LeadTime{Frame: 1250, LeadFrames: 3}, 100*time.Millisecond)
	for width, want := range map[int]string{
		120: "frame 1234  lead 200 ms (teacher) → 300 ms at frame 1250  rtt 48 ms  loss 3.2%  RUNNING",
		80:  "frame 1234  lead 200 ms (teacher) → 300 ms at frame 1250  rtt 48 ms  RUNNING",
	} {
		if fields, state := statusText(st, width); fields+state != want {
			t.Errorf("at %d columns:\n got %q\nwant %q", width, fields+state, want)
		}
	}
}

func TestLinkText(t *testing.T) {
	tests := []struct {
		in   linksim.Settings
		want string
	}{
		{linksim.Settings{}, "link clean"},
		{linksim.Settings{BurstLength: 4, ReorderDelay: time.Millisecond}, "link clean"}, // nothing turned on
		{
			linksim.Settings{LossPercent: 30, Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond},
			"link: loss 30% lat 100ms jit 20ms",
		},
		{linksim.Settings{DupPercent: 2.5}, "link: dup 2.5%"},
		{
			linksim.Settings{LossPercent: 1, BurstLossPercent: 5, BurstLength: 3, ReorderPercent: 10},
			"link: loss 1% burst 5% reorder 10%",
		},
	}
	for _, tt := range tests {
		if got := LinkText(tt.in); got != tt.want {
			t.Errorf("LinkText(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStatusByteRate(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0 kB/s"},
		{850, "0.8 kB/s"},
		{12_345, "12.3 kB/s"},
		{2_500_000, "2.5 MB/s"},
	}
	for _, tt := range tests {
		if got := byteRate(tt.in); got != tt.want {
			t.Errorf("byteRate(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
