package lesson

import (
	"slices"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
)

// Observation is what a lesson looks at, once a tenth of a second: the snapshots the game
// publishes anyway, read on the lesson's own goroutine. None of it is ever changed.
type Observation struct {
	// Client is the player's host, Link its connection to the server (with the message
	// histories when its debug views are on).
	Client *game.ClientSnapshot
	Link   transport.PeerStats
	// Server is the embedded server (nil when the lesson cannot see it), ServerLink the
	// server's end of the player's connection.
	Server     *game.ServerSnapshot
	ServerLink transport.PeerStats
}

// Key names one counter: an event, and for the events that count messages by their game
// type, the type ("" for every type).
type Key struct {
	Event, Type string
}

// Counters are the values of the events at one moment. A counter missing is 0.
type Counters map[Key]uint64

// event is one word of the vocabulary a script's until and show lines use: a counter the
// game already keeps, read from an Observation. Each is a count that only grows (a gauge, a
// value that goes up and down, says so). An until line names a counter, never a line of the
// log: packets the acks showed lost, messages that waited in the graph, sync messages
// acknowledged, fragments resent. Most are read straight from the snapshots the game publishes
// for its screens anyway (the player's connection, both ends of it, the player's host); a few
// need the message histories over time, which the Meter works out.
type event struct {
	name  string
	what  string // what the lesson panel calls it
	unit  string // "ms", or "" for a count
	gauge bool   // a value that can also fall (README.md says so): until ... >=N fits it, +N rarely does
	typed bool   // counted by game message type too (type=NAME)
	// read reads the counter from an observation; nil for the ones the Meter works out from
	// the message histories.
	read func(o *Observation) uint64
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func ms(o interface{ Milliseconds() int64 }) uint64 { return uint64(max(o.Milliseconds(), 0)) }

// events is the vocabulary, in the order assets/lessons/README.md lists it (a test checks
// the README against it).
var events = []event{
	// The player's connection, as the player's host sees it.
	{name: "packets-sent", what: "packets the player's host sent", read: func(o *Observation) uint64 { return o.Link.PacketsSent }},
	{name: "packets-received", what: "packets from the server accepted", read: func(o *Observation) uint64 { return o.Link.PacketsReceived }},
	{name: "packets-acked", what: "packets the server acknowledged", read: func(o *Observation) uint64 { return o.Link.Message.Packet.PacketsAcked }},
	{name: "packets-lost", what: "packets the server's acks showed lost", read: func(o *Observation) uint64 { return o.Link.Message.Packet.PacketsLost }},
	{name: "messages-sent", what: "guaranteed messages sent to the server", read: func(o *Observation) uint64 { return o.Link.GuaranteedSent }},
	{name: "messages-resent", what: "guaranteed messages sent again to the server", read: func(o *Observation) uint64 { return o.Link.GuaranteedResent }},
	{name: "messages-received", what: "guaranteed messages from the server executed", read: func(o *Observation) uint64 { return o.Link.GuaranteedExecuted }},
	{name: "messages-waited", what: "messages that waited in the graph for a dependency", typed: true,
		read: func(o *Observation) uint64 { return o.Link.Message.Waited }},
	{name: "hol-avoided", what: "messages one ordered channel would have held, the graph did not", typed: true},
	{name: "graph-wait-ms", what: "waited in the graph, all told", unit: "ms", typed: true},
	{name: "ordered-wait-ms", what: "one ordered channel would have waited", unit: "ms", typed: true},
	{name: "messages-compared", what: "messages measured both ways", typed: true},
	{name: "fragments-received", what: "fragments received from the server", read: func(o *Observation) uint64 { return o.Link.Message.FragmentsReceived }},

	// The server's end of the same connection.
	{name: "server-messages-resent", what: "server's messages sent again", read: func(o *Observation) uint64 { return o.ServerLink.GuaranteedResent }},
	{name: "server-deps-sent", what: "dependencies the server put on the wire", read: func(o *Observation) uint64 { return o.ServerLink.DependencyBytes / 2 }},
	{name: "server-deps-pruned", what: "dependencies the server pruned", read: func(o *Observation) uint64 { return o.ServerLink.Message.PrunedDeps }},
	{name: "server-sync-sent", what: "sync messages the server sent", read: func(o *Observation) uint64 { return o.ServerLink.Message.SyncSent }},
	{name: "server-sync-acked", what: "sync messages acknowledged", read: func(o *Observation) uint64 { return o.ServerLink.Message.SyncAcked }},
	{name: "server-sync-wait-ms", what: "the server waited for sync acks", unit: "ms", read: func(o *Observation) uint64 { return ms(o.ServerLink.Message.SyncWait) }},
	{name: "server-held-by-sync", what: "messages held back behind a sync message", read: func(o *Observation) uint64 { return o.ServerLink.Message.HeldBySync }},
	{name: "server-fragments-sent", what: "fragments the server sent", read: func(o *Observation) uint64 { return o.ServerLink.Message.FragmentsSent }},
	{name: "server-fragments-resent", what: "fragments the server sent again", read: func(o *Observation) uint64 { return o.ServerLink.Message.FragmentsResent }},
	{name: "partial-resends", what: "fragmented messages with some, not all, fragments sent again"},

	// The game on the player's host.
	{name: "game-started", what: "the game started", read: func(o *Observation) uint64 { return b2u(o.Client.Started) }},
	{name: "frames", what: "frames run", read: func(o *Observation) uint64 { return uint64(o.Client.Frame) }},
	{name: "spawns", what: "enemies spawned", read: func(o *Observation) uint64 { return o.Client.Game.EnemiesSpawned }},
	{name: "kills", what: "enemies killed", read: func(o *Observation) uint64 { return o.Client.Game.EnemiesKilled }},
	{name: "chat-lines", what: "chat lines", read: func(o *Observation) uint64 { return o.Client.ChatTotal }},
	{name: "lead-ms", what: "lead time", unit: "ms", gauge: true, read: func(o *Observation) uint64 { return uint64(max(o.Client.Game.LeadTimeMillis, 0)) }},
	{name: "lead-changes", what: "lead time changes", read: func(o *Observation) uint64 { return o.Client.Game.LeadTimeChanges }},
	{name: "commands-late", what: "commands applied after their frame", read: func(o *Observation) uint64 { return o.Client.Game.CommandsLate }},
	{name: "resimulations", what: "times the world went back and ran again", read: func(o *Observation) uint64 { return o.Client.Sync.Resimulations }},
	{name: "fast-forwards", what: "late events fast-forwarded", read: func(o *Observation) uint64 { return o.Client.Sync.LateBeyondWindow }},
	{name: "hash-reports", what: "hash reports sent", read: func(o *Observation) uint64 { return o.Client.Sync.HashReports }},
	{name: "mismatched-groups", what: "groups the server drilled into that differed", read: func(o *Observation) uint64 { return o.Client.Sync.MismatchedGroups }},
	{name: "mismatched-units", what: "units repaired", read: func(o *Observation) uint64 { return o.Client.Sync.MismatchedUnits }},
	{name: "realtime-resyncs", what: "real-time re-syncs", read: func(o *Observation) uint64 { return o.Client.Sync.RealtimeResyncs }},
	{name: "stop-world-resyncs", what: "stop-the-world re-syncs", read: func(o *Observation) uint64 { return o.Client.Sync.StopWorldResyncs }},
	{name: "paused", what: "paused now", gauge: true, read: func(o *Observation) uint64 { return b2u(o.Client.Paused) }},
	{name: "pauses-done", what: "pauses over"},

	// The lesson's own clock.
	{name: "seconds", what: "seconds in this step", unit: "s"},
}

// secondsEvent is the one event the runner counts itself: seconds since the step began.
const secondsEvent = "seconds"

// eventNamed returns the vocabulary's entry for name.
func eventNamed(name string) (*event, bool) {
	i := slices.IndexFunc(events, func(e event) bool { return e.name == name })
	if i < 0 {
		return nil, false
	}
	return &events[i], true
}

// EventNames lists the vocabulary, for messages and documentation.
func EventNames() []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.name
	}
	return out
}

// Label is what the lesson panel calls the counter k ("messages that waited in the graph
// for a dependency (KillEnemy)").
func Label(k Key) string {
	e, ok := eventNamed(k.Event)
	if !ok {
		return k.Event
	}
	if k.Type != "" {
		return e.what + " (" + k.Type + ")"
	}
	return e.what
}

// Unit is the unit of the counter's values: "ms", "s" or "" for a count.
func Unit(k Key) string {
	if e, ok := eventNamed(k.Event); ok {
		return e.unit
	}
	return ""
}

// msgTypeNamed is the game message type called name (as in PROTOCOL.md: "KillEnemy").
func msgTypeNamed(name string) (game.MsgType, bool) {
	for t := 1; t <= 255; t++ {
		if game.MsgType(t).String() == name {
			return game.MsgType(t), true
		}
	}
	return 0, false
}

// typeName names a recorded message by its first byte (its game type).
func typeName(first int16) string {
	if first <= 0 || first > 255 {
		return "?"
	}
	return game.MsgType(first).String()
}

// read fills c with the counters an observation holds (its Client must not be nil).
func read(o *Observation, c Counters) {
	for i := range events {
		if e := &events[i]; e.read != nil {
			c[Key{Event: e.name}] = e.read(o)
		}
	}
}
