package game

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ackattack/ackattack/internal/int30"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// The smallest encoding of one element of each list, in bytes. A parser
// compares a list's count times this size with the bytes that are left
// before it makes the slice, so a count of a billion in a ten-byte message
// costs nothing.
const (
	msgMinSeat     = 1     // u8
	msgMinID       = 1     // u30
	msgMinRange    = 1 + 1 // u30 start, u30 end
	msgMinGroup    = 1 + 1 + 8
	msgMinUnitHash = 1 + 8
	msgMinHash     = 8 // u64
	// A unit is at least its id, owner, kind and flags, then X, Y and HP:
	// seven fields of one byte or more (world's unit codec).
	msgMinUnit = 7
	// An attack is at least its id, owner, from, target, X, Y, damage and
	// speed: eight fields of one byte or more (world's attack codec).
	msgMinAttack = 8
	msgMinPeer   = 1 + 1 + 4 + 2 + len(LinkKey{}) // seat, family, IPv4 address, port, key
)

// Flag bits.
const (
	msgPlayerBot       = 0x01
	msgPlayerConnected = 0x02
	msgPlayerReserved  = 0xFC

	msgBatchHasAttacks = 0x01
	msgBatchHasState   = 0x02 // the batch carries the world's state (counters, generator, unit ids, attacks)
	msgBatchReserved   = 0xFC
)

// Address families of a PeerAddr.
const (
	msgFamily4 = 4
	msgFamily6 = 6
)

// msgErrorf builds an error of message type t that wraps sentinel.
func msgErrorf(t MsgType, sentinel error, format string, args ...any) error {
	return fmt.Errorf("game: %v: %s: %w", t, fmt.Sprintf(format, args...), sentinel)
}

// msgWriter appends fields to b and keeps the first error. A message's encode
// method writes every field without checking; AppendMsg looks at err once.
// The writer goes into encode and comes back out by value: a pointer passed
// through the interface would make it escape to the heap, one allocation per
// message for nothing.
type msgWriter struct {
	t   MsgType
	b   []byte
	err error
}

func (e *msgWriter) fail(field string, err error) {
	if e.err == nil {
		e.err = fmt.Errorf("game: %v: %s: %w", e.t, field, err)
	}
}

func (e *msgWriter) u8(v uint8)   { e.b = append(e.b, v) }
func (e *msgWriter) u16(v uint16) { e.b = binary.BigEndian.AppendUint16(e.b, v) }
func (e *msgWriter) u64(v uint64) { e.b = binary.BigEndian.AppendUint64(e.b, v) }

func (e *msgWriter) u30(field string, v uint32) {
	b, err := int30.AppendUInt30(e.b, v)
	if err != nil {
		e.fail(field, err)
	}
	e.b = b
}

func (e *msgWriter) i30(field string, v int32) {
	b, err := int30.AppendInt30(e.b, v)
	if err != nil {
		e.fail(field, err)
	}
	e.b = b
}

// count writes the length of a list or a string.
func (e *msgWriter) count(field string, n int) {
	if n > int30.MaxUInt30 {
		e.fail(field, fmt.Errorf("%d elements: %w", n, wire.ErrTooLong))
		return
	}
	e.u30(field, uint32(n))
}

func (e *msgWriter) str(field string, s string) {
	e.count(field, len(s))
	e.b = append(e.b, s...)
}

func (e *msgWriter) ids(field string, ids []uint32) {
	e.count(field, len(ids))
	for _, id := range ids {
		e.u30(field, id)
	}
}

func (e *msgWriter) ranges(field string, rs []IDRange) {
	e.count(field, len(rs))
	for _, r := range rs {
		e.u30(field+" start", r.Start)
		e.u30(field+" end", r.End)
	}
}

func (e *msgWriter) unitHashes(field string, hs []world.UnitHash) {
	e.count(field, len(hs))
	for _, h := range hs {
		e.u30(field, h.ID)
		e.u64(h.Hash)
	}
}

// appendMsgList writes a list of values in world's codec (units, attacks),
// each with an Append that checks the value before it writes a byte: a value
// the receiver would refuse, or read back as another, fails here, on the
// sender, where the bug is.
func appendMsgList[T any](e *msgWriter, field string, list []T, appendOne func([]byte, *T) ([]byte, error)) {
	e.count(field, len(list))
	for i := range list {
		if e.err != nil {
			return
		}
		b, err := appendOne(e.b, &list[i])
		if err != nil {
			e.fail(fmt.Sprintf("%s[%d]", field, i), err)
			return
		}
		e.b = b
	}
}

// msgReader reads fields from b[n:] and keeps the first error; after an error
// every read returns a zero value, so a decode method reads straight through
// and ParseMsg checks once. Like msgWriter it travels by value.
type msgReader struct {
	t   MsgType
	b   []byte
	n   int
	err error
}

func (d *msgReader) fail(field string, err error) {
	if d.err == nil {
		d.err = fmt.Errorf("game: %v: %s: %w", d.t, field, err)
	}
}

