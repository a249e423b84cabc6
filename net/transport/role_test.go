package transport

import (
	"sync"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/wire"
)

// TestRoleReachesTheServersOwner: what a client asks to be travels in its handshake and
// reaches the server's owner on the connection (Peer.Role), as the client set it; a client
// that sets none is a player.
func TestRoleReachesTheServersOwner(t *testing.T) {
	var mu sync.Mutex
	roles := map[string]wire.Role{}
	srv, err := Listen("127.0.0.1:0", ServerConfig{Config: Config{
		OnConnect: func(p *Peer, _ time.Time) {
			mu.Lock()
			roles[p.Name()] = p.Role()
			mu.Unlock()
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sl := startLoop(srv)
	var clients []*Client
	var loops []*loop
	for _, c := range []ClientConfig{{Name: "ann"}, {Name: "eve", Role: wire.RoleObserver}} {
		cli, err := Dial(srv.LocalAddr().String(), c)
		if err != nil {
			t.Fatal(err)
		}
		clients, loops = append(clients, cli), append(loops, startLoop(cli))
	}
	waitFor(t, "both connected", 3*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(roles) == 2 })
	for i, cli := range clients {
		loops[i].stop()
		if err := cli.Close(); err != nil {
			t.Error(err)
		}
	}
	sl.stop()
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	if roles["ann"] != wire.RolePlayer || roles["eve"] != wire.RoleObserver {
		t.Errorf("roles at the server: %v, want ann a player and eve an observer", roles)
	}
	verifyNoLeaks(t)
}
