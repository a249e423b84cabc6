package assets

import "embed"

// FS holds the game's text assets, compiled into every binary that imports
// this package: the maps under maps/ and the unit table units.txt. Read them
// with LoadMaps and LoadUnitKinds rather than opening files by hand, so that
// every reader applies the same checks.
//
//go:embed maps/*.txt units.txt
var FS embed.FS
