// Package ui is AckAttack's terminal interface (tview and tcell): the map, chat, orders, the
// live debug panel that shows the dependency graph, ack state, hash mismatches and re-sync
// pauses, and the sliders that set packet loss, latency, jitter and duplication.
//
// The UI reads one immutable snapshot per frame and sends intents back; it never touches game
// state and never blocks the host loop.
//
// # The screens
//
// ClientScreen and ServerScreen compose the widgets below. The client's has the map with an
// orders line under it (the selection, the latest order as it goes from "sent" to "pending
// until frame F" to "ran at frame F", what the cursor is on), the link sliders and the chat on
// the right and the status line at the bottom; the server's has the player table (its title
// counts the datagrams the server rejected, with the largest reasons), the map as a spectator
// sees it, the event log and the server's own sliders. Both have the debug panel
// (d or F2; beside the map on a tall terminal, in its place on a short one) and the help
// overlay (? or F1). Everything they show comes from a ClientHost or ServerHost, read once a
// frame by Refresh; everything the user does goes back as an intent that the host's loop runs
// (TryDo: if its queue is full the screen says so instead of waiting). An order's
// OrderTicket tells the screen the frame the host scheduled it for.
//
// ReplayScreen (RunReplay, --replay) plays a capture back: the same debug panel, fed the
// snapshots game/replay rebuilds from the recorded datagrams, beside the capture's events and
// under a timeline of the current datagram, with pause, step, speed and a seek to the next
// re-sync. It takes its time only from Refresh, so a test drives it with a clock of its own.
//
// RunClient and RunServer run a screen in a tview application. One goroutine, the ticker,
// calls QueueUpdateDraw once a frame. tview's QueueUpdate waits until the event loop has run
// the function, so a call made after Run returned would wait forever: the ticker is therefore
// also the one that stops the application, on q or when the context ends, and it starts only
// once the first frame is drawn. Key and mouse handlers only change widgets, and layout never
// calls the application (it can run inside tview's draw, which holds the application's lock):
// a widget that lost the focus to a new layout gets it back at the next key or frame.
//
// The screens draw on the terminal's own background. tview clears the screen before every
// frame, so a box filling its rectangle with blanks again was pure waste (half of a 200×60
// frame); drawFrame draws a widget's border and title without it, and MapView writes its cells
// as one-character strings made once. BENCHMARKS.md has the numbers.
//
// # The widgets
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
// loss and drop counters) and GraphView draws the connection's latest guaranteed
// messages as a dependency graph, the sent ones beside the received ones: a row per
// message with its number, its game type and its state (queued, in flight, acked,
// executed, waiting on #n, not arrived), and the edges to its dependencies in lanes on
// the left, dotted where the sender pruned them. It reads the message layer's history,
// where every message carries the time of each of its steps, so f freezes it at a moment
// and . steps it to the next thing one message did, with every state as it was then: the
// kill that arrived before its spawn waits in red until the step where the spawn's resend
// arrives. DOT gives the same graph to Graphviz.
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
// a tab; f and . freeze and step the graph), one at a time so each gets the
// whole panel; the host hands it one DebugData per frame. The packet layer reports only its latest round-trip
// sample, so the panel collects them for AckView's sparkline.
//
// LinkPanel is the network lab: four Sliders for loss, latency, jitter and
// duplication, with ranges that stop where the game is still playable. It
// keeps the focus itself, moves between its sliders with Up and Down and
// passes the other keys and the mouse to the picked one; SetSettings shows
// settings that came from elsewhere without reporting them as a change.
// HelpOverlay is the "?" box listing ClientKeys or ServerKeys (the README's
// key tables are checked against them), drawn centred over the game on a top
// page of tview.Pages and scrolled when the terminal is too short for it.
//
// LessonPanel is a guided lesson's side panel (game/lesson): the steps, done ones ticked,
// the step up unfolded with its text as one wrapped paragraph, things to try and the events
// it waits for with how far each has come, and the counters the lesson shows; on a short
// panel the steps to come and done give way first. LessonMenu lists the lessons over the game
// (F4 or c); a lesson runs its own embedded game, so picking one ends the game on screen, and
// the caller (cmd/client) starts the lesson's. The client screen walks the lesson on screen
// once a frame, in Refresh, through the lesson's Driver, which reads the game's snapshots and
// hands the game the lesson's actions as intents.
//
// ChatPane shows the latest chat lines, each player's name in a colour
// derived from the name, and everything a player typed escaped, so a message
// cannot recolour the screen with tview's tags; Enter opens its input line,
// Enter sends and Esc cancels. StatusLine is one line with the frame, lead,
// round-trip time, loss, byte rates, the lab's link settings (LinkText) and
// the coloured connection state, and on a narrow terminal it drops the byte
// rates first, then the link settings, then the loss, so the state always
// stays readable.
package ui
