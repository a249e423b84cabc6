package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

var attackSeeds = flag.Int("attack.seeds", 1, "TestAttacks: play each attack with this many seeds (each a different game: the link's losses, the bots, the keys)")

// TestAttacks plays each attack of RELIABILITY.md against the server the binary runs, with
// honest bot clients playing through it at the class's 5% loss on every host, and checks
// that the attack fails and that the honest players' worlds never noticed. The class runs in
// virtual time (vclass_test.go): each attack plays 17 s of game, the same game for the same
// seed, in a fraction of that on the wall clock.
//
//	go test ./cmd/server -run Attacks -v
//	go test ./cmd/server -run Attacks -v -attack.seeds=20   # each attack in 20 different games
func TestAttacks(t *testing.T) {
	for i, tt := range []struct {
		name string
		play func(t *testing.T, seed uint64)
	}{
		{"hijack", attackHijack},
		{"freeze", attackFreeze},
		{"forged_direct_link", attackForgedDirectLink},
		{"reflection", attackReflection},
		{"forgery_and_replay", attackForgeryAndReplay},
		{"join_lockout", attackJoinLockout},
		{"join_flood_everywhere", attackJoinFloodEverywhere},
		{"look_alike_names", attackLookAlikeNames},
		{"confusable_names", attackConfusableNames},
		{"lying_ping_summary", attackLyingPingSummary},
		{"slow_path", attackSlowPath},
		{"far_future_commands", attackFarFuture},
		{"command_flood", attackCommandFlood},
		{"spectator_places_one_network", attackSpectatorPlacesOneNetwork},
		{"spectator_places_one_address", attackSpectatorPlacesOneAddress},
		{"seats_one_address", attackSeatsOneAddress},
	} {
		for s := range *attackSeeds {
			name := tt.name
			if *attackSeeds > 1 {
				name += fmt.Sprintf("/seed%d", s+1)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				tt.play(t, uint64(100*(i+1)+s))
			})
		}
	}
}

const attackPlay = 14 * time.Second // how long the honest clients of an attack play

// madeUpMAC is a proof the student made up: 32 bytes of the seed's.
func madeUpMAC(seed uint64) (m game.MAC) {
	rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 'm', 'a', 'c'}).Read(m[:])
	return m
}

// attackHijack: the student learns ann's player id from PlayerInfo, as every player does,
// and connects with it: with her name, without a secret and with a made-up proof; then with
// the server bot's id. Each is refused with the reason; ann keeps her seat and plays on.
func attackHijack(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	c.join("ann", "bob")
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	seats := eve.seated("ann", "bob", "bot1")
	c.run(2 * time.Second)

	madeUp := madeUpMAC(seed)
	for _, th := range []struct {
		name   string
		player wire.PlayerID
		prove  bool
	}{
		{"ann", seats["ann"].Player, false},
		{"mallory", seats["ann"].Player, true},
		{"bot1", seats["bot1"].Player, true},
	} {
		thief := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: th.name, PlayerID: uuid.UUID(th.player)}, func(a *attacker, now time.Time, m game.Msg) {
			if _, ok := m.(*game.Challenge); ok && th.prove {
				a.sendNow(now, &game.Proof{MAC: madeUp})
			}
		})
		st, ok := thief.ended(15 * time.Second)
		if !ok || st.Reason != wire.DisconnectKicked || !strings.Contains(st.Text, "seat belongs to another player") {
			t.Errorf("the thief with %s's id, named %q: ended %v (%s), want kicked: seat belongs to another player", th.name, th.name, ok, stateText(st))
		}
		if n := count[*game.PlayerSecret](thief) + count[*game.StartGame](thief) + count[*game.Command](thief); n != 0 {
			t.Errorf("the thief named %q got %d secrets, starts or commands", th.name, n)
		}
	}
	// The thieves are gone: ann is still connected in her seat, under her name.
	eve.waitFor(5*time.Second, "ann's seat as before", func() bool {
		for _, pi := range eve.players {
			if pi.Player == seats["ann"].Player {
				return pi.Seat == seats["ann"].Seat && pi.Name == "ann" && pi.Connected
			}
		}
		return false
	})
	srv, clients := c.finish()
	if srv.Game.SeatClaimsRefused != 3 || srv.Game.SeatsReclaimed != 0 {
		t.Errorf("server: %d seat claims refused, %d seats reclaimed; want 3, 0", srv.Game.SeatClaimsRefused, srv.Game.SeatsReclaimed)
	}
	if ann := clients["ann"]; ann.PlayerID != uuid.UUID(seats["ann"].Player).String() || int(ann.Frame)+20 < int(srv.Frame)-int(udpServerExtra/(100*time.Millisecond)) {
		t.Errorf("ann: player %s at frame %d (the server ended at %d)", ann.PlayerID, ann.Frame, srv.Frame)
	}
	checkHonest(t, srv, clients, false)
}