// take returns the next k bytes (aliasing b), or nil after an error or if
// fewer than k are left.
func (d *msgReader) take(field string, k int) []byte {
	if d.err != nil {
		return nil
	}
	if left := len(d.b) - d.n; left < k {
		d.fail(field, fmt.Errorf("need %d bytes, have %d: %w", k, left, wire.ErrShort))
		return nil
	}
	d.n += k
	return d.b[d.n-k : d.n]
}

func (d *msgReader) u8(field string) uint8 {
	if p := d.take(field, 1); p != nil {
		return p[0]
	}
	return 0
}

func (d *msgReader) u16(field string) uint16 {
	if p := d.take(field, 2); p != nil {
		return binary.BigEndian.Uint16(p)
	}
	return 0
}

func (d *msgReader) u64(field string) uint64 {
	if p := d.take(field, 8); p != nil {
		return binary.BigEndian.Uint64(p)
	}
	return 0
}

func (d *msgReader) u30(field string) uint32 {
	if d.err != nil {
		return 0
	}
	v, n, err := int30.ParseUInt30(d.b[d.n:])
	if err != nil {
		d.fail(field, err)
		return 0
	}
	d.n += n
	return v
}

func (d *msgReader) i30(field string) int32 {
	if d.err != nil {
		return 0
	}
	v, n, err := int30.ParseInt30(d.b[d.n:])
	if err != nil {
		d.fail(field, err)
		return 0
	}
	d.n += n
	return v
}

// count reads the length of a list of at most max elements, each at least
// minSize bytes long. A count above max is ErrTooLong; one whose elements
// cannot fit in the bytes left is ErrShort. Either way nothing is allocated.
func (d *msgReader) count(field string, max, minSize int) int {
	c := d.u30(field)
	if d.err != nil {
		return 0
	}
	if int64(c) > int64(max) {
		d.fail(field, fmt.Errorf("%d elements, at most %d: %w", c, max, wire.ErrTooLong))
		return 0
	}
	if left := len(d.b) - d.n; int64(c)*int64(minSize) > int64(left) {
		d.fail(field, fmt.Errorf("%d elements of at least %d bytes, %d bytes left: %w", c, minSize, left, wire.ErrShort))
		return 0
	}
	return int(c)
}

// optionalCount reads the count of a list that may end a message, and is left out when
// empty: a message without it keeps the bytes of the message's older form, which had no such
// list. No bytes left means no list (0). A list that is there has a count of at least 1: a
// count of 0 would be a second spelling of the message without the list, and is refused.
func (d *msgReader) optionalCount(field string, max, minSize int) int {
	if d.err != nil || d.n == len(d.b) {
		return 0
	}
	c := d.count(field, max, minSize)
	if c == 0 && d.err == nil {
		d.fail(field, fmt.Errorf("an empty list is left out, not sent with a count of 0: %w", wire.ErrNonCanonical))
	}
	return c
}

// str reads a string of at most max bytes. Its contents are checked by the
// message's check method, the same one the sender runs.
func (d *msgReader) str(field string, max int) string {
	c := d.u30(field)
	if d.err != nil {
		return ""
	}
	if int64(c) > int64(max) {
		d.fail(field, fmt.Errorf("%d bytes, at most %d: %w", c, max, wire.ErrTooLong))
		return ""
	}
	return string(d.take(field, int(c)))
}

// makeMsgList returns a slice of n elements, or nil for none: a parsed empty
// list is always nil.
func makeMsgList[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, n)
}

func (d *msgReader) ids(field string) []uint32 {
	ids := makeMsgList[uint32](d.count(field, int30.MaxUInt30, msgMinID))
	for i := range ids {
		ids[i] = d.u30(field)
	}
	return ids
}

// ranges reads the n id ranges of a list whose count was read already.
func (d *msgReader) ranges(field string, n int) []IDRange {
	rs := makeMsgList[IDRange](n)
	for i := range rs {
		rs[i].Start = d.u30(field + " start")
		rs[i].End = d.u30(field + " end")
	}
	return rs
}

func (d *msgReader) unitHashes(field string) []world.UnitHash {
	hs := makeMsgList[world.UnitHash](d.count(field, int30.MaxUInt30, msgMinUnitHash))
	for i := range hs {
		hs[i].ID = d.u30(field)
		hs[i].Hash = d.u64(field)
	}
	return hs
}

// parseMsgList reads a list of values in world's codec (units, attacks), each
// at least minSize bytes long.
func parseMsgList[T any](d *msgReader, field string, minSize int, parseOne func([]byte) (T, int, error)) []T {
	list := makeMsgList[T](d.count(field, int30.MaxUInt30, minSize))
	for i := range list {
		if d.err != nil {
			break
		}
		v, n, err := parseOne(d.b[d.n:])
		if err != nil {
			d.fail(fmt.Sprintf("%s[%d]", field, i), err)
			break
		}
		list[i] = v
		d.n += n
	}
	return list
}

// Checks shared by several messages.

func checkMsgSeat(t MsgType, field string, seat uint8) error {
	if seat >= world.MaxPlayers {
		return msgErrorf(t, wire.ErrRange, "%s %d, want 0..%d", field, seat, world.MaxPlayers-1)
	}
	return nil
}

