// Command client joins an AckAttack game, or, without --connect, hosts one on a free loopback
// port with a bot opponent and joins it, so that one command shows the whole game.
//
//	go run ./cmd/client                                  # an embedded server with one bot
//	go run ./cmd/client --name ann --connect 127.0.0.1:7777
//	go run ./cmd/client --bot --headless --duration 60s --stats ann.json --loss 10
//	go run ./cmd/client --name ann --connect 192.168.1.20:7777 --new-identity  # a new player, not the one who left
//	go run ./cmd/client --name ann --connect 192.168.1.20:7777 --identity ann.id
//	go run ./cmd/client --record game.pcapng --loss 10  # every datagram, for Wireshark or a replay
//	go run ./cmd/client --replay game.pcapng            # play that capture back, datagram by datagram
//	go run ./cmd/client --lesson 2                       # a guided lesson in an embedded game
//	go run ./cmd/client --spectate --connect 192.168.1.20:7777  # watch, on the class's projector
//
// By default it shows the terminal UI (package ui): the map, the chat, the debug panel and the
// link sliders. With --headless, or when standard input or standard output is not a terminal
// (a script, a pipe, CI), it runs headless instead: it prints a status line every second and
// the chat as it arrives, and sends every line typed on standard input as chat.
//
// A player who joins a server keeps its identity for that server and name in the user's
// configuration directory (identity_store.go), so that the same command run again gets the
// seat back; --new-identity starts afresh, and --identity keeps it in a file of your choice.
//
// The log never goes to the screen the UI draws on: in UI mode it goes to a file (--log,
// by default a file of the run's own in the temporary directory, ackattack-client-PID.log),
// headless to standard error.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/cmd/internal/cli"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/hostloop"
	"github.com/ackattack/ackattack/game/lesson"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/ui"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cmd := cli.New(cli.Binary{
		Name:          "client",
		Summary:       "Joins an AckAttack game (or hosts one with a bot when --connect is empty).",
		HeadlessUsage: "run without the terminal UI: status lines on standard output, chat from standard input",
		RecordWhat:    "this client's socket (not an embedded server's)",
		LogLevel:      slog.LevelWarn,
	})
	fs := cmd.Flags
	connect := fs.String("connect", "", "server address; empty: host an embedded server with one bot on a free loopback port")
	listen := fs.String("listen", "", "local `address` of this client's one socket, for the server and the direct links from other players (default: the address of the interface that reaches the server, any free port)")
	name := fs.String("name", "", "player name (default: your user name, or \"player\" if the game refuses it)")
	bot := fs.Bool("bot", false, "let a bot play for you (with --spectate, it only chats)")
	spectate := fs.Bool("spectate", false, "watch without a seat, as a spectator: the map, your link's debug panel and the chat, no orders (a teacher's projector); without --connect, two bots play the embedded game")
	seed := fs.Uint64("seed", 1, "seed of the bot (and of the embedded server's world)")
	inject := fs.Duration("inject-desync", 0, "corrupt one of your units every this long (to watch detection and repair)")
	quiet := fs.Bool("quiet", false, "print no status lines (--headless)")
	replayPath := fs.String("replay", "", "play back this `capture` (written by --record, with its .keys file beside it) in the terminal UI: the debug panel, pause, step, speed, seek to the next re-sync; headless, print it; no game is played")
	identityPath := fs.String("identity", "", "keep your player id, and the secret a server gives you on your first join, in this `file` (created with mode 0600), instead of the one kept for the server and --name in your configuration directory (an embedded game or a lesson neither reads nor writes it: their server is not the one of --connect)")
	newIdentity := fs.Bool("new-identity", false, "join as a new player: forget the identity kept for the server of --connect and --name (or in --identity's file), and keep a new one")
	lessonArg := fs.String("lesson", "", "play lesson `N` (1-9), or a lesson script FILE: an embedded game scripted for one idea, with a panel that explains it step by step (F4 in the UI lists the lessons)")
	if exit, ok := cmd.Parse(args); !ok {
		return exit
	}
	if given(fs, "replay") {
		if *replayPath == "" {
			return cmd.Fail(cli.ExitUsage, errors.New("--replay is empty: give the capture to play"))
		}
		return runReplay(cmd, *replayPath)
	}
	if *inject < 0 {
		return cmd.Fail(cli.ExitUsage, errors.New("--inject-desync must not be negative"))
	}
	builtin, err := lesson.Builtin()
	if err != nil {
		return cmd.Fail(cli.ExitFailure, err) // a broken built-in lesson: a bug the tests catch
	}
	var running *lesson.Script
	if *lessonArg != "" {
		if *connect != "" {
			return cmd.Fail(cli.ExitUsage, errors.New("--lesson plays in an embedded game of its own: leave out --connect"))
		}
		if *spectate {
			return cmd.Fail(cli.ExitUsage, errors.New("--lesson needs you at the controls: leave out --spectate"))
		}
		if running, err = lesson.Find(*lessonArg, builtin); err != nil {
			return cmd.Fail(cli.ExitUsage, fmt.Errorf("--lesson %s: %w", *lessonArg, err))
		}
	}
	if *connect != "" {
		a, err := cli.ServerAddr("connect", *connect)
		if err != nil {
			return cmd.Fail(cli.ExitUsage, err)
		}
		*connect = a
	}
	if *name == "" {
		if given(fs, "name") {
			// A script that passes an empty variable meant some name: it gets no default.
			return cmd.Fail(cli.ExitUsage, errors.New(`--name is empty: give a name, or leave the flag out for the default (your user name, or "player" if the game refuses it)`))
		}
		*name = defaultName()
	}
	if err := game.CheckPlayerName(*name); err != nil {
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--name: %w", err))
	}
	if *listen != "" { // empty: the interface that reaches the server, any free port
		a, err := cli.ListenAddr("listen", *listen)
		if err != nil {
			return cmd.Fail(cli.ExitUsage, err)
		}
		*listen = a
	}
	// Who the player is: the --identity file, or else, for a player who joins a server, the
	// identity kept for that server and name (identity_store.go), so that running the same
	// command again gets the seat back. Anything else is a new player every time.
	var id identity
	var keep func(identity) error // keeps the secret a server gives; nil: kept nowhere
	keptWhere := "--identity"
	keeps := *identityPath != "" || *connect != "" && !*spectate && !*bot
	if *newIdentity && !keeps {
		return cmd.Fail(cli.ExitUsage, errors.New("--new-identity: only a player who joins with --connect keeps an identity (an embedded game, a lesson, --spectate and --bot start a new player every time), or one with --identity FILE"))
	}
	if *identityPath != "" {
		var err error
		if *newIdentity {
			id = identity{Player: uuid.New()}
			err = saveIdentity(*identityPath, id)
		} else {
			id, err = openIdentity(*identityPath)
		}
		if err != nil {
			return cmd.Fail(cli.ExitUsage, fmt.Errorf("--identity: %w", err))
		}
		path := *identityPath
		keep = func(id identity) error { return saveIdentity(path, id) }
	}
	if err := cmd.Open(); err != nil {
		return cmd.Fail(cli.ExitFailure, err)
	}
	defer cmd.Close()
	var notice string // for the player to read once
	if keeps && *identityPath == "" {
		id, keep, notice = keptIdentity(*connect, *name, *newIdentity)
		keptWhere = "the identity kept for " + *connect
		if notice != "" && cmd.Headless {
			cmd.Warn(notice)
		} else if notice != "" {
			cmd.Logger.Warn(notice)
		}
	}

	ctx, stop := cmd.Context()
	defer stop()

	// One game after another: a lesson picked from the UI's menu ends the game on screen and
	// starts the lesson's own, until the player quits or ctx ends.
	g := gameSetup{cmd: cmd, connect: *connect, listen: *listen, name: *name, bot: *bot, seed: *seed, inject: *inject,
		quiet: *quiet, spectate: *spectate, id: id, keep: keep, keptWhere: keptWhere, notice: notice, lesson: running, lessons: builtin}
	var c *hostloop.Client
	var addr string
	var runErr, uiErr error
	connected := false // in any game of the run
	for {
		var next *lesson.Script
		c, addr, next, runErr, uiErr = g.play(ctx)
		if c == nil {
			return cli.ExitFailure // play said why
		}
		connected = connected || !c.Stats().Server.Since.IsZero()
		if next == nil || ctx.Err() != nil || uiErr != nil {
			break
		}
		g.connect, g.lesson, g.spectate = "", next, false
	}
	recordErr := cmd.CloseRecord() // Run closed the socket
	// The connection to the server is what a run is for: one that never came up is a failure,
	// however the run ended, and the report (of the last game) says so.
	st := c.Stats()
	if err := cmd.WriteStats(report{Report: c.Report(), Connected: connected}); err != nil {
		return cmd.Fail(cli.ExitFailure, err)
	}
	if uiErr != nil {
		return cli.ExitFailure
	}
	if recordErr != nil {
		return cmd.Fail(cli.ExitFailure, recordErr)
	}
	if !connected {
		why := st.Err // the handshake timed out, or the server refused
		if why == "" {
			why = "the run ended while connecting"
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				why += fmt.Sprintf(" (--duration %v)", cmd.Duration)
			}
		}
		return cmd.Fail(cli.ExitFailure, fmt.Errorf("never connected to %s: %s", addr, why))
	}
	if runErr != nil {
		return cmd.Fail(cli.ExitFailure, runErr)
	}
	return cli.ExitOK
}

