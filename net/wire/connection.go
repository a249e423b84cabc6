package wire

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The connection packets: everything that is not Data. The handshake's go in
// the plain frame (checksum ‖ type ‖ body, key 0); those of a connection are
// sealed with its keys (SealKey), like its Data packets.
//
//	type                   dir   frame   body
//	2  ConnectRequest      c→s   plain   version u8 ‖ player id [16] ‖ name ‖ role u8 ‖ zero padding
//	3  Challenge           s→c   plain   issued u64 ‖ tag [16]
//	4  ChallengeResponse   c→s   plain   version u8 ‖ player id [16] ‖ name ‖ issued u64 ‖ tag [16] ‖ public key [32] ‖ role u8 ‖ zero padding
//	5  Accepted            s→c   plain   public key [32]
//	6  Denied              s→c   plain   reason u8
//	7  Disconnect          both  sealed  reason u8 ‖ text
//	8  Ping                both  sealed  id u32 ‖ t0 i64
//	9  Pong                both  sealed  id u32 ‖ t0 i64 ‖ t1 i64 ‖ t2 i64
//
//	name   u8 length 1..MaxNameLen, then that many bytes of UTF-8 without control characters
//	text   u8 length 0..MaxReasonText, then that many bytes of UTF-8 without control characters
//
// ConnectRequest and ChallengeResponse are padded with zeros so that the
// whole datagram, checksum included, is exactly HandshakeSize bytes. Every
// packet has an exact length: a shorter one is ErrShort, a longer one
// ErrTrailing.
//
// Why a challenge: the source address of a UDP datagram is whatever the sender
// wrote there. Before the server spends a connection, or any memory, on a
// client, the client must show that it receives datagrams at the address it
// claims, by echoing a tag that only the server can compute. The server
// derives the tag from a secret, so it remembers nothing until a valid
// response arrives.
//
// Why the public keys: they are the two halves of an X25519 exchange. Each
// side draws a key pair for the connection and computes, from its private key
// and the other's public key, a shared secret that never travels, and from it
// the connection's keys (ConnectionKeys). A key the server sent in the clear
// would belong to whoever reads the handshake; the public keys give such a
// reader nothing. The client's key comes only with the response, and the
// server draws its own only once the response proved the client's address, so
// the challenge stays stateless and a flood of requests costs no key exchange.
//
// Why the padding: see HandshakeSize.
const (
	TypeConnectRequest    PacketType = 2
	TypeChallenge         PacketType = 3
	TypeChallengeResponse PacketType = 4
	TypeAccepted          PacketType = 5
	TypeDenied            PacketType = 6
	TypeDisconnect        PacketType = 7
	TypePing              PacketType = 8
	TypePong              PacketType = 9

	maxPacketType = TypePong
)

// ProtocolVersion is the version a client announces in its ConnectRequest.
// A server that speaks another version answers DenyVersion. Later versions
// keep the ConnectRequest layout and ProtocolID, so that this answer stays
// possible. Version 2 brought the key exchange (a public key in the
// ChallengeResponse and the Accepted), the sealed frame and the role byte:
// a client of version 1 could not read the Accepted, so it is told
// DenyVersion instead of waiting for a connection that never opens.
const ProtocolVersion = 2

// HandshakeSize is the size of a whole ConnectRequest or ChallengeResponse
// datagram, checksum included. A server that answers a small datagram with a
// larger one is an amplifier: an attacker sends requests with a victim's
// address as the source, and the server floods the victim with more bytes than
// the attacker spent. Every reply the server sends before the client has
// proven its address is smaller than this (the Accepted, 37 bytes, answers
// only an address that proved itself), so forging requests gains nothing. The
// padding must be zero, so it carries nothing, and the full size also shows,
// before a game starts, that the path carries datagrams that large.
const HandshakeSize = 1200

// MaxNameLen is the longest player name in bytes (not characters).
const MaxNameLen = 32

// MaxReasonText is the longest Disconnect text in bytes.
const MaxReasonText = 100