// checkMsgText applies the rule of every string: min..max bytes of valid UTF-8
// without control characters. Names, map names and chat end up on other
// players' screens and in logs, where an escape sequence or a line break
// could pass one player off as another or forge a line.
func checkMsgText(t MsgType, field, s string, min, max int) error {
	switch {
	case len(s) < min:
		return msgErrorf(t, wire.ErrBadName, "%s of %d bytes, at least %d", field, len(s), min)
	case len(s) > max:
		return msgErrorf(t, wire.ErrTooLong, "%s of %d bytes, at most %d", field, len(s), max)
	case !utf8.ValidString(s):
		return msgErrorf(t, wire.ErrBadName, "%s is not valid UTF-8", field)
	}
	for i, r := range s {
		if unicode.IsControl(r) {
			return msgErrorf(t, wire.ErrBadName, "%s has control character %U at byte %d", field, r, i)
		}
	}
	return nil
}

// checkMsgSeatOrder requires seats to be strictly ascending: a list of seats is
// a set, and one order makes one encoding.
func checkMsgSeatOrder(t MsgType, field string, seat, prev uint8) error {
	if seat <= prev {
		return msgErrorf(t, wire.ErrNonCanonical, "%s %d after seat %d, want strictly ascending", field, seat, prev)
	}
	return nil
}

func checkMsgRange(t MsgType, field string, i int, start, end uint32) error {
	if start > end {
		return msgErrorf(t, wire.ErrRange, "%s[%d] starts at %d after its end %d", field, i, start, end)
	}
	return nil
}

// checkMsgRanges checks a list of id ranges: at most MaxHashRanges, none backwards.
func checkMsgRanges(t MsgType, field string, rs []IDRange) error {
	if len(rs) > MaxHashRanges {
		return msgErrorf(t, wire.ErrTooLong, "%d %ss, at most %d", len(rs), field, MaxHashRanges)
	}
	for i, r := range rs {
		if err := checkMsgRange(t, field, i, r.Start, r.End); err != nil {
			return err
		}
	}
	return nil
}

// PlayerInfo: seat ‖ player [16] ‖ name ‖ flags u8 (bit 0 bot, bit 1 connected).

func (m *PlayerInfo) check() error {
	if err := checkMsgSeat(m.Type(), "seat", m.Seat); err != nil {
		return err
	}
	if err := wire.CheckName(m.Name); err != nil {
		return fmt.Errorf("game: %v: %w", m.Type(), err)
	}
	return nil
}

func (m *PlayerInfo) encode(e msgWriter) msgWriter {
	e.u8(m.Seat)
	e.b = append(e.b, m.Player[:]...)
	e.str("name", m.Name)
	var flags uint8
	if m.Bot {
		flags |= msgPlayerBot
	}
	if m.Connected {
		flags |= msgPlayerConnected
	}
	e.u8(flags)
	return e
}

func (m *PlayerInfo) decode(d msgReader) msgReader {
	m.Seat = d.u8("seat")
	copy(m.Player[:], d.take("player", len(m.Player)))
	m.Name = d.str("name", wire.MaxNameLen)
	flags := d.u8("flags")
	if flags&msgPlayerReserved != 0 {
		d.fail("flags", fmt.Errorf("reserved bits %#02x set: %w", flags&msgPlayerReserved, wire.ErrNonCanonical))
	}
	m.Bot = flags&msgPlayerBot != 0
	m.Connected = flags&msgPlayerConnected != 0
	return d
}

// StartGame: map ‖ seed u64 ‖ frame u30 ‖ frame millis u30 ‖ lead frames u30 ‖ seats list of u8.

func (m *StartGame) check() error {
	t := m.Type()
	if err := checkMsgText(t, "map", m.Map, 1, MaxMapNameLen); err != nil {
		return err
	}
	return checkMsgSeats(t, m.Seats, 0)
}

func (m *StartGame) encode(e msgWriter) msgWriter {
	e.str("map", m.Map)
	e.u64(m.Seed)
	e.u30("frame", m.Frame)
	e.u30("frame millis", m.FrameMillis)
	e.u30("lead frames", m.LeadFrames)
	e.seats(m.Seats)
	return e
}

func (m *StartGame) decode(d msgReader) msgReader {
	m.Map = d.str("map", MaxMapNameLen)
	m.Seed = d.u64("seed")
	m.Frame = d.u30("frame")
	m.FrameMillis = d.u30("frame millis")
	m.LeadFrames = d.u30("lead frames")
	m.Seats = d.seats()
	return d
}

// A list of seats (StartGame, Reinforce, NewRound): at most world.MaxPlayers, each 0..7,
// strictly ascending.

