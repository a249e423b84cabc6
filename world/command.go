package world

import "fmt"

// CommandKind says what a command asks of its units.
type CommandKind uint8

// The commands a player can give.
const (
	CommandMove   CommandKind = iota + 1 // walk to (X, Y)
	CommandAttack                        // chase and attack unit Target
	CommandStop                          // drop the order and stand (idle units still fight what they see)
)

func (k CommandKind) String() string {
	switch k {
	case CommandMove:
		return "move"
	case CommandAttack:
		return "attack"
	case CommandStop:
		return "stop"
	}
	return "command?"
}

// MaxCommandUnits is the most units one command may name.
const MaxCommandUnits = 1024

// Command is a player's order to some of its units, as it travels between
// hosts and is applied at the same frame on each.
type Command struct {
	Player uint8 // the seat giving the order
	Kind   CommandKind
	Units  []uint32 // the units ordered; each must be the player's own
	X, Y   int32    // CommandMove: the destination cell
	Target uint32   // CommandAttack: the enemy to attack
}

// Apply validates cmd and, if it is valid, gives its units their new order.
//
// Every host runs the same checks on the same world, so every host accepts or
// rejects the same commands, and a rejected command changes nothing at all:
//
//   - the player must be a seat 0..7, the kind known, and 1..MaxCommandUnits units listed;
//   - a move's destination must be open ground inside the map;
//   - an attack's target must be a living enemy (not Dead);
//   - a listed unit that belongs to somebody else (another player, or the
//     enemies) rejects the whole command with ErrNotOwner: no honest client
//     sends one;
//   - a listed id that no unit has is skipped: the unit may have died
//     between the click and the frame the command runs at, which is no fault.
//     A command whose units have all died is valid and does nothing.
//
// A unit listed twice is ordered once.
func (w *World) Apply(cmd Command) error {
	if cmd.Player >= MaxPlayers {
		return fmt.Errorf("world: command from player %d: %w", cmd.Player, ErrBadCommand)
	}
	if n := len(cmd.Units); n == 0 || n > MaxCommandUnits {
		return fmt.Errorf("world: %v command with %d units: %w", cmd.Kind, n, ErrBadCommand)
	}
	switch cmd.Kind {
	case CommandMove:
		if !w.lv.walkable(cmd.X, cmd.Y) {
			return fmt.Errorf("world: move to (%d,%d): %w", cmd.X, cmd.Y, ErrBlocked)
		}
	case CommandAttack:
		i := w.slot(cmd.Target)
		if i < 0 {
			return fmt.Errorf("world: attack %d: %w", cmd.Target, ErrBadTarget)
		}
		if t := &w.units[i]; !t.IsEnemy() || t.Dead {
			return fmt.Errorf("world: attack %d, not a living enemy: %w", cmd.Target, ErrBadTarget)
		}
	case CommandStop:
	default:
		return fmt.Errorf("world: command kind %d: %w", cmd.Kind, ErrBadCommand)
	}
	for _, id := range cmd.Units {
		if i := w.slot(id); i >= 0 && w.units[i].Owner != cmd.Player {
			return fmt.Errorf("world: player %d commands unit %d of owner %d: %w", cmd.Player, id, w.units[i].Owner, ErrNotOwner)
		}
	}
	for _, id := range cmd.Units {
		i := w.slot(id)
		if i < 0 {
			continue
		}
		u := &w.units[i]
		switch cmd.Kind {
		case CommandMove:
			u.Order, u.TargetX, u.TargetY, u.TargetID = OrderMove, cmd.X, cmd.Y, 0
		case CommandAttack:
			u.Order, u.TargetX, u.TargetY, u.TargetID = OrderAttack, 0, 0, cmd.Target
		case CommandStop:
			u.Order, u.TargetX, u.TargetY, u.TargetID, u.MoveProgress = OrderNone, 0, 0, 0, 0
		}
	}
	return nil
}