// Sizes of the packets from the type byte on.
const (
	handshakePacketSize = HandshakeSize - ChecksumSize
	challengeBodySize   = 8 + 16
	challengeSize       = 1 + challengeBodySize
	acceptedSize        = 1 + PublicKeySize
	deniedSize          = 1 + 1
	pingSize            = 1 + 4 + 8
	pongSize            = 1 + 4 + 3*8
)

// PlayerID names a player across connections. A client draws it at random
// once and keeps it, so a server can give a player who comes back after a
// lost connection their seat again.
type PlayerID [16]byte

// Role is what a client asks to be on the server: the transport carries it and hands it to
// the server's owner, which decides what to make of it (a game seats a player, and lets an
// observer watch without a seat). It is the last field of the client's handshake packets,
// before their zero padding.
type Role uint8

const (
	RolePlayer   Role = 0 // a participant: what a client is unless it asks otherwise
	RoleObserver Role = 1 // a client that asks only to watch (a game's spectator)

	maxRole = RoleObserver
)

func (r Role) String() string {
	switch r {
	case RolePlayer:
		return "player"
	case RoleObserver:
		return "observer"
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// ConnectRequest is a client's first packet: who it is and which protocol it
// speaks.
type ConnectRequest struct {
	Version uint8 // the client's protocol version; 0 is written as ProtocolVersion
	Player  PlayerID
	Name    string // 1..MaxNameLen bytes of UTF-8 without control characters
	Role    Role   // what it asks to be
}

// Challenge is the server's answer to a ConnectRequest: a tag the client
// must send back to prove that it receives datagrams at its address. The
// server computes the tag from a secret, so it need not remember it.
type Challenge struct {
	Issued uint64   // when the server issued the tag: its clock, Unix milliseconds
	Tag    [16]byte // opaque to the client
}

// PublicKey is an X25519 public key (RFC 7748), as the handshake carries it. All zeros is
// never valid.
type PublicKey [PublicKeySize]byte

// ChallengeResponse repeats the request with the challenge attached, and the client's half
// of the key exchange.
type ChallengeResponse struct {
	Version   uint8 // as in ConnectRequest
	Player    PlayerID
	Name      string
	Challenge Challenge // copied from the Challenge packet
	PublicKey PublicKey // the client's X25519 public key for this connection
	Role      Role      // as in ConnectRequest
}

// Accepted tells a client that it is connected, with the server's half of the key exchange:
// from the two public keys and its own private key each side derives the connection's keys
// (ConnectionKeys), which never travel. It carries nothing about the game: a transport has
// connections, not seats, and the game above says where a player sits in a message of its
// own.
type Accepted struct {
	PublicKey PublicKey // the server's X25519 public key for this connection
}

// DenyReason says why a server refused a connection.
type DenyReason uint8

const (
	DenyServerFull DenyReason = 1 // no connection is free, or the server's owner refuses the player
	DenyVersion    DenyReason = 2 // the client speaks another ProtocolVersion
	DenyChallenge  DenyReason = 3 // the tag is invalid, expired or already used
	DenyBadRequest DenyReason = 4 // the request breaks a rule of the protocol

	maxDenyReason = DenyBadRequest
)

func (r DenyReason) String() string {
	switch r {
	case DenyServerFull:
		return "server full"
	case DenyVersion:
		return "protocol version mismatch"
	case DenyChallenge:
		return "invalid or expired challenge"
	case DenyBadRequest:
		return "bad request"
	}
	return fmt.Sprintf("DenyReason(%d)", uint8(r))
}

// Denied tells a client that the server will not connect it.
type Denied struct {
	Reason DenyReason
}

// DisconnectReason says why a side ends a connection.
type DisconnectReason uint8

const (
	DisconnectClosed   DisconnectReason = 1 // the sender closed the connection
	DisconnectKicked   DisconnectReason = 2 // the server removed the player
	DisconnectTimeout  DisconnectReason = 3 // nothing arrived from the peer for too long
	DisconnectError    DisconnectReason = 4 // a connection error: a dependency expired, the resend limit passed
	DisconnectReplaced DisconnectReason = 5 // the same player connected again from elsewhere
	DisconnectShutdown DisconnectReason = 6 // the server is stopping

	maxDisconnectReason = DisconnectShutdown
)

func (r DisconnectReason) String() string {
	switch r {
	case DisconnectClosed:
		return "closed"
	case DisconnectKicked:
		return "kicked"
	case DisconnectTimeout:
		return "timeout"
	case DisconnectError:
		return "connection error"
	case DisconnectReplaced:
		return "replaced"
	case DisconnectShutdown:
		return "server shutdown"
	}
	return fmt.Sprintf("DisconnectReason(%d)", uint8(r))
}

// Disconnect ends a connection. It is not acknowledged.
type Disconnect struct {
	Reason DisconnectReason
	Text   string // for people: 0..MaxReasonText bytes of UTF-8 without control characters
}

// Ping asks the peer for a Pong, to measure the round trip and the offset
// between the two clocks.
type Ping struct {
	ID uint32 // chosen by the sender, echoed in the Pong
	T0 int64  // when the ping left: the sender's clock, Unix nanoseconds
}

// Pong answers a Ping. With t3, the pinger's clock when the pong arrives,
// the round trip is (t3−t0) − (t2−t1) and the responder's clock is ahead by
// ((t1−t0) + (t2−t3)) / 2.
type Pong struct {
	ID uint32 // the Ping's ID
	T0 int64  // the Ping's T0, echoed
	T1 int64  // when the ping arrived: the responder's clock, Unix nanoseconds
	T2 int64  // when the pong left: the responder's clock, Unix nanoseconds
}

// PeekType returns the type of a packet (b starts at the packet type, as
// OpenDatagram returns it) so a receiver can choose the parser. An empty
// packet is ErrShort, an unknown type ErrBadType.
func PeekType(b []byte) (PacketType, error) {
	if len(b) == 0 {
		return TypeInvalid, fmt.Errorf("wire: packet: empty: %w", ErrShort)
	}
	t := PacketType(b[0])
	if t == TypeInvalid || t > maxPacketType {
		return TypeInvalid, fmt.Errorf("wire: packet: type %v: %w", t, ErrBadType)
	}
	return t, nil
}

// CheckName reports why name cannot be sent as a player name, or nil: it
// must be 1 to MaxNameLen bytes (ErrBadName if empty, ErrTooLong if longer)
// of valid UTF-8 without control characters (ErrBadName).
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("wire: name: empty: %w", ErrBadName)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("wire: name: %d bytes, at most %d: %w", len(name), MaxNameLen, ErrTooLong)
	}
	return checkText("name", name)
}

