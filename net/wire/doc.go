// Package wire holds the byte encodings of the AckAttack UDP protocol: the two frames a
// datagram travels in, the Data packet's header, message records and their sequence lists,
// and the packets that make, measure and end a connection. It has no state and does no I/O: a
// datagram from the network is a slice of bytes that anybody could have sent, and every layer
// above (acks, the message dependency graph, the game) wants typed values, so the translation
// lives here, in one place that can be read, tested against expected bytes and fuzzed.
// net/PROTOCOL.md is the reference for every byte; IDEAS.md names the ideas.
//
// # The map
//
//	datagram.go    the plain frame of the handshake: BeginDatagram, SealDatagram (the CRC-32C
//	               checksum), OpenDatagram; ProtocolID, MaxDatagram
//	sealed.go      the sealed frame of a connection: SealKey (ChaCha20-Poly1305), BeginSealed,
//	               ExpandCounter, ConnectionKeys (HKDF from the X25519 secret)
//	header.go      PacketType; the Data packet's Header (Seq, Ack, the ack bitfield),
//	               AppendHeader, ParseHeader
//	record.go      Record and MessageKind (unreliable, guaranteed, fragment; the sync bit),
//	               AppendRecord, ParseRecord; MaxMessageSize
//	seqlist.go     the sequence list of a guaranteed message and its dependencies:
//	               AppendSeqList, ParseSeqList, SeqListSize, MaxDeps
//	connection.go  the connection packets, types 2 to 9 (ConnectRequest, Challenge,
//	               ChallengeResponse, Accepted, Denied, Disconnect, Ping, Pong), PeekType,
//	               the name rules (CheckName, FitReasonText), the reasons
//	errors.go      the sentinel errors
//
// The variable-length integers, UInt30 and Int30, are internal/int30's: one family for the
// whole datagram and for the world's codec.
//
// # Usage
//
// Every encoding comes as a pair. Append… adds the encoding of a value to a byte slice and
// returns the extended slice, so a whole datagram is built into one reused buffer without
// allocating; Parse… reads a value from the front of a slice and reports how many bytes it
// used, so records are read back to back.
//
//	d := wire.BeginDatagram(buf[:0])
//	d = wire.AppendHeader(d, wire.Header{Type: wire.TypeData, Seq: 0x0100, Ack: 0x00FF, AckBits: 0xFFFFFFFF})
//	d, err := wire.AppendRecord(d, &wire.Record{Kind: wire.KindGuaranteed, Seq: 5, Payload: []byte("hi")})
//	wire.SealDatagram(d, 0) // the plain frame; a connection's packet goes through SealKey.Seal instead
//
//	packet, err := wire.OpenDatagram(d, 0)
//	h, n, err := wire.ParseHeader(packet)
//	r := wire.Record{Deps: make([]uint16, 0, wire.MaxDeps)} // reused: no allocation per record
//	for body := packet[n:]; len(body) > 0; body = body[n:] {
//		n, err = wire.ParseRecord(body, &r)
//		...
//	}
//
// A connection packet has its own pair (AppendChallenge, ParseChallenge, …): Parse… takes the
// whole packet from the type byte on, as OpenDatagram or SealKey.Open returns it, and
// PeekType says which parser to call.
//
// # Rules
//
//   - One value, one encoding. Every value has exactly one valid encoding, and parsers reject
//     the others with ErrNonCanonical: the shortest integer, reserved bits zero, an ack-bits
//     byte of 0xFF left out, no dependency listed twice. Two spellings of one thing would let
//     two implementations disagree silently and let a sender smuggle meaning into the spare
//     one. Parse, then append again, gives back the input: the fuzz targets check exactly that.
//   - An Append… checks its value before it writes: on an error it returns b unchanged, and
//     whatever it writes, the matching Parse… reads back as the same value.
//   - Parse… never panics and never trusts a length it read: each is checked against the bytes
//     that are there before anything is allocated.
//   - Every error wraps exactly one sentinel (ErrShort, ErrRange, ErrNonCanonical, ErrBadType,
//     ErrChecksum, ErrTooLong, ErrTrailing, ErrBadName), for errors.Is.
//   - The plain frame is for the handshake only: its CRC is against accidents, not attackers.
//     Every packet of an established connection is sealed (SealKey).
//   - A SealKey holds a scratch nonce: one goroutine at a time. Everything else is safe to
//     call from anywhere.
package wire
