// Package lesson runs AckAttack's guided lessons: an embedded game scripted to show one idea
// of the networking stack, and a panel that explains it in short steps, each ending when the
// game shows the event it is about.
//
// # A script, not code
//
// A lesson is a text file (assets/lessons/*.txt, embedded in the binaries; a teacher's own
// file loads the same way), so a teacher writes a new one without Go. Its header sets up the
// game: the map, the bots, the player's link; its steps say what to read, what to try, what
// the game is made to do ("do spawn-kill", "every 1s bots-chat 3") and the events that end the
// step ("until messages-waited type=KillEnemy"). Parse reads it strictly: a mistake is refused
// with the file and line, like the maps and the unit table. assets/lessons/README.md is the
// format.
//
// # Events are counters the game keeps
//
// An until line names a counter, never a line of the log: packets the acks showed lost,
// messages that waited in the graph, sync messages acknowledged, fragments resent. Most are
// read straight from the snapshots the game publishes for its screens anyway (the player's
// connection, both ends of it, the player's host). A few need the message histories over
// time, which the Meter works out: how long each received message waited in the graph beside
// how long one ordered channel would have made it wait, and which fragmented messages had
// only some fragments resent.
//
// # Real games rarely show the thing on cue
//
// At 10% loss a kill seldom overtakes its spawn, and a stop-the-world needs a drift the
// real-time re-sync cannot mend. So a lesson does not wait for luck: its game plays at the
// loss it needs, and the script makes the game do the telling thing now, on the same paths
// the game always takes (game/teach.go): spawn an enemy and kill it a frame later, have the
// bots chat in bursts, corrupt units, stop the world and send every unit. Each built-in
// lesson has a test that plays it in virtual time to its end, and checks that the event it
// teaches happened (lessons_test.go).
//
// # Who runs it
//
// Runner is sans-IO: given the time and the counters of a moment, it says which step is up
// and what the game is to do. A Driver glues it to a Host, the game it reads and acts on: on
// real sockets (Embedded: the hosts' loops, to which actions go as intents), or in virtual
// time in the tests. The screen, or the headless loop, calls Tick ten times a second on its
// own goroutine and draws the Progress it returns; the game's state stays with the game's
// loops.
package lesson
