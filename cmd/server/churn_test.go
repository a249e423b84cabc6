package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
)

// TestChurnFreesTheSeats: students start clients and kill them (kill -9, no goodbye), each
// start a new player id. The server (--bots 1 --seat-hold 1s) frees every vanished player's
// seat after the hold, so a client that comes after the churn joins and plays in lockstep
// with the server. It runs in virtual time (vclass_test.go); game's
// TestChurnNeverFillsTheServer plays the same at length.
func TestChurnFreesTheSeats(t *testing.T) {
	t.Parallel()
	c := startVClass(t, 16, 8*time.Second, func(cfg *game.ServerConfig) { cfg.Places.SeatHold, cfg.MinPlayers = time.Second, 0 })
	c.srvProc.end = time.Time{} // the server runs until the late client has played
	// Nine starts for seven free seats, all killed once they have joined: seven play, two
	// watch (the game is full).
	var kids []string
	for i := range 9 {
		kids = append(kids, "kid"+strconv.Itoa(i))
	}
	c.joinFor(0, kids...)
	c.waitFor(30*time.Second, "every kid in the game", func() bool {
		for _, p := range c.players {
			if p.c.Transport().State() != transport.Connected || !p.c.Snapshot().Started {
				return false
			}
		}
		return len(c.srv.Snapshot().Seats) == 8
	})
	for _, p := range c.players {
		p.p.kill()
	}
	// Every vanished player times out (5 s) and its hold runs out (1 s): the player table has
	// the bot alone.
	c.waitFor(30*time.Second, "every kid's seat freed", func() bool { return len(c.srv.Snapshot().Seats) == 1 })
	if freed := c.srv.Snapshot().Stats.SeatsFreed; freed < 7 {
		t.Errorf("%d seats freed after 7 players vanished", freed)
	}
	c.srvProc.end = c.v.Now().Add(c.play + udpServerExtra)
	c.join("late")
	srv, clients := c.finish()
	r := clients["late"]
	if r.Frame == 0 || len(r.WorldHashes) == 0 {
		t.Errorf("the client after the churn did not play: frame %d, %d world hashes", r.Frame, len(r.WorldHashes))
	}
	checkHonest(t, srv, clients, false)
}
