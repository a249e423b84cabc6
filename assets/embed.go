package assets

import "embed"

// FS holds the game's text assets, compiled into every binary that imports
// this package: the maps under maps/, the unit table units.txt and the lesson
// scripts under lessons/. Read them with LoadMaps, LoadUnitKinds and
// game/lesson's Builtin rather than opening files by hand, so that every
// reader applies the same checks.
//
//go:embed maps/*.txt units.txt lessons/*.txt
var FS embed.FS
