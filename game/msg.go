package game

import (
	"fmt"
	"net/netip"
	"reflect"

	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// The game messages.
//
// Every game message is the payload of one net/message message. Its first
// byte is its MsgType; the fields follow in the order of the struct, with no
// padding and nothing after the last field. The field encodings:
//
//	u8      one byte
//	u16     two bytes, big-endian
//	u64     eight bytes, big-endian (hashes, the seed, a clock reading)
//	u30     a UInt30 (internal/int30): ids, frames, counts, lengths, durations (1, 2 or 4 bytes)
//	i30     a wire.Int30: cells (1, 2 or 4 bytes)
//	seat    u8, 0..7
//	string  u30 length, then that many bytes of UTF-8 without control characters
//	list    u30 count, then that many elements
//	unit    world.AppendUnit's encoding: u30s, u8s and i30s (PROTOCOL.md, section 5)
//	attack  world.AppendAttack's encoding, the same way
//
// The layout of each message is in PROTOCOL.md, next to this file, with the
// reasons for each message's guarantee and dependencies.
//
// Every message has exactly one encoding, as everywhere on the wire: the
// integers have their shortest form, reserved bits are zero, lists of seats
// are strictly ascending, and a message ends exactly where its last field
// does. So ParseMsg followed by AppendMsg gives back the input byte for byte,
// which is what the fuzz target checks.
//
// Each message type is declared once, in three parts that the rest derives from: its struct
// (below); its fields method (msg_codec.go), the fields in order, each with its rule, one
// declaration that writes, reads and measures the message (msg_stream.go); and its entry in
// msgTypes, with how it travels, who sends it and what it depends on.
//
// Adding a message type takes:
//
//  1. its struct, its constant and its Type method (this file);
//  2. its fields method, with its layout in one line above it: each field with its rule, then
//     the rules that tie two fields together, if any (msg_codec.go);
//  3. its entry in msgTypes;
//  4. in PROTOCOL.md, its row of the table of messages, which `go test ./game -run
//     TestMsgDocTypeTable -update` writes from msgTypes, its layout and an example;
//  5. its name and layout in the Wireshark dissector (assets/wireshark/ackattack.lua);
//  6. its tests: an encoding with its bytes, its edge values, a file of the fuzz corpus.
//
// The tests fail until 4 to 6 are done for every type in msgTypes, and check on a game that
// each travels as its entry says (TestMsgDeliveryOnTheWire). When encoding and decoding were
// written by hand it took nine steps: 1 and 3 (without the delivery), a comment on the
// constant saying how it travels and what it depends on (which nothing checked), a check
// method for its rules, an encode and a decode method mirroring each other field by field,
// then 4 to 6 with the row of the table written by hand.

// MsgType is the first byte of every game message.
type MsgType uint8

// The message types: msgTypes says who sends each, how it travels and on what it depends, and
// PROTOCOL.md why.
const (
	MsgPlayerInfo    MsgType = 1
	MsgStartGame     MsgType = 2
	MsgCommand       MsgType = 3
	MsgSpawnEnemy    MsgType = 4
	MsgKillEnemy     MsgType = 5
	MsgChat          MsgType = 6
	MsgLeadTime      MsgType = 7
	MsgPingSummary   MsgType = 8
	MsgHashReport    MsgType = 9
	MsgHashRequest   MsgType = 10
	MsgUnitHashes    MsgType = 11
	MsgUnitUpdate    MsgType = 12
	MsgPause         MsgType = 13
	MsgWorldHashes   MsgType = 14
	MsgResyncBatch   MsgType = 15
	MsgBatchApplied  MsgType = 16
	MsgResume        MsgType = 17
	MsgFrameSync     MsgType = 18
	MsgPeers         MsgType = 19
	MsgPlayerSecret  MsgType = 20
	MsgChallenge     MsgType = 21
	MsgProof         MsgType = 22
	MsgReinforce     MsgType = 23
	MsgNewRound      MsgType = 24
	MsgClassLink     MsgType = 25
	MsgSpectate      MsgType = 26
	MsgSpectatorChat MsgType = 27
	MsgLinkLost      MsgType = 28
)

// Delivery is how the message stack (net/message) carries a message type.
type Delivery uint8

const (
	// Guaranteed messages are resent until acknowledged, wait for the messages they depend on,
	// and are cut into fragments when larger than a packet.
	Guaranteed Delivery = iota + 1
	// Unreliable messages are sent once, never resent and never fragmented: a newer one
	// replaces a lost one, and a resent one would be stale news.
	Unreliable
	// Sync messages are guaranteed and stop-and-wait: no guaranteed message queued after one
	// goes out until it is acknowledged.
	Sync
)

// String returns the delivery's name, as PROTOCOL.md's table of messages writes it.
func (d Delivery) String() string {
	switch d {
	case Guaranteed:
		return "guaranteed"
	case Unreliable:
		return "unreliable"
	case Sync:
		return "sync"
	}
	return fmt.Sprintf("Delivery(%d)", uint8(d))
}

// msgTypeInfo is what the package knows of one message type besides its fields.
type msgTypeInfo struct {
	name     string          // the name of its struct
	newMsg   func() msgCodec // an empty message of the type
	delivery Delivery
	// travels adds what else there is to know about how it travels, if anything: how often,
	// whether it may be fragmented.
	travels string
	// urgent: each send goes three times (message.Conn.SendUrgent): a repair every host applies at
	// the next frame, whose loss would leave the world drifted a round trip more; and the
	// drill-down that leads to it. urgentUpTo, if not 0, bounds the encoded size that goes so:
	// a larger one goes once per try, since its copies would cost more than the resend delay
	// they save.
	urgent     bool
	urgentUpTo int
	// timely: each resend goes twice (message.Conn.SendTimely) from the server (outbox.timely):
	// an event every host runs at its frame. One that needed a resend is late already, and
	// runs again on arrival; until then the hash reports of the frames after it wait at the
	// server for the same inputs, so a second loss of the same try would keep a drift hidden a
	// resend delay more.
	timely bool
	// direction says who sends it to whom, and dependsOn what it depends on (empty for an
	// unreliable message, which cannot depend on anything): PROTOCOL.md's columns.
	direction, dependsOn string
}

// msgTypes is the one home of every message type: indexed by its MsgType, the
// wire value. String, Delivery, ParseMsg's dispatch, the tests' loops over every
// type and the table of messages in PROTOCOL.md all come from this table.
// Entry 0 is empty: type byte 0 is never a message.
var msgTypes = [...]msgTypeInfo{
	MsgPlayerInfo: {name: "PlayerInfo", newMsg: newOf[PlayerInfo], delivery: Guaranteed,
		direction: "server → client",
		dependsOn: "nothing"},
	MsgStartGame: {name: "StartGame", newMsg: newOf[StartGame], delivery: Guaranteed,
		direction: "server → client",
		dependsOn: "every PlayerInfo sent on that connection"},
	MsgCommand: {name: "Command", newMsg: newOf[Command], delivery: Guaranteed, timely: true, travels: timelyTravels + " from the server (once from its player)",
		direction: "client → server, server → client (relay), client → client (direct)",
		dependsOn: "nothing"},
	MsgSpawnEnemy: {name: "SpawnEnemy", newMsg: newOf[SpawnEnemy], delivery: Guaranteed, timely: true, travels: timelyTravels,
		direction: "server → client",
		dependsOn: "nothing"},
	MsgKillEnemy: {name: "KillEnemy", newMsg: newOf[KillEnemy], delivery: Guaranteed, timely: true, travels: timelyTravels,
		direction: "server → client",
		dependsOn: "the SpawnEnemy of the same enemy"},
	MsgChat: {name: "Chat", newMsg: newOf[Chat], delivery: Guaranteed,
		direction: "client → server, server → client (relay)",
		dependsOn: "the sender's previous line (a chain per origin seat), and its writer's latest PlayerInfo on that connection"},
	MsgLeadTime: {name: "LeadTime", newMsg: newOf[LeadTime], delivery: Guaranteed,
		direction: "server → client",
		dependsOn: "the previous LeadTime (a chain)"},
	MsgPingSummary: {name: "PingSummary", newMsg: newOf[PingSummary], delivery: Unreliable, travels: "about every 4 s",
		direction: "client → server"},
	MsgHashReport: {name: "HashReport", newMsg: newOf[HashReport], delivery: Unreliable,
		direction: "client → server"},
	MsgHashRequest: {name: "HashRequest", newMsg: newOf[HashRequest], delivery: Guaranteed, urgent: true,
		travels: "each send three times, 10 ms apart", direction: "server → client",
		dependsOn: "nothing"},
	MsgUnitHashes: {name: "UnitHashes", newMsg: newOf[UnitHashes], delivery: Guaranteed, urgent: true, urgentUpTo: urgentAnswerBytes,
		travels: "each send of up to 512 bytes three times, 10 ms apart; may be fragmented", direction: "client → server",
		dependsOn: "nothing"},
	MsgUnitUpdate: {name: "UnitUpdate", newMsg: newOf[UnitUpdate], delivery: Guaranteed, urgent: true,
		travels: "each send three times, 10 ms apart", direction: "server → client",
		dependsOn: "nothing"},
	MsgPause: {name: "Pause", newMsg: newOf[Pause], delivery: Sync,
		direction: "server → client",
		dependsOn: "nothing (StartGame, for a client that joins during the pause)"},
	MsgWorldHashes: {name: "WorldHashes", newMsg: newOf[WorldHashes], delivery: Guaranteed, travels: "may be fragmented",
		direction: "client → server",
		dependsOn: "nothing"},
	MsgResyncBatch: {name: "ResyncBatch", newMsg: newOf[ResyncBatch], delivery: Guaranteed, travels: "may be fragmented",
		direction: "server → client",
		dependsOn: "the Pause (a re-sync); StartGame and the batch before (the world of a client that joins a running game); " +
			"the batch before (a spectator's copy of the world)"},
	MsgBatchApplied: {name: "BatchApplied", newMsg: newOf[BatchApplied], delivery: Guaranteed,
		direction: "client → server",
		dependsOn: "nothing"},
	MsgResume: {name: "Resume", newMsg: newOf[Resume], delivery: Guaranteed,
		direction: "server → client",
		dependsOn: "every ResyncBatch of this pause on that connection"},
	MsgFrameSync: {name: "FrameSync", newMsg: newOf[FrameSync], delivery: Unreliable,
		travels:   "every 10 frames (once a second at 100 ms a frame)",
		direction: "server → client"},
	MsgPeers: {name: "Peers", newMsg: newOf[Peers], delivery: Guaranteed,
		direction: "server → client (where the others are); client → server, empty (it takes direct links)",
		dependsOn: "the previous Peers on that connection (a chain)"},
	MsgPlayerSecret: {name: "PlayerSecret", newMsg: newOf[PlayerSecret], delivery: Guaranteed,
		direction: "server → client, to that player only",
		dependsOn: "nothing"},
	MsgChallenge: {name: "Challenge", newMsg: newOf[Challenge], delivery: Guaranteed,
		direction: "server → client (a claim on a seat), client → client (a new direct link, both ways)",
		dependsOn: "nothing"},
	MsgProof: {name: "Proof", newMsg: newOf[Proof], delivery: Guaranteed,
		direction: "client → server, client → client (the answer to a Challenge)",
		dependsOn: "nothing"},
	MsgReinforce: {name: "Reinforce", newMsg: newOf[Reinforce], delivery: Guaranteed, timely: true, travels: timelyTravels,
		direction: "server → client",
		dependsOn: "the latest PlayerInfo of each seat it names, on that connection"},
	MsgNewRound: {name: "NewRound", newMsg: newOf[NewRound], delivery: Guaranteed, timely: true, travels: timelyTravels,
		direction: "server → client",
		dependsOn: "the latest PlayerInfo of each seat it names, on that connection"},
	MsgClassLink: {name: "ClassLink", newMsg: newOf[ClassLink], delivery: Guaranteed,
		direction: "server → client",
		dependsOn: "the previous ClassLink on that connection (a chain)"},
	MsgSpectate: {name: "Spectate", newMsg: newOf[Spectate], delivery: Guaranteed,
		direction: "server → client, to a spectator",
		dependsOn: "the previous Spectate on that connection (a chain)"},
	MsgSpectatorChat: {name: "SpectatorChat", newMsg: newOf[SpectatorChat], delivery: Guaranteed,
		direction: "client → server (a spectator's line), server → client (relay)",
		dependsOn: "the spectator's previous line (a chain per origin spectator)"},
	MsgLinkLost: {name: "LinkLost", newMsg: newOf[LinkLost], delivery: Guaranteed,
		direction: "client → server (its direct link with a seat ended)",
		dependsOn: "nothing"},
}

// newOf returns an empty message of type T: the constructor of T's entry in msgTypes.
func newOf[T any, P interface {
	*T
	msgCodec
}]() msgCodec {
	return P(new(T))
}

// maxMsgType is the largest type in the table; 1..maxMsgType are all known.
const maxMsgType = MsgType(len(msgTypes) - 1)

// known reports whether t has an entry in msgTypes.
func (t MsgType) known() bool { return t != 0 && t <= maxMsgType }

// String returns the message type's name, as in the struct that carries it.
func (t MsgType) String() string {
	if t.known() {
		return msgTypes[t].name
	}
	return fmt.Sprintf("MsgType(%d)", uint8(t))
}

// Delivery returns how messages of type t travel, or 0 if t is unknown.
func (t MsgType) Delivery() Delivery {
	if t.known() {
		return msgTypes[t].delivery
	}
	return 0
}

// urgent reports whether each send of payload, a message encoded with its type, goes three
// times (msgTypeInfo.urgent).
func urgent(payload []byte) bool {
	if len(payload) == 0 || !MsgType(payload[0]).known() {
		return false
	}
	info := msgTypes[payload[0]]
	return info.urgent && (info.urgentUpTo == 0 || len(payload) <= info.urgentUpTo)
}

// urgentAnswerBytes is the largest drill-down answer (UnitHashes) that goes three times: about
// 40 units' hashes, one drifted unit's range in a world of 400. The answer to a drifted unit in
// 2,000 is 2 KB, whose copies would take a modem's upload for more than two seconds.
const urgentAnswerBytes = 512

// timely reports whether each resend of a message of type t goes twice (msgTypeInfo.timely).
func (t MsgType) timely() bool { return t.known() && msgTypes[t].timely }

// timelyTravels is how a timely message travels, in PROTOCOL.md's table.
const timelyTravels = "each resend twice, 10 ms apart"

// newMsgOf returns an empty message of type t, or nil if t is unknown.
func newMsgOf(t MsgType) msgCodec {
	if !t.known() {
		return nil
	}
	return msgTypes[t].newMsg()
}

// Limits of the variable-size fields. Player names follow wire.CheckName
// (1..wire.MaxNameLen bytes); a server seats only the names CheckPlayerName
// accepts (names.go).
const (
	// MaxMapNameLen is the longest map name in a StartGame, in bytes.
	MaxMapNameLen = 64
	// MaxChatLen is the longest chat line, in bytes (not characters).
	MaxChatLen = 200
	// MaxHashRanges is the most id ranges one HashRequest may ask about.
	MaxHashRanges = 4096
	// MaxLossPermille is the largest loss a PingSummary can report: all of it.
	MaxLossPermille = 1000
	// MaxSpectators is the most spectators from anywhere a server admits beside the seats
	// (spectate.go says why 256); HostPlaces more are kept for connections from the server's
	// own host, the teacher's projector (places.go). MaxSpectatorNumber, their sum, is the
	// largest spectator number of a Spectate or a SpectatorChat.
	MaxSpectators      = 256
	HostPlaces         = 2
	MaxSpectatorNumber = MaxSpectators + HostPlaces
)

// Msg is a game message. The message types are the pointer types (*Command,
// *Chat, …); ParseMsg returns them and AppendMsg takes them.
type Msg interface {
	Type() MsgType
}

// PlayerInfo tells a client who sits in a seat. The server sends one per
// seat when a client joins and again whenever a player joins, leaves or
// comes back.
type PlayerInfo struct {
	Seat      uint8         // 0..7
	Player    wire.PlayerID // the id the player's client chose
	Name      string        // as wire.CheckName allows: 1..32 bytes of UTF-8 without control characters
	Bot       bool          // the seat is played by the computer
	Connected bool          // the player's client is connected right now
}

// StartGame starts the game on a client.
type StartGame struct {
	Map         string  // the map's name, 1..MaxMapNameLen bytes of UTF-8 without control characters
	Seed        uint64  // seeds the world's random generator
	Frame       uint32  // the frame the game starts at
	FrameMillis uint32  // the length of one frame in milliseconds
	LeadFrames  uint32  // the command lead time the game starts with, in frames
	Seats       []uint8 // the seats that play, strictly ascending, each 0..7
	// LeadFixed: the teacher fixed that lead time (the server's --lead, or its key); false:
	// the server sets it from its players' links (lead.go).
	LeadFixed bool
}

// Command is a player's order, to be applied at Frame on every host. The
// order of commands within a frame is (Frame, Seat, ID) on every host, so
// hosts agree on it whatever order the commands arrived in.
type Command struct {
	Seat   uint8  // 0..7, the player giving the order
	ID     uint32 // counts the seat's commands; with Seat it names the command, so duplicates are dropped
	Frame  uint32 // the frame to execute at
	Kind   world.CommandKind
	Units  []uint32 // 1..world.MaxCommandUnits unit ids
	X, Y   int32    // CommandMove: the destination cell
	Target uint32   // CommandAttack: the enemy to attack
	// Direct is the seats (bit s for seat s) its player sent it to over a proved direct link
	// as well (p2p.go). The server does not relay it to them: the link is guaranteed, and the
	// relay would be a second copy that the direct links exist to save. It never has
	// the player's own bit; the server's relay to the others carries it unchanged.
	Direct uint8
}

// SpawnEnemy places an enemy at the start of Frame.
type SpawnEnemy struct {
	Frame, ID uint32
	Kind      uint8 // index into world.Kinds()
	X, Y      int32
}

// KillEnemy removes an enemy (usually a dead one) at the start of Frame.
type KillEnemy struct {
	Frame, ID uint32
}

// Chat is one line of chat. On the server's relay it keeps the seat of the
// player who wrote it.
type Chat struct {
	Seat uint8  // 0..7, who wrote it
	Line uint32 // counts the seat's lines
	Text string // 0..MaxChatLen bytes of UTF-8 without control characters
}

// LeadTime changes the command lead time from Frame on.
type LeadTime struct {
	Frame      uint32 // effective from this frame
	LeadFrames uint32
	// Fixed: the teacher fixed this lead time (the server's --lead, or its key), and the
	// server's policy leaves it alone; false: the policy set it from the players' links.
	Fixed bool
}

// PingSummary is a client's view of its connection to the server over the
// last second or so. The server sets the lead time from what it measures of each
// connection itself; a summary may lower those figures, never raise them (lead.go).
type PingSummary struct {
	AvgRTTMicros, MinRTTMicros, MaxRTTMicros uint32
	LossPermille                             uint32 // 0..MaxLossPermille
}

// HashReport carries a client's hashes of one frame: the root of its unit hashes (the XOR of
// every unit's hash), and the hash of the rest of its world's state (world.World.StateHash: the id counters, the random generator,
// the attacks in flight), so that the server checks everything the world hash covers; and the
// digest of the inputs (the events) the client had run up to that frame, so that the server
// compares a recent frame, which a late event may still change, only when it ran the same
// inputs (drift_server.go); and a locator, which names the unit that differs when one alone
// does.
type HashReport struct {
	Frame uint32
	// Root is the XOR of the hashes of every unit at Frame (0 for none): the hash of the
	// id range 1 to world.MaxUnitID, the root of the tree the drill-down walks down
	// (drillRequest). A report carries it alone, with no id range: 6 bytes fewer, five times
	// a second.
	Root   uint64
	State  uint64 // the world's state hash at Frame
	Inputs uint32 // the inputs' digest at Frame (schedule.inputDigests)
	// Locator names the one unit that differs, when only one does, without a drill-down: for
	// each of the low bits of the unit hashes, the XOR of the ids of the units whose hash has
	// that bit set (drift_history.go).
	Locator [locatorBits]uint32
}

// IDRange is the unit ids Start..End, both included.
type IDRange struct {
	Start, End uint32
}

// HashRequest asks a client for the hash of every unit in some id ranges at
// Frame: the drill-down into groups whose hashes did not match.
//
// With Hashes, one per range (the server's XOR of its units' hashes in that
// range at Frame), the request is a level of the hash tree as well: the client
// compares its own XOR of each range with the server's and answers only the
// units of the ranges that differ, listing the others in UnitHashes.Skipped.
// Without, it asks for every unit in every range.
type HashRequest struct {
	Frame  uint32
	Ranges []IDRange // at most MaxHashRanges, each with Start <= End
	Hashes []uint64  // none, or one per range
}

// UnitHashes answers a HashRequest: the client's hash of every unit in the
// ranges it answers. Skipped lists the ranges of the request it leaves out,
// because their hashes matched the server's: no unit of theirs is in Hashes,
// and none is missing. Empty, the answer covers every range of the request.
type UnitHashes struct {
	Frame   uint32
	Hashes  []world.UnitHash
	Skipped []IDRange // at most MaxHashRanges, each with Start <= End
}

// UnitUpdate is the real-time re-sync: the server's state of some units, and of the rest of
// the world's state when that differed.
//
// Seat, Checked, Hashes and StateHash say why: they change nothing in any world, but without
// them a client could not show what differed. It knows its own hash of a repaired unit (and of
// its state), never the server's, and what the update carries is the server's state as it
// decided the repair, not at Checked.
type UnitUpdate struct {
	Frame   uint32       // put in place at the start of this frame, after its squads
	Units   []world.Unit // put in place as they are
	Removed []uint32     // ids of units the server no longer has
	Seat    uint8        // 0..7, the player whose hash report found the drift
	Checked uint32       // the frame the mismatching hashes describe
	// Hashes has the server's hash at Checked of every unit that differed and that the server
	// had then, ids strictly ascending. A unit in Removed without a hash here is one the
	// server did not have at Checked either.
	Hashes []world.UnitHash
	// State, if not empty, is the server world's core state in World.AppendCoreState's
	// encoding (the id counters, the random generator, the attacks in flight), put in place
	// with ApplyCoreState after the units: the player's state hash differed from the
	// server's. StateHash is the server's state hash at Checked (0 without State).
	State     []byte
	StateHash uint64
}

// Pause stops the game at Frame for a stop-the-world re-sync.
type Pause struct {
	Frame uint32
}

// WorldHashes is a client's hash of every unit, and of the attacks in
// flight, at the paused frame.
type WorldHashes struct {
	Frame       uint32
	Hashes      []world.UnitHash
	AttacksHash uint64
}

// ResyncBatch is one batch of a stop-the-world re-sync.
type ResyncBatch struct {
	Frame      uint32       // the paused frame
	Batch      uint32       // numbers the batches of one pause
	Units      []world.Unit // units to put in place
	Removed    []uint32     // ids of units the server does not have
	HasAttacks bool         // the batch carries the complete list of attacks in flight (it may be empty)
	Attacks    []world.Attack
	// State, if not empty, is the server world's state at Frame in World.AppendState's
	// encoding: its counters, random generator, the ids of every unit and the attacks. The
	// last batch of a re-sync or a snapshot carries it; it requires HasAttacks.
	State []byte
}

// BatchApplied tells the server that a client applied a ResyncBatch.
type BatchApplied struct {
	Frame, Batch uint32
}

// Resume ends a pause.
type Resume struct {
	Frame       uint32 // the paused frame
	AfterMillis uint32 // resume this long after receipt
}

// FrameSync tells clients the frame the server is at and its clock, so they
// can catch up or wait.
type FrameSync struct {
	Frame           uint32
	ServerUnixNanos int64
}

// PeerAddr is where to reach a player's client directly, and the key of the
// link to it.
type PeerAddr struct {
	Seat uint8 // 0..7
	// Addr is the address the server sees the player's connection come from:
	// never one that a client announced (identity.go).
	Addr netip.AddrPort
	// Key is the key that the receiver of the Peers and this player share,
	// and nobody else: each proves it to the other before the link counts.
	Key LinkKey
}

// Peers lists the other players' addresses, for commands sent straight from
// client to client. The server sends each client its own list; a client
// sends the server an empty one, which says that it takes direct links (at
// the address the server sees it at).
type Peers struct {
	List []PeerAddr // at most world.MaxPlayers, seats strictly ascending; addresses valid and without a zone
}

// PlayerSecret gives a player its secret: the server sends it once, on the
// player's first join, to that player's connection and nobody else's. A
// player who comes back to its seat proves it (Challenge, Proof) instead of
// showing its player id, which is public.
type PlayerSecret struct {
	Secret Secret
}

// Challenge asks the other end of a connection to prove who it is: the
// server asks a connection that claims a seated player's id; each side of a
// new direct link asks the other.
type Challenge struct {
	Nonce Nonce // random, never used twice
}

// Proof answers a Challenge on the same connection: an HMAC-SHA256 of the
// challenge's nonce under the player's secret (a seat) or the link's key (a
// direct link), as identity.go computes it.
type Proof struct {
	MAC MAC
}

// Reinforce gives each seat in Seats a fresh starting squad at its spawn point, at the start
// of Frame, on every host: the server's answer to an army that runs low (reinforce.go).
type Reinforce struct {
	Frame uint32
	Seats []uint8 // 1..8 seats, strictly ascending
}

// NewRound starts a new round at the start of Frame on every host (round.go): the world is
// emptied and seeded again with Seed, its frame counter going on, and each seat in Seats gets
// a starting squad, in seat order.
type NewRound struct {
	Frame uint32
	Round uint32  // counts the game's rounds: the first is 1, so a NewRound says 2 or more
	Seed  uint64  // seeds the new round's world, as StartGame's seeds the first
	Seats []uint8 // the seats that play, at most 8, strictly ascending (maybe none)
}

// ClassLink is the link setting the teacher gives the whole class (classlink.go): every client
// puts it on its own link conditioner, both ways. Every field is bounded by its slider's range.
type ClassLink struct {
	LossPermille  uint32 // datagrams lost independently, 0..10·MaxLinkLossPercent
	BurstPermille uint32 // the chance per datagram that a burst of losses starts, 0..10·MaxLinkBurstPercent
	BurstLength   uint32 // the mean datagrams in a burst, 1..MaxLinkBurstLength; 0 without bursts
	LatencyMillis uint32 // one way, 0..MaxLinkLatency
	JitterMillis  uint32 // 0..MaxLinkJitter
	DupPermille   uint32 // datagrams delivered twice, 0..10·MaxLinkDupPercent
}

// Why a client watches: the Why of a Spectate.
const (
	SpectateAsked     uint8 = 1 // the client asked to (cmd/client --spectate)
	SpectateSeatsFull uint8 = 2 // it asked for a seat, and every seat was taken
)

// Why the server refused a spectator's chat line: the RefusedWhy of a Spectate.
const (
	RefusedChatOff  uint8 = 1 // the teacher turned spectator chat off
	RefusedTooFast  uint8 = 2 // more lines than the chat's rate allows (chatBurst, chatEvery)
	maxRefusedCause       = RefusedTooFast
)

// Spectate tells a client that it watches the game as a spectator: it has no seat and no
// units, gives no orders, and sees everything that changes the world. The server sends one
// when the spectator joins, and a new one when anything in it changes.
type Spectate struct {
	Number  uint32 // 1..MaxSpectatorNumber: names this spectator, in its SpectatorChat lines
	Why     uint8  // SpectateAsked or SpectateSeatsFull
	ChatOff bool   // the teacher turned spectator chat off: lines are refused
	// Refused counts this spectator's chat lines the server refused, and RefusedWhy says why
	// it refused the latest (0 while none was refused).
	Refused    uint32
	RefusedWhy uint8
}

// SpectatorChat is a chat line of a spectator. A spectator sends its lines with Name empty;
// the server relays them with the spectator's name, so that nobody needs a list of the
// spectators to show who said what, and every screen marks them as a spectator's.
type SpectatorChat struct {
	Spectator uint32 // 1..MaxSpectatorNumber, who wrote it
	Name      string // empty from the spectator; its name on the relay (as wire.CheckName allows)
	Line      uint32 // counts the spectator's lines
	Text      string // as in Chat
}

// LinkLost tells the server that this client's direct link with a seat's player stopped
// delivering (Why). Commands sent over it with the receiver's bit in Direct may never have
// arrived, and the server did not relay them; it sends them again from what it still holds,
// and relays that direction's commands whatever their Direct for a while (p2p_server.go,
// linkLost). The receiver drops the copies it already has.
//
// A stalled link names the teller's commands that may be lost: From..To, the ids of the ones
// sent over it and not yet acknowledged when it stalled (the older ones arrived, and the teller
// sends no newer one over the link until those are acknowledged). The server then sends again
// and relays those only. Zero From says nothing of the kind: every command it still holds.
type LinkLost struct {
	Seat     uint8  // 0..7, the other end of the link
	Why      uint8  // LinkQuiet, LinkStalled or LinkEnded: which commands may be lost
	From, To uint32 // LinkStalled: the ids of the teller's commands that may be lost; From 0: any
}

// Why a direct link counts as lost (LinkLost.Why), and so whose commands the server sends again.
const (
	LinkQuiet   uint8 = 1 // nothing heard for linkQuiet: the other's commands to us may be lost
	LinkStalled uint8 = 2 // our oldest command unacknowledged for stallAfter: ours to the other may be
	LinkEnded   uint8 = 3 // the connection ended: either way
)

// Each struct's Type method is what makes it a Msg, and Go cannot derive a
// method from a table, so they are written out here. msgTypes stays the one
// list of types: TestMsgTypesTable checks that the constructor at each index
// builds a message whose Type is that index, so the two cannot disagree.

func (*PlayerInfo) Type() MsgType    { return MsgPlayerInfo }
func (*StartGame) Type() MsgType     { return MsgStartGame }
func (*Command) Type() MsgType       { return MsgCommand }
func (*SpawnEnemy) Type() MsgType    { return MsgSpawnEnemy }
func (*KillEnemy) Type() MsgType     { return MsgKillEnemy }
func (*Chat) Type() MsgType          { return MsgChat }
func (*LeadTime) Type() MsgType      { return MsgLeadTime }
func (*PingSummary) Type() MsgType   { return MsgPingSummary }
func (*HashReport) Type() MsgType    { return MsgHashReport }
func (*HashRequest) Type() MsgType   { return MsgHashRequest }
func (*UnitHashes) Type() MsgType    { return MsgUnitHashes }
func (*UnitUpdate) Type() MsgType    { return MsgUnitUpdate }
func (*Pause) Type() MsgType         { return MsgPause }
func (*WorldHashes) Type() MsgType   { return MsgWorldHashes }
func (*ResyncBatch) Type() MsgType   { return MsgResyncBatch }
func (*BatchApplied) Type() MsgType  { return MsgBatchApplied }
func (*Resume) Type() MsgType        { return MsgResume }
func (*FrameSync) Type() MsgType     { return MsgFrameSync }
func (*Peers) Type() MsgType         { return MsgPeers }
func (*PlayerSecret) Type() MsgType  { return MsgPlayerSecret }
func (*Challenge) Type() MsgType     { return MsgChallenge }
func (*Proof) Type() MsgType         { return MsgProof }
func (*Reinforce) Type() MsgType     { return MsgReinforce }
func (*NewRound) Type() MsgType      { return MsgNewRound }
func (*ClassLink) Type() MsgType     { return MsgClassLink }
func (*Spectate) Type() MsgType      { return MsgSpectate }
func (*SpectatorChat) Type() MsgType { return MsgSpectatorChat }
func (*LinkLost) Type() MsgType      { return MsgLinkLost }

// msgCodec is what every message type implements besides Type: the declaration of its fields
// (msg_codec.go), which serves writing, reading and measuring alike.
type msgCodec interface {
	Msg
	fields(s fieldStream) fieldStream
}

// codecOf returns m as a message of this package, or an error wrapping wire.ErrBadType if m is
// nil or not one.
func codecOf(fn string, m Msg) (msgCodec, error) {
	mm, ok := m.(msgCodec)
	if !ok {
		return nil, fmt.Errorf("game: %s: %T is not a game message: %w", fn, m, wire.ErrBadType)
	}
	if reflect.ValueOf(mm).IsNil() {
		return nil, fmt.Errorf("game: %s: nil %T: %w", fn, m, wire.ErrBadType)
	}
	return mm, nil
}

// AppendMsg appends m's encoding, type byte first, to b. It fails, and
// returns b unchanged, if m breaks a rule of its message (a seat above 7, a
// bad name or chat line, a number too large for its field, too many units,
// …); the error then wraps one of wire's sentinels (wire.ErrRange,
// wire.ErrTooLong, wire.ErrBadName, wire.ErrNonCanonical), or wire.ErrBadType
// if m is nil or not one of this package's message types.
func AppendMsg(b []byte, m Msg) ([]byte, error) {
	mm, err := codecOf("AppendMsg", m)
	if err != nil {
		return b, err
	}
	s := mm.fields(fieldStream{mode: writing, t: mm.Type(), b: append(b, byte(mm.Type()))})
	if err := s.verdict(); err != nil {
		return b, err
	}
	return s.b, nil
}

// MsgSize returns the length of m's encoding, type byte included: the length of what
// AppendMsg would append, which it fails exactly when AppendMsg does, with the same error.
func MsgSize(m Msg) (int, error) {
	mm, err := codecOf("MsgSize", m)
	if err != nil {
		return 0, err
	}
	s := mm.fields(fieldStream{mode: measuring, t: mm.Type(), n: 1})
	if err := s.verdict(); err != nil {
		return 0, err
	}
	return s.n, nil
}

// ParseMsg reads one whole message: b is exactly the payload of a net/message
// message. It returns a pointer to the message's type (*Command, *Chat, …),
// whose slices and strings do not alias b.
//
// Every error wraps one sentinel: wire.ErrShort (the input ends early, or a
// count promises more elements than there are bytes), wire.ErrTrailing
// (bytes after the last field), wire.ErrBadType (type byte 0 or unknown),
// wire.ErrRange, wire.ErrTooLong, wire.ErrBadName, wire.ErrNonCanonical (a
// field breaks the rules AppendMsg enforces, or is not in its one encoding),
// inside a unit or an attack too: world's codec shares wire's integers and
// sentinels. ParseMsg never panics, and it never allocates more than the
// input's length justifies: every count is checked against the bytes left
// before a slice is made.
func ParseMsg(b []byte) (Msg, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("game: ParseMsg: empty: %w", wire.ErrShort)
	}
	t := MsgType(b[0])
	m := newMsgOf(t)
	if m == nil {
		return nil, fmt.Errorf("game: ParseMsg: type %v: %w", t, wire.ErrBadType)
	}
	s := m.fields(fieldStream{mode: reading, t: t, b: b, n: 1})
	if rest := len(b) - s.n; s.err == nil && rest > 0 {
		s.fail("after the last field", fmt.Errorf("%d bytes: %w", rest, wire.ErrTrailing))
	}
	if err := s.verdict(); err != nil {
		return nil, err
	}
	return m, nil
}
