// Package stacklab holds netlab's experiments on the UDP stack alone (net/message, net/packet,
// net/depgraph over net/linksim), no game involved. Each experiment drives two message.Conns,
// a sender and a receiver, in virtual time, and returns a result that renders itself as a
// report.Section.
//
// # The map
//
//	duplex.go     duplex: one connection in virtual time, two Conns over a linksim.Network;
//	              time jumps to the next arrival or deadline, so a delay is measured exactly
//	traffic.go    the game-like traffic: independent spawns, kill-after-spawn pairs, chat
//	              chains, start-game barriers, seeded
//	hol.go        RunHOL: head-of-line blocking, the same traffic five ways (the dependency
//	              graph, one ordered channel, a channel per kind, sync messages, quic-go);
//	              receiverLog checks every execution against the declared dependencies
//	overhead.go   RunOverhead: the bytes a guaranteed message costs, with and without pruning
//	olddep.go     RunOldDep: the old-dependency problem, across several sequence wraps
//	fragments.go  RunFragments: per-fragment acks against model senders that resend every
//	              fragment when one is lost (FragSender)
//	quic.go       the quic-go way of hol, on real loopback sockets in wall-clock time
//
// # Usage
//
//	r, err := stacklab.RunHOL(stacklab.HOLConfig{Link: link, Seed: 1, Messages: 4000, Rate: 200})
//	s := r.Section("go run ./cmd/netlab hol ...") // then report.WriteText or WriteMarkdown
//
// # Rules
//
//   - Everything but the quic-go way runs in virtual time, seeded: the same config gives the
//     same result, byte for byte (the golden test of cmd/netlab depends on it).
//   - A result counts violations of the declared order (a message executed before one it
//     needs, twice, or never): there must be none.
//   - The experiments measure the real code: the same message.Conn the game uses.
package stacklab
