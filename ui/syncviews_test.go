package ui

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/world"
)

// sampleRecords is a sync log, oldest first: a drill-down, its real-time
// repair, and a later mismatch that needed a stop-the-world pause.
func sampleRecords() []game.SyncRecord {
	return []game.SyncRecord{
		{
			When: graphBase.Add(5 * time.Second), Seat: 2, Frame: 1234,
			Groups: []game.IDRange{{Start: 1, End: 16}, {Start: 33, End: 48}, {Start: 97, End: 112}},
			Action: game.ActionDrillDown,
		},
		{
			When: graphBase.Add(7900 * time.Millisecond), Seat: 2, Frame: 1234,
			Groups: []game.IDRange{{Start: 1, End: 16}, {Start: 33, End: 48}, {Start: 97, End: 112}},
			Units: []game.UnitMismatch{
				{ID: 17, Local: 0x0123456789abcdef, Server: 0xfedcba9876543210, LocalKnown: true},
				{ID: 40, NoLocal: true, Server: 0xc0ffee00, LocalKnown: true},
			},
			More:   2,
			Action: game.ActionRealtime, At: 1240,
		},
		{
			When: graphBase.Add(9500 * time.Millisecond), Seat: 1, Frame: 2200,
			Groups: []game.IDRange{{Start: 5, End: 5}},
			Units:  []game.UnitMismatch{{ID: 5, Local: 0xabc, NoServer: true, LocalKnown: true}},
			Action: game.ActionStopWorld, At: 2210,
		},
	}
}

// samplePauses is a pause log, oldest first: two finished pauses and one in
// progress.
func samplePauses() []game.PauseRecord {
	return []game.PauseRecord{
		{Frame: 1240, Start: graphBase.Add(time.Second), Millis: 480, Units: 3},
		{Frame: 1800, Start: graphBase.Add(4 * time.Second), Millis: 910, Units: 12},
		{Frame: 2210, Start: graphBase.Add(8800 * time.Millisecond), Running: true},
	}
}

// syncNow is the time the sample logs are drawn at.
var syncNow = graphBase.Add(10 * time.Second)

