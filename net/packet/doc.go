// Package packet is the packet layer of one side of a connection: it numbers the packets we
// send, acknowledges the packets we receive, and turns the peer's acknowledgements into one
// verdict per sent packet, "acked" or "lost", together with round-trip time, jitter and loss
// estimates.
//
// # Why a packet layer at all
//
// UDP delivers a datagram once, twice, late, out of order or never, and says nothing about
// which. So every packet carries a small header (see net/wire): its own sequence number Seq,
// and what its sender has received from the other side, Ack and AckBits. A sender learns that
// packet N arrived only when a later packet from the peer says so. The layers above decide
// what to do with that knowledge: net/message resends the guaranteed messages that rode in a
// lost packet and forgets the ones that rode in an acknowledged one.
//
// # Sequence numbers wrap
//
// Seq is 16 bits, so after packet 65535 comes packet 0. "Newer" is therefore decided by serial
// arithmetic (RFC 1982): a is newer than b when a is less than half the space (32768) ahead of
// b, which in Go is int16(a-b) > 0. Packet 3 is newer than packet 65530, because it is 9 ahead.
// A connection sending 60 packets a second wraps every 18 minutes; the tests run through
// the wrap many times.
//
// # Ack plus 32 ack bits: redundant acknowledgements
//
// A header does not acknowledge one packet, it acknowledges 32: Ack is the newest sequence
// number received, and bit i of AckBits says whether Ack-i was received too (bit 0 is Ack
// itself). Because every packet the peer sends repeats the state of the last 32, each of our
// packets is acknowledged by up to 32 of the peer's packets in a row. If one of those is lost
// the next one carries the same news, so a lost acknowledgement almost never matters: a packet
// of ours is wrongly taken for lost only if every one of the peer's packets that could have
// acknowledged it is lost. That costs nothing extra to send: net/wire omits ack-bit bytes that
// are all ones, so a header on a loss-free link is 5 or 6 bytes (5 only for the side whose
// packet count runs ahead of the peer's by at most 255, which may write Ack as a 1-byte
// distance back from its own Seq; net/PROTOCOL.md, section 4).
//
// # Stale packets are dropped and never acknowledged
//
// A packet whose Seq is not newer than the newest packet received is not processed at all. If
// its bit is already set it is a Duplicate; otherwise it is Stale: it arrived after a newer
// packet did. Dropping stale packets keeps the rule simple (a packet either is the newest
// thing we know or it is history) and keeps unreliable data from going backwards: an old
// position update never overwrites a newer one. The important half of the rule is that a
// stale packet is never acknowledged. Its guaranteed messages are not executed here, so the
// sender must not believe they arrived; by leaving its bit clear we make the sender count the
// packet as lost and carry those messages again in a new packet.
//
// That same rule lets the sender decide loss early. Once the peer's Ack has moved past one of
// our packets without setting its bit, the peer will drop that packet if it ever arrives, so it
// can never be acknowledged: Endpoint reports it lost at once, oldest first, interleaved with
// the acknowledged ones in sequence order. Each sent packet is reported exactly once, through
// Config.OnAcked or Config.OnLost. A packet that is still unresolved when its slot in the ring
// of SentRingSize remembered packets is needed again is reported lost as well.
//
// # Round-trip time, jitter, loss
//
// Packets are never sent twice (net/message resends messages, in new packets), so an ack
// never leaves open which send it answers. What can make a sample wrong is the wait before
// the ack. So an accepted packet gives one sample, now minus the send time of the packet
// numbered its Ack, only when (1) it newly acknowledges that packet, the most recently sent
// of those it acknowledges and so the freshest; (2) that packet carried items: the peer
// acknowledges those within its ack delay, but a keepalive or a pure ack only with whatever
// it sends next (on an idle loopback link that "round trip" read 60-90 ms); and (3) its Seq
// directly follows the newest packet accepted from the peer (or is the peer's first packet,
// Seq 0): it is then the first packet the peer sent after ours reached it. Had the peer's
// packet before it been lost, that one may have been the prompt ack and this one a keepalive
// sent a hundred milliseconds later, so no sample is taken. Each sample is the path's round
// trip plus what the peer held the ack, never more. Samples are smoothed as TCP does
// (RFC 6298: SRTT moves 1/8 and RTTVAR 1/4 of the way to each sample), and jitter is the
// smoothed change between consecutive samples (RFC 3550, gain 1/16). The loss estimate
// covers the last LossWindow resolved packets.
//
// # The resend delay
//
// ResendDelay is how long net/message waits for the ack of a guaranteed item before it
// carries the item again without other news: SRTT + max(4·RTTVAR, MinResendDelay) +
// Config.PeerMaxAckDelay, or InitialRTT + PeerMaxAckDelay before the first sample. It is
// QUIC's probe timeout (RFC 9002: smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay)
// without QUIC's ack_delay header field. (Twice the deviation, tried first, fired before the
// ack in the tail of a jittery link: 5.8% of a lossy game's resends were in vain, 2.5% with
// four times.)
// QUIC subtracts the delay the peer reports from each sample; here the peer's maximum ack
// delay is a constant of the protocol (net/message sets it), no header reports it, and the
// samples keep what the peer held. SRTT is therefore up to PeerMaxAckDelay longer than the
// path's round trip, and adding the whole maximum on top errs late by at most that: an ack
// the peer held on purpose never triggers a resend. MinResendDelay keeps a margin on a link
// with no measured variation, where a held ack would otherwise arrive at the very instant the
// resend leaves.
//
// # No I/O, no clock, no garbage
//
// Endpoint never reads the clock, starts goroutines or touches sockets. The caller passes now
// to every call that needs a time, which makes every test run in virtual time. The ring of
// sent packets keeps the Items slice of each slot when it is reused, so in steady state
// sending and receiving allocate nothing.
//
// The order of calls for one outgoing packet is: h := e.NextHeader(), encode h and the body,
// e.Sent(now, h, len(datagram), items). For one incoming datagram: parse and verify it (on
// failure call e.Malformed), then e.Received(now, h, len(datagram)), and process the body only
// if the verdict is Accepted.
package packet
