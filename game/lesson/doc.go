// Package lesson runs AckAttack's guided lessons: an embedded game scripted to show one idea
// of the networking stack, and a panel that explains it in short steps, each ending when the
// game shows the event it is about. The nine built-in lessons are assets/lessons/*.txt;
// assets/lessons/README.md is the script format, and IDEAS.md says which lesson shows which
// idea.
//
// # The map
//
//	script.go  Script, Parse (strict: a mistake names the file and line), Step, Goal, Action
//	           and ActionKind (what a script makes the game do), Setup (the embedded game)
//	load.go    Builtin (the embedded lessons, in order), Find (a number or a file), List
//	events.go  the vocabulary of until and show lines: counters the game already keeps,
//	           read from an Observation (Key, Counters, EventNames, Label)
//	meter.go   Meter: the counters no single snapshot holds, worked out from the message
//	           histories (how long a message waited in the graph beside one ordered
//	           channel, which fragments were resent)
//	runner.go  Runner: walks the steps, sans-IO (the time and the counters come in, the
//	           actions to take go out); Progress, what a panel draws
//	act.go     Host (the game a lesson runs on), Embedded (on real sockets), Driver (observe,
//	           walk, act: one Tick), ApplyServer and ApplyClient
//	setup.go   the server's and the client's configuration for a script's game
//
// # Usage
//
//	scripts, err := lesson.Builtin()
//	s, err := lesson.Find("3", scripts) // or a teacher's file: lesson.Find("my.txt", scripts)
//	// start s.Setup's game (cmd/client does: an embedded server and the player's client) ...
//	d := lesson.NewDriver(s, lesson.Embedded{Server: srv, Client: cli, Player: id})
//	for each tenth of a second:
//		p := d.Tick(now) // observe the game, walk the script, hand the game what is due
//		// draw p (ui.LessonPanel), or print the step headless
//
// # Rules
//
//   - A script is text, parsed strictly; a built-in lesson that does not parse is a bug, and a
//     test catches it.
//   - A step ends when every until line is met (a counter grown by N since the step before,
//     or reaching N) and it has been up for its read time.
//   - The lesson does not wait for luck: its actions make the game do the telling thing on
//     the paths it always takes (game/stage.go).
//   - Runner and Meter do no I/O and keep no clock; a Driver belongs to one goroutine. Each
//     built-in lesson has a test that plays it in virtual time to its end (lessons_test.go).
package lesson
