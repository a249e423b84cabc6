package game

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// classSpectators: the README's class is 40 students, of whom 8 play and 32 watch.
const classSpectators = 32

// A class in virtual time: 8 players (2 of the server's bots, 6 bot clients) and 32
// spectators, every link losing lossPercent of its datagrams. Half the spectators asked to
// watch (--spectate), half asked for a seat and found them taken; every fourth one chats (a
// bot client that watches only chats). Everybody plays and chats to the last frame.
type class struct {
	*vgame
	players    []*Client
	spectators []*Client
}

// lossyClassLink is the class's link at loss percent: a LAN with some latency and jitter.
func lossyClassLink(loss float64) linksim.Settings {
	return linksim.Settings{LossPercent: loss, Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}
}

func newClass(t testing.TB, seed uint64, link linksim.Settings) *class {
	g := newVGame(t, vspec{seed: seed, bots: 2, clients: world.MaxPlayers - 2, link: link, sparse: true,
		server: func(c *ServerConfig) { c.Trace = nil },
		client: func(_ int, c *ClientConfig) { c.Trace = nil }})
	cl := &class{vgame: g, players: slices.Clone(g.clients)}
	g.waitFor(10*time.Second, "the players' game to start", func() bool {
		return g.srv.clock.running && !slices.ContainsFunc(cl.players, func(c *Client) bool { return c.w == nil })
	})
	for i := range classSpectators {
		j := g.joinWatcher(func(c *ClientConfig) {
			c.Name = fmt.Sprintf("watcher%d", i+1)
			c.Spectate = i%2 == 0
			c.Bot = i%4 == 0
		})
		cl.spectators = append(cl.spectators, g.clients[j])
	}
	g.waitFor(20*time.Second, "every spectator to get the world", func() bool {
		return !slices.ContainsFunc(cl.spectators, func(c *Client) bool { return !clientRunning(c) })
	})
	return cl
}

