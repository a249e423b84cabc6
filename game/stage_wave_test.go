package game

import (
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
)

// TestWaveBounds: a wave before the game, or beyond its bounds, and waves too close together
// or too far apart, are refused and change nothing.
func TestWaveBounds(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 3, bots: 1})
	st := StageOf(g.srv)
	if _, err := st.SpawnWave(g.now, 1, 1); err == nil {
		t.Error("a wave before the game started")
	}
	g.waitFor(5*time.Second, "the game started", func() bool { return g.srv.clock.running })
	for _, tt := range []struct {
		name           string
		enemies, lines int
		ok             bool
	}{
		{"the teacher's", WaveEnemies, WaveLines, true},
		{"the largest", maxWaveEnemies, maxWaveLines, true},
		{"lines only", 0, 2, true},
		{"too many enemies", maxWaveEnemies + 1, 0, false},
		{"too many lines", 0, maxWaveLines + 1, false},
		{"fewer than none", -1, 0, false},
	} {
		spawned := g.srv.stats.EnemiesSpawned
		n, err := st.SpawnWave(g.now, tt.enemies, tt.lines)
		if (err == nil) != tt.ok {
			t.Errorf("%s: SpawnWave(%d, %d): %v, want ok %v", tt.name, tt.enemies, tt.lines, err, tt.ok)
		}
		if got := g.srv.stats.EnemiesSpawned - spawned; got != uint64(n) || tt.ok && n != tt.enemies {
			t.Errorf("%s: %d enemies spawned, SpawnWave said %d, want %d", tt.name, got, n, max(tt.enemies, 0))
		}
	}
	for _, tt := range []struct {
		every time.Duration
		ok    bool
	}{
		{WaveEvery, true}, {0, true}, {minWaveEvery, true}, {maxWaveEvery, true},
		{minWaveEvery - 1, false}, {maxWaveEvery + 1, false}, {-time.Second, false},
	} {
		before := st.Waves()
		err := st.SetWaves(g.now, tt.every)
		if (err == nil) != tt.ok {
			t.Errorf("SetWaves(%v): %v, want ok %v", tt.every, err, tt.ok)
		}
		if want := map[bool]time.Duration{true: tt.every, false: before}[tt.ok]; st.Waves() != want {
			t.Errorf("SetWaves(%v): waves every %v, want %v", tt.every, st.Waves(), want)
		}
	}
}

