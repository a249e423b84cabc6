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
// integers are internal/int30's, the same as the network protocol's, and so
// are its errors (int30.ErrShort, int30.ErrRange, int30.ErrNonCanonical, int30.ErrTooLong; ApplyState's range
// checks use int30.ErrRange too), so a caller tests a unit inside a game
// message with the same errors.Is as the message.
