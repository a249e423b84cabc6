package game

import (
	"bytes"
	"fmt"
	"math"
	"net/netip"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/internal/codectest"
	"github.com/ackattack/ackattack/internal/int30"
	"github.com/ackattack/ackattack/internal/seedcorpus"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// msgUnhex decodes a hex string in which spaces group the fields for the reader.
var msgUnhex = codectest.Unhex

// msgSentinels are the errors a codec error may wrap: wire's, which world's
// codec of units and attacks shares.
var msgSentinels = []error{
	wire.ErrShort, wire.ErrRange, wire.ErrNonCanonical, wire.ErrBadType, wire.ErrChecksum,
	wire.ErrTooLong, wire.ErrTrailing, wire.ErrBadName,
}

// checkMsgSentinel fails unless err wraps exactly one sentinel and names the package.
func checkMsgSentinel(tb testing.TB, err error) {
	tb.Helper()
	codectest.CheckSentinel(tb, err, "game: ", msgSentinels...)
}

// checkMsgErr fails unless err is want (nil meaning no error) and wraps exactly one sentinel.
func checkMsgErr(tb testing.TB, err, want error) {
	tb.Helper()
	codectest.CheckErr(tb, err, want, "game: ", msgSentinels...)
}

var (
	msgTestPlayer    = wire.PlayerID{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	msgTestPlayerHex = "00112233445566778899aabbccddeeff"
)

// msgEncodingTests are messages with their encodings worked out by hand
// from the layouts in PROTOCOL.md. The comments split the bytes by field.
var msgEncodingTests = []struct {
	name string
	m    Msg
	hex  string
}{
	{"player info", &PlayerInfo{Seat: 1, Player: msgTestPlayer, Name: "Ada", Connected: true},
		// type | seat | player | name "Ada" | flags: connected
		"01 01 " + msgTestPlayerHex + " 03 416461 02"},
	{"player info, bot", &PlayerInfo{Seat: 7, Name: "Zoë", Bot: true},
		"01 07 00000000000000000000000000000000 04 5a6fc3ab 01"},
	{"start game", &StartGame{Map: "skirmish", Seed: 0x0123456789abcdef, FrameMillis: 100, LeadFrames: 3, Seats: []uint8{0, 2, 5}},
		// type | map | seed | frame 0 | 100 ms | lead 3 | seats 0, 2, 5
		"02 08 736b69726d697368 0123456789abcdef 00 64 03 03 000205"},
	{"start game, the lead fixed by the teacher", &StartGame{Map: "skirmish", Seed: 0x0123456789abcdef, FrameMillis: 100, LeadFrames: 3, Seats: []uint8{0, 2, 5}, LeadFixed: true},
		// type | map | seed | frame 0 | 100 ms | lead 3 | seats 0, 2, 5 | flags: lead fixed
		"02 08 736b69726d697368 0123456789abcdef 00 64 03 03 000205 01"},
	{"command, move", &Command{Seat: 2, ID: 5, Frame: 200, Kind: world.CommandMove, Units: []uint32{3, 4}, X: 40, Y: 12},
		// type | seat | id | frame 200 | move | units 3, 4 | x 40 | y 12 | target 0 | direct none
		"03 02 05 80c8 01 02 0304 28 0c 00 00"},
	{"command, sent directly to seats 0, 1 and 7", &Command{Seat: 2, ID: 5, Frame: 200, Kind: world.CommandStop, Units: []uint32{3}, Direct: 0x83},
		// type | seat | id | frame 200 | stop | unit 3 | x 0 | y 0 | target 0 | direct 0b10000011
		"03 02 05 80c8 03 01 03 00 00 00 83"},
	{"command, attack, wide values", &Command{Seat: 7, ID: 16384, Frame: int30.MaxUInt30, Kind: world.CommandAttack, Units: []uint32{10000}, Target: 10001},
		// type | seat | id 16384 | frame max | attack | unit 10000 | x 0 | y 0 | target 10001
		"03 07 c0004000 ffffffff 02 01 a710 00 00 a711 00"},
	{"command, move, wide cell", &Command{Seat: 1, ID: 1, Frame: 1, Kind: world.CommandMove, Units: []uint32{1}, X: -64, Y: 8191},
		// type | seat | id | frame | move | unit 1 | x −64 | y 8191 | target 0
		"03 01 01 01 01 01 01 a040 9fff 00 00"},
	{"command, stop", &Command{Kind: world.CommandStop, Units: []uint32{1}},
		"03 00 00 00 03 01 01 00 00 00 00"},
	{"spawn enemy", &SpawnEnemy{Frame: 300, ID: 10000, Kind: 2, X: 5, Y: -3},
		// type | frame 300 | id 10000 | kind | x 5 | y −3
		"04 812c a710 02 05 43"},
	{"kill enemy", &KillEnemy{Frame: 300, ID: 10000}, "05 812c a710"},
	{"chat", &Chat{Seat: 3, Line: 1, Text: "gg"}, "06 03 01 02 6767"},
	{"chat, empty line", &Chat{Line: 128}, "06 00 8080 00"},
	{"lead time", &LeadTime{Frame: 250, LeadFrames: 4}, "07 80fa 04"},
	{"lead time fixed by the teacher", &LeadTime{Frame: 250, LeadFrames: 3, Fixed: true},
		// type | frame 250 | 3 frames | flags: fixed
		"07 80fa 03 01"},
	{"ping summary", &PingSummary{AvgRTTMicros: 45000, MinRTTMicros: 30000, MaxRTTMicros: 120000, LossPermille: 25},
		"08 c000afc8 c0007530 c001d4c0 19"},
	{"hash report, no units", &HashReport{Frame: 120, State: 0xfedcba9876543210, Inputs: 0x0badf00d},
		// type | frame | root: no unit | state hash | inputs | locator
		"09 78 0000000000000000 fedcba9876543210 0badf00d 00 00 00 00 00 00"},
	{"hash report", &HashReport{Frame: 120, Root: 0x1122334455667788,
		State: 0xfedcba9876543210, Inputs: 0x01020304, Locator: [locatorBits]uint32{6699, 5, 0, 1000, 0, 16383}},
		// type | frame | root: every unit's hash XORed | state hash | inputs' digest | locator:
		// the ids XORed for hash bits 0 to 5. What a client sends.
		"09 78 1122334455667788 fedcba9876543210 01020304 9a2b 05 00 83e8 00 bfff"},
	{"hash report, frame 20, state 1", &HashReport{Frame: 20, State: 1}, "09 14 0000000000000000 0000000000000001 00000000 00 00 00 00 00 00"},
	{"hash request", &HashRequest{Frame: 120, Ranges: []IDRange{{Start: 1, End: 5}}}, "0a 78 01 01 05"},
	{"hash request with the server's hashes", &HashRequest{Frame: 120, Ranges: []IDRange{{Start: 1, End: 200}, {Start: 201, End: world.MaxUnitID}},
		Hashes: []uint64{0x1122334455667788, 0}},
		// type | frame | 2 ranges: 1..200, 201..max | 2 hashes
		"0a 78 02 01 80c8 80c9 ffffffff 02 1122334455667788 0000000000000000"},
	{"unit hashes", &UnitHashes{Frame: 120, Hashes: []world.UnitHash{{ID: 3, Hash: 0xdeadbeef00000001}}},
		"0b 78 01 03 deadbeef00000001"},
	{"unit hashes, two ranges skipped", &UnitHashes{Frame: 120, Hashes: []world.UnitHash{{ID: 3, Hash: 0xdeadbeef00000001}},
		Skipped: []IDRange{{Start: 4, End: 200}, {Start: 201, End: world.MaxUnitID}}},
		// type | frame | 1 hash: unit 3 | 2 ranges skipped: 4..200, 201..max
		"0b 78 01 03 deadbeef00000001 02 04 80c8 80c9 ffffffff"},
	{"unit hashes, every range skipped", &UnitHashes{Frame: 120, Skipped: []IDRange{{Start: 1, End: world.MaxUnitID}}},
		"0b 78 00 01 01 ffffffff"},
	{"unit update", &UnitUpdate{Frame: 121,
		Units:   []world.Unit{{ID: 3, Kind: 1, X: 10, Y: 20, HP: 50, Order: world.OrderMove, TargetX: 12, TargetY: 20, MoveProgress: 40}},
		Removed: []uint32{10002}, Seat: 1, Checked: 118, Hashes: []world.UnitHash{{ID: 3, Hash: 0x0123456789abcdef}}},
		// type | frame 121 | 1 unit: id 3, owner 0, kind 1, flags move+cell+progress,
		// x 10, y 20, hp 50, target 12,20, progress 40 | removed 10002 |
		// seat 1 | checked frame 118 | 1 hash: unit 3
		"0c 79 01 03 00 01 49 0a 14 32 0c 14 28 01 a712 01 76 01 03 0123456789abcdef"},
	{"unit update, empty", &UnitUpdate{Frame: 5}, "0c 05 00 00 00 00 00"},
	{"unit update, the world's state", &UnitUpdate{Frame: 121, Seat: 1, Checked: 118, State: msgTestCoreState, StateHash: 0x0123456789abcdef},
		// type | frame 121 | no units | none removed | seat 1 | checked frame 118 | no unit
		// hash | the core state, 36 bytes: next id 11, next attack id 2, the generator, one
		// attack | the server's state hash at frame 118
		"0c 79 00 00 01 76 00 24 " + msgTestCoreStateHex + " 0123456789abcdef"},
	{"unit update, hashes only", &UnitUpdate{Frame: 16384, Seat: 7, Checked: 16380,
		Hashes: []world.UnitHash{{ID: 1, Hash: 1}, {ID: 10000, Hash: math.MaxUint64}}},
		// type | frame 16384 | no units | none removed | seat 7 | checked 16380 | 2 hashes:
		// unit 1, unit 10000
		"0c c0004000 00 00 07 bffc 02 01 0000000000000001 a710 ffffffffffffffff"},
	{"pause", &Pause{Frame: 500}, "0d 81f4"},
	{"world hashes", &WorldHashes{Frame: 500, Hashes: []world.UnitHash{{ID: 1, Hash: 1}, {ID: 2, Hash: 2}}, AttacksHash: math.MaxUint64},
		"0e 81f4 02 01 0000000000000001 02 0000000000000002 ffffffffffffffff"},
	{"resync batch with attacks", &ResyncBatch{Frame: 500, HasAttacks: true,
		Attacks: []world.Attack{{ID: 7, Owner: 1, From: 4, Target: 10000, X: 1050, Y: -250, Damage: 6, Speed: 150}}},
		// type | frame | batch 0 | no units | none removed | flags: attacks | 1 attack:
		// id 7, owner 1, from 4, target 10000, x 1050, y −250, damage 6, speed 150
		"0f 81f4 00 00 00 01 01 07 01 04 a710 841a a0fa 06 8096"},
	{"resync batch, no attack list", &ResyncBatch{Frame: 500, Batch: 1, Removed: []uint32{5}}, "0f 81f4 01 00 01 05 00"},
	{"resync batch, empty attack list", &ResyncBatch{Frame: 500, Batch: 2, HasAttacks: true}, "0f 81f4 02 00 00 01 00"},
	{"batch applied", &BatchApplied{Frame: 500, Batch: 1}, "10 81f4 01"},
	{"resume", &Resume{Frame: 500, AfterMillis: 250}, "11 81f4 80fa"},
	{"frame sync", &FrameSync{Frame: 1000, ServerUnixNanos: 1_700_000_000_123_456_789}, "12 83e8 17979cfe3d85cd15"},
	{"frame sync, negative clock", &FrameSync{ServerUnixNanos: -1}, "12 00 ffffffffffffffff"},
	{"peers", &Peers{List: []PeerAddr{
		{Seat: 0, Addr: netip.MustParseAddrPort("192.0.2.1:4000"), Key: msgTestKey0},
		{Seat: 3, Addr: netip.MustParseAddrPort("[2001:db8::1]:4001"), Key: msgTestKey3}}},
		// type | 2 peers | seat 0, IPv4, 192.0.2.1, port 4000, key 11… |
		// seat 3, IPv6, 2001:db8::1, port 4001, key 00 01 … 1f
		"13 02 00 04 c0000201 0fa0 " + msgTestKey0Hex + " 03 06 20010db8000000000000000000000001 0fa1 " + msgTestKey3Hex},
	{"peers, none", &Peers{}, "13 00"},
	{"player secret", &PlayerSecret{Secret: Secret(msgTestKey3)}, "14 " + msgTestKey3Hex},
	{"challenge", &Challenge{Nonce: Nonce(msgTestKey3[16:])}, "15 101112131415161718191a1b1c1d1e1f"},
	{"proof", &Proof{MAC: MAC(msgTestKey0)}, "16 " + msgTestKey0Hex},
	{"reinforce", &Reinforce{Frame: 300, Seats: []uint8{1, 4}},
		// type | frame 300 | seats 1, 4
		"17 812c 02 0104"},
	{"new round", &NewRound{Frame: 1200, Round: 2, Seed: 0x0123456789abcdef, Seats: []uint8{0, 2, 5}},
		// type | frame 1200 | round 2 | seed | seats 0, 2, 5
		"18 84b0 02 0123456789abcdef 03 000205"},
	{"new round, nobody", &NewRound{Frame: 7, Round: 300}, "18 07 812c 0000000000000000 00"},
	{"class link", &ClassLink{LossPermille: 100, LatencyMillis: 75},
		// type | loss 100 ‰ | no bursts | latency 75 ms | no jitter | no duplication
		"19 64 00 00 4b 00 00"},
	{"class link, bad wi-fi", &ClassLink{LossPermille: 20, BurstPermille: 50, BurstLength: 4, LatencyMillis: 20, JitterMillis: 40, DupPermille: 10},
		// type | loss 20 ‰ | bursts start at 50 ‰, 4 long | latency 20 ms | jitter 40 ms | dup 10 ‰
		"19 14 32 04 14 28 0a"},
	{"class link, clean", &ClassLink{}, "19 00 00 00 00 00 00"},
	{"spectate, seats full, chat off", &Spectate{Number: 3, Why: SpectateSeatsFull, ChatOff: true},
		// type | spectator 3 | the seats are full | chat off | no line refused
		"1a 03 02 01 00 00"},
	{"spectate, asked, a line refused", &Spectate{Number: 32, Why: SpectateAsked, Refused: 5, RefusedWhy: RefusedTooFast},
		// type | spectator 32 | it asked | chat on | 5 lines refused, the latest too fast
		"1a 20 01 00 05 02"},
	{"spectate, the last place", &Spectate{Number: MaxSpectatorNumber, Why: SpectateAsked},
		// type | spectator 258 (a UInt30 of two bytes: 0x102) | it asked | chat on | no line refused
		"1a 8102 01 00 00 00"},
	{"spectator chat, from the spectator", &SpectatorChat{Spectator: 3, Line: 1, Text: "gg"},
		// type | spectator 3 | no name | line 1 | "gg"
		"1b 03 00 01 02 6767"},
	{"spectator chat, relayed", &SpectatorChat{Spectator: 3, Name: "eve", Line: 128, Text: "gg"},
		// type | spectator 3 | "eve" | line 128 | "gg"
		"1b 03 03 657665 8080 02 6767"},
	{"link lost", &LinkLost{Seat: 5, Why: LinkQuiet},
		// type | seat 5 | quiet | from 0 (any) | to 0
		"1c 05 01 00 00"},
	{"link lost, stalled", &LinkLost{Seat: 5, Why: LinkStalled, From: 200, To: 203},
		// type | seat 5 | stalled | from 200 | to 203
		"1c 05 02 80c8 80cb"},
}

// msgTestCoreState is a world's core state (world.World.AppendCoreState): next id 11, next
// attack id 2, the generator, and one attack in flight: id 1 of seat 2 from unit 9 at enemy
// 10000, at (5750, 350), damage 7, speed 150. It is PROTOCOL.md's example state without its
// frame and unit ids.
var (
	msgTestCoreStateHex = "0b 02 14 7063673a 402119bdbf870fd3 d5a610ff03b67bf7 01 01 02 09 a710 9676 815e 07 8096"
	msgTestCoreState    = codectest.MustUnhex(msgTestCoreStateHex)
)

// Keys of the examples: 32 bytes of 0x11, and the bytes 0x00 to 0x1f.
var (
	msgTestKey0    = LinkKey(bytes.Repeat([]byte{0x11}, 32))
	msgTestKey0Hex = "1111111111111111111111111111111111111111111111111111111111111111"
	msgTestKey3    = LinkKey([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"))
	msgTestKey3Hex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
)

func TestMsgEncodings(t *testing.T) {
	for _, tt := range msgEncodingTests {
		t.Run(tt.name, func(t *testing.T) {
			want := msgUnhex(t, tt.hex)
			got, err := AppendMsg([]byte{0xcc}, tt.m)
			checkMsgErr(t, err, nil)
			if !bytes.Equal(got, append([]byte{0xcc}, want...)) {
				t.Fatalf("append = % x\nwant     cc % x", got, want)
			}
			m, err := ParseMsg(want)
			checkMsgErr(t, err, nil)
			if !reflect.DeepEqual(m, tt.m) {
				t.Fatalf("parse = %+v\nwant    %+v", m, tt.m)
			}
			if m.Type() != MsgType(want[0]) {
				t.Errorf("Type() = %v, want %v", m.Type(), MsgType(want[0]))
			}
		})
	}
}

// TestMsgEveryType: the tables above cover every message type.
func TestMsgEveryType(t *testing.T) {
	seen := map[MsgType]bool{}
	for _, tt := range msgEncodingTests {
		seen[tt.m.Type()] = true
	}
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		if !seen[typ] {
			t.Errorf("no encoding test for %v", typ)
		}
	}
}

// TestMsgTypesTable: msgTypes is the one list of message types, and the Type
// methods Go needs for the Msg interface agree with it. Every entry from 1 up
// has a name and a constructor whose message's Type is the entry's index and
// whose struct has the entry's name, a delivery and a direction, and what it
// depends on unless it is unreliable (an unreliable message depends on nothing);
// entry 0 is empty; newMsgOf and Delivery know exactly the table's types.
func TestMsgTypesTable(t *testing.T) {
	if e := msgTypes[0]; e.name != "" || e.newMsg != nil {
		t.Errorf("entry 0 is %q: type byte 0 must stay unknown", e.name)
	}
	for i := 1; i < len(msgTypes); i++ {
		typ, e := MsgType(i), msgTypes[i]
		if e.name == "" || e.newMsg == nil {
			t.Errorf("entry %d is empty: a gap in the table", i)
			continue
		}
		m := e.newMsg()
		if m.Type() != typ {
			t.Errorf("entry %d (%s) builds a %T whose Type is %d", i, e.name, m, m.Type())
		}
		if got := reflect.TypeOf(m).Elem().Name(); got != e.name {
			t.Errorf("entry %d is named %s but builds a %s", i, e.name, got)
		}
		if m := newMsgOf(typ); m == nil || m.Type() != typ {
			t.Errorf("newMsgOf(%v) = %T", typ, m)
		}
		if d := typ.Delivery(); d != e.delivery || (d != Guaranteed && d != Unreliable && d != Sync) {
			t.Errorf("%v travels as %v (its entry says %v)", typ, d, e.delivery)
		}
		if e.direction == "" {
			t.Errorf("%v: who sends it to whom?", typ)
		}
		if (e.dependsOn == "") != (e.delivery == Unreliable) {
			t.Errorf("%v travels %v and depends on %q: a message that may be lost depends on nothing, any other says what", typ, e.delivery, e.dependsOn)
		}
	}
	if newMsgOf(0) != nil || newMsgOf(maxMsgType+1) != nil {
		t.Error("newMsgOf knows a type beyond the table")
	}
	if MsgType(0).Delivery() != 0 || (maxMsgType+1).Delivery() != 0 {
		t.Error("Delivery knows a type beyond the table")
	}
}

// msgEdgeValues are messages at the limits of their fields, for round trips.
func msgEdgeValues() []Msg {
	var ff wire.PlayerID
	for i := range ff {
		ff[i] = 0xff
	}
	maxUnits := make([]uint32, world.MaxCommandUnits)
	for i := range maxUnits {
		maxUnits[i] = int30.MaxUInt30 - uint32(i)
	}
	ranges := make([]IDRange, MaxHashRanges)
	for i := range ranges {
		ranges[i] = IDRange{Start: uint32(i), End: uint32(i)}
	}
	rangeHashes := make([]uint64, MaxHashRanges)
	for i := range rangeHashes {
		rangeHashes[i] = ^uint64(i) * 0x9e3779b97f4a7c15
	}
	hashes := make([]world.UnitHash, 3000)
	for i := range hashes {
		hashes[i] = world.UnitHash{ID: uint32(i) * 300_000, Hash: ^uint64(i)}
	}
	units := []world.Unit{
		{ID: 1, HP: 60},
		{ID: 300, Owner: 3, Kind: 1, X: 150, Y: 7, HP: 35, Order: world.OrderMove, TargetX: 199, Cooldown: 5, MoveProgress: 80},
		{ID: world.FirstEnemyID, Owner: world.EnemyOwner, Kind: 3, X: 5, Y: 6, Dead: true},
		{ID: 2, Owner: 7, Kind: 2, X: -1, Y: 2, HP: 1, Order: world.OrderAttack, TargetID: world.FirstEnemyID + 1},
		{ID: world.MaxUnitID, X: -int30.MaxInt30, Y: int30.MaxInt30, HP: -1, TargetY: -1, TargetID: world.MaxUnitID, Cooldown: -int30.MaxInt30, MoveProgress: int30.MaxInt30},
	}
	attacks := []world.Attack{
		{ID: 1, Target: 1},
		{ID: world.MaxAttackID, Owner: world.EnemyOwner, From: world.MaxUnitID, Target: world.MaxUnitID, X: -int30.MaxInt30, Y: int30.MaxInt30, Damage: -1, Speed: int30.MaxInt30},
	}
	var peers []PeerAddr
	for seat := range uint8(world.MaxPlayers) {
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, seat}), uint16(seat)*9000)
		switch seat {
		case 1:
			addr = netip.MustParseAddrPort("[::ffff:192.0.2.7]:65535")
		case 2:
			addr = netip.MustParseAddrPort("[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:1")
		case 3:
			addr = netip.MustParseAddrPort("0.0.0.0:0")
		case 4:
			addr = netip.MustParseAddrPort("[::]:0")
		}
		var key LinkKey
		for i := range key {
			key[i] = seat*32 + uint8(i)
		}
		peers = append(peers, PeerAddr{Seat: seat, Addr: addr, Key: key})
	}
	return []Msg{
		&PlayerInfo{Seat: 7, Player: ff, Name: strings.Repeat("玩家", 5) + "ab", Bot: true, Connected: true},
		&PlayerInfo{Name: strings.Repeat("n", wire.MaxNameLen)},
		&StartGame{Map: strings.Repeat("m", MaxMapNameLen), Seed: math.MaxUint64, Frame: int30.MaxUInt30, FrameMillis: int30.MaxUInt30, LeadFrames: int30.MaxUInt30, Seats: []uint8{0, 1, 2, 3, 4, 5, 6, 7}},
		&StartGame{Map: "é"},
		&StartGame{Map: "é", LeadFixed: true},
		&Command{Seat: 7, ID: int30.MaxUInt30, Frame: int30.MaxUInt30, Kind: world.CommandAttack, Units: maxUnits, Target: int30.MaxUInt30, Direct: 0x7f},
		&Command{Seat: 7, ID: int30.MaxUInt30, Frame: int30.MaxUInt30, Kind: world.CommandMove, Units: maxUnits, X: -int30.MaxInt30, Y: int30.MaxInt30},
		&Command{Kind: world.CommandMove, Units: []uint32{0, 0}, X: 8192, Y: -8192},
		&SpawnEnemy{Frame: int30.MaxUInt30, ID: int30.MaxUInt30, Kind: 255, X: int30.MaxInt30, Y: -int30.MaxInt30},
		&SpawnEnemy{},
		&KillEnemy{Frame: int30.MaxUInt30, ID: int30.MaxUInt30},
		&KillEnemy{},
		&Chat{Seat: 7, Line: int30.MaxUInt30, Text: strings.Repeat("ü", MaxChatLen/2)},
		&Chat{Text: "tab-free, but ☃ and emoji 🎯 are fine"},
		&LeadTime{Frame: int30.MaxUInt30, LeadFrames: int30.MaxUInt30},
		&LeadTime{Frame: int30.MaxUInt30, LeadFrames: int30.MaxUInt30, Fixed: true},
		&LeadTime{Fixed: true},
		&PingSummary{AvgRTTMicros: int30.MaxUInt30, MinRTTMicros: int30.MaxUInt30, MaxRTTMicros: int30.MaxUInt30, LossPermille: MaxLossPermille},
		&PingSummary{},
		&HashReport{Frame: int30.MaxUInt30, Root: math.MaxUint64, State: math.MaxUint64, Inputs: math.MaxUint32,
			Locator: [locatorBits]uint32{world.MaxUnitID, 1, 16383, 16384, 63, 64}},
		&HashReport{Root: 5},
		&HashReport{},
		&HashRequest{Frame: int30.MaxUInt30, Ranges: ranges},
		&HashRequest{Frame: int30.MaxUInt30, Ranges: ranges, Hashes: rangeHashes},
		&HashRequest{Ranges: []IDRange{{Start: 0, End: int30.MaxUInt30}}},
		&HashRequest{Ranges: []IDRange{{Start: 0, End: int30.MaxUInt30}}, Hashes: []uint64{math.MaxUint64}},
		&UnitHashes{Frame: int30.MaxUInt30, Hashes: hashes},
		&UnitHashes{Frame: int30.MaxUInt30, Hashes: hashes, Skipped: ranges},
		&UnitHashes{Skipped: []IDRange{{Start: 0, End: int30.MaxUInt30}}},
		&UnitHashes{},
		&UnitUpdate{Frame: int30.MaxUInt30, Units: units, Removed: []uint32{0, 1, int30.MaxUInt30}, Seat: 7, Checked: int30.MaxUInt30, Hashes: hashes},
		&UnitUpdate{Frame: int30.MaxUInt30, Units: units, Removed: []uint32{0, 1, int30.MaxUInt30}, Seat: 7, Checked: int30.MaxUInt30, Hashes: hashes,
			State: msgTestCoreState, StateHash: math.MaxUint64},
		&UnitUpdate{State: msgTestCoreState},
		&UnitUpdate{},
		&Pause{Frame: int30.MaxUInt30},
		&Pause{},
		&WorldHashes{Frame: int30.MaxUInt30, Hashes: hashes},
		&WorldHashes{},
		&ResyncBatch{Frame: int30.MaxUInt30, Batch: int30.MaxUInt30, Units: units, Removed: []uint32{int30.MaxUInt30}, HasAttacks: true, Attacks: attacks},
		&ResyncBatch{},
		&BatchApplied{Frame: int30.MaxUInt30, Batch: int30.MaxUInt30},
		&Resume{Frame: int30.MaxUInt30, AfterMillis: int30.MaxUInt30},
		&FrameSync{Frame: int30.MaxUInt30, ServerUnixNanos: math.MaxInt64},
		&FrameSync{ServerUnixNanos: math.MinInt64},
		&Peers{List: peers},
		&Peers{List: []PeerAddr{{Seat: 7, Addr: netip.MustParseAddrPort("[fe80::1]:8")}}},
		&PlayerSecret{Secret: Secret(bytes.Repeat([]byte{0xff}, SecretSize))},
		&PlayerSecret{},
		&Challenge{Nonce: Nonce(bytes.Repeat([]byte{0xff}, NonceSize))},
		&Challenge{},
		&Proof{MAC: MAC(bytes.Repeat([]byte{0xff}, MACSize))},
		&Proof{},
		&Reinforce{Frame: int30.MaxUInt30, Seats: []uint8{0, 1, 2, 3, 4, 5, 6, 7}},
		&Reinforce{Seats: []uint8{7}},
		&NewRound{Frame: int30.MaxUInt30, Round: int30.MaxUInt30, Seed: math.MaxUint64, Seats: []uint8{0, 1, 2, 3, 4, 5, 6, 7}},
		&NewRound{Round: 2},
		&ClassLink{LossPermille: 600, BurstPermille: 100, BurstLength: 10, LatencyMillis: 1000, JitterMillis: 200, DupPermille: 300},
		&ClassLink{},
		&Spectate{Number: MaxSpectatorNumber, Why: SpectateSeatsFull, ChatOff: true, Refused: int30.MaxUInt30, RefusedWhy: RefusedChatOff},
		&Spectate{Number: 1, Why: SpectateAsked},
		&SpectatorChat{Spectator: MaxSpectatorNumber, Name: strings.Repeat("n", wire.MaxNameLen), Line: int30.MaxUInt30, Text: strings.Repeat("ü", MaxChatLen/2)},
		&SpectatorChat{Spectator: 1},
		&LinkLost{Seat: 7, Why: LinkEnded},
		&LinkLost{Why: LinkQuiet},
		&LinkLost{Seat: 7, Why: LinkStalled, From: 1, To: int30.MaxUInt30},
		&LinkLost{Why: LinkStalled, From: int30.MaxUInt30, To: int30.MaxUInt30},
	}
}

