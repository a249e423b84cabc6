package world

import "errors"

// Errors returned by the world, wrapped with detail; test with errors.Is.
var (
	ErrUnknownMap   = errors.New("unknown map")
	ErrUnknownKind  = errors.New("unknown unit kind")
	ErrUnknownUnit  = errors.New("unknown unit")
	ErrIDInUse      = errors.New("unit id in use")
	ErrBadID        = errors.New("bad unit id")
	ErrNotEnemy     = errors.New("not an enemy")
	ErrNotOwner     = errors.New("unit belongs to another owner")
	ErrBlocked      = errors.New("cell is not open ground inside the map")
	ErrNoSpawn      = errors.New("no spawn point for this seat")
	ErrBadCommand   = errors.New("bad command")
	ErrBadTarget    = errors.New("bad target")
	ErrBadUnit      = errors.New("inconsistent unit")
	ErrBadAttack    = errors.New("inconsistent attack")
	ErrShort        = errors.New("input ends early")
	ErrNonCanonical = errors.New("not the canonical encoding")
	ErrRange        = errors.New("value out of range")
	ErrTooLong      = errors.New("list too long")
)
