package record_test

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// A replay reads a capture back: each datagram with its time, direction and fate, and the
// packet inside it opened with the key file, ready for net/wire's parsers.
func Example() {
	dir, _ := os.MkdirTemp("", "record")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "game.pcapng")

	// What a host's socket and endpoint do with a Recorder (transport.Config's Tap and KeyLog).
	rec, err := record.Create(path, record.Options{})
	if err != nil {
		panic(err)
	}
	local, peer := netip.MustParseAddrPort("127.0.0.1:50432"), netip.MustParseAddrPort("127.0.0.1:7777")
	keys := transport.ConnKeys{Peer: peer, Send: [32]byte{1}, Recv: [32]byte{2}}
	at := time.Unix(1700000000, 0)
	seal := func(counter uint64, h wire.Header) []byte {
		return wire.NewSealKey(&keys.Send).Seal(wire.AppendHeader(wire.BeginSealed(nil), h), 0, counter)
	}
	rec.Tapped(transport.TappedDatagram{At: at, Out: true, Local: local, Peer: peer, Data: seal(0, wire.Header{Seq: 0})}) // before KeyLog: it learns the local address
	rec.KeyLog(keys)
	rec.Tapped(transport.TappedDatagram{At: at.Add(time.Millisecond), Out: true, Fate: transport.TapDropped, Local: local, Peer: peer, Data: seal(1, wire.Header{Seq: 1})})
	rec.Tapped(transport.TappedDatagram{At: at.Add(2 * time.Millisecond), Out: true, Local: local, Peer: peer, Data: seal(2, wire.Header{Seq: 2})})
	if err := rec.Close(); err != nil {
		panic(err)
	}

	datagrams, err := record.ReadAll(path, 1000)
	if err != nil {
		panic(err)
	}
	for _, d := range datagrams {
		h, _, err := wire.ParseHeader(d.Packet)
		fmt.Printf("+%v out=%v %v counter %d: %v seq %d %v\n", d.At.Sub(at), d.Out, d.Fate, d.Counter, wire.PacketType(d.Packet[0]), h.Seq, err)
	}
	// Output:
	// +0s out=true passed counter 0: Data seq 0 <nil>
	// +1ms out=true dropped counter 1: Data seq 1 <nil>
	// +2ms out=true passed counter 2: Data seq 2 <nil>
}
