// Package world is the deterministic simulation of AckAttack: the grid map, units, enemies,
// attacks in flight, Step, unit hashes and the unit codec used by re-sync.
//
// Every host runs the same world from the same start with the same commands and must end with
// the same bits, so the rules here are strict: integer state only, units kept in a slice
// ordered by id, no iteration over Go maps inside Step, one seeded math/rand/v2 generator per
// world, hashes over a canonical byte encoding. The world knows nothing of the network; the
// game package feeds it commands scheduled for a frame.
//
// # Lockstep, and what it asks of a simulation
//
// Only commands travel between hosts, never positions: a move order is a few
// bytes, the positions of a few hundred units many kilobytes every frame.
// That works only if the same commands, applied at the same frames, give the
// same world everywhere, bit for bit, forever. The slightest difference (one
// unit a cell to the left) grows: the unit is attacked by a different enemy,
// which then lives longer, which kills something else. So every rule below
// exists to make "the same input gives the same output" true by construction:
//
//   - Integers only. Floating-point results can differ with the compiler's
//     choices (fused multiply-add, reordered sums) and between CPUs; integers
//     cannot. Positions are cells; attacks in flight and speeds count
//     hundredths of a cell (CellSize); distances are Chebyshev (the larger of
//     the horizontal and vertical distance) or squared Euclidean, and the one
//     square root (for projectiles) is an exact integer one.
//   - Order is explicit. Units live in a slice sorted by id, attacks in a
//     slice sorted by id, and everything that loops does so in that order. A
//     range over a Go map visits keys in a random order that changes from run
//     to run, so the package never ranges over a map (a test type-checks the
//     source and fails if it does); the one map it has, a cache, is only
//     looked up and deleted from.
//   - One random generator per world, seeded at NewWorld and part of the
//     hashed state. It gives exactly one number per step, whatever the units
//     do, and each damage roll mixes that number with the attacker's id. So
//     one unit doing something different changes no other unit's luck (see
//     Step for why that matters to re-sync).
//   - Decisions see the start of the step. Every unit decides from where
//     everybody stood when the step began, and damage lands at its end, so
//     processing unit 3 before unit 7 gives neither an advantage.
//   - Caches are not state. Path searches and the spatial index are rebuilt
//     from the state or depend only on the map, so a clone, a re-synced world
//     or a world on another machine computes the same answers without them.
//
// # The map and walking
//
// A map (from the assets package) is a grid of open ground, walls and water.
// Walkers step to any of the 8 neighbouring cells, diagonals included and
// costing the same (so walking distance on open ground is the Chebyshev
// distance), but never diagonally past a blocked cell: nobody squeezes
// between two corners.
//
// Units do not block each other: any number may share a cell. That choice
// keeps the rules simple and has a large consequence: since the map never
// changes, the shortest way from a cell to a goal depends on nothing but the
// map, so a unit stores no path. Each time it has walked a whole cell, its
// next cell is computed again from its position and its goal by a
// breadth-first search run backwards from the goal, shared by every unit with
// that goal and extended only as far as needed. Among equally short steps it
// takes the one pointing most directly at the goal, then the first clockwise
// from north. A precomputed numbering of connected areas answers "can I get
// there at all?" without searching.
//
// # Units, orders and fights
//
// A player unit follows its Order. OrderMove walks to a cell, ignoring
// enemies (a retreat must be able to retreat); it ends on arrival, or at once
// if the cell cannot be reached. OrderAttack chases one enemy and strikes it
// whenever it is in range and the cooldown allows, until the enemy is Dead or
// gone. OrderNone (idle) units go for the nearest enemy within their kind's
// sight, and stand when there is none. Enemies take no orders: each strikes
// the nearest player unit within its range, and otherwise walks towards the
// player unit nearest on foot (the lowest id among equals), found by one
// search from every player unit at once.
//
// An attack reaches Range cells (Chebyshev) and restarts a Cooldown of frames.
// Kinds with projectile_speed 0 land the blow at once; the others loose an
// Attack, an object that belongs to no cell, which flies towards its target
// and deals its damage on arrival, or fizzles if the target died meanwhile.
// Attacks in flight are state like units: hashed, encoded, re-synced.
//
// A player unit at 0 hp is removed at the end of the step. An enemy at 0 hp
// becomes Dead: it stays where it fell, acts no more and cannot be targeted,
// until Kill removes it. Enemies belong to the server, so only the server's
// kill message removes one; a host whose copy of the fight went differently
// still ends up with the same enemies.
//
// # Frames and commands
//
// Frame counts the steps taken. The game applies the commands and server
// events scheduled for frame F (Apply, SpawnEnemy, Kill) while Frame() == F,
// then calls Step, FramesPerSecond times a second. Apply validates a command
// against the world it is applied to, with the same checks on every host, so
// every host accepts or rejects the same commands.
//
// A new round (Reset) empties the world and seeds it again but keeps counting
// frames: frames name the moments every host agrees on, so they run on across
// rounds, like a clock that is not put back when a new game begins.
//
// # Hashes and re-sync
//
// Unit.Hash is a 64-bit hash of every field of a unit; World.Hash covers the
// whole state. A client proves it is in sync by sending GroupHashes: the XOR
// of the hashes of each run of, say, 10 units, with the range of ids it
// covers. XOR makes a group's hash cheap to recompute over any id range
// (RangeHash), and the ranges tile the whole id space, so a unit one side
// lacks still lands in some group. The groups are the top of a hash tree:
// GroupUnitHashesIn splits a group that differs into smaller groups over the
// same ids, with the same guarantee, and at the bottom the server compares
// the units' own hashes (UnitHashes), sends the units that differ (AppendUnit, applied
// with SetUnit) and, in a stop-the-world re-sync, the rest of the state
// (World.AppendState, applied with ApplyState): which units exist, the attacks in
// flight, the generator, the frame.
//
// # The unit hash
//
// A unit's hash is FNV-1a run over the unit's canonical 40-byte encoding,
// eight bytes at a time, followed by a finalizer:
//
//	offset  size  field (little-endian)
//	0       4     ID
//	4       4     X
//	8       4     Y
//	12      4     HP
//	16      4     TargetX
//	20      4     TargetY
//	24      4     TargetID
//	28      4     Cooldown
//	32      4     MoveProgress
//	36      1     Owner
//	37      1     Kind
//	38      1     Order
//	39      1     Dead (0 or 1)
//
// Each 8-byte word w goes through FNV-1a's step h = (h ^ w) * prime, from
// FNV's offset basis. Byte by byte, FNV-1a would chain 40 multiplications
// (about 60 ns a unit); five take a few nanoseconds. Each step is a bijection
// of h for a given word, so two units that differ in one word always hash
// differently. Multiplication only carries bits upwards, though, so the low
// bits of h would depend only on the low bits of each word; the finalizer
// (MurmurHash3's fmix64) folds the high bits back down so that every output
// bit depends on every input bit. That matters for the grouped hashes: with
// weak low bits, two unrelated differences XORed together could cancel.
// Attack.Hash does the same over ID, From, Target, X, Y, Damage, Speed (4
// bytes each) and Owner with 3 zero bytes.
//
// # The re-sync codec
//
// Integers are the protocol's own, internal/int30's UInt30 and Int30 (a package
// below both this one and net/wire: the world never imports the network): 1, 2 or 4
// bytes, the first two bits of the first byte giving the length, Int30 in
// sign-magnitude (see net/PROTOCOL.md, section 1). A unit travels inside a
// game message whose ids, frames and cells are already UInt30s and Int30s, so
// one family of integers, with one set of errors (int30.ErrShort,
// int30.ErrRange, int30.ErrNonCanonical, int30.ErrTooLong), covers the message
// and the units in it. The price is range: a field holds ±536,870,911 signed
// or 0..1,073,741,823 unsigned, not all of int32 and uint32. No value a game
// produces comes near that (cells, hit points from the unit table, cooldowns,
// hundredths of a cell on a map), but the counters of a world that never
// stops do: a world past
// int30.MaxUInt30 frames (three years at 10 a second) or MaxAttackID attacks
// can no longer send its state.
//
// So every Append… checks its value against the rules of its Parse… before it
// appends a byte, and returns an error and b unchanged if a value is out of
// reach: whatever AppendUnit writes, ParseUnit reads back as the same unit. A
// unit of a busy world takes about 10 bytes. Every value has exactly one
// encoding: an integer longer than needed, negative zero, a present field
// holding its default, or a reserved bit set is rejected
// (int30.ErrNonCanonical), so parse-then-append gives back the input. Parse
// functions never panic and never allocate more than the input can justify.
// ParseUnit checks the encoding; SetUnit checks the unit against the rules of
// the world it goes into.
//
// Unit:
//
//	u30   ID (1..MaxUnitID)
//	byte  Owner (0..7, or 255 for enemies)
//	byte  Kind
//	byte  flags: bits 0-1 Order (0 none, 1 move, 2 attack), bit 2 Dead,
//	      bit 3 TargetX/TargetY present, bit 4 TargetID present,
//	      bit 5 Cooldown present, bit 6 MoveProgress present, bit 7 reserved (0)
//	i30   X
//	i30   Y
//	i30   HP
//	i30   TargetX, i30 TargetY    if bit 3 (not both 0)
//	u30   TargetID                if bit 4 (not 0)
//	i30   Cooldown                if bit 5 (not 0)
//	i30   MoveProgress            if bit 6 (not 0)
//
// Attack:
//
//	u30   ID (1..MaxAttackID)
//	byte  Owner
//	u30   From (0..MaxUnitID)
//	u30   Target (1..MaxUnitID)
//	i30   X, i30 Y, i30 Damage, i30 Speed
//
// State:
//
//	u30   Frame
//	u30   NextID (1..FirstEnemyID)
//	u30   NextAttackID (1..MaxAttackID+1)
//	u30   n (at most 64), then n bytes: the generator in its MarshalBinary form
//	u30   count of unit ids, then the ids ascending: the first, then each one's
//	      difference from the one before (at least 1)
//	u30   count of attacks, then each attack as above, ids ascending
//
// Unit ids below FirstEnemyID are players' units, numbered by AddPlayerUnits
// in order; the server numbers its enemies from FirstEnemyID up. Two ranges
// mean the two numberings can never collide.
package world