// TestSpectatorsWatchAClass: 8 players and 32 spectators at 10% loss on every link. Every
// spectator watches the game the players play: its world equals the server's at every settled
// frame. Their chat reaches every other client, marked as a spectator's; when the teacher
// turns spectator chat off, a spectator's line is refused with the reason, and the players'
// chat goes on. About 40 s of game time (a quarter of the play under the race detector).
func TestSpectatorsWatchAClass(t *testing.T) {
	onlyInFull(t)
	t.Parallel()
	cl := newClass(t, 41, lossyClassLink(10))
	g := cl.vgame
	g.run(lastsFor(20 * time.Second))

	// Spectator chat off: a spectator's Say is refused with the reason, once the spectator
	// heard; the players chat on.
	g.srv.SetSpectatorChat(g.now, false)
	talker := cl.spectators[1]
	g.waitFor(5*time.Second, "the spectators to hear that their chat is off", func() bool {
		return !slices.ContainsFunc(cl.spectators, func(c *Client) bool { return !c.role.spectate.ChatOff })
	})
	if err := talker.Say(g.now, "let me speak"); !errors.Is(err, ErrSpectatorChatOff) {
		t.Errorf("a spectator's line with spectator chat off: %v, want %v", err, ErrSpectatorChatOff)
	}
	relayed := g.srv.stats.SpectatorChat
	g.run(lastsFor(10 * time.Second))
	if g.srv.stats.SpectatorChat != relayed {
		t.Errorf("%d spectator lines relayed while spectator chat was off", g.srv.stats.SpectatorChat-relayed)
	}
	g.srv.SetSpectatorChat(g.now, true)
	g.waitFor(5*time.Second, "the spectators to hear that they may chat again", func() bool { return !talker.role.spectate.ChatOff })
	if err := talker.Say(g.now, "thanks"); err != nil {
		t.Errorf("a spectator's line with spectator chat on again: %v", err)
	}
	g.run(5 * time.Second)
	res := g.result()

	// Every spectator watched the game: its world is the server's at every settled frame.
	for i, c := range cl.spectators {
		r := res.clients[len(cl.players)+i]
		agreed, common := settledFrames(res.server, r)
		if common == 0 || agreed != common {
			t.Errorf("%s (spectator %d, %s): world differs from the server's at %d of %d settled frames",
				r.Name, r.Spectator, c.role.spectate.WhyText(), common-agreed, common)
		}
		if r.Spectator == 0 || c.stats.CommandsIssued != 0 {
			t.Errorf("%s: spectator number %d, %d commands issued", r.Name, r.Spectator, c.stats.CommandsIssued)
		}
		if want := map[bool]uint8{true: SpectateAsked, false: SpectateSeatsFull}[c.cfg.Spectate]; c.role.spectate.Why != want {
			t.Errorf("%s: watches because %q", r.Name, c.role.spectate.WhyText())
		}
	}
	// Every spectator's line reached every other client, marked as a spectator's: the
	// players and the spectators; and the players' lines reached the spectators.
	checkChatReached(t, res.server, res.clients)
	for _, r := range res.clients {
		for _, l := range r.Chat.Received {
			if strings.HasPrefix(l.From, "watcher") != l.Spectator {
				t.Errorf("%s: a line of %s marked spectator %v", r.Name, l.From, l.Spectator)
				break
			}
		}
	}
	if n := res.clients[len(cl.players)+1].Chat.SentTotal; n != 1 {
		t.Errorf("the talker sent %d lines, want only the one after spectator chat came back", n)
	}
	st := g.srv.stats
	t.Logf("server: %d spectators joined, %d spectator lines relayed, %d chat lines refused, %d spectator reports, %d drifts, %d copies of the world, %d dropped; pauses %d; %d hash reports dropped",
		st.SpectatorJoins, st.SpectatorChat, st.ChatRefused, st.SpectatorHashReports, st.SpectatorDrifts, st.SpectatorResyncs, st.SpectatorsDropped, st.StopWorldResyncs, st.HashReportsDropped)
	if st.SpectatorJoins != classSpectators || st.SpectatorsDropped != 0 || st.SpectatorChat == 0 {
		t.Errorf("%d spectators joined, %d dropped, %d lines relayed: want %d, none, some", st.SpectatorJoins, st.SpectatorsDropped, st.SpectatorChat, classSpectators)
	}
	if st.HashReportsDropped != 0 {
		t.Errorf("%d hash reports of honest clients dropped unchecked", st.HashReportsDropped)
	}
}

// checkChatReached: every client got the lines of every other one that chats (the server's
// bots included), in the order they were sent, none twice, up to the last few (still on their
// way at the end). A client that joined late misses the lines sent before, and a spectator's
// lines that the server refused reach nobody, so what a client got from another is in order
// within what that one sent, not all of it.
func checkChatReached(t *testing.T, server Report, clients []Report) {
	t.Helper()
	sent := map[string][]string{}
	for _, r := range clients {
		sent[r.Name] = r.Chat.Sent
	}
	for _, r := range clients {
		if len(server.Chat.Sent) >= 4 {
			checkBotsHeard(t, r, server.Chat.Sent, 3, false)
		}
		got := map[string][]string{}
		for _, l := range r.Chat.Received {
			got[l.From] = append(got[l.From], l.Text)
		}
		for from, lines := range sent {
			if from == r.Name || len(lines) < 4 {
				continue // its own, or somebody who hardly chatted
			}
			g := got[from]
			at, stray := subsequenceEnd(g, lines)
			if stray >= 0 {
				t.Errorf("%s got %q from %s out of order, twice, or never sent", r.Name, g[stray], from)
			}
			if len(g) == 0 || at < len(lines)-3 {
				t.Errorf("%s got %d of %s's %d lines, the last of them %d from the end", r.Name, len(g), from, len(lines), len(lines)-at)
			}
		}
	}
}

// smallClass is a game of 2 server bots and 2 bot clients, and n spectators who asked to
// watch, at 10% loss: what the tests of one spectator's doings need, quickly.
func smallClass(t *testing.T, seed uint64, n int, server func(*ServerConfig)) *class {
	t.Helper()
	g := newVGame(t, vspec{seed: seed, bots: 2, clients: 2, link: lossyClassLink(10), sparse: true, server: server})
	cl := &class{vgame: g, players: slices.Clone(g.clients)}
	for i := range n {
		cl.spectators = append(cl.spectators, g.clients[g.joinWatcher(func(c *ClientConfig) {
			c.Name, c.Spectate, c.Bot = fmt.Sprintf("watcher%d", i+1), true, false
		})])
	}
	g.waitFor(20*time.Second, "every client running", func() bool {
		return !slices.ContainsFunc(g.clients, func(c *Client) bool { return !clientRunning(c) })
	})
	return cl
}

