// Package message is one connection's message layer: it turns the messages a game sends into
// packets, and the packets that arrive into messages delivered in dependency order, exactly
// once. It is built from the three packages below it: net/wire encodes the bytes, net/packet
// numbers the packets and learns which ones arrived, and net/depgraph decides when a received
// message may execute and, on the sending side, when a dependency no longer needs to be sent.
// net/transport puts a Conn on a real socket, one per connection. IDEAS.md: guaranteed and
// unreliable messages, the resend rule, congestion control, ordered channels as dependency
// chains, sync messages, fragments with per-fragment acks, back-pressure.
//
// # The map
//
//	conn.go        Conn and New; Config (MTU, Timeout and Expiry, ResendLimit, the ack delay,
//	               Keepalive, Frame, History); the sends: SendUnreliable, SendGuaranteed,
//	               SendUrgent (each send three times), SendTimely (each resend twice), SendSync
//	               (stop-and-wait), SendBarrier; splitUnits (fragments); the
//	               errors (ErrBackpressure: why numbers are freed by the window, not by time);
//	               MaxAckDelay; Frame and PlainFrame (the datagram frame a Conn writes);
//	               packetDue, the keepalive and ack policy (AckOwed, AckLazy, Spoke: what
//	               makes a header-only packet leave)
//	send.go        AppendPacket (resends first, then their copies, then new guaranteed
//	               messages in queue order, then unreliable ones); resendAt (the resend
//	               rule); copyAfter (a unit waiting long goes three times per try); probeDue
//	               (a full window whose acks were lost is probed); onPacketLost and
//	               onPacketAcked, the packet layer's verdicts
//	recv.go        Receive and ReceivePacket (a datagram is checked whole before anything in
//	               it is used); the reassembly of fragments; Poll (node expiry, the resend
//	               limit)
//	chain.go       Chain: an ordered channel built as a dependency chain (a chat)
//	congestion.go  congestion control: the window (loss-based and delay-based parts) and the
//	               pacer
//	stats.go       Stats, NextDeadline, Debug (the debug panel's views)
//	history.go     the history of the latest guaranteed messages each way, for the graph view
//	queue.go       the ring that holds the send queue
//
// # Usage
//
//	conn := message.New(message.Config{}, func(m *message.Message) {
//		// m.Payload is valid only during the call: a guaranteed message arrives here once,
//		// after every message it depends on; an unreliable one as it comes.
//	})
//
//	var spawn depgraph.Dependency
//	conn.SendGuaranteed(now, spawnEnemy17, nil, &spawn)
//	conn.SendGuaranteed(now, killEnemy17, []*depgraph.Dependency{&spawn}, nil)
//	var chat message.Chain
//	chat.Send(conn, now, []byte("gg")) // each line depends on the one before
//	conn.SendUnreliable(pingSummary)
//
//	// The owner loop: hand it what arrives, send what is due, wake up when it says.
//	conn.Receive(now, datagram)
//	for d, ok := conn.AppendPacket(buf[:0], now, false); ok; d, ok = conn.AppendPacket(buf[:0], now, false) {
//		socket.WriteTo(d, peer)
//	}
//	conn.Poll(now)
//	wake := conn.NextDeadline(now)
//	if err := conn.Err(); err != nil { /* the connection failed: disconnect with err */ }
//
// # Rules
//
//   - A guaranteed message keeps its sequence number on every send and executes once on the
//     other side, after its dependencies; nothing is resent that the link did not lose, and a
//     message unacknowledged for ResendLimit fails the connection (ErrResendLimit). Connection
//     errors are sticky: once Err returns one, the Conn sends and delivers nothing more.
//   - A Dependency handle names a message for later ones; do not copy it (net/depgraph).
//   - ErrBackpressure refuses a guaranteed message whose sequence number may still be in
//     use: nothing was sent, and it can be sent again once acknowledgements have come in (the
//     game's outbox does that).
//   - An unreliable message must fit one packet; a guaranteed one may be as large as
//     Config.MaxMessageSize and travels in fragments, each acknowledged and resent alone.
//   - A sync message holds back what is queued after it, not what went before.
//   - The peer holds an ack at most MaxAckDelay, a constant both sides allow for, so no header
//     field reports it.
//   - Sans-IO: a Conn never reads a clock, touches a socket or starts a goroutine. Receive
//     takes a datagram and the time it arrived, AppendPacket writes the next datagram, and
//     NextDeadline says when time alone makes work due, so the tests run thousands of seconds
//     of lossy network in virtual time. A Conn belongs to one goroutine.
package message