// attackFreeze: a seated student reports, twice a second, a world that lost every unit,
// answers each drill-down with no unit at all, and never answers a Pause. The server stops
// the world once at most, resumes the others within 2 s without it, and from then on repairs
// its units in real time once a second at most (no second stop-the-world within 30 s; one
// that needs more units than a real-time re-sync carries drops it from the game); the game
// goes on at full speed. Its reports carry no inputs' digest of their frame (this attacker does
// not run the world), so the server now drops every claim unchecked, as a report of a frame
// run with other inputs; the game's TestBogusReportsCannotFreezeTheGame and
// TestBogusReportsRepairedOnceASecond make the same claims with the server's own digest.
func attackFreeze(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	c.join("ann", "bob")
	start := c.v.Now()
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, func(a *attacker, now time.Time, m game.Msg) {
		if r, ok := m.(*game.HashRequest); ok {
			a.sendNow(now, &game.UnitHashes{Frame: r.Frame})
		}
	})
	eve.seated("ann", "bob")
	eve.waitFor(10*time.Second, "the game", func() bool { return count[*game.StartGame](eve) > 0 })
	var claims int
	for c.v.Now().Sub(start) < attackPlay && eve.c.State() == transport.Connected {
		if fs, ok := latest[*game.FrameSync](eve); ok && fs.Frame > 40 {
			if eve.send(&game.HashReport{Frame: fs.Frame - 35, Root: 0xbad}) {
				claims++
			}
		}
		c.run(500 * time.Millisecond)
	}
	attacked := c.v.Now().Sub(start)
	t.Logf("the attacker sent %d claims; its connection: %s", claims, stateText(eve.c.Stats()))
	srv, clients := c.finish()
	t.Logf("server: frame %d, stop-the-world re-syncs %d, pauses %v ms, dropped from a round %d, from the game %d, real-time re-syncs %d, repairs deferred %d",
		srv.Frame, srv.Sync.StopWorldResyncs, srv.Sync.PauseMillis, srv.Sync.PauseDropouts, srv.Sync.PlayersDropped, srv.Sync.RealtimeResyncs, srv.Sync.RepairsDeferred)
	if claims < 4 {
		t.Fatalf("the attacker made only %d claims", claims)
	}
	if srv.Sync.StopWorldResyncs > 1 || (srv.Sync.StopWorldResyncs == 1 && srv.Sync.PauseDropouts != 1) {
		t.Errorf("server: %d stop-the-world re-syncs, the attacker dropped from %d rounds; want at most 1, and dropped from it", srv.Sync.StopWorldResyncs, srv.Sync.PauseDropouts)
	}
	if max := uint64(attacked/time.Second) + 1; srv.Sync.RealtimeResyncs > max {
		t.Errorf("server: %d real-time re-syncs in %v of claims, want at most one a second", srv.Sync.RealtimeResyncs, attacked.Round(time.Second))
	}
	for _, ms := range srv.Sync.PauseMillis {
		if ms >= 2000 {
			t.Errorf("a pause lasted %d ms, want under 2000", ms)
		}
	}
	// A frame is 100 ms: the server ran through its whole life but for the start countdown and
	// the pauses (38 s of pause took 55 s of game down to 147 frames before).
	var paused int64
	for _, ms := range srv.Sync.PauseMillis {
		paused += ms
	}
	life := attackPlay + udpServerExtra - 2*time.Second - time.Duration(paused)*time.Millisecond
	if want := uint32(life / (100 * time.Millisecond) * 8 / 10); srv.Frame < want {
		t.Errorf("the server reached frame %d, want at least %d", srv.Frame, want)
	}
	checkHonest(t, srv, clients, true)
}