// gameSetup is what a game of this run is made of: the flags, and the lesson it plays (nil:
// the game of the flags, an embedded one with a bot or the server of --connect).
type gameSetup struct {
	cmd             *cli.Command
	connect, listen string
	name            string
	bot, quiet      bool
	spectate        bool // watch without a seat (never in a lesson, which needs the player)
	seed            uint64
	inject          time.Duration
	id              identity
	keep            func(identity) error // keeps the secret the server of connect gives; nil: kept nowhere
	keptWhere       string               // where keep keeps it, for the log
	notice          string               // for the player to read once, in the UI (headless: printed)
	lesson          *lesson.Script
	lessons         []*lesson.Script // the built-in lessons, for the UI's menu
}

// play runs one game until ctx ends, the player quits, the connection ends (headless), or
// the player picks a lesson in the UI (next): the client (nil if it could not start: the
// error is printed), the server's address, the lesson picked, and the errors of the game's
// run and of the UI.
func (g *gameSetup) play(ctx context.Context) (c *hostloop.Client, addr string, next *lesson.Script, runErr, uiErr error) {
	cmd, logger := g.cmd, g.cmd.Logger
	// gameCtx ends the game: when ctx ends (signal, --duration), when the player quits the
	// UI, or when the client's Run returns, which stops the embedded server too.
	gameCtx, stopGame := context.WithCancel(ctx)
	defer stopGame()
	serverDone := make(chan error, 1)
	var srv *hostloop.Server
	addr, hosting := g.connect, ""
	if addr == "" {
		scfg := game.ServerConfig{Listen: "127.0.0.1:0", Bots: 1, Seed: g.seed, MinPlayers: 1, StartDelay: time.Second, Late: cmd.Late, Logger: logger}
		if g.spectate {
			// A spectator is no player: two bots play, and the game starts without waiting.
			scfg.Bots, scfg.MinPlayers = 2, 0
		}
		if g.lesson != nil {
			scfg = g.lesson.ServerConfig(scfg)
		}
		if !cmd.Headless {
			scfg.Transport.Link = &transport.LinkSettings{}
		}
		var err error
		if srv, err = hostloop.NewServer(scfg); err != nil {
			cmd.Fail(cli.ExitFailure, fmt.Errorf("embedded server: %w", err))
			return nil, "", nil, nil, nil
		}
		addr, hosting = srv.Addr(), srv.Addr()
		go func() { serverDone <- srv.Run(gameCtx) }()
		if cmd.Headless && !g.quiet {
			if g.lesson != nil {
				fmt.Printf("hosting lesson %d on %s: %s\n", g.lesson.Number, addr, g.lesson.Title)
			} else {
				fmt.Printf("hosting an embedded game on %s with %d bot(s)\n", addr, scfg.Bots)
			}
		}
	} else {
		close(serverDone)
	}
	cfg := game.ClientConfig{Connect: addr, Listen: g.listen, Name: g.name, Bot: g.bot, Seed: g.seed, InjectDesync: g.inject, Late: cmd.Late,
		Spectate: g.spectate, Logger: logger}
	// The identity is the one a real server knows: an embedded game (a lesson too) hands out
	// a secret of its own, which must not overwrite the class server's where it is kept, or the
	// student comes back from a lesson to a seat that no longer opens.
	if g.keep != nil && g.connect != "" {
		cfg.PlayerID, cfg.Secret = g.id.Player, g.id.Secret
		keep, where := g.keep, g.keptWhere
		cfg.OnSecret = func(player uuid.UUID, secret game.Secret) {
			if err := keep(identity{Player: player, Secret: secret}); err != nil {
				logger.Error("the secret the server gave is not kept: a restart will be a new player", "in", where, "err", err)
			}
		}
	}
	if cfg.PlayerID == uuid.Nil {
		cfg.PlayerID = uuid.New() // a lesson finds the server's end of the connection by it
	}
	cfg.Transport.Link = cmd.Link
	if g.lesson != nil {
		cfg = g.lesson.ClientConfig(cfg)
		ls := g.lesson.Link() // the lesson sets the link, and its steps change it
		cfg.Transport.Link = &transport.LinkSettings{Out: ls, In: ls}
	}
	cfg.Transport.LinkSeed = cli.LinkSeed("client", g.name, g.seed)
	cfg.Transport.DebugViews = cfg.Transport.DebugViews || !cmd.Headless // the UI's debug panel reads them
	cmd.TapAndKeys(&cfg.Transport.Config)
	cfg.Trace = cmd.Trace
	c, err := hostloop.NewClient(cfg)
	if err != nil {
		stopGame()
		<-serverDone
		cmd.Fail(cli.ExitFailure, err)
		return nil, "", nil, nil, nil
	}
	var host lesson.Host
	if g.lesson != nil {
		host = lesson.Embedded{Server: srv, Client: c, Player: cfg.PlayerID}
	}
	if cmd.Headless {
		go readChat(gameCtx, c)
		statusDone := make(chan struct{})
		go func() {
			defer close(statusDone)
			if host != nil {
				runLesson(gameCtx, lesson.NewDriver(g.lesson, host), g.quiet)
			} else if !g.quiet {
				printStatus(gameCtx, c)
			}
		}()
		runErr = c.Run(gameCtx)
		stopGame()
		<-statusDone // no status line may come after what run prints at exit
		<-serverDone
		return c, addr, nil, runErr, nil
	}
	// The game runs on its own goroutine and the UI on this one, until the player quits, picks
	// a lesson, or ctx ends. If the game ends first (disconnected), the UI stays up to show it.
	runDone := make(chan error, 1)
	go func() { runDone <- c.Run(gameCtx) }()
	opts := ui.ClientOptions{Client: c, Logger: logger, Hosting: hosting, Notice: g.notice,
		Lessons: ui.LessonOptions{Scripts: g.lessons, Running: g.lesson, Host: host, Start: func(s *lesson.Script) { next = s }}}
	if hosting == "" {
		opts.Lessons.Elsewhere = addr
	}
	uiErr = cmd.RunUI(func() error { return ui.RunClient(ctx, opts) })
	stopGame()
	runErr = <-runDone
	<-serverDone
	if next != nil && errors.Is(runErr, game.ErrDisconnected) {
		runErr = nil // the player left this game for a lesson
	}
	return c, addr, next, runErr, uiErr
}

