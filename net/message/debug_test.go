package message

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
	"github.com/ackattack/ackattack/net/packet"
)

// TestDebugViews: the packet history shows a lost packet among acked ones.
func TestDebugViews(t *testing.T) {
	srv, cli := newEndpoint("server", Config{}), newEndpoint("client", Config{})
	now := base
	var a depgraph.Dependency
	mustSend(t, srv.conn, now, "A", nil, &a)
	srv.packet(t, now, false) // lost
	mustSend(t, srv.conn, now, "B", []*depgraph.Dependency{&a}, nil)
	cli.deliver(t, now, srv.packet(t, now, false))
	now = now.Add(10 * time.Millisecond)
	srv.deliver(t, now, cli.packet(t, now, true))

	s := srv.conn.Debug()
	if len(s.History) != 2 || s.History[0].State != packet.Lost || s.History[1].State != packet.Acked {
		t.Fatalf("history %+v, want the first packet lost and the second acked", s.History)
	}
	if s.Outgoing != nil || s.Incoming != nil {
		t.Errorf("a connection without Config.History gave a message history: %d out, %d in", len(s.Outgoing), len(s.Incoming))
	}
}
