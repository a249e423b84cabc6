package transport

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/wire"
)

// loop runs h's owner loop in a goroutine; stop ends it and waits.
type loop struct {
	do     chan func(now time.Time)
	cancel context.CancelFunc
	done   chan error
}

func startLoop(h Host) *loop {
	ctx, cancel := context.WithCancel(context.Background())
	l := &loop{do: make(chan func(time.Time)), cancel: cancel, done: make(chan error, 1)}
	go func() { l.done <- Run(ctx, h, l.do) }()
	return l
}

// call runs f on the loop and waits for it.
func (l *loop) call(f func(now time.Time)) {
	ch := make(chan struct{})
	l.do <- func(now time.Time) { f(now); close(ch) }
	<-ch
}

func (l *loop) stop() { l.cancel(); <-l.done }

// waitFor polls cond (on the caller's goroutine, so cond must only read thread-safe state)
// until it holds or the deadline passes.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSmokeConnectExchangeDisconnect(t *testing.T) {
	var mu sync.Mutex
	var serverGot, clientGot []string
	var serverBye wire.DisconnectReason
	srv, err := Listen("127.0.0.1:0", ServerConfig{Config: Config{
		OnMessage: func(p *Peer, _ time.Time, m *message.Message) {
			mu.Lock()
			serverGot = append(serverGot, string(m.Payload))
			mu.Unlock()
			p.Conn().SendGuaranteed(time.Now(), append([]byte("echo "), m.Payload...), nil, nil)
		},
		OnDisconnect: func(p *Peer, _ time.Time, r wire.DisconnectReason, text string) {
			mu.Lock()
			serverBye = r
			mu.Unlock()
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sl := startLoop(srv)
	cli, err := Dial(srv.LocalAddr().String(), ClientConfig{Name: "ann", Config: Config{
		OnMessage: func(p *Peer, _ time.Time, m *message.Message) {
			mu.Lock()
			clientGot = append(clientGot, string(m.Payload))
			mu.Unlock()
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cl := startLoop(cli)
	waitFor(t, "connected", 3*time.Second, func() bool { return cli.Stats().State == Connected })
	cl.call(func(now time.Time) {
		for i := range 10 {
			cli.Peer().Conn().SendGuaranteed(now, []byte{'0' + byte(i)}, nil, nil)
		}
	})
	waitFor(t, "echoes", 3*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(clientGot) == 10 })
	cl.call(func(now time.Time) { cli.Disconnect(now, "bye") })
	waitFor(t, "server learns the disconnect", 3*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return serverBye == wire.DisconnectClosed })
	cl.stop()
	sl.stop()
	if err := cli.Close(); err != nil {
		t.Error(err)
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	if st := srv.Stats(); st.Accepted != 1 {
		t.Fatalf("Accepted = %d", st.Accepted)
	}
	verifyNoLeaks(t)
}
