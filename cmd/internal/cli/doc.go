// Package cli is the command line both binaries share, so that cmd/server and cmd/client
// hold only their own flags and the wiring of their game. It lives under cmd because only the
// binaries have a command line: package game takes a logger, a link setting and a trace writer,
// and knows nothing of flags, standard input or terminals.
//
// A binary's run goes through one Command:
//
//	cmd := cli.New(cli.Binary{Name: "server", ...}) // --headless, --duration, --stats, --trace,
//	listen := cmd.Flags.String("listen", ...)       // --log, --log-level, the link flags, --record
//	if exit, ok := cmd.Parse(args); !ok {
//		return exit
//	}
//	if err := cmd.Open(); err != nil {              // UI or headless, the log, the trace, the capture
//		return cmd.Fail(cli.ExitFailure, err)
//	}
//	defer cmd.Close()
//	ctx, stop := cmd.Context()                      // signals and --duration
//	cmd.TapAndKeys(&cfg.Transport.Config)           // --record: the socket's datagrams and the keys
//	...                                             // the game, with cmd.Logger, cmd.Link, cmd.Trace
//	if err := cmd.CloseRecord(); err != nil {       // once the game closed its socket
//		return cmd.Fail(cli.ExitFailure, err)
//	}
//	if err := cmd.WriteStats(report); err != nil {
//		return cmd.Fail(cli.ExitFailure, err)
//	}
//
// # Exit codes
//
// Scripts, tests and graders drive the binaries, so the exit code is an interface (the
// README's contract). 0 is a clean end: --duration ran out, an interrupt or SIGTERM arrived,
// the player pressed q, or --help was asked for; a script that stops a game with a signal has
// not failed. 2 is a bad command line: an unknown flag, a stray argument, a value out of range
// or an address that cannot be parsed or resolved (ListenAddr, ServerAddr), with a message
// naming it, so that a script's mistake is told apart from a game's failure before anything
// ran. 1 is every other failure: a file that cannot be opened, a socket that cannot be bound
// (an address in use), a game that ended in error, a client that never connected to its server
// (however its run ended), a --stats file that cannot be written.
// Every message starts with the binary's name.
//
// # Why headless is a fallback
//
// The terminal UI reads keys from standard input and draws on standard output. When either is
// not a terminal (a script, a pipe, CI, a test), the UI could not work, and a script that
// forgot --headless should still get a game that runs for --duration and writes its --stats
// file, rather than a hang or an error. So the binary runs headless and says so once on
// standard error. /dev/null counts as no terminal, although it is a character device.
//
// # Why the log never goes on the UI's screen
//
// The UI owns the terminal: a log line written to standard error lands in the middle of its
// drawing and tears it, and the next redraw hides it. So in UI mode the log goes to a file
// (--log, or ackattack-NAME.log in the temporary directory), appended to so that runs do not
// erase each other, and RunUI prints that file's path before the UI takes the screen and again
// after it gives it back. Headless, nothing draws, and the log goes to standard error unless
// --log names a file.
//
// In UI mode the socket always gets a link conditioner, a perfect one when no link flag is
// given, so that the UI's sliders can change loss, latency, jitter and duplication while the
// game runs; headless without link flags there is none, and datagrams take no detour.
package cli
