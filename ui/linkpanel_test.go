package ui

import (
	"slices"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/net/linksim"
)

// On a 40-column panel every bar is 21 cells wide and starts in this column
// (9 for the label "latency  ", 1 for the bracket), so a latency bar cell is
// worth 50 ms.
const linkBarX = 10

// recordLinkChanges returns a panel whose changed function appends to *got.
func recordLinkChanges(got *[]linksim.Settings) *LinkPanel {
	return NewLinkPanel().SetChangedFunc(func(s linksim.Settings) { *got = append(*got, s) })
}

func TestLinkPanelKeys(t *testing.T) {
	var got []linksim.Settings
	p := recordLinkChanges(&got)
	sa := runApp(t, p, 40, 4)

	steps := []struct {
		key  tcell.Key
		r    rune
		want linksim.Settings // the settings after the key
	}{
		{tcell.KeyRune, ']', linksim.Settings{LossPercent: 1}},
		{tcell.KeyRight, 0, linksim.Settings{LossPercent: 2}},
		{tcell.KeyEnd, 0, linksim.Settings{LossPercent: 60}},
		{tcell.KeyRune, 'j', linksim.Settings{LossPercent: 60}}, // to latency
		{tcell.KeyRune, '+', linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond}},
		{tcell.KeyDown, 0, linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond}}, // to jitter
		{tcell.KeyRight, 0, linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond}},
		{tcell.KeyDown, 0, linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond}}, // to dup
		{tcell.KeyDown, 0, linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond}}, // stays on dup
		{tcell.KeyEnd, 0, linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond, DupPercent: 30}},
		{tcell.KeyUp, 0, linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond, DupPercent: 30}},     // to jitter
		{tcell.KeyRune, 'k', linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond, DupPercent: 30}}, // to latency
		{tcell.KeyRune, 'k', linksim.Settings{LossPercent: 60, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond, DupPercent: 30}}, // to loss
		{tcell.KeyRune, '[', linksim.Settings{LossPercent: 59, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond, DupPercent: 30}},
	}
	for i, st := range steps {
		sa.screen.InjectKey(st.key, st.r, tcell.ModNone)
		// Keys that only move between sliders change no setting; the
		// wait for the next change covers them.
		if i+1 < len(steps) && steps[i+1].want == st.want {
			continue
		}
		sa.waitFor("the settings after the key", func() bool { return p.Settings() == st.want })
	}
	var want []linksim.Settings
	for i, st := range steps {
		if i == 0 || st.want != steps[i-1].want {
			want = append(want, st.want)
		}
	}
	var calls []linksim.Settings
	sa.do(func() { calls = slices.Clone(got) })
	if !slices.Equal(calls, want) {
		t.Errorf("changed function got\n%v\nwant\n%v", calls, want)
	}
	checkGolden(t, "linkpanel_keys", sa.text())
}

