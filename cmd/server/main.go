// Command server hosts an AckAttack game: it runs the authoritative world, relays commands
// and chat, spawns and kills enemies, sets the command lead time and checks every client's
// unit hashes, re-syncing them when they drift.
//
//	go run ./cmd/server                          # 127.0.0.1:7777, map skirmish
//	go run ./cmd/server --bots 2 --loss 10 --latency 50ms --duration 60s --stats server.json
//
// Until the terminal UI lands the server always runs headless: it logs what happens to
// standard error and writes --stats and --trace files.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/world"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:7777", "UDP address to serve on")
	mapName := fs.String("map", "skirmish", "map: "+strings.Join(world.Maps(), ", "))
	seed := fs.Uint64("seed", 1, "world and bot seed")
	bots := fs.Int("bots", 0, "server-side bot players")
	fs.Bool("headless", true, "run without the terminal UI (the UI is not built yet: always headless)")
	duration := fs.Duration("duration", 0, "exit cleanly after this long (0: run until interrupted)")
	statsPath := fs.String("stats", "", "write a JSON report to this file at exit")
	tracePath := fs.String("trace", "", "write a JSON line per executed guaranteed message to this file")
	minPlayers := fs.Int("min-players", 0, "connected players needed before the start countdown (0: start with the first)")
	var link game.LinkFlags
	link.Register(fs)
	if code, ok := game.ParseFlags(fs, args, "Hosts an AckAttack game over UDP."); !ok {
		return code
	}
	ls, err := link.Settings()
	if err == nil {
		err = game.CheckDuration(*duration)
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
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg := game.ServerConfig{Listen: *listen, Map: *mapName, Seed: *seed, Bots: *bots, MinPlayers: *minPlayers, Logger: logger}
	cfg.Transport.Link = ls
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
	if err := srv.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 1
	}
	if *statsPath != "" {
		if err := game.WriteReport(*statsPath, srv.Snapshot().Report); err != nil {
			fmt.Fprintln(os.Stderr, "server:", err)
			return 1
		}
	}
	return 0
}
