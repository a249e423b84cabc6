package game

import (
	"bytes"
	"fmt"
	"net/netip"
	"unicode"
	"unicode/utf8"

	"github.com/ackattack/ackattack/internal/int30"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// The field stream walks a message's fields once, in order, and its mode decides what each
// field does: writing appends the field's bytes, reading takes them from the input and sets
// the field, measuring counts them. A message type declares its fields in one method,
//
//	// Chat: seat ‖ line u30 ‖ text.
//	func (m *Chat) fields(s fieldStream) fieldStream {
//		s.seat("seat", &m.Seat)
//		s.u30("line", &m.Line)
//		s.chatText("text", &m.Text)
//		return s
//	}
//
// and that method is its encoder, its decoder and its size, which cannot disagree. A rule of
// one field (a seat is 0..7, a chat line holds no control character) is part of the call that
// declares the field, checked on the value a sender is about to write and on the value a
// receiver has just read: both refuse the same values with the same error. The few rules that
// tie two fields together come last in fields, and are refused the same way. The stream travels
// by value, in and out of fields: a pointer passed through an interface method escapes to the
// heap, one allocation per message for nothing.

// streamMode is what a fieldStream does with each field.
type streamMode uint8

const (
	writing   streamMode = iota // append each field to b
	reading                     // read each field from b[n:] into the message
	measuring                   // add each field's size to n
)

// fieldStream walks the fields of one message of type t.
//
// It keeps the first error of each of two kinds. err is about bytes: reading, the input ends
// early, a count exceeds its bound or the bytes left, a value is not in its one encoding;
// writing, a value has no encoding (a u30 above int30.MaxUInt30). Reading stops at err.
// broken is about rules: a value with an encoding that no sender may send. Reading goes on
// past it, so that a message both cut short and out of range is reported as cut short.
type fieldStream struct {
	mode   streamMode
	t      MsgType
	b      []byte // writing: the message so far; reading: the whole message; measuring: scratch
	n      int    // reading: the bytes read; measuring: the bytes counted
	err    error
	broken error
}

// verdict is the stream's first error, in the order a reader meets them: reading, an error of
// the bytes before a broken rule; writing or measuring, a broken rule first, as a sender checks
// a message before it writes it.
func (s *fieldStream) verdict() error {
	if s.broken != nil && (s.mode != reading || s.err == nil) {
		return s.broken
	}
	return s.err
}

// fail records the first error of the bytes.
func (s *fieldStream) fail(field string, err error) {
	if s.err == nil {
		s.err = fmt.Errorf("game: %v: %s: %w", s.t, field, err)
	}
}

// refuse records the first broken rule. Test the rule before calling it: the arguments of a
// call are boxed whether or not it fails.
func (s *fieldStream) refuse(field string, sentinel error, format string, args ...any) {
	if s.broken == nil {
		s.broken = fmt.Errorf("game: %v: %s: %s: %w", s.t, field, fmt.Sprintf(format, args...), sentinel)
	}
}

// take returns the next k bytes of the input (aliasing it), or nil once anything failed.
func (s *fieldStream) take(field string, k int) []byte {
	if left := len(s.b) - s.n; s.err == nil && left < k {
		s.fail(field, fmt.Errorf("need %d bytes, have %d: %w", k, left, wire.ErrShort))
	}
	if s.err != nil {
		return nil
	}
	s.n += k
	return s.b[s.n-k : s.n]
}

// raw declares len(p) bytes as they are: a key, a nonce, a player id. Reading, it fills p and
// reports true.
func (s *fieldStream) raw(field string, p []byte) bool {
	switch s.mode {
	case writing:
		s.b = append(s.b, p...)
	case measuring:
		s.n += len(p)
	case reading:
		if q := s.take(field, len(p)); q != nil {
			copy(p, q)
			return true
		}
	}
	return false
}

// u8 declares one byte.
func (s *fieldStream) u8(field string, v *uint8) {
	switch s.mode {
	case writing:
		s.b = append(s.b, *v)
	case measuring:
		s.n++
	case reading:
		if p := s.take(field, 1); p != nil {
			*v = p[0]
		}
	}
}

// bigEndian declares an integer of size bytes, most significant first; a signed one as its
// two's complement.
func bigEndian[T uint16 | uint32 | uint64 | int64](s *fieldStream, field string, v *T, size int) {
	var p [8]byte
	for i := range size {
		p[i] = byte(uint64(*v) >> (8 * (size - 1 - i)))
	}
	if s.raw(field, p[:size]) {
		var x uint64
		for _, c := range p[:size] {
			x = x<<8 | uint64(c)
		}
		*v = T(x)
	}
}

// u16, u32, u64 and i64 declare integers of 2, 4 and 8 bytes.
func (s *fieldStream) u16(field string, v *uint16) { bigEndian(s, field, v, 2) }
func (s *fieldStream) u32(field string, v *uint32) { bigEndian(s, field, v, 4) }
func (s *fieldStream) u64(field string, v *uint64) { bigEndian(s, field, v, 8) }
func (s *fieldStream) i64(field string, v *int64)  { bigEndian(s, field, v, 8) }

// int30Codec is one of internal/int30's integers, which take 1, 2 or 4 bytes.
type int30Codec[T uint32 | int32] struct {
	append func([]byte, T) ([]byte, error)
	size   func(T) int
	parse  func([]byte) (T, int, error)
}

var (
	unsigned30 = int30Codec[uint32]{int30.AppendUInt30, int30.SizeUInt30, int30.ParseUInt30}
	signed30   = int30Codec[int32]{int30.AppendInt30, int30.SizeInt30, int30.ParseInt30}
)

// u30 declares a UInt30 (ids, frames, counts, durations), i30 an Int30 (cells).
func (s *fieldStream) u30(field string, v *uint32) { unsigned30.field(s, field, v) }
func (s *fieldStream) i30(field string, v *int32)  { signed30.field(s, field, v) }

// field declares one integer of c's kind, in its shortest form.
func (c *int30Codec[T]) field(s *fieldStream, field string, v *T) {
	var err error
	switch {
	case s.mode == writing:
		s.b, err = c.append(s.b, *v)
	case s.mode == measuring:
		if k := c.size(*v); k > 0 {
			s.n += k
		} else { // too large: append says so
			_, err = c.append(nil, *v)
		}
	case s.err == nil: // reading
		var k int
		*v, k, err = c.parse(s.b[s.n:])
		s.n += k
	}
	if err != nil {
		s.fail(field, err)
	}
}

// within refuses v outside lo..hi.
func within[T uint8 | uint32](s *fieldStream, field string, v, lo, hi T) {
	if v < lo || v > hi {
		s.refuse(field, wire.ErrRange, "%d, want %d..%d", v, lo, hi)
	}
}

// u8In declares a u8 of lo..hi, u30In a u30, seat a player's seat: a u8, 0..7.
func (s *fieldStream) u8In(field string, v *uint8, lo, hi uint8) {
	s.u8(field, v)
	within(s, field, *v, lo, hi)
}
func (s *fieldStream) u30In(field string, v *uint32, lo, hi uint32) {
	s.u30(field, v)
	within(s, field, *v, lo, hi)
}
func (s *fieldStream) seat(field string, v *uint8) { s.u8In(field, v, 0, world.MaxPlayers-1) }

// ascending refuses a key of a set's element not above prev, the key of the element before:
// a set has one order, so it has one encoding.
func (s *fieldStream) ascending(field string, key, prev uint32) {
	if key <= prev {
		s.refuse(field, wire.ErrNonCanonical, "%d after %d, want strictly ascending", key, prev)
	}
}

// flags declares a u8 of flag bits: bit i is *bits[i], the bits above are reserved and zero.
func (s *fieldStream) flags(field string, bits ...*bool) {
	var v uint8
	for i, b := range bits {
		if *b {
			v |= 1 << i
		}
	}
	if s.u8(field, &v); s.mode != reading || s.err != nil {
		return
	}
	if reserved := v &^ (1<<len(bits) - 1); reserved != 0 {
		s.fail(field, fmt.Errorf("reserved bits %#02x set: %w", reserved, wire.ErrNonCanonical))
	}
	for i, b := range bits {
		*b = v&(1<<i) != 0
	}
}

// optionalFlags declares a u8 of flag bits, as flags, that may end a message, left out when
// every bit is clear, so that a message without it has the bytes of the message's older form,
// from before the flags were added. Reading, no bytes left means every bit clear, and a byte
// of 0 (a second spelling of no flags) is refused.
func (s *fieldStream) optionalFlags(field string, bits ...*bool) {
	set := false
	for _, b := range bits {
		set = set || *b
	}
	if s.mode == reading && s.n == len(s.b) || s.mode != reading && !set {
		return
	}
	s.flags(field, bits...)
	if s.mode != reading || s.err != nil {
		return
	}
	for _, b := range bits {
		if *b {
			return
		}
	}
	s.fail(field, fmt.Errorf("no flag set: left out, not sent as 0: %w", wire.ErrNonCanonical))
}

// count declares the length of a list or a string, a u30: have, for writing or measuring. Fewer
// than least, or more than most, breaks the field's rule. Reading, more than most, or more
// elements of minSize bytes than there are bytes left, is an error of the bytes, found before
// anything is allocated.
func (s *fieldStream) count(field string, have, least, most, minSize int) int {
	c := uint32(min(have, anyCount+1))
	if s.mode != reading && have > most {
		s.refuse(field, wire.ErrTooLong, "%d, at most %d", have, most)
	}
	s.u30(field, &c)
	switch left := len(s.b) - s.n; {
	case s.mode != reading || s.err != nil:
	case int64(c) > int64(most):
		s.fail(field, fmt.Errorf("%d, at most %d: %w", c, most, wire.ErrTooLong))
	case int64(c)*int64(minSize) > int64(left):
		s.fail(field, fmt.Errorf("%d of at least %d bytes, %d bytes left: %w", c, minSize, left, wire.ErrShort))
	}
	if s.mode == reading && s.err != nil {
		return 0
	}
	if int(c) < least {
		s.refuse(field, wire.ErrRange, "%d, at least %d", c, least)
	}
	return int(c)
}

// The most elements of a list without a bound of its own: what a u30 count can say.
const anyCount = int30.MaxUInt30

// text declares a string of min..max bytes: a u30 length, then valid UTF-8 without control
// characters. Names and chat end up on other players' screens and in logs, where an escape
// sequence or a line break could pass one player off as another or forge a line.
func (s *fieldStream) text(field string, v *string, min, max int) {
	switch counted(s, field, v, max); {
	case len(*v) < min:
		s.refuse(field, wire.ErrBadName, "%d bytes, at least %d", len(*v), min)
	case !utf8.ValidString(*v):
		s.refuse(field, wire.ErrBadName, "not valid UTF-8")
	}
	for i, r := range *v {
		if unicode.IsControl(r) {
			s.refuse(field, wire.ErrBadName, "control character %U at byte %d", r, i)
		}
	}
}

// chatText declares a chat line, a player's or a spectator's: text of 0..MaxChatLen bytes,
// without a direction control either (U+202E and its kin), which could make the rest of the
// screen read backwards, or pass off one player's words as another's.
func (s *fieldStream) chatText(field string, v *string) {
	s.text(field, v, 0, MaxChatLen)
	for i, r := range *v {
		if isDirectionControl(r) {
			s.refuse(field, wire.ErrBadName, "direction control %U at byte %d", r, i)
		}
	}
}

// elems declares the elements of a list: the fewest bytes one takes, which bounds a count by
// the bytes left, and the fields of each, in a loop over the list (one call per list, not per
// element: the stream is copied in and out of each call), whose rules may compare list[i] with
// list[i-1].
type elems[T any] struct {
	minSize int
	fields  func(s fieldStream, field string, list []T) fieldStream
}

// list declares a list of least..most elements: a u30 count, then the elements. A list read
// empty is nil. It is a function, s = list(s, …), where the other fields are methods: a Go
// method cannot have type parameters of its own.
func list[T any](s fieldStream, field string, l *[]T, least, most int, e elems[T]) fieldStream {
	if makeList(&s, field, l, least, most, e.minSize); len(*l) > 0 {
		s = e.fields(s, field, *l)
	}
	return s
}

// makeList declares the count of a list and, reading, makes the list.
func makeList[T any](s *fieldStream, field string, l *[]T, least, most, minSize int) {
	if n := s.count(field, len(*l), least, most, minSize); s.mode == reading && n > 0 {
		*l = make([]T, n)
	}
}

// ids declares a list of least..most unit ids, u30s: list's idea, without the copies of the
// stream in and out of an element function, for the list in every Command.
func (s *fieldStream) ids(field string, l *[]uint32, least, most int) {
	makeList(s, field, l, least, most, 1)
	for i := range *l {
		s.u30(field, &(*l)[i])
	}
}

// optionalList declares a list that may end a message, left out when empty, so that a message
// without it has the bytes of the message's older form, from before the list was added.
// Reading, no bytes left means no list, and a count of 0 (a second spelling of no list) is
// refused.
func optionalList[T any](s fieldStream, field string, l *[]T, most int, e elems[T]) fieldStream {
	if s.leftOut(len(*l) == 0) {
		return s
	}
	if s = list(s, field, l, 0, most, e); s.mode == reading && s.err == nil && *l == nil {
		s.fail(field, fmt.Errorf("an empty list is left out, not sent with a count of 0: %w", wire.ErrNonCanonical))
	}
	return s
}

// leftOut reports whether an optional field that may end a message is left out: reading, no
// bytes are left; writing or measuring, the field is empty.
func (s *fieldStream) leftOut(empty bool) bool {
	if s.mode == reading {
		return s.n == len(s.b)
	}
	return empty
}

// worldElems declares the elements of a list of units or attacks in world's codec, whose
// Append refuses, before it writes a byte, a value the receiver would refuse or read back as
// another: a sender's bug fails on the sender.
func worldElems[T any](minSize int, appendOne func([]byte, *T) ([]byte, error), parseOne func([]byte) (T, int, error)) elems[T] {
	return elems[T]{minSize, func(s fieldStream, field string, l []T) fieldStream {
		for i := range l {
			var err error
			switch at := len(s.b); {
			case s.mode == writing:
				s.b, err = appendOne(s.b, &l[i])
			case s.mode == measuring: // in the scratch space
				var b []byte
				b, err = appendOne(s.b, &l[i])
				s.n, s.b = s.n+len(b)-at, b[:at]
			case s.err == nil: // reading
				var k int
				l[i], k, err = parseOne(s.b[s.n:])
				s.n += k
			}
			if err != nil {
				s.fail(fmt.Sprintf("%s[%d]", field, i), err)
			}
		}
		return s
	}}
}

// idRange declares the ids start..end: two u30s, the end not below the start.
func (s *fieldStream) idRange(field string, i int, start, end *uint32) {
	s.u30(field, start)
	if s.u30(field, end); *start > *end {
		s.refuse(field, wire.ErrRange, "[%d] starts at %d after its end %d", i, *start, *end)
	}
}

// addrPort declares where a peer is: family u8 (4 or 6) ‖ address (4 or 16 bytes) ‖ port u16.
// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is an IPv6 address to netip, and goes as one, so
// it comes back exactly as it was. An address that is neither, or has a zone, has no encoding.
func (s *fieldStream) addrPort(field string, ap *netip.AddrPort) {
	a, port, family, ip := ap.Addr(), ap.Port(), uint8(6), ap.Addr().As16() // an IPv4 one as ::ffff:a.b.c.d
	if s.mode != reading && (!a.IsValid() || a.Zone() != "") {
		s.fail(field, fmt.Errorf("%v, want an IPv4 or IPv6 address without a zone: %w", *ap, wire.ErrRange))
		return
	}
	if s.mode != reading && a.Is4() {
		family = 4
	}
	switch s.u8("address family", &family); family {
	case 4:
		if s.raw(field, ip[12:]) {
			a = netip.AddrFrom4([4]byte(ip[12:]))
		}
	case 6:
		if s.raw(field, ip[:]) {
			a = netip.AddrFrom16(ip)
		}
	default:
		s.fail("address family", fmt.Errorf("%d, want 4 or 6: %w", family, wire.ErrRange))
	}
	if s.u16("port", &port); s.mode == reading {
		*ap = netip.AddrPortFrom(a, port)
	}
}

// counted declares a u30 length n, at most most, and n bytes: a string's or a state's. Reading,
// it sets *v to the bytes read, which alias the input if *v is a []byte.
func counted[T string | []byte](s *fieldStream, field string, v *T, most int) {
	switch n := s.count(field, len(*v), 0, most, 1); s.mode {
	case writing:
		s.b = append(s.b, *v...)
	case measuring:
		s.n += n
	case reading:
		*v = T(s.take(field, n))
	}
}

// worldBytes declares a world's state in world's codec, exactly one value that parse reads (a
// State of World.AppendState, a CoreState of World.AppendCoreState): a u30 length and its
// bytes, at most maxStateLen. A message sends a state only when it has one: a length of 0 is
// a second spelling of no state.
func worldBytes[T any](s *fieldStream, field string, v *[]byte, parse func([]byte) (T, int, error)) {
	if counted(s, field, v, maxStateLen); s.mode == reading {
		if s.err == nil && len(*v) == 0 {
			s.fail(field, fmt.Errorf("a length of 0: no state is left out: %w", wire.ErrNonCanonical))
		}
		*v = bytes.Clone(*v) // a parsed message does not alias its input
	}
	if _, k, err := parse(*v); err != nil || k != len(*v) {
		s.fail(field, fmt.Errorf("not one %s (%v): %w", field, err, wire.ErrRange))
	}
}

// maxStateLen bounds the world state a ResyncBatch or a UnitUpdate carries, in bytes.
const maxStateLen = 1 << 24
