package game

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// sessionResult is what a loopback game leaves behind.
type sessionResult struct {
	server  Report
	clients []Report
	traces  []*bytes.Buffer // one per client, then the server's
}

// sessionSpec describes a loopback game: a server with bots and headless bot clients.
type sessionSpec struct {
	bots, clients int
	dur           time.Duration
	quiet         time.Duration                                        // bots stop this long before the end, so re-syncs can settle
	link          *transport.LinkSettings                              // under the server's socket: every client's path has it once each way
	during        func(ctx context.Context, srv *Server, cs []*Client) // runs while the game runs
	clientCfg     func(i int, c *ClientConfig)
}

func runSession(t *testing.T, sp sessionSpec) sessionResult {
	t.Helper()
	var res sessionResult
	srvTrace := new(bytes.Buffer)
	scfg := ServerConfig{Listen: "127.0.0.1:0", Bots: sp.bots, StartDelay: 500 * time.Millisecond, MinPlayers: sp.clients, Trace: srvTrace}
	scfg.Transport.Link = sp.link
	srv, err := NewServer(scfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sp.dur)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Run(ctx) }()
	cs := make([]*Client, sp.clients)
	for i := range cs {
		tr := new(bytes.Buffer)
		res.traces = append(res.traces, tr)
		cc := ClientConfig{Connect: srv.Addr(), Name: fmt.Sprintf("c%d", i+1), Bot: true, Seed: uint64(i + 1), Trace: tr}
		if sp.clientCfg != nil {
			sp.clientCfg(i, &cc)
		}
		c, err := NewClient(cc)
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = c
		wg.Add(1)
		go func() { defer wg.Done(); c.Run(ctx) }()
	}
	res.traces = append(res.traces, srvTrace)
	if sp.during != nil {
		sp.during(ctx, srv, cs)
	}
	if sp.quiet > 0 {
		select {
		case <-time.After(sp.dur - sp.quiet):
			srv.Do(func(s *Server) { s.StopBots(); s.StopSpawning() })
			for _, c := range cs {
				c.Do(func(c *Client) { c.StopBot() })
			}
		case <-ctx.Done():
		}
	}
	wg.Wait()
	res.server = srv.Snapshot().Report
	for _, c := range cs {
		res.clients = append(res.clients, c.Snapshot().Report)
	}
	return res
}

// detectionFrames is how long the server may take to notice a difference: hash reports cover
// every group once a second (10 frames), then a drill-down round trip. A difference in the
// last frames of a run may simply not have been reported yet.
const detectionFrames = 30

// checkHashesAfterResync: at every frame both recorded after the server's last re-sync (and
// early enough for a difference to have been detected), every client's world hash equals the
// server's. A difference at such a frame would be a drift the hash checks missed.
func checkHashesAfterResync(t *testing.T, res sessionResult) {
	t.Helper()
	last := res.server.Sync.LastResyncFrame
	for _, r := range res.clients {
		common := 0
		for f, h := range r.WorldHashes {
			n, _ := strconv.Atoi(f)
			sh, ok := res.server.WorldHashes[f]
			if !ok || uint32(n) <= last || uint32(n)+detectionFrames > res.server.Frame {
				continue
			}
			common++
			if sh != h {
				t.Errorf("%s: world hash at frame %s is %s, the server's %s (last re-sync at frame %d)", r.Name, f, h, sh, last)
			}
		}
		if common == 0 {
			t.Errorf("%s: no common frame with the server after the last re-sync (frame %d)", r.Name, last)
		}
	}
}

// checkChat: every line a player sent reached every other client once, in order. Lines sent
// in the last moments may still be on their way, so a received list may lack a short tail.
func checkChat(t *testing.T, res sessionResult) {
	t.Helper()
	sent := map[string][]string{}
	for _, r := range res.clients {
		sent[r.Name] = r.Chat.Sent
	}
	for _, line := range res.server.Chat.Sent { // the server's bots: "<name> N"
		name := line[:strings.LastIndexByte(line, ' ')]
		sent[name] = append(sent[name], line)
	}
	for _, r := range res.clients {
		got := map[string][]string{}
		for _, l := range r.Chat.Received {
			got[l.From] = append(got[l.From], l.Text)
		}
		for from, lines := range sent {
			if from == r.Name {
				if len(got[from]) != 0 {
					t.Errorf("%s received its own lines", r.Name)
				}
				continue
			}
			g := got[from]
			if len(g) > len(lines) || len(lines)-len(g) > 2 {
				t.Errorf("%s got %d of %s's %d lines", r.Name, len(g), from, len(lines))
			}
			for i := range g {
				if i < len(lines) && g[i] != lines[i] {
					t.Errorf("%s: line %d from %s is %q, want %q (lost, repeated or out of order)", r.Name, i, from, g[i], lines[i])
					break
				}
			}
		}
		if len(r.Chat.Received) == 0 {
			t.Errorf("%s received no chat", r.Name)
		}
	}
}

