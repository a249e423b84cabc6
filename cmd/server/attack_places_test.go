package main

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// The attacks on the places (game/places.go): one program that takes the spectators' places
// or the seats, from one address or from every address of one network, so that the class
// cannot get in. Each ends with the class's honest clients in: the spectators, the projector
// from the server's own host, and the players in seats.

// projectorAddr is the teacher's projector: a spectator on the server's own machine
// (--connect 127.0.0.1:7777 --spectate), at the server's address with a port of its own.
var projectorAddr = netip.MustParseAddrPort("127.0.0.1:40999")

// dialSpectators opens n spectator connections of the student's program (the handshake's
// observer role, as --spectate asks), one from each address of addrs in turn, each named after
// its address, and returns them.
func (c *vclass) dialSpectators(n int, addrs func(i int) netip.AddrPort) []*attacker {
	var out []*attacker
	for i := range n {
		a := addrs(i)
		cfg := transport.ClientConfig{Name: fmt.Sprintf("eve%d-%d", a.Addr().As4()[3], a.Port()), Role: wire.RoleObserver}
		out = append(out, c.dialAttackerFrom(a, c.v.AddNodeLinkedTo(a, c.srvAddr, classLink), c.srvAddr, cfg, nil))
	}
	return out
}

// settled runs the class until each of the connections is in the game (a seat's secret, or
// a spectator's number, came) or has ended, for up to d.
func (c *vclass) settled(d time.Duration, conns []*attacker) {
	c.v.RunUntil(c.v.Now().Add(d), func() bool {
		for _, a := range conns {
			if count[*game.PlayerSecret](a)+count[*game.Spectate](a) == 0 && a.c.State() != transport.Disconnected {
				return false
			}
		}
		return true
	})
}

// placesOf counts the connections that are up, and those kicked with a text that says one of
// have.
// conns are the program's connections in virtual time or over real UDP.
func placesOf[A interface{ stats() transport.ClientStats }](conns []A, have ...string) (up, told int) {
	for _, a := range conns {
		st := a.stats()
		switch {
		case st.State == transport.Connected:
			up++
		case st.Reason == wire.DisconnectKicked && slices.ContainsFunc(have, func(h string) bool { return strings.Contains(st.Text, h) }):
			told++
		}
	}
	return up, told
}

// noRoom are the texts of a spectator the server has no place for: every place is taken,
// and a seat is free, or not.
var noRoom = []string{"no room for another spectator", "the game is full"}

// checkWatched: each of names played to the end as a spectator, not in a seat.
func checkWatched(t testing.TB, clients map[string]game.Report, names ...string) {
	t.Helper()
	for _, name := range names {
		if r, ok := clients[name]; !ok || r.Spectator == 0 {
			t.Errorf("%s did not watch: spectator number %d", name, r.Spectator)
		}
	}
}

// attackSpectatorPlacesOneNetwork: the student's program opens a spectator's connection from
// every address of one /24 it can, as many as the server has places for spectators and 8 more
// (40 when there were 32 places: 32 got in, and every honest spectator after them was refused,
// the projector too). Four honest spectators then join from the class's own network, and the
// teacher's projector from the server's own host: each gets in and watches the game to the
// end. The program's network holds more than its share of the places: each honest newcomer
// takes back one of them, whose connection is told why, and its extra connections are refused
// with the reason.
func attackSpectatorPlacesOneNetwork(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	// Each host ticked at its own deadlines, as a real host loop is: a class of 270 hosts
	// then plays in seconds rather than a minute.
	c.v.TickAtDeadlines()
	c.join("ann", "bob")
	c.run(2 * time.Second)
	eve := c.dialSpectators(game.MaxSpectators+8, func(i int) netip.AddrPort {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 9, byte(1 + i%250)}), uint16(40000+i/250))
	})
	c.settled(10*time.Second, eve)
	in, refused := placesOf(eve, noRoom...)
	t.Logf("the program's connections: %d in, %d refused", in, refused)

	c.watch("sam", "tom", "uma", "vic")
	c.watchFrom(projectorAddr, "projector")
	c.run(5 * time.Second)
	left, told := placesOf(eve, "your place went to a newcomer: your network holds")
	srv, clients := c.finish()
	t.Logf("then: %d of the program's connections in, %d of them taken back; server: %d spectators joined, %d places taken back, %d refused",
		left, told, srv.Game.Spectators.Joins, srv.Game.Places.SpectatorsTakenBack, srv.Game.Places.SpectatorsRefused)
	checkWatched(t, clients, "sam", "tom", "uma", "vic", "projector")
	if told != 4 || srv.Game.Places.SpectatorsTakenBack != 4 {
		t.Errorf("%d of the program's places taken back with the reason (the server counts %d), want one per honest spectator: 4", told, srv.Game.Places.SpectatorsTakenBack)
	}
	if refused != 8 {
		t.Errorf("%d of the program's connections refused, want the 8 beyond the places", refused)
	}
	checkHonest(t, srv, clients, false)
}

