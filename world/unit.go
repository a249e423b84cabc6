package world

import "github.com/ackattack/ackattack/internal/int30"

// Owners, frames and sizes.
const (
	// MaxPlayers is the number of player seats; a player unit's Owner is its seat, 0..7.
	MaxPlayers = 8
	// EnemyOwner is the Owner of the enemies the server spawns.
	EnemyOwner uint8 = 255
	// FramesPerSecond is the rate Step is meant to run at.
	FramesPerSecond = 10
	// CellSize is the number of sub-cell steps in a cell: positions of attacks
	// in flight and all speeds are counted in hundredths of a cell.
	CellSize = 100
	// Unit ids are split in two ranges so that the players' units, numbered
	// by the world, and the enemies, numbered by the server, never want the
	// same id: player units get 1..FirstEnemyID-1 in order, enemies
	// FirstEnemyID..MaxUnitID. Ids are never reused within a game. The
	// largest fits a UInt30 on the wire, and ids up to 16,383 take 2 bytes.
	FirstEnemyID = 10000
	MaxUnitID    = int30.MaxUInt30
	// MaxAttackID is the largest attack id. Attack ids are UInt30s on the
	// wire too, and one below the largest, so that the id after it, which a
	// State carries, is one as well. A world that has loosed that many attacks
	// (a thousand a second for twelve days) can no longer send its state.
	MaxAttackID = int30.MaxUInt30 - 1
)

// Order is what a player told a unit to do.
type Order uint8

// The orders. Enemies never have one: their behaviour is fixed.
const (
	OrderNone   Order = iota // idle: attack enemies in sight, else stand
	OrderMove                // walk to (TargetX, TargetY), ignoring enemies
	OrderAttack              // chase and attack unit TargetID until it dies
)

func (o Order) String() string {
	switch o {
	case OrderNone:
		return "none"
	case OrderMove:
		return "move"
	case OrderAttack:
		return "attack"
	}
	return "order?"
}

// Unit is one unit's whole state. Every field is part of the hash and the
// codec, because every field can change what the unit does next; nothing
// else about a unit is remembered between frames.
type Unit struct {
	ID    uint32 // players' 1..FirstEnemyID-1, enemies' FirstEnemyID..MaxUnitID; units are kept sorted by ID
	Owner uint8  // player seat 0..7, or EnemyOwner
	Kind  uint8  // index into Kinds()
	X, Y  int32  // cell
	HP    int32  // hit points; 0 only for a Dead enemy

	Order    Order
	TargetX  int32  // OrderMove: the cell to walk to; else 0
	TargetY  int32  //
	TargetID uint32 // the unit being attacked or hunted (also set by idle behaviour); 0 for none

	Cooldown     int32 // frames until the unit may attack again
	MoveProgress int32 // hundredths of a cell walked towards the next cell, 0..CellSize-1
	Dead         bool  // an enemy at 0 hp, waiting for Kill; it neither acts nor can be targeted
}

// IsEnemy reports whether the unit is one of the server's enemies.
func (u *Unit) IsEnemy() bool { return u.Owner == EnemyOwner }

// Attack is an attack in flight: a projectile that exists outside any cell
// ("an incorporeal object"). It is state like a unit: a re-sync that restored
// the units but forgot the arrows already loosed would change who dies next.
type Attack struct {
	ID     uint32 // assigned in firing order, never reused in a world; attacks are kept sorted by ID
	Owner  uint8  // the shooter's owner, kept for drawing
	From   uint32 // the shooter's unit id (the shooter may have died since)
	Target uint32 // the unit it homes on; if that unit is gone or Dead on arrival, the attack fizzles
	X, Y   int32  // position in hundredths of a cell; a cell's centre is x*CellSize+CellSize/2
	Damage int32  // rolled when fired
	Speed  int32  // hundredths of a cell per frame
}