// checkKillsAfterSpawns: on every host, every executed kill comes after the spawn of its enemy.
func checkKillsAfterSpawns(t *testing.T, res sessionResult) {
	t.Helper()
	for i, tr := range res.traces {
		spawned := map[uint32]bool{}
		kills := 0
		sc := bufio.NewScanner(bytes.NewReader(tr.Bytes()))
		for sc.Scan() {
			var l traceLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("trace %d: %v: %s", i, err, sc.Text())
			}
			switch l.Type {
			case "SpawnEnemy":
				spawned[*l.ID] = true
			case "KillEnemy":
				kills++
				if !spawned[*l.ID] {
					t.Errorf("trace %d: kill of enemy %d executed before its spawn", i, *l.ID)
				}
			}
		}
		if i < len(res.traces)-1 && len(spawned) == 0 {
			t.Errorf("client trace %d: no spawn executed", i)
		}
	}
}

func logReports(t *testing.T, res sessionResult) {
	t.Logf("server: frame %d, sync %+v, game %+v", res.server.Frame, res.server.Sync, res.server.Game)
	for _, r := range res.clients {
		t.Logf("%s: frame %d, sync %+v, game %+v, net rtt %.0f ms loss %.1f%%, chat sent %d received %d",
			r.Name, r.Frame, r.Sync, r.Game, r.Net.RTTMillis, r.Net.LossPercent, len(r.Chat.Sent), len(r.Chat.Received))
	}
}

// e2eDuration is the length of the end-to-end games: 60 s as the issue asks, shorter with -short.
func e2eDuration() time.Duration {
	if testing.Short() {
		return 15 * time.Second
	}
	return 60 * time.Second
}

// TestEndToEndCleanLinkNoMismatch does not run in parallel with the other games: on a loaded
// machine a host whose loop is starved for more than the lead time issues or applies a command
// late, which is a real desync (the test would rightly see it), but one of the machine's
// making, not the network's.
func TestEndToEndCleanLinkNoMismatch(t *testing.T) {
	res := runSession(t, sessionSpec{bots: 2, clients: 3, dur: e2eDuration(), quiet: 3 * time.Second})
	logReports(t, res)
	if s := res.server.Sync; s.MismatchedUnits != 0 || s.RealtimeResyncs != 0 || s.StopWorldResyncs != 0 {
		t.Errorf("mismatches on a clean link: %+v", s)
	}
	checkHashesAfterResync(t, res)
	checkChat(t, res)
	checkKillsAfterSpawns(t, res)
}

func TestEndToEndLossyLink(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond}
	res := runSession(t, sessionSpec{bots: 2, clients: 3, dur: e2eDuration(), quiet: 8 * time.Second,
		link: &transport.LinkSettings{Out: lossy, In: lossy}})
	logReports(t, res)
	late := uint64(0)
	for _, r := range res.clients {
		late += r.Game.CommandsLate
	}
	if late == 0 {
		t.Errorf("no late commands at 10%% loss: the lead time covers every resend?")
	}
	checkHashesAfterResync(t, res)
	checkChat(t, res)
	checkKillsAfterSpawns(t, res)
}

// TestSnapshotsCarryTheWorld: the snapshots a user interface reads carry the map's name and
// copies of the units, on the server and on a client.
func TestSnapshotsCarryTheWorld(t *testing.T) {
	var units, clientUnits int
	runSession(t, sessionSpec{bots: 1, clients: 1, dur: 3 * time.Second, during: func(ctx context.Context, srv *Server, cs []*Client) {
		deadline := time.Now().Add(2500 * time.Millisecond)
		for time.Now().Before(deadline) {
			ss, cl := srv.Snapshot(), cs[0].Snapshot()
			if ss.Frame > 5 && cl.Frame > 5 {
				units, clientUnits = len(ss.Units), len(cl.Units)
				if cl.Map != "skirmish" || ss.Map != "skirmish" {
					t.Errorf("maps %q and %q", ss.Map, cl.Map)
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}})
	if units == 0 || clientUnits == 0 {
		t.Fatalf("snapshots without units: server %d, client %d", units, clientUnits)
	}
}
