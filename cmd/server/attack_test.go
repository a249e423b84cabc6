package main

import (
	"crypto/rand"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// TestAttacks plays each attack of RELIABILITY.md against a real server (the binary), with
// honest bot clients (the binary) playing through it at 5% loss on every host, and checks
// that the attack fails and that the honest players' worlds never noticed. The harness is in
// attacker_test.go.
//
//	go test ./cmd/server -run Attacks -v
func TestAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("plays seven games with the binaries for about 17 s each, three at a time")
	}
	t.Parallel() // it mostly waits: the other tests of the package run meanwhile
	server := tmuxtest.BuildPackage(t, "server", "github.com/ackattack/ackattack/cmd/server")
	client := tmuxtest.BuildPackage(t, "client", "github.com/ackattack/ackattack/cmd/client")
	for _, tt := range []struct {
		name string
		play func(t *testing.T, server, client string)
	}{
		{"hijack", attackHijack},
		{"freeze", attackFreeze},
		{"forged_direct_link", attackForgedDirectLink},
		{"reflection", attackReflection},
		{"forgery_and_replay", attackForgeryAndReplay},
		{"join_lockout", attackJoinLockout},
		{"look_alike_names", attackLookAlikeNames},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Three games at a time: on a two-core machine running the rest of the suite, more
			// would starve the processes the other tests time.
			attackGames <- struct{}{}
			defer func() { <-attackGames }()
			tt.play(t, server, client)
		})
	}
}

const attackPlay = 14 * time.Second // how long the honest clients of an attack play

// attackGames bounds the attack games running at once.
var attackGames = make(chan struct{}, 3)

