// Package linksim makes a network misbehave on purpose, repeatably.
//
// A game protocol over UDP is mostly code for things that go wrong: datagrams that never
// arrive, arrive late, arrive twice, or arrive after newer ones. On a developer's machine none
// of that happens, so that code never runs until a player on bad Wi-Fi runs it. A link
// conditioner sits between two endpoints and does those things on demand. This one is seeded
// (math/rand/v2's PCG), and its core never reads the clock and starts no goroutines, so a test
// that fails fails again with the same seed, and a test of ten minutes of play runs in
// milliseconds of virtual time. Only the wrapper for real sockets (the last section) lives in
// real time.
//
// # The impairments and what they do to a game protocol
//
// Independent loss (LossPercent) flips a coin for every datagram. It is the easy kind of loss:
// losses are isolated, so the next packet's ack bitfield still reports everything around the
// gap, a guaranteed message resent one round trip later almost always gets through, and a
// stream of position updates only skips a frame now and then.
//
// Burst loss (BurstLossPercent, BurstLength) is the Gilbert-Elliott model: the link is in a
// good state or a bad state, enters the bad state with probability BurstLossPercent per
// datagram, leaves it with probability 1/BurstLength, and loses everything while bad. Real
// links lose like this: a microwave oven next to the access point, a router queue that
// overflows, a route change. At the same average it is far harsher than independent loss.
// With 5% independent loss the chance of losing a message and its resend is 0.25%; inside a
// burst that outlasts a round trip it is certain, because the resend falls into the same
// burst. Acks are lost in runs too, so the sender can see dozens of packets go unacknowledged
// and resend messages that had in fact arrived; once a run is longer than the ack bitfield
// (32 packets), some acks are never reported at all. Interpolation of unguaranteed state
// runs dry during the gap and everything snaps when it ends. A loss estimate that only
// averages cannot tell the two links apart; a protocol tested only with independent loss has
// not been tested against the losses players actually see.
//
// Latency is the one-way delay. It sets the round trip, hence how soon a lost message can be
// resent and how far ahead a command must be scheduled to reach every host before its frame.
//
// Jitter (uniform in ±Jitter around Latency, never below zero) makes the delay vary from
// datagram to datagram. It is what a round-trip estimator has to smooth out, and what makes a
// resend timer set to exactly one round trip fire too early. As soon as the jitter exceeds
// the gap between two sends, datagrams overtake each other without any reordering setting:
// two packets sent 16ms apart over ±20ms of jitter swap places often.
//
// Duplication (DupPercent) delivers a datagram twice. The copy is a separate delivery with its
// own jitter, so it can arrive right after the original or well after newer packets. A
// protocol that acts on every arrival executes a "split this unit" command twice; the packet
// layer must recognise a sequence number it has already accepted, and the message layer must
// not run a guaranteed message twice. Because the late copy is also older than packets
// already received, duplication exercises the stale-packet rule as well.
//
// Reordering (ReorderPercent, ReorderDelay) holds a delivery back so that later datagrams
// overtake it. A simple receiver drops any packet older than the newest it has seen; that is
// safe for state that the next packet replaces, but a guaranteed message riding in the
// dropped packet is then unacknowledged and must be resent, and messages that depend on one
// another arrive out of order and have to wait in the dependency graph. Reordering is also
// what tests sequence-number comparisons near wrap-around, where "older" is a matter of
// modular arithmetic.
//
// # A bottleneck that flows share
//
// The impairments above strike each datagram on its own; none of them depends on how much is
// sent. A real path has a slowest hop, and a queue in front of it: send faster than it
// drains and the queue grows (the round trip with it), until it is full and drops whatever
// comes next. That is the only signal a congestion controller has that the link is shared, and
// the only place where two flows can be unfair to each other. A Bottleneck models that hop:
// a Rate in bytes a second, a drop-tail Queue in bytes, a Latency after it. Datagrams of any
// number of flows (numbered by the caller) go through one queue in arrival order, each sent
// once the link has sent the ones before it; a datagram that would overfill the queue is
// dropped. It draws no random numbers, and counts per flow what was offered, dropped and
// delivered and how long it waited, which is what a test of fairness reads. Like a
// Conditioner it is sans-IO: Send, Deliver and NextDelivery take the time as an argument.
//
// # Repeatability
//
// Every Send draws the same count of random numbers whatever the settings, so changing one
// impairment does not reshuffle the others: the datagrams that survive 10% loss are a subset
// of those that survive 5% loss with the same seed, and they get the same jitter. Settings
// may change at any moment (SetSettings, Network.SetLink) and apply to datagrams sent
// afterwards, which is how a test walks a player out of Wi-Fi range and back again.
//
// # Conditioner and Network
//
// A Conditioner is one direction of a link: Send schedules, Deliver hands out what is due at
// a given time, NextDelivery says when to look again. A real transport can wrap one around a
// socket and pass the wall clock; tests pass virtual time.
//
// A Network joins named nodes with one Conditioner per direction and a single virtual clock.
// A test sends through Nodes and calls Step, which moves the clock to the next arrival and
// returns everything that arrived then (ExampleNetwork shows a whole exchange):
//
//	nw := linksim.NewNetwork(1)
//	nw.Link("client", "server", lossy, lossy)
//	client := nw.AddNode("client")
//	client.Send("server", packet)
//	var got []linksim.Datagram
//	now, got := nw.Step(deadline, got[:0])
//	// hand got[i].Data to the endpoint named got[i].To at now
//
// # Over a real socket
//
// WrapPacketConn puts a Conditioner on each direction of a real net.PacketConn and is a
// net.PacketConn itself. The transport opens its UDP socket, wraps it when a link is
// configured, and from then on reads and writes the wrapper as if it were the socket: nothing
// above it knows that the network is staged. The debug panel's sliders for loss, latency,
// jitter and duplication reach SetSettings through the transport while the game runs, and take
// effect from the next datagram, so a class can drag loss to 30% and watch resends climb; Stats
// counts what the wrapper did to each direction, and Observe shows each datagram with its fate
// as it is decided (a recorder keeps the datagrams the link dropped, which nothing else ever
// sees).
//
// This wrapper is the one part of the package that uses the real clock and goroutines. A
// writer goroutine puts each delayed outgoing datagram on the socket when it falls due (a
// datagram due at once, as on a link with zero settings, is written by WriteTo itself, so an
// unimpaired link adds no delay). A reader goroutine takes datagrams off the socket, stamps
// them with the time they arrived and offers them to the incoming Conditioner; ReadFrom waits
// for the earliest delivery, the read deadline or Close, whichever comes first. Close stops
// both goroutines before it returns. A run over a real socket is not repeatable the way a
// Network run is: the seed still decides the fate of the n-th datagram, but the scheduler
// decides which datagram is the n-th. Protocol tests belong on a Network; the wrapper is for
// watching the real program cope.
package linksim
