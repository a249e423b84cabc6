// Package wire holds the byte encodings of the AckAttack UDP protocol: how
// numbers, sequence lists, packet headers, message records and the packets
// that make a connection look on the wire, and how a datagram is sealed with
// an integrity check.
//
// # Why a package of its own
//
// A datagram arrives from the network as a slice of bytes that anybody could
// have sent: a peer with a bug, another program on the same port, or somebody
// trying to crash the server. Every layer above this one (acks, the message
// dependency graph, the game) wants typed values, not bytes. Keeping the
// translation in one small package, with no state and no I/O, means the rules
// can be read in one place, tested against expected bytes, and fuzzed.
//
// Every encoding comes as a pair. Append… adds the encoding of a value to a
// byte slice and returns the extended slice, so a whole datagram is built into
// one reused buffer without allocating. Parse… reads a value from the front of
// a slice and reports how many bytes it used, so records can be read back to
// back. Parse… functions never panic and never trust a length they read: each
// is checked against the bytes that are actually there. Errors wrap one of the
// sentinel errors (ErrShort, ErrRange, ErrNonCanonical, ErrBadType,
// ErrChecksum, ErrTooLong, ErrTrailing, ErrBadName) for errors.Is.
// (SealKey holds a key and scratch space for its nonce, nothing that outlives
// a call.)
//
// # One value, one encoding
//
// Every value has exactly one valid encoding, and parsers reject the others
// (ErrNonCanonical). A format with two spellings of the same thing lets two
// implementations disagree silently, lets a sender smuggle meaning into the
// spare spelling, and breaks the simplest property test there is: parse, then
// encode again, and get the input back. The fuzz targets check exactly that.
//
// # Variable-length integers: UInt30 and Int30
//
// Lengths and counts are UInt30s: 1, 2 or 4 bytes, the first bits of the first byte saying
// how long (net/PROTOCOL.md section 1). They live in internal/int30, a package below both this
// one and the world's codec, which writes every number of a unit with them: one family of
// integers for the whole datagram, and its errors are this package's ErrShort, ErrRange,
// ErrNonCanonical and ErrTooLong.
//
// # Sequence lists
//
// A guaranteed message carries its own 15-bit sequence number followed by the
// sequence numbers of the messages it depends on (the receiver executes it
// only after those). Each number is a 2-byte word; its top bit says whether
// another word follows, so the list needs no count and a message with n
// dependencies costs 2 + 2n bytes:
//
//	word   bit 15          bits 14..0
//	0      1 if deps follow the message's own sequence number
//	1..n   1 if another dep follows   a dependency's sequence number
//
// A message never depends on itself and names each dependency once; a list
// of more than MaxDeps dependencies is rejected.
//
// # The datagram frame
//
//	offset  size  field
//	0       4     checksum: CRC-32C over ProtocolID (8 bytes) ‖ key (8 bytes) ‖ datagram[4:]
//	4       1     packet type (0 is invalid, 1 is Data, 2..9 the connection packets)
//	5       …     type-specific body
//
// This is the plain frame, the handshake's. UDP's own checksum is weak and
// optional, and a datagram may come from a program that merely shares the
// port. The CRC is computed over two values that are never sent: ProtocolID,
// which rejects other programs, and a key, which the protocol always sets to
// 0 (a test may use another to tell two streams apart). The check is against
// accidents and confusion, not against an attacker: CRC-32C is not a
// cryptographic MAC, and a connection's datagrams are sealed instead.
//
// Build a datagram with BeginDatagram, append the header and records, then
// SealDatagram. On receipt, OpenDatagram verifies the checksum and returns the
// bytes from the packet type on.
//
// # Sealed datagrams
//
// A checksum that anybody can compute protects nothing from somebody who
// tries: whoever sees one datagram of a connection, or guesses its key, can
// forge any other, and a copy of an old datagram is as good as new. So the
// datagrams of an established connection travel in another frame, sealed with
// an AEAD, ChaCha20-Poly1305 (RFC 8439), as netcode.io seals its packets:
//
//	offset  size  field
//	0       2     counter: the low 16 bits of the datagram's counter, big-endian
//	2       n     the packet (type byte and body), encrypted
//	2+n     16    tag
//
// Each direction of a connection has a key of its own (ConnectionKeys derives
// both from the handshake's X25519 exchange) and counts the datagrams it seals
// from 0. The nonce is 00 00 00 00 ‖ the whole 64-bit counter, so no nonce
// is ever used twice with a key; the two counter bytes are the additional
// data. The tag proves that the datagram comes from the holder of the key and
// was not changed on the way; the encryption keeps what the game says (a
// player's secret, a chat line) from anybody who merely sees the traffic.
//
// Only the low 16 bits of the counter travel. The receiver expands them to
// the value closest to the counter after the largest it accepted
// (ExpandCounter, QUIC's rule), which is right as long as fewer than 32,768
// datagrams in a row went missing; a connection times out long before. A
// copy older than that expands to another counter and fails authentication.
// Which counters were already accepted is the receiver's to remember: the
// frame only makes every copy recognisable as one (net/transport refuses
// them).
//
// The frame costs 18 bytes a datagram, 14 more than the checksum. Build a
// sealed datagram with BeginSealed, append the packet, then SealKey.Seal;
// SealKey.Open verifies and decrypts.
//
// # The Data packet header
//
//	byte 0     packet type (TypeData)
//	byte 1     flags  bit 0..3  ack-bits byte k is present (k=0 holds AckBits bits 0..7,
//	                            k=3 bits 24..31); an absent byte means 0xFF
//	                  bit 4     Ack is sent as a 1-byte distance back from Seq
//	                  bit 5..7  0
//	bytes 2-3  Seq
//	then       bit 4 set: 1 byte d = (Seq - Ack) mod 65536 (0..255); else 2 bytes Ack
//	then       the present ack-bits bytes, k = 0, 1, 2, 3 in that order
//
// Seq numbers this packet. Ack is the newest packet received from the peer,
// and bit i of AckBits says whether packet Ack-i arrived, so every packet
// acknowledges the last 32 the peer sent and one lost packet costs nothing as
// long as a later one gets through.
//
// The flags exist to make the steady state cheap. The peers send to each
// other all the time, so Ack is almost always just behind Seq and fits a one
// byte distance; and on a healthy link every recent packet arrived, so the
// ack-bits bytes are 0xFF and are left out. The smallest header is 5 bytes:
//
//	01 10 0100 01   Data, distance form, Seq 0x0100, Ack 0x00FF, AckBits 0xFFFFFFFF
//
// To keep one encoding per header, an ack-bits byte of 0xFF must be omitted,
// and the distance form must be used whenever it fits.
//
// # Message records
//
// The body of a Data packet is zero or more records back to back, up to the
// end of the datagram. A packet with no records is a keepalive or a pure ack.
//
//	byte 0   kind: bits 0..1  1 unreliable, 2 guaranteed, 3 fragment (0 invalid)
//	               bit 2      sync (guaranteed or fragment only)
//	               bit 3..7   0
//	guaranteed or fragment:
//	         sequence list (2 + 2n bytes)
//	fragment:
//	         1 byte fragment index, 1 byte fragment count (2..255, index < count)
//	         UInt30 total length of the reassembled message (≤ MaxMessageSize)
//	UInt30   payload length L (0 allowed)
//	L bytes  payload
//
// An unreliable record is sent once and forgotten: position updates that the
// next packet makes obsolete anyway. A guaranteed record is carried again in
// later packets until a packet holding it is acknowledged. A message too big
// for one datagram travels as fragments that share a sequence number, so the
// receiver can reassemble it and each fragment is acknowledged on its own.
// The sync bit marks a message that the sender treats as stop-and-wait.
//
// A complete Data datagram with two guaranteed records, in the plain frame:
//
//	49be273a              checksum
//	01 10 0100 01         header: Seq 0x0100, Ack 0x00FF, AckBits 0xFFFFFFFF
//	02 0005 02 6869       guaranteed, seq 5, no deps, payload "hi"
//	02 8006 0005 02 796f  guaranteed, seq 6, deps [5], payload "yo"
//
// # Connection packets
//
// Data flows only inside a connection, and the other packet types make one,
// keep it measured and end it. Each has its own Append…/Parse… pair; Parse…
// takes the whole packet from the type byte on (what OpenDatagram returns)
// and insists on its exact length, and PeekType says which parser to call.
//
//	client                                   server
//	ConnectRequest     1200 bytes, plain  →
//	                                      ←  Challenge      29 bytes, plain
//	ChallengeResponse  1200 bytes, plain  →
//	                                      ←  Accepted       37 bytes, plain (or Denied, 6 bytes)
//	Data, Ping, Pong, Disconnect: sealed with the connection's keys, both ways
//
//	type                   body
//	2  ConnectRequest      version u8 ‖ player id [16] ‖ name ‖ role u8 ‖ zero padding
//	3  Challenge           issued u64 ‖ tag [16]
//	4  ChallengeResponse   version u8 ‖ player id [16] ‖ name ‖ issued u64 ‖ tag [16] ‖ public key [32] ‖ role u8 ‖ zero padding
//	5  Accepted            public key [32]
//	6  Denied              reason u8
//	7  Disconnect          reason u8 ‖ text
//	8  Ping                id u32 ‖ t0 i64
//	9  Pong                id u32 ‖ t0 i64 ‖ t1 i64 ‖ t2 i64
//
// A name is a length byte (1..32) and UTF-8; a Disconnect text the same with
// 0..100 bytes. Neither may hold control characters: both end up on other
// players' screens and in logs.
//
// The challenge exists because the source address of a UDP datagram is
// whatever the sender wrote there. Before the server spends a seat, or any
// memory, on a client, the client must show that it receives datagrams at
// the address it claims, by echoing a tag that only the server can compute.
// The server derives the tag from a secret, so it needs to remember nothing
// until a valid response arrives.
//
// The public keys are the two halves of an X25519 exchange: each side draws a
// key pair for the connection, and from its private key and the other's
// public key computes a shared secret that never travels, and from it the
// connection's keys (ConnectionKeys). A key the server sent in the clear
// would belong to whoever reads the handshake; the public keys give such a
// reader nothing. The client's key comes only with the response, and the
// server draws its own only once the response proved the client's address,
// so the challenge stays stateless and a flood of requests costs no key
// exchange. The Accepted is 37 bytes, more than a Challenge, but it answers
// only an address that has proven itself.
//
// Why is the request padded to a full 1200-byte datagram? A server that
// answers a small datagram with a larger one is an amplifier: an attacker
// sends requests with a victim's address as the source, and the server
// floods the victim with more bytes than the attacker spent. With the padding
// every reply the server sends before the client has proven its address is
// far smaller than the request it answers, so forging requests gains nothing.
// The padding must be zero, so it can carry nothing, and the full size also
// shows, before a game starts, that the path carries datagrams that large.
package wire
