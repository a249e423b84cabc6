// Package record writes what a host's socket sent and received as a capture file that
// Wireshark opens, with the keys that open its sealed datagrams in a file beside it, and reads
// such a capture back as timed, opened datagrams (for a replay, or a test). A debug panel shows
// counters; a capture shows every datagram with its time, its bytes and its fate, so a class
// that watched a re-sync at 30% loss can walk through it afterwards packet by packet. The
// format is pcapng, the one Wireshark and tcpdump write; assets/wireshark has a dissector that
// shows every field of the protocol. The binaries' --record writes one, and --replay
// (game/replay) plays one back.
//
// # The map
//
//	recorder.go  Recorder (Create, New): a transport.Tap (Tapped) and key log (KeyLog) that
//	             writes the capture on a goroutine of its own, bounded by Options.Limit;
//	             the two interfaces (IfaceSocket, IfaceDropped) and the comments that say why
//	             a datagram never arrived; Stats, Close
//	frame.go     the IPv4 or IPv6 and UDP headers the socket never hands over, written around
//	             each datagram
//	keys.go      the key file: one ACKATTACK_KEY line per direction of each connection
//	             (KeysPath, ParseKeys, Key)
//	reader.go    Reader (Open, NewReader, ReadAll): the capture in order, each sealed datagram
//	             opened with its direction's key; Datagram, with its time, direction, fate,
//	             addresses, bytes and the packet inside
//
// # Usage
//
//	rec, err := record.Create("class.pcapng", record.Options{}) // and class.pcapng.keys
//	cfg.Tap, cfg.KeyLog = rec, rec.KeyLog // cfg is the host's transport.Config
//	... play ...
//	err = rec.Close() // what was written stays, even after a write error
//
//	r, err := record.Open("class.pcapng") // reads class.pcapng.keys too, if it is there
//	defer r.Close()
//	for {
//		d, err := r.Next()
//		if err == io.EOF { break }
//		// d.Packet is the packet (type byte and body), opened, ready for net/wire's parsers
//	}
//
// # Rules
//
//   - Recording never holds up the host: Tapped copies and queues, and a writer that falls
//     behind, a full capture or a full disk costs datagrams (counted), not the game's time.
//   - The key file opens and forges the recorded connections: it is created with mode 0600,
//     and a capture without it shows only the handshakes.
//   - A capture is read in the order it was written, and the Reader rebuilds each direction's
//     counters as a receiver does, the dropped datagrams included.
//   - A missing key file, or a key line that breaks the format, is no error: those datagrams
//     stay sealed (SkippedKeyLines counts the lines).
package record