// attackForgedDirectLink: the student asks for direct links like any player, so the server
// lists where ann and bob are; it dials the lower seat's address with the higher seat's player
// id (public) and sends 200 commands in that player's name, once with a made-up proof of the
// pair's key and once with none. Both connections are refused, no forged command runs, and
// the real link between ann and bob stays.
func attackForgedDirectLink(t *testing.T, seed uint64) {
	// The class's links are fast: auto would leave every order to the server's relay.
	c := startVClass(t, seed, attackPlay, func(cfg *game.ServerConfig) { cfg.Orders.Direct = game.DirectOn })
	c.join("ann", "bob")
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	seats := eve.seated("ann", "bob")
	eve.send(&game.Peers{}) // "I take direct links too"
	lower, higher := seats["ann"], seats["bob"]
	if higher.Seat < lower.Seat {
		lower, higher = higher, lower
	}
	var at netip.AddrPort
	eve.waitFor(10*time.Second, "the Peers list with "+lower.Name, func() bool {
		if ps, ok := latest[*game.Peers](eve); ok {
			for _, p := range ps.List {
				if p.Seat == lower.Seat {
					at = p.Addr
					return true
				}
			}
		}
		return false
	})
	eve.waitFor(10*time.Second, "the game", func() bool { return count[*game.StartGame](eve) > 0 })
	c.run(time.Second)

	madeUp := madeUpMAC(seed)
	for _, prove := range []bool{true, false} {
		forger := c.dialAttacker(at, transport.ClientConfig{Name: higher.Name, PlayerID: uuid.UUID(higher.Player)}, nil)
		forger.waitFor(10*time.Second, "a direct connection to "+lower.Name, func() bool { return forger.c.State() == transport.Connected })
		frame := uint32(0)
		if fs, ok := latest[*game.FrameSync](eve); ok {
			frame = fs.Frame
		}
		for i := range 200 {
			forger.send(&game.Command{Seat: higher.Seat, ID: 1_000_000 + uint32(i), Frame: frame + 10, Kind: world.CommandMove, Units: []uint32{1}, X: 1, Y: 1})
		}
		if prove {
			forger.send(&game.Proof{MAC: madeUp})
		}
		st, ok := forger.ended(10 * time.Second)
		if !ok || st.Reason != wire.DisconnectKicked {
			t.Errorf("the forged link (proof %v) ended %v: %s; want kicked", prove, ok, stateText(st))
		}
		t.Logf("the forged link (proof %v): %s", prove, stateText(st))
	}
	srv, clients := c.finish()
	l := clients[lower.Name]
	if l.Game.DirectRefused < 2 || l.Game.BadMessages == 0 {
		t.Errorf("%s: %d direct links refused, %d bad messages; want at least 2 and 1", lower.Name, l.Game.DirectRefused, l.Game.BadMessages)
	}
	if h := clients[higher.Name]; h.Game.DirectLinks == 0 || l.Game.DirectLinks == 0 {
		t.Errorf("the real direct link: %s made %d, %s %d", higher.Name, h.Game.DirectLinks, lower.Name, l.Game.DirectLinks)
	}
	if srv.Sync.RealtimeResyncs != 0 || srv.Sync.StopWorldResyncs != 0 {
		t.Errorf("server: %d real-time, %d stop-the-world re-syncs; want none", srv.Sync.RealtimeResyncs, srv.Sync.StopWorldResyncs)
	}
	checkHonest(t, srv, clients, false)
}