// checkText rejects invalid UTF-8 and control characters. Names and texts end
// up on other players' screens and in logs, where a stray escape or line
// break could disguise one player as another or forge a line of output.
func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("wire: %s: not valid UTF-8: %w", what, ErrBadName)
	}
	for i, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("wire: %s: control character %U at byte %d: %w", what, r, i, ErrBadName)
		}
	}
	return nil
}

func checkReasonText(text string) error {
	if len(text) > MaxReasonText {
		return fmt.Errorf("wire: disconnect text: %d bytes, at most %d: %w", len(text), MaxReasonText, ErrTooLong)
	}
	return checkText("disconnect text", text)
}

// FitReasonText returns text as a Disconnect can carry it: invalid UTF-8 and
// control characters become U+FFFD, and a text longer than MaxReasonText bytes
// is cut at the last character boundary within the limit, never inside a
// character. AppendDisconnect accepts the result.
func FitReasonText(text string) string {
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(text, string(utf8.RuneError)))
	if len(text) <= MaxReasonText {
		return text
	}
	cut := MaxReasonText
	for !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}

// appendString writes a string that has been checked: a length byte, then
// the bytes.
func appendString(b []byte, s string) []byte {
	return append(append(b, byte(len(s))), s...)
}

// parseString reads a length byte and that many bytes from the front of b,
// refusing a length above max.
func parseString(b []byte, what string, max int) (s string, n int, err error) {
	if len(b) == 0 {
		return "", 0, fmt.Errorf("wire: %s: no length: %w", what, ErrShort)
	}
	size := int(b[0])
	if size > max {
		return "", 0, fmt.Errorf("wire: %s: %d bytes, at most %d: %w", what, size, max, ErrTooLong)
	}
	if len(b) < 1+size {
		return "", 0, fmt.Errorf("wire: %s: %d bytes, %d left: %w", what, size, len(b)-1, ErrShort)
	}
	return string(b[1 : 1+size]), 1 + size, nil
}

