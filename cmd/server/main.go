// Command server hosts an AckAttack game: it runs the authoritative world, relays commands
// and chat, spawns and kills enemies, sets the command lead time and checks every client's
// unit hashes, re-syncing them when they drift.
//
//	go run ./cmd/server                          # 127.0.0.1:7777, map skirmish
//	go run ./cmd/server --bots 2 --loss 10 --latency 50ms --duration 60s --stats server.json
//	go run ./cmd/server --record class.pcapng      # every datagram, for Wireshark or a replay
//
// By default it shows the terminal UI (package ui): the player table, the sync log, the debug
// panel and the link sliders. With --headless, or when standard input or standard output is
// not a terminal (a script, a pipe, CI), it runs headless instead and logs what happens to
// standard error. Either way it writes the --stats and --trace files.
//
// The log never goes to the screen the UI draws on: in UI mode it goes to a file (--log,
// by default a file of the run's own in the temporary directory, ackattack-server-PID.log),
// headless to standard error.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/ackattack/ackattack/cmd/internal/cli"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/hostloop"
	"github.com/ackattack/ackattack/ui"
	"github.com/ackattack/ackattack/world"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// interfaces are the machine's network interfaces, where players reach a server bound to every
// interface (a test's own, in tests).
var interfaces cli.Interfaces = cli.SystemInterfaces