// TestSilentSpectatorCannotStallTheGame: a spectator that stops answering (alive to the
// server's transport, which keeps silent connections for a minute here, deaf and mute to the
// game) slows nobody: the players' frames go on at the server's pace, a stop-the-world ends
// within its limit without waiting for it, and what the server queues for it is bounded: past
// spectatorBacklog messages it is dropped, with the reason, long before the transport's
// timeout, and the bytes sent to it meanwhile are bounded too.
func TestSilentSpectatorCannotStallTheGame(t *testing.T) {
	t.Parallel()
	cl := smallClass(t, 43, 2, func(c *ServerConfig) { c.Transport.Timeout = time.Minute })
	g := cl.vgame
	silent := cl.spectators[0]
	sp := g.srv.seats.spectators[silent.role.spectate.Number-1]
	g.vanish(slices.Index(g.clients, silent))
	peer := sp.peer
	sentBefore := peer.Conn().Stats().Packet.BytesSent

	frame, start := g.srv.w.Frame(), g.now
	g.run(10 * time.Second) // the server sends on, and nothing comes back
	took := stopAndWait(t, g)
	if took >= pauseLimit {
		t.Errorf("a stop-the-world with a silent spectator took %v, want under %v", took, pauseLimit)
	}
	var sentToSilent uint64
	dropped := g.runUntil(g.now.Add(45*time.Second), func() bool {
		if sp.peer != nil {
			sentToSilent = peer.Conn().Stats().Packet.BytesSent - sentBefore
		}
		return g.srv.seats.spectators[sp.num-1] == nil
	})
	played := g.now.Sub(start)
	frames := g.srv.w.Frame() - frame
	// The pause took its time off the clock; every other frame came on time.
	if want := uint32((played - took) / g.srv.cfg.Frame); frames+2 < want {
		t.Errorf("%d frames in %v (a pause of %v), want %d: the silent spectator slowed the game", frames, played, took, want)
	}
	for _, c := range cl.players {
		if c.w.Frame()+5 < g.srv.w.Frame() {
			t.Errorf("%s at frame %d, the server at %d", c.cfg.Name, c.w.Frame(), g.srv.w.Frame())
		}
	}
	t.Logf("the silent spectator: dropped after %v (%v), %d bytes sent to it meanwhile; the game played %d frames in %v",
		played, dropped, sentToSilent, frames, played)
	if !dropped || g.srv.stats.SpectatorsDropped != 1 {
		t.Fatalf("the silent spectator still there after %v (dropped %d)", played, g.srv.stats.SpectatorsDropped)
	}
	if !slices.ContainsFunc(g.srv.stats.events.items, func(e string) bool {
		return strings.Contains(e, "spectator dropped") && strings.Contains(e, "too far behind")
	}) {
		t.Error("no event says why the spectator was dropped")
	}
	if sentToSilent > 256<<10 {
		t.Errorf("%d bytes sent to a spectator that acknowledged nothing, want at most 256 KiB", sentToSilent)
	}
	// The other spectator watched on.
	if other := cl.spectators[1]; other.w.Frame()+5 < g.srv.w.Frame() || other.drift.pause != nil {
		t.Errorf("the other spectator at frame %d (pausing %v), the server at %d", other.w.Frame(), other.drift.pause != nil, g.srv.w.Frame())
	}
}

