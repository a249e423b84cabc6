package ui

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode/utf8"

	"github.com/ackattack/ackattack/game"
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// chatColors are the colours a player's name can take. They are bright and
// far apart so two names next to each other are easy to tell apart; red is
// left out because the map uses it for enemies.
var chatColors = []tcell.Color{
	tcell.ColorLime,
	tcell.ColorYellow,
	tcell.ColorAqua,
	tcell.ColorFuchsia,
	tcell.ColorOrange,
	tcell.ColorLightSkyBlue,
	tcell.ColorViolet,
	tcell.ColorGold,
	tcell.ColorHotPink,
}

// chatMaxInput caps how many characters a player can type into one message,
// so a held-down key cannot build a line no packet would carry.
const chatMaxInput = 200

// PlayerColor returns the colour a player's name is drawn in. It is derived
// from the name alone (a hash of it picks from a fixed palette), so a player
// keeps the same colour on every screen and across restarts without anyone
// having to hand colours out.
func PlayerColor(name string) tcell.Color {
	h := fnv.New32a()
	h.Write([]byte(name))
	return chatColors[h.Sum32()%uint32(len(chatColors))]
}

// ChatPane shows the latest chat lines, oldest at the top, each as
//
//	name: text
//	name (spectator): text
//
// with the name in its player's colour (a bot's line dimmed whole), and below them, while the player is
// typing, an input line with a "> " prompt.
//
// Everything a player typed is escaped before it is drawn: tview reads
// "[red]" as a colour tag, and a chat message must never be able to recolour
// or hide the rest of the screen, so "[red]" typed in a message shows up
// literally.
//
// When focused, Enter opens the input line; while it is open, typed
// characters go into it, Backspace deletes the last one, Enter sends the
// trimmed text (an empty message is not sent) and closes the line, and Esc
// throws the text away and closes the line.
type ChatPane struct {
	*tview.Box

	lines []game.ChatLine
	send  func(text string)

	open  bool   // the input line is shown and takes the keys
	input []rune // what has been typed so far
}

// NewChatPane returns an empty chat pane with its input line closed.
func NewChatPane() *ChatPane {
	return &ChatPane{Box: tview.NewBox()}
}

// SetLines replaces the lines shown. The pane keeps its own copy, so the
// caller may reuse the slice. Only as many of the last lines as fit are drawn.
func (c *ChatPane) SetLines(lines []game.ChatLine) *ChatPane {
	c.lines = append(c.lines[:0], lines...)
	return c
}

// SetSendFunc sets the function called with a message the player sent. It
// runs on the application's event loop, so it should only hand the text on,
// never block.
func (c *ChatPane) SetSendFunc(send func(text string)) *ChatPane {
	c.send = send
	return c
}

// InputOpen reports whether the input line is open.
func (c *ChatPane) InputOpen() bool { return c.open }

// Input returns the text typed into the open input line so far.
func (c *ChatPane) Input() string { return string(c.input) }

// chatLineText is one line in tview's tagged form: the name coloured, both
// name and text escaped so that nothing a player typed is read as a tag. A
// spectator's name is followed by "(spectator)", dimmed: a class can tell the
// players' words from the onlookers'. A line of the server's bots is dimmed
// whole, so that the students' own lines stand out.
func chatLineText(l game.ChatLine) string {
	if l.Bot {
		return fmt.Sprintf("[#%06x]%s: %s[-]", ageColor.Hex(), tview.Escape(l.From), tview.Escape(l.Text))
	}
	who := fmt.Sprintf("[#%06x]%s[-]", PlayerColor(l.From).Hex(), tview.Escape(l.From))
	if l.Spectator {
		who += " [gray](spectator)[-]"
	}
	return who + ": " + tview.Escape(l.Text)
}

// Draw draws the last lines that fit, wrapped at word boundaries, and, when open, the input
// line under them.
func (c *ChatPane) Draw(screen tcell.Screen) {
	drawFrame(screen, c.Box, c)
	x, y, width, height := c.GetInnerRect()
	if width <= 0 || height <= 0 {
		return
	}
	rows := height
	if c.open {
		rows--
		// Show the end of a long input, where the player is typing.
		const prompt = "> "
		text := c.input
		if room := width - len(prompt) - 1; room >= 0 && len(text) > room {
			text = text[len(text)-room:]
		}
		tview.Print(screen, prompt+tview.Escape(string(text))+"_", x, y+height-1, width, tview.AlignLeft, tview.Styles.PrimaryTextColor)
	}
	// Long lines wrap at word boundaries (a cut would hide the end of what was said); the
	// newest rows that fit are shown, so the oldest line may lose its first rows.
	var wrapped []string
	for i := len(c.lines) - 1; i >= 0 && len(wrapped) < rows; i-- {
		wrapped = append(tview.WordWrap(chatLineText(c.lines[i]), width), wrapped...)
	}
	wrapped = wrapped[max(len(wrapped)-rows, 0):]
	for i, line := range wrapped {
		tview.Print(screen, line, x, y+i, width, tview.AlignLeft, tview.Styles.PrimaryTextColor)
	}
}

// InputHandler opens, edits, sends and cancels the input line.
func (c *ChatPane) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return c.WrapInputHandler(func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
		if !c.open {
			if event.Key() == tcell.KeyEnter {
				c.open = true
				c.input = c.input[:0]
			}
			return
		}
		switch event.Key() {
		case tcell.KeyEnter:
			text := strings.TrimSpace(string(c.input))
			c.open = false
			c.input = c.input[:0]
			if text != "" && c.send != nil {
				c.send(text)
			}
		case tcell.KeyEscape:
			c.open = false
			c.input = c.input[:0]
		case tcell.KeyBackspace, tcell.KeyBackspace2:
			if len(c.input) > 0 {
				c.input = c.input[:len(c.input)-1]
			}
		case tcell.KeyRune:
			if r := event.Rune(); len(c.input) < chatMaxInput && r != utf8.RuneError {
				c.input = append(c.input, r)
			}
		}
	})
}
