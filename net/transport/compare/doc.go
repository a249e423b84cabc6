// Package compare holds benchmark-only reference peers for net/transport: the same loopback
// workload sent through this project's transport, through QUIC (github.com/quic-go/quic-go)
// and through TCP from the standard library, measured by one harness. The package has no
// code outside its _test.go files, so no binary links it and the QUIC dependency never
// reaches the game; it exists only so that a claim like "faster than QUIC for small
// guaranteed messages under loss" is a measurement anyone can repeat, not a belief.
//
// # What is compared
//
// One endpoint sends a fixed number of 64-byte guaranteed messages to the other, one
// direction, as fast as its sender accepts them. Each payload carries the moment it was handed
// to the sender; both ends live in one process, so the receiver's clock minus that stamp is
// the delivery latency, with no clock offset to estimate. Per run the harness reports
// messages per second (first hand-over to last delivery), the median and 99th percentile
// latency, the process's CPU time per message (both ends together, from getrusage) and heap
// allocations per message and per datagram.
//
// The peers:
//
//   - ackattack: net/transport, a Server and a Client. Messages are independent (no
//     dependencies), so a lost packet delays only the messages it carried.
//   - quic-stream-per-msg: one unidirectional QUIC stream per message, the way to get reliable
//     delivery without head-of-line blocking out of QUIC.
//   - quic-one-stream: every message on one QUIC stream, ordered like TCP: a lost packet holds
//     back everything sent after it.
//   - tcp: one TCP connection, without loss (the link conditioner only works on datagrams).
//
// # Same link, same rules
//
// Both UDP stacks read and write through a net/linksim PacketConn on each socket: with zero
// settings for the lossless runs, and with 10% loss in each direction (applied once, on the
// client's socket) for the lossy ones. quic-go therefore runs without its batched reads and
// segmentation offload, which need a real *net.UDPConn; so does this project's transport,
// which never uses them.
//
// A sender's queue decides what the latency measures. quic-go's Write returns once the data
// sits in the stream's one-packet buffer and blocks beyond it, a TCP write blocks when the
// kernel's socket buffer is full; this project's Conn.SendGuaranteed refuses only when its
// window of 16,383 outstanding messages is full (ErrBackpressure), so a benchmark that hands
// it everything at once would measure nothing but the time its queue takes to drain. The
// harness therefore tops the connection up to one packet's worth of unsent messages on every
// turn of the owner loop, the same bound quic-go's stream buffer sets, and stops on
// ErrBackpressure.
//
// The numbers, the command that produces them and what they mean are in BENCHMARKS.md.
package compare