// runLesson walks a lesson headless, ten times a second, and prints each step as it comes
// (unless quiet), until ctx ends.
func runLesson(ctx context.Context, d *lesson.Driver, quiet bool) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	shown, done := -1, false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p := d.Tick(time.Now())
		if quiet || !d.Runner().Begun() || d.Runner().Step() == shown && p.Done == done {
			continue
		}
		shown, done = d.Runner().Step(), p.Done
		if p.Done {
			fmt.Printf("lesson %d done\n", p.Number)
			continue
		}
		fmt.Printf("lesson %d, step %d of %d: %s\n", p.Number, p.Current+1, len(p.Steps), p.Steps[p.Current])
		for _, l := range p.Text {
			fmt.Println("  " + l)
		}
	}
}

// report is the client's --stats report: the game's, and whether the connection to the server
// was ever up during the run.
type report struct {
	game.Report
	Connected bool `json:"connected"`
}

func defaultName() string {
	for _, v := range []string{"USER", "LOGNAME"} {
		// A user name the game refuses (a teacher's account "admin" or "teacher" is reserved,
		// and so is one with characters a name may not hold) is no default: the projector's
		// command names nobody, and must not be refused for it.
		if n := os.Getenv(v); n != "" && game.CheckPlayerName(n) == nil {
			return n
		}
	}
	return "player"
}

