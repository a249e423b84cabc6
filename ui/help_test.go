package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

func TestHelpOverlayGolden(t *testing.T) {
	tests := []struct {
		name          string
		title         string
		keys          []KeyHelp
		width, height int
	}{
		{"help_client_80x30", " AckAttack client ", ClientKeys, 80, 30},
		{"help_server_80x24", " AckAttack server ", ServerKeys, 80, 24},
		{"help_client_50x12", " AckAttack client ", ClientKeys, 50, 12}, // too small: cut, with "more…"
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := drawText(t, NewHelpOverlay(tt.title, tt.keys), tt.width, tt.height)
			checkGolden(t, tt.name, got)
		})
	}
}

func TestHelpOverlayScrolls(t *testing.T) {
	h := NewHelpOverlay("AckAttack client", ClientKeys)
	sa := runApp(t, h, 50, 12) // 10 rows inside the border for 32 lines
	lastRow := func() string { return strings.Split(sa.text(), "\n")[10] }
	if !strings.Contains(lastRow(), "more…") {
		t.Fatalf("no more… row at the bottom:\n%s", sa.text())
	}

	steps := []struct {
		key         tcell.Key
		first, last string // the text the first and last rows contain afterwards
	}{
		{tcell.KeyDown, "║                ", "more…"},  // the blank line under the heading
		{tcell.KeyPgDn, "║ a               ", "more…"}, // a page is the 9 rows above "more…"
		{tcell.KeyEnd, "║ d F2 ", "q Ctrl+C"},          // the end: every row a key, no "more…"
		{tcell.KeyPgDn, "║ d F2 ", "q Ctrl+C"},         // nothing below the end
		{tcell.KeyUp, "║ 0-4 ", "more…"},               // one row up
		{tcell.KeyHome, "AckAttack client", "more…"},   // the top
		{tcell.KeyPgUp, "AckAttack client", "more…"},   // nothing above the top
		{tcell.KeyPgDn, "║ m               ", "more…"},
	}
	for _, st := range steps {
		sa.key(st.key)
		sa.waitFor("the rows after the key", func() bool {
			text := screenRows(sa.screen)
			return strings.Contains(text[1], st.first) && strings.Contains(text[10], st.last)
		})
	}
}

// screenRows is the screen's characters, one string per row. Call it on the
// event loop.
func screenRows(screen tcell.SimulationScreen) []string {
	cells, w, h := screen.GetContents()
	rows := make([]string, h)
	for y := range h {
		var b strings.Builder
		for _, c := range cells[y*w : (y+1)*w] {
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteString(string(c.Runes))
			}
		}
		rows[y] = b.String()
	}
	return rows
}

// TestHelpOverlayOverPage: on top of a tview.Pages the overlay draws only its
// box, so the page below stays visible beside it, and it takes every mouse
// event, so a click beside the box does not reach the page below.
func TestHelpOverlayOverPage(t *testing.T) {
	var changes []int
	slider := newLossSlider(&changes)
	dots := tview.NewBox().SetDrawFunc(func(screen tcell.Screen, x, y, width, height int) (int, int, int, int) {
		for row := y; row < y+height; row++ {
			for col := x; col < x+width; col++ {
				screen.SetContent(col, row, '.', nil, tcell.StyleDefault)
			}
		}
		return x, y, width, height
	})
	below := tview.NewFlex().AddItem(slider, 8, 0, false).AddItem(dots, 0, 1, false)
	help := NewHelpOverlay("", ClientKeys) // 64 columns wide, from column 8
	pages := tview.NewPages().AddPage("main", below, true, true).AddPage("help", help, true, true)
	sa := runApp(t, pages, 80, 16)
	sa.do(func() { sa.app.SetFocus(help) })

	rows := strings.Split(sa.text(), "\n")
	if !strings.HasPrefix(rows[0], "loss   3╔") || !strings.HasSuffix(rows[5], "║.........") {
		t.Errorf("the page below is hidden beside the box:\n%s", sa.text())
	}
	checkGolden(t, "help_over_page", sa.text())

	// A click on the slider beside the box, then the wheel in the box: once
	// the wheel has scrolled, the click was handled before it.
	sa.screen.InjectMouse(1, 0, tcell.ButtonPrimary, tcell.ModNone)
	sa.screen.InjectMouse(1, 0, tcell.ButtonNone, tcell.ModNone)
	sa.screen.InjectMouse(40, 8, tcell.WheelDown, tcell.ModNone)
	sa.screen.InjectMouse(40, 8, tcell.ButtonNone, tcell.ModNone)
	sa.waitFor("the wheel to scroll", func() bool { return strings.HasPrefix(screenRows(sa.screen)[1], "        ║ H J K L") })
	if sa.app.GetFocus() != help {
		t.Error("a click beside the help box reached the page below")
	}
}

