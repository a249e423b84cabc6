// Command server hosts an AckAttack game: it runs the authoritative world, relays commands
// and chat, spawns and kills enemies, sets the command lead time and checks every client's
// unit hashes, re-syncing them when they drift.
//
//	go run ./cmd/server                          # 127.0.0.1:7777, map skirmish
//	go run ./cmd/server --bots 2 --loss 10 --latency 50ms --duration 60s --stats server.json
//
// By default it shows the terminal UI (package ui): the player table, the sync log, the debug
// panel and the link sliders. With --headless, or when standard input or standard output is
// not a terminal (a script, a pipe, CI), it runs headless instead and logs what happens to
// standard error. Either way it writes the --stats and --trace files.
//
// The log never goes to the screen the UI draws on: in UI mode it goes to a file (--log,
// by default ackattack-server.log in the temporary directory), headless to standard error.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/ackattack/ackattack/cmd/internal/cli"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/ui"
	"github.com/ackattack/ackattack/world"
)

// defaultLog is where the log goes in UI mode when --log is not given.
var defaultLog = filepath.Join(os.TempDir(), "ackattack-server.log")

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:7777", "UDP address to serve on")
	mapName := fs.String("map", "skirmish", "map: "+strings.Join(world.Maps(), ", "))
	seed := fs.Uint64("seed", 1, "world and bot seed")
	bots := fs.Int("bots", 0, "server-side bot players")
	headless := fs.Bool("headless", false, "run without the terminal UI, logging to standard error (the default when standard input or output is not a terminal)")
	duration := fs.Duration("duration", 0, "exit cleanly after this long (0: run until interrupted)")
	statsPath := fs.String("stats", "", "write a JSON report to this file at exit")
	tracePath := fs.String("trace", "", "write a JSON line per executed guaranteed message to this file")
	minPlayers := fs.Int("min-players", 0, "connected players needed before the start countdown (0: start with the first)")
	logPath := fs.String("log", "", "append the log to this file (default: standard error with --headless, else "+defaultLog+")")
	logLevel := slog.LevelInfo
	fs.TextVar(&logLevel, "log-level", slog.LevelInfo, "least `level` logged: debug, info, warn or error")
	var link cli.LinkFlags
	link.Register(fs)
	if code, ok := cli.ParseFlags(fs, args, "Hosts an AckAttack game over UDP."); !ok {
		return code
	}
	ls, err := link.Settings()
	if err == nil {
		err = cli.CheckDuration(*duration)
	}
	if err == nil && (*bots < 0 || *bots > world.MaxPlayers) {
		err = fmt.Errorf("--bots must be 0..%d", world.MaxPlayers)
	}
	if err == nil && !slices.Contains(world.Maps(), *mapName) {
		err = fmt.Errorf("--map %q: no such map (maps: %s)", *mapName, strings.Join(world.Maps(), ", "))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 2
	}
	out, err := cli.SetupOutput("server", *headless, *logPath, defaultLog, logLevel, ls)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 1
	}
	defer out.Close()
	*headless, *logPath, ls = out.Headless, out.LogPath, out.Link
	logger := out.Logger
	cfg := game.ServerConfig{Listen: *listen, Map: *mapName, Seed: *seed, Bots: *bots, MinPlayers: *minPlayers, Logger: logger}
	cfg.Transport.Link = ls
	cfg.Transport.DebugViews = !*headless // the UI's debug panel reads them
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "server:", err)
			return 1
		}
		defer f.Close()
		cfg.Trace = f
	}
	srv, err := game.NewServer(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 1
	}
	logger.Info("serving", "addr", srv.Addr(), "map", *mapName, "bots", *bots)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	var runErr, uiErr error
	if *headless {
		runErr = srv.Run(ctx)
	} else {
		// The game runs on its own goroutine and the UI on this one, until q quits it or
		// ctx ends; then the game stops. If the game ends first, the UI stays up to show it.
		gameCtx, stopGame := context.WithCancel(ctx)
		runDone := make(chan error, 1)
		go func() { runDone <- srv.Run(gameCtx) }()
		fmt.Fprintln(os.Stderr, "logs:", *logPath)
		uiErr = ui.RunServer(ctx, ui.ServerOptions{Server: srv, Logger: logger})
		stopGame()
		runErr = <-runDone
		fmt.Fprintln(os.Stderr, "logs:", *logPath)
		if uiErr != nil {
			fmt.Fprintln(os.Stderr, "server:", uiErr)
		}
	}
	if runErr != nil {
		fmt.Fprintln(os.Stderr, "server:", runErr)
		return 1
	}
	if *statsPath != "" {
		if err := cli.WriteReport(*statsPath, srv.Snapshot().Report); err != nil {
			fmt.Fprintln(os.Stderr, "server:", err)
			return 1
		}
	}
	if uiErr != nil {
		return 1
	}
	return 0
}
