// Package world is the deterministic simulation of AckAttack: the grid map, units, enemies,
// attacks in flight, Step, the unit hashes and the codec that re-sync sends units and state
// with. Every host runs the same world from the same start with the same commands and must end
// with the same bits (lockstep: World says what that asks of a simulation). The world knows
// nothing of the network; package game feeds it the commands and events scheduled for each
// frame and compares its hashes. IDEAS.md: lockstep with a command lead time, late events (the
// classic lockstep fast-forward), grouped unit hashes and the state hash, real-time re-sync
// (the core state), stop-the-world re-sync (the state).
//
// # The map
//
//	world.go        World: NewWorld, AddPlayerUnits (a starting squad: the next ids, in
//	                StartingSquad's order), SpawnEnemy, Kill, SetUnit, RemoveUnit,
//	                SetAttacks, Reset (a new round), Clone, CopyFrom; the lockstep rules
//	step.go         Step: one frame, in a fixed order; the one random number per step;
//	                actPlayer and actEnemy, what units do
//	command.go      Command and Apply: an order checked the same way on every host
//	fastforward.go  FastForward: the classic lockstep fast-forward of a late command's units
//	hash.go         Unit.Hash and Attack.Hash (FNV-1a and a finalizer), World.Hash,
//	                World.StateHash (the world but its units and frame); the grouped unit
//	                hashes: GroupHash, GroupHashes, GroupUnitHashesIn, RangeHash, UnitHashes
//	codec.go        AppendUnit, ParseUnit, AppendAttack, ParseAttack, AppendState, ParseState,
//	                ApplyState, and CoreState (counters, generator, attacks: AppendCoreState,
//	                ParseCoreState, ApplyCoreState): the re-sync codec, in the protocol's
//	                UInt30 and Int30
//	unit.go         Unit, Attack, Order; the id ranges (FirstEnemyID, MaxUnitID), MaxPlayers,
//	                CellSize
//	kinds.go        Kind, the unit table from assets; StartingSquad
//	level.go        the map prepared for the rules: terrain, spawn points, connected areas
//	path.go         path finding: a breadth-first search backwards from the goal, shared by
//	                every unit with that goal; a unit stores no path
//	spatial.go      the spatial index: "the nearest enemy within 8 cells" looks at nearby cells
//	errors.go       the sentinel errors
//
// # Usage
//
// A host builds the world, gives each seat its squad, and every frame applies that frame's
// commands and events, then steps (example_test.go runs two hosts and repairs a drift):
//
//	w, err := world.NewWorld("skirmish", seed)
//	ids, err := w.AddPlayerUnits(0) // 1..5
//	...
//	for each frame:
//		// while w.Frame() == F: the events scheduled for F, in one order on every host
//		err := w.Apply(world.Command{Player: 0, Kind: world.CommandMove, Units: ids, X: 20, Y: 10})
//		w.Step()
//		h := w.Hash() // equal on every host that had the same calls
//
//	// Finding and repairing a drift:
//	root := w.RangeHash(1, world.MaxUnitID)   // a client's report, with w.StateHash()
//	if server.RangeHash(1, world.MaxUnitID) != root { ... drill into ranges, UnitHashes ... }
//	b, err := world.AppendUnit(nil, &u)       // the server sends the unit; the client:
//	u, n, err := world.ParseUnit(b); err = w.SetUnit(u)
//	b, err = server.AppendCoreState(nil)      // a state hash differed: the server's state
//	s, _, err := world.ParseCoreState(b); err = w.ApplyCoreState(s)
//
// # Rules
//
//   - Determinism: integers only, units and attacks in id order, no range over a Go map,
//     one seeded generator with one number per step, decisions from the start of the step,
//     caches outside the state. A test type-checks the package for map ranges.
//   - Frame counts the steps taken: the commands and events for frame F are applied while
//     Frame() == F, then Step moves the world to F+1. Reset (a new round) empties the world
//     and seeds it again, but the frames go on.
//   - Player units have ids 1..FirstEnemyID-1, numbered by AddPlayerUnits in order; enemies
//     FirstEnemyID and up, numbered by the server. Ids are never reused within a round.
//   - Apply checks a command against the world it is applied to, the same on every host: a
//     command for another seat's units (or an enemy) is refused whole (ErrNotOwner) and
//     changes nothing; an id no unit has is skipped.
//   - Only the server's Kill removes an enemy: an enemy at 0 hp stays Dead until then.
//   - Every Append… checks its value before it writes; Parse… never panics; one value, one
//     encoding. SetUnit, ApplyState and ApplyCoreState check what they put in place against
//     the world's rules.
//   - A World is not safe for concurrent use; Clone gives a copy that shares nothing mutable.
package world