// checkMsgSeats checks a list of seats of at least least seats.
func checkMsgSeats(t MsgType, seats []uint8, least int) error {
	switch n := len(seats); {
	case n > world.MaxPlayers:
		return msgErrorf(t, wire.ErrTooLong, "%d seats, at most %d", n, world.MaxPlayers)
	case n < least:
		return msgErrorf(t, wire.ErrRange, "%d seats, at least %d", n, least)
	}
	for i, s := range seats {
		if err := checkMsgSeat(t, "seat", s); err != nil {
			return err
		}
		if i > 0 {
			if err := checkMsgSeatOrder(t, "seat", s, seats[i-1]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *msgWriter) seats(seats []uint8) {
	e.count("seats", len(seats))
	e.b = append(e.b, seats...)
}

func (d *msgReader) seats() []uint8 {
	seats := makeMsgList[uint8](d.count("seats", world.MaxPlayers, msgMinSeat))
	copy(seats, d.take("seats", len(seats)))
	return seats
}

// Command: seat ‖ id u30 ‖ frame u30 ‖ kind u8 ‖ units list of u30 ‖ x i30 ‖ y i30 ‖ target u30 ‖ direct u8 (seat bits).

func (m *Command) check() error {
	t := m.Type()
	if err := checkMsgSeat(t, "seat", m.Seat); err != nil {
		return err
	}
	if m.Kind < world.CommandMove || m.Kind > world.CommandStop {
		return msgErrorf(t, wire.ErrRange, "kind %d", m.Kind)
	}
	switch n := len(m.Units); {
	case n == 0:
		return msgErrorf(t, wire.ErrRange, "no units")
	case n > world.MaxCommandUnits:
		return msgErrorf(t, wire.ErrTooLong, "%d units, at most %d", n, world.MaxCommandUnits)
	}
	// The fields a kind does not use are 0: one encoding per command.
	if m.Kind != world.CommandMove && (m.X != 0 || m.Y != 0) {
		return msgErrorf(t, wire.ErrNonCanonical, "%v with a cell (%d, %d), want (0, 0)", m.Kind, m.X, m.Y)
	}
	if m.Kind != world.CommandAttack && m.Target != 0 {
		return msgErrorf(t, wire.ErrNonCanonical, "%v with target %d, want 0", m.Kind, m.Target)
	}
	if m.Direct&(1<<m.Seat) != 0 {
		return msgErrorf(t, wire.ErrNonCanonical, "direct to its own seat %d", m.Seat)
	}
	return nil
}

func (m *Command) encode(e msgWriter) msgWriter {
	e.u8(m.Seat)
	e.u30("id", m.ID)
	e.u30("frame", m.Frame)
	e.u8(uint8(m.Kind))
	e.ids("units", m.Units)
	e.i30("x", m.X)
	e.i30("y", m.Y)
	e.u30("target", m.Target)
	e.u8(m.Direct)
	return e
}

func (m *Command) decode(d msgReader) msgReader {
	m.Seat = d.u8("seat")
	m.ID = d.u30("id")
	m.Frame = d.u30("frame")
	m.Kind = world.CommandKind(d.u8("kind"))
	m.Units = makeMsgList[uint32](d.count("units", world.MaxCommandUnits, msgMinID))
	for i := range m.Units {
		m.Units[i] = d.u30("units")
	}
	m.X = d.i30("x")
	m.Y = d.i30("y")
	m.Target = d.u30("target")
	m.Direct = d.u8("direct")
	return d
}

// SpawnEnemy: frame u30 ‖ id u30 ‖ kind u8 ‖ x i30 ‖ y i30.

func (m *SpawnEnemy) check() error { return nil }

func (m *SpawnEnemy) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u30("id", m.ID)
	e.u8(m.Kind)
	e.i30("x", m.X)
	e.i30("y", m.Y)
	return e
}

func (m *SpawnEnemy) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.ID = d.u30("id")
	m.Kind = d.u8("kind")
	m.X = d.i30("x")
	m.Y = d.i30("y")
	return d
}

// KillEnemy: frame u30 ‖ id u30.

func (m *KillEnemy) check() error { return nil }

func (m *KillEnemy) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u30("id", m.ID)
	return e
}

func (m *KillEnemy) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.ID = d.u30("id")
	return d
}

// Chat: seat ‖ line u30 ‖ text.

func (m *Chat) check() error {
	if err := checkMsgSeat(m.Type(), "seat", m.Seat); err != nil {
		return err
	}
	return checkChatText(m.Type(), m.Text)
}

// checkChatText is the rule of a chat line, a player's or a spectator's: 0..MaxChatLen bytes
// of text. A line that turns the direction of the text (U+202E and its kin) could make the
// rest of what the screen shows read backwards, or pass off one player's words as another's.
func checkChatText(t MsgType, text string) error {
	if err := checkMsgText(t, "text", text, 0, MaxChatLen); err != nil {
		return err
	}
	for i, r := range text {
		if isDirectionControl(r) {
			return msgErrorf(t, wire.ErrBadName, "text has direction control %U at byte %d", r, i)
		}
	}
	return nil
}

func (m *Chat) encode(e msgWriter) msgWriter {
	e.u8(m.Seat)
	e.u30("line", m.Line)
	e.str("text", m.Text)
	return e
}

func (m *Chat) decode(d msgReader) msgReader {
	m.Seat = d.u8("seat")
	m.Line = d.u30("line")
	m.Text = d.str("text", MaxChatLen)
	return d
}

// LeadTime: frame u30 ‖ lead frames u30.

func (m *LeadTime) check() error { return nil }

func (m *LeadTime) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u30("lead frames", m.LeadFrames)
	return e
}