// TestWavesAtClassLoss: the class's game at the 30% preset (F7: every client's link loses 30%
// each way), two server bots, two players and a spectator. Without waves every kill comes
// long after its spawn and names none on the wire. With the teacher's waves, kills and chat
// lines arrive before what they depend on and wait in every client's graph, the spectator's
// too, and the server's own graph shows a kill acknowledged and waiting on its spawn; the
// event log says when waves start and stop, not every spawn of them; and the worlds agree.
func TestWavesAtClassLoss(t *testing.T) {
	t.Parallel()
	// A seeded game in which the server's graph shows such a kill: three or four seeds in
	// twelve show none in this short game, and which ones moves with any change of timing
	// (the handshake's spread retries moved it off seed 21, and the tail probe and the ack of
	// a gap, which find a lost spawn before its kill goes more often, and the copies of old
	// resends, off seed 22: of seeds 20 to 31, looked at every 20 ms, 20, 22, 28 and 30 showed
	// none with the probes).
	g := newVGame(t, vspec{seed: 23, bots: 2, clients: 2, link: linksim.Settings{LossPercent: 30}})
	watcher := g.joinWatcher(func(c *ClientConfig) { c.Spectate = true })
	g.waitFor(15*time.Second, "every client running", func() bool {
		for _, c := range g.clients {
			if !clientRunning(c) {
				return false
			}
		}
		return true
	})
	st := StageOf(g.srv)

	// waited collects, by message type, the received messages that waited in each client's
	// graph (its history, read every 100 ms as a debug panel does), each once.
	type seen struct {
		waited map[MsgType]int
		serial map[uint64]bool
	}
	clients := make([]seen, len(g.clients))
	for i := range clients {
		clients[i] = seen{map[MsgType]int{}, map[uint64]bool{}}
	}
	serverWaits := 0 // snapshots of the server's graph with a kill acked, waiting on its spawn
	watch := func(d time.Duration) {
		for end := g.now.Add(d); g.now.Before(end); {
			g.run(100 * time.Millisecond)
			for i, c := range g.clients {
				for _, r := range c.tr.Stats().Server.Debug.Incoming {
					if r.Waited && !clients[i].serial[r.Serial] {
						clients[i].serial[r.Serial] = true
						clients[i].waited[MsgType(r.First)]++
					}
				}
			}
			for _, p := range g.srv.tr.Stats().Peers {
				if p.Name == g.clients[0].cfg.Name && ackedWaiting(p.Debug, MsgKillEnemy) {
					serverWaits++
				}
			}
		}
	}
	watch(10 * time.Second)
	for i, c := range clients {
		if c.waited[MsgKillEnemy] > 0 {
			t.Errorf("client %d: %d kills waited without waves; the test's premise is that none does", i, c.waited[MsgKillEnemy])
		}
	}
	spawnEvents := func() int {
		n := 0
		for _, e := range g.srv.stats.events.items {
			if strings.Contains(e, ": spawn ") {
				n++
			}
		}
		return n
	}
	spawned, logged := g.srv.stats.EnemiesSpawned, spawnEvents()

	if err := st.SetWaves(g.now, WaveEvery); err != nil {
		t.Fatal(err)
	}
	watch(20 * time.Second)
	if got := g.srv.Snapshot().Waves; got != WaveEvery {
		t.Errorf("the snapshot says waves every %v, want %v", got, WaveEvery)
	}
	for i, c := range clients {
		if c.waited[MsgKillEnemy] == 0 {
			t.Errorf("client %d: no kill waited on its spawn in 20 s of waves (waited: %v)", i, c.waited)
		}
	}
	chats := 0
	for _, c := range clients[:watcher] {
		chats += c.waited[MsgChat]
	}
	if chats == 0 {
		t.Error("no chat line waited on the one before in 20 s of waves")
	}
	if serverWaits == 0 {
		t.Error("the server's graph never showed a kill acknowledged and waiting on its spawn")
	}
	waveSpawns := g.srv.stats.EnemiesSpawned - spawned - uint64(spawnEvents()-logged)
	if waveSpawns < 9*WaveEnemies {
		t.Errorf("%d enemies spawned in waves without an event each; want at least nine waves' worth (%d)", waveSpawns, 9*WaveEnemies)
	}

	if err := st.SetWaves(g.now, 0); err != nil {
		t.Fatal(err)
	}
	spawned, logged = g.srv.stats.EnemiesSpawned, spawnEvents()
	g.run(10 * time.Second)
	if g.srv.Snapshot().Waves != 0 || g.srv.stats.EnemiesSpawned-spawned != uint64(spawnEvents()-logged) {
		t.Errorf("waves off: every %v, %d enemies spawned and %d spawn events; want no wave, and every spawn logged",
			g.srv.Snapshot().Waves, g.srv.stats.EnemiesSpawned-spawned, spawnEvents()-logged)
	}
	var on, off int
	for _, e := range g.srv.stats.events.items {
		switch {
		case strings.Contains(e, ": waves on "):
			on++
		case strings.HasSuffix(e, ": waves off"):
			off++
		}
	}
	if len(g.srv.stats.events.items) >= maxEventsShown {
		t.Fatalf("the event log is full (%d lines): the counts of spawn events above are off", len(g.srv.stats.events.items))
	}
	if on != 1 || off != 1 {
		t.Errorf("the event log says waves on %d times and off %d times, want once each", on, off)
	}
	checkAgree(t, g)
}

// ackedWaiting reports whether a connection's history shows a sent message of type typ
// acknowledged but not executed by the sender's graph: it waits there on a dependency.
func ackedWaiting(d *message.Debug, typ MsgType) bool {
	if d == nil {
		return false
	}
	for _, r := range d.Outgoing {
		if MsgType(r.First) == typ && !r.Acked.IsZero() && r.Executed.IsZero() {
			return true
		}
	}
	return false
}