func TestMismatchViewText(t *testing.T) {
	tests := []struct {
		name          string
		records       []game.SyncRecord
		width, height int
		want          []string
	}{
		{
			name:  "empty",
			width: 60, height: 1,
			want: []string{"no hash mismatch yet: every report matched the server"},
		},
		{
			// A stop-the-world compared every unit: its one group spans all ids.
			name: "whole world",
			records: []game.SyncRecord{{Seat: 1, Frame: 200, Groups: []game.IDRange{{Start: 1, End: world.MaxUnitID}},
				Action: game.ActionStopWorld, At: 211}},
			width: 100, height: 1,
			want: []string{"frame 200  player 1  whole world  -> stop-the-world, pause at frame 211"},
		},
		{
			// Newest first, each header on one line when there is room.
			name:    "wide",
			records: sampleRecords(),
			width:   100, height: 7,
			want: []string{
				"frame 2200  player 1  1 group [5]  -> stop-the-world, pause at frame 2210  0.5s ago",
				"  unit 5    local 0000000000000abc   server missing",
				"frame 1234  player 2  3 groups [1-16 33-48 97-112]  -> real-time re-sync at frame 1240  2.1s ago",
				"  unit 17   local 0123456789abcdef   server fedcba9876543210",
				"  unit 40   local missing            server 00000000c0ffee00",
				"  +2 more",
				"frame 1234  player 2  3 groups [1-16 33-48 97-112]  -> asked for unit hashes  5.0s ago",
			},
		},
		{
			// A header wraps between its fields, so the action stays on
			// the screen; unit rows are cut.
			name:    "narrow",
			records: sampleRecords()[1:2],
			width:   44, height: 7,
			want: []string{
				"frame 1234  player 2",
				"    3 groups [1-16 33-48 97-112]",
				"    -> real-time re-sync at frame 1240",
				"    2.1s ago",
				"  unit 17   local 0123456789abcdef   server",
				"  unit 40   local missing            server",
				"  +2 more",
			},
		},
		{
			// The newest record stays at the top; the rest is counted.
			name:    "too many rows",
			records: sampleRecords(),
			width:   100, height: 4,
			want: []string{
				"frame 2200  player 1  1 group [5]  -> stop-the-world, pause at frame 2210  0.5s ago",
				"  unit 5    local 0000000000000abc   server missing",
				"frame 1234  player 2  3 groups [1-16 33-48 97-112]  -> real-time re-sync at frame 1240  2.1s ago",
				"... 4 more lines",
			},
		},
		{
			// The world's state differed: alone, repaired in real time; with a unit, as
			// another player's client records it (its own hash of the state unknown).
			name: "the world's state",
			records: []game.SyncRecord{
				{Seat: 2, Frame: 1240, State: &game.StateMismatch{Local: 0x0123456789abcdef, Server: 0xfedcba9876543210, LocalKnown: true},
					Action: game.ActionRealtime, At: 1246},
				{Seat: 1, Frame: 1250, Units: []game.UnitMismatch{{ID: 3, Local: 2, Server: 1, LocalKnown: true}},
					State: &game.StateMismatch{Server: 7}, Action: game.ActionRealtime, At: 1256},
			},
			width: 120, height: 5,
			want: []string{
				"frame 1250  player 1  the world's state  -> real-time re-sync at frame 1256",
				"  unit 3    local 0000000000000002   server 0000000000000001",
				"  state     local unknown            server 0000000000000007  (id counters, generator, attacks in flight)",
				"frame 1240  player 2  the world's state  -> real-time re-sync at frame 1246",
				"  state     local 0123456789abcdef   server fedcba9876543210  (id counters, generator, attacks in flight)",
			},
		},
		{
			// Records without a time, groups or action, the actions that
			// repair nothing in their own words, and a unit whose local
			// hash this host does not know.
			name: "bare",
			records: []game.SyncRecord{
				{Frame: 7},
				{Frame: 8, Action: game.ActionNoneLeft},
				{Frame: 9, Action: game.ActionNoDrillDown, Units: []game.UnitMismatch{{ID: 3, Server: 1}}},
			},
			width: 60, height: 4,
			want: []string{
				"frame 9  player 0  -> answer came too late",
				"  unit 3    local unknown            server 0000000000000001",
				"frame 8  player 0  -> already repairing",
				"frame 7  player 0",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewMismatchView().SetRecords(tt.records, syncNow)
			got, _ := drawText(t, v, tt.width, tt.height)
			if want := strings.Join(tt.want, "\n") + "\n"; got != want {
				t.Errorf("drew\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestMismatchViewColours(t *testing.T) {
	v := NewMismatchView().SetRecords(sampleRecords(), syncNow)
	_, screen := drawText(t, v, 100, 7)
	for _, tc := range []struct {
		what string
		row  int
		want tcell.Color
	}{
		{"stop-the-world", 0, tcell.ColorRed},
		{"real-time re-sync", 2, tcell.ColorYellow},
		{"asked for unit hashes", 6, tcell.ColorAqua},
	} {
		col := screenIndex(t, screen, tc.row, "-> "+tc.what)
		_, _, style, _ := screen.GetContent(col, tc.row)
		if fg, _, _ := style.Decompose(); fg != tc.want {
			t.Errorf("%q drawn in %v, want %v", tc.what, fg, tc.want)
		}
	}
}

// screenIndex returns the column at which text starts on a row of screen.
func screenIndex(t *testing.T, screen tcell.SimulationScreen, row int, text string) int {
	t.Helper()
	cells, w, _ := screen.GetContents()
	var line []rune
	for x := range w {
		r := ' '
		if c := cells[row*w+x]; len(c.Runes) > 0 {
			r = c.Runes[0]
		}
		line = append(line, r)
	}
	i := strings.Index(string(line), text)
	if i < 0 {
		t.Fatalf("%q not on row %d: %q", text, row, string(line))
	}
	return utf8.RuneCountInString(string(line)[:i])
}

func TestMismatchViewCopiesRecords(t *testing.T) {
	rs := sampleRecords()
	v := NewMismatchView().SetRecords(rs, syncNow)
	rs[2].Units[0].ID = 99
	rs[2].Groups[0].Start = 99
	got, _ := drawText(t, v, 100, 3)
	if !strings.Contains(got, "unit 5 ") || !strings.Contains(got, "[5]") {
		t.Errorf("SetRecords kept the caller's slices:\n%s", got)
	}
}

func TestMismatchViewGolden(t *testing.T) {
	v := NewMismatchView().SetRecords(sampleRecords(), syncNow)
	v.SetBorder(true).SetTitle(" hashes ")
	got, _ := drawText(t, v, 60, 12)
	checkGolden(t, "mismatch_60", got)
}

func TestPauseViewText(t *testing.T) {
	tests := []struct {
		name          string
		pauses        []game.PauseRecord
		width, height int
		want          []string
	}{
		{
			name:  "empty",
			width: 40, height: 1,
			want: []string{"no stop-the-world pause yet"},
		},
		{
			name:   "sample",
			pauses: samplePauses(),
			width:  40, height: 5,
			want: []string{
				"3 pauses, p50 480 ms, max 910 ms",
				"frame    length     units  state",
				"2210     1.2s…      -      in progress",
				"1800     910ms      12     done",
				"1240     480ms      3      done",
			},
		},
		{
			// A pause whose frame this host has not reached yet, and no
			// finished pause to summarise.
			name:   "on its way",
			pauses: []game.PauseRecord{{Frame: 300, Running: true}},
			width:  40, height: 3,
			want: []string{
				"1 pause, none finished yet",
				"frame    length     units  state",
				"300      on its way -      in progress",
			},
		},
		{
			// The median of an odd count is the middle one.
			name: "median of three, cut",
			pauses: []game.PauseRecord{
				{Frame: 1, Millis: 900, Units: 1}, {Frame: 2, Millis: 100, Units: 2}, {Frame: 3, Millis: 300, Units: 3},
			},
			width: 25, height: 4,
			want: []string{
				"3 pauses, p50 300 ms, max",
				"frame    length     units",
				"3        300ms      3",
				"... 2 more lines",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewPauseView().SetPauses(tt.pauses, syncNow)
			got, _ := drawText(t, v, tt.width, tt.height)
			if want := strings.Join(tt.want, "\n") + "\n"; got != want {
				t.Errorf("drew\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestPauseViewRunningInRed(t *testing.T) {
	v := NewPauseView().SetPauses(samplePauses(), syncNow)
	_, screen := drawText(t, v, 40, 5)
	for _, text := range []string{"1.2s…", "in progress"} {
		col := screenIndex(t, screen, 2, text)
		_, _, style, _ := screen.GetContent(col, 2)
		if fg, _, _ := style.Decompose(); fg != tcell.ColorRed {
			t.Errorf("%q drawn in %v, want red", text, fg)
		}
	}
}

func TestPauseViewGolden(t *testing.T) {
	v := NewPauseView().SetPauses(samplePauses(), syncNow)
	v.SetBorder(true).SetTitle(" pauses ")
	got, _ := drawText(t, v, 40, 7)
	checkGolden(t, "pauses_40", got)
}

// TestLateFields: the hashes view's line on the lead and the late events, for each --late
// mode.
func TestLateFields(t *testing.T) {
	auto := Lead{Time: 100 * time.Millisecond}
	teacher := Lead{Time: 300 * time.Millisecond, Fixed: true}
	for _, tt := range []struct {
		name string
		lead Lead
		sy   game.SyncReport
		want string
	}{
		{"nothing late", auto, game.SyncReport{SettleFrames: 1},
			"lead 100 ms|late events: 0 re-runs|0 beyond the window|hashes checked 1 frame after"},
		{"re-runs", teacher, game.SyncReport{Resimulations: 12, FramesRerun: 47, MaxLateFrames: 4, SettleFrames: 5},
			"lead 300 ms (teacher)|late events: 12 re-runs|47 frames run again|the latest 4 frames late|0 beyond the window|hashes checked 5 frames after"},
		{"one re-run", auto, game.SyncReport{Resimulations: 1, FramesRerun: 6, MaxLateFrames: 1, SettleFrames: 2},
			"lead 100 ms|late events: 1 re-run|6 frames run again|the latest 1 frame late|0 beyond the window|hashes checked 2 frames after"},
		{"beyond the window", auto, game.SyncReport{Resimulations: 4, FramesRerun: 40, MaxLateFrames: 30, LateBeyondWindow: 2, SettleFrames: 30},
			"lead 100 ms|late events: 4 re-runs|40 frames run again|the latest 30 frames late|2 beyond the window, fast-forwarded|hashes checked 30 frames after"},
		{"fast-forward", teacher, game.SyncReport{Late: game.LateFastForward, LateBeyondWindow: 7, SettleFrames: 1},
			"lead 300 ms (teacher)|late events: 7 fast-forwarded (--late fastforward)|hashes checked 1 frame after"},
	} {
		var parts []string
		for _, s := range lateFields(tt.lead, tt.sy) {
			parts = append(parts, s.text)
		}
		if got := strings.Join(parts, "|"); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