func (m *LeadTime) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.LeadFrames = d.u30("lead frames")
	return d
}

// PingSummary: avg u30 ‖ min u30 ‖ max u30 ‖ loss u30.

func (m *PingSummary) check() error {
	if m.LossPermille > MaxLossPermille {
		return msgErrorf(m.Type(), wire.ErrRange, "loss of %d‰, at most %d", m.LossPermille, MaxLossPermille)
	}
	return nil
}

func (m *PingSummary) encode(e msgWriter) msgWriter {
	e.u30("average rtt", m.AvgRTTMicros)
	e.u30("min rtt", m.MinRTTMicros)
	e.u30("max rtt", m.MaxRTTMicros)
	e.u30("loss", m.LossPermille)
	return e
}

func (m *PingSummary) decode(d msgReader) msgReader {
	m.AvgRTTMicros = d.u30("average rtt")
	m.MinRTTMicros = d.u30("min rtt")
	m.MaxRTTMicros = d.u30("max rtt")
	m.LossPermille = d.u30("loss")
	return d
}

// HashReport: frame u30 ‖ groups list of (start u30 ‖ end u30 ‖ hash u64).

func (m *HashReport) check() error {
	t := m.Type()
	if len(m.Groups) > MaxHashGroups {
		return msgErrorf(t, wire.ErrTooLong, "%d groups, at most %d", len(m.Groups), MaxHashGroups)
	}
	for i, g := range m.Groups {
		if err := checkMsgRange(t, "group", i, g.Start, g.End); err != nil {
			return err
		}
	}
	return nil
}

func (m *HashReport) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.count("groups", len(m.Groups))
	for _, g := range m.Groups {
		e.u30("group start", g.Start)
		e.u30("group end", g.End)
		e.u64(g.Hash)
	}
	return e
}

func (m *HashReport) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Groups = makeMsgList[world.GroupHash](d.count("groups", MaxHashGroups, msgMinGroup))
	for i := range m.Groups {
		g := &m.Groups[i]
		g.Start = d.u30("group start")
		g.End = d.u30("group end")
		g.Hash = d.u64("group hash")
	}
	return d
}

// HashRequest: frame u30 ‖ ranges list of (start u30 ‖ end u30) ‖ hashes list of u64, one
// per range, left out when empty (optionalCount).

func (m *HashRequest) check() error {
	t := m.Type()
	if err := checkMsgRanges(t, "range", m.Ranges); err != nil {
		return err
	}
	if len(m.Hashes) > 0 && len(m.Hashes) != len(m.Ranges) {
		return msgErrorf(t, wire.ErrRange, "%d hashes for %d ranges, want none or one per range", len(m.Hashes), len(m.Ranges))
	}
	return nil
}

func (m *HashRequest) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.ranges("ranges", m.Ranges)
	if len(m.Hashes) > 0 {
		e.count("hashes", len(m.Hashes))
		for _, h := range m.Hashes {
			e.u64(h)
		}
	}
	return e
}

func (m *HashRequest) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Ranges = d.ranges("ranges", d.count("ranges", MaxHashRanges, msgMinRange))
	m.Hashes = makeMsgList[uint64](d.optionalCount("hashes", MaxHashRanges, msgMinHash))
	for i := range m.Hashes {
		m.Hashes[i] = d.u64("hash")
	}
	return d
}

// UnitHashes: frame u30 ‖ hashes list of (id u30 ‖ hash u64) ‖ skipped list of (start u30 ‖
// end u30), left out when empty (optionalCount).

func (m *UnitHashes) check() error { return checkMsgRanges(m.Type(), "skipped range", m.Skipped) }

func (m *UnitHashes) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.unitHashes("hashes", m.Hashes)
	if len(m.Skipped) > 0 {
		e.ranges("skipped", m.Skipped)
	}
	return e
}

func (m *UnitHashes) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Hashes = d.unitHashes("hashes")
	m.Skipped = d.ranges("skipped", d.optionalCount("skipped", MaxHashRanges, msgMinRange))
	return d
}

// UnitUpdate: frame u30 ‖ units list of unit ‖ removed list of u30 ‖ seat ‖ checked u30 ‖
// hashes list of (id u30 ‖ hash u64), ids strictly ascending.

func (m *UnitUpdate) check() error {
	t := m.Type()
	if err := checkMsgSeat(t, "seat", m.Seat); err != nil {
		return err
	}
	// The hashes are a set keyed by unit id: one order makes one encoding, and lets a
	// receiver look a unit up by binary search.
	for i := 1; i < len(m.Hashes); i++ {
		if m.Hashes[i].ID <= m.Hashes[i-1].ID {
			return msgErrorf(t, wire.ErrNonCanonical, "hash of unit %d after unit %d, want ids strictly ascending",
				m.Hashes[i].ID, m.Hashes[i-1].ID)
		}
	}
	return nil
}

func (m *UnitUpdate) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	appendMsgList(&e, "units", m.Units, world.AppendUnit)
	e.ids("removed", m.Removed)
	e.u8(m.Seat)
	e.u30("checked", m.Checked)
	e.unitHashes("hashes", m.Hashes)
	return e
}

