// Package ui is AckAttack's terminal interface (tview and tcell): the map, orders and chat,
// the status line, the live debug panel that shows the message dependency graph, the acks, the
// hash mismatches and the re-sync pauses, the sliders that set the link's loss, latency, jitter
// and duplication, the lessons' panel and menu, and the replay of a capture. It reads the
// game's immutable snapshots once a frame and sends intents back; it never touches game state
// and never blocks the host loop. IDEAS.md says which debug view shows which idea.
//
// # The map
//
// The screens:
//
//	app.go          RunClient, RunServer: a screen in a tview application, redrawn once a
//	                frame by one ticker goroutine; ClientOptions, ServerOptions
//	host.go         ClientHost and ServerHost, what a screen reads and the intents it sends
//	                (GameClient, GameServer wrap game/hostloop); OrderTicket
//	client.go       ClientScreen: map, orders line, sliders, chat, status line, debug panel
//	client_lesson.go  the lesson on the client's screen, walked once a frame in Refresh; its
//	                panel in the side column, or under the map where the side has no room
//	server.go       ServerScreen: the player table, the map, the event log, the server's or
//	                the class's sliders
//	server_graph.go the teacher's waves (w), which make messages wait in the class's graphs,
//	                and the server's graph of a connection, where the pruned edges are
//	server_kick.go  the teacher's kick (K) on the server's screen, asked and confirmed
//	server_table.go the player table's columns at any width: said shorter, cut, left out
//	replay.go       ReplayScreen and RunReplay (--replay): the debug panel fed by game/replay,
//	                the capture's events and a timeline
//
// The widgets, each a plain tview primitive that keeps its own small state:
//
//	mapview.go      MapView: terrain and units, a cursor that picks cells for orders
//	legend.go       the map's legend of its letters, on its bottom border
//	debugpanel.go   DebugPanel: the four views behind a tab bar (1 graph, 2 acks, 3 hashes,
//	                4 pauses); DebugData, what the host hands it each frame
//	graphview.go, graphmodel.go  GraphView: the latest guaranteed messages sent and received
//	                as a dependency graph, pruned dependencies dotted; freeze (f) and step (.)
//	                through the history, the next 256 messages each way at any point of a
//	                long game; DOT export
//	ackview.go      AckView: the last 32 packets as cells, the ack bits, RTT with a sparkline,
//	                loss, stale and duplicate counters; AckDataFrom
//	syncviews.go    MismatchView (each hash mismatch, both hashes of every unit, the repair)
//	                and PauseView (the stop-the-world pauses and their lengths)
//	linkpanel.go, slider.go  LinkPanel and Slider: the network lab; LinkPresets (F5-F9)
//	status.go       StatusLine: frame, lead, RTT, loss, rates, the link, the coloured state
//	chat.go         ChatPane: the chat, with everything typed escaped
//	eventlog.go     the server's event log: the newest 2000 lines, following or scrolled back
//	lesson.go       LessonPanel and LessonMenu (game/lesson's scripts)
//	help.go         HelpOverlay; ClientKeys, ServerKeys, ReplayKeys (the README's key tables
//	                are checked against them)
//	frame.go, chrome.go  drawing helpers: borders without clearing, colours; hintLine, the
//	                hint lines of both screens, which leave out whole hints that do not fit
//
// # Usage
//
//	// The game runs on its own goroutine (game/hostloop); the screen only reads and asks.
//	go client.Run(ctx)
//	err := ui.RunClient(ctx, ui.ClientOptions{Client: client})
//
//	// A test drives a screen on a simulated terminal with a host of its own:
//	err := ui.RunClient(ctx, ui.ClientOptions{Host: fakeHost, Screen: tcell.NewSimulationScreen("")})
//
// # Rules
//
//   - Read snapshots, send intents: everything a screen shows comes from a ClientHost or
//     ServerHost, read once a frame by Refresh; everything the user does goes back as an
//     intent the host's loop runs (TryDo: a full queue is said on screen, not waited for).
//   - One goroutine, the ticker, calls tview's QueueUpdateDraw and is also the one that stops
//     the application (a QueueUpdate after Run returned would wait forever). Key and mouse
//     handlers only change widgets, and layout never calls the application.
//   - A widget draws inside its rectangle at any size, down to a single cell; the widgets are
//     tested on a simulated screen against golden files under testdata (go test ./ui -update
//     rewrites them).
//   - Nothing a player typed reaches the screen unescaped: a name or chat line cannot recolour
//     it with tview's tags.
package ui