// attackReflection: the student joins first (the lowest human seat, so that every later
// player dials it) and tells the server that its direct-link address is a victim's. The
// server lists the address it saw, not the one named: the victim gets nothing at all.
func attackReflection(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	// The victim is a host of the network like the others, linked to every player that
	// comes after it: whatever they send it arrives.
	va := c.nextAddr(5)
	victim := &sink{}
	c.v.AddNode(va, classLink)
	c.v.Attach(va, victim)
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	eve.seated("eve")
	c.join("ann", "bob")
	seats := eve.seated("ann", "bob", "eve")
	if seats["eve"].Seat > seats["ann"].Seat || seats["eve"].Seat > seats["bob"].Seat {
		t.Fatalf("the attacker is in seat %d, after ann (%d) or bob (%d): nobody would dial it", seats["eve"].Seat, seats["ann"].Seat, seats["bob"].Seat)
	}
	for range 5 {
		eve.send(&game.Peers{List: []game.PeerAddr{{Seat: seats["eve"].Seat, Addr: va}}})
		c.run(time.Second)
	}
	eve.send(&game.Peers{}) // and the honest form: the others dial where the server saw it
	c.run(5 * time.Second)
	srv, clients := c.finish()
	if victim.bytes != 0 {
		t.Errorf("the victim got %d bytes", victim.bytes)
	}
	if srv.Game.BadMessages < 4 {
		t.Errorf("server: %d bad messages, want the 5 Peers that named an address counted (less the link's losses)", srv.Game.BadMessages)
	}
	checkHonest(t, srv, clients, false)
}

