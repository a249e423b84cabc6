// Package stacklab holds netlab's experiments on the UDP stack alone (net/message, net/packet,
// net/depgraph over net/linksim), no game involved.
//
// # One connection in virtual time
//
// Every experiment drives two message.Conns, a sender and a receiver, over a linksim.Network
// (duplex.go). Nothing sleeps: after each side has sent what its Conn says is due, time jumps
// to the earliest of the next datagram's arrival, either Conn's NextDeadline and the
// experiment's next message. A delay is therefore measured exactly, not to the tick of a
// loop, and an hour of traffic runs in a few seconds. The receiver checks every execution
// against the dependencies the game declared (not the ones on the wire): a message executed
// before one it needs, twice, or never, is counted as a violation, and the reports say how
// many there were (none, or the stack is broken).
//
// # Head-of-line blocking (hol.go)
//
// UDP loses packets; a reliable stack resends what was lost, a round trip or so later. What
// matters to a game is who else waits meanwhile. An ordered channel (TCP, a QUIC stream, a
// classic reliable channel) delivers nothing after the lost message until it arrives: one
// lost chat line holds up every spawn behind it. That is head-of-line blocking. A channel per
// kind confines it to the kind; the message dependency graph confines it to the
// messages that really need the lost one, so an independent spawn waits only for its own
// resend. The experiment sends one traffic five ways and builds the channels on the same
// message layer, as dependency chains (a message depends on the one before it on its
// channel), so that only the ordering differs. Sync messages are the other extreme:
// stop-and-wait, one message per round trip.
//
// Read the tail with care. A channel makes a message wait for every earlier message of its
// channel, so its delay is the worst delay in a window of about a round trip; but the worst
// message in that window is one that was lost twice, and the graph waits for that one too
// when it is the message itself. So the channel's extra delay shows most in the middle of the
// distribution (p50 to p95: most messages sit behind somebody's loss) and less at p99.
//
// # Bytes (overhead.go)
//
// A guaranteed message carries its 15-bit sequence number and the numbers of the messages it
// depends on, 2 + 2n bytes. The sender's local graph learns from the acks which
// messages the receiver must have executed and leaves dependencies on them off the wire, so n
// falls to 0 for every dependency older than a round trip. The experiment parses every
// datagram the sender writes and counts the bytes with and without that pruning.
//
// # Old dependencies (olddep.go)
//
// The numbers wrap after 32,767. A kill sent an hour after its spawn cannot name the spawn's
// number: by then it belongs to another message. Pruning solves it: the spawn executed long
// ago in the sender's local graph, so the kill carries no dependency at all.
//
// # Fragments (fragments.go)
//
// A message bigger than a datagram goes in fragments. If the sender keeps one timer for the
// whole message and resends every fragment when any is missing, each loss costs the whole
// message again; at 30% loss a send of 18 fragments almost never arrives
// whole. net/message acknowledges and resends each fragment alone. The experiment compares
// the stack with three model senders built on net/packet that differ only in what they
// resend.
package stacklab
