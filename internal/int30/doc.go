// Package int30 is the one family of variable-length integers of AckAttack, UInt30 and Int30:
// 1, 2 or 4 bytes, the first two bits of the first byte saying how long (the table is beside
// the constants in int30.go; net/PROTOCOL.md, section 1, has it with examples). The network
// protocol (net/wire) writes its lengths with them, and the game's messages and the world's
// codec of units, attacks and state write every number with them, so every variable-length
// integer in a datagram, from a payload length to a unit's hit points, is one of these two,
// and every parse error is tested with the same errors.Is. It is a package of its own, below
// both, because the world must not depend on the network stack, nor the network stack on the
// game. IDEAS.md: UInt30 and Int30.
//
// # The map
//
//	int30.go  AppendUInt30, ParseUInt30, SizeUInt30, MaxUInt30; AppendInt30, ParseInt30,
//	          SizeInt30, MaxInt30; the errors ErrShort, ErrRange, ErrNonCanonical, ErrTooLong
//
// # Usage
//
//	b, err := int30.AppendUInt30(b, 1000) // 83 e8
//	v, n, err := int30.ParseUInt30(b)     // 1000, 2
//	b, err = int30.AppendInt30(b, -64)    // a0 40
//
// # Rules
//
//   - One value, one encoding: the shortest form that fits is the only valid one, and a
//     longer form or a negative zero is ErrNonCanonical. Parse then append gives the input.
//   - A value out of range is an error, and nothing is written.
//   - Every error wraps exactly one of the four sentinels, which net/wire's errors are.
package int30