// TestSpectatorPausesWithThePlayers: a stop-the-world pauses the spectators too, gives each the
// whole paused world without asking for its hashes, and resumes them with the players; their
// worlds are the server's after it.
func TestSpectatorPausesWithThePlayers(t *testing.T) {
	t.Parallel()
	cl := smallClass(t, 44, 2, nil)
	g := cl.vgame
	watcher := cl.spectators[0]
	hurtUnit(watcher.w, watcher.w.Units()[0].ID) // a drift the pause repairs
	before := watcher.stats.StopWorldResyncs
	stopAndWait(t, g)
	g.run(5 * time.Second)
	res := g.result()
	if watcher.stats.StopWorldResyncs != before+1 {
		t.Errorf("the spectator took part in %d pauses, want 1", watcher.stats.StopWorldResyncs-before)
	}
	last := res.server.Sync.LastResyncFrame
	for i := range cl.spectators {
		r := res.clients[len(cl.players)+i]
		for f, h := range r.WorldHashes {
			n, _ := strconv.Atoi(f)
			if sh, ok := res.server.WorldHashes[f]; ok && uint32(n) > last && sh != h {
				t.Errorf("%s: world hash at frame %s is %s, the server's %s (pause at frame %d)", r.Name, f, h, sh, last)
			}
		}
	}
	if n := g.srv.stats.BadMessages; n != 0 {
		t.Errorf("%d bad messages at the server: a spectator sent what it must not", n)
	}
}

// TestDriftedSpectatorGetsTheWorld: a spectator whose world drifts (one of its units changed
// on it alone, or its state: an attack in flight, the random generator, an id counter) is
// repaired alone: the server sends it the whole world once, and nobody else is touched: no
// repair of the players' worlds, no pause.
func TestDriftedSpectatorGetsTheWorld(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		drift func(c *Client) bool
	}{
		{"a unit", func(c *Client) bool { return hurtUnit(c.w, c.w.Units()[0].ID) }},
		{"an attack in flight", func(c *Client) bool { return c.injectStateDrift(driftAttack) }},
		{"the random generator", func(c *Client) bool { return c.injectStateDrift(driftGenerator) }},
		{"the next unit id", func(c *Client) bool { return c.injectStateDrift(driftNextID) }},
		{"the next attack id", func(c *Client) bool { return c.injectStateDrift(driftNextAttackID) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cl := smallClass(t, 45, 1, nil)
			g := cl.vgame
			watcher := cl.spectators[0]
			// A re-run of late events puts the world back to a frame before the drift and runs
			// it again without it (resim.go), and at 10% loss one may come at any time: the
			// drift is made again until a report of the spectator shows it to the server.
			for try := 0; g.srv.stats.SpectatorDrifts == 0; try++ {
				if try == 5 {
					t.Fatal("no report of the spectator showed the drift in 5 tries")
				}
				if !tt.drift(watcher) {
					t.Fatal("the spectator's world did not take the drift")
				}
				reports := g.srv.stats.SpectatorHashReports
				g.waitFor(10*time.Second, "the spectator's next reports", func() bool {
					return g.srv.stats.SpectatorDrifts > 0 || g.srv.stats.SpectatorHashReports >= reports+3
				})
			}
			g.waitFor(10*time.Second, "the spectator's copy of the world", func() bool { return watcher.stats.WorldCopies == 1 })
			g.run(10 * time.Second)
			st := g.srv.stats
			if st.SpectatorResyncs != 1 || st.RealtimeResyncs != 0 || st.StopWorldResyncs != 0 {
				t.Errorf("%d copies of the world to the spectator, %d real-time repairs, %d pauses: want 1, 0, 0",
					st.SpectatorResyncs, st.RealtimeResyncs, st.StopWorldResyncs)
			}
			res := g.result()
			differ, common := lastSettledDiffer(res.server, res.clients[len(cl.players)], 100)
			if common == 0 || differ != 0 {
				t.Errorf("after its copy of the world the spectator differs at %d of its last %d settled frames", differ, common)
			}
		})
	}
}

// lastSettledDiffer compares r's world hashes with the server's at the last frames settled
// frames of the server's (the ones after a repair): how many differ, of how many both have.
func lastSettledDiffer(server, r Report, frames uint32) (differ, common int) {
	for f, h := range r.WorldHashes {
		n, _ := strconv.Atoi(f)
		if sh, ok := server.WorldHashes[f]; ok && uint32(n)+detectionFrames <= server.Frame && uint32(n)+frames > server.Frame {
			common++
			if sh != h {
				differ++
			}
		}
	}
	return differ, common
}