// attackForgeryAndReplay: the student sits on the path between ann and the server and keeps
// a copy of each datagram of ann's that reaches the server. It sends the server, from ann's
// address, 200 altered copies of her datagrams (a byte of the counter, the body or the tag
// flipped, or cut short), then 200 exact copies of earlier ones: none is taken, each is
// counted, and ann's game goes on.
func attackForgeryAndReplay(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	c.join("ann", "bob")
	ann := c.player("ann")
	const maxSeen = 10000
	var seen [][]byte
	c.v.Tap(func(d linksim.Datagram) {
		if d.From == ann.addr.String() && d.To == c.srvAddr.String() && len(seen) < maxSeen {
			seen = append(seen, append([]byte(nil), d.Data...))
		}
	})
	var sealed [][]byte
	c.waitFor(10*time.Second, "50 sealed datagrams of ann's on the path", func() bool {
		sealed = sealed[:0]
		for _, d := range seen {
			if _, err := wire.OpenDatagram(d, 0); err != nil && len(d) >= wire.SealedOverhead+1 {
				sealed = append(sealed, d) // not a handshake packet: sealed
			}
		}
		return len(sealed) >= 50
	})
	// The student's datagrams leave from ann's address, over her link to the server.
	inject := c.v.Writer(ann.node)
	const forged, replayed = 200, 200
	for i := range forged {
		d := append([]byte(nil), sealed[i%len(sealed)]...)
		switch i % 4 {
		case 0:
			d[0] ^= 1 // the counter
		case 1:
			d[wire.CounterSize] ^= 0x80 // the body
		case 2:
			d[len(d)-1] ^= 1 // the tag
		case 3:
			d = d[:len(d)-1]
		}
		inject.WriteTo(d, c.srvAddr)
		c.run(2 * time.Millisecond)
	}
	for i := range replayed {
		inject.WriteTo(append([]byte(nil), sealed[i%len(sealed)]...), c.srvAddr)
		c.run(2 * time.Millisecond)
	}
	srv, clients := c.finish()
	// ann's link loses 9.75% of what it carries: what the counters must show is what got
	// through, at least 3 in 4 of each kind.
	t.Logf("server: wrong key %d, replays %d, after close %d; ann: %d chat lines sent", srv.Rejected.WrongKey, srv.Rejected.Replay, srv.Rejected.AfterClose, clients["ann"].Chat.SentTotal)
	if srv.Rejected.WrongKey < forged*3/4 || srv.Rejected.Replay+srv.Rejected.WrongKey < (forged+replayed)*3/4 {
		t.Errorf("server: %d datagrams refused for a wrong key, %d as replays, of %d forged and %d replayed", srv.Rejected.WrongKey, srv.Rejected.Replay, forged, replayed)
	}
	// Everything bob heard from ann, ann wrote.
	annR, bob := clients["ann"], clients["bob"]
	for _, l := range bob.Chat.Received {
		if l.From == "ann" && !containsLine(annR.Chat.Sent, l.Text) {
			t.Errorf("bob read %q from ann, who never wrote it", l.Text)
		}
	}
	checkHonest(t, srv, clients, false)
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// flooder sends real 1,200-byte connection requests to the server, rate a second, every
// 10 ms a batch, round robin from its addresses, until stopped. Nothing answers the
// challenges it gets: no host is at its addresses.
type flooder struct {
	c       *vclass
	from    []netip.AddrPort
	writers []transport.Writer
	rate    int
	rng     *rand.Rand
	next    time.Time
	i       int
	sent    int
	stop    bool
}

func (c *vclass) startFlood(at netip.AddrPort, rate int, from []netip.AddrPort) *flooder {
	f := &flooder{c: c, from: from, rate: rate, rng: rand.New(rand.NewPCG(c.seed, uint64(at.Port())))}
	for _, a := range from {
		f.writers = append(f.writers, c.v.Writer(c.v.AddNodeLinkedTo(a, c.srvAddr, serverSideLink)))
	}
	c.v.Attach(at, f)
	return f
}

func (f *flooder) Tick(now time.Time) {
	for !f.stop && !now.Before(f.next) {
		if f.next.IsZero() {
			f.next = now
		}
		for range f.rate / 100 {
			f.writers[f.i%len(f.writers)].WriteTo(floodRequest(randomPlayer(f.rng)), f.c.srvAddr)
			f.sent++
			f.i++
		}
		f.next = f.next.Add(10 * time.Millisecond)
	}
}

func (f *flooder) NextDeadline(time.Time) time.Time {
	if f.stop {
		return time.Time{}
	}
	return f.next
}

func (f *flooder) Handle(time.Time, transport.Datagram) {}
func (f *flooder) Intent(time.Time)                     {}
func (f *flooder) Shutdown(time.Time)                   { f.stop = true }

// attackJoinLockout: while the class plays, the student floods the server with connection
// requests, 1,000 a second from one address and 1,000 a second from 64 addresses of one
// /24, each a real 1,200-byte request. Five honest players join meanwhile from addresses of
// their own: all five get in.
func attackJoinLockout(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	c.join("ann")
	prefix := make([]netip.AddrPort, 64)
	for i := range prefix {
		prefix[i] = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 9, byte(i + 1)}), 40000)
	}
	floods := []*flooder{
		c.startFlood(netip.MustParseAddrPort("127.0.7.254:1"), 1000, []netip.AddrPort{netip.MustParseAddrPort("127.0.7.1:40000")}),
		c.startFlood(netip.MustParseAddrPort("127.0.9.254:1"), 1000, prefix),
	}
	c.run(2 * time.Second) // the budgets are spent

	joined, n := c.honestJoins()
	sent := 0
	for _, f := range floods {
		f.stop = true
		sent += f.sent
	}
	srv, clients := c.finish()
	t.Logf("%d requests flooded; honest joins in %v; server: %d throttled by address, %d by prefix, %d globally",
		sent, joined, srv.Rejected.ThrottledAddress, srv.Rejected.ThrottledPrefix, srv.Rejected.ThrottledGlobal)
	if n != 5 {
		t.Errorf("%d of 5 honest joins got in during the flood", n)
	}
	if srv.Rejected.ThrottledAddress == 0 || srv.Rejected.ThrottledPrefix == 0 {
		t.Errorf("the flood was not throttled: %d by address, %d by prefix", srv.Rejected.ThrottledAddress, srv.Rejected.ThrottledPrefix)
	}
	checkHonest(t, srv, clients, false)
}

