// Command netlab runs the experiments that back each claim of the AckAttack stack with
// numbers a class can reproduce. A network experiment on real sockets measures the machine as
// much as the protocol, and cannot be repeated: the next run loses other packets. netlab runs
// the protocol's real code (the same net/message.Conn and game sessions the binaries use) over
// net/linksim's simulated network, on a clock that jumps from one event to the next, the
// link's fate for every datagram drawn from a seed. So the same flags print the same numbers
// on any machine, an hour of traffic takes seconds, and a student who doubts a number can
// change one flag and see what moves.
//
// # The map
//
//	main.go                   the experiments table (name, summary, defaults, tiny size,
//	                          flags, run), the shared flags, --markdown, --svg, --into
//	internal/stacklab         the stack's experiments: hol (head-of-line blocking, five ways),
//	                          overhead (bytes per guaranteed message, with and without
//	                          pruning), olddep (the old-dependency problem across sequence
//	                          wraps), fragments (per-fragment acks against resending every
//	                          fragment when one is lost)
//	internal/gamelab          the game's experiments: resync (desyncs found and repaired,
//	                          real-time and stop-the-world re-sync), scale (bytes and the
//	                          server's work as clients, spectators and units grow; each
//	                          player's total in and out over all its links, with and without
//	                          IP/UDP headers, in play and idle, against a 28.8k modem; its
//	                          --direct is the server's: direct links or the relay alone)
//	internal/report           text, Markdown and SVG from one description of what was measured
//	testdata/all-tiny.md      the golden output of every experiment at its tiny size
//
// # Usage
//
//	go run ./cmd/netlab hol                        # head-of-line blocking, five ways
//	go run ./cmd/netlab hol --loss 20 --jitter 10ms --svg charts
//	go run ./cmd/netlab resync --late fastforward  # the classic lockstep fast-forward's drift
//	go run ./cmd/netlab all --markdown             # every experiment, as BENCHMARKS.md's sections
//	go run ./cmd/netlab all --into BENCHMARKS.md   # ... replacing the marked section in place
//
// Every experiment takes --loss, --latency, --jitter and --dup (the link, both directions),
// --seed and --messages (its size: messages, trials, desyncs or frames, as its help says),
// plus --markdown, --svg DIR, --deterministic and --tiny (the size the tests use);
// netlab <experiment> --help lists its own flags and defaults.
//
// # Rules
//
//   - Everything is virtual and seeded except two things, marked where they appear: the
//     quic-go row of hol (quic-go reads the system clock, so it runs on real loopback sockets
//     under a linksim conditioner) and the server's work in scale (its wall time is the point).
//     --deterministic leaves both out; the tests run with it.
//   - all runs resync twice, with the rollback the game uses and with the classic lockstep
//     fast-forward.
//   - The experiments do no formatting; report renders what they measured.
//   - go test ./cmd/netlab -run Golden compares every experiment's tiny output with
//     testdata/all-tiny.md (-update rewrites it); BENCHMARKS.md's section between the netlab
//     markers is regenerated with all --into.
//   - A bad flag exits with status 2 and a message naming it; a failed experiment with 1.
package main