// TestSpectatorChatIsHeldToTheRate: a spectator's client refuses its own lines past the chat's
// rate with the reason; lines that reach the server faster than its own limit anyway (a
// client that does not hold itself to it) are refused there, and the spectator is told why.
// A spectator that speaks for another spectator, or gives an order, is refused as a bad
// message and relayed to nobody.
func TestSpectatorChatIsHeldToTheRate(t *testing.T) {
	t.Parallel()
	cl := smallClass(t, 46, 2, nil)
	g := cl.vgame
	watcher, other := cl.spectators[0], cl.spectators[1]
	relayed, refusedBefore := g.srv.stats.SpectatorChat, g.srv.stats.ChatRefused
	var refused error
	for i := range chatBurst + 1 {
		if err := watcher.Say(g.now, fmt.Sprintf("line %d", i)); err != nil {
			refused = err
		}
	}
	if !errors.Is(refused, ErrChatTooFast) {
		t.Errorf("line %d of a burst: %v, want %v", chatBurst+1, refused, ErrChatTooFast)
	}
	// Past the client's own limit: straight to the connection.
	for i := range serverChatBurst {
		if _, err := watcher.sendToServer(g.now, &SpectatorChat{Spectator: watcher.role.spectate.Number, Text: fmt.Sprintf("flood %d", i)}, &watcher.chat.chain); err != nil {
			t.Fatal(err)
		}
	}
	bad := g.srv.stats.BadMessages
	watcher.sendToServer(g.now, &SpectatorChat{Spectator: other.role.spectate.Number, Text: "I am the other one"}, nil)
	watcher.sendToServer(g.now, &Command{Seat: 0, ID: 1, Frame: watcher.w.Frame() + 5, Kind: world.CommandStop, Units: []uint32{1}}, nil)
	g.waitFor(5*time.Second, "the spectator to hear of its refused lines", func() bool { return watcher.role.spectate.Refused > 0 })
	g.run(2 * time.Second)
	if watcher.role.spectate.RefusedWhy != RefusedTooFast || watcher.role.spectate.RefusedText() != ErrChatTooFast.Error() {
		t.Errorf("refused %d lines because %q", watcher.role.spectate.Refused, watcher.role.spectate.RefusedText())
	}
	if got := g.srv.stats.BadMessages - bad; got != 2 {
		t.Errorf("%d bad messages from a spectator speaking for another and giving an order, want 2", got)
	}
	// chatBurst lines through Say and serverChatBurst more straight to the connection, all at
	// once: the server's bucket holds serverChatBurst, so some are refused there, each one
	// counted and told, and the others relayed.
	sent := uint64(chatBurst + serverChatBurst)
	gotRelayed, gotRefused := g.srv.stats.SpectatorChat-relayed, g.srv.stats.ChatRefused-refusedBefore
	if gotRefused == 0 || gotRelayed+gotRefused != sent || uint64(watcher.role.spectate.Refused) != gotRefused {
		t.Errorf("of %d lines sent at once the server relayed %d and refused %d, and told the spectator of %d refused: want some refused, every line either way, and all told",
			sent, gotRelayed, gotRefused, watcher.role.spectate.Refused)
	}
	heard := uint64(0)
	for _, l := range other.chat.log.last(maxChatShown) {
		if l.From == watcher.cfg.Name {
			heard++
		}
		if strings.Contains(l.Text, "other one") {
			t.Errorf("a line in another spectator's name was relayed: %+v", l)
		}
	}
	if heard != gotRelayed {
		t.Errorf("the other spectator heard %d of the flood's lines, the server relayed %d", heard, gotRelayed)
	}
}

