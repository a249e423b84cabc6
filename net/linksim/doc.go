// Package linksim makes a network misbehave on purpose, repeatably. A game protocol over UDP
// is mostly code for things that go wrong: datagrams that never arrive, arrive late, twice, or
// after newer ones. On a developer's machine none of that happens, so that code never runs
// until a player on bad Wi-Fi runs it. A link conditioner sits between two endpoints and does
// those things on demand. This one is seeded (math/rand/v2's PCG), and its core never reads
// the clock and starts no goroutines, so a test that fails fails again with the same seed, and
// ten minutes of play run in milliseconds of virtual time. The binaries put one under their
// socket (the --loss, --latency, --jitter and --dup flags, the sliders, the class link).
//
// # The map
//
//	settings.go     Settings: loss, burst loss (Gilbert-Elliott), latency, jitter,
//	                duplication, reordering; what each does to a game protocol; Validate
//	conditioner.go  Conditioner, one direction of a link: Send, Deliver, NextDelivery,
//	                SetSettings, Stats
//	network.go      Network, named nodes joined by a Conditioner each way on one virtual
//	                clock: AddNode, Link, SetLink, Node.Send, Step, Advance
//	bottleneck.go   Bottleneck, a rate and a drop-tail queue shared by flows: where a
//	                congestion controller meets the others
//	packetconn.go   PacketConn (WrapPacketConn), a Conditioner on each direction of a real
//	                net.PacketConn, in real time; Observe, each datagram's Fate
//
// # Usage
//
// A test on a Network sends through nodes and calls Step, which moves the clock to the next
// arrival and returns everything that arrived then (ExampleNetwork shows a whole exchange):
//
//	nw := linksim.NewNetwork(1)
//	lossy := linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond}
//	nw.Link("client", "server", lossy, lossy)
//	client := nw.AddNode("client")
//	client.Send("server", packet)
//	var got []linksim.Datagram
//	now, got := nw.Step(deadline, got[:0])
//	// hand got[i].Data to the endpoint named got[i].To at now
//
// A program on a real socket wraps it, and reads and writes the wrapper as if it were the
// socket (net/transport does this when a link is configured):
//
//	pc := linksim.WrapPacketConn(udp, seed, out, in)
//	pc.SetSettings(out, in) // while it runs: from the next datagram on
//
// # Rules
//
//   - Same seed, same calls, same deliveries: every Send draws the same count of random
//     numbers whatever the settings, so changing one impairment does not reshuffle the others.
//     A Network derives each link's seed from its own seed and the ends' names.
//   - Settings apply to the datagrams sent after they change.
//   - Conditioner, Network and Bottleneck are sans-IO (the time is an argument) and not safe
//     for concurrent use; PacketConn alone uses the real clock and goroutines, is safe for
//     concurrent use, and is not repeatable (the scheduler decides which datagram is the
//     n-th). Protocol tests belong on a Network.
//   - Deliveries are copies: a Conditioner copies what it is given, and Recycle takes a
//     delivered buffer back.
package linksim
