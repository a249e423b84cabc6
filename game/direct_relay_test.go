package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/world"
)

// lossyLinks: 10% loss and 20 ms each way on every link, the server's and the direct ones.
var lossyLinks = linksim.Settings{LossPercent: 10, Latency: 20 * time.Millisecond}

// TestDirectCommandsAreNotRelayed: with every direct link up, a command goes to each other
// player once, over its link, and the server relays it to nobody who has it that way; every
// world still equals the server's, with nothing for the hashes to repair, at 10% loss on
// every link with the bots playing throughout.
func TestDirectCommandsAreNotRelayed(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 11, clients: 4, bots: 1, link: lossyLinks})
	everyoneLinked(t, g, 20*time.Second)
	st0 := g.srv.stats
	var issued0, direct0 uint64
	for _, c := range g.live() {
		issued0 += c.stats.CommandsIssued
		direct0 += c.stats.CommandsDirectFirst
	}
	g.run(20 * time.Second)
	var issued, direct, stalled uint64
	for _, c := range g.live() {
		issued += c.stats.CommandsIssued
		direct += c.stats.CommandsDirectFirst
		stalled += c.stats.DirectStalled
		if c.stats.DirectQuiet != 0 || c.stats.DirectLost != 0 {
			t.Errorf("%s: %d links fell quiet, %d ended, on a link that loses 10%%", c.cfg.Name, c.stats.DirectQuiet, c.stats.DirectLost)
		}
	}
	issued -= issued0
	saved := g.srv.stats.RelaysSaved - st0.RelaysSaved
	others := uint64(len(g.live()) - 1)
	t.Logf("%d commands issued by the clients, %d relays saved (of %d), %d commands came first over a link; %d links stalled",
		issued, saved, issued*others, direct-direct0, stalled)
	if issued < 20 {
		t.Fatalf("only %d commands issued in 20 s: the bots are not playing", issued)
	}
	// Each command of a client is saved a relay to each other client, but for the ones sent
	// while a link counted as stalled (a command or its ack lost twice, about one in a hundred
	// at 10% loss), and the ones a stall named, which the server relays.
	if saved < issued*others*9/10 || saved > issued*others+others*4 {
		t.Errorf("%d relays saved, want %d (%d commands to %d other clients each) or a little fewer", saved, issued*others, issued, others)
	}
	if stalled > 3 {
		t.Errorf("%d links stalled in 20 s on links that lose 10%%, want at most 3", stalled)
	}
	if direct-direct0 < issued*others*9/10 {
		t.Errorf("%d commands came over a link, want about %d", direct-direct0, issued*others)
	}
	if st := g.srv.stats; st.RealtimeResyncs != st0.RealtimeResyncs || st.StopWorldResyncs != st0.StopWorldResyncs || st.MismatchedUnits != st0.MismatchedUnits {
		t.Errorf("re-syncs: %d real-time, %d stop-the-world, %d units mismatched, want none",
			st.RealtimeResyncs-st0.RealtimeResyncs, st.StopWorldResyncs-st0.StopWorldResyncs, st.MismatchedUnits-st0.MismatchedUnits)
	}
	checkAgree(t, g)
	g.result()
}

// TestLinkLostCommandsComeAgain: a direct link that goes dead in the middle of the game (a
// student pulls a cable between two machines) loses the commands in flight on it, which the
// server did not relay. Both ends hear nothing for linkQuiet, stop using the link and tell the
// server, which sends the lost commands again and relays the rest: every world still equals
// the server's without a re-sync.
func TestLinkLostCommandsComeAgain(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 12, clients: 3, link: lossyLinks})
	everyoneLinked(t, g, 20*time.Second)
	g.run(3 * time.Second)
	st0 := g.srv.stats
	a, b := g.clients[0], g.clients[1]
	dead := linksim.Settings{LossPercent: 100}
	if err := g.Network().SetLink(g.caddrs[0].String(), g.caddrs[1].String(), dead, dead); err != nil {
		t.Fatal(err)
	}
	issuedB := b.stats.CommandsIssued
	g.run(15 * time.Second)
	st := g.srv.stats
	t.Logf("a: quiet %d, lost %d; b: quiet %d, lost %d; server: %d LinkLost, %d commands sent again; b issued %d",
		a.stats.DirectQuiet, a.stats.DirectLost, b.stats.DirectQuiet, b.stats.DirectLost, st.LinksLost-st0.LinksLost,
		st.CommandsRelayedAgain-st0.CommandsRelayedAgain, b.stats.CommandsIssued-issuedB)
	if a.stats.DirectQuiet == 0 || b.stats.DirectQuiet == 0 {
		t.Errorf("the dead link fell quiet %d times at a, %d at b, want at least once at each", a.stats.DirectQuiet, b.stats.DirectQuiet)
	}
	if n := st.LinksLost - st0.LinksLost; n < 2 {
		t.Errorf("the server acted on %d LinkLost, want at least 2 (one from each end)", n)
	}
	if st.CommandsRelayedAgain == st0.CommandsRelayedAgain {
		t.Error("the server sent no command again")
	}
	if b.stats.CommandsIssued == issuedB {
		t.Fatal("b issued no command while its link was dead: the test shows nothing")
	}
	if st.RealtimeResyncs != st0.RealtimeResyncs || st.StopWorldResyncs != st0.StopWorldResyncs || st.MismatchedUnits != st0.MismatchedUnits {
		t.Errorf("re-syncs: %d real-time, %d stop-the-world, %d units mismatched, want none",
			st.RealtimeResyncs-st0.RealtimeResyncs, st.StopWorldResyncs-st0.StopWorldResyncs, st.MismatchedUnits-st0.MismatchedUnits)
	}
	for _, c := range g.live() {
		t.Logf("%s: late %d, max late frames %d, beyond window %d", c.cfg.Name, c.stats.CommandsLate, c.drift.rw.stats.MaxLateFrames, c.drift.rw.stats.LateBeyondWindow)
	}
	checkAgree(t, g)
	g.result()
}

