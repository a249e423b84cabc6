package wire_test

import (
	"fmt"

	"github.com/ackattack/ackattack/internal/int30"
	"github.com/ackattack/ackattack/net/wire"
)

// Build a Data datagram with two guaranteed messages, seal it, then open and
// read it back the way a receiver does.
func Example() {
	buf := make([]byte, 0, wire.MaxDatagram)
	d := wire.BeginDatagram(buf)
	d = wire.AppendHeader(d, wire.Header{Type: wire.TypeData, Seq: 0x0100, Ack: 0x00FF, AckBits: 0xFFFFFFFF})
	d, _ = wire.AppendRecord(d, &wire.Record{Kind: wire.KindGuaranteed, Seq: 5, Payload: []byte("hi")})
	d, _ = wire.AppendRecord(d, &wire.Record{Kind: wire.KindGuaranteed, Seq: 6, Deps: []uint16{5}, Payload: []byte("yo")})
	wire.SealDatagram(d, 0)
	fmt.Printf("%x\n", d)

	packet, err := wire.OpenDatagram(d, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	h, n, err := wire.ParseHeader(packet)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v seq=%#04x ack=%#04x ackbits=%#08x\n", h.Type, h.Seq, h.Ack, h.AckBits)
	r := wire.Record{Deps: make([]uint16, 0, wire.MaxDeps)}
	for body := packet[n:]; len(body) > 0; body = body[n:] {
		if n, err = wire.ParseRecord(body, &r); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v seq=%d deps=%v payload=%q\n", r.Kind, r.Seq, r.Deps, r.Payload)
	}
	// Output:
	// 49be273a0110010001020005026869028006000502796f
	// Data seq=0x0100 ack=0x00ff ackbits=0xffffffff
	// Guaranteed seq=5 deps=[] payload="hi"
	// Guaranteed seq=6 deps=[5] payload="yo"
}

// A UInt30 takes 1, 2 or 4 bytes depending on the value.
func ExampleAppendUInt30() {
	for _, v := range []uint32{100, 1000, 100000} {
		b, _ := int30.AppendUInt30(nil, v)
		fmt.Printf("%d: %x\n", v, b)
	}
	// Output:
	// 100: 64
	// 1000: 83e8
	// 100000: c00186a0
}

// A signed Int30 spends one data bit on the sign.
func ExampleAppendInt30() {
	for _, v := range []int32{-5, 63, -64} {
		b, _ := int30.AppendInt30(nil, v)
		fmt.Printf("%d: %x\n", v, b)
	}
	// Output:
	// -5: 45
	// 63: 3f
	// -64: a040
}

// The first two steps of the handshake: the client's padded request, and the
// server reading it and answering with a challenge. The server chooses its
// parser by the packet type.
func ExampleParseConnectRequest() {
	d := wire.BeginDatagram(make([]byte, 0, wire.MaxDatagram))
	d, err := wire.AppendConnectRequest(d, &wire.ConnectRequest{
		Version: wire.ProtocolVersion,
		Player:  wire.PlayerID{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff},
		Name:    "Ada",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	wire.SealDatagram(d, 0) // no connection yet: key 0
	fmt.Printf("request: %d bytes\n", len(d))

	// The server's side.
	packet, err := wire.OpenDatagram(d, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	if t, err := wire.PeekType(packet); err != nil || t != wire.TypeConnectRequest {
		fmt.Println(t, err)
		return
	}
	req, err := wire.ParseConnectRequest(packet)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q, version %d, player %x\n", req.Name, req.Version, req.Player)
	reply := wire.AppendChallenge(wire.BeginDatagram(nil), &wire.Challenge{Issued: 1_700_000_000_000})
	wire.SealDatagram(reply, 0)
	fmt.Printf("challenge: %d bytes\n", len(reply))
	// Output:
	// request: 1200 bytes
	// "Ada", version 2, player 00112233445566778899aabbccddeeff
	// challenge: 29 bytes
}