// version returns the version to write for v.
func version(v uint8) uint8 {
	if v == 0 {
		return ProtocolVersion
	}
	return v
}

// appendIdentity writes the start of both handshake packets from the client:
// version ‖ player id ‖ name. The name has been checked.
func appendIdentity(b []byte, v uint8, p *PlayerID, name string) []byte {
	b = append(b, version(v))
	b = append(b, p[:]...)
	return appendString(b, name)
}

// parseIdentity reads what appendIdentity wrote.
func parseIdentity(b []byte, t PacketType) (v uint8, p PlayerID, name string, n int, err error) {
	if len(b) < 1+len(p) {
		return 0, p, "", 0, fmt.Errorf("wire: %v: version and player id: %w", t, ErrShort)
	}
	if v = b[0]; v == 0 {
		return 0, p, "", 0, fmt.Errorf("wire: %v: protocol version 0: %w", t, ErrRange)
	}
	copy(p[:], b[1:])
	n = 1 + len(p)
	name, m, err := parseString(b[n:], "name", MaxNameLen)
	if err == nil {
		err = CheckName(name)
	}
	if err != nil {
		return 0, PlayerID{}, "", 0, err
	}
	return v, p, name, n + m, nil
}

// checkRole rejects a role this version does not know.
func checkRole(r Role, t PacketType) error {
	if r > maxRole {
		return fmt.Errorf("wire: %v: role %d: %w", t, uint8(r), ErrRange)
	}
	return nil
}

// padHandshake pads a handshake packet that starts at b[start] with zeros to
// its fixed size.
func padHandshake(b []byte, start int) []byte {
	n := handshakePacketSize - (len(b) - start)
	b = slices.Grow(b, n)
	b = b[:len(b)+n]
	clear(b[len(b)-n:])
	return b
}

// checkPadding rejects a nonzero byte in the padding p that starts at byte
// offset of the packet. Zero padding leaves no room to smuggle data into a
// packet whose bytes all count.
func checkPadding(p []byte, offset int, t PacketType) error {
	for i, c := range p {
		if c != 0 {
			return fmt.Errorf("wire: %v: padding byte at %d is %#02x: %w", t, offset+i, c, ErrNonCanonical)
		}
	}
	return nil
}

// checkType checks the type byte of a packet.
func checkType(b []byte, t PacketType) error {
	if len(b) == 0 {
		return fmt.Errorf("wire: %v: empty packet: %w", t, ErrShort)
	}
	if got := PacketType(b[0]); got != t {
		return fmt.Errorf("wire: %v: packet type %v: %w", t, got, ErrBadType)
	}
	return nil
}

// checkSize checks the type byte and the exact length of a fixed-size packet.
func checkSize(b []byte, t PacketType, size int) error {
	if err := checkType(b, t); err != nil {
		return err
	}
	if len(b) < size {
		return fmt.Errorf("wire: %v: %d bytes, want %d: %w", t, len(b), size, ErrShort)
	}
	if len(b) > size {
		return fmt.Errorf("wire: %v: %d bytes, want %d: %w", t, len(b), size, ErrTrailing)
	}
	return nil
}

// AppendConnectRequest appends a ConnectRequest: the type byte, the body and
// zero padding up to HandshakeSize-ChecksumSize bytes in all, so that a
// datagram begun with BeginDatagram is exactly HandshakeSize bytes. A bad
// name fails as in CheckName; b is returned unchanged then.
//
//	0       1   type 2
//	1       1   version
//	2       16  player id
//	18      1   name length L (1..32)
//	19      L   name
//	19+L    1   role (0 player, 1 observer)
//	20+L    …   zeros up to byte 1195
//
// An unknown role is ErrRange.
func AppendConnectRequest(b []byte, m *ConnectRequest) ([]byte, error) {
	if err := CheckName(m.Name); err != nil {
		return b, err
	}
	if err := checkRole(m.Role, TypeConnectRequest); err != nil {
		return b, err
	}
	start := len(b)
	b = append(b, byte(TypeConnectRequest))
	b = appendIdentity(b, m.Version, &m.Player, m.Name)
	b = append(b, byte(m.Role))
	return padHandshake(b, start), nil
}

