// Package ui is AckAttack's terminal interface (tview and tcell): the map, chat, orders, the
// live debug panel that shows the dependency graph, ack state, hash mismatches and re-sync
// pauses, and the sliders that set packet loss, latency, jitter and duplication.
//
// The UI reads one immutable snapshot per frame and sends intents back; it never touches game
// state and never blocks the host loop.
package ui
