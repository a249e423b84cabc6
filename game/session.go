package game

import (
	"time"

	"github.com/ackattack/ackattack/net/transport"
)

// Session is what drives a host, a *Server or a *Client: a loop on a real socket
// (game/hostloop) or a game in virtual time in the tests. Datagrams come in through Handle,
// time through Tick; NextDeadline says when Tick next has work; Intent marks that something
// outside (a screen) changed the session; Shutdown ends it.
type Session interface {
	Handle(now time.Time, d transport.Datagram)
	Tick(now time.Time)
	NextDeadline(now time.Time) time.Time
	Intent(now time.Time)
	Shutdown(now time.Time)
}

var (
	_ Session = (*Server)(nil)
	_ Session = (*Client)(nil)
)
