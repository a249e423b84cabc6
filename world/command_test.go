package world

import (
	"errors"
	"slices"
	"testing"
)

func TestApplyValidation(t *testing.T) {
	base := tinyWorld(t,
		"1...~...",
		"....~...",
		"........",
	)
	player(t, base, 1, 0, "soldier", 0, 0)
	player(t, base, 2, 0, "archer", 1, 0)
	player(t, base, 3, 1, "soldier", 0, 2)
	enemy(t, base, FirstEnemyID, "goblin", 7, 2)
	dead := Unit{ID: FirstEnemyID + 1, Owner: EnemyOwner, Kind: kindID(t, "goblin"), X: 7, Y: 0, Dead: true}
	if err := base.SetUnit(dead); err != nil {
		t.Fatal(err)
	}

	type order struct {
		Order   Order
		X, Y    int32
		Target  uint32
		Changed bool
	}
	for _, c := range []struct {
		name string
		cmd  Command
		want error
		// The orders units 1, 2 and 3 have after a successful command.
		orders [3]order
	}{
		{
			name:   "move",
			cmd:    Command{Player: 0, Kind: CommandMove, Units: []uint32{1, 2}, X: 6, Y: 1},
			orders: [3]order{{OrderMove, 6, 1, 0, true}, {OrderMove, 6, 1, 0, true}, {}},
		},
		{
			name:   "attack",
			cmd:    Command{Player: 0, Kind: CommandAttack, Units: []uint32{2}, Target: FirstEnemyID},
			orders: [3]order{{}, {OrderAttack, 0, 0, FirstEnemyID, true}, {}},
		},
		{
			name:   "stop",
			cmd:    Command{Player: 1, Kind: CommandStop, Units: []uint32{3}},
			orders: [3]order{{}, {}, {OrderNone, 0, 0, 0, true}},
		},
		{
			name:   "dead or unknown units are skipped",
			cmd:    Command{Player: 0, Kind: CommandMove, Units: []uint32{9, 1, 1, 77}, X: 2, Y: 2},
			orders: [3]order{{OrderMove, 2, 2, 0, true}, {}, {}},
		},
		{
			name: "every unit gone: valid, nothing to do",
			cmd:  Command{Player: 0, Kind: CommandStop, Units: []uint32{9}},
		},
		{name: "another player's unit", cmd: Command{Player: 0, Kind: CommandMove, Units: []uint32{1, 3}, X: 2, Y: 2}, want: ErrNotOwner},
		{name: "an enemy", cmd: Command{Player: 0, Kind: CommandStop, Units: []uint32{1, FirstEnemyID}}, want: ErrNotOwner},
		{name: "player out of range", cmd: Command{Player: MaxPlayers, Kind: CommandStop, Units: []uint32{1}}, want: ErrBadCommand},
		{name: "enemy owner as player", cmd: Command{Player: EnemyOwner, Kind: CommandStop, Units: []uint32{FirstEnemyID}}, want: ErrBadCommand},
		{name: "unknown kind", cmd: Command{Player: 0, Kind: 0, Units: []uint32{1}}, want: ErrBadCommand},
		{name: "kind 4", cmd: Command{Player: 0, Kind: 4, Units: []uint32{1}}, want: ErrBadCommand},
		{name: "no units", cmd: Command{Player: 0, Kind: CommandStop}, want: ErrBadCommand},
		{name: "too many units", cmd: Command{Player: 0, Kind: CommandStop, Units: make([]uint32, MaxCommandUnits+1)}, want: ErrBadCommand},
		{name: "move into water", cmd: Command{Player: 0, Kind: CommandMove, Units: []uint32{1}, X: 4, Y: 0}, want: ErrBlocked},
		{name: "move outside", cmd: Command{Player: 0, Kind: CommandMove, Units: []uint32{1}, X: 8, Y: 0}, want: ErrBlocked},
		{name: "move to negative", cmd: Command{Player: 0, Kind: CommandMove, Units: []uint32{1}, X: -1, Y: 0}, want: ErrBlocked},
		{name: "attack nothing", cmd: Command{Player: 0, Kind: CommandAttack, Units: []uint32{1}, Target: 0}, want: ErrBadTarget},
		{name: "attack unknown", cmd: Command{Player: 0, Kind: CommandAttack, Units: []uint32{1}, Target: 12345}, want: ErrBadTarget},
		{name: "attack a player", cmd: Command{Player: 0, Kind: CommandAttack, Units: []uint32{1}, Target: 3}, want: ErrBadTarget},
		{name: "attack a dead enemy", cmd: Command{Player: 0, Kind: CommandAttack, Units: []uint32{1}, Target: FirstEnemyID + 1}, want: ErrBadTarget},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := base.Clone()
			before := slices.Clone(w.Units())
			err := w.Apply(c.cmd)
			if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
				t.Fatalf("Apply = %v, want %v", err, c.want)
			}
			if err != nil {
				if !slices.Equal(w.Units(), before) {
					t.Errorf("a rejected command changed the world")
				}
				return
			}
			for i, o := range c.orders {
				u := mustUnit(t, w, uint32(i+1))
				if !o.Changed {
					if u != before[i] {
						t.Errorf("unit %d changed: %+v", i+1, u)
					}
					continue
				}
				if u.Order != o.Order || u.TargetX != o.X || u.TargetY != o.Y || u.TargetID != o.Target {
					t.Errorf("unit %d: order %v (%d,%d) target %d, want %v (%d,%d) target %d",
						i+1, u.Order, u.TargetX, u.TargetY, u.TargetID, o.Order, o.X, o.Y, o.Target)
				}
			}
		})
	}
}
