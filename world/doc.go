// Package world is the deterministic simulation of AckAttack: the grid map, units, enemies,
// attacks in flight, Step, unit hashes and the unit codec used by re-sync.
//
// Every host runs the same world from the same start with the same commands and must end with
// the same bits, so the rules here are strict: integer state only, units kept in a slice
// ordered by id, no iteration over Go maps inside Step, one seeded math/rand/v2 generator per
// world, hashes over a canonical byte encoding. The world knows nothing of the network; the
// game package feeds it commands scheduled for a frame.
package world
