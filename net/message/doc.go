// Package message is one connection's message layer: it turns the messages a game sends into
// packets, and the packets that arrive into messages delivered in dependency order, exactly
// once. It is built from the three packages below it: net/wire encodes the bytes, net/packet
// numbers the packets and learns which ones arrived, and net/depgraph decides when a received
// message may execute and, on the sending side, when a dependency no longer needs to be sent.
//
// # Two kinds of message
//
// An unreliable message is sent once, in the next packet, and forgotten: a unit's position
// that the next update will overwrite anyway. A guaranteed message ("spawn enemy 17") is kept
// until a packet that carried it is acknowledged, and rides again, ahead of new messages, only
// when the link lost it. It keeps its 15-bit sequence number on every send, which is how the
// receiver recognises a copy it already executed and ignores it.
//
// # Resending only what was lost
//
// A guaranteed unit goes again in two cases. First, at once when net/packet reports the packet
// of its latest send lost: the peer's acks passed that packet by, and the peer drops a packet
// older than one it accepted, so it cannot arrive any more. That needs a later packet to be
// acknowledged, which is what steady traffic provides; and since every ack repeats the last
// 32, a lost ack is made good by the next one, and never costs a resend. Second, when the
// link fell silent: the resend delay (net/packet's ResendDelay: the smoothed round trip, twice
// its variation, and the peer's MaxAckDelay) has passed since both its latest send and the
// latest packet with messages. The timer waits for the newest packet because that one's ack
// would settle the older ones too. Only the second case can resend a message that arrived, if
// the ack-only packet that answered the last message before a silence is lost: a timer cannot
// tell that from a lost message (QUIC's probe timeout cannot either).
//
// The peer holds an ack up to AckDelay, hoping it can ride on a message; MaxAckDelay, 10 ms,
// is the protocol's bound on that, known to both sides, so the sender allows for it without
// the peer reporting what it held. On a clean link nothing is ever resent. A message that stays unacknowledged for ResendLimit fails
// the connection loudly (ErrResendLimit) rather than silently losing game data.
//
// # Dependencies instead of channels
//
// Each guaranteed message names the messages it must follow. SendGuaranteed takes them as
// *depgraph.Dependency handles and can bind a new handle to the message it sends:
//
//	var spawn depgraph.Dependency
//	conn.SendGuaranteed(now, spawnEnemy17, nil, &spawn)
//	...
//	conn.SendGuaranteed(now, killEnemy17, []*depgraph.Dependency{&spawn}, nil)
//
// On the wire the message carries its sequence number and the sequence numbers of its
// dependencies, 2 + 2n bytes. The sender keeps its own copy of the graph and runs it on every
// acknowledgement exactly as the receiver runs its own, so it knows when the receiver must have
// executed a message. From then on a dependency on that message is left off the wire: if the
// kill comes an hour after the spawn, it carries no dependency at all, and the sequence number
// of the spawn may have been reused many times without harm. In steady state every guaranteed
// message costs 2 bytes of sequence, no more than an ordered channel. Chain builds an ordered
// channel (a chat) out of dependencies; SendBarrier sends a message that waits for everything
// sent before it.
//
// # Sequence numbers wrap, safely
//
// Sequence numbers are 15 bits and wrap after 32,767. The receiver tells a new message from a
// copy of one it executed by the number alone, so a number must not come back while the
// receiver could still take the new message for the old one, or a copy of the old one for the
// new. Node expiry by time waits: the receiver forgets an executed message Timeout + 1 s
// after executing it, and the sender reuses its number only after that. It is safe, and it
// caps the sender at 32,768 messages per 6 s: 5,461 a second sustained (5,788 measured over
// 70,000 messages, the first 32,768 being free). Above 50,000 a second that guard T would have
// to be under 32,768 / 50,000 = 0.66 s, shorter than any connection timeout a game can live
// with, and no time alone is safe when a message can wait seconds for a lost dependency.
//
// So the numbers are freed by knowledge instead (net/depgraph, "Reusing sequence numbers"):
// the sender sends a new number only while every message Window (16,383) or more numbers
// before it has executed in its local graph, which means on the receiver too; the receiver
// remembers an executed message as one bit for the Window numbers behind the newest message
// it has seen, counts anything older as executed, and clears the bit as the newest message
// moves Window past it.
// When SendGuaranteed would break that rule it refuses with ErrBackpressure. The sustained
// ceiling becomes Window messages per the time the oldest outstanding one takes to execute
// locally: on a clean link a round trip plus the ack delay, so 16,383 per about a millisecond
// on a loopback, where the CPU binds first (about a million a second measured), 16,383 per
// 0.11 s on a 100 ms link. A message held back by repeated loss holds the window, and nothing
// more: the sender stalls Window messages after it.
//
// The window rule speaks of messages; copies are the packet layer's part. A copy of the old
// message could arrive after the receiver forgot it and be taken for the new one, unless it
// can no longer be accepted at all. Every copy of the old message left while it was
// unacknowledged (acknowledged units are never sent again), and so before the first send of
// the message Window after it, which cannot go out until the old one executed. The new number
// goes out only after the message 32,768 − Window numbers after the old one was acknowledged,
// in a packet that the receiver accepted and that left after every copy of the old message.
// The receiver drops any packet older than one it accepted (net/packet), so no copy can arrive
// once the number is back. (That relies on packet numbers not wrapping while a copy is in
// flight: 32,768 packets, seconds even at the highest rates; the sealed frame of
// net/transport refuses such a packet on its own.) The time rule stays for what the window
// does not reach: the resend limit keeps every copy within Timeout of the first send, and a
// message that waits Timeout + 1 s without executing is still a connection error.
//
// # Sharing the link: congestion control
//
// A connection that always kept 32 packets in flight would fill the queue of every slow link
// it crossed, lose packets for everybody behind that queue, and make its own game messages
// wait in it. So a sender keeps the bytes of its packets with messages in flight within a
// congestion window (congestion.go), and paces them out at 1.25 times the window per round
// trip, as quic-go does, so that the window an ack opens does not land on a queue in one
// burst (before the first round trip is measured, the window alone decides). The window has
// two parts, as in Compound TCP:
//
//   - a loss-based part, Reno's congestion avoidance: from 32 packets (quic-go's initial
//     window, the protocol's ceiling; no slow start, so a mostly idle game connection sends
//     its bursts at once), one packet more per round trip (per two while the round trip shows
//     a queue); a loss cuts it once per round trip. A loss while the round trip shows a queue
//     is congestion and halves it. A loss on a link without a queue is taken for noise (a
//     radio link, the teacher's loss slider) and takes only a fifth off: TCP Veno's answers to
//     links that lose packets without being full.
//   - a delay-based part, which grows by an eighth of the window per round trip while the round
//     trip shows no queue and shrinks by the estimated queue when it does: this is what backs
//     off as the RTT grows, before any loss. A round trip "shows a queue" when its smallest
//     RTT sample is at least 4 ms, and twice the RTT's own variation, above the smallest ever
//     (jitter alone lifts a round's best sample a little), and the window times that excess
//     over the sample (Vegas's estimate of our bytes queued) is 3 packets or more.
//
// Against a flow that fills the bottleneck's queue and only backs off on loss, as TCP does,
// the delay-based part shrinks to nothing and what remains is Reno, which shares the link
// with Reno evenly. BENCHMARKS.md ("Congestion") measures both on a simulated bottleneck
// (net/linksim's Bottleneck).
//
// A game must not pay for any of this. The window never shrinks below 4 full packets (4.8 kB),
// and it counts bytes, not packets: a game's few kB a second are a few hundred bytes in flight
// on a LAN and under 4.8 kB on a one-second round trip, so its messages are never held back by
// the window, only by the link. Keepalives and acks are never held back at all. The window
// cannot grow past 32 packets either (the ack covers 32), which caps a bulk transfer at
// 32 × MTU per round trip: 384 kB a second at 100 ms.
//
// The peer helps by acknowledging a bulk sender promptly: once two large packets with messages
// (half the MTU or more) arrived, the ack leaves at once (TCP's "every second full-sized
// segment"), instead of after the ack delay. A window clocked by acks would otherwise stall for the ack
// delay whenever it held fewer than 16 packets, and those held acks would read as a queue.
//
// # Fragments
//
// A message too large for one packet is cut into up to 255 fragments of equal size (the last
// one shorter). Each fragment is a guaranteed unit of its own: acknowledged alone and, when
// lost, sent again alone. The receiver reassembles them and only then hands the whole message
// to its graph. (Resending every fragment when one is lost is the classic mistake this avoids.)
//
// # Sync messages
//
// A sync message is stop-and-wait: once it is sent, no guaranteed message queued after it goes
// out until it is acknowledged, and WaitingForSync reports true so the game can show the host
// as waiting. Messages queued before it go out first. Messages already sent before it keep
// being resent meanwhile, when their resend delay comes: they are in flight, the receiver may
// need them, and holding them back would only make them later. So a sync message orders what
// follows it, not what went before; to order those too, make it depend on them.
//
// # Watching it: the history
//
// A debug view draws the connection's dependency graph from its history (Config.History, set
// by a transport whose debug views are on): the latest guaranteed messages sent and received,
// each with its sequence number, the first byte of its payload (the layer above names it: a
// game's message type), its dependencies and the time of every step of its life. A sent
// message is queued, sent (and perhaps resent), acknowledged, and executed once the local
// graph runs it; a received one arrives and executes, at once or after waiting for a
// dependency that has not arrived. The sent messages' dependencies say which ones the sender
// pruned: those its local graph had executed, which never went on the wire. With the times a
// view can stop the picture and replay it step by step: the kill that arrived before its spawn
// and waited 40 ms for the resend, the chat line that waited for the line before it. The
// history is two rings of a fixed size, filled without allocating; without Config.History
// nothing is recorded.
//
// # Sans-IO
//
// A Conn never reads a clock, never touches a socket and starts no goroutine. Receive takes a
// datagram and the time it arrived; AppendPacket writes the next datagram to send; NextDeadline
// says when time alone will make work due. The transport package puts a Conn on a real socket,
// and the tests run thousands of seconds of lossy network in virtual time in a moment.
//
// A Conn is not safe for concurrent use: one goroutine owns it.
package message
