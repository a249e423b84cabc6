// Package gamelab holds netlab's experiments on whole games: a server and bot clients of
// package game, all on game.Virtual, so a game of a minute at 20% loss runs in a second or two
// of wall time and repeats exactly with its seed.
//
// # The map
//
//	game.go    startGame: a server and its bot clients (and spectators) on one virtual network,
//	           the units put in place at once, every connection's bytes counted
//	resync.go  RunResync: desyncs injected one after the other; time to detect, time to
//	           repair, stop-the-world pauses (with --late rollback and fastforward)
//	scale.go   RunScale: bytes per client and the server's work as clients and units grow
//
// # Usage
//
//	r, err := gamelab.RunResync(gamelab.ResyncConfig{Link: link, Seed: 1, Injections: 16,
//		Clients: 4, Units: 1000, Late: game.LateRollback})
//	s := r.Section(command) // a report.Section
//
// # Rules
//
//   - Everything runs in virtual time and is seeded, except the server's work in scale (the
//     wall time of its calls: that is the point of measuring it), which --deterministic
//     leaves out.
//   - The experiments drive the real sessions (game.Server, game.Client) and inject desyncs
//     with the same machinery as the debug key.
package gamelab