// TestREADMEListsEveryKey: the README's key tables are the help overlay's lists, row for row,
// so the two cannot drift apart.
func TestREADMEListsEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, list := range [][]KeyHelp{ClientKeys, ServerKeys, ReplayKeys} {
		for _, k := range list {
			row := "| `" + strings.ReplaceAll(k.Keys, "|", `\|`) + "` | " + strings.ReplaceAll(k.What, "|", `\|`) + " |"
			if !strings.Contains(readme, row) {
				t.Errorf("README.md lacks the key row %q", row)
			}
		}
	}
}

// TestHandoutKeysAreReal: every key the one-page handout (assets/lessons/HANDOUT.md) names
// in its key table, and in its line on the replay, is a key of the help overlay (the client's
// or the replay's), so the page a student keeps beside the keyboard never names a dead key.
func TestHandoutKeysAreReal(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "assets", "lessons", "HANDOUT.md"))
	if err != nil {
		t.Fatal(err)
	}
	known := func(list []KeyHelp) map[string]bool {
		m := map[string]bool{}
		for _, k := range list {
			for _, tok := range strings.Fields(k.Keys) {
				m[tok] = true
				var lo, hi int // a range such as F5-F9 names each key in it
				if n, _ := fmt.Sscanf(tok, "F%d-F%d", &lo, &hi); n == 2 {
					for f := lo; f <= hi; f++ {
						m[fmt.Sprintf("F%d", f)] = true
					}
				}
			}
		}
		return m
	}
	client, replay := known(ClientKeys), known(ReplayKeys)
	checked := 0
	check := func(keys map[string]bool, cell, where string) {
		for _, quoted := range strings.Split(cell, "`")[1:] {
			for _, tok := range strings.Fields(quoted) {
				if strings.ContainsAny(tok, ",–") {
					continue // the prose between two quoted keys
				}
				checked++
				if !keys[tok] {
					t.Errorf("the handout's %s names the key %q, which the help does not list", where, tok)
				}
			}
		}
	}
	inKeys := false
	for line := range strings.Lines(string(b)) {
		switch {
		case strings.HasPrefix(line, "## "):
			inKeys = strings.HasPrefix(line, "## Keys")
		case inKeys && strings.HasPrefix(line, "| `"):
			check(client, strings.Split(line, "|")[1], "key table")
		case inKeys && strings.HasPrefix(line, "In a replay:"):
			// Only the quoted words: every other piece between backticks is prose.
			parts := strings.Split(line, "`")
			for i := 1; i < len(parts); i += 2 {
				check(replay, "`"+parts[i]+"`", "replay line")
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d keys found in the handout: its key table moved or changed shape", checked)
	}
}

// TestHandoutRaisesTheLatency: the keys the handout gives for raising the latency, pressed in
// its order on the client's screen, raise the latency and leave the loss alone (after Tab
// the loss slider has the keys until ↓ picks another).
func TestHandoutRaisesTheLatency(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "assets", "lessons", "HANDOUT.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The bullet, with the lines that continue it.
	var bullet string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "- Raise the latency") || bullet != "" && strings.HasPrefix(line, "  ") {
			bullet += line
		} else if bullet != "" {
			break
		}
	}
	if bullet == "" {
		t.Fatal("the handout has no bullet \"- Raise the latency\"")
	}
	parts := strings.Split(bullet, "`")
	var keys []string
	for i := 1; i < len(parts); i += 2 {
		keys = append(keys, strings.Fields(parts[i])...)
	}
	f := newFakeClient(t)
	sa, cs := fakeClientScreen(t, f, 120, 36)
	sa.waitFor("the map", func() bool { return cs.MapView() != nil })
	for _, k := range keys {
		switch k {
		case "Tab":
			sa.key(tcell.KeyTab)
		case "↓":
			sa.key(tcell.KeyDown)
		case "↑":
			sa.key(tcell.KeyUp)
		case "Esc":
			sa.key(tcell.KeyEscape)
		default:
			if r := []rune(k); len(r) == 1 {
				sa.rune(r[0])
				continue
			}
			t.Fatalf("the handout's bullet %q names the key %q, which this test cannot press", bullet, k)
		}
	}
	sa.key(tcell.KeyF1) // a key after them: once its help shows, they were handled
	waitText(sa, "the help after the handout's keys", "move the cursor 8 cells")
	if ls, _ := f.Link(); ls.Latency <= 0 || ls.LossPercent != 0 {
		t.Errorf("the handout's keys %q gave the link %+v, want the latency raised and no loss", keys, ls)
	}
}
