package ui

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game/hostloop"
)

// ClientOptions configure the client screen.
type ClientOptions struct {
	Client *hostloop.Client
	// Host replaces Client as the source of snapshots and the receiver of intents (tests).
	Host ClientHost
	// Screen is where to draw; nil: the real terminal.
	Screen tcell.Screen
	Logger *slog.Logger
	// ExportDir is where the DOT export writes its files (default: the working directory).
	ExportDir string
	// FPS is how many times a second the screen is redrawn (default 10).
	FPS int
	// Hosting is the address of the embedded server when this client hosts the game.
	Hosting string
	// Notice, if not empty, is told on the screen as it starts: something the player should
	// read once (the identity that could not be kept, say).
	Notice string
	// Lessons are the lesson menu and the lesson on screen (client_lesson.go).
	Lessons LessonOptions
}

// ServerOptions configure the server screen.
type ServerOptions struct {
	Server *hostloop.Server
	Host   ServerHost // replaces Server (tests)
	Addr   string     // where the server listens (default: Server.Addr())
	// Join are the addresses players connect to (default: Addr); for a server bound to every
	// interface, the machine's LAN addresses (cmd/internal/cli's JoinAddrs).
	Join      []string
	Screen    tcell.Screen
	Logger    *slog.Logger
	ExportDir string
	FPS       int
}

// DefaultFPS is how often the screens redraw: the game's ten frames a second.
const DefaultFPS = 10

// screenModel is what runScreen drives: a screen that lays itself out for a size, reads its
// host once per frame and maps keys.
type screenModel interface {
	Root() tview.Primitive
	Resize(width, height int)
	Refresh(now time.Time)
	HandleKey(ev *tcell.EventKey, quit func()) *tcell.EventKey
}

// RunClient shows the client screen until the player quits or ctx is done (both nil), or the
// terminal fails (its error); the caller then stops the game. The game's Run must be running on
// its own goroutine: the screen only reads its snapshots and sends it intents.
func RunClient(ctx context.Context, opts ClientOptions) error {
	host := opts.Host
	if host == nil {
		if opts.Client == nil {
			return errors.New("ui: RunClient needs a Client or a Host")
		}
		host = GameClient(opts.Client)
	}
	return runScreen(ctx, opts.Screen, opts.FPS, func(app *tview.Application) screenModel {
		s := NewClientScreen(host, opts.ExportDir, func(p tview.Primitive) { app.SetFocus(p) })
		s.SetLessons(opts.Lessons)
		if opts.Hosting != "" {
			s.tell("hosting a game on " + opts.Hosting + ": others join with --connect " + opts.Hosting)
		}
		if opts.Notice != "" {
			s.tell(opts.Notice)
		}
		return s
	})
}

// RunServer shows the server screen until the user quits or ctx is done.
func RunServer(ctx context.Context, opts ServerOptions) error {
	host := opts.Host
	if host == nil {
		if opts.Server == nil {
			return errors.New("ui: RunServer needs a Server or a Host")
		}
		host = GameServer(opts.Server)
	}
	addr := opts.Addr
	if addr == "" && opts.Server != nil {
		addr = opts.Server.Addr()
	}
	return runScreen(ctx, opts.Screen, opts.FPS, func(app *tview.Application) screenModel {
		s := NewServerScreen(host, addr, opts.ExportDir, func(p tview.Primitive) { app.SetFocus(p) })
		s.SetJoin(opts.Join)
		return s
	})
}

// runScreen runs a screen model in a tview application until quit, ctx or a terminal error.
func runScreen(ctx context.Context, screen tcell.Screen, fps int, build func(app *tview.Application) screenModel) error {
	return newScreenRunner(screen, fps, build).run(ctx)
}

// screenRunner is a tview application around a screen model. One goroutine, the ticker, reads
// the host and redraws once per frame through QueueUpdateDraw; key handlers only change the
// widgets. In tview QueueUpdate waits until the event loop has run the function, so a call
// made after Run returned would wait forever: the ticker is therefore the one that stops the
// application (on quit or ctx), and it starts only once the loop has drawn its first frame.
type screenRunner struct {
	app      *tview.Application
	model    screenModel
	fps      int
	quit     chan struct{}
	quitOnce sync.Once
	started  chan struct{}
}

func newScreenRunner(screen tcell.Screen, fps int, build func(app *tview.Application) screenModel) *screenRunner {
	if fps <= 0 {
		fps = DefaultFPS
	}
	r := &screenRunner{app: tview.NewApplication(), fps: fps, quit: make(chan struct{}), started: make(chan struct{})}
	if screen != nil {
		r.app.SetScreen(screen)
	}
	r.model = build(r.app)
	var startOnce sync.Once
	r.app.SetBeforeDrawFunc(func(sc tcell.Screen) bool {
		w, h := sc.Size()
		r.model.Resize(w, h)
		startOnce.Do(func() { close(r.started) })
		return false
	})
	r.app.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey { return r.model.HandleKey(ev, r.requestQuit) })
	r.app.EnableMouse(true).SetRoot(r.model.Root(), true)
	r.model.Refresh(time.Now())
	return r
}

func (r *screenRunner) requestQuit() { r.quitOnce.Do(func() { close(r.quit) }) }

func (r *screenRunner) run(ctx context.Context) error {
	runDone := make(chan struct{})
	tickerDone := make(chan struct{})
	go func() {
		defer close(tickerDone)
		select {
		case <-r.started:
		case <-runDone:
			return // Run failed before its first draw
		}
		t := time.NewTicker(time.Second / time.Duration(r.fps))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				r.app.Stop()
				return
			case <-r.quit:
				r.app.Stop()
				return
			case <-t.C:
				r.app.QueueUpdateDraw(func() { r.model.Refresh(time.Now()) })
			}
		}
	}()
	err := r.app.Run()
	close(runDone)
	if err != nil {
		// The terminal failed under the loop. The ticker may be inside a QueueUpdateDraw that
		// will never run: it cannot be waited for, and the process is about to report the
		// error and exit anyway.
		return err
	}
	// Run returns nil only after the ticker's Stop: the ticker has left its loop.
	<-tickerDone
	return nil
}