// TestSpectatorsShareOneChatRate: eight spectators chatting as fast as their clients let them
// (80 lines a second) get no more through to the players than the one rate all the
// spectators share: its burst, then a line every spectatorsChatEvery. Every line over it is
// refused, counted, and its spectator told.
func TestSpectatorsShareOneChatRate(t *testing.T) {
	t.Parallel()
	cl := smallClass(t, 47, 8, nil)
	g := cl.vgame
	player := cl.players[0]
	relayed, refused, start := g.srv.stats.SpectatorChat, g.srv.stats.ChatRefused, g.now
	offered, lastRelay, seen := 0, start, relayed
	crowd := func() bool {
		if g.srv.stats.SpectatorChat != seen {
			seen, lastRelay = g.srv.stats.SpectatorChat, g.now
		}
		if g.now.Sub(start) < 5*time.Second {
			for i, c := range cl.spectators {
				for c.Say(g.now, fmt.Sprintf("crowd %d %d", i, offered)) == nil {
					offered++
				}
			}
		}
		return false
	}
	g.runUntil(start.Add(5*time.Second), crowd)
	g.waitFor(10*time.Second, "every line to reach the server", func() bool {
		crowd()
		return int(g.srv.stats.SpectatorChat-relayed+g.srv.stats.ChatRefused-refused) == offered
	})
	gotRelayed, gotRefused := g.srv.stats.SpectatorChat-relayed, g.srv.stats.ChatRefused-refused
	bound := uint64(spectatorsChatBurst + int(lastRelay.Sub(start)/spectatorsChatEvery) + 1)
	t.Logf("%d lines offered in 5 s, %d relayed by %v, %d refused; the shared rate allows %d",
		offered, gotRelayed, lastRelay.Sub(start), gotRefused, bound)
	if gotRelayed > bound || gotRelayed == 0 {
		t.Errorf("%d spectator lines relayed in %v, want some and at most %d", gotRelayed, lastRelay.Sub(start), bound)
	}
	if gotRefused == 0 {
		t.Errorf("none of %d lines refused", offered)
	}
	g.waitFor(5*time.Second, "every spectator to hear of its refused lines, and the player to hear the rest", func() bool {
		told := uint64(0)
		for _, c := range cl.spectators {
			told += uint64(c.role.spectate.Refused)
		}
		heard := uint64(0)
		for _, l := range player.chat.received.items {
			if strings.HasPrefix(l.Text, "crowd ") {
				heard++
			}
		}
		return told == gotRefused && heard == gotRelayed
	})
}

// TestSpectatorsGetABigWorldInBatches: in a world of several resyncBatchUnits units, every
// copy of the whole world a spectator gets comes in batches, as a player's does: the world of
// a spectator that joins, its own copy after a drift, and the paused world of a stop-the-world.
// Each leaves the spectator's world equal to the server's.
func TestSpectatorsGetABigWorldInBatches(t *testing.T) {
	t.Parallel()
	cl := smallClass(t, 49, 1, func(c *ServerConfig) { c.ReinforceBelow = -1 })
	g := cl.vgame
	f, err := Populate(g.srv, g.live(), g.now, 40, 0)
	if err != nil {
		t.Fatal(err)
	}
	g.waitFor(10*time.Second, "the populated frame", func() bool { return g.srv.w.Frame() > f+2 })
	units := len(g.srv.w.Units())
	perCopy := (units + resyncBatchUnits - 1) / resyncBatchUnits
	if perCopy < 3 {
		t.Fatalf("%d units: %d batches a copy, want at least 3", units, perCopy)
	}
	// A spectator that joins now gets the big world.
	late := g.clients[g.joinWatcher(func(c *ClientConfig) { c.Name, c.Spectate, c.Bot = "late watcher", true, false })]
	g.waitFor(20*time.Second, "the late spectator to get the world", func() bool { return clientRunning(late) })
	// The first spectator drifts: its own copy of the world.
	watcher := cl.spectators[0]
	hurtUnit(watcher.w, watcher.w.Units()[0].ID)
	g.waitFor(10*time.Second, "the spectator's copy of the world", func() bool { return watcher.stats.WorldCopies == 1 })
	g.run(3 * time.Second)
	// A stop-the-world: both spectators get the paused world.
	stopAndWait(t, g)
	g.run(10 * time.Second)
	res := g.result()

	batches := func(i int) (n int) {
		for _, l := range strings.Split(g.traces[i].String(), "\n") {
			if strings.Contains(l, `"type":"ResyncBatch"`) {
				n++
			}
		}
		return n
	}
	t.Logf("%d units, %d batches a copy: the drifted spectator applied %d ResyncBatches, the late one %d",
		units, perCopy, batches(slices.Index(g.clients, watcher)), batches(slices.Index(g.clients, late)))
	// The first spectator: a small world when it joined (one batch), then two big copies.
	if got, want := batches(slices.Index(g.clients, watcher)), 1+2*(perCopy-1); got < want {
		t.Errorf("the drifted spectator applied %d ResyncBatches, want at least %d (%d units, %d a batch)", got, want, units, resyncBatchUnits)
	}
	if got, want := batches(slices.Index(g.clients, late)), 2*(perCopy-1); got < want {
		t.Errorf("the late spectator applied %d ResyncBatches, want at least %d (%d units, %d a batch)", got, want, units, resyncBatchUnits)
	}
	for _, c := range []*Client{watcher, late} {
		differ, common := lastSettledDiffer(res.server, res.clients[slices.Index(g.clients, c)], 80)
		if common == 0 || differ != 0 {
			t.Errorf("%s: differs from the server at %d of its last %d settled frames", c.cfg.Name, differ, common)
		}
	}
	if n := watcher.stats.BadMessages + late.stats.BadMessages; n != 0 {
		t.Errorf("%d bad messages at the spectators", n)
	}
}

