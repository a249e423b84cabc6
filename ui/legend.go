package ui

import (
	"slices"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"

	"github.com/ackattack/ackattack/world"
)

// The map's legend, drawn on its bottom border so that it costs no row: what the letters
// are, in their colours, for a newcomer who has pressed nothing yet. On a wide map it names
// every kind; on a narrow one the letters alone, with whose they are:
//
//	╚ you: s soldier, a archer, k knight · enemies: g goblin, O ogre, h hurler ╝
//	╚════ you: s a k · enemies: g O h · # wall ~ water ════╝
//
// The kinds come from the unit table (assets/units.txt): the players' are those of the
// starting squad, the enemies' every other.

// legendSep separates the legend's parts.
const legendSep = " · "

// legendKinds splits the unit kinds into the players' (the starting squad's, in its order) and
// the enemies' (the rest, in the table's order).
func legendKinds() (players, enemies []world.Kind) {
	squad := world.StartingSquad()
	for _, k := range world.Kinds() {
		if slices.Contains(squad, k.Name) {
			players = append(players, k)
		} else {
			enemies = append(enemies, k)
		}
	}
	return players, enemies
}

// legendPart is one part of the legend: a label, then the kinds' letters in colour, with
// their names when named.
func legendPart(label string, kinds []world.Kind, color tcell.Color, named bool) styledLine {
	line := styledLine{{text: label + ":"}}
	for i, k := range kinds {
		line = append(line, span{text: " "}, span{text: string(rune(k.Letter)), color: color, bold: true})
		if named {
			line = append(line, span{text: " " + k.Name})
			if i < len(kinds)-1 {
				line = append(line, span{text: ","})
			}
		}
	}
	return line
}

// mapLegend is the longest legend that fits in width cells (nil if none does). player: the
// map is a player's, whose own units are green and the other players' yellow; otherwise a
// spectator's or the server's, where every player's units are yellow.
func mapLegend(width int, player bool) styledLine {
	own, enemy := legendKinds()
	var yours, yoursShort, others styledLine
	if player {
		yours = legendPart("you", own, foreground(styleOwnUnit), true)
		yoursShort = legendPart("you", own, foreground(styleOwnUnit), false)
		others = styledLine{{text: "other players in "}, {text: "yellow", color: foreground(styleAllyUnit), bold: true}}
	} else {
		yours = legendPart("players", own, foreground(styleAllyUnit), true)
		yoursShort = legendPart("players", own, foreground(styleAllyUnit), false)
	}
	enemies := legendPart("enemies", enemy, foreground(styleEnemy), true)
	enemiesShort := legendPart("enemies", enemy, foreground(styleEnemy), false)
	terrain := styledLine{{text: "#", color: foreground(styleWall)}, {text: " wall "}, {text: "~", color: foreground(styleWater)}, {text: " water"}}
	for _, parts := range [][]styledLine{
		{yours, others, enemies, terrain},
		{yours, enemies, terrain},
		{yours, enemies},
		{yoursShort, others, enemiesShort, terrain},
		{yoursShort, enemiesShort, terrain},
		{yoursShort, enemiesShort},
	} {
		line := styledLine{{text: " "}}
		for i, p := range parts {
			if p == nil {
				continue // no "other players" on a map without own units
			}
			if i > 0 {
				line = append(line, span{text: legendSep})
			}
			line = append(line, p...)
		}
		line = append(line, span{text: " "})
		if utf8.RuneCountInString(line.String()) <= width {
			return line
		}
	}
	return nil
}

// foreground is a style's foreground: the legend's letters take the map's colours.
func foreground(style tcell.Style) tcell.Color {
	c, _, _ := style.Decompose()
	return c
}

// drawLegend draws the legend centred on the bottom border of the box at (x, y, width, height).
func drawLegend(screen tcell.Screen, x, y, width, height int, player bool) {
	if height < 2 || width < 4 {
		return
	}
	line := mapLegend(width-2, player)
	if line == nil {
		return
	}
	n := utf8.RuneCountInString(line.String())
	line.draw(screen, x+1+(width-2-n)/2, y+height-1, n, tcell.ColorDefault)
}
