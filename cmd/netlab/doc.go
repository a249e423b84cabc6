// Command netlab runs the experiments that back each claim of the AckAttack stack with
// numbers a class can reproduce:
//
//	go run ./cmd/netlab hol                        # head-of-line blocking, five ways
//	go run ./cmd/netlab hol --loss 20 --jitter 10ms --svg charts
//	go run ./cmd/netlab all --markdown             # every experiment, as BENCHMARKS.md's sections
//	go run ./cmd/netlab all --into BENCHMARKS.md   # ... replacing the marked section in place
//
// # Why virtual time
//
// A network experiment on real sockets measures the machine as much as the protocol: the
// scheduler, the other programs, the kernel's buffers. And it cannot be repeated: the next
// run loses other packets. netlab runs the protocol's real code, the same net/message.Conn
// and game sessions the binaries use, over net/linksim's simulated network, on a clock that
// jumps from one event to the next. The link's fate for every datagram comes from a seed. So
// the same flags print the same numbers on any machine, an hour of traffic takes seconds, and
// a student who doubts a number can change one flag and see what moves.
//
// Two things cannot be virtual and are marked where they appear: the quic-go row of hol (quic-go
// reads the system clock, so it runs on real loopback sockets under a linksim conditioner) and
// the server's work in scale (the wall time of its calls: that is the point of measuring it).
// --deterministic leaves both out; the tests run with it.
//
// # The experiments
//
//   - hol: the same traffic (independent spawns, kill-after-spawn pairs, chat chains, a
//     start-game barrier) sent as a dependency graph, over one ordered channel, over a
//     channel per kind, as sync messages and over quic-go's streams. How long does each
//     message wait beyond the link's latency, and how many wait at once?
//   - overhead: the bytes a guaranteed message costs (sequence, dependencies, record, header)
//     as loss grows, with the sender's pruning and without, beside other stacks' published
//     figures.
//   - olddep: the old-dependency problem, a kill an hour after its spawn, while the 15-bit
//     sequence numbers wrap several times.
//   - fragments: a 20 KB re-sync batch, per-fragment acks against resending every fragment.
//   - resync: desyncs injected into a game of bots; how long the server takes to find and
//     repair them, and how long the world stops.
//   - scale: bytes per client and the server's work as clients and units grow; clients
//     beyond the 8 seats join as spectators (up to 32), measured apart.
//
// Each experiment lives in a package that does no formatting (cmd/netlab/internal/stacklab
// for the stack's, cmd/netlab/internal/gamelab for the game's); report renders what they
// measured as text, Markdown and SVG.
//
// # Flags
//
// Every experiment takes --loss, --latency, --jitter and --dup (the link, both directions),
// --seed and --messages (its size: messages, trials, desyncs or frames, as its help says),
// plus --markdown, --svg DIR, --deterministic and --tiny (the size the tests use). A bad flag
// exits with status 2 and a message naming it; a failed experiment with 1.
package main
