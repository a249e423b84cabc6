package hostloop

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// TestTryDoFullQueue: TryDo never blocks a screen: with the queue full (nothing runs the
// loop) it refuses at once.
func TestTryDoFullQueue(t *testing.T) {
	srv, err := NewServer(game.ServerConfig{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(game.ClientConfig{Connect: srv.Addr(), Name: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.sock.Close(); c.sock.Close() })
	for _, tt := range []struct {
		name  string
		tryDo func() bool
	}{
		{"client", func() bool { return c.TryDo(func(*game.Client, time.Time) {}) }},
		{"server", func() bool { return srv.TryDo(func(*game.Server, time.Time) {}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i := range intentQueue {
				if !tt.tryDo() {
					t.Fatalf("TryDo refused intent %d of a queue of %d", i+1, intentQueue)
				}
			}
			done := make(chan bool)
			go func() { done <- tt.tryDo() }()
			select {
			case ok := <-done:
				if ok {
					t.Error("TryDo took an intent into a full queue")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("TryDo blocked on a full queue")
			}
		})
	}
}

// TestRealUDPGame: a server with a bot and a client over real loopback sockets and the wall
// clock: the client connects, plays in lockstep, an intent runs on its loop, and when the
// context ends both loops stop, close their sockets, leave no goroutine behind and keep their
// reports.
func TestRealUDPGame(t *testing.T) {
	t.Parallel()
	scfg := game.ServerConfig{Listen: "127.0.0.1:0", Bots: 1, MinPlayers: 1, StartDelay: 200 * time.Millisecond}
	scfg.Transport.Link = &transport.LinkSettings{}
	srv, err := NewServer(scfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(game.ClientConfig{Connect: srv.Addr(), Name: "ann", Bot: true})
	if err != nil {
		t.Fatal(err)
	}
	// The client stops first: a server that stopped first would tell it so ("server
	// shutdown"), and its Run would rightly return that.
	srvCtx, srvCancel := context.WithCancel(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	srvDone, done := make(chan error, 1), make(chan error, 1)
	go func() { srvDone <- srv.Run(srvCtx) }()
	go func() { done <- c.Run(ctx) }()
	waitUntil(t, "frame 20", func() bool { return c.Snapshot().Frame >= 20 })
	said := make(chan error, 1)
	c.Do(func(c *game.Client, now time.Time) { said <- c.Say(now, "hello") })
	if err := <-said; err != nil {
		t.Errorf("Say on the loop: %v", err)
	}
	if err := srv.SetLink(transport.LinkSettings{}); err != nil {
		t.Errorf("SetLink: %v", err)
	}
	// Junk for the server's socket: too long for any datagram, and too short for one.
	junk, err := net.Dial("udp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer junk.Close()
	junk.Write(make([]byte, 3000))
	junk.Write([]byte{1, 2, 3})
	waitUntil(t, "the server to count the junk", func() bool {
		r := srv.Stats().Rejected
		return r.Oversize == 1 && r.Malformed == 1
	})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("client Run: %v", err)
	}
	srvCancel()
	if err := <-srvDone; err != nil {
		t.Errorf("server Run: %v", err)
	}
	// The client is a bot, which chats too, from a frame near the end of the run: the line
	// said on the loop is among the lines sent, maybe not alone.
	if r := c.Report(); r.Frame < 20 || !slices.Contains(r.Chat.Sent, "hello") || len(r.WorldHashes) == 0 {
		t.Errorf("client report: frame %d, chat lines sent %q, %d world hashes", r.Frame, r.Chat.Sent, len(r.WorldHashes))
	}
	if r := srv.Report(); r.Frame < 20 || r.Role != "server" {
		t.Errorf("server report: %+v", r)
	}
	// Written after the server dropped every connection, the report still counts them, and
	// the socket's own rejections are in it: the two junk datagrams, and whatever the client
	// still had on its way when it closed first (counted as after the close).
	if r := srv.Report(); r.Net.PacketsReceived == 0 || r.Rejected.Oversize != 1 || r.Rejected.Malformed != 1 || r.Rejected.Total != 2+r.Rejected.AfterClose {
		t.Errorf("server report: net %+v, rejected %+v", r.Net, r.Rejected)
	}
}

// TestClassLinkOnTheSocket: over real sockets, the link setting the server gives the class
// lands on the conditioner under each client's socket, both ways: a client started with a link
// setting (the UI's sliders, link flags) and one started without (headless, no link flag)
// alike.
func TestClassLinkOnTheSocket(t *testing.T) {
	t.Parallel()
	srv, err := NewServer(game.ServerConfig{Listen: "127.0.0.1:0", Bots: 1, MinPlayers: 2, StartDelay: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ccfg := game.ClientConfig{Connect: srv.Addr(), Name: "ann"}
	ccfg.Transport.Link = &transport.LinkSettings{}
	withLink, err := NewClient(ccfg)
	if err != nil {
		t.Fatal(err)
	}
	without, err := NewClient(game.ClientConfig{Connect: srv.Addr(), Name: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	// The clients stop first: a server that stopped first would tell them so ("server
	// shutdown"), and their Run would rightly return that.
	srvCtx, srvCancel := context.WithCancel(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	srvDone, done := make(chan error, 1), make(chan error, 2)
	go func() { srvDone <- srv.Run(srvCtx) }()
	go func() { done <- withLink.Run(ctx) }()
	go func() { done <- without.Run(ctx) }()
	defer func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Errorf("client Run: %v", err)
			}
		}
		srvCancel()
		if err := <-srvDone; err != nil {
			t.Errorf("server Run: %v", err)
		}
	}()
	waitUntil(t, "both clients playing", func() bool { return withLink.Snapshot().Started && without.Snapshot().Started })
	class := linksim.Settings{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}
	pushed := make(chan error, 1)
	srv.Do(func(s *game.Server, now time.Time) { pushed <- s.PushLink(now, class) })
	if err := <-pushed; err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*Client{"ann": withLink, "bob": without} {
		waitUntil(t, "the class's link in "+name+"'s snapshot", func() bool { return c.Snapshot().ClassLink != nil })
		if s := c.Snapshot(); *s.ClassLink != class || s.ClassLinkErr != "" {
			t.Errorf("%s's snapshot: class link %+v, not applied: %q; want %+v, applied", name, *s.ClassLink, s.ClassLinkErr, class)
		}
		if ls, ok := c.Link(); !ok || ls.Out != class || ls.In != class {
			t.Errorf("%s's socket: link %+v (a conditioner: %v), want %+v both ways", name, ls, ok, class)
		}
	}
}

// waitUntil polls cond until it holds, and fails the test if it does not within a generous
// deadline (the loops run on the wall clock, which a loaded machine slows).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}