// linkedPair is a game of two clients with their direct link made: a, b, and a's side of it.
func linkedPair(t *testing.T, seed uint64) (g *vgame, a, b *Client, lc *linkConn) {
	t.Helper()
	g = newVGame(t, vspec{seed: seed, clients: 2})
	everyoneLinked(t, g, 20*time.Second)
	a, b = g.clients[0], g.clients[1]
	if lc = a.linkConnOf(a.p2p.links[b.role.seat]); lc == nil {
		t.Fatal("no direct connection to b")
	}
	return g, a, b, lc
}

// fromLink hands a, as if from b over their link lc, a command of b's seat for frame.
func fromLink(t *testing.T, g *vgame, a, b *Client, lc *linkConn, id, frame uint32) {
	t.Helper()
	payload, err := AppendMsg(nil, &Command{Seat: b.role.seat, ID: id, Frame: frame, Kind: world.CommandStop, Units: []uint32{1}, Direct: 1 << a.role.seat})
	if err != nil {
		t.Fatal(err)
	}
	a.onDirect(lc.peer, g.now, &message.Message{Payload: payload, Guaranteed: true})
}

// TestCommandsBeforeTheLinkProvedWait: the other side may take our proof first and send a
// command at once, which the server then does not relay to us: a command that comes before
// the link proved waits for the proof (at most maxHeldCommands), then runs.
func TestCommandsBeforeTheLinkProvedWait(t *testing.T) {
	t.Parallel()
	g, a, b, lc := linkedPair(t, 13)
	lc.proved = false // as it was before b's proof came
	f := a.w.Frame() + 20
	send := func(id uint32) { fromLink(t, g, a, b, lc, 1000+id, f) }
	first, bad := a.stats.CommandsDirectFirst, a.stats.BadMessages
	for id := range uint32(maxHeldCommands + 1) {
		send(id)
	}
	if n := a.stats.CommandsDirectFirst - first; n != 0 {
		t.Fatalf("%d commands ran before the link proved", n)
	}
	if n := a.stats.BadMessages - bad; n != 1 {
		t.Errorf("%d commands beyond the %d held counted as bad, want 1", n, maxHeldCommands)
	}
	a.linkProved(g.now, lc)
	if n := a.stats.CommandsDirectFirst - first; n != maxHeldCommands {
		t.Errorf("%d held commands ran once the link proved, want %d", n, maxHeldCommands)
	}
	if len(lc.held) != 0 {
		t.Errorf("%d commands still held after the proof", len(lc.held))
	}
}

// BenchmarkDirectLinksAtLoss: eight bot clients, every link at 10% loss and 50 ms each way,
// 20 s of game time after every link is up: how many relays the direct links save, how often
// a link stalls or falls quiet (LinkLost), and what the server sends again for it.
func BenchmarkDirectLinksAtLoss(b *testing.B) {
	for b.Loop() {
		g := newVGame(b, vspec{seed: 1, clients: 8, link: linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond}})
		g.waitFor(30*time.Second, "every direct link up", func() bool {
			for _, c := range g.live() {
				if !clientRunning(c) || directLinks(c) != len(g.live())-1 {
					return false
				}
			}
			return true
		})
		// tally sums the clients' counters: commands issued, sent over links, stalls, quiets.
		tally := func() (issued, sent, stalled, quiet uint64) {
			for _, c := range g.live() {
				issued += c.stats.CommandsIssued
				stalled += c.stats.DirectStalled
				quiet += c.stats.DirectQuiet
				for _, p := range c.p2p.links {
					if p != nil {
						sent += p.Conn().Stats().GuaranteedSent
					}
				}
			}
			return
		}
		st0 := g.srv.stats
		issued0, sent0, stalled0, quiet0 := tally()
		g.run(20 * time.Second)
		st := g.srv.stats
		issued, sent, stalled, quiet := tally()
		issued, sent, stalled, quiet = issued-issued0, sent-sent0, stalled-stalled0, quiet-quiet0
		could := issued * uint64(len(g.live())-1)
		saved, again := st.RelaysSaved-st0.RelaysSaved, st.CommandsRelayedAgain-st0.CommandsRelayedAgain
		b.ReportMetric(100*float64(saved)/float64(max(could, 1)), "relays-saved-%")
		b.ReportMetric(100*float64(stalled)/float64(max(sent, 1)), "stalls-per-100-direct-sends")
		b.ReportMetric(float64(again), "commands-sent-again")
		b.Logf("%d commands issued, %d relays they could save, %d saved, %d sent again; %d sent over links, %d stalls, %d quiet; %d LinkLost acted on, %d messages refused by the server, lead %d frames",
			issued, could, saved, again, sent, stalled, quiet, st.LinksLost-st0.LinksLost, st.BadMessages-st0.BadMessages, g.srv.lead.cur)
	}
}

