// Package hostloop runs a game session on a real UDP socket with the wall clock: the thin loop
// that the sessions of package game leave out on purpose. A game.Server or game.Client does no
// I/O: it takes datagrams (Handle) and the time (Tick) as arguments, sends through a
// transport.Writer, and says when it next has work (NextDeadline). That is what lets a test
// run a whole game over a simulated network in virtual time, seeded and repeatable. Something
// still has to own a socket, read the clock and wait, and that is all this package does.
//
// # The map
//
// Everything is in hostloop.go:
//
//	loop       the loop both share: Tick, wait for the session's NextDeadline, a datagram, an
//	           intent or the end, hand the datagram (or run the intent) with time.Now();
//	           Do and TryDo (intents), Link and SetLink (the socket's link conditioner),
//	           Report (the --stats report once Run returned)
//	Server     a game.Server on a socket: NewServer, Addr, Snapshot, Stats, Run
//	Client     a game.Client on one socket for its server connection and its direct links:
//	           NewClient, Addr, Snapshot, Stats, Run
//
// # Usage
//
//	c, err := hostloop.NewClient(game.ClientConfig{Connect: "127.0.0.1:7777", Name: "ann"})
//	go c.Run(ctx) // the loop: it alone calls the session
//	snap := c.Snapshot() // from any goroutine: an immutable copy
//	c.TryDo(func(s *game.Client, now time.Time) { s.Say(now, "gg") }) // an intent, run on the loop
//
// # Rules
//
//   - One goroutine, the loop's, owns the session: it is the only one that calls its methods.
//     Another goroutine (a user interface, a test) reads the session's immutable snapshots at
//     any time and asks for changes with intents, functions the loop runs between two
//     datagrams with the current time. Do waits for room in the intent queue; TryDo never
//     blocks (a screen must not), and reports false when the queue is full.
//   - A second goroutine reads the socket and hands datagrams to the loop over a channel
//     (transport.Socket); the link conditioner behind the sliders sits under that socket.
//   - Run closes the socket when it returns; Report is valid after that.
package hostloop
