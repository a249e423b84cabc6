// Package cli is the command line both binaries share, so that cmd/server and cmd/client hold
// only their own flags and the wiring of their game. It lives under cmd because only the
// binaries have a command line: package game takes a logger, a link setting and a trace
// writer, and knows nothing of flags, standard input or terminals.
//
// # The map
//
//	command.go   Command (New, Parse, Open, Context, RunUI, Warn, Fail, WriteStats, Close):
//	             the shared flags (--headless, --duration, --stats, --trace, --log,
//	             --log-level, --late), UI or headless, the log (a file of each run's own in
//	             UI mode), signals; the exit codes (ExitOK, ExitFailure, ExitUsage); Binary,
//	             what differs between the binaries; KeepNewest, the bound of a directory that
//	             runs add files to
//	addr.go      ListenAddr, ServerAddr: an address that cannot be parsed or resolved is a
//	             bad flag
//	lan.go       JoinAddrs: where players reach a server bound to every interface (its LAN
//	             addresses, from SystemInterfaces or a test's Interfaces)
//	link.go      LinkFlags (--loss, --latency, --jitter, --dup) and LinkSeed, each process's
//	             own seed for its link conditioner
//	record.go    RecordFlags (--record, --record-limit), ByteSize; TapAndKeys, CloseRecord
//	terminal.go  whether standard input and output are terminals, for the UI
//
// # Usage
//
// A binary's run goes through one Command:
//
//	cmd := cli.New(cli.Binary{Name: "server", ...})
//	listen := cmd.Flags.String("listen", ...)       // the binary's own flags
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
// # Rules
//
//   - The exit code is an interface: 0 a clean end (--duration, a signal, q, --help), 2 a bad
//     command line, named before anything ran, 1 any other failure; every message starts with
//     the binary's name.
//   - Headless is a fallback: when standard input or output is not a terminal (a script, a
//     pipe, CI; /dev/null counts as none), the binary runs headless and says so once, rather
//     than hang or fail.
//   - In UI mode the log never goes on the screen (a log line would tear the UI): it goes to a
//     file, appended to, whose path RunUI prints before and after the UI.
//   - In UI mode the socket always has a link conditioner, a perfect one without link flags,
//     so that the sliders can change the link while the game runs; headless without link
//     flags there is none.
//   - Every file a flag names is opened before the game starts, so a bad path fails at once.
package cli
