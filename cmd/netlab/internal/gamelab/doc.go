// Package gamelab holds netlab's experiments on whole games: a server and bot clients of
// package game, all on game.Virtual, so a game of a minute at 20% loss runs in a second or two
// of wall time and repeats exactly with its seed.
//
// # Finding and repairing drift (resync.go)
//
// Lockstep hosts run the same simulation; only orders travel. A host whose world drifts (a
// late command fast-forwarded, a bug, or the debug key that corrupts units on purpose) must be
// found and repaired, or its player sees a different game. Clients report the root of a hash
// tree over their units; the server compares it with its own history, drills down the tree to
// the units that differ, and repairs them in real time, or, when too many differ, stops the world and
// re-syncs everybody. The experiment injects desyncs with Client.InjectDesync, the same
// machinery as the debug key, and measures what a player would: how long until the server
// noticed, how long until the client's units were right again, how long everybody's game
// froze. It runs with --late rollback (late events re-simulated exactly) and --late
// fastforward (the classic lockstep fast-forward, which makes drift of its own).
//
// # Scale (scale.go)
//
// How do the bytes and the server's work grow with clients and units? Lockstep sends orders,
// not state, so the bytes a client receives should barely depend on the units, nor should
// what it sends (its orders, and one root hash of its units a second), while what the server
// computes (every unit, every frame) grows with them. The experiment puts the units in place at once (game.Populate) and measures a window
// of play. A game has 8 seats; the clients beyond them join the running game as spectators
// (up to 32), which get every order through the server and give none, and are measured
// apart from the players. The bytes are the game's, repeatable; the server's work is this
// machine's wall time around each call into its session, and is labelled so.
package gamelab
