// Package record writes what a host's socket sent and received as a capture file that
// Wireshark opens, with the keys that open its sealed datagrams in a file beside it, and reads
// such a capture back as timed, opened datagrams (for a replay, or a test).
//
// # Why a capture
//
// A debug panel shows counters; a capture shows every datagram, with its time, its bytes and
// its fate. A class that watched a re-sync at 30% loss can open the capture afterwards and walk
// through it packet by packet: which datagram the link dropped, which ack finally reported a
// message, which resend carried it. The format is pcapng, the one Wireshark and tcpdump write,
// so every tool that reads captures reads these, and assets/wireshark has a dissector that
// shows every field of the protocol.
//
// # What the capture holds
//
// The Recorder is a transport.Tap: the socket shows it every datagram (net/transport's tap.go
// says where). Each becomes one packet of the capture:
//
//   - Link type raw IP (LINKTYPE_RAW): the recorder writes the IPv4 or IPv6 and UDP headers the
//     socket never hands over (frame.go), with the host's and the peer's addresses and ports,
//     right lengths and checksums, so Wireshark dissects it as UDP and by port.
//   - The time is when the host sent it, got it, or when the link conditioner dropped it, in
//     nanoseconds.
//   - pcapng's direction flag (inbound, outbound) says which way it went.
//   - Two interfaces: 0 "ackattack" holds the datagrams that left the host or reached it, 1
//     "dropped" the ones that never reached the other side. Each of those carries a comment
//     saying why: "dropped by the link conditioner", or "dropped by the socket: the host's
//     queue was full". An outgoing datagram that the conditioner duplicated is on interface 0
//     with the comment "duplicated by the link conditioner: the other side gets it twice".
//     So in Wireshark the filter frame.interface_id == 1 shows the losses, and a replay tells
//     the fates apart without guessing.
//   - At the end, pcapng's interface statistics of interface 0: datagrams written, and those
//     the recorder itself missed.
//
// # The key file
//
// Every datagram of a connection is sealed with ChaCha20-Poly1305 under keys that never
// travel (net/PROTOCOL.md section 3), so a capture alone shows only the handshake. The
// Recorder is also the endpoint's key log (transport.Config.KeyLog): it writes each
// connection's two keys to NAME.keys beside the capture NAME, one line per direction (keys.go
// has the format), as TLS key log files let Wireshark read HTTPS. Whoever holds the key file
// can read and forge those connections' datagrams: it is created with mode 0600, and it is for
// a class's own games, never for a game that matters.
//
// # Bounded, and never in the host's way
//
// Tapped copies the datagram into a pooled buffer and queues it; a goroutine of the Recorder
// wakes every 10 ms to write what was queued, through a buffer that goes to the file once a
// second. The host's receive path pays the copy and a channel send, and never wakes the writer
// (BENCHMARKS.md). If the writer falls behind
// (4,096 datagrams queued), datagrams are counted as lost instead of waited for. The capture
// stops growing at Options.Limit (DefaultLimit 256 MiB), and a write error (a full disk) stops
// it too, with what was written kept, the loss counted, and the error returned by Close; the
// game goes on either way.
//
// # Reading it back
//
// Reader reads a capture in order and opens each sealed datagram with the key of its
// direction, rebuilding its 64-bit counter from the 16 bits that travel as a receiver does
// (wire.ExpandCounter), for the datagrams the link dropped too. What comes out is a Datagram:
// its time, direction, fate, addresses, bytes as they traveled, and the packet inside (type
// byte and body), ready for net/wire's parsers and a game's messages. A key line that breaks
// the format is skipped and counted (Reader.SkippedKeyLines): the datagrams it was for stay
// sealed, as without a key file, and the rest of the capture reads.
package record
