// Package game is the lockstep session of AckAttack: the message types that travel over the
// UDP stack, commands scheduled commandLeadTime ahead, enemies spawned and killed by the server,
// chat, unit-hash checks, real-time and stop-the-world re-sync, the host loops and the bots.
//
// One goroutine owns each host's state (its session, its world, its network endpoints). The
// user interface reads immutable snapshots and sends intents; nothing else touches the state.
//
// Hosts talk in messages (PlayerInfo, Command, Chat, Pause, …), each the payload of one message
// of the stack: a type byte, then its fields, with exactly one valid encoding per value.
// AppendMsg writes one and ParseMsg reads one, refusing anything malformed without panicking.
// Each type travels guaranteed, unreliable or sync, and depends only on what it cannot do
// without, so a lost packet holds back as little as possible: a command depends on nothing,
// because it names the frame it runs at, while a kill depends on the spawn of its enemy.
// PROTOCOL.md has the table of messages, the reasons and the bytes.
package game
