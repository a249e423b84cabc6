package world

import "errors"

// Errors returned by the world, wrapped with detail; test with errors.Is.
var (
	ErrUnknownMap  = errors.New("unknown map")
	ErrUnknownKind = errors.New("unknown unit kind")
	ErrUnknownUnit = errors.New("unknown unit")
	ErrIDInUse     = errors.New("unit id in use")
	ErrBadID       = errors.New("bad unit id")
	ErrNotEnemy    = errors.New("not an enemy")
	ErrNotOwner    = errors.New("unit belongs to another owner")
	ErrBlocked     = errors.New("cell is not open ground inside the map")
	ErrNoSpawn     = errors.New("no spawn point for this seat")
	ErrBadCommand  = errors.New("bad command")
	ErrBadTarget   = errors.New("bad target")
	ErrBadUnit     = errors.New("inconsistent unit")
	ErrBadAttack   = errors.New("inconsistent attack")
)

// The codec (AppendUnit, ParseUnit, …) has no sentinels of its own: its
// integers are net/wire's, and so are its errors (wire.ErrShort,
// wire.ErrRange, wire.ErrNonCanonical, wire.ErrTooLong; ApplyState's range
// checks use wire.ErrRange too), so a caller tests a unit inside a game
// message with the same errors.Is as the message.