func run(args []string) int {
	cmd := cli.New(cli.Binary{
		Name:          "server",
		Summary:       "Hosts an AckAttack game over UDP.",
		HeadlessUsage: "run without the terminal UI, logging to standard error",
		RecordWhat:    "the server's socket",
		LogLevel:      slog.LevelInfo,
	})
	fs := cmd.Flags
	listen := fs.String("listen", "127.0.0.1:7777", "UDP address to serve on")
	mapName := fs.String("map", "skirmish", "map: "+strings.Join(world.Maps(), ", "))
	seed := fs.Uint64("seed", 1, "world and bot seed")
	bots := fs.Int("bots", 0, "server-side bot players")
	minPlayers := fs.Int("min-players", 0, fmt.Sprintf("connected players needed before the start countdown (0: start with the first; at most %d less --bots)", world.MaxPlayers))
	seatHold := fs.Duration("seat-hold", game.MaxSeatHold, fmt.Sprintf("how long a vanished player's seat waits for it before anybody may take it (at most %v)", game.MaxSeatHold))
	lead := fs.String("lead", "auto", fmt.Sprintf("the command lead time: auto (the server sets it from its players' links), or a `duration` that fixes it, rounded to whole frames of %v, at most %v; the t key of the server's screen changes it", game.DefaultFrame, game.MaxFixedLead))
	direct := fs.String("direct", "auto", "direct links between the players, beside the server's relay: auto (while the detour through the server would cost the lead: half a round trip of 75 ms or more), on, or off (the server relays every order, the fewest bytes)")
	spectatorChat := fs.Bool("spectator-chat", true, fmt.Sprintf("let the spectators (up to %d beyond the seats) chat; the s key of the server's screen turns it off and on", game.MaxSpectators))
	seatsPerAddr := fs.Int("seats-per-address", game.DefaultSeatsPerAddress, fmt.Sprintf("seats one address keeps when others want one, 1..%d: beyond it an address's seats are lent, and a newcomer from elsewhere who finds none free takes one back", world.MaxPlayers))
	seatsPerNet := fs.Int("seats-per-network", game.DefaultSeatsPerNetwork, fmt.Sprintf("seats one network (a /24, or an IPv6 /64) keeps when others want one, 1..%d, lent beyond it as with --seats-per-address", world.MaxPlayers))
	specsPerAddr := fs.Int("spectators-per-address", game.DefaultSpectatorsPerAddress, fmt.Sprintf("spectators' places one address keeps when the %d are full, 1..%d, lent beyond it as with --seats-per-address", game.MaxSpectators, game.MaxSpectators))
	specsPerNet := fs.Int("spectators-per-network", game.DefaultSpectatorsPerNetwork, fmt.Sprintf("spectators' places one network (a /24, or an IPv6 /64) keeps when the %d are full, 1..%d, lent beyond it as with --seats-per-address", game.MaxSpectators, game.MaxSpectators))
	if exit, ok := cmd.Parse(args); !ok {
		return exit
	}
	if *seatHold <= 0 || *seatHold > game.MaxSeatHold {
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--seat-hold must be more than 0 and at most %v", game.MaxSeatHold))
	}
	leadSetting, err := game.ParseLead(*lead)
	if err != nil {
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--lead %q: want auto, or a duration above 0 and at most %v, such as 300ms", *lead, game.MaxFixedLead))
	}
	directMode, err := game.ParseDirectMode(*direct)
	if err != nil {
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--direct %q: want auto, on or off", *direct))
	}
	if *bots < 0 || *bots > world.MaxPlayers {
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--bots must be 0..%d", world.MaxPlayers))
	}
	// Bots keep their seats for the whole game, so the humans awaited must fit in the others.
	if *minPlayers < 0 || *minPlayers > world.MaxPlayers-*bots {
		seats := "the number of seats"
		if *bots > 0 {
			seats = fmt.Sprintf("the %d seats less the %d of --bots", world.MaxPlayers, *bots)
		}
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--min-players must be 0..%d, %s", world.MaxPlayers-*bots, seats))
	}
	places := game.Places{SeatsPerAddress: *seatsPerAddr, SeatsPerNetwork: *seatsPerNet, SpectatorsPerAddress: *specsPerAddr, SpectatorsPerNetwork: *specsPerNet,
		Host: cli.HostPrefixes(interfaces), SeatHold: *seatHold}
	for _, f := range []struct {
		name      string
		v, places int
	}{
		{"seats-per-address", *seatsPerAddr, world.MaxPlayers},
		{"seats-per-network", *seatsPerNet, world.MaxPlayers},
		{"spectators-per-address", *specsPerAddr, game.MaxSpectators},
		{"spectators-per-network", *specsPerNet, game.MaxSpectators},
	} {
		if f.v < 1 || f.v > f.places {
			return cmd.Fail(cli.ExitUsage, fmt.Errorf("--%s must be 1..%d", f.name, f.places))
		}
	}
	if !slices.Contains(world.Maps(), *mapName) {
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--map %q: no such map (maps: %s)", *mapName, strings.Join(world.Maps(), ", ")))
	}
	addr, err := cli.ListenAddr("listen", *listen)
	if err != nil {
		return cmd.Fail(cli.ExitUsage, err)
	}
	if err := cmd.Open(); err != nil {
		return cmd.Fail(cli.ExitFailure, err)
	}
	defer cmd.Close()
	logger := cmd.Logger
	cfg := game.ServerConfig{Listen: addr, Map: *mapName, Seed: *seed, Bots: *bots, MinPlayers: *minPlayers, Late: cmd.Late,
		Orders: game.Orders{Lead: leadSetting, Direct: directMode}, SpectatorChatOff: !*spectatorChat, Places: places, Logger: logger}
	cfg.Transport.Link = cmd.Link
	cfg.Transport.LinkSeed = cli.LinkSeed("server", "", *seed)
	cfg.Transport.DebugViews = !cmd.Headless // the UI's debug panel reads them
	cmd.TapAndKeys(&cfg.Transport.Config)
	cfg.Trace = cmd.Trace
	srv, err := hostloop.NewServer(cfg)
	if err != nil {
		if opErr := (*net.OpError)(nil); errors.As(err, &opErr) {
			// The address resolved but cannot be bound: in use, or not this machine's.
			err = fmt.Errorf("--listen %s: %w", addr, err)
		}
		return cmd.Fail(cli.ExitFailure, err)
	}
	join := cli.JoinAddrs(srv.Addr(), interfaces)
	logger.Info("serving", "addr", srv.Addr(), "map", *mapName, "bots", *bots, "lead", leadSetting, "join", ui.JoinHint(join))
	ctx, stop := cmd.Context()
	defer stop()
	var runErr, uiErr error
	if cmd.Headless {
		runErr = srv.Run(ctx)
	} else {
		// The game runs on its own goroutine and the UI on this one, until q quits it or
		// ctx ends; then the game stops. If the game ends first, the UI stays up to show it.
		gameCtx, stopGame := context.WithCancel(ctx)
		runDone := make(chan error, 1)
		go func() { runDone <- srv.Run(gameCtx) }()
		uiErr = cmd.RunUI(func() error { return ui.RunServer(ctx, ui.ServerOptions{Server: srv, Join: join, Logger: logger}) })
		stopGame()
		runErr = <-runDone
	}
	if runErr != nil {
		return cmd.Fail(cli.ExitFailure, runErr)
	}
	if err := cmd.CloseRecord(); err != nil { // Run closed the socket
		return cmd.Fail(cli.ExitFailure, err)
	}
	if err := cmd.WriteStats(srv.Report()); err != nil {
		return cmd.Fail(cli.ExitFailure, err)
	}
	if uiErr != nil {
		return cli.ExitFailure
	}
	return cli.ExitOK
}