// TestMsgRoundTrip: every message at its limits parses back to itself; every
// proper prefix of its encoding is short, and a byte more is trailing.
func TestMsgRoundTrip(t *testing.T) {
	t.Parallel()
	seen := map[MsgType]bool{}
	for _, m := range msgEdgeValues() {
		seen[m.Type()] = true
		b, err := AppendMsg(nil, m)
		checkMsgErr(t, err, nil)
		got, err := ParseMsg(b)
		checkMsgErr(t, err, nil)
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("%v: parsed as %+v, want %+v", m.Type(), got, m)
		}
		// Cutting a message anywhere leaves it short, inside a unit or an
		// attack too; except right before an optional last field, where
		// what is left is the message without it.
		head, tail := msgWithoutTail(m)
		var headLen int
		if tail {
			hb, err := AppendMsg(nil, head)
			checkMsgErr(t, err, nil)
			headLen = len(hb)
		}
		for i := range msgCuts(len(b)) {
			got, err := ParseMsg(b[:i])
			if tail && i == headLen {
				checkMsgErr(t, err, nil)
				if !reflect.DeepEqual(got, head) {
					t.Fatalf("%v cut before its optional end: parsed as %+v, want %+v", m.Type(), got, head)
				}
				continue
			}
			checkMsgErr(t, err, wire.ErrShort)
		}
		// A byte more is trailing; where an optional last field is left out,
		// that byte is a list's count or the flags, and 0 is not how to say
		// "none".
		want := wire.ErrTrailing
		if tail && headLen == len(b) {
			want = wire.ErrNonCanonical
		}
		_, err = ParseMsg(append(b, 0))
		checkMsgErr(t, err, want)
	}
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		if !seen[typ] {
			t.Errorf("no edge values for %v", typ)
		}
	}
}