// timedSession is a session with the wall time of every call into it added up, for a test's
// log: this machine's figure, never a check.
type timedSession struct {
	Session
	work time.Duration
}

func (t *timedSession) Handle(now time.Time, d transport.Datagram) {
	began := time.Now()
	t.Session.Handle(now, d)
	t.work += time.Since(began)
}

func (t *timedSession) Tick(now time.Time) {
	began := time.Now()
	t.Session.Tick(now)
	t.work += time.Since(began)
}

// TestSpectatorsFillALectureHall: a lecture hall, 8 players (2 of the server's bots, 6 bot
// clients) and MaxSpectators spectators on the hall's network (one /24), every link a LAN's
// (20 ms, no loss). The players' frame deadline holds: none of them, nor the server, runs an
// event after its frame, and the server steps every frame of its clock. Every spectator
// watches the game: its world equals the server's at every settled frame. With every place
// taken, one more spectator from the hall's network is refused with the reason (its network
// holds more than its share); one from another network takes back the newest place of the
// hall's network, whose client reads why; and the teacher's projector, from the server's own
// host, gets one of the HostPlaces kept for it. About 30 s of game time.
func TestSpectatorsFillALectureHall(t *testing.T) {
	onlyInFull(t)
	t.Parallel()
	began := time.Now()
	hallLink := linksim.Settings{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}
	host := netip.MustParsePrefix("127.0.0.1/32") // the server's own host: the hall's clients are 127.0.1.x
	g := newVGame(t, vspec{seed: 45, bots: 2, clients: world.MaxPlayers - 2, link: hallLink, sparse: true,
		server: func(c *ServerConfig) { c.Trace, c.Places.Host = nil, []netip.Prefix{host} },
		client: func(_ int, c *ClientConfig) { c.Trace = nil }})
	timed := &timedSession{Session: g.srv}
	g.Attach(g.srvAddr, timed)
	players := slices.Clone(g.clients)
	g.waitFor(10*time.Second, "the players' game to start", func() bool {
		return g.srv.clock.running && !slices.ContainsFunc(players, func(c *Client) bool { return c.w == nil })
	})
	var hall []*Client
	for i := range MaxSpectators {
		hall = append(hall, g.clients[g.joinWatcher(func(c *ClientConfig) {
			c.Name, c.Spectate, c.Bot = fmt.Sprintf("s%d", i+1), true, i%16 == 0 // a watching bot only chats
		})])
	}
	g.waitFor(30*time.Second, "every spectator to get the world", func() bool {
		return !slices.ContainsFunc(hall, func(c *Client) bool { return !clientRunning(c) })
	})
	joined := time.Since(began)

	// Every place is taken: one more from the hall's network is refused, with the reason.
	late := g.clients[g.joinWatcher(func(c *ClientConfig) { c.Name, c.Spectate = "latecomer", true })]
	g.waitFor(10*time.Second, "the latecomer to be refused", func() bool { return late.Ended() != nil })
	if want := fmt.Sprintf("the game is full: %d players and %d spectators; %d are your network's", world.MaxPlayers, MaxSpectators, MaxSpectators); !strings.Contains(late.Ended().Error(), want) || late.tr.Stats().Reason != wire.DisconnectKicked {
		t.Errorf("the latecomer from the hall's network ended %v with %q, want kicked: %q", late.tr.Stats().Reason, late.Ended(), want)
	}
	// One from elsewhere takes back the newest of the hall network's lent places.
	outsider := g.clients[g.joinWatcherAt(netip.MustParseAddrPort("127.0.2.1:40000"), func(c *ClientConfig) { c.Name, c.Spectate = "outsider", true })]
	projector := g.clients[g.joinWatcherAt(netip.MustParseAddrPort("127.0.0.1:40001"), func(c *ClientConfig) { c.Name, c.Spectate = "projector", true })]
	g.waitFor(20*time.Second, "the outsider and the projector watching", func() bool { return clientRunning(outsider) && clientRunning(projector) })
	var lost []*Client
	for _, c := range hall {
		if c.Ended() != nil {
			lost = append(lost, c)
		}
	}
	if len(lost) != 1 || !strings.Contains(lost[0].Ended().Error(), "your place went to a newcomer: your network holds") {
		t.Errorf("%d spectators of the hall lost their place (want 1, told why): %v", len(lost), lost)
	}
	if st := g.srv.stats; st.SpectatorsTakenBack != 1 || st.PlacesRefused != 1 {
		t.Errorf("server: %d spectators' places taken back, %d refused; want 1 and 1", st.SpectatorsTakenBack, st.PlacesRefused)
	}

	frame, start := g.srv.w.Frame(), g.now
	workBefore := timed.work
	g.run(lastsFor(20 * time.Second))
	played := g.now.Sub(start)
	frames := g.srv.w.Frame() - frame
	res := g.result()
	t.Logf("%d spectators joined in %v of wall time; the server's work %.1f ms per second of game time (this machine); the whole test %v",
		g.srv.stats.SpectatorJoins, joined.Round(time.Millisecond), float64(timed.work-workBefore)/float64(time.Millisecond)/played.Seconds(), time.Since(began).Round(time.Millisecond))

	// The players' frame deadline: the server stepped every frame, and nothing ran late.
	if want := uint32(played / g.srv.cfg.Frame); frames+1 < want {
		t.Errorf("the server stepped %d frames in %v, want %d", frames, played, want)
	}
	if s := res.server; s.Game.CommandsLate != 0 || s.Sync.LateRerun != 0 || s.Sync.StopWorldResyncs != 0 || g.srv.stats.CommandsLateAtServer != 0 {
		t.Errorf("server: %d commands late, %d events run again, %d late at the server, %d stop-the-worlds; want none",
			s.Game.CommandsLate, s.Sync.LateRerun, g.srv.stats.CommandsLateAtServer, s.Sync.StopWorldResyncs)
	}
	for i := range players {
		if r := res.clients[i]; r.Sync.LateRerun != 0 || r.Sync.LateBeyondWindow != 0 || r.Sync.RealtimeResyncs != 0 {
			t.Errorf("player %s: %d events run late, %d beyond the window, %d repairs; want none", r.Name, r.Sync.LateRerun, r.Sync.LateBeyondWindow, r.Sync.RealtimeResyncs)
		}
	}
	// Every spectator watched the game.
	for i, c := range g.clients {
		if i < len(players) || c == late || slices.Contains(lost, c) {
			continue
		}
		r := res.clients[i]
		if agreed, common := settledFrames(res.server, r); common == 0 || agreed != common {
			t.Errorf("%s (spectator %d): world differs from the server's at %d of %d settled frames", r.Name, r.Spectator, common-agreed, common)
		}
	}
	if st := g.srv.stats; st.SpectatorsDropped != 0 {
		t.Errorf("%d spectators dropped for falling behind", st.SpectatorsDropped)
	}
}
