package hostloop

import (
	"context"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
)

// TestDirectLinksAcrossAddresses: players on different machines, as far as one machine can
// show it. On Linux every address of 127.0.0.0/8 is this machine's, so the server listens on
// 127.0.0.1 and each client on an address of its own: 127.0.0.2, 127.0.0.3, and one on every
// interface (what a client bound before it chose the interface that reaches the server, and
// then announced [::]:port as its address). Every socket binds what it was asked, the server
// lists each client at the address it sees it come from, and every client links directly to
// both others.
func TestDirectLinksAcrossAddresses(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("only Linux routes all of 127.0.0.0/8 to the loopback interface")
	}
	for _, a := range []string{"127.0.0.2:0", "127.0.0.3:0"} {
		pc, err := net.ListenPacket("udp", a)
		if err != nil {
			t.Skipf("cannot bind %s: %v", a, err)
		}
		pc.Close()
	}
	// Direct links on: on loopback auto would leave every order to the server's relay alone.
	scfg := game.ServerConfig{Listen: "127.0.0.1:0", Bots: 1, MinPlayers: 3, StartDelay: 200 * time.Millisecond, Orders: game.Orders{Direct: game.DirectOn}}
	srv, err := NewServer(scfg)
	if err != nil {
		t.Fatal(err)
	}
	// The clients stop first: a server that stops first tells them so, and their Run says so.
	sctx, stopServer := context.WithCancel(context.Background())
	defer stopServer()
	ctx, cancel := context.WithCancel(sctx)
	defer cancel()
	serverDone, done := make(chan error, 1), make(chan error, 3)
	go func() { serverDone <- srv.Run(sctx) }()
	var clients []*Client
	for i, listen := range []string{"127.0.0.2:0", "127.0.0.3:0", "0.0.0.0:0"} {
		c, err := NewClient(game.ClientConfig{Connect: srv.Addr(), Listen: listen, Name: []string{"ann", "bob", "cat"}[i], Bot: true, Seed: uint64(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := netip.ParseAddrPort(c.Addr())
		if ask := netip.MustParseAddrPort(listen); err != nil || got.Port() == 0 || got.Addr().Unmap() != ask.Addr() && !ask.Addr().IsUnspecified() {
			t.Errorf("client %d asked for %s and listens on %s", i, listen, c.Addr())
		}
		clients = append(clients, c)
		go func() { done <- c.Run(ctx) }()
	}
	waitUntil(t, "every client linked to both others", func() bool {
		for _, c := range clients {
			if c.Snapshot().Game.DirectLinks < 2 {
				return false
			}
		}
		return true
	})
	// Some commands over the links: every bot issues a few more.
	issued := make([]uint64, len(clients))
	for i, c := range clients {
		issued[i] = c.Snapshot().Game.CommandsIssued
	}
	waitUntil(t, "three more commands from every client", func() bool {
		for i, c := range clients {
			if c.Snapshot().Game.CommandsIssued < issued[i]+3 {
				return false
			}
		}
		return true
	})
	// The server sees each client come from the address it bound: its connections say so.
	from := map[netip.Addr]bool{}
	for _, p := range srv.Stats().Peers {
		from[p.Addr.Addr()] = true
	}
	cancel()
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	stopServer()
	if err := <-serverDone; err != nil {
		t.Errorf("the server's Run: %v", err)
	}
	for i, c := range clients {
		r := c.Report()
		if r.Game.DirectLinks < 2 || r.Game.DirectRefused != 0 || r.Game.BadMessages != 0 {
			t.Errorf("client %d (%s): %d direct links made, %d refused, %d bad messages; want both others, none refused",
				i, c.Addr(), r.Game.DirectLinks, r.Game.DirectRefused, r.Game.BadMessages)
		}
	}
	for _, a := range []string{"127.0.0.2", "127.0.0.3"} {
		if !from[netip.MustParseAddr(a)] {
			t.Errorf("the server has no connection from %s: its clients come from %v", a, from)
		}
	}
}
