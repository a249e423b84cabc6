package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
)

var graphBase = time.Unix(1_000_000, 0)

// sampleWaiting is a receiver holding #812 for two dependencies, one of which
// never arrived, and a sender with two unacknowledged messages and one
// acknowledged message that still waits.
func sampleWaiting() (receiver, sender []depgraph.Waiting) {
	receiver = []depgraph.Waiting{
		{Seq: 809, Arrived: true, WaitsFor: []uint16{808}, Since: graphBase.Add(1 * time.Second)},
		{Seq: 811, Placeholder: true, Since: graphBase.Add(1400 * time.Millisecond)},
		{Seq: 812, Arrived: true, WaitsFor: []uint16{811, 809}, Since: graphBase.Add(1600 * time.Millisecond)},
	}
	sender = []depgraph.Waiting{
		{Seq: 903, Arrived: true, WaitsFor: []uint16{902}, Since: graphBase.Add(1700 * time.Millisecond)},
		{Seq: 904, Since: graphBase.Add(1800 * time.Millisecond)},
		{Seq: 905, WaitsFor: []uint16{904}, Since: graphBase.Add(1900 * time.Millisecond)},
	}
	return receiver, sender
}

func TestGraphViewText(t *testing.T) {
	now := graphBase.Add(2 * time.Second)
	recv, send := sampleWaiting()
	tests := []struct {
		name           string
		receiver, send []depgraph.Waiting
		width, height  int
		want           []string
	}{
		{
			name:     "sample",
			receiver: recv, send: send,
			width: 40, height: 8,
			want: []string{
				"receiver",
				"#809 waits for #808   (1.0 s)",
				"#811 (not arrived)   (0.6 s)",
				"#812 waits for #811 #809   (0.4 s)",
				"sender",
				"#903 acked, waits for #902   (0.3 s)",
				"#904 unacked   (0.2 s)",
				"#905 unacked, waits for #904   (0.1 s)",
			},
		},
		{
			name:  "nothing",
			width: 40, height: 4,
			want: []string{"receiver", "  nothing waiting", "sender", "  nothing waiting"},
		},
		{
			// A clock that is behind a node's creation shows no negative age.
			name: "future since",
			receiver: []depgraph.Waiting{
				{Seq: 1, Arrived: true, WaitsFor: []uint16{0}, Since: now.Add(time.Second)},
			},
			width: 40, height: 4,
			want: []string{"receiver", "#1 waits for #0   (0.0 s)", "sender", "  nothing waiting"},
		},
		{
			name:     "too many lines, narrow",
			receiver: recv, send: send,
			width: 20, height: 4,
			want: []string{"receiver", "#809 waits for #808", "#811 (not arrived)", "... 5 more"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGraphView().SetWaiting(tt.receiver, tt.send, now)
			got, _ := drawText(t, g, tt.width, tt.height)
			want := strings.Join(tt.want, "\n") + "\n"
			if got != want {
				t.Errorf("drew\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestGraphViewCopiesData(t *testing.T) {
	recv, send := sampleWaiting()
	g := NewGraphView().SetWaiting(recv, send, graphBase.Add(2*time.Second))
	before := strings.Join(g.Lines(), "\n")
	recv[2].WaitsFor[0] = 1
	send[0].Seq = 1
	if after := strings.Join(g.Lines(), "\n"); after != before {
		t.Errorf("SetWaiting kept the caller's slices:\n%s", after)
	}
}

func TestGraphViewGolden(t *testing.T) {
	recv, send := sampleWaiting()
	g := NewGraphView().SetWaiting(recv, send, graphBase.Add(2*time.Second))
	g.SetBorder(true).SetTitle(" waiting ")
	got, _ := drawText(t, g, 40, 10)
	checkGolden(t, "graphview_40", got)
}

func TestDOT(t *testing.T) {
	recv, send := sampleWaiting()
	got := DOT(recv, send)
	checkGolden(t, "graph_dot", got)

	// The order of the input does not matter, nor do repeated dependencies.
	shuffled := []depgraph.Waiting{recv[2], recv[0], recv[1]}
	shuffled[0].WaitsFor = []uint16{809, 811, 809}
	if again := DOT(shuffled, []depgraph.Waiting{send[2], send[1], send[0]}); again != got {
		t.Errorf("DOT depends on input order:\n%s\nwant\n%s", again, got)
	}
	checkDOTSyntax(t, got)
	checkDOTSyntax(t, DOT(nil, nil))
}

// checkDOTSyntax checks the shape of the DOT text the way Graphviz would
// reject it: braces and brackets balanced, quotes closed, every statement
// inside a graph ended by a semicolon, and the text opening with a digraph.
func checkDOTSyntax(t *testing.T, dot string) {
	t.Helper()
	if !strings.HasPrefix(dot, "digraph ") {
		t.Errorf("DOT does not open with a digraph:\n%s", dot)
	}
	depth, brackets := 0, 0
	inQuote, escaped := false, false
	for _, r := range dot {
		switch {
		case escaped:
			escaped = false
		case inQuote && r == '\\':
			escaped = true
		case r == '"':
			inQuote = !inQuote
		case inQuote:
		case r == '{':
			depth++
		case r == '}':
			depth--
		case r == '[':
			brackets++
		case r == ']':
			brackets--
		}
		if depth < 0 || brackets < 0 {
			t.Fatalf("unbalanced DOT:\n%s", dot)
		}
	}
	if depth != 0 || brackets != 0 || inQuote {
		t.Errorf("unbalanced DOT (depth %d, brackets %d, open quote %v):\n%s", depth, brackets, inQuote, dot)
	}
	for _, line := range strings.Split(strings.TrimSpace(dot), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, "{") || line == "}" {
			continue
		}
		if !strings.HasSuffix(line, ";") {
			t.Errorf("DOT statement without a semicolon: %q", line)
		}
	}
}