func (m *UnitUpdate) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Units = parseMsgList(&d, "units", msgMinUnit, world.ParseUnit)
	m.Removed = d.ids("removed")
	m.Seat = d.u8("seat")
	m.Checked = d.u30("checked")
	m.Hashes = d.unitHashes("hashes")
	return d
}

// Pause: frame u30.

func (m *Pause) check() error { return nil }
func (m *Pause) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	return e
}

func (m *Pause) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	return d
}

// WorldHashes: frame u30 ‖ hashes list of (id u30 ‖ hash u64) ‖ attacks hash u64.

func (m *WorldHashes) check() error { return nil }

func (m *WorldHashes) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.unitHashes("hashes", m.Hashes)
	e.u64(m.AttacksHash)
	return e
}

func (m *WorldHashes) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Hashes = d.unitHashes("hashes")
	m.AttacksHash = d.u64("attacks hash")
	return d
}

// ResyncBatch: frame u30 ‖ batch u30 ‖ units list of unit ‖ removed list of
// u30 ‖ flags u8 (bit 0 has attacks, bit 1 has state) ‖ if bit 0: attacks
// list of attack ‖ if bit 1: state as u30 length and World.AppendState bytes.

func (m *ResyncBatch) check() error {
	if !m.HasAttacks && len(m.Attacks) > 0 {
		return msgErrorf(m.Type(), wire.ErrRange, "%d attacks without HasAttacks", len(m.Attacks))
	}
	if !m.HasAttacks && len(m.State) > 0 {
		return msgErrorf(m.Type(), wire.ErrRange, "a state without HasAttacks")
	}
	return nil
}

func (m *ResyncBatch) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u30("batch", m.Batch)
	appendMsgList(&e, "units", m.Units, world.AppendUnit)
	e.ids("removed", m.Removed)
	if !m.HasAttacks {
		e.u8(0)
		return e
	}
	flags := uint8(msgBatchHasAttacks)
	if len(m.State) > 0 {
		flags |= msgBatchHasState
	}
	e.u8(flags)
	appendMsgList(&e, "attacks", m.Attacks, world.AppendAttack)
	if len(m.State) > 0 {
		if _, n, err := world.ParseState(m.State); err != nil || n != len(m.State) {
			e.fail("state", fmt.Errorf("not one world state (%v): %w", err, wire.ErrRange))
		}
		e.count("state", len(m.State))
		e.b = append(e.b, m.State...)
	}
	return e
}

func (m *ResyncBatch) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Batch = d.u30("batch")
	m.Units = parseMsgList(&d, "units", msgMinUnit, world.ParseUnit)
	m.Removed = d.ids("removed")
	flags := d.u8("flags")
	if flags&msgBatchReserved != 0 {
		d.fail("flags", fmt.Errorf("reserved bits %#02x set: %w", flags&msgBatchReserved, wire.ErrNonCanonical))
	}
	if m.HasAttacks = flags&msgBatchHasAttacks != 0; m.HasAttacks {
		m.Attacks = parseMsgList(&d, "attacks", msgMinAttack, world.ParseAttack)
	}
	if flags&msgBatchHasState != 0 {
		if !m.HasAttacks {
			d.fail("flags", fmt.Errorf("a state without the attacks: %w", wire.ErrNonCanonical))
		}
		n := d.count("state", 1<<24, 1)
		if p := d.take("state", n); p != nil {
			if _, k, err := world.ParseState(p); err != nil || k != n || n == 0 {
				d.fail("state", fmt.Errorf("not one world state: %v: %w", err, wire.ErrRange))
			}
			m.State = append([]byte(nil), p...)
		}
	}
	return d
}

// BatchApplied: frame u30 ‖ batch u30.

func (m *BatchApplied) check() error { return nil }

func (m *BatchApplied) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u30("batch", m.Batch)
	return e
}

func (m *BatchApplied) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Batch = d.u30("batch")
	return d
}

// Resume: frame u30 ‖ after millis u30.

func (m *Resume) check() error { return nil }

func (m *Resume) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u30("after millis", m.AfterMillis)
	return e
}

func (m *Resume) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.AfterMillis = d.u30("after millis")
	return d
}

// FrameSync: frame u30 ‖ server clock u64 (Unix nanoseconds, two's complement).

func (m *FrameSync) check() error { return nil }

func (m *FrameSync) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u64(uint64(m.ServerUnixNanos))
	return e
}

func (m *FrameSync) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.ServerUnixNanos = int64(d.u64("server clock"))
	return d
}

// Peers: list of (seat ‖ family u8 (4 or 6) ‖ address (4 or 16 bytes) ‖ port u16 ‖ key [32]).

func (m *Peers) check() error {
	t := m.Type()
	if len(m.List) > world.MaxPlayers {
		return msgErrorf(t, wire.ErrTooLong, "%d peers, at most %d", len(m.List), world.MaxPlayers)
	}
	var seats [world.MaxPlayers]uint8
	for i, p := range m.List {
		seats[i] = p.Seat
	}
	if err := checkMsgSeats(t, seats[:len(m.List)], 0); err != nil {
		return err
	}
	for _, p := range m.List {
		a := p.Addr.Addr()
		if !a.IsValid() || a.Zone() != "" {
			return msgErrorf(t, wire.ErrRange, "seat %d: address %v, want an IPv4 or IPv6 address without a zone", p.Seat, p.Addr)
		}
	}
	return nil
}

