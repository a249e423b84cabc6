package game

import (
	"bytes"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// The class of README.md's "For teachers: a 45-minute class", rehearsed in virtual time: the
// table's rows at their minutes of game time, the teacher's keys as the server's owner loop
// runs them, and what each row promises checked on the sessions' state. The test that plays it
// (TestClassRehearsal) is in rehearsal_replay_test.go, outside the package: it plays the
// projector's capture back with game/replay, which imports this package.

// classLAN is the class's network under every link: a millisecond each way. A client's class
// link (the teacher's F5 to F9) goes on top of it, both ways, as game/hostloop puts it on the
// client's socket.
var classLAN = linksim.Settings{Latency: time.Millisecond}

// ClassPresets are the link presets of the teacher's keys the class uses (ui.LinkPresets).
type ClassPresets struct {
	TenPercent    linksim.Settings // F6
	ThirtyPercent linksim.Settings // F7
	RoundTrip     linksim.Settings // F8: 150 ms of round trip
}

// ClassCapture is what the rehearsed class leaves for the replay: the projector's capture and
// key file, as --record writes them, and what the projector counted itself.
type ClassCapture struct {
	Capture, Keys []byte
	// RealtimeResyncs and StopWorldResyncs: the UnitUpdates and Pauses the projector executed.
	RealtimeResyncs, StopWorldResyncs uint64
	Duration                          time.Duration // from the projector's first datagram to its quitting
}

// studentNames are the six students who take the seats beside the two bots.
var studentNames = []string{"ann", "bob", "cat", "dan", "eve", "fay"}

// rehearsal is the class as it plays.
type rehearsal struct {
	*vgame
	t0 time.Time
	// classLinks is the class link each client put on its own link (by address), to stack
	// both ends' on a direct link.
	classLinks map[string]linksim.Settings
	projector  *Client
	players    []*Client // the client each seated student runs now
	watchers   []*Client // the client each watching student runs now (the projector apart)
	rec        *record.Recorder
	capture    bytes.Buffer
	keys       bytes.Buffer
	// timeouts are the connections the server had timed out by minute 28: the students who
	// quit at minute 20, at 30% loss, and whose goodbyes were all lost.
	timeouts uint64
}

// RehearseClass plays the README's 45-minute class in virtual time and checks what each row of
// its table promises (see TestClassRehearsal). It returns the projector's capture.
func RehearseClass(t *testing.T, presets ClassPresets) ClassCapture {
	onlyInFull(t)
	r := &rehearsal{classLinks: map[string]linksim.Settings{}}
	r.vgame = newVGame(t, vspec{seed: 45, bots: 2, clients: len(studentNames), link: classLAN, sparse: true,
		server: func(c *ServerConfig) { c.Trace = nil },
		client: func(i int, c *ClientConfig) {
			c.Trace = nil
			if i < len(studentNames) {
				c.Name = studentNames[i]
			}
			c.OnClassLink = func(ls linksim.Settings) error { return r.putClassLink(i, ls) }
		}})
	r.t0 = r.now
	r.players = slices.Clone(r.clients)
	r.startProjector(t)

	r.joins(t)               // 0-5
	r.acks(t, presets)       // 5-12
	r.graph(t, presets)      // 12-20
	r.alone(t)               // 20-28
	r.lockstep(t, presets)   // 28-36
	r.lessonsEightAndNine(t) // 36-40
	out := r.replayDay(t)    // 40-45
	r.nothingBroke(t)
	return out
}

// putClassLink is client i's OnClassLink: ls on its own end of every link it has, both ways,
// on top of the class's network (and, on a direct link, of the other end's class link).
func (r *rehearsal) putClassLink(i int, ls linksim.Settings) error {
	me, server := r.caddrs[i].String(), r.srvAddr.String()
	r.classLinks[me] = ls
	for _, other := range r.names {
		if r.nw.Conditioner(me, other) == nil {
			continue
		}
		s := stackLinks(classLAN, ls)
		if other != server {
			s = stackLinks(s, r.classLinks[other])
		}
		if err := r.nw.SetLink(me, other, s, s); err != nil {
			return err
		}
	}
	return nil
}

// stackLinks is a datagram's way through conditioner a, then b: losses and duplications
// compound, latencies and jitters add (burst losses: b's, if it has any).
func stackLinks(a, b linksim.Settings) linksim.Settings {
	both := func(p, q float64) float64 { return 100 * (1 - (1-p/100)*(1-q/100)) }
	s := linksim.Settings{LossPercent: both(a.LossPercent, b.LossPercent), Latency: a.Latency + b.Latency,
		Jitter: a.Jitter + b.Jitter, DupPercent: both(a.DupPercent, b.DupPercent),
		BurstLossPercent: a.BurstLossPercent, BurstLength: a.BurstLength}
	if b.BurstLossPercent > 0 {
		s.BurstLossPercent, s.BurstLength = b.BurstLossPercent, b.BurstLength
	}
	return s
}

// startProjector joins the projector's client before the class (--spectate --record): its
// every datagram, sent and received, with what the link did to it, goes to a capture as
// net/record's Recorder writes it for --record (vgame.record).
func (r *rehearsal) startProjector(t *testing.T) {
	rec, err := record.New(&r.capture, &r.keys, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.rec = rec
	p := r.joinWatcher(func(c *ClientConfig) {
		c.Name, c.Spectate, c.Bot = "projector", true, false
		logged := c.Transport.KeyLog
		c.Transport.KeyLog = func(k transport.ConnKeys) { logged(k); rec.KeyLog(k) }
	})
	r.projector = r.clients[p]
	r.record(r.caddrs[p], rec)
}

// runTo moves the game to minute m of the class (m after the server started).
func (r *rehearsal) runTo(m time.Duration) { r.runUntil(r.t0.Add(m), nil) }

// every runs the game to minute m of the class, calling f every period on the way.
func (r *rehearsal) every(m, period time.Duration, f func()) {
	for end := r.t0.Add(m); r.now.Before(end); {
		r.runUntil(minTime(r.now.Add(period), end), nil)
		f()
	}
}

// students are the clients the students run now, the seated ones first.
func (r *rehearsal) students() []*Client { return slices.Concat(r.players, r.watchers) }

// watching are the clients that watch now: the projector and the watching students.
func (r *rehearsal) watching() []*Client {
	return append([]*Client{r.projector}, r.watchers...)
}

// agree checks that every client of cs has the server's world at every settled frame after
// from that both logged.
func (r *rehearsal) agree(t *testing.T, when string, cs []*Client, from uint32) {
	t.Helper()
	for _, c := range cs {
		common, differ := agreement(r.vgame, c, from)
		if common == 0 || len(differ) > 0 {
			t.Errorf("%s: %s's world differs from the server's at %d of %d settled frames: %v", when, c.cfg.Name, len(differ), common, differ)
		}
	}
}

// leads is the lead time on the seated students' status lines now.
func (r *rehearsal) leads() []time.Duration {
	var out []time.Duration
	for _, c := range r.players {
		if s := c.Snapshot(); s != nil && s.Started {
			out = append(out, time.Duration(s.Lead)*s.FrameDur)
		}
	}
	return out
}

// leadOver samples the students' leads every second up to minute m, and returns the samples'
// median and largest.
func (r *rehearsal) leadOver(m time.Duration) (median, most time.Duration) {
	var all []time.Duration
	r.every(m, time.Second, func() { all = append(all, r.leads()...) })
	slices.Sort(all)
	if len(all) == 0 {
		return 0, 0
	}
	return all[len(all)/2], all[len(all)-1]
}

// joins, 0-5: everybody joins and plays on a clean link; the spectators are told so.
func (r *rehearsal) joins(t *testing.T) {
	r.waitFor(10*time.Second, "the students' game to start", func() bool {
		return r.srv.clock.running && !slices.ContainsFunc(r.players, func(c *Client) bool { return !clientRunning(c) })
	})
	for i := range classSpectators - 1 {
		r.watchers = append(r.watchers, r.clients[r.joinWatcher(func(c *ClientConfig) {
			c.Name = fmt.Sprintf("watcher%d", i+1)
			c.Spectate = i%2 == 0 // half asked to watch; the others asked for a seat and found none
			c.Bot = i%4 == 0      // a watching bot only chats
		})])
	}
	r.waitFor(20*time.Second, "every spectator to get the world", func() bool {
		return !slices.ContainsFunc(r.watching(), func(c *Client) bool { return !clientRunning(c) })
	})
	r.runTo(4 * time.Minute)
	median, most := r.leadOver(5 * time.Minute)
	t.Logf("0-5: %d players, %d spectators; the lead on a clean link: median %v, at most %v",
		len(r.srv.seats.playing()), r.srv.stats.SpectatorJoins, median, most)
	for _, c := range r.watching() {
		if s := c.Snapshot(); s == nil || s.Spectator == nil {
			t.Errorf("0-5: %s's status line does not say SPECTATING", c.cfg.Name)
		}
	}
	r.agree(t, "0-5", r.clients, 0)
}

// acks, 5-12: the teacher's c and F6 put 10% loss on every client's link: the acks view counts
// lost packets, and the RTT goes on being measured.
func (r *rehearsal) acks(t *testing.T, presets ClassPresets) {
	r.runTo(5 * time.Minute)
	if err := r.srv.PushLink(r.now, presets.TenPercent); err != nil {
		t.Fatal(err)
	}
	r.waitFor(5*time.Second, "every client to put the class link on", func() bool {
		return !slices.ContainsFunc(r.live(), func(c *Client) bool {
			return c.class.settings == nil || *c.class.settings != presets.TenPercent
		})
	})
	for _, c := range r.live() {
		if c.class.err != nil {
			t.Errorf("5-12: %s did not take the class link: %v", c.cfg.Name, c.class.err)
		}
	}
	type acksSeen struct{ lost, samples uint64 }
	before := map[*Client]acksSeen{}
	for _, c := range r.live() {
		pk := c.tr.Stats().Server.Message.Packet
		before[c] = acksSeen{pk.PacketsLost, pk.RTTSamples}
	}
	r.runTo(11 * time.Minute)
	median, most := r.leadOver(12 * time.Minute)
	var loss []float64
	for _, c := range r.live() {
		pk := c.tr.Stats().Server.Message.Packet
		loss = append(loss, pk.LossPercent)
		b := before[c]
		if pk.PacketsLost == b.lost {
			t.Errorf("5-12: %s's acks view: no packet lost in 7 minutes at 10%% loss", c.cfg.Name)
		}
		// The pings' answers are round-trip samples too, so a spectator that only watches
		// (and a student who gives no order) has a live RTT line.
		if pk.RTTSamples == b.samples {
			t.Errorf("5-12: %s's acks view: no RTT sample in 7 minutes at 10%% loss (RTT %v)", c.cfg.Name, c.tr.Stats().Server.RTT)
		}
	}
	slices.Sort(loss)
	t.Logf("5-12: the clients' loss estimates %.1f%% to %.1f%% (median %.1f%%); the lead at 10%% loss: median %v, at most %v",
		loss[0], loss[len(loss)-1], loss[len(loss)/2], median, most)
	r.agree(t, "5-12", r.live(), 0)
}

// waitsSeen are the received messages the graph view showed waiting on their dependency: a
// kill on its spawn, a chat line on the one before (on a client's link from the server, or on
// the server's from a client).
type waitsSeen struct {
	kills, chats map[waitKey]bool
}

type waitKey struct {
	where string
	seq   uint16
	at    time.Time
}

func newWaitsSeen() waitsSeen {
	return waitsSeen{kills: map[waitKey]bool{}, chats: map[waitKey]bool{}}
}

// where counts the connections that showed at least one of ws.
func where(ws map[waitKey]bool) int {
	seen := map[string]bool{}
	for k := range ws {
		seen[k.where] = true
	}
	return len(seen)
}

// scan looks at every connection's history as its debug panel shows it (32 messages each way):
// what a student with the graph view open would see.
func (w waitsSeen) scan(r *rehearsal) {
	look := func(where string, d *message.Debug) {
		if d == nil {
			return
		}
		for m := range graphRecords(d.Incoming).waits(MsgKillEnemy, MsgSpawnEnemy) {
			w.kills[waitKey{where, m.Seq, m.Arrived}] = true
		}
		// A chat line that waited: on the line before it (a line's resend comes after the
		// rest of a wave, when the line after it has left the 32 records kept here, so the
		// record's own mark says it; the panel's graph keeps both).
		for _, m := range d.Incoming {
			if t := MsgType(m.First); m.Waited && (t == MsgChat || t == MsgSpectatorChat) {
				w.chats[waitKey{where, m.Seq, m.Arrived}] = true
			}
		}
	}
	for _, c := range r.live() {
		look(c.cfg.Name, c.tr.Stats().Server.Debug)
	}
	for _, p := range r.srv.tr.Stats().Peers {
		look("server from "+p.Name, p.Debug)
	}
}

// graph, 12-20: F7 puts 30% loss on every link, and the students look in the graph view for a
// kill waiting on its spawn and a chat line on the one before. The teacher's waves (w:
// Stage.SetWaves) make both happen.
// Spectator chat is turned off and on again on the way.
func (r *rehearsal) graph(t *testing.T, presets ClassPresets) {
	r.runTo(12 * time.Minute)
	if err := r.srv.PushLink(r.now, presets.ThirtyPercent); err != nil {
		t.Fatal(err)
	}
	// Two minutes of the class's own game at 30% loss, the panel looked at twice a second.
	natural := newWaitsSeen()
	r.every(14*time.Minute, 500*time.Millisecond, func() { natural.scan(r) })
	// The teacher's waves (w on the server's screen, Stage.SetWaves): every WaveEvery,
	// WaveEnemies enemies each killed in the packet after its spawn, and WaveLines lines of
	// each server bot, a packet each, all sent at once.
	staged := newWaitsSeen()
	stage := StageOf(r.srv)
	if err := stage.SetWaves(r.now, WaveEvery); err != nil {
		t.Fatal(err)
	}
	r.every(r.now.Sub(r.t0)+20*time.Second, 250*time.Millisecond, func() { staged.scan(r) })
	if err := stage.SetWaves(r.now, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("12-20: at 30%% loss, in 2 minutes of the game's own play: %d kills waited on their spawn, %d chat lines on the one before",
		len(natural.kills), len(natural.chats))
	t.Logf("12-20: 20 s of the teacher's waves: %d kills waited on their spawn, on %d of the %d clients' links; %d chat lines on the one before, on %d links",
		len(staged.kills), where(staged.kills), len(r.live()), len(staged.chats), where(staged.chats))
	if n := where(staged.kills); 2*n < len(r.live()) {
		t.Errorf("12-20: in 20 s of the teacher's waves a kill waited on its spawn on %d of the %d clients' links: most students find none", n, len(r.live()))
	}
	if n := where(staged.chats); 2*n < len(r.live()) {
		t.Errorf("12-20: in 20 s of the teacher's waves a chat line waited on the one before on %d of the %d clients' links: most students find none", n, len(r.live()))
	}
	if len(natural.kills) != 0 {
		t.Logf("12-20: %d kills waited without the waves", len(natural.kills))
	}

	r.runTo(15 * time.Minute)
	r.spectatorChatOffAndOn(t)
	r.runTo(19 * time.Minute)
	median, most := r.leadOver(20 * time.Minute)
	var rtts []time.Duration
	for _, c := range r.players {
		rtts = append(rtts, c.tr.Stats().Server.RTT.Round(100*time.Microsecond))
	}
	t.Logf("12-20: the lead at 30%% loss: median %v, at most %v; the students' round trips to the server %v", median, most, rtts)
	r.agree(t, "12-20", r.live(), 0)
}

// spectatorChatOffAndOn: s on the server; a spectator's line is refused while spectator chat
// is off, and goes through once it is on again.
func (r *rehearsal) spectatorChatOffAndOn(t *testing.T) {
	talker := r.watchers[1] // not a bot: it says only what it is told
	r.srv.SetSpectatorChat(r.now, false)
	r.waitFor(10*time.Second, "the spectators to hear that their chat is off", func() bool {
		return !slices.ContainsFunc(r.watching(), func(c *Client) bool { return !c.role.spectate.ChatOff })
	})
	if err := talker.Say(r.now, "let me speak"); err == nil {
		t.Errorf("15: a spectator's line with spectator chat off was taken")
	}
	relayed := r.srv.stats.SpectatorChat
	r.run(time.Minute)
	if r.srv.stats.SpectatorChat != relayed {
		t.Errorf("15-16: %d spectator lines relayed while spectator chat was off", r.srv.stats.SpectatorChat-relayed)
	}
	r.srv.SetSpectatorChat(r.now, true)
	r.waitFor(10*time.Second, "the spectators to hear that they may chat again", func() bool { return !talker.role.spectate.ChatOff })
	heard := r.projector.chat.received.total
	if err := talker.Say(r.now, "thanks"); err != nil {
		t.Errorf("16: a spectator's line with spectator chat on again: %v", err)
	}
	r.waitFor(10*time.Second, "the line to reach the projector", func() bool {
		return slices.ContainsFunc(r.projector.chat.received.items, func(l ChatLine) bool { return l.From == talker.cfg.Name && l.Text == "thanks" })
	})
	t.Logf("15-16: spectator chat off for a minute: %d lines refused; on again: the projector heard %d lines since",
		r.srv.stats.ChatRefused, r.projector.chat.received.total-heard)
}

// alone, 20-28: the students quit the class game for lessons 3 to 5 on their own; their seats
// are held 30 s, then freed; the projector watches the bots play on. Then they run the join
// command again, each with the identity its client keeps for the server.
func (r *rehearsal) alone(t *testing.T) {
	r.runTo(20 * time.Minute)
	if n := r.srv.tr.Stats().Timeouts; n != 0 {
		t.Errorf("20: %d connections timed out before anybody left", n)
	}
	seats := map[string]uint8{}
	for _, c := range r.players {
		seats[c.cfg.Name] = c.role.seat
	}
	freed, left := r.srv.stats.SeatsFreed, r.now
	r.leaveAll(t, "20")
	r.run(25 * time.Second)
	for _, c := range r.players {
		if st := r.srv.seats.players[c.role.seat]; st == nil || st.peer != nil {
			t.Errorf("20: %s's seat %d is not held for her 25 s after she left", c.cfg.Name, c.role.seat)
		}
	}
	// A quitting client sends its goodbye three times; at 30% loss on its link all three are
	// lost now and then, and the server finds that student gone only at the transport's
	// timeout, the seat's hold starting then.
	r.waitFor(time.Minute, "the seats freed after their hold", func() bool { return r.srv.stats.SeatsFreed-freed == uint64(len(r.players)) })
	t.Logf("20: %d seats freed %v after their students left (%d goodbyes lost: timed out)", len(r.players), r.now.Sub(left).Round(time.Second), r.srv.tr.Stats().Timeouts)
	r.runTo(27 * time.Minute)
	r.agree(t, "27, the projector alone", []*Client{r.projector}, 0)

	r.runTo(28 * time.Minute)
	r.timeouts = r.srv.tr.Stats().Timeouts
	for i, old := range r.players {
		r.players[i] = r.rejoin(old)
		r.waitFor(10*time.Second, old.cfg.Name+" back in the game", func() bool { return clientRunning(r.players[i]) })
	}
	for i, old := range r.watchers {
		r.watchers[i] = r.rejoin(old)
	}
	r.waitFor(20*time.Second, "every student back in the game", func() bool {
		return !slices.ContainsFunc(r.students(), func(c *Client) bool { return !clientRunning(c) })
	})
	var back []string
	for _, c := range r.players {
		back = append(back, fmt.Sprintf("%s %d→%d", c.cfg.Name, seats[c.cfg.Name], c.role.seat))
	}
	t.Logf("28: back in the class game after the holds: seats %v; %d spectators", back, len(r.watchers))
	for _, c := range r.students() {
		if c.class.settings == nil || c.class.err != nil {
			t.Errorf("28: %s came back without the class link (%v)", c.cfg.Name, c.class.err)
		}
	}
}

// leaveAll: every student quits the class game (q), none of them dropped before.
func (r *rehearsal) leaveAll(t *testing.T, when string) {
	for _, c := range r.students() {
		if err := c.Ended(); err != nil {
			t.Errorf("%s: %s had left the game already: %v", when, c.cfg.Name, err)
		}
		r.leave(slices.Index(r.clients, c))
	}
}

// rejoin is the student of old running the join command again: a new client with the same
// name and the identity the client binary keeps for the server. A seated student's client is
// linked to the other seated students', for their direct links.
func (r *rehearsal) rejoin(old *Client) *Client {
	edit := func(c *ClientConfig) {
		c.Name, c.Spectate, c.Bot = old.cfg.Name, old.cfg.Spectate, old.cfg.Bot
		c.PlayerID, c.Secret = old.Identity()
	}
	if slices.Contains(r.watchers, old) {
		return r.clients[r.joinWatcher(edit)]
	}
	var peers []netip.AddrPort
	for i, c := range r.clients {
		if !r.gone[i] && c.role.kind == rolePlayer {
			peers = append(peers, r.caddrs[i])
		}
	}
	return r.clients[r.joinLinkedTo(edit, peers)]
}

// lockstep, 28-36: R starts a new round; F8 puts 150 ms of round trip on every link and the
// lead follows; t steps the lead through the teacher's settings and back to auto; the
// students press i and the server repairs their units; a student quits and comes back to
// her seat.
func (r *rehearsal) lockstep(t *testing.T, presets ClassPresets) {
	r.runTo(28*time.Minute + 30*time.Second)
	s := r.srv
	at, err := s.NewRound(r.now)
	if err != nil {
		t.Fatal(err)
	}
	r.waitFor(10*time.Second, "the new round", func() bool { return s.round.current == 2 })
	squads := map[uint8]int{}
	for _, u := range s.w.Units() {
		if !u.IsEnemy() {
			squads[u.Owner]++
		}
	}
	for _, seat := range s.seats.playing() {
		if squads[seat] == 0 {
			t.Errorf("28: seat %d has no fresh squad after the new round at frame %d", seat, at)
		}
	}
	for _, c := range r.live() {
		if c.stats.Rounds != 1 {
			t.Errorf("28: %s was announced %d new rounds, want 1", c.cfg.Name, c.stats.Rounds)
		}
	}
	r.runTo(28*time.Minute + 50*time.Second)
	before, beforeMost := r.leadOver(29 * time.Minute)
	if err := s.PushLink(r.now, presets.RoundTrip); err != nil {
		t.Fatal(err)
	}
	r.runTo(29*time.Minute + 30*time.Second)
	stalled := func() (n uint64) {
		for _, c := range r.players {
			n += c.stats.DirectStalled
		}
		return n
	}
	stalls, lost := stalled(), s.stats.LinksLost
	after, afterMost := r.leadOver(30 * time.Minute)
	stalls, lost = stalled()-stalls, s.stats.LinksLost-lost
	var rtt time.Duration
	for _, c := range r.players {
		rtt = max(rtt, c.tr.Stats().Server.RTT)
	}
	t.Logf("29: F8: the lead from median %v (at most %v) at 30%% loss to median %v (at most %v) at a round trip of %v to the server",
		before, beforeMost, after, afterMost, rtt.Round(time.Millisecond))
	if after < rtt/2+s.cfg.Frame || after > time.Second {
		t.Errorf("29: at a round trip of %v the lead is %v, want it to cover half of it and a frame, and at most a second", rtt, after)
	}
	// At F8 a direct link crosses both students' conditioners, a round trip of 300 ms, longer
	// than the lead: its commands arrive in time and their acks after the lead, and a link
	// that delivers does not count as stalled (stallAfter).
	if stalls > 0 {
		t.Errorf("29: at F8 the students' direct links stalled %d times in 30 s (%d LinkLosts to the server, which relays every command again meanwhile)", stalls, lost)
	}
	r.teacherLeads(t)

	r.runTo(33 * time.Minute)
	r.injectAndRepair(t)
	r.runTo(34 * time.Minute)
	r.quitAndRejoin(t)

	// The last minute of the students in the class game: each still gets the others' chat and
	// commands, and sees the server's world.
	r.runTo(35 * time.Minute)
	r.lastMinute(t, "35-36", r.students(), 36*time.Minute)
}

// teacherLeads, 30-32: t steps the lead through 100 ms, 300 ms, 1 s and 2 s, and back to auto,
// half a minute each, while the students give orders as people do, at any moment of a frame
// (a bot gives its orders as a frame starts, which gains it most of a frame). At 100 ms an
// order from a student across the 150 ms round trip comes late and is run again; at 2 s
// nothing comes late.
func (r *rehearsal) teacherLeads(t *testing.T) {
	late := func() (n uint64) {
		for _, c := range r.players {
			n += c.drift.rw.stats.LateRerun + c.drift.rw.stats.LateBeyondWindow
		}
		return n
	}
	order := func() {
		for _, c := range r.players {
			for _, u := range c.w.Units() {
				if u.Owner == c.role.seat && !u.IsEnemy() && !u.Dead {
					if _, err := c.Command(r.now, world.CommandStop, []uint32{u.ID}, 0, 0, 0); err != nil {
						t.Errorf("%s's order: %v", c.cfg.Name, err)
					}
					break
				}
			}
		}
	}
	var lates []string
	for _, l := range []LeadSetting{FixedLead(100 * time.Millisecond), FixedLead(300 * time.Millisecond), FixedLead(time.Second), FixedLead(2 * time.Second), LeadAuto} {
		if _, err := r.srv.SetLead(r.now, l); err != nil {
			t.Fatal(err)
		}
		r.run(10 * time.Second) // the change lands at a frame ahead, and the late events of the last one are done
		from := late()
		// Orders 370 ms apart fall at every moment of a frame.
		r.every(r.now.Sub(r.t0)+20*time.Second, 370*time.Millisecond, order)
		n := late() - from
		lates = append(lates, fmt.Sprintf("%v: %d (leads %v)", l, n, r.leads()))
		switch l {
		case FixedLead(100 * time.Millisecond):
			if n == 0 {
				t.Errorf("30: with the lead at 100 ms and 150 ms of round trip, no late event run again in 20 s")
			}
		case FixedLead(2 * time.Second):
			if n != 0 {
				t.Errorf("31: with the lead at 2 s, %d late events in 20 s", n)
			}
		}
	}
	t.Logf("30-32: t: late events the students ran again in 20 s at each lead: %v", lates)
}

// injectAndRepair: every seated student presses i; the server finds each corrupted unit and
// repairs it in real time, and each student's world is the server's again.
func (r *rehearsal) injectAndRepair(t *testing.T) {
	s := r.srv
	mismatched, realtime, stopped := s.stats.MismatchedUnits, s.stats.RealtimeResyncs, s.stats.StopWorldResyncs
	frame := s.w.Frame()
	hurt := 0
	for _, c := range r.players {
		hurt += c.InjectDesync(1)
	}
	if hurt != len(r.players) {
		t.Errorf("33: %d students pressed i, %d units corrupted", len(r.players), hurt)
	}
	found := r.runUntil(r.now.Add(10*time.Second), func() bool {
		return s.stats.MismatchedUnits-mismatched >= uint64(hurt) && s.stats.RealtimeResyncs-realtime >= uint64(hurt)
	})
	t.Logf("33: i on %d students' clients: %d mismatched units found, %d real-time re-syncs, %d stop-the-world, in %v",
		hurt, s.stats.MismatchedUnits-mismatched, s.stats.RealtimeResyncs-realtime, s.stats.StopWorldResyncs-stopped, r.now.Sub(r.t0.Add(33*time.Minute)))
	if !found || s.stats.StopWorldResyncs != stopped {
		t.Errorf("33: 10 s after %d units were corrupted the server found %d and re-synced %d in real time, %d by stopping the world",
			hurt, s.stats.MismatchedUnits-mismatched, s.stats.RealtimeResyncs-realtime, s.stats.StopWorldResyncs-stopped)
	}
	repaired := s.stats.lastResync
	r.run(10 * time.Second)
	r.agree(t, "33, after the repairs", r.players, max(repaired, frame))
}

// quitAndRejoin: a student quits and runs the same join again within the seat's hold: she
// is back in her seat, with her units.
func (r *rehearsal) quitAndRejoin(t *testing.T) {
	i := 3
	old := r.players[i]
	s := r.srv
	seat, reclaimed := old.role.seat, s.stats.SeatsReclaimed
	realtime, stopped := s.stats.RealtimeResyncs, s.stats.StopWorldResyncs
	r.leave(slices.Index(r.clients, old))
	r.run(5 * time.Second)
	r.players[i] = r.rejoin(old)
	c := r.players[i]
	r.waitFor(10*time.Second, old.cfg.Name+" back", func() bool { return clientRunning(c) })
	if c.role.kind != rolePlayer || c.role.seat != seat || s.stats.SeatsReclaimed != reclaimed+1 {
		t.Errorf("34: %s came back as %v in seat %d (held seat %d), %d seats reclaimed", old.cfg.Name, c.role.kind, c.role.seat, seat, s.stats.SeatsReclaimed-reclaimed)
	}
	back := r.now.Sub(r.t0.Add(34 * time.Minute))
	mine := 0
	for _, u := range c.w.Units() {
		if u.Owner == seat && !u.IsEnemy() {
			mine++
		}
	}
	if mine == 0 {
		t.Errorf("34: %s is back in seat %d without a unit", old.cfg.Name, seat)
	}
	r.run(30 * time.Second)
	t.Logf("34: %s quit and came back to seat %d and her %d units in %v", old.cfg.Name, c.role.seat, mine, back)
	if ff := c.drift.rw.stats.LateBeyondWindow; ff > 0 || s.stats.RealtimeResyncs != realtime || s.stats.StopWorldResyncs != stopped {
		t.Errorf("34: %s's new client ran %d of the others' commands late without a re-run; the server repaired her world %d times in real time and %d by stopping the world",
			old.cfg.Name, ff, s.stats.RealtimeResyncs-realtime, s.stats.StopWorldResyncs-stopped)
	}
}

// lastMinute plays to minute end and checks that every client of cs got chat lines and other
// seats' commands in that last minute, and has the server's world.
func (r *rehearsal) lastMinute(t *testing.T, when string, cs []*Client, end time.Duration) {
	t.Helper()
	heard := map[*Client]uint64{}
	for _, c := range cs {
		heard[c] = c.chat.received.total
	}
	r.runTo(end - 25*time.Second)
	frame := r.srv.w.Frame()
	r.runTo(end)
	for _, c := range cs {
		lines, cmds := c.chat.received.total-heard[c], othersCommands(c, frame)
		if lines == 0 || cmds == 0 {
			t.Errorf("%s: %s got %d chat lines in the last minute, %d commands of the others in its last 25 s", when, c.cfg.Name, lines, cmds)
		}
		if err := c.Ended(); err != nil {
			t.Errorf("%s: %s left the game: %v", when, c.cfg.Name, err)
		}
	}
	r.agree(t, when, cs, 0)
}

// othersCommands counts the commands of other seats than c's that c took for frames from on
// (its schedule remembers them for seenFrames after their frame).
func othersCommands(c *Client, from uint32) int {
	n := 0
	for k, f := range c.sched.seen {
		if f >= from && (c.role.kind != rolePlayer || k.seat != c.role.seat) {
			n++
		}
	}
	return n
}

// lessonsEightAndNine, 36-40: the students play lessons 8 and 9 on their own; the projector
// stays in the class game, recording.
func (r *rehearsal) lessonsEightAndNine(t *testing.T) {
	r.runTo(36 * time.Minute)
	r.leaveAll(t, "36")
	r.runTo(39 * time.Minute)
	r.lastMinute(t, "39-40, the projector", []*Client{r.projector}, 40*time.Minute)
}

// replayDay, 40-45: the projector quits (q); its capture is closed, for the replay. The bots
// play on to the end of the class.
func (r *rehearsal) replayDay(t *testing.T) ClassCapture {
	p := r.projector
	out := ClassCapture{RealtimeResyncs: p.stats.RealtimeResyncs, StopWorldResyncs: p.stats.StopWorldResyncs, Duration: r.now.Sub(r.t0)}
	r.leave(slices.Index(r.clients, p))
	if err := r.rec.Close(); err != nil {
		t.Fatal(err)
	}
	if st := r.rec.Stats(); st.Lost() != 0 {
		t.Errorf("40: the projector's recorder lost %d datagrams: %+v", st.Lost(), st)
	}
	out.Capture, out.Keys = r.capture.Bytes(), r.keys.Bytes()
	t.Logf("40: the projector's capture: %d bytes (%.0f kB a minute), %d real-time re-syncs and %d stop-the-world re-syncs executed",
		len(out.Capture), float64(len(out.Capture))/1000/out.Duration.Minutes(), out.RealtimeResyncs, out.StopWorldResyncs)
	// The README's estimate: about 420 kB a minute in the class's game, about 17 MB for the class.
	if perMinute := float64(len(out.Capture)) / 1000 / out.Duration.Minutes(); perMinute > 1.2*420 {
		t.Errorf("40: the projector's capture holds %.1f MB for %v, %.0f kB a minute (the README: about 420 kB a minute, about 17 MB for the class)",
			float64(len(out.Capture))/1e6, out.Duration.Round(time.Minute), perMinute)
	}
	r.runTo(45 * time.Minute)
	return out
}

// nothingBroke: nothing that has a limit was hit on the way. No client was dropped, kicked or
// timed out (but the students whose goodbyes the 30% loss took), no message refused by
// back-pressure, no report dropped unchecked, and the server stepped every frame on time.
func (r *rehearsal) nothingBroke(t *testing.T) {
	st := r.srv.stats
	tr := r.srv.tr.Stats()
	t.Logf("45: the server: frame %d, %d commands relayed, %d chat lines relayed, %d spectator lines, %d refused; %d joins, %d leaves, %d spectator joins; %d real-time and %d stop-the-world re-syncs; %d hash reports, %d dropped; %d frames late, the latest %v",
		r.srv.w.Frame(), st.CommandsRelayed, st.ChatRelayed, st.SpectatorChat, st.ChatRefused, st.Joins, st.Leaves, st.SpectatorJoins,
		st.RealtimeResyncs, st.StopWorldResyncs, st.HashReports, st.HashReportsDropped, st.FramesLate, st.MaxFrameLate)
	for _, c := range []struct {
		what string
		n    uint64
	}{
		{"frames stepped a period late", st.FramesLate},
		{"players dropped", st.PlayersDropped},
		{"spectators dropped", st.SpectatorsDropped},
		{"clients dropped from a pause", st.PauseDropouts},
		{"connections timed out since minute 28", tr.Timeouts - r.timeouts},
		{"joins refused", st.JoinsRefused},
		{"claims refused", st.ClaimsRefused},
		{"messages refused by back-pressure", st.SendsRefused},
		{"hash reports dropped unchecked", st.HashReportsDropped},
		{"bad messages", st.BadMessages},
	} {
		if c.n != 0 {
			t.Errorf("the server: %d %s", c.n, c.what)
		}
	}
	for _, c := range r.clients {
		if c.stats.SendsRefused != 0 || c.stats.BadMessages != 0 {
			t.Errorf("%s: %d messages refused by back-pressure, %d bad messages", c.cfg.Name, c.stats.SendsRefused, c.stats.BadMessages)
		}
	}
}