// attackHijack: the student learns ann's player id from PlayerInfo, as every player does,
// and connects with it: with her name, without a secret and with a made-up proof; then with
// the server bot's id. Each is refused with the reason; ann keeps her seat and plays on.
func attackHijack(t *testing.T, server, client string) {
	c := startClass(t, server, client, classSpec{play: attackPlay})
	c.join("ann", "bob")
	eve := dialAttacker(t, c.addr, transport.ClientConfig{Name: "eve"}, nil)
	seats := eve.seated("ann", "bob", "bot1")
	time.Sleep(2 * time.Second)

	var madeUp game.MAC
	rand.Read(madeUp[:])
	for _, th := range []struct {
		name   string
		player wire.PlayerID
		prove  bool
	}{
		{"ann", seats["ann"].Player, false},
		{"mallory", seats["ann"].Player, true},
		{"bot1", seats["bot1"].Player, true},
	} {
		thief := dialAttacker(t, c.addr, transport.ClientConfig{Name: th.name, PlayerID: uuid.UUID(th.player)}, func(a *attacker, now time.Time, m game.Msg) {
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
		for _, pi := range eve.seats() {
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
// goes on at full speed.
func attackFreeze(t *testing.T, server, client string) {
	c := startClass(t, server, client, classSpec{play: attackPlay})
	c.join("ann", "bob")
	start := time.Now()
	eve := dialAttacker(t, c.addr, transport.ClientConfig{Name: "eve"}, func(a *attacker, now time.Time, m game.Msg) {
		if r, ok := m.(*game.HashRequest); ok {
			a.sendNow(now, &game.UnitHashes{Frame: r.Frame})
		}
	})
	eve.seated("ann", "bob")
	eve.waitFor(10*time.Second, "the game", func() bool { return count[*game.StartGame](eve) > 0 })
	var claims int
	for time.Since(start) < attackPlay && eve.c.Stats().State == transport.Connected {
		if fs, ok := latest[*game.FrameSync](eve); ok && fs.Frame > 40 {
			if eve.send(&game.HashReport{Frame: fs.Frame - 35, Groups: []world.GroupHash{{Start: 1, End: world.MaxUnitID, Hash: 0xbad}}}) {
				claims++
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	attacked := time.Since(start)
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
// lists where ann and bob are; it dials the lower seat's socket with the higher seat's player
// id (public) and sends 200 commands in that player's name, once with a made-up proof of the
// pair's key and once with none. Both connections are refused, no forged command runs, and
// the real link between ann and bob stays.
func attackForgedDirectLink(t *testing.T, server, client string) {
	c := startClass(t, server, client, classSpec{play: attackPlay})
	c.join("ann", "bob")
	eve := dialAttacker(t, c.addr, transport.ClientConfig{Name: "eve"}, nil)
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
	time.Sleep(time.Second)

	var madeUp game.MAC
	rand.Read(madeUp[:])
	for _, prove := range []bool{true, false} {
		forger := dialAttacker(t, at.String(), transport.ClientConfig{Name: higher.Name, PlayerID: uuid.UUID(higher.Player)}, nil)
		forger.waitFor(10*time.Second, "a direct connection to "+lower.Name, func() bool { return forger.c.Stats().State == transport.Connected })
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
func attackReflection(t *testing.T, server, client string) {
	c := startClass(t, server, client, classSpec{play: attackPlay})
	victim, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	var got atomic.Int64
	go func() {
		b := make([]byte, 2048)
		for {
			n, _, err := victim.ReadFrom(b)
			if err != nil {
				return
			}
			got.Add(int64(n))
		}
	}()
	va := victim.LocalAddr().(*net.UDPAddr).AddrPort()
	eve := dialAttacker(t, c.addr, transport.ClientConfig{Name: "eve"}, nil)
	eve.seated("eve")
	c.join("ann", "bob")
	seats := eve.seated("ann", "bob", "eve")
	if seats["eve"].Seat > seats["ann"].Seat || seats["eve"].Seat > seats["bob"].Seat {
		t.Fatalf("the attacker is in seat %d, after ann (%d) or bob (%d): nobody would dial it", seats["eve"].Seat, seats["ann"].Seat, seats["bob"].Seat)
	}
	for range 5 {
		eve.send(&game.Peers{List: []game.PeerAddr{{Seat: seats["eve"].Seat, Addr: va}}})
		time.Sleep(time.Second)
	}
	eve.send(&game.Peers{}) // and the honest form: the others dial where the server saw it
	time.Sleep(5 * time.Second)
	srv, clients := c.finish()
	if n := got.Load(); n != 0 {
		t.Errorf("the victim got %d bytes", n)
	}
	if srv.Game.BadMessages < 4 {
		t.Errorf("server: %d bad messages, want the 5 Peers that named an address counted (less the link's losses)", srv.Game.BadMessages)
	}
	checkHonest(t, srv, clients, false)
}

// attackForgeryAndReplay: the student sits on the path between ann and the server (a relay
// that forwards and keeps a copy of ann's datagrams). It sends the server, from ann's
// address, 200 altered copies of her datagrams (a byte of the counter, the body or the tag
// flipped, or cut short), then 200 exact copies of earlier ones: none is taken, each is
// counted, and ann's game goes on.
func attackForgeryAndReplay(t *testing.T, server, client string) {
	c := startClass(t, server, client, classSpec{play: attackPlay})
	r, front := startRelay(t, c.addr)
	c.sp.connect = map[string]string{"ann": front}
	c.join("ann", "bob")
	var sealed [][]byte
	deadline := time.Now().Add(10 * time.Second)
	for len(sealed) < 50 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		sealed = sealed[:0]
		for _, d := range r.captured() {
			if _, err := wire.OpenDatagram(d, 0); err != nil && len(d) >= wire.SealedOverhead+1 {
				sealed = append(sealed, d) // not a handshake packet: sealed
			}
		}
	}
	if len(sealed) < 50 {
		t.Fatalf("the relay saw %d sealed datagrams of ann's in 10 s, want 50", len(sealed))
	}
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
		r.inject(t, c.addr, d)
		time.Sleep(2 * time.Millisecond)
	}
	for i := range replayed {
		r.inject(t, c.addr, sealed[i%len(sealed)])
		time.Sleep(2 * time.Millisecond)
	}
	srv, clients := c.finish()
	// The server's link loses 5% of what reaches it: what the counters must show is what got
	// through, at least 3 in 4 of each kind.
	t.Logf("server: wrong key %d, replays %d, after close %d; ann: %d chat lines sent", srv.Rejected.WrongKey, srv.Rejected.Replay, srv.Rejected.AfterClose, clients["ann"].Chat.SentTotal)
	if srv.Rejected.WrongKey < forged*3/4 || srv.Rejected.Replay+srv.Rejected.WrongKey < (forged+replayed)*3/4 {
		t.Errorf("server: %d datagrams refused for a wrong key, %d as replays, of %d forged and %d replayed", srv.Rejected.WrongKey, srv.Rejected.Replay, forged, replayed)
	}
	// Everything bob heard from ann, ann wrote.
	ann, bob := clients["ann"], clients["bob"]
	for _, l := range bob.Chat.Received {
		if l.From == "ann" && !containsLine(ann.Chat.Sent, l.Text) {
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

// attackJoinLockout: while the class plays, the student floods the server with connection
// requests, 1,000 a second from one address and 1,000 a second from 64 addresses of one
// /24, each a real 1,200-byte request. Five honest players join meanwhile from addresses of
// their own: all five get in.
func attackJoinLockout(t *testing.T, server, client string) {
	c := startClass(t, server, client, classSpec{play: attackPlay})
	c.join("ann")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent atomic.Int64
	flood := func(locals []string) {
		defer wg.Done()
		var socks []net.PacketConn
		for _, l := range locals {
			pc, err := net.ListenPacket("udp", l)
			if err != nil {
				t.Error(err)
				return
			}
			defer pc.Close()
			socks = append(socks, pc)
		}
		to, _ := net.ResolveUDPAddr("udp", c.addr)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for range 10 { // 1,000 a second
				req := wire.ConnectRequest{Version: wire.ProtocolVersion, Player: wire.PlayerID(uuid.New()), Name: "flood"}
				d, _ := wire.AppendConnectRequest(wire.BeginDatagram(nil), &req)
				wire.SealDatagram(d, 0)
				socks[i%len(socks)].WriteTo(d, to)
				sent.Add(1)
				i++
			}
		}
	}
	prefix := make([]string, 64)
	for i := range prefix {
		prefix[i] = netip.AddrFrom4([4]byte{127, 0, 9, byte(i + 1)}).String() + ":0"
	}
	wg.Add(2)
	go flood([]string{"127.0.7.1:0"})
	go flood(prefix)
	time.Sleep(2 * time.Second) // the budgets are spent

	joined := make([]time.Duration, 5)
	var jw sync.WaitGroup
	for i := range 5 {
		jw.Add(1)
		go func() {
			defer jw.Done()
			began := time.Now()
			local := netip.AddrFrom4([4]byte{127, 0, byte(20 + i), 1}).String() + ":0"
			j := dialAttackerFrom(t, local, c.addr, transport.ClientConfig{Name: "j" + string(rune('1'+i))}, nil)
			st := j.c.Stats()
			for st.State != transport.Connected && st.State != transport.Disconnected && time.Since(began) < 10*time.Second {
				time.Sleep(10 * time.Millisecond)
				st = j.c.Stats()
			}
			if st.State == transport.Connected {
				joined[i] = time.Since(began)
			}
		}()
		time.Sleep(300 * time.Millisecond)
	}
	jw.Wait()
	close(stop)
	wg.Wait()
	srv, clients := c.finish()
	n := 0
	for _, d := range joined {
		if d > 0 {
			n++
		}
	}
	t.Logf("%d requests flooded; honest joins in %v; server: %d throttled by address, %d by prefix, %d globally",
		sent.Load(), joined, srv.Rejected.ThrottledAddress, srv.Rejected.ThrottledPrefix, srv.Rejected.ThrottledGlobal)
	if n != 5 {
		t.Errorf("%d of 5 honest joins got in during the flood", n)
	}
	if srv.Rejected.ThrottledAddress == 0 || srv.Rejected.ThrottledPrefix == 0 {
		t.Errorf("the flood was not throttled: %d by address, %d by prefix", srv.Rejected.ThrottledAddress, srv.Rejected.ThrottledPrefix)
	}
	checkHonest(t, srv, clients, false)
}

// attackLookAlikeNames: the student joins under names that look like a player's or a bot's:
// taken as it is, in capitals, with a zero-width space, behind a right-to-left override, with a
// Cyrillic а, and a bot's name. Each is refused with the reason; then, under a name of its
// own, it writes a chat line that turns the text around, which the server refuses as a bad
// message (the one of the game) and nobody gets.
func attackLookAlikeNames(t *testing.T, server, client string) {
	c := startClass(t, server, client, classSpec{play: attackPlay})
	c.join("ann", "bob")
	eve := dialAttacker(t, c.addr, transport.ClientConfig{Name: "eve"}, nil)
	seats := eve.seated("ann", "bob", "bot1", "eve")
	names := []string{"ann", "ANN", "an\u200bn", "\u202eann", "\u0430nn", "bot1"}
	for _, name := range names {
		a := dialAttacker(t, c.addr, transport.ClientConfig{Name: name}, nil)
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
	time.Sleep(2 * time.Second)
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
