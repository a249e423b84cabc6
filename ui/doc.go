// Package ui is AckAttack's terminal interface (tview and tcell): the map, chat, orders, the
// live debug panel that shows the dependency graph, ack state, hash mismatches and re-sync
// pauses, and the sliders that set packet loss, latency, jitter and duplication.
//
// The UI reads one immutable snapshot per frame and sends intents back; it never touches game
// state and never blocks the host loop.
//
// Two widgets are the building blocks so far, both plain tview primitives that
// keep their own small state and draw it. MapView draws a world's terrain
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
// ones the lab was designed for. Both are tested on a simulated screen, whose
// drawn contents are kept as golden files under testdata. For the debug panel,
// AckView shows one endpoint's acknowledgements (the last 32 sent packets as
// acked, lost or in flight, the ack bits, round-trip time with a sparkline,
// loss and drop counters) and GraphView lists the messages held back by a
// dependency on each side, with DOT giving the same graph to Graphviz.
//
// ChatPane shows the latest chat lines, each player's name in a colour
// derived from the name, and everything a player typed escaped, so a message
// cannot recolour the screen with tview's tags; Enter opens its input line,
// Enter sends and Esc cancels. StatusLine is one line with the frame, lead,
// round-trip time, loss, byte rates and the coloured connection state, and on
// a narrow terminal it drops the byte rates first, then the loss, so the state
// always stays readable.
package ui
