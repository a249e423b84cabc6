// Package assets holds the game's content as plain text (maps and the table of
// unit kinds), embedded into the binaries with go:embed, and the parsers that
// turn that text into checked values.
//
// # Why text, and why embedded
//
// A map drawn with characters can be read, diffed and reviewed like code: a
// wall is a row of '#', a lake is a patch of '~'. A unit table with one kind
// per line shows at a glance that the archer outranges the ogre. Embedding the
// files means a host never runs with a different map than its peers because
// somebody edited a file next to one binary: the content is part of the
// program, and every host in a game runs the same program.
//
// # Why the parsers are strict
//
// Every host must build the same world from the same bytes, so a map that is
// ambiguous (rows of different lengths, a spawn point listed twice) is
// rejected rather than guessed at. Errors name the file and line, in the
// "file:line: what is wrong" form that editors can jump to, so a designer who
// breaks a map learns where at once. This package only checks the text; the
// world package checks what needs its rules (that every spawn point can reach
// every other).
//
// The formats are described in README.md next to the files.
package assets
