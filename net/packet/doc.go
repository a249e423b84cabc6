// Package packet is the packet layer of one side of a connection: it numbers the packets we
// send, acknowledges the packets we receive, and turns the peer's acknowledgements into one
// verdict per sent packet, acked or lost, with round-trip time, jitter and loss estimates. UDP
// says nothing about which datagrams arrived, so every packet carries its own sequence number
// and what its sender has received from the other side (net/wire's Header); the layer above,
// net/message, decides what to do with the verdicts: resend the guaranteed messages that rode in
// a lost packet, forget the ones that rode in an acknowledged one. IDEAS.md: packet sequence
// numbers, acks and the ack bitfield; RTT, jitter and loss estimates; the stale-packet rule; the
// resend rule.
//
// # The map
//
// Everything is in endpoint.go:
//
//	Endpoint                 one side's packet layer
//	  NextHeader, Sent       number an outgoing packet, remember what rode in it (Item)
//	  Received               judge an incoming header: Accepted, Stale or Duplicate (the
//	                         stale-packet rule), and read the peer's acks
//	  processAcks            the peer's Ack and ack bitfield (AckWindow) settle our packets:
//	                         OnAcked or OnLost, once each, oldest first
//	  sampleRTT, RTT, Stats  round trip (RFC 6298), jitter (RFC 3550), loss (LossWindow)
//	  SampleRTT              a round trip the transport's ping measured, into the same estimates
//	  ResendDelay            how long net/message waits for an ack before resending
//	  History                the last HistoryLen packets as acked, lost or in flight (the debug
//	                         panel's acks view)
//	Config                   InitialRTT, PeerMaxAckDelay, the OnAcked and OnLost callbacks
//
// # Usage
//
// For one outgoing packet: take its header, encode it and the body, then record the send.
// For one incoming datagram: parse and verify it (on failure call Malformed), then Received,
// and process the body only if the verdict is Accepted.
//
//	e := packet.NewEndpoint(packet.Config{PeerMaxAckDelay: 10 * time.Millisecond,
//		OnAcked: func(p *packet.SentPacket) { /* p.Items arrived */ },
//		OnLost:  func(p *packet.SentPacket) { /* p.Items must ride again */ }})
//
//	h := e.NextHeader()
//	d := wire.AppendHeader(wire.BeginDatagram(buf[:0]), h)
//	... append the records ...
//	e.Sent(now, h, len(d), items)
//
//	h, n, err := wire.ParseHeader(packet)
//	if err != nil { e.Malformed(len(datagram)); return }
//	if e.Received(now, h, len(datagram)) == packet.Accepted { ... read packet[n:] ... }
//
// # Rules
//
//   - Sequence numbers are 16 bits and wrap: "newer" is serial arithmetic, int16(a-b) > 0.
//   - A packet older than the newest received is dropped and never acknowledged, so whatever
//     it carried is sent again. Once the peer's Ack has passed one of our packets with its bit
//     clear, that packet is lost at once: the peer would drop it if it came.
//   - Each sent packet is reported exactly once, through OnAcked or OnLost; a packet still
//     unresolved when its slot of the SentRingSize ring is needed again is reported lost.
//   - A round-trip sample is taken only when it measures the path plus at most the peer's ack
//     delay (Received says when), never more. The transport's pings, once a second each way,
//     add theirs (SampleRTT, with the time the peer held the ping taken off as QUIC takes an
//     ACK frame's ack_delay), so that a side that sends no messages has a live estimate too.
//   - The callbacks run inside Received (OnLost also inside Sent); their *SentPacket is valid
//     only during the call, and they must not call Sent or Received.
//   - No I/O, no clock, no goroutines: every call that needs the time takes now, so every test
//     runs in virtual time. An Endpoint belongs to one goroutine.
package packet
