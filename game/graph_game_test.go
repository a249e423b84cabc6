package game

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
)

// What the debug panel's graph shows a class at 10% loss, checked in a real game in virtual
// time: the connections' histories (message.Debug, which the panel draws) hold a KillEnemy
// that arrived before its SpawnEnemy and waited for it, a chat line that waited for the line
// before it, and a chat line whose dependency the sender pruned, so that it travelled with
// none. The game's own pace rarely makes the first two happen (a kill comes seconds after its
// spawn, a bot chats every few seconds, and a lost message is resent within a round trip),
// so the test plays what a lesson would: the server kills each enemy it spawns one frame
// later, and a player types a line every 150 ms.

// graphRecords is the history of one side of a connection, with a way to find a record.
type graphRecords []message.Record

// bySeq is the newest record of seq, or nil.
func (rs graphRecords) bySeq(seq uint16) *message.Record {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Seq == seq {
			return &rs[i]
		}
	}
	return nil
}

// waitedFor finds a received message of type t that arrived before its dependency of type dep
// and executed only after it: what the graph view shows as "waits on #n" until the step where
// the dependency arrives.
func (rs graphRecords) waitedFor(t, dep MsgType) (msg, on *message.Record) {
	for m, d := range rs.waits(t, dep) {
		return m, d
	}
	return nil, nil
}

// waits yields every received message of type t that waited for its dependency of type dep
// (waitedFor), with that dependency.
func (rs graphRecords) waits(t, dep MsgType) iter.Seq2[*message.Record, *message.Record] {
	return func(yield func(msg, on *message.Record) bool) {
		for i := range rs {
			r := &rs[i]
			if MsgType(r.First) != t || r.Outgoing {
				continue
			}
			for _, e := range r.Deps {
				d := rs.bySeq(e.Seq)
				if d != nil && MsgType(d.First) == dep && d.Arrived.After(r.Arrived) && !r.Executed.Before(d.Executed) {
					if !yield(r, d) {
						return
					}
					break
				}
			}
		}
	}
}

// prunedChat finds a sent chat line whose every dependency the sender pruned.
func (rs graphRecords) prunedChat() *message.Record {
	for i := range rs {
		r := &rs[i]
		if MsgType(r.First) != MsgChat || !r.Outgoing || len(r.Deps) == 0 {
			continue
		}
		pruned := true
		for _, e := range r.Deps {
			pruned = pruned && e.Pruned
		}
		if pruned {
			return r
		}
	}
	return nil
}

// spawnNow has the server spawn an enemy at once, as its own spawning does, and returns the
// enemy's id and the frame it appears at.
func spawnNow(t testing.TB, s *Server, now time.Time, rng *rand.Rand) (id, frame uint32) {
	t.Helper()
	id, frame = s.enemies.nextID, s.w.Frame()+s.lead.cur+1
	if err := spawnEnemies(s, now, frame, 1, rng); err != nil {
		t.Fatal(err)
	}
	return id, frame
}

func TestGraphHistoryAtTenPercentLoss(t *testing.T) {
	lossy := linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
	g := newVGame(t, vspec{seed: 3, bots: 1, clients: 2, link: lossy})
	typist, watcher := g.clients[0], g.clients[1]
	g.waitFor(20*time.Second, "the game running on both clients", func() bool { return typist.w != nil && watcher.w != nil })

	var (
		kill, spawn   *message.Record // on the watcher's link from the server
		chat, prev    *message.Record // on the server's link from the typist
		pruned        *message.Record // the typist's, sent
		prunedArrived *message.Record // the same line on the server
	)
	nextLine, nextSpawn, nextCheck := g.now, g.now, g.now
	rng := rand.New(rand.NewPCG(3, 3))
	var killID, killFrame uint32
	lines := 0
	found := g.runUntil(g.now.Add(60*time.Second), func() bool {
		if killID != 0 {
			// The kill leaves a step after its spawn: another packet, which a loss of the
			// spawn's does not take with it.
			g.srv.enemies.killSent[killID] = true
			g.srv.scheduleKill(g.now, killID, killFrame+1)
			killID = 0
		}
		if !g.now.Before(nextSpawn) {
			killID, killFrame = spawnNow(t, g.srv, g.now, rng)
			nextSpawn = g.now.Add(300 * time.Millisecond)
		}
		if !g.now.Before(nextLine) {
			lines++
			if err := typist.Say(g.now, fmt.Sprintf("line %d", lines)); err != nil {
				t.Fatalf("line %d: %v", lines, err)
			}
			nextLine = g.now.Add(150 * time.Millisecond)
		}
		if g.now.Before(nextCheck) {
			return false
		}
		nextCheck = g.now.Add(50 * time.Millisecond) // what a panel sees: a snapshot every so often
		if kill == nil {
			if d := watcher.tr.Stats().Server.Debug; d != nil {
				kill, spawn = graphRecords(d.Incoming).waitedFor(MsgKillEnemy, MsgSpawnEnemy)
			}
		}
		var atServer graphRecords
		for _, p := range g.srv.tr.Stats().Peers {
			if p.PlayerID == typist.cfg.PlayerID && p.Debug != nil {
				atServer = p.Debug.Incoming
			}
		}
		if chat == nil {
			chat, prev = atServer.waitedFor(MsgChat, MsgChat)
		}
		if pruned == nil {
			if d := typist.tr.Stats().Server.Debug; d != nil {
				if r := graphRecords(d.Outgoing).prunedChat(); r != nil && !r.Acked.IsZero() {
					if in := atServer.bySeq(r.Seq); in != nil && MsgType(in.First) == MsgChat {
						pruned, prunedArrived = r, in
					}
				}
			}
		}
		return kill != nil && chat != nil && pruned != nil
	})
	if !found {
		t.Fatalf("in 60 s at 10%% loss: kill waiting on its spawn %v, chat waiting on the previous line %v, pruned chat %v",
			kill != nil, chat != nil, pruned != nil)
	}
	t.Logf("KillEnemy #%d arrived %v before SpawnEnemy #%d and waited %v for it",
		kill.Seq, spawn.Arrived.Sub(kill.Arrived), spawn.Seq, kill.Executed.Sub(kill.Arrived))
	t.Logf("Chat #%d arrived %v before Chat #%d and waited %v for it",
		chat.Seq, prev.Arrived.Sub(chat.Arrived), prev.Seq, chat.Executed.Sub(chat.Arrived))
	if kill.Executed.Sub(kill.Arrived) <= 0 || chat.Executed.Sub(chat.Arrived) <= 0 {
		t.Errorf("a message that arrived before its dependency executed at once: kill %+v, chat %+v", kill, chat)
	}
	// Pruning: the typist's line named the line before it, the local graph had executed that
	// one, so the line travelled with no dependency at all.
	if len(prunedArrived.Deps) != 0 {
		t.Errorf("chat #%d: the sender pruned %+v, but it arrived with dependencies %+v", pruned.Seq, pruned.Deps, prunedArrived.Deps)
	}
	for _, e := range pruned.Deps {
		if !e.Done {
			t.Errorf("chat #%d: a pruned dependency %+v not executed", pruned.Seq, e)
		}
	}
}