func TestLinkPanelMouseDrag(t *testing.T) {
	var got []linksim.Settings
	p := recordLinkChanges(&got)
	sa := runApp(t, p, 40, 4)
	const latencyRow = 1

	// Press on the latency bar's eleventh cell, drag to its end and back to
	// its sixth, and let go.
	sa.screen.InjectMouse(linkBarX+10, latencyRow, tcell.ButtonPrimary, tcell.ModNone)
	sa.waitFor("press to set 500 ms", func() bool { return p.Settings().Latency == 500*time.Millisecond })
	sa.screen.InjectMouse(linkBarX+20, latencyRow, tcell.ButtonPrimary, tcell.ModNone)
	sa.waitFor("drag to set 1000 ms", func() bool { return p.Settings().Latency == time.Second })
	sa.screen.InjectMouse(linkBarX+5, latencyRow+1, tcell.ButtonPrimary, tcell.ModNone) // off the row: the drag goes on
	sa.waitFor("drag back to set 250 ms", func() bool { return p.Settings().Latency == 250*time.Millisecond })
	sa.screen.InjectMouse(linkBarX+5, latencyRow+1, tcell.ButtonNone, tcell.ModNone)

	// The press picked the latency slider: it has the focus and the keys.
	sa.rune(']')
	sa.waitFor("a key on the picked slider", func() bool { return p.Settings().Latency == 255*time.Millisecond })
	if p.Current() != linkLatency {
		t.Errorf("current slider %d, want latency", p.Current())
	}
	if sa.app.GetFocus() != p {
		t.Errorf("the focus is on %T, want the panel", sa.app.GetFocus())
	}
	if _, style := sa.cell(0, latencyRow); !hasReverse(style) {
		t.Error("the picked slider's label is not highlighted")
	}
	if _, style := sa.cell(0, 0); hasReverse(style) {
		t.Error("the loss slider's label is highlighted")
	}

	var latencies []time.Duration
	sa.do(func() {
		for _, s := range got {
			latencies = append(latencies, s.Latency)
		}
	})
	want := []time.Duration{500 * time.Millisecond, time.Second, 250 * time.Millisecond, 255 * time.Millisecond}
	if !slices.Equal(latencies, want) {
		t.Errorf("changed function got latencies %v, want %v", latencies, want)
	}
	checkGolden(t, "linkpanel_drag", sa.text())
}

func TestLinkPanelSetSettings(t *testing.T) {
	calls := 0
	p := NewLinkPanel().SetChangedFunc(func(linksim.Settings) { calls++ })
	in := linksim.Settings{
		LossPercent: 12.4, Latency: 123 * time.Millisecond, Jitter: 500 * time.Millisecond, DupPercent: 3,
		BurstLossPercent: 5, BurstLength: 4, ReorderPercent: 10, ReorderDelay: time.Millisecond,
	}
	p.SetSettings(in)
	if calls != 0 {
		t.Errorf("SetSettings called the changed function %d times", calls)
	}
	// Each slider's value is snapped to its step and clamped to its range;
	// the fields without a slider come back as they were.
	want := in
	want.LossPercent, want.Latency, want.Jitter = 12, 125*time.Millisecond, 200*time.Millisecond
	if got := p.Settings(); got != want {
		t.Errorf("Settings() = %+v, want %+v", got, want)
	}
	if err := p.Settings().Validate(); err != nil {
		t.Error(err)
	}
}

func TestLinkPanelGolden(t *testing.T) {
	p := NewLinkPanel().SetTitleLine("simulated link").SetSettings(linksim.Settings{
		LossPercent: 15, Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond,
	})
	p.SetBorder(true).SetTitle(" network ")
	got, _ := drawText(t, p, 42, 7)
	checkGolden(t, "linkpanel_40", got)
}

// TestLinkPanelPresets: the digits 0 to 4 apply the presets, the fields without a slider
// (bursts) included, and report each change; a slider moved after the bad Wi-Fi keeps its
// bursts, and the clean preset clears them.
func TestLinkPanelPresets(t *testing.T) {
	var got []linksim.Settings
	p := recordLinkChanges(&got)
	sa := runApp(t, p, 40, 4)
	for _, r := range "12340" {
		sa.rune(r)
		want := LinkPresets[r-'0'].Settings
		sa.waitFor("preset "+string(r), func() bool { return p.Settings() == want })
	}
	sa.rune('4')
	sa.rune(']')
	sa.waitFor("the bad Wi-Fi with 3% loss", func() bool {
		s := p.Settings()
		return s.LossPercent == 3 && s.BurstLossPercent == 5 && s.BurstLength == 4
	})
	var calls []linksim.Settings
	sa.do(func() { calls = slices.Clone(got) })
	if len(calls) != 7 || calls[0] != LinkPresets[1].Settings || calls[4] != (linksim.Settings{}) {
		t.Errorf("changed function got %v", calls)
	}
}