// ParseConnectRequest reads a ConnectRequest from b, the whole packet from
// its type byte on. A packet of another type is ErrBadType; one shorter or
// longer than HandshakeSize-ChecksumSize is ErrShort or ErrTrailing; version
// 0 and an unknown role are ErrRange; a bad name fails as in CheckName;
// nonzero padding is ErrNonCanonical. Any other version parses: the server
// answers it with DenyVersion.
func ParseConnectRequest(b []byte) (ConnectRequest, error) {
	const t = TypeConnectRequest
	if err := checkSize(b, t, handshakePacketSize); err != nil {
		return ConnectRequest{}, err
	}
	v, p, name, n, err := parseIdentity(b[1:], t)
	if err != nil {
		return ConnectRequest{}, err
	}
	// After the type byte and the identity comes the role: the name is at most MaxNameLen
	// bytes, so it always fits in the fixed size.
	n++
	role := Role(b[n])
	if err := checkRole(role, t); err != nil {
		return ConnectRequest{}, err
	}
	n++
	if err := checkPadding(b[n:], n, t); err != nil {
		return ConnectRequest{}, err
	}
	return ConnectRequest{Version: v, Player: p, Name: name, Role: role}, nil
}

// AppendChallenge appends a Challenge. Every value is valid.
//
//	0   1   type 3
//	1   8   issued
//	9   16  tag
func AppendChallenge(b []byte, m *Challenge) []byte {
	b = append(b, byte(TypeChallenge))
	return appendChallengeBody(b, m)
}

func appendChallengeBody(b []byte, m *Challenge) []byte {
	b = binary.BigEndian.AppendUint64(b, m.Issued)
	return append(b, m.Tag[:]...)
}

func parseChallengeBody(b []byte) (m Challenge) {
	m.Issued = binary.BigEndian.Uint64(b)
	copy(m.Tag[:], b[8:])
	return m
}

// ParseChallenge reads a Challenge from b, the whole packet from its type
// byte on. A packet of another type is ErrBadType; a wrong length is ErrShort
// or ErrTrailing.
func ParseChallenge(b []byte) (Challenge, error) {
	if err := checkSize(b, TypeChallenge, challengeSize); err != nil {
		return Challenge{}, err
	}
	return parseChallengeBody(b[1:]), nil
}

// checkPublicKey rejects the public key of all zeros: X25519 turns it into a shared secret of
// all zeros, whatever the other side's key.
func checkPublicKey(k *PublicKey, t PacketType) error {
	if *k == (PublicKey{}) {
		return fmt.Errorf("wire: %v: public key of zeros: %w", t, ErrRange)
	}
	return nil
}

// AppendChallengeResponse appends a ChallengeResponse, padded like a
// ConnectRequest. A bad name fails as in CheckName, a public key of zeros is
// ErrRange; b is returned unchanged then.
//
//	0       1   type 4
//	1       1   version
//	2       16  player id
//	18      1   name length L (1..32)
//	19      L   name
//	19+L    8   issued (from the Challenge)
//	27+L    16  tag (from the Challenge)
//	43+L    32  the client's public key
//	75+L    1   role (0 player, 1 observer)
//	76+L    …   zeros up to byte 1195
func AppendChallengeResponse(b []byte, m *ChallengeResponse) ([]byte, error) {
	if err := CheckName(m.Name); err != nil {
		return b, err
	}
	if err := checkPublicKey(&m.PublicKey, TypeChallengeResponse); err != nil {
		return b, err
	}
	if err := checkRole(m.Role, TypeChallengeResponse); err != nil {
		return b, err
	}
	start := len(b)
	b = append(b, byte(TypeChallengeResponse))
	b = appendIdentity(b, m.Version, &m.Player, m.Name)
	b = appendChallengeBody(b, &m.Challenge)
	b = append(b, m.PublicKey[:]...)
	b = append(b, byte(m.Role))
	return padHandshake(b, start), nil
}