// readChat sends every line typed on standard input as a chat line.
func readChat(ctx context.Context, c *hostloop.Client) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		select {
		case <-ctx.Done():
			return
		default:
			c.Do(func(c *game.Client, now time.Time) {
				if err := c.Say(now, line); err != nil {
					fmt.Fprintln(os.Stderr, "client: chat line not sent:", err)
				}
			})
		}
	}
}

// printStatus prints a status line every second and the chat lines as they arrive.
func printStatus(ctx context.Context, c *hostloop.Client) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var shown uint64 // lines of the conversation already looked at
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s := c.Snapshot()
		// The snapshot holds the latest lines of the conversation and a count of all of them:
		// the new ones are its last ChatTotal-shown (all it holds, if more came).
		fresh := s.Chat[len(s.Chat)-int(min(s.ChatTotal-shown, uint64(len(s.Chat)))):]
		for _, l := range fresh {
			if !l.Own {
				fmt.Printf("<%s> %s\n", l.From, l.Text)
			}
		}
		shown = s.ChatTotal
		state := "RUNNING"
		switch {
		case !s.Started:
			state = s.State.String()
		case s.Paused:
			state = "RE-SYNCING"
		case s.Waiting:
			state = "WAITING FOR SYNC ACK"
		case s.Spectator != nil:
			state = "SPECTATING: " + s.Spectator.WhyText()
		}
		lead := ui.Lead{Time: time.Duration(s.Game.LeadTimeMillis) * time.Millisecond, Fixed: s.LeadFixed}.WithNext(s.LeadNext, s.FrameDur)
		fmt.Printf("frame %d  %s  rtt %.0f ms  loss %.1f%%  late %d  resyncs %d/%d%s  %s\n",
			s.Frame, lead, s.Net.RTTMillis, s.Net.LossPercent, s.Game.CommandsLate,
			s.Sync.RealtimeResyncs, s.Sync.StopWorldResyncs, classLinkText(s), state)
	}
}

// classLinkText is the status line's word on the link the teacher gave the class, once there
// is one ("  class link: lat 75ms"), and why this client's link does not have it, if it does not.
func classLinkText(s *game.ClientSnapshot) string {
	switch {
	case s.ClassLink == nil:
		return ""
	case s.ClassLinkErr != "":
		return "  class " + ui.LinkText(*s.ClassLink) + " NOT APPLIED: " + s.ClassLinkErr
	}
	return "  class " + ui.LinkText(*s.ClassLink)
}