func (m *Peers) encode(e msgWriter) msgWriter {
	e.count("peers", len(m.List))
	for _, p := range m.List {
		e.u8(p.Seat)
		// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is an IPv6 address to
		// netip, and goes as one, so it comes back exactly as it was.
		if a := p.Addr.Addr(); a.Is4() {
			a4 := a.As4()
			e.u8(msgFamily4)
			e.b = append(e.b, a4[:]...)
		} else {
			a16 := a.As16()
			e.u8(msgFamily6)
			e.b = append(e.b, a16[:]...)
		}
		e.u16(p.Addr.Port())
		e.b = append(e.b, p.Key[:]...)
	}
	return e
}

func (m *Peers) decode(d msgReader) msgReader {
	m.List = makeMsgList[PeerAddr](d.count("peers", world.MaxPlayers, msgMinPeer))
	for i := range m.List {
		p := &m.List[i]
		p.Seat = d.u8("seat")
		var a netip.Addr
		switch fam := d.u8("address family"); {
		case d.err != nil:
		case fam == msgFamily4:
			if b := d.take("address", 4); b != nil {
				a = netip.AddrFrom4([4]byte(b))
			}
		case fam == msgFamily6:
			if b := d.take("address", 16); b != nil {
				a = netip.AddrFrom16([16]byte(b))
			}
		default:
			d.fail("address family", fmt.Errorf("%d, want %d or %d: %w", fam, msgFamily4, msgFamily6, wire.ErrRange))
		}
		p.Addr = netip.AddrPortFrom(a, d.u16("port"))
		copy(p.Key[:], d.take("key", len(p.Key)))
	}
	return d
}

// PlayerSecret: secret [32].

func (m *PlayerSecret) check() error { return nil }

func (m *PlayerSecret) encode(e msgWriter) msgWriter {
	e.b = append(e.b, m.Secret[:]...)
	return e
}

func (m *PlayerSecret) decode(d msgReader) msgReader {
	copy(m.Secret[:], d.take("secret", len(m.Secret)))
	return d
}

// Challenge: nonce [16].

func (m *Challenge) check() error { return nil }

func (m *Challenge) encode(e msgWriter) msgWriter {
	e.b = append(e.b, m.Nonce[:]...)
	return e
}

func (m *Challenge) decode(d msgReader) msgReader {
	copy(m.Nonce[:], d.take("nonce", len(m.Nonce)))
	return d
}

// Proof: mac [32].

func (m *Proof) check() error { return nil }

func (m *Proof) encode(e msgWriter) msgWriter {
	e.b = append(e.b, m.MAC[:]...)
	return e
}

func (m *Proof) decode(d msgReader) msgReader {
	copy(m.MAC[:], d.take("mac", len(m.MAC)))
	return d
}

// Reinforce: frame u30 ‖ seats list of u8 (at least one).

func (m *Reinforce) check() error { return checkMsgSeats(m.Type(), m.Seats, 1) }

func (m *Reinforce) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.seats(m.Seats)
	return e
}

func (m *Reinforce) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Seats = d.seats()
	return d
}

// NewRound: frame u30 ‖ round u30 ‖ seed u64 ‖ seats list of u8.

func (m *NewRound) check() error {
	if m.Round < 2 {
		return msgErrorf(m.Type(), wire.ErrRange, "round %d, want 2 or more (the first round needs no message)", m.Round)
	}
	return checkMsgSeats(m.Type(), m.Seats, 0)
}

func (m *NewRound) encode(e msgWriter) msgWriter {
	e.u30("frame", m.Frame)
	e.u30("round", m.Round)
	e.u64(m.Seed)
	e.seats(m.Seats)
	return e
}

func (m *NewRound) decode(d msgReader) msgReader {
	m.Frame = d.u30("frame")
	m.Round = d.u30("round")
	m.Seed = d.u64("seed")
	m.Seats = d.seats()
	return d
}

// ClassLink: loss ‰ u30 ‖ burst ‰ u30 ‖ burst length u30 ‖ latency ms u30 ‖ jitter ms u30 ‖
// duplication ‰ u30.

func (m *ClassLink) check() error {
	t := m.Type()
	for _, f := range []struct {
		name     string
		v, limit uint32
	}{
		{"loss ‰", m.LossPermille, 10 * MaxLinkLossPercent},
		{"burst ‰", m.BurstPermille, 10 * MaxLinkBurstPercent},
		{"burst length", m.BurstLength, MaxLinkBurstLength},
		{"latency ms", m.LatencyMillis, uint32(MaxLinkLatency / time.Millisecond)},
		{"jitter ms", m.JitterMillis, uint32(MaxLinkJitter / time.Millisecond)},
		{"duplication ‰", m.DupPermille, 10 * MaxLinkDupPercent},
	} {
		if f.v > f.limit {
			return msgErrorf(t, wire.ErrRange, "%s %d, at most %d", f.name, f.v, f.limit)
		}
	}
	switch {
	case m.BurstPermille == 0 && m.BurstLength != 0:
		return msgErrorf(t, wire.ErrNonCanonical, "bursts of %d datagrams that never start, want 0", m.BurstLength)
	case m.BurstPermille != 0 && m.BurstLength == 0:
		return msgErrorf(t, wire.ErrRange, "bursts of no datagram, want 1 or more")
	}
	return nil
}