// ParseChallengeResponse reads a ChallengeResponse from b, the whole packet
// from its type byte on. It fails as ParseConnectRequest does, and with
// ErrRange for a public key of zeros.
func ParseChallengeResponse(b []byte) (ChallengeResponse, error) {
	const t = TypeChallengeResponse
	if err := checkSize(b, t, handshakePacketSize); err != nil {
		return ChallengeResponse{}, err
	}
	v, p, name, n, err := parseIdentity(b[1:], t)
	if err != nil {
		return ChallengeResponse{}, err
	}
	n++ // the type byte
	// The name is at most MaxNameLen bytes, so the challenge, the key and
	// the role always fit in the fixed size; the check keeps that promise
	// visible.
	if len(b) < n+challengeBodySize+PublicKeySize+1 {
		return ChallengeResponse{}, fmt.Errorf("wire: %v: challenge, public key and role: %w", t, ErrShort)
	}
	c := parseChallengeBody(b[n:])
	n += challengeBodySize
	var key PublicKey
	n += copy(key[:], b[n:])
	if err := checkPublicKey(&key, t); err != nil {
		return ChallengeResponse{}, err
	}
	role := Role(b[n])
	if err := checkRole(role, t); err != nil {
		return ChallengeResponse{}, err
	}
	n++
	if err := checkPadding(b[n:], n, t); err != nil {
		return ChallengeResponse{}, err
	}
	return ChallengeResponse{Version: v, Player: p, Name: name, Challenge: c, PublicKey: key, Role: role}, nil
}

// AppendAccepted appends an Accepted. A public key of zeros is ErrRange; b is
// returned unchanged then.
//
//	0   1   type 5
//	1   32  the server's public key
func AppendAccepted(b []byte, m *Accepted) ([]byte, error) {
	if err := checkPublicKey(&m.PublicKey, TypeAccepted); err != nil {
		return b, err
	}
	b = append(b, byte(TypeAccepted))
	return append(b, m.PublicKey[:]...), nil
}

// ParseAccepted reads an Accepted from b, the whole packet from its type byte
// on. A packet of another type is ErrBadType; a wrong length is ErrShort or
// ErrTrailing; a public key of zeros is ErrRange.
func ParseAccepted(b []byte) (Accepted, error) {
	if err := checkSize(b, TypeAccepted, acceptedSize); err != nil {
		return Accepted{}, err
	}
	var m Accepted
	copy(m.PublicKey[:], b[1:])
	if err := checkPublicKey(&m.PublicKey, TypeAccepted); err != nil {
		return Accepted{}, err
	}
	return m, nil
}

func checkDenyReason(r DenyReason) error {
	if r == 0 || r > maxDenyReason {
		return fmt.Errorf("wire: %v: reason %v: %w", TypeDenied, r, ErrRange)
	}
	return nil
}

// AppendDenied appends a Denied. An unknown reason is ErrRange; b is returned
// unchanged then.
//
//	0   1   type 6
//	1   1   reason (1..4)
func AppendDenied(b []byte, m *Denied) ([]byte, error) {
	if err := checkDenyReason(m.Reason); err != nil {
		return b, err
	}
	return append(b, byte(TypeDenied), byte(m.Reason)), nil
}

// ParseDenied reads a Denied from b, the whole packet from its type byte on.
// A packet of another type is ErrBadType; a wrong length is ErrShort or
// ErrTrailing; an unknown reason is ErrRange.
func ParseDenied(b []byte) (Denied, error) {
	if err := checkSize(b, TypeDenied, deniedSize); err != nil {
		return Denied{}, err
	}
	r := DenyReason(b[1])
	if err := checkDenyReason(r); err != nil {
		return Denied{}, err
	}
	return Denied{Reason: r}, nil
}

func checkDisconnectReason(r DisconnectReason) error {
	if r == 0 || r > maxDisconnectReason {
		return fmt.Errorf("wire: %v: reason %v: %w", TypeDisconnect, r, ErrRange)
	}
	return nil
}