// honestJoins: five honest players dial the server, 300 ms apart, each from a /24 of its own
// (127.0.20.1 to 127.0.24.1), and try until they connect or give up (their connect timeout,
// 5 s). It returns how long each took to connect (0: it did not), and how many did.
func (c *vclass) honestJoins() (joined []time.Duration, n int) {
	joined = make([]time.Duration, 5)
	joiners := make([]*attacker, 5)
	for i := range joiners {
		began := c.v.Now()
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, byte(20 + i), 1}), 40000)
		cfg := transport.ClientConfig{Name: "j" + string(rune('1'+i))}
		cfg.OnConnect = func(_ *transport.Peer, now time.Time) { joined[i] = now.Sub(began) }
		joiners[i] = c.dialAttackerFrom(addr, c.v.AddNodeLinkedTo(addr, c.srvAddr, classLink), c.srvAddr, cfg, nil)
		c.run(300 * time.Millisecond)
	}
	c.v.RunUntil(c.v.Now().Add(10*time.Second), func() bool {
		for _, j := range joiners {
			if st := j.c.State(); st != transport.Connected && st != transport.Disconnected {
				return false
			}
		}
		return true
	})
	for _, d := range joined {
		if d > 0 {
			n++
		}
	}
	return joined, n
}

// attackJoinFloodEverywhere: while the class plays, the student floods the server with
// connection requests from 512 addresses in 512 /24s, 1,000 a second in all, each a real
// 1,200-byte request: no address and no prefix comes near its budget, so only a global
// budget could hold the flood. Five honest players join meanwhile from addresses of their
// own: all five get in within their connect timeout, since the challenges have no global
// budget and the flood returns none of them.
func attackJoinFloodEverywhere(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	c.join("ann")
	from := make([]netip.AddrPort, 512)
	for i := range from {
		from[i] = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, byte(100 + i/256), byte(i), 1}), 40000)
	}
	flood := c.startFlood(netip.MustParseAddrPort("127.0.10.254:1"), 1000, from)
	c.run(2 * time.Second) // a global budget of challenges would be spent by now

	joined, n := c.honestJoins()
	flood.stop = true
	srv, clients := c.finish()
	r := srv.Rejected
	t.Logf("%d requests flooded from %d /24s; honest joins in %v; server: %d throttled by address, %d by prefix, %d globally",
		flood.sent, len(from), joined, r.ThrottledAddress, r.ThrottledPrefix, r.ThrottledGlobal)
	if n != 5 {
		t.Errorf("%d of 5 honest joins got in during the flood", n)
	}
	for i, d := range joined {
		if d > 5*time.Second {
			t.Errorf("honest join %d took %v, more than its connect timeout", i+1, d)
		}
	}
	if r.ThrottledGlobal != 0 {
		t.Errorf("%d throttled by the global budget: the flood returned no challenge, so it should have spent none", r.ThrottledGlobal)
	}
	checkHonest(t, srv, clients, false)
}

