// Package hostloop runs a game session on a real UDP socket with the wall clock: the thin
// loop that the sessions of package game leave out on purpose.
//
// A game.Server or game.Client does no I/O. It takes datagrams (Handle) and the time (Tick)
// as arguments, sends through a transport.Writer, and says when it next has work
// (NextDeadline). That is what lets a test run a whole game over a simulated network in
// virtual time, seeded and repeatable. Something still has to own a socket, read the clock
// and wait, and that is all this package does:
//
//	for {
//	    session.Tick(time.Now())
//	    sleep until session.NextDeadline, a datagram, an intent or the end
//	    hand the datagram (or run the intent) with time.Now()
//	}
//
// One goroutine, the loop's, owns the session: it is the only one that calls its methods.
// Another goroutine (a user interface, a test) reads the session's immutable snapshots at
// any time, and asks for changes by sending intents, functions that the loop runs between
// two datagrams with the current time (Do, or TryDo, which never blocks a screen). A second
// goroutine reads the socket and hands datagrams to the loop over a channel
// (transport.Socket); the link conditioner behind the sliders sits under that socket.
package hostloop