func (m *ClassLink) encode(e msgWriter) msgWriter {
	e.u30("loss", m.LossPermille)
	e.u30("burst", m.BurstPermille)
	e.u30("burst length", m.BurstLength)
	e.u30("latency", m.LatencyMillis)
	e.u30("jitter", m.JitterMillis)
	e.u30("duplication", m.DupPermille)
	return e
}

func (m *ClassLink) decode(d msgReader) msgReader {
	m.LossPermille = d.u30("loss")
	m.BurstPermille = d.u30("burst")
	m.BurstLength = d.u30("burst length")
	m.LatencyMillis = d.u30("latency")
	m.JitterMillis = d.u30("jitter")
	m.DupPermille = d.u30("duplication")
	return d
}

// Spectate: number u30 ‖ why u8 ‖ flags u8 (bit 0: chat off) ‖ refused u30 ‖ refused why u8.

const (
	msgSpectateChatOff  = 0x01
	msgSpectateReserved = 0xFE
)

func checkSpectatorNumber(t MsgType, n uint32) error {
	if n == 0 || n > MaxSpectators {
		return msgErrorf(t, wire.ErrRange, "spectator %d, want 1..%d", n, MaxSpectators)
	}
	return nil
}

func (m *Spectate) check() error {
	t := m.Type()
	if err := checkSpectatorNumber(t, m.Number); err != nil {
		return err
	}
	if m.Why != SpectateAsked && m.Why != SpectateSeatsFull {
		return msgErrorf(t, wire.ErrRange, "why %d, want %d or %d", m.Why, SpectateAsked, SpectateSeatsFull)
	}
	switch {
	case m.RefusedWhy > maxRefusedCause:
		return msgErrorf(t, wire.ErrRange, "refused why %d, want 0..%d", m.RefusedWhy, maxRefusedCause)
	case m.Refused == 0 && m.RefusedWhy != 0:
		return msgErrorf(t, wire.ErrNonCanonical, "why a line was refused when none was, want 0")
	case m.Refused != 0 && m.RefusedWhy == 0:
		return msgErrorf(t, wire.ErrRange, "%d lines refused for no reason", m.Refused)
	}
	return nil
}

func (m *Spectate) encode(e msgWriter) msgWriter {
	e.u30("number", m.Number)
	e.u8(m.Why)
	var flags uint8
	if m.ChatOff {
		flags |= msgSpectateChatOff
	}
	e.u8(flags)
	e.u30("refused", m.Refused)
	e.u8(m.RefusedWhy)
	return e
}

func (m *Spectate) decode(d msgReader) msgReader {
	m.Number = d.u30("number")
	m.Why = d.u8("why")
	flags := d.u8("flags")
	if flags&msgSpectateReserved != 0 {
		d.fail("flags", fmt.Errorf("reserved bits %#02x set: %w", flags&msgSpectateReserved, wire.ErrNonCanonical))
	}
	m.ChatOff = flags&msgSpectateChatOff != 0
	m.Refused = d.u30("refused")
	m.RefusedWhy = d.u8("refused why")
	return d
}

// SpectatorChat: spectator u30 ‖ name ‖ line u30 ‖ text.

func (m *SpectatorChat) check() error {
	t := m.Type()
	if err := checkSpectatorNumber(t, m.Spectator); err != nil {
		return err
	}
	if m.Name != "" {
		if err := wire.CheckName(m.Name); err != nil {
			return fmt.Errorf("game: %v: %w", t, err)
		}
	}
	return checkChatText(t, m.Text)
}

func (m *SpectatorChat) encode(e msgWriter) msgWriter {
	e.u30("spectator", m.Spectator)
	e.str("name", m.Name)
	e.u30("line", m.Line)
	e.str("text", m.Text)
	return e
}

func (m *SpectatorChat) decode(d msgReader) msgReader {
	m.Spectator = d.u30("spectator")
	m.Name = d.str("name", wire.MaxNameLen)
	m.Line = d.u30("line")
	m.Text = d.str("text", MaxChatLen)
	return d
}

// LinkLost: seat ‖ why u8 (1 quiet, 2 stalled, 3 ended).

func (m *LinkLost) check() error {
	if m.Why < LinkQuiet || m.Why > LinkEnded {
		return msgErrorf(m.Type(), wire.ErrRange, "why %d, want 1..3", m.Why)
	}
	return checkMsgSeat(m.Type(), "seat", m.Seat)
}

func (m *LinkLost) encode(e msgWriter) msgWriter {
	e.u8(m.Seat)
	e.u8(m.Why)
	return e
}

func (m *LinkLost) decode(d msgReader) msgReader {
	m.Seat = d.u8("seat")
	m.Why = d.u8("why")
	return d
}
