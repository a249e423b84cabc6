// Package int30 is the one family of variable-length integers of AckAttack: UInt30 and Int30.
// The network protocol (net/wire) writes its lengths with them, and the game's messages and
// the world's codec of units, attacks and state write every number with them, so every
// variable-length integer in a datagram, from a payload length to a unit's hit points, is one
// of these two, and every parse error is tested with the same errors.Is. It is a package of its
// own, below both, because the world must not depend on the network stack, nor the network
// stack on the game.
//
// Most numbers in a game are small (a unit id, a payload length), but a few are not. Spending
// 4 bytes on every one wastes bandwidth, so the first bits of the first byte say how long the
// number is. All integers are big-endian.
//
//	size     layout                               unsigned            signed (sign-magnitude)
//	1 byte   0ddddddd                             0..127              ±63
//	2 bytes  10dddddd dddddddd                    0..16,383           ±8,191
//	4 bytes  11dddddd dddddddd dddddddd dddddddd  0..1,073,741,823    ±536,870,911
//
// A signed value is sign-magnitude: the first data bit is the sign (1 = negative) and the
// other data bits hold the magnitude. That is why the ranges are symmetric. The shortest form
// that fits is the only valid one, and negative zero is rejected: one value, one encoding, so
// parsing and encoding again gives back the input (the fuzz targets check exactly that).
package int30