// msgWithoutTail returns, for a message whose last field is optional (a list left out when
// empty, flags left out when all clear, a UnitUpdate's state left out when there is none),
// the message without that field, and true.
func msgWithoutTail(m Msg) (Msg, bool) {
	switch v := m.(type) {
	case *StartGame:
		c := *v
		c.LeadFixed = false
		return &c, true
	case *LeadTime:
		c := *v
		c.Fixed = false
		return &c, true
	case *HashRequest:
		c := *v
		c.Hashes = nil
		return &c, true
	case *UnitHashes:
		c := *v
		c.Skipped = nil
		return &c, true
	case *UnitUpdate:
		c := *v
		c.State, c.StateHash = nil, 0
		return &c, true
	}
	return nil, false
}

// msgCuts yields every length below n, or for a long message its first and
// last 256 and about 256 in between, which keeps the test quadratic only in
// a constant.
func msgCuts(n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		step := max(1, n/256)
		for i := 0; i < n; i++ {
			if (i < 256 || i >= n-256 || i%step == 0) && !yield(i) {
				return
			}
		}
	}
}

// TestMsgNoAliasing: a parsed message shares no memory with its input, so
// the input buffer can be reused at once.
func TestMsgNoAliasing(t *testing.T) {
	for _, m := range msgEdgeValues() {
		b, err := AppendMsg(nil, m)
		checkMsgErr(t, err, nil)
		want := bytes.Clone(b)
		got, err := ParseMsg(b)
		checkMsgErr(t, err, nil)
		for i := range b {
			b[i] = 0xa5
		}
		again, err := AppendMsg(nil, got)
		checkMsgErr(t, err, nil)
		if !bytes.Equal(again, want) {
			t.Fatalf("%v changed when its input was overwritten", m.Type())
		}
	}
}