// TestStalledLinkCostsItsCommandsAlone: a link stalls when a command on it goes unacknowledged
// for too long, and the other commands of the same player went over it and arrived. The
// LinkLost names the unacknowledged ones, and the server sends again and relays those alone
// (one that reaches it after the LinkLost as well): not every command of the player's last
// 3 s, and not its next 3 s of commands, which the link carries once it is acknowledged.
func TestStalledLinkCostsItsCommandsAlone(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 11, clients: 3})
	everyoneLinked(t, g, 20*time.Second)
	a, b := g.clients[0], g.clients[1]
	g.waitFor(10*time.Second, "a's commands over its link to b", func() bool {
		n := 0
		g.srv.sched.each(func(e *event) {
			if e.kind == evCommand && e.cmd != nil && e.seat == a.role.seat && e.cmd.Direct&(1<<b.role.seat) != 0 {
				n++
			}
		})
		return n >= 3
	})
	last := a.orders.lastID
	st0 := g.srv.stats
	issued0 := make([]uint64, len(g.clients))
	for i, c := range g.clients {
		issued0[i] = c.stats.CommandsIssued
	}
	// The last command a issued went over the link and is named, and so is the next, which
	// has not reached the server yet.
	a.send(g.now, &LinkLost{Seat: b.role.seat, Why: LinkStalled, From: last, To: last + 1})
	g.run(3 * time.Second)
	st := g.srv.stats
	var issued uint64
	for i, c := range g.clients {
		issued += c.stats.CommandsIssued - issued0[i]
	}
	if a.stats.CommandsIssued-issued0[0] < 3 {
		t.Fatalf("a issued %d commands in 3 s: the test shows nothing", a.stats.CommandsIssued-issued0[0])
	}
	if n := st.CommandsRelayedAgain - st0.CommandsRelayedAgain; n != 1 {
		t.Errorf("the server sent %d commands again, want 1 (the one named that it held)", n)
	}
	// Every command after the LinkLost is saved its relay to both other clients, but a's
	// next, which is relayed to b (and one or two in flight at either end of the 3 s).
	saved := st.RelaysSaved - st0.RelaysSaved
	t.Logf("%d commands issued after the LinkLost, %d by a; %d relays saved, %d sent again",
		issued, a.stats.CommandsIssued-issued0[0], saved, st.CommandsRelayedAgain-st0.CommandsRelayedAgain)
	if want := 2*issued - 1; saved+2 < want || saved > want+2 {
		t.Errorf("%d relays saved after the LinkLost, want %d: %d commands to two others, but a's next to b", saved, want, issued)
	}
	checkAgree(t, g)
}

// TestALostCommandDoesNotStallItsLink: a command lost once on a direct link is resent by the
// link, and its ack comes a resend delay and a round trip after it went. A stall before then
// has the server send it again beside the link's resend and carries the player's next
// commands through the server (two hops) until the resend is acknowledged. At 10% loss and
// 50 ms each way, about one command or ack in five is lost once: a stall at the first resend
// delay made about 10 stalls per 100 commands sent over the links; a stall that waits for the
// resend's ack leaves the ones whose resend was lost too, and a few more.
func TestALostCommandDoesNotStallItsLink(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 3, clients: 4, link: linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond}})
	everyoneLinked(t, g, 30*time.Second)
	tally := func() (sent, stalled uint64) {
		for _, c := range g.live() {
			stalled += c.stats.DirectStalled
			for _, p := range c.p2p.links {
				if p != nil {
					sent += p.Conn().Stats().GuaranteedSent
				}
			}
		}
		return
	}
	sent0, stalled0 := tally()
	g.run(20 * time.Second)
	sent, stalled := tally()
	sent, stalled = sent-sent0, stalled-stalled0
	t.Logf("%d commands sent over the links, %d stalls (%.1f per 100)", sent, stalled, 100*float64(stalled)/float64(max(sent, 1)))
	if sent < 200 {
		t.Fatalf("%d commands sent over the links in 20 s: the bots are not playing", sent)
	}
	if 100*stalled > 7*sent {
		t.Errorf("%d stalls for %d commands sent over the links, want at most 7 per 100", stalled, sent)
	}
	checkAgree(t, g)
}