// attackLookAlikeNames: the student joins under names that look like a player's or a bot's:
// taken as it is, in capitals, with a zero-width space, behind a right-to-left override, with a
// Cyrillic а, and a bot's name. Each is refused with the reason; then, under a name of its
// own, it writes a chat line that turns the text around, which the server refuses as a bad
// message (the one of the game) and nobody gets.
func attackLookAlikeNames(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	c.join("ann", "bob")
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	seats := eve.seated("ann", "bob", "bot1", "eve")
	names := []string{"ann", "ANN", "an\u200bn", "\u202eann", "\u0430nn", "bot1"}
	for _, name := range names {
		a := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: name}, nil)
		st, ok := a.ended(15 * time.Second)
		if !ok || st.Reason != wire.DisconnectKicked || !strings.Contains(st.Text, "name") {
			t.Errorf("a player named %+q: ended %v (%s), want kicked for its name", name, ok, stateText(st))
		}
	}
	// game's encoder refuses the line, so the student patches the bytes in: U+202E is E2 80 AE.
	line, err := game.AppendMsg(nil, &game.Chat{Seat: seats["eve"].Seat, Line: 1, Text: "gg ~~~evil"})
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(line), "~~~")
	copy(line[i:], "\u202e")
	if !eve.sendRaw(line) {
		t.Fatal("the attacker's chat line did not go out")
	}
	c.run(2 * time.Second)
	srv, clients := c.finish()
	if srv.Game.JoinsRefused != uint64(len(names)) {
		t.Errorf("server: %d joins refused, want %d", srv.Game.JoinsRefused, len(names))
	}
	if srv.Game.BadMessages != 1 {
		t.Errorf("server: %d bad messages, want 1: the chat line with the override, refused", srv.Game.BadMessages)
	}
	for name, cl := range clients {
		for _, l := range cl.Chat.Received {
			if strings.ContainsRune(l.Text, '\u202e') {
				t.Errorf("%s got a chat line with a right-to-left override: %+q from %q", name, l.Text, l.From)
			}
		}
	}
	checkHonest(t, srv, clients, false)
}

// attackConfusableNames: the student joins under names that Unicode's confusables (UTS #39)
// pair with a seated player's, a bot's, or the server's and the teacher's: "\u13ACve" with a
// Cherokee Ꭼ beside its own "eve", "\u0430\u043F\u043F" in Cyrillic beside "ann", "b0t1"
// beside the bot "bot1", "b0b" beside "bob", then "server", "admin" and "teacher". Each is
// refused with a reason that names what it looks like, and nobody sees it in the roster.
func attackConfusableNames(t *testing.T, seed uint64) {
	c := startVClass(t, seed, attackPlay, nil)
	c.join("ann", "bob")
	eve := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: "eve"}, nil)
	eve.seated("ann", "bob", "bot1", "eve")
	names := []struct{ name, says string }{
		{"\u13ACve", `looks like "eve"`},
		{"\u0430\u043F\u043F", `looks like "ann"`},
		{"b0t1", `looks like "bot1"`},
		{"b0b", `looks like "bob"`},
		{"server", "reserved for the server"},
		{"admin", "reserved for the server"},
		{"teacher", "reserved for the server"},
	}
	for _, n := range names {
		a := c.dialAttacker(c.srvAddr, transport.ClientConfig{Name: n.name}, nil)
		st, ok := a.ended(5 * time.Second)
		t.Logf("%+q: %s", n.name, st.Text)
		if !ok || st.Reason != wire.DisconnectKicked || !strings.Contains(st.Text, n.says) {
			t.Errorf("a player named %+q: ended %v (%s), want kicked: %s", n.name, ok, stateText(st), n.says)
		}
	}
	c.run(time.Second)
	for _, pi := range eve.players {
		switch pi.Name {
		case "ann", "bob", "bot1", "eve":
		default:
			t.Errorf("seat %d is named %+q in the roster", pi.Seat, pi.Name)
		}
	}
	srv, clients := c.finish()
	if srv.Game.JoinsRefused != uint64(len(names)) {
		t.Errorf("server: %d joins refused, want %d", srv.Game.JoinsRefused, len(names))
	}
	checkHonest(t, srv, clients, false)
}