func TestMsgAppendRejects(t *testing.T) {
	zone := netip.AddrPortFrom(netip.MustParseAddr("fe80::1%eth0"), 9)
	v4 := netip.MustParseAddrPort("192.0.2.1:1")
	for _, tt := range []struct {
		name string
		m    Msg
		want error
	}{
		{"nil", nil, wire.ErrBadType},
		{"nil pointer", (*Command)(nil), wire.ErrBadType},
		{"foreign type", msgForeign{}, wire.ErrBadType},
		{"player seat 8", &PlayerInfo{Seat: 8, Name: "a"}, wire.ErrRange},
		{"player name empty", &PlayerInfo{}, wire.ErrBadName},
		{"player name too long", &PlayerInfo{Name: strings.Repeat("n", wire.MaxNameLen+1)}, wire.ErrTooLong},
		{"player name with a line break", &PlayerInfo{Name: "a\nb"}, wire.ErrBadName},
		{"player name with an escape", &PlayerInfo{Name: "\x1b[31mred"}, wire.ErrBadName},
		{"player name not UTF-8", &PlayerInfo{Name: "\xff"}, wire.ErrBadName},
		{"map empty", &StartGame{}, wire.ErrBadName},
		{"map too long", &StartGame{Map: strings.Repeat("m", MaxMapNameLen+1)}, wire.ErrTooLong},
		{"map with a control character", &StartGame{Map: "a\u0085"}, wire.ErrBadName},
		{"map not UTF-8", &StartGame{Map: "\xc3"}, wire.ErrBadName},
		{"nine seats", &StartGame{Map: "m", Seats: []uint8{0, 1, 2, 3, 4, 5, 6, 7, 7}}, wire.ErrTooLong},
		{"seat 8", &StartGame{Map: "m", Seats: []uint8{8}}, wire.ErrRange},
		{"seats descending", &StartGame{Map: "m", Seats: []uint8{2, 1}}, wire.ErrNonCanonical},
		{"seat twice", &StartGame{Map: "m", Seats: []uint8{1, 1}}, wire.ErrNonCanonical},
		{"start frame too large", &StartGame{Map: "m", Frame: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"frame millis too large", &StartGame{Map: "m", FrameMillis: math.MaxUint32}, wire.ErrRange},
		{"command seat 8", &Command{Seat: 8, Kind: world.CommandStop, Units: []uint32{1}}, wire.ErrRange},
		{"command kind 0", &Command{Units: []uint32{1}}, wire.ErrRange},
		{"command kind 4", &Command{Kind: 4, Units: []uint32{1}}, wire.ErrRange},
		{"command without units", &Command{Kind: world.CommandStop}, wire.ErrRange},
		{"command with too many units", &Command{Kind: world.CommandStop, Units: make([]uint32, world.MaxCommandUnits+1)}, wire.ErrTooLong},
		{"command unit id too large", &Command{Kind: world.CommandStop, Units: []uint32{int30.MaxUInt30 + 1}}, wire.ErrRange},
		{"command id too large", &Command{ID: math.MaxUint32, Kind: world.CommandStop, Units: []uint32{1}}, wire.ErrRange},
		{"command frame too large", &Command{Frame: int30.MaxUInt30 + 1, Kind: world.CommandStop, Units: []uint32{1}}, wire.ErrRange},
		{"command x too large", &Command{Kind: world.CommandMove, Units: []uint32{1}, X: int30.MaxInt30 + 1}, wire.ErrRange},
		{"attack with a cell", &Command{Kind: world.CommandAttack, Units: []uint32{1}, X: 1, Target: 5}, wire.ErrNonCanonical},
		{"stop with a target", &Command{Kind: world.CommandStop, Units: []uint32{1}, Target: 5}, wire.ErrNonCanonical},
		{"command y most negative", &Command{Kind: world.CommandMove, Units: []uint32{1}, Y: math.MinInt32}, wire.ErrRange},
		{"command target too large", &Command{Kind: world.CommandAttack, Units: []uint32{1}, Target: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"command sent directly to its own seat", &Command{Seat: 3, Kind: world.CommandStop, Units: []uint32{1}, Direct: 0x08}, wire.ErrNonCanonical},
		{"link lost with seat 8", &LinkLost{Seat: 8, Why: LinkQuiet}, wire.ErrRange},
		{"link lost without a why", &LinkLost{Seat: 1}, wire.ErrRange},
		{"link lost why 4", &LinkLost{Seat: 1, Why: 4}, wire.ErrRange},
		{"link lost to before from", &LinkLost{Seat: 1, Why: LinkStalled, From: 5, To: 4}, wire.ErrRange},
		{"link lost to without from", &LinkLost{Seat: 1, Why: LinkStalled, To: 4}, wire.ErrRange},
		{"link lost to too large", &LinkLost{Seat: 1, Why: LinkStalled, From: 1, To: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"spawn x too small", &SpawnEnemy{X: -int30.MaxInt30 - 1}, wire.ErrRange},
		{"spawn id too large", &SpawnEnemy{ID: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"kill frame too large", &KillEnemy{Frame: math.MaxUint32}, wire.ErrRange},
		{"chat seat 8", &Chat{Seat: 8}, wire.ErrRange},
		{"chat too long", &Chat{Text: strings.Repeat("x", MaxChatLen+1)}, wire.ErrTooLong},
		{"chat with a line break", &Chat{Text: "one\ntwo"}, wire.ErrBadName},
		{"chat with a C1 control", &Chat{Text: "\u009b31m"}, wire.ErrBadName},
		{"chat not UTF-8", &Chat{Text: "caf\xe9"}, wire.ErrBadName},
		{"chat with a right-to-left override", &Chat{Text: "gg \u202eann si"}, wire.ErrBadName},
		{"chat with an isolate", &Chat{Text: "\u2067hi"}, wire.ErrBadName},
		{"lead frames too large", &LeadTime{LeadFrames: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"loss above 1000", &PingSummary{LossPermille: MaxLossPermille + 1}, wire.ErrRange},
		{"rtt too large", &PingSummary{MaxRTTMicros: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"locator beyond the unit ids", &HashReport{Locator: [locatorBits]uint32{0, 0, world.MaxUnitID + 1}}, wire.ErrRange},
		{"too many ranges", &HashRequest{Ranges: make([]IDRange, MaxHashRanges+1)}, wire.ErrTooLong},
		{"range backwards", &HashRequest{Ranges: []IDRange{{Start: 2, End: 1}}}, wire.ErrRange},
		{"fewer hashes than ranges", &HashRequest{Ranges: []IDRange{{Start: 1, End: 1}, {Start: 2, End: 2}}, Hashes: []uint64{1}}, wire.ErrRange},
		{"hashes without ranges", &HashRequest{Hashes: []uint64{1}}, wire.ErrRange},
		{"too many skipped ranges", &UnitHashes{Skipped: make([]IDRange, MaxHashRanges+1)}, wire.ErrTooLong},
		{"skipped range backwards", &UnitHashes{Skipped: []IDRange{{Start: 2, End: 1}}}, wire.ErrRange},
		{"skipped range end too large", &UnitHashes{Skipped: []IDRange{{Start: 1, End: int30.MaxUInt30 + 1}}}, wire.ErrRange},
		{"unit hash id too large", &UnitHashes{Hashes: []world.UnitHash{{ID: int30.MaxUInt30 + 1}}}, wire.ErrRange},
		{"unit id 0", &UnitUpdate{Units: []world.Unit{{ID: 0}}}, wire.ErrRange},
		{"unit owner 9", &UnitUpdate{Units: []world.Unit{{ID: 1, Owner: 9}}}, wire.ErrRange},
		{"unit order 3", &UnitUpdate{Units: []world.Unit{{ID: 1, Order: 3}}}, wire.ErrRange},
		{"unit order 5", &UnitUpdate{Units: []world.Unit{{ID: 1, Order: 5}}}, wire.ErrRange},
		{"unit x beyond an Int30", &UnitUpdate{Units: []world.Unit{{ID: 1, X: int30.MaxInt30 + 1}}}, wire.ErrRange},
		{"unit hp most negative", &UnitUpdate{Units: []world.Unit{{ID: 1, HP: math.MinInt32}}}, wire.ErrRange},
		{"second unit bad", &UnitUpdate{Units: []world.Unit{{ID: 1}, {ID: 2, Cooldown: -int30.MaxInt30 - 1}}}, wire.ErrRange},
		{"removed id too large", &UnitUpdate{Removed: []uint32{int30.MaxUInt30 + 1}}, wire.ErrRange},
		{"update seat 8", &UnitUpdate{Seat: 8}, wire.ErrRange},
		{"update checked too large", &UnitUpdate{Checked: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"update hashes descending", &UnitUpdate{Hashes: []world.UnitHash{{ID: 2}, {ID: 1}}}, wire.ErrNonCanonical},
		{"update hash twice", &UnitUpdate{Hashes: []world.UnitHash{{ID: 2}, {ID: 2}}}, wire.ErrNonCanonical},
		{"update hash id too large", &UnitUpdate{Hashes: []world.UnitHash{{ID: int30.MaxUInt30 + 1}}}, wire.ErrRange},
		{"update state hash without a state", &UnitUpdate{StateHash: 1}, wire.ErrNonCanonical},
		{"update state not a core state", &UnitUpdate{State: []byte{1}}, wire.ErrRange},
		{"update state with a byte more", &UnitUpdate{State: append(bytes.Clone(msgTestCoreState), 0)}, wire.ErrRange},
		{"pause frame too large", &Pause{Frame: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"world hash id too large", &WorldHashes{Hashes: []world.UnitHash{{ID: math.MaxUint32}}}, wire.ErrRange},
		{"attacks without HasAttacks", &ResyncBatch{Attacks: []world.Attack{{ID: 1, Target: 1}}}, wire.ErrRange},
		{"attack id 0", &ResyncBatch{HasAttacks: true, Attacks: []world.Attack{{ID: 0, Target: 1}}}, wire.ErrRange},
		{"attack id too large", &ResyncBatch{HasAttacks: true, Attacks: []world.Attack{{ID: world.MaxAttackID + 1, Target: 1}}}, wire.ErrRange},
		{"attack speed beyond an Int30", &ResyncBatch{HasAttacks: true, Attacks: []world.Attack{{ID: 1, Target: 1, Speed: math.MaxInt32}}}, wire.ErrRange},
		{"resync unit id too large", &ResyncBatch{Units: []world.Unit{{ID: world.MaxUnitID + 1}}}, wire.ErrRange},
		{"batch too large", &BatchApplied{Batch: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"resume delay too large", &Resume{AfterMillis: math.MaxUint32}, wire.ErrRange},
		{"frame sync frame too large", &FrameSync{Frame: int30.MaxUInt30 + 1}, wire.ErrRange},
		{"nine peers", &Peers{List: make([]PeerAddr, world.MaxPlayers+1)}, wire.ErrTooLong},
		{"peer seat 8", &Peers{List: []PeerAddr{{Seat: 8, Addr: v4}}}, wire.ErrRange},
		{"peers descending", &Peers{List: []PeerAddr{{Seat: 2, Addr: v4}, {Seat: 1, Addr: v4}}}, wire.ErrNonCanonical},
		{"peer seat twice", &Peers{List: []PeerAddr{{Seat: 2, Addr: v4}, {Seat: 2, Addr: v4}}}, wire.ErrNonCanonical},
		{"peer without an address", &Peers{List: []PeerAddr{{Seat: 0}}}, wire.ErrRange},
		{"peer address with a zone", &Peers{List: []PeerAddr{{Seat: 0, Addr: zone}}}, wire.ErrRange},
		{"reinforce without seats", &Reinforce{Frame: 5}, wire.ErrRange},
		{"reinforce seat 8", &Reinforce{Seats: []uint8{8}}, wire.ErrRange},
		{"reinforce nine seats", &Reinforce{Seats: make([]uint8, world.MaxPlayers+1)}, wire.ErrTooLong},
		{"reinforce seats descending", &Reinforce{Seats: []uint8{3, 2}}, wire.ErrNonCanonical},
		{"reinforce frame too large", &Reinforce{Frame: int30.MaxUInt30 + 1, Seats: []uint8{0}}, wire.ErrRange},
		{"new round 0", &NewRound{}, wire.ErrRange},
		{"new round 1", &NewRound{Round: 1}, wire.ErrRange},
		{"new round seat 8", &NewRound{Round: 2, Seats: []uint8{8}}, wire.ErrRange},
		{"new round seats descending", &NewRound{Round: 2, Seats: []uint8{1, 0}}, wire.ErrNonCanonical},
		{"new round frame too large", &NewRound{Frame: int30.MaxUInt30 + 1, Round: 2}, wire.ErrRange},
		{"class loss 61%", &ClassLink{LossPermille: 601}, wire.ErrRange},
		{"class bursts 11%", &ClassLink{BurstPermille: 101, BurstLength: 1}, wire.ErrRange},
		{"class bursts 11 long", &ClassLink{BurstPermille: 1, BurstLength: 11}, wire.ErrRange},
		{"class bursts of nothing", &ClassLink{BurstPermille: 1}, wire.ErrRange},
		{"class burst length without bursts", &ClassLink{BurstLength: 3}, wire.ErrNonCanonical},
		{"class latency 1001 ms", &ClassLink{LatencyMillis: 1001}, wire.ErrRange},
		{"class jitter 201 ms", &ClassLink{JitterMillis: 201}, wire.ErrRange},
		{"class duplication 31%", &ClassLink{DupPermille: 301}, wire.ErrRange},
		{"class latency beyond a UInt30", &ClassLink{LatencyMillis: math.MaxUint32}, wire.ErrRange},
		{"spectator 0", &Spectate{Why: SpectateAsked}, wire.ErrRange},
		{"spectator 259", &Spectate{Number: MaxSpectatorNumber + 1, Why: SpectateAsked}, wire.ErrRange},
		{"spectator chat from spectator 259", &SpectatorChat{Spectator: MaxSpectatorNumber + 1, Text: "hi"}, wire.ErrRange},
		{"spectate for no reason", &Spectate{Number: 1}, wire.ErrRange},
		{"spectate for an unknown reason", &Spectate{Number: 1, Why: 3}, wire.ErrRange},
		{"spectate, refused for no reason", &Spectate{Number: 1, Why: SpectateAsked, Refused: 1}, wire.ErrRange},
		{"spectate, a reason for no refusal", &Spectate{Number: 1, Why: SpectateAsked, RefusedWhy: RefusedChatOff}, wire.ErrNonCanonical},
		{"spectate, unknown refusal", &Spectate{Number: 1, Why: SpectateAsked, Refused: 1, RefusedWhy: 3}, wire.ErrRange},
		{"spectator chat from spectator 0", &SpectatorChat{Text: "hi"}, wire.ErrRange},
		{"spectator chat, name with a line break", &SpectatorChat{Spectator: 1, Name: "e\nve"}, wire.ErrBadName},
		{"spectator chat, name too long", &SpectatorChat{Spectator: 1, Name: strings.Repeat("n", wire.MaxNameLen+1)}, wire.ErrTooLong},
		{"spectator chat too long", &SpectatorChat{Spectator: 1, Text: strings.Repeat("x", MaxChatLen+1)}, wire.ErrTooLong},
		{"spectator chat with a right-to-left override", &SpectatorChat{Spectator: 1, Text: "gg \u202eann si"}, wire.ErrBadName},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// b is returned as it was. Like append, AppendMsg may have
			// written into the capacity beyond len(b) before it failed.
			b := make([]byte, 1, 64)
			b[0] = 0xcc
			got, err := AppendMsg(b, tt.m)
			checkMsgErr(t, err, tt.want)
			if len(got) != 1 || cap(got) != 64 || &got[0] != &b[0] || got[0] != 0xcc {
				t.Errorf("AppendMsg returned % x (cap %d), not b", got, cap(got))
			}
			n, sizeErr := MsgSize(tt.m)
			checkMsgErr(t, sizeErr, tt.want)
			if n != 0 || sizeErr.Error() != strings.Replace(err.Error(), "AppendMsg", "MsgSize", 1) {
				t.Errorf("MsgSize = %d, %v; AppendMsg failed with %v", n, sizeErr, err)
			}
		})
	}
}

// msgZeros32 is 32 zero bytes in hex, a key or a MAC of the rejected examples.
const msgZeros32 = " 0000000000000000000000000000000000000000000000000000000000000000 "

// msgForeign implements Msg but is not one of the package's messages.
type msgForeign struct{}

func (msgForeign) Type() MsgType { return MsgPause }

// TestMsgNamesAgreeWithWire: a PlayerInfo takes exactly the names that a
// ConnectRequest takes.
func TestMsgNamesAgreeWithWire(t *testing.T) {
	for _, name := range []string{"", "a", "Ada", "a b", " ", "\x00", "a\tb", "\u200b", "\u202e", "\xed\xa0\x80",
		strings.Repeat("n", wire.MaxNameLen), strings.Repeat("n", wire.MaxNameLen+1), strings.Repeat("é", 16), strings.Repeat("é", 17)} {
		_, err := AppendMsg(nil, &PlayerInfo{Name: name})
		if wantErr := wire.CheckName(name); (err == nil) != (wantErr == nil) {
			t.Errorf("name %q: AppendMsg says %v, wire.CheckName says %v", name, err, wantErr)
		}
	}
}

func TestMsgParseRejects(t *testing.T) {
	zeros16 := strings.Repeat("00", 16)
	for _, tt := range []struct {
		name, hex string
		want      error
	}{
		{"empty", "", wire.ErrShort},
		{"type 0", "00", wire.ErrBadType},
		{"type 255", "ff", wire.ErrBadType},
		{"pause without a frame", "0d", wire.ErrShort},
		{"pause, frame cut", "0d 81", wire.ErrShort},
		{"pause, trailing byte", "0d 05 00", wire.ErrTrailing},
		{"pause, frame 1 in 2 bytes", "0d 8001", wire.ErrNonCanonical},
		{"pause, frame 5 in 4 bytes", "0d c0000005", wire.ErrNonCanonical},
		{"player seat 8", "01 08 " + zeros16 + " 01 61 00", wire.ErrRange},
		{"player seat 255", "01 ff " + zeros16 + " 01 61 00", wire.ErrRange},
		{"player name empty", "01 00 " + zeros16 + " 00 00", wire.ErrBadName},
		{"player name too long", "01 00 " + zeros16 + " 21 " + strings.Repeat("6e", 33) + " 00", wire.ErrTooLong},
		{"player name bad UTF-8", "01 00 " + zeros16 + " 02 c328 00", wire.ErrBadName},
		{"player name with DEL", "01 00 " + zeros16 + " 02 617f 00", wire.ErrBadName},
		{"player reserved flag", "01 00 " + zeros16 + " 01 61 04", wire.ErrNonCanonical},
		{"player name length beyond the bytes", "01 00 " + zeros16 + " 10 61", wire.ErrShort},
		{"map empty", "02 00 0000000000000000 00 64 03 00", wire.ErrBadName},
		{"map bad UTF-8", "02 01 ff 0000000000000000 00 64 03 00", wire.ErrBadName},
		{"map too long", "02 41", wire.ErrTooLong},
		{"nine seats", "02 01 6d 0000000000000000 00 64 03 09 000102030405060707", wire.ErrTooLong},
		{"start seat 8", "02 01 6d 0000000000000000 00 64 03 01 08", wire.ErrRange},
		{"start seats descending", "02 01 6d 0000000000000000 00 64 03 02 0503", wire.ErrNonCanonical},
		{"start seats beyond the bytes", "02 01 6d 0000000000000000 00 64 03 03 0001", wire.ErrShort},
		{"start flags sent as 0", "02 01 6d 0000000000000000 00 64 03 00 00", wire.ErrNonCanonical},
		{"start reserved flag", "02 01 6d 0000000000000000 00 64 03 00 02", wire.ErrNonCanonical},
		{"start flags and a byte more", "02 01 6d 0000000000000000 00 64 03 00 01 00", wire.ErrTrailing},
		{"lead time flags sent as 0", "07 00 03 00", wire.ErrNonCanonical},
		{"lead time reserved flag", "07 00 03 81", wire.ErrNonCanonical},
		{"lead time flags and a byte more", "07 00 03 01 01", wire.ErrTrailing},
		{"command seat 8", "03 08 00 00 01 01 01 00 00 00 00", wire.ErrRange},
		{"command kind 0", "03 00 00 00 00 01 01 00 00 00 00", wire.ErrRange},
		{"command kind 4", "03 00 00 00 04 01 01 00 00 00 00", wire.ErrRange},
		{"command without units", "03 00 00 00 01 00 00 00 00 00", wire.ErrRange},
		{"command with 1025 units", "03 00 00 00 01 8401", wire.ErrTooLong},
		{"command units beyond the bytes", "03 00 00 00 01 8400 01 02 03", wire.ErrShort},
		{"command x negative zero", "03 00 00 00 01 01 01 40 00 00", wire.ErrNonCanonical},
		{"attack with a cell", "03 00 00 00 02 01 01 01 00 05 00", wire.ErrNonCanonical},
		{"stop with a cell", "03 00 00 00 03 01 01 00 41 00 00", wire.ErrNonCanonical},
		{"move with a target", "03 00 00 00 01 01 01 01 01 05 00", wire.ErrNonCanonical},
		{"stop with a target", "03 00 00 00 03 01 01 00 00 05 00", wire.ErrNonCanonical},
		{"command y in a longer form", "03 00 00 00 01 01 01 00 8001 00 00", wire.ErrNonCanonical},
		{"command sent directly to its own seat", "03 02 00 00 03 01 01 00 00 00 04", wire.ErrNonCanonical},
		{"command without its direct seats", "03 00 00 00 03 01 01 00 00 00", wire.ErrShort},
		{"link lost seat 8", "1c 08 01 00 00", wire.ErrRange},
		{"link lost why 0", "1c 01 00 00 00", wire.ErrRange},
		{"link lost to before from", "1c 05 02 05 04", wire.ErrRange},
		{"chat seat 8", "06 08 00 00", wire.ErrRange},
		{"chat too long", "06 00 00 80c9", wire.ErrTooLong},
		{"chat line break", "06 00 00 03 610a62", wire.ErrBadName},
		{"chat bad UTF-8", "06 00 00 01 ff", wire.ErrBadName},
		{"chat length beyond the bytes", "06 00 00 05 6161", wire.ErrShort},
		{"loss 1001", "08 00 00 00 83e9", wire.ErrRange},
		{"hash report, root cut", "09 00 00000000000000", wire.ErrShort},
		{"hash report without its state hash", "09 00 0000000000000000", wire.ErrShort},
		{"hash report, state hash cut", "09 00 0000000000000000 00000000000000", wire.ErrShort},
		{"hash report without its inputs' digest", "09 00 0000000000000000 0000000000000000", wire.ErrShort},
		{"hash report without its locator", "09 00 0000000000000000 0000000000000000 00000000", wire.ErrShort},
		{"hash report, locator cut", "09 00 0000000000000000 0000000000000000 00000000 00 00 00 00 00", wire.ErrShort},
		{"hash report, locator not in its shortest form", "09 00 0000000000000000 0000000000000000 00000000 00 00 00 00 00 8005", wire.ErrNonCanonical},
		{"hash report and more", "09 00 0000000000000000 0000000000000000 00000000 00 00 00 00 00 00 00", wire.ErrTrailing},
		{"4097 ranges", "0a 00 9001", wire.ErrTooLong},
		{"range backwards", "0a 00 01 05 04", wire.ErrRange},
		{"hash request, hashes sent with a count of 0", "0a 00 01 01 05 00", wire.ErrNonCanonical},
		{"hash request, more hashes than ranges", "0a 00 01 01 05 02 0000000000000001 0000000000000002", wire.ErrRange},
		{"hash request, hashes beyond the bytes", "0a 00 01 01 05 01 00000000", wire.ErrShort},
		{"hash request, 4097 hashes", "0a 00 01 01 05 9001", wire.ErrTooLong},
		{"unit hashes beyond the bytes", "0b 00 ffffffff", wire.ErrShort},
		{"unit hashes, skipped sent with a count of 0", "0b 00 00 00", wire.ErrNonCanonical},
		{"unit hashes, skipped range backwards", "0b 00 00 01 05 04", wire.ErrRange},
		{"unit hashes, skipped beyond the bytes", "0b 00 00 02 01 05", wire.ErrShort},
		{"unit hashes, 4097 skipped", "0b 00 00 9001", wire.ErrTooLong},
		{"units beyond the bytes", "0c 00 ffffffff", wire.ErrShort},
		{"unit id 0", "0c 00 01 00 00 00 00 00 00 3c 00", wire.ErrRange},
		{"unit reserved flag", "0c 00 01 01 00 00 80 00 00 3c 00", wire.ErrNonCanonical},
		{"unit cut", "0c 00 01 01 00 00 00 00 00", wire.ErrShort},
		{"removed beyond the bytes", "0c 00 00 ffffffff", wire.ErrShort},
		{"update without seat", "0c 00 00 00", wire.ErrShort},
		{"update seat 8", "0c 00 00 00 08 00 00", wire.ErrRange},
		{"update checked in a longer form", "0c 00 00 00 00 8001 00", wire.ErrNonCanonical},
		{"update hashes beyond the bytes", "0c 00 00 00 00 00 02 01 0000000000000001", wire.ErrShort},
		{"update hashes descending", "0c 00 00 00 00 00 02 02 0000000000000000 01 0000000000000000", wire.ErrNonCanonical},
		{"update hash twice", "0c 00 00 00 00 00 02 01 0000000000000000 01 0000000000000000", wire.ErrNonCanonical},
		{"update state of length 0", "0c 00 00 00 00 00 00 00 0000000000000000", wire.ErrNonCanonical},
		{"update state without its hash", "0c 00 00 00 00 00 00 24 " + msgTestCoreStateHex, wire.ErrShort},
		{"update state beyond the bytes", "0c 00 00 00 00 00 00 7f " + msgTestCoreStateHex + " 0000000000000000", wire.ErrShort},
		{"update state not a core state", "0c 00 00 00 00 00 00 01 00 0000000000000000", wire.ErrRange},
		{"update state hash and more", "0c 00 00 00 00 00 00 24 " + msgTestCoreStateHex + " 0000000000000000 00", wire.ErrTrailing},
		{"world hashes without attacks hash", "0e 00 00", wire.ErrShort},
		{"world hashes beyond the bytes", "0e 00 02 01 0000000000000001", wire.ErrShort},
		{"batch reserved flag", "0f 00 00 00 00 02", wire.ErrNonCanonical},
		{"batch attacks beyond the bytes", "0f 00 00 00 00 01 02 07 01 04 a710 841a a0fa 06 8096", wire.ErrShort},
		{"attack target 0", "0f 00 00 00 00 01 01 07 01 04 00 00 00 00 00", wire.ErrRange},
		{"peer seat 8", "13 01 08 04 c0000201 0fa0" + msgZeros32, wire.ErrRange},
		{"peer family 5", "13 01 00 05 c0000201 0fa0" + msgZeros32, wire.ErrRange},
		{"peer family 6, 4 bytes", "13 01 00 06 c0000201 0fa0" + msgZeros32, wire.ErrShort},
		{"peers descending", "13 02 01 04 c0000201 0fa0" + msgZeros32 + "00 04 c0000201 0fa0" + msgZeros32, wire.ErrNonCanonical},
		{"nine peers", "13 09", wire.ErrTooLong},
		{"peers beyond the bytes", "13 02 00 04 c0000201 0fa0" + msgZeros32, wire.ErrShort},
		{"peer without its key", "13 01 00 04 c0000201 0fa0", wire.ErrShort},
		{"peer key cut", "13 01 00 04 c0000201 0fa0" + msgZeros32[:63], wire.ErrShort},
		{"player secret cut", "14" + msgZeros32[:63], wire.ErrShort},
		{"player secret and more", "14" + msgZeros32 + "00", wire.ErrTrailing},
		{"challenge cut", "15 000102030405060708090a0b0c0d0e", wire.ErrShort},
		{"challenge and more", "15 000102030405060708090a0b0c0d0e0f 10", wire.ErrTrailing},
		{"proof cut", "16", wire.ErrShort},
		{"proof and more", "16" + msgZeros32 + "00", wire.ErrTrailing},
		{"reinforce without seats", "17 05 00", wire.ErrRange},
		{"reinforce seat 8", "17 05 01 08", wire.ErrRange},
		{"reinforce seat twice", "17 05 02 0303", wire.ErrNonCanonical},
		{"reinforce seats beyond the bytes", "17 05 03 0001", wire.ErrShort},
		{"new round 1", "18 05 01 0000000000000000 00", wire.ErrRange},
		{"new round without seats", "18 05 02 0000000000000000", wire.ErrShort},
		{"new round, seed cut", "18 05 02 00000000", wire.ErrShort},
		{"new round nine seats", "18 05 02 0000000000000000 09 000102030405060707", wire.ErrTooLong},
		{"class loss 100%", "19 83e8 00 00 00 00 00", wire.ErrRange},
		{"class latency a minute", "19 00 00 00 c000ea60 00 00", wire.ErrRange},
		{"class burst length without bursts", "19 00 00 02 00 00 00", wire.ErrNonCanonical},
		{"class link cut", "19 00 00 00 00 00", wire.ErrShort},
		// The first type beyond the table, whatever the table's length.
		{"the type after the last", fmt.Sprintf("%02x 00", maxMsgType+1), wire.ErrBadType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMsg(msgUnhex(t, tt.hex))
			checkMsgErr(t, err, tt.want)
			if m != nil {
				t.Errorf("ParseMsg returned %+v alongside its error", m)
			}
		})
	}
}

// TestMsgHugeCountsAllocateNothing: a count that promises more elements than
// the message has bytes fails before any slice is made.
func TestMsgHugeCountsAllocateNothing(t *testing.T) {
	for _, h := range []string{
		"03 00 00 00 01 8400",        // 1024 units, no bytes
		"0b 00 ffffffff",             // a billion unit hashes
		"0c 00 ffffffff",             // a billion units
		"0c 00 00 ffffffff",          // a billion removed ids
		"0c 00 00 00 00 00 ffffffff", // a billion unit hashes
		"0e 00 ffffffff",             // a billion unit hashes
		"0f 00 00 00 00 01 bfffff",   // 16,383 attacks
		"09 00 9000",                 // 4096 groups
		"0a 00 00 9000",              // 4096 hashes
		"0b 00 00 9000",              // 4096 skipped ranges
	} {
		in := msgUnhex(t, h)
		// The memory statistics are the whole process's: a goroutine of the runtime's or of the
		// testing package's (a profile being written) may allocate during one measure. What the
		// parse allocates shows in every measure, so the least of a few is the parse's.
		grew := uint64(math.MaxUint64)
		for range 5 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ParseMsg(in)
			runtime.ReadMemStats(&after)
			checkMsgErr(t, err, wire.ErrShort)
			grew = min(grew, after.TotalAlloc-before.TotalAlloc)
		}
		if grew > 4096 {
			t.Errorf("%s: parsing allocated %d bytes", h, grew)
		}
	}
}

func TestMsgTypeString(t *testing.T) {
	for typ, want := range map[MsgType]string{
		0: "MsgType(0)", MsgPlayerInfo: "PlayerInfo", MsgCommand: "Command", MsgResyncBatch: "ResyncBatch",
		MsgPeers: "Peers", MsgPlayerSecret: "PlayerSecret", MsgChallenge: "Challenge", MsgProof: "Proof",
		maxMsgType + 1: fmt.Sprintf("MsgType(%d)", maxMsgType+1), 255: "MsgType(255)",
	} {
		if got := typ.String(); got != want {
			t.Errorf("MsgType(%d).String() = %q, want %q", uint8(typ), got, want)
		}
	}
}

// TestMsgMinSizes: the smallest size of each list's element, which bounds a count by the
// bytes left, is the size of its smallest element: larger, it would refuse a valid message;
// smaller, it would let a forged count allocate more than the input justifies.
func TestMsgMinSizes(t *testing.T) {
	checkMinSize(t, "seats", seatElems, 0)
	checkMinSize(t, "hashes", hashElems, 0)
	checkMinSize(t, "ranges", rangeElems, IDRange{})
	checkMinSize(t, "unit hashes", unitHashElems, world.UnitHash{})
	checkMinSize(t, "unit hashes by id", unitHashByIDElems, world.UnitHash{})
	checkMinSize(t, "units", unitElems, world.Unit{ID: 1})
	checkMinSize(t, "attacks", attackElems, world.Attack{ID: 1, Target: 1})
	checkMinSize(t, "peers", peerElems, PeerAddr{Addr: netip.MustParseAddrPort("0.0.0.0:0")})
}

// checkMinSize fails unless smallest, a valid element of e's lists, measures e.minSize bytes.
func checkMinSize[T any](t *testing.T, name string, e elems[T], smallest T) {
	t.Helper()
	s := e.fields(fieldStream{mode: measuring, t: MsgPeers}, name, []T{smallest})
	if s.err != nil || s.broken != nil || s.n != e.minSize {
		t.Errorf("the smallest of %s measures %d bytes (%v, %v), its minSize is %d", name, s.n, s.err, s.broken, e.minSize)
	}
}

// TestMsgSize: MsgSize is the length of AppendMsg's encoding, for every message of the tests
// above and every valid message of the fuzz corpus.
func TestMsgSize(t *testing.T) {
	var msgs []Msg
	for _, tt := range msgEncodingTests {
		msgs = append(msgs, tt.m)
	}
	msgs = append(msgs, msgEdgeValues()...)
	for _, seed := range seedcorpus.Read(t, filepath.Join("testdata", "fuzz", "FuzzParseMsg")) {
		if m, err := ParseMsg(seed.Data); err == nil {
			msgs = append(msgs, m)
		}
	}
	for _, m := range msgs {
		b, err := AppendMsg(nil, m)
		checkMsgErr(t, err, nil)
		n, err := MsgSize(m)
		checkMsgErr(t, err, nil)
		if n != len(b) {
			t.Errorf("%v of %d bytes: MsgSize says %d", m.Type(), len(b), n)
		}
	}
}

// TestMsgAllocations: appending a message into a buffer with room allocates nothing, and
// parsing one allocates the message and its lists, nothing more: the codec runs for every
// message of every packet.
func TestMsgAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = AppendMsg(buf[:0], benchCommand); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("AppendMsg allocates %v times per Command", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := MsgSize(benchCommand); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("MsgSize allocates %v times per Command", n)
	}
	encoded := bytes.Clone(buf)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := ParseMsg(encoded); err != nil {
			t.Fatal(err)
		}
	}); n != 2 {
		t.Errorf("ParseMsg allocates %v times per Command, want 2 (the Command and its units)", n)
	}
}

var benchCommand = &Command{Seat: 3, ID: 1234, Frame: 5678, Kind: world.CommandMove, Units: []uint32{11, 12, 13, 14, 15}, X: 40, Y: -12}

// BenchmarkAppendParseCommand measures the two halves of the codec on the commonest message:
// append into a reused buffer (no allocation), and parse (the message and its units).
func BenchmarkAppendParseCommand(b *testing.B) {
	encoded, err := AppendMsg(nil, benchCommand)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("append", func(b *testing.B) {
		buf := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = AppendMsg(buf[:0], benchCommand); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseMsg(encoded); err != nil {
				b.Fatal(err)
			}
		}
	})
}
