// Package game is the lockstep session of AckAttack: the message types that travel over the
// UDP stack, commands scheduled commandLeadTime ahead, enemies spawned and killed by the server,
// chat, unit-hash checks, real-time and stop-the-world re-sync, the host loops and the bots.
//
// One goroutine owns each host's state (its session, its world, its network endpoints). The
// user interface reads immutable snapshots and sends intents; nothing else touches the state.
package game
