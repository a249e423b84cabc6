// Package ui is AckAttack's terminal interface (tview and tcell): the map, chat, orders, the
// live debug panel that shows the dependency graph, ack state, hash mismatches and re-sync
// pauses, and the sliders that set packet loss, latency, jitter and duplication.
//
// The UI reads one immutable snapshot per frame and sends intents back; it never touches game
// state and never blocks the host loop.
//
// Every widget is a plain tview primitive that keeps its own small state and
// draws it inside its rectangle, at any size down to a single cell. MapView draws a world's terrain
// ('#' wall, '~' water, '.' ground) with the units of the latest snapshot on
// top, each as its kind's letter: the player's own units in one colour,
// allies in another, enemies red and dead enemies dimmed, the selection
// highlighted. A cursor, moved with the arrow keys or h, j, k, l, picks the
// cell an order is about; on a map larger than the terminal the view scrolls
// only when the cursor comes near its edge, so the picture does not jump
// under the player's eyes. Slider is a one-line bar with a number and unit
// ("loss  [#######-------]  30%") for the network lab's knobs: keys step it,
// a click or drag on the bar sets it, and every value is clamped to its range
// and snapped to its step, so the link settings a student can reach are the
// ones the lab was designed for. The widgets are tested on a simulated
// screen, whose drawn contents are kept as golden files under testdata. For
// the debug panel, AckView shows one endpoint's acknowledgements (the last 32 sent packets as
// acked, lost or in flight, the ack bits, round-trip time with a sparkline,
// loss and drop counters) and GraphView lists the messages held back by a
// dependency on each side, with DOT giving the same graph to Graphviz.
//
// MismatchView and PauseView show the game's sync log, newest first. A
// client reports hashes of its units in groups of ids; when a group differs
// from the server's, the server drills down to the single units and repairs
// them, either in real time (their state applied at a frame every host has
// yet to reach) or, when that frame cannot be reached in time, by stopping
// the world. MismatchView lists each check that found a difference, the
// units with both hashes and the repair chosen (yellow for real time, red for
// stop-the-world); PauseView lists the pauses with their lengths and the
// median and longest of them. DebugPanel puts the four views behind a tab
// bar (1 graph, 2 acks, 3 hashes, 4 pauses; n or F3 for the next, a click on
// a tab), one at a time so each gets the whole panel; the host hands it one
// DebugData per frame. The packet layer reports only its latest round-trip
// sample, so the panel collects them for AckView's sparkline.
//
// LinkPanel is the network lab: four Sliders for loss, latency, jitter and
// duplication, with ranges that stop where the game is still playable. It
// keeps the focus itself, moves between its sliders with Up and Down and
// passes the other keys and the mouse to the picked one; SetSettings shows
// settings that came from elsewhere without reporting them as a change.
// HelpOverlay is the "?" box listing ClientKeys or ServerKeys, drawn centred
// over the game on a top page of tview.Pages and scrolled when the terminal
// is too short for it.
//
// ChatPane shows the latest chat lines, each player's name in a colour
// derived from the name, and everything a player typed escaped, so a message
// cannot recolour the screen with tview's tags; Enter opens its input line,
// Enter sends and Esc cancels. StatusLine is one line with the frame, lead,
// round-trip time, loss, byte rates, the lab's link settings (LinkText) and
// the coloured connection state, and on a narrow terminal it drops the link
// settings first, then the byte rates, then the loss, so the state always
// stays readable.
package ui
