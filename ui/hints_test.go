package ui

import "testing"

// TestFitHints: hints that do not fit are left out whole, a shorter one after them may still
// fit, colour tags take no room, and the first hint stays even when it alone is too wide.
func TestFitHints(t *testing.T) {
	for _, tt := range []struct {
		name  string
		hints []string
		width int
		want  string
	}{
		{"all fit", []string{"a", "bb", "? help"}, 20, "a · bb · ? help"},
		{"exactly", []string{"aaaa", "bbbb"}, 11, "aaaa · bbbb"},
		{"one too many", []string{"aaaa", "bbbb"}, 10, "aaaa"},
		{"a long one left out, the short after it kept", []string{"first", "a hint far too long for the line", "? help"}, 20, "first · ? help"},
		{"tags take no room", []string{"[aqua]aaaa[-]", "[lime]bbbb[-]"}, 11, "[aqua]aaaa[-] · [lime]bbbb[-]"},
		{"the first alone, too wide", []string{"a first hint wider than the line", "x"}, 10, "a first hint wider than the line"},
		{"no width: no limit", []string{"a", "b"}, 0, "a · b"},
		{"none", nil, 10, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := fitHints(tt.hints, " · ", tt.width); got != tt.want {
				t.Errorf("fitHints(%q, %d) = %q, want %q", tt.hints, tt.width, got, tt.want)
			}
		})
	}
}