// AppendDisconnect appends a Disconnect. An unknown reason is ErrRange, a
// text longer than MaxReasonText ErrTooLong, a text that is not UTF-8 or
// holds control characters ErrBadName; b is returned unchanged then.
//
//	0   1   type 7
//	1   1   reason (1..6)
//	2   1   text length L (0..100)
//	3   L   text
func AppendDisconnect(b []byte, m *Disconnect) ([]byte, error) {
	if err := checkDisconnectReason(m.Reason); err != nil {
		return b, err
	}
	if err := checkReasonText(m.Text); err != nil {
		return b, err
	}
	b = append(b, byte(TypeDisconnect), byte(m.Reason))
	return appendString(b, m.Text), nil
}

// ParseDisconnect reads a Disconnect from b, the whole packet from its type
// byte on. A packet of another type is ErrBadType; a packet that ends early
// is ErrShort, one with bytes after the text ErrTrailing; the reason and the
// text fail as in AppendDisconnect.
func ParseDisconnect(b []byte) (Disconnect, error) {
	if err := checkType(b, TypeDisconnect); err != nil {
		return Disconnect{}, err
	}
	if len(b) < 2 {
		return Disconnect{}, fmt.Errorf("wire: %v: no reason: %w", TypeDisconnect, ErrShort)
	}
	r := DisconnectReason(b[1])
	if err := checkDisconnectReason(r); err != nil {
		return Disconnect{}, err
	}
	text, n, err := parseString(b[2:], "disconnect text", MaxReasonText)
	if err != nil {
		return Disconnect{}, err
	}
	if rest := len(b) - 2 - n; rest > 0 {
		return Disconnect{}, fmt.Errorf("wire: %v: %d bytes after the text: %w", TypeDisconnect, rest, ErrTrailing)
	}
	if err := checkReasonText(text); err != nil {
		return Disconnect{}, err
	}
	return Disconnect{Reason: r, Text: text}, nil
}

// AppendPing appends a Ping. Every value is valid.
//
//	0   1   type 8
//	1   4   id
//	5   8   t0
func AppendPing(b []byte, m *Ping) []byte {
	b = append(b, byte(TypePing))
	b = binary.BigEndian.AppendUint32(b, m.ID)
	return binary.BigEndian.AppendUint64(b, uint64(m.T0))
}

// ParsePing reads a Ping from b, the whole packet from its type byte on. A
// packet of another type is ErrBadType; a wrong length is ErrShort or
// ErrTrailing.
func ParsePing(b []byte) (Ping, error) {
	if err := checkSize(b, TypePing, pingSize); err != nil {
		return Ping{}, err
	}
	return Ping{
		ID: binary.BigEndian.Uint32(b[1:]),
		T0: int64(binary.BigEndian.Uint64(b[5:])),
	}, nil
}

// AppendPong appends a Pong. Every value is valid.
//
//	0   1   type 9
//	1   4   id
//	5   8   t0
//	13  8   t1
//	21  8   t2
func AppendPong(b []byte, m *Pong) []byte {
	b = append(b, byte(TypePong))
	b = binary.BigEndian.AppendUint32(b, m.ID)
	b = binary.BigEndian.AppendUint64(b, uint64(m.T0))
	b = binary.BigEndian.AppendUint64(b, uint64(m.T1))
	return binary.BigEndian.AppendUint64(b, uint64(m.T2))
}

// ParsePong reads a Pong from b, the whole packet from its type byte on. A
// packet of another type is ErrBadType; a wrong length is ErrShort or
// ErrTrailing.
func ParsePong(b []byte) (Pong, error) {
	if err := checkSize(b, TypePong, pongSize); err != nil {
		return Pong{}, err
	}
	return Pong{
		ID: binary.BigEndian.Uint32(b[1:]),
		T0: int64(binary.BigEndian.Uint64(b[5:])),
		T1: int64(binary.BigEndian.Uint64(b[13:])),
		T2: int64(binary.BigEndian.Uint64(b[21:])),
	}, nil
}
