package linksim_test

import (
	"fmt"
	"net"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// A client and a server 25ms apart; the client's uplink duplicates everything.
func ExampleNetwork() {
	nw := linksim.NewNetwork(1)
	nw.Link("client", "server",
		linksim.Settings{Latency: 25 * time.Millisecond, DupPercent: 100},
		linksim.Settings{Latency: 25 * time.Millisecond})
	client, server := nw.AddNode("client"), nw.AddNode("server")
	start := nw.Now()

	if err := client.Send("server", []byte("move 3,4 to 40,12")); err != nil {
		panic(err)
	}
	var got []linksim.Datagram
	for {
		if _, ok := nw.NextEvent(); !ok {
			break
		}
		var now time.Time
		now, got = nw.Step(start.Add(time.Second), got[:0])
		for _, d := range got {
			fmt.Printf("%v %s→%s %q\n", now.Sub(start), d.From, d.To, d.Data)
			if d.To == "server" {
				_ = server.Send("client", []byte("ack"))
			}
		}
	}
	// Output:
	// 25ms client→server "move 3,4 to 40,12"
	// 25ms client→server "move 3,4 to 40,12"
	// 50ms server→client "ack"
	// 50ms server→client "ack"
}

// Degrading a link while it runs: datagrams already in flight keep their delay.
func ExampleConditioner_SetSettings() {
	start := time.Unix(1_000_000, 0)
	c := linksim.NewConditioner(1, linksim.Settings{Latency: 100 * time.Millisecond})
	c.Send(start, []byte("before"))
	_ = c.SetSettings(linksim.Settings{Latency: 10 * time.Millisecond})
	c.Send(start, []byte("after"))
	for {
		at, ok := c.NextDelivery()
		if !ok {
			break
		}
		for _, b := range c.Deliver(at, nil) {
			fmt.Println(at.Sub(start), string(b))
		}
	}
	fmt.Printf("%+v\n", c.Stats())
	// Output:
	// 10ms after
	// 100ms before
	// {Offered:2 Dropped:0 BurstDropped:0 Duplicated:0 Reordered:0 Delivered:2 Queued:0}
}

// A real UDP socket whose outgoing datagrams take at least 50ms, then lose 30% (a slider
// moved while the program runs).
func ExampleWrapPacketConn() {
	sock, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	peer, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer peer.Close()

	slow := linksim.WrapPacketConn(sock, 1, linksim.Settings{Latency: 50 * time.Millisecond}, linksim.Settings{})
	defer slow.Close() // closes sock too

	start := time.Now()
	if _, err := slow.WriteTo([]byte("hello"), peer.LocalAddr()); err != nil {
		panic(err)
	}
	buf := make([]byte, 100)
	_ = peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _, err := peer.ReadFrom(buf)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, after at least 50ms: %v\n", buf[:n], time.Since(start) >= 50*time.Millisecond)

	if err := slow.SetSettings(linksim.Settings{LossPercent: 30}, linksim.Settings{}); err != nil {
		panic(err)
	}
	out, _ := slow.Settings()
	fmt.Println("outgoing loss now", out.LossPercent, "%")
	// Output:
	// hello, after at least 50ms: true
	// outgoing loss now 30 %
}