// attackSpectatorPlacesOneAddress: the student's program opens 40 spectators' connections
// from one address, as fast as the server's handshake budget for an address lets it (28 got
// in when there were 32 places, and every honest spectator after them was refused, the
// projector too). Four honest spectators then join from the class's network, and the projector
// from the server's own host: each gets in and watches the game to the end. (Filling all 256
// places from one address takes the budget 80 s; what the server does then, a newcomer taking
// back a place of the address beyond its share, TestPlaceToTakeBack checks.)
func attackSpectatorPlacesOneAddress(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay+10*time.Second, nil) // the 40 take 10 s of it
	c.join("ann", "bob")
	c.run(2 * time.Second)
	from := netip.AddrFrom4([4]byte{127, 0, 7, 1})
	began := c.v.Now()
	var eve []*attacker
	for len(eve) < 40 {
		n := len(eve)
		batch := c.dialSpectators(8, func(j int) netip.AddrPort { return netip.AddrPortFrom(from, uint16(40000+n+j)) })
		c.settled(10*time.Second, batch)
		eve = append(eve, batch...)
	}
	in, refused := placesOf(eve, noRoom...)
	t.Logf("the program's connections from one address: %d in, %d refused, in %v", in, refused, c.v.Now().Sub(began).Round(time.Second))

	c.watch("sam", "tom", "uma", "vic")
	c.watchFrom(projectorAddr, "projector")
	srv, clients := c.finish()
	checkWatched(t, clients, "sam", "tom", "uma", "vic", "projector")
	if in < 32 {
		t.Errorf("the program got %d places: the test wants it to take more than there were", in)
	}
	checkHonest(t, srv, clients, false)
}

// attackSeatsOneAddress: the student's program takes 6 of the 8 seats from one address (it did,
// and the players who came next watched instead of playing). ann takes the last seat; bob,
// cat, dan and fay come after: each gets a seat, taken back from the program's address, which
// keeps its share of 2. Its connection that tries again then finds no seat to take back, and
// watches.
func attackSeatsOneAddress(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	from := netip.AddrFrom4([4]byte{127, 0, 7, 1})
	var eve []*attacker
	for i := range 6 {
		a := netip.AddrPortFrom(from, uint16(40000+i))
		eve = append(eve, c.dialAttackerFrom(a, c.v.AddNode(a, classLink), c.srvAddr, transport.ClientConfig{Name: fmt.Sprintf("eve%d", i+1)}, nil))
	}
	c.settled(10*time.Second, eve)
	c.join("ann")
	seats := eve[0].seated("eve1", "eve2", "eve3", "eve4", "eve5", "eve6", "ann", "bot1")
	t.Logf("the program holds %d seats", len(seats)-2)

	c.joinFor(c.untilEnd(), "bob", "cat", "dan", "fay")
	c.run(5 * time.Second)
	left, told := placesOf(eve, "your place went to a newcomer: your address holds")
	again := c.dialAttackerFrom(netip.AddrPortFrom(from, 40100), c.v.AddNode(netip.AddrPortFrom(from, 40100), classLink), c.srvAddr,
		transport.ClientConfig{Name: "eve7"}, nil)
	again.waitFor(10*time.Second, "the program's seventh connection in", func() bool { return count[*game.Spectate](again) > 0 || again.c.State() == transport.Disconnected })
	srv, clients := c.finish()
	t.Logf("then: %d of the program's seats left, %d taken back; its seventh connection got %d Spectates; server: %d seats taken back",
		left, told, count[*game.Spectate](again), srv.Game.Places.SeatsTakenBack)
	for _, name := range []string{"ann", "bob", "cat", "dan", "fay"} {
		if r := clients[name]; r.Spectator != 0 {
			t.Errorf("%s watched as spectator %d instead of playing", name, r.Spectator)
		}
	}
	if left != game.DefaultSeatsPerAddress || told != 4 || srv.Game.Places.SeatsTakenBack != 4 {
		t.Errorf("the program keeps %d seats, %d taken back with the reason (the server counts %d); want %d and 4",
			left, told, srv.Game.Places.SeatsTakenBack, game.DefaultSeatsPerAddress)
	}
	if count[*game.Spectate](again) == 0 {
		t.Errorf("the program's seventh connection: %s; want it watching, no seat taken back", stateText(again.c.Stats()))
	}
	checkHonest(t, srv, clients, false)
}
