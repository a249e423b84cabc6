package hostloop

import (
	"context"
	"fmt"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// maxBatch bounds the datagrams handled between two Ticks, so that a flood cannot hold off
// frames, resends and timeouts for long (the same bound as transport.Run's).
const maxBatch = 8

// intentQueue is how many intents may wait for the loop.
const intentQueue = 64

// loop is the part Server and Client share.
type loop[S game.Session] struct {
	sess    S
	sock    *transport.Socket
	intents chan func(S, time.Time)
	report  game.Report
}

// run is the loop: until ctx is done or stop reports an error after a Tick. It shuts the
// session down and closes the socket when it returns.
func (l *loop[S]) run(ctx context.Context, stop func() error, final func() game.Report) (err error) {
	defer func() {
		l.sess.Shutdown(time.Now())
		l.report = final()
		if cerr := l.sock.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		l.sess.Tick(now)
		if err := stop(); err != nil {
			return err
		}
		wait := l.sess.NextDeadline(now).Sub(time.Now())
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return nil
		case d, ok := <-l.sock.Datagrams():
			if !ok {
				return transport.ErrClosed
			}
			l.handle(d)
			// What else is already waiting is handled before the next Tick: a loop that fell
			// behind catches up in batches instead of paying a Tick per datagram.
		drain:
			for range maxBatch - 1 {
				select {
				case d, ok := <-l.sock.Datagrams():
					if !ok {
						return transport.ErrClosed
					}
					l.handle(d)
				default:
					break drain
				}
			}
		case f := <-l.intents:
			now := time.Now()
			f(l.sess, now)
			l.sess.Intent(now)
		case <-timer.C:
		}
	}
}

func (l *loop[S]) handle(d transport.Datagram) {
	l.sess.Handle(time.Now(), d)
	l.sock.Release(d)
}

// Do runs f on the loop (an intent of a test or a program), waiting for room in the queue.
func (l *loop[S]) Do(f func(S, time.Time)) { l.intents <- f }

// TryDo is Do that never blocks: it reports false, and drops f, when the queue is full. A user
// interface uses it so that a busy host can never freeze the screen.
func (l *loop[S]) TryDo(f func(S, time.Time)) bool {
	select {
	case l.intents <- f:
		return true
	default:
		return false
	}
}

// Link returns the socket's link conditioner settings (false: it has none).
func (l *loop[S]) Link() (transport.LinkSettings, bool) { return l.sock.Link() }

// SetLink changes the link conditioner's settings (safe from any goroutine).
func (l *loop[S]) SetLink(s transport.LinkSettings) error { return l.sock.SetLink(s) }

// Report is the session's --stats report as it was when Run returned (the zero Report before).
// Call it after Run returned.
func (l *loop[S]) Report() game.Report { return l.report }

// Server runs a game.Server on a UDP socket.
type Server struct {
	loop[*game.Server]
}

// NewServer opens the socket cfg.Listen names (default 127.0.0.1:7777), with a link
// conditioner when cfg.Transport.Link is set, and makes the session; Run runs it.
func NewServer(cfg game.ServerConfig) (*Server, error) {
	addr := cfg.Listen
	if addr == "" {
		addr = "127.0.0.1:7777"
	}
	sock, err := transport.OpenSocket(addr, cfg.Transport.SocketOptions())
	if err != nil {
		return nil, err
	}
	cfg.Transport.CountSocket = sock // its overflow and oversize counts go into the report
	sess, err := game.NewServer(cfg, sock)
	if err != nil {
		sock.Close()
		return nil, err
	}
	return &Server{loop[*game.Server]{sess: sess, sock: sock, intents: make(chan func(*game.Server, time.Time), intentQueue)}}, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.sock.LocalAddr().String() }

// Snapshot returns the session's latest snapshot (safe from any goroutine).
func (s *Server) Snapshot() *game.ServerSnapshot { return s.sess.Snapshot() }

// Stats returns the transport's latest statistics (safe from any goroutine).
func (s *Server) Stats() transport.ServerStats { return s.sess.Transport().Stats() }

// Run runs the server until ctx is done. It closes the socket when it returns.
func (s *Server) Run(ctx context.Context) error {
	return s.run(ctx, func() error { return nil }, s.sess.Report)
}

// Client runs a game.Client on a UDP socket: one socket for the server connection and the
// direct links to other players.
type Client struct {
	loop[*game.Client]
}

// NewClient opens a socket towards the server cfg.Connect names, on cfg.Listen (by default the
// address of the interface that reaches the server), with a link conditioner of
// cfg.Transport.Link's settings (a perfect link when it is nil), and makes the session; Run
// runs it.
func NewClient(cfg game.ClientConfig) (*Client, error) {
	server, err := transport.ResolveServer(cfg.Connect)
	if err != nil {
		return nil, err
	}
	local := cfg.Listen
	if local == "" {
		local = transport.LocalFor(server)
	}
	so := cfg.Transport.SocketOptions()
	if so.Link == nil {
		// Every client's socket has a conditioner, a pass-through without a setting, so that
		// the teacher's link for the class reaches every client, with a terminal UI or
		// headless, with link flags or without (BenchmarkSocketRoundTrip measures the cost).
		so.Link = &transport.LinkSettings{}
	}
	sock, err := transport.OpenSocket(local, so)
	if err != nil {
		return nil, fmt.Errorf("game: open a socket: %w", err)
	}
	cfg.Transport.CountSocket = sock // its overflow and oversize counts go into the report
	if cfg.OnClassLink == nil {
		// The teacher's link for the class goes on the socket's conditioner, both ways, as the
		// sliders' settings do.
		cfg.OnClassLink = func(ls linksim.Settings) error { return sock.SetLink(transport.LinkSettings{Out: ls, In: ls}) }
	}
	sess, err := game.NewClient(cfg, sock, server)
	if err != nil {
		sock.Close()
		return nil, err
	}
	return &Client{loop[*game.Client]{sess: sess, sock: sock, intents: make(chan func(*game.Client, time.Time), intentQueue)}}, nil
}

// Addr is the address of the client's socket.
func (c *Client) Addr() string { return c.sock.LocalAddr().String() }

// Snapshot returns the session's latest snapshot (safe from any goroutine).
func (c *Client) Snapshot() *game.ClientSnapshot { return c.sess.Snapshot() }

// Stats returns the transport's latest statistics of the server connection (safe from any
// goroutine).
func (c *Client) Stats() transport.ClientStats { return c.sess.Transport().Stats() }

// Run runs the client until ctx is done or the connection ends (then the error wraps
// game.ErrDisconnected and says why). It closes the socket when it returns.
func (c *Client) Run(ctx context.Context) error {
	return c.run(ctx, c.sess.Ended, c.sess.Report)
}
