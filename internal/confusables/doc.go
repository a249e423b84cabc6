// Package confusables is Unicode's confusable detection (UTS #39, Unicode Security Mechanisms,
// section 4): the skeleton of a string, in which characters that are drawn alike become one
// prototype, so that two strings a reader could take for each other have the same skeleton.
// "раураl" in Cyrillic and "paypal" do; so do "Ꭼve" (a Cherokee letter) and "Eve", "b0t1" and
// "bOtl", "rn" and "m". The game compares player names with it (game/names.go), with case
// folding on top, which the skeleton leaves to its user.
//
// The data is Unicode's own table, confusables.txt, kept gzipped in testdata and turned into a
// compact Go table (table.go, about 60 kB in the binary) by the command in gentable:
//
//	go generate ./internal/confusables
//
// Version says which Unicode version the table holds. The Go standard library's Unicode
// tables, which the normalisation in Skeleton uses, may be older (Go 1.26: 15.0.0): a
// character assigned after them has a prototype here but no decomposition there, and the
// game refuses such a character in a name anyway (unassigned, as far as it can tell).
//
// # The map
//
//	skeleton.go  Skeleton, Prototype
//	table.go     Version; the table (generated, not to be edited)
//	gentable/    the generator, and the test that table.go is what it makes of testdata
//
// # Usage
//
//	confusables.Skeleton("Ꭼve") == confusables.Skeleton("Eve") // "Eve": true
//	p, ok := confusables.Prototype('1')                         // "l", true
//
// # Rules
//
//   - Skeleton is exactly the algorithm of UTS #39: NFD, each character replaced by its
//     prototype, NFD again. It keeps case ("Eve" and "eve" differ) and marks ("Zoë" and "Zoe"
//     differ), and the relation it gives is the standard's, not transitive across case.
//   - table.go is only ever written by gentable: a test regenerates it from testdata and
//     compares.
package confusables
