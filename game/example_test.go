package game_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
)

// A server with a bot and one bot client, a minute of play at 10% loss and 50 ms each way, in
// virtual time: no socket, no wall clock.
func ExampleVirtual() {
	v := game.NewVirtual(1)
	link := linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond}
	srvAddr := netip.MustParseAddrPort("127.0.0.1:7777")
	srv, err := game.NewServer(game.ServerConfig{Bots: 1}, v.Writer(v.AddNode(srvAddr, link)))
	if err != nil {
		panic(err)
	}
	v.Attach(srvAddr, srv)
	me := netip.MustParseAddrPort("127.0.0.2:40000")
	c, err := game.NewClient(game.ClientConfig{Name: "ann", Bot: true}, v.Writer(v.AddNode(me, link)), srvAddr)
	if err != nil {
		panic(err)
	}
	v.Attach(me, c)
	v.Run(time.Minute)
	snap := c.Snapshot()
	fmt.Println(snap.Started, snap.Frame > 500, srv.Report().Game.CommandsIssued > 0)
	// Output: true true true
}
