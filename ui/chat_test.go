package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/game"
	"github.com/gdamore/tcell/v2"
)

// newChatApp runs a chat pane on a 40×6 screen and records what it sends.
// The send function runs on the event loop, so sent is read there too.
func newChatApp(t *testing.T) (*screenApp, *ChatPane, *[]string) {
	t.Helper()
	sent := new([]string)
	chat := NewChatPane().SetSendFunc(func(text string) { *sent = append(*sent, text) })
	return runApp(t, chat, 40, 6), chat, sent
}

func TestChatSendsTypedLine(t *testing.T) {
	sa, chat, sent := newChatApp(t)
	sa.key(tcell.KeyEnter)
	sa.waitFor("the input line to open", chat.InputOpen)
	for _, r := range "  hi there  " {
		sa.rune(r)
	}
	sa.waitFor("the typed text", func() bool { return chat.Input() == "  hi there  " })
	if got := sa.text(); !strings.Contains(got, ">   hi there") {
		t.Errorf("open input line shows no prompt:\n%s", got)
	}
	sa.key(tcell.KeyEnter)
	sa.waitFor("the line to be sent", func() bool { return len(*sent) > 0 })
	sa.do(func() {
		if want := []string{"hi there"}; !slices.Equal(*sent, want) {
			t.Errorf("sent %q, want %q", *sent, want)
		}
		if chat.InputOpen() {
			t.Error("input line still open after sending")
		}
	})
}

func TestChatEscCancelsAndEmptyIsNotSent(t *testing.T) {
	sa, chat, sent := newChatApp(t)
	sa.key(tcell.KeyEnter)
	sa.rune('x')
	sa.waitFor("the typed text", func() bool { return chat.Input() == "x" })
	sa.key(tcell.KeyEscape)
	sa.waitFor("the input line to close", func() bool { return !chat.InputOpen() })
	if got := sa.text(); strings.Contains(got, ">") {
		t.Errorf("cancelled input line still drawn:\n%s", got)
	}

	// An empty and a blank message are not sent; events are handled in
	// order, so once "ok" arrives the ones before it have been handled.
	sa.key(tcell.KeyEnter)
	sa.key(tcell.KeyEnter)
	sa.key(tcell.KeyEnter)
	sa.rune(' ')
	sa.key(tcell.KeyEnter)
	sa.key(tcell.KeyEnter)
	sa.rune('o')
	sa.rune('k')
	sa.key(tcell.KeyEnter)
	sa.waitFor("a line to be sent", func() bool { return len(*sent) > 0 })
	sa.do(func() {
		if want := []string{"ok"}; !slices.Equal(*sent, want) {
			t.Errorf("sent %q, want %q (the cancelled, empty and blank lines must not be sent)", *sent, want)
		}
	})
}

func TestChatShowsTagsLiterally(t *testing.T) {
	sa, chat, _ := newChatApp(t)
	sa.app.QueueUpdateDraw(func() {
		chat.SetLines([]game.ChatLine{
			{From: "alice", Text: "gg"},
			{From: "eve", Text: "[red]boo[-] [::b]bold"},
			{From: "[blue]bob", Text: "hi"},
		})
	})
	got := sa.text()
	for _, want := range []string{"alice: gg\n", "eve: [red]boo[-] [::b]bold\n", "[blue]bob: hi\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q:\n%s", want, got)
		}
	}
	if _, style := sa.cell(0, 1); foreground(style).Hex() != PlayerColor("eve").Hex() {
		t.Errorf("eve's name drawn in %v, want %v", foreground(style), PlayerColor("eve"))
	}
	if _, style := sa.cell(5, 1); foreground(style).Hex() == tcell.ColorRed.Hex() {
		t.Error("the text after a typed [red] is red: the tag was interpreted")
	}
	checkGolden(t, "chat_literal_tags", got)
}

func TestChatShowsLastLinesAboveInput(t *testing.T) {
	sa, chat, _ := newChatApp(t)
	var lines []game.ChatLine
	for i := range 8 {
		lines = append(lines, game.ChatLine{From: "p" + string(rune('a'+i%3)), Text: "line " + string(rune('0'+i))})
	}
	sa.app.QueueUpdateDraw(func() { chat.SetLines(lines) })
	sa.key(tcell.KeyEnter)
	sa.rune('g')
	sa.rune('o')
	sa.waitFor("the typed text", func() bool { return chat.Input() == "go" })
	checkGolden(t, "chat_last_lines_input", sa.text())
}

func TestPlayerColorStable(t *testing.T) {
	for _, name := range []string{"alice", "bob", "", "eve"} {
		if a, b := PlayerColor(name), PlayerColor(name); a != b {
			t.Errorf("PlayerColor(%q) gives %v then %v", name, a, b)
		}
	}
	seen := map[tcell.Color]bool{}
	for _, name := range []string{"alice", "bob", "carol", "dave", "eve", "frank"} {
		seen[PlayerColor(name)] = true
	}
	if len(seen) < 2 {
		t.Error("six names all got the same colour")
	}
}

// TestChatPaneWrapsLongLines: a line wider than the pane wraps at word boundaries instead of
// losing its end; a literal tag in it is still shown as typed.
func TestChatPaneWrapsLongLines(t *testing.T) {
	c := NewChatPane()
	c.SetLines([]game.ChatLine{{From: "ann", Text: "a long line that goes on beyond the width [red]of the pane END"}})
	sa := runApp(t, c, 24, 6)
	txt := sa.text()
	for _, want := range []string{"ann: a long line that", "END", "[red]"} {
		if !strings.Contains(txt, want) {
			t.Errorf("pane lacks %q:\n%s", want, txt)
		}
	}
}

// TestChatDimsBotLines: a line of one of the server's bots is drawn dimmed, name and text, so
// that a student's line stands out beside it in its player's colour.
func TestChatDimsBotLines(t *testing.T) {
	chat := NewChatPane().SetLines([]game.ChatLine{
		{From: "bot1", Text: "attacking the ogre at 12,5", Bot: true},
		{From: "eve", Text: "where are the ogres"},
	})
	sa := runApp(t, chat, 40, 4)
	if got := sa.text(); !strings.Contains(got, "bot1: attacking the ogre at 12,5") || !strings.Contains(got, "eve: where are the ogres") {
		t.Fatalf("the lines are not shown:\n%s", got)
	}
	for _, c := range []struct {
		x, y int
		want tcell.Color
		what string
	}{
		{0, 0, ageColor, "the bot's name"},
		{10, 0, ageColor, "the bot's text"},
		{0, 1, PlayerColor("eve"), "eve's name"},
	} {
		if _, style := sa.cell(c.x, c.y); foreground(style).Hex() != c.want.Hex() {
			t.Errorf("%s drawn in %v, want %v", c.what, foreground(style), c.want)
		}
	}
	if _, style := sa.cell(10, 1); foreground(style).Hex() == ageColor.Hex() {
		t.Error("eve's text dimmed as a bot's")
	}
}
