package game

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// The attacks on who is who (identity.go), played in virtual time (vgame_test.go) at 10%
// loss, with bots playing on every seat.

// lossy10 is every link of the attack games: 10% loss, a little latency and jitter.
var lossy10 = linksim.Settings{LossPercent: 10, Latency: 5 * time.Millisecond, Jitter: 2 * time.Millisecond}

// TestSeatProofKnownAnswers pins the three HMACs to their definitions in PROTOCOL.md, so that
// another implementation can check its own against them.
func TestSeatProofKnownAnswers(t *testing.T) {
	var secret Secret
	for i := range secret {
		secret[i] = byte(i)
	}
	player := uuid.MustParse("00112233-4455-6677-8899-aabbccddeeff")
	nonce := Nonce(bytes.Repeat([]byte{0x10}, NonceSize))
	for _, tt := range []struct {
		name string
		got  MAC
		want string
	}{
		{"seat", seatMAC(secret, player, nonce), "69f9060dca9cacd9662cd75d1622e401e55163ac8cffc81969c8f2a53c64178f"},
		{"link", linkMAC(LinkKey(secret), 3, 1, nonce), "51d8d273361eb0146d2841a1270ad7d791afbda766daae87e3a983d2b1a8d417"},
		{"link key", MAC(linkKeyOf([32]byte(secret), 3, player, 1, uuid.Nil)), "e8f6ae7291cf36ed648be7ff3bb76dfc3804aa067a076e8331ff559786acf348"},
	} {
		if got := hex.EncodeToString(tt.got[:]); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	// The link key is the same from either end, and a proof is one way.
	if linkKeyOf([32]byte(secret), 1, uuid.Nil, 3, player) != linkKeyOf([32]byte(secret), 3, player, 1, uuid.Nil) {
		t.Error("the link key depends on the order of the seats")
	}
	if linkMAC(LinkKey(secret), 3, 1, nonce) == linkMAC(LinkKey(secret), 1, 3, nonce) {
		t.Error("a link proof does not say who proves to whom")
	}
}

// TestSeatHijackFails: a client that connects with ann's player id (public: every client
// learns it from PlayerInfo) and no secret, or a wrong one, is refused with the reason and
// gets nothing of hers; ann's connection is never touched, she keeps her seat and plays on.
// Her secret never travels to anybody else.
func TestSeatHijackFails(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 41, bots: 1, clients: 3, link: lossy10})
	ann := g.clients[0]
	var leaked []string
	g.tap = func(d linksim.Datagram) {
		if !ann.secret.IsZero() && bytes.Contains(d.Data, ann.secret[:]) && d.To != g.caddrs[0].String() {
			leaked = append(leaked, d.From+" → "+d.To)
		}
	}
	g.waitFor(15*time.Second, "everybody playing", func() bool {
		for _, c := range g.live() {
			if !clientRunning(c) {
				return false
			}
		}
		return true
	})
	if ann.secret.IsZero() {
		t.Fatal("ann was never given her secret")
	}
	seat := ann.role.seat
	annPeer := g.srv.seats.players[seat].peer
	g.run(2 * time.Second)

	var wrong Secret
	wrong[0] = 1
	thieves := []*Client{
		g.clients[g.join(func(c *ClientConfig) { c.Name, c.PlayerID = "c1", ann.cfg.PlayerID })],
		g.clients[g.join(func(c *ClientConfig) { c.Name, c.PlayerID, c.Secret = "eve", ann.cfg.PlayerID, wrong })],
		g.clients[g.join(func(c *ClientConfig) { c.Name, c.PlayerID = "mallory", g.srv.seats.players[0].player })], // the bot's
	}
	came, ended := g.now, make([]time.Time, len(thieves))
	g.waitFor(15*time.Second, "every thief refused", func() bool {
		all := true
		for i, th := range thieves {
			switch {
			case th.Ended() == nil:
				all = false
			case ended[i].IsZero():
				ended[i] = g.now
			}
		}
		return all
	})
	// Nobody can prove a bot's seat: its thief is refused at once, not at the claim's deadline.
	if took := ended[2].Sub(came); took >= claimDeadline {
		t.Errorf("the claim on the bot's seat refused after %v, want at once (well before %v)", took, claimDeadline)
	}
	for i, th := range thieves {
		if err := th.Ended(); !strings.Contains(err.Error(), errSeatTaken) {
			t.Errorf("thief %d ended with %v, want %q", i, err, errSeatTaken)
		}
		if th.role.kind == rolePlayer || th.w != nil || th.secret == ann.secret || th.secret != th.cfg.Secret {
			t.Errorf("thief %d got something: seat known %v, started %v", i, th.role.kind == rolePlayer, th.w != nil)
		}
	}
	if got := g.srv.stats.ClaimsRefused; got != 3 {
		t.Errorf("%d claims refused, want 3", got)
	}
	g.run(3 * time.Second)
	st := g.srv.seats.players[seat]
	if ann.Ended() != nil || st.peer != annPeer || !annPeer.Connected() || st.name != "c1" {
		t.Fatalf("ann was disturbed: ended %v, her seat's connection replaced %v, name %q", ann.Ended(), st.peer != annPeer, st.name)
	}
	if ann.role.seat != seat || !clientRunning(ann) {
		t.Errorf("ann is in seat %d (was %d), running %v", ann.role.seat, seat, clientRunning(ann))
	}
	if g.srv.stats.SeatsReclaimed != 0 {
		t.Errorf("%d seats reclaimed", g.srv.stats.SeatsReclaimed)
	}
	if len(leaked) > 0 {
		t.Errorf("ann's secret went to others: %q", leaked)
	}
	checkAgree(t, g)
}

// TestRestartWithSecretReclaimsSeat: ann's process dies and she starts it again with her id
// and secret (cmd/client --identity keeps them) while the server still holds her old
// connection open: the new connection proves the secret, replaces the old one, and she plays
// her seat again under her name. Then she vanishes for good, the server times her out, and
// she comes back once more to her held seat.
func TestRestartWithSecretReclaimsSeat(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 42, bots: 1, clients: 3, link: lossy10})
	ann := g.clients[0]
	g.waitFor(15*time.Second, "ann playing", func() bool { return clientRunning(ann) })
	g.run(2 * time.Second)
	seat := ann.role.seat
	old := g.srv.seats.players[seat].peer
	g.vanish(0) // killed: no goodbye, the server's connection stays open until its timeout

	restart := func(what string) *Client {
		t.Helper()
		c := g.clients[g.join(func(c *ClientConfig) { c.Name, c.PlayerID, c.Secret = "c1", ann.cfg.PlayerID, ann.secret })]
		g.waitFor(15*time.Second, what, func() bool { return clientRunning(c) })
		if c.role.seat != seat || g.srv.seats.players[seat].name != "c1" || g.srv.seats.players[seat].peer == nil || g.srv.seats.players[seat].peer.PlayerID() != ann.cfg.PlayerID {
			t.Fatalf("%s: ann is in seat %d (had %d), named %q", what, c.role.seat, seat, g.srv.seats.players[seat].name)
		}
		if !c.secret.IsZero() && c.secret != ann.secret {
			t.Errorf("%s: the server gave ann a new secret", what)
		}
		return c
	}
	back := restart("ann back while her old connection is open")
	if old.Connected() {
		t.Error("the old connection was not replaced")
	}
	if r, _ := old.Reason(); r.String() != "replaced" {
		t.Errorf("the old connection ended as %v, want replaced", r)
	}
	g.run(2 * time.Second)
	g.vanish(len(g.clients) - 1)
	g.waitFor(10*time.Second, "the server to time ann out", func() bool { return g.srv.seats.players[seat].peer == nil })
	_ = back
	// While her seat is held, somebody with her id and no secret is refused, and the seat
	// stays held for her.
	thief := g.clients[g.join(func(c *ClientConfig) { c.Name, c.PlayerID = "c1", ann.cfg.PlayerID })]
	g.waitFor(10*time.Second, "the thief refused", func() bool { return thief.Ended() != nil })
	if err := thief.Ended(); !strings.Contains(err.Error(), errSeatTaken) || thief.w != nil || g.srv.seats.players[seat].peer != nil {
		t.Fatalf("the thief of the held seat: %v, started %v, the seat's connection %v", err, thief.w != nil, g.srv.seats.players[seat].peer)
	}
	g.vanish(len(g.clients) - 1)
	restart("ann back to her held seat")
	if got := g.srv.stats.SeatsReclaimed; got != 2 {
		t.Errorf("%d seats reclaimed, want 2", got)
	}
	if got := g.srv.stats.ClaimsRefused; got != 1 {
		t.Errorf("%d claims refused, want 1 (the thief's)", got)
	}
	if got := g.srv.stats.JoinsRefused; got != 0 {
		t.Errorf("%d joins refused", got)
	}
	g.run(3 * time.Second)
	checkAgree(t, g)
}

// checkAgree: every live client's world hashes are the server's at the frames both recorded.
func checkAgree(t *testing.T, g *vgame) {
	t.Helper()
	for _, c := range g.live() {
		if c.w == nil {
			continue
		}
		common, differ := agreement(g, c, 0)
		for _, d := range differ {
			t.Errorf("client %s at frame %s", c.cfg.Name, d)
		}
		if common == 0 {
			t.Errorf("client %s has no frame in common with the server", c.cfg.Name)
		}
	}
}

// agreement compares c's world hashes with the server's at the frames after from that both
// logged (a frame in ten, the last 30 s) and that have settled: it returns how many it
// compared, and says where they differ ("frame: client hash, server hash").
func agreement(g *vgame, c *Client, from uint32) (common int, differ []string) {
	sh := g.srv.stats.hashes.report(g.srv.w.Frame())
	// A frame a late event can still reach, and run again, has not settled: a command on
	// its way may change it on one host before the other. The game's own checks wait as
	// long as the latest late event of the last 30 s on either host (resim.go, settle);
	// so does this one.
	settle := max(g.srv.drift.rw.settle(g.srv.w.Frame()), c.drift.rw.settle(c.w.Frame()))
	for f, h := range c.drift.hashes.report(c.w.Frame()) {
		if n, _ := strconv.Atoi(f); uint32(n) <= from || uint32(n)+settle > min(g.srv.w.Frame(), c.w.Frame()) {
			continue
		}
		if s, ok := sh[f]; ok {
			common++
			if s != h {
				differ = append(differ, fmt.Sprintf("%s: %s, server %s", f, h, s))
			}
		}
	}
	slices.Sort(differ)
	return common, differ
}

// everyoneLinked runs until every live client plays and has a direct link to every other.
func everyoneLinked(t *testing.T, g *vgame, within time.Duration) {
	t.Helper()
	g.waitFor(within, "every client playing with every direct link up", func() bool {
		for _, c := range g.live() {
			if !clientRunning(c) || directLinks(c) != len(g.live())-1 {
				return false
			}
		}
		return true
	})
}

// TestPeersAnnouncingAVictimSendsNothingThere: a client that tells the server, again and
// again, that it (or everybody) takes direct links at a victim's address makes no client send
// a single datagram to the victim: the server refuses any address a client names and lists
// only the addresses it sees the connections come from.
func TestPeersAnnouncingAVictimSendsNothingThere(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 43, bots: 1, clients: 3, link: lossy10})
	victim := netip.MustParseAddrPort("192.0.2.99:9999")
	g.addNode(victim)
	var toVictim, bytesToVictim int
	g.tap = func(d linksim.Datagram) {
		if d.To == victim.String() {
			toVictim++
			bytesToVictim += len(d.Data)
		}
	}
	everyoneLinked(t, g, 20*time.Second)
	// Each client knows the others at the addresses their connections come from.
	for _, c := range g.live() {
		for i, o := range g.clients {
			if o != c && c.p2p.known[o.role.seat].Addr != g.caddrs[i] {
				t.Errorf("seat %d knows seat %d at %v, its connection comes from %v", c.role.seat, o.role.seat, c.p2p.known[o.role.seat].Addr, g.caddrs[i])
			}
		}
	}
	eve := g.clients[0]
	bad := g.srv.stats.BadMessages
	every := &Peers{}
	for s := range uint8(world.MaxPlayers) {
		every.List = append(every.List, PeerAddr{Seat: s, Addr: victim})
	}
	for range 10 {
		if _, err := eve.sendToServer(g.now, &Peers{List: []PeerAddr{{Seat: eve.role.seat, Addr: victim}}}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := eve.sendToServer(g.now, every, nil); err != nil {
			t.Fatal(err)
		}
		g.run(500 * time.Millisecond)
	}
	g.run(5 * time.Second)
	if toVictim != 0 {
		t.Errorf("%d datagrams (%d bytes) went to the victim", toVictim, bytesToVictim)
	}
	if got := g.srv.stats.BadMessages - bad; got != 20 {
		t.Errorf("the server refused %d of eve's 20 Peers", got)
	}
	for _, c := range g.live() {
		if directLinks(c) != len(g.live())-1 {
			t.Errorf("seat %d has %d direct links left", c.role.seat, directLinks(c))
		}
	}
	checkAgree(t, g)
}

// muted is a client whose socket drops every datagram that does not come from the server (a
// firewall, or an address that is nobody's).
type muted struct {
	*Client
	server netip.AddrPort
}

func (m muted) Handle(now time.Time, d transport.Datagram) {
	if d.From == m.server {
		m.Client.Handle(now, d)
	}
}

// TestSilentPeerGetsFiveRequests: the server lists a player that never answers on its direct
// links. Each player that dials it sends it five connection requests (one a second), no more,
// for as long as the server lists it unchanged: nothing bulky goes to an address that has not
// answered.
func TestSilentPeerGetsFiveRequests(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 44, bots: 1, link: lossy10})
	quiet := g.join(nil) // first: the lowest seat of the clients, which every other one dials
	g.hosts[g.caddrs[quiet].String()] = muted{g.clients[quiet], g.srvAddr}
	g.waitFor(10*time.Second, "the quiet player seated", func() bool { return (g.clients[quiet].role.kind == rolePlayer) })
	for range 3 {
		g.join(nil)
	}
	sent := map[string]int{} // big datagrams to the quiet player, by sender
	g.tap = func(d linksim.Datagram) {
		if d.To == g.caddrs[quiet].String() && d.From != g.srvAddr.String() && len(d.Data) >= 1000 {
			sent[d.From]++
		}
	}
	g.run(lastsFor(40 * time.Second)) // a dial gives up after 4 s, and a redial would come within 8
	qs := g.clients[quiet].role.seat
	for i, c := range g.clients {
		if i == quiet {
			continue
		}
		if c.role.seat < qs {
			t.Fatalf("setup: seat %d is below the quiet player's %d", c.role.seat, qs)
		}
		n := sent[g.caddrs[i].String()]
		t.Logf("seat %d sent the quiet seat %d requests; %d silent dials", c.role.seat, n, c.stats.DirectSilent)
		if n == 0 || n > 5 {
			t.Errorf("seat %d sent the quiet player %d connection requests, want 1 to 5", c.role.seat, n)
		}
		if c.stats.DirectSilent != 1 {
			t.Errorf("seat %d counts %d silent dials, want 1", c.role.seat, c.stats.DirectSilent)
		}
		if directLinks(c) != 2 {
			t.Errorf("seat %d has %d direct links, want 2 (the others)", c.role.seat, directLinks(c))
		}
	}
}

// Regression test. The failure it guards against: the server's Peers lists travelled without
// dependencies, so under loss an older list could execute after a newer one; a client then
// forgot a player it had just learned of, and refused that player's dials for the rest of
// the game (one seed in a few left a direct link down for good).
func TestPeersListsKeepTheirOrder(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
	for seed := uint64(11); seed < 11+seedsFor(8); seed++ {
		g := newVGame(t, vspec{seed: seed, bots: 2, clients: 3, link: lossy})
		g.run(20 * time.Second)
		for _, c := range g.live() {
			if n := directLinks(c); n != 2 {
				t.Errorf("seed %d: seat %d has %d direct links, want 2", seed, c.role.seat, n)
			}
		}
	}
}

// forger dials a player's direct links under another player's id, and sends commands for that
// player's seat. With key set it answers the Challenge with a proof under that key (the one
// the forger really shares with its victim); without, it proves nothing.
type forger struct {
	tr      *transport.Client
	key     *LinkKey
	as, to  uint8 // the seat it poses as, the seat of its victim
	unit    uint32
	sent    int
	cmdBase uint32
}

func (f *forger) Handle(now time.Time, d transport.Datagram) { f.tr.Handle(now, d) }
func (f *forger) Tick(now time.Time)                         { f.tr.Tick(now) }
func (f *forger) NextDeadline(now time.Time) time.Time       { return f.tr.NextTick(now) }
func (f *forger) Intent(time.Time)                           {}
func (f *forger) Shutdown(now time.Time)                     { f.tr.Shutdown(now) }

func newForger(t *testing.T, g *vgame, addr netip.AddrPort, victim int, as *Client, key *LinkKey, unit uint32, frame uint32) *forger {
	t.Helper()
	f := &forger{key: key, as: as.role.seat, to: g.clients[victim].role.seat, unit: unit, cmdBase: 1<<29 + uint32(addr.Port())*1000}
	cfg := transport.ClientConfig{PlayerID: as.cfg.PlayerID, Name: as.cfg.Name}
	cfg.Rand = SeededRand(g.spec.seed, uint64(addr.Port()))
	cfg.OnConnect = func(p *transport.Peer, now time.Time) {
		// 200 commands for the seat it poses as, at once.
		for i := range 200 {
			b, err := AppendMsg(nil, &Command{Seat: f.as, ID: f.cmdBase + uint32(i), Frame: frame + uint32(i%20), Kind: world.CommandStop, Units: []uint32{f.unit}})
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := p.Conn().SendGuaranteed(now, b, nil, nil); err == nil {
				f.sent++
			}
		}
	}
	cfg.OnMessage = func(p *transport.Peer, now time.Time, m *message.Message) {
		if ch, err := ParseMsg(m.Payload); err == nil && f.key != nil {
			if ch, ok := ch.(*Challenge); ok {
				b, _ := AppendMsg(nil, &Proof{MAC: linkMAC(*f.key, f.as, f.to, ch.Nonce)})
				p.Conn().SendGuaranteed(now, b, nil, nil)
			}
		}
	}
	tr, err := transport.NewClient(g.caddrs[victim], cfg, g.Writer(g.addNode(addr)))
	if err != nil {
		t.Fatal(err)
	}
	f.tr = tr
	g.hosts[addr.String()] = f
	g.order = append(g.order, addr.String())
	return f
}

// TestForgedDirectDialFails: eve dials ann's direct links as bob (his player id is public),
// twice: once proving with the key she really shares with ann, once proving nothing, and each
// time sends 200 commands for bob's seat. Both connections are dropped, within the deadline;
// bob's real link with ann is never touched, and not one forged command counts anywhere.
func TestForgedDirectDialFails(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 45, bots: 1, clients: 3, link: lossy10})
	everyoneLinked(t, g, 20*time.Second)
	// ann: the lowest seat, whose acceptor every other client dialled; bob: another.
	var ai, bi, ei int
	for i, c := range g.clients {
		if c.role.seat < g.clients[ai].role.seat {
			ai = i
		}
	}
	bi, ei = (ai+1)%3, (ai+2)%3
	ann, bob, eve := g.clients[ai], g.clients[bi], g.clients[ei]
	annLink, bobLink := ann.p2p.links[bob.role.seat], bob.p2p.links[ann.role.seat]
	var bobUnit uint32
	for _, u := range ann.w.Units() {
		if u.Owner == bob.role.seat && !u.IsEnemy() {
			bobUnit = u.ID
			break
		}
	}
	key := eve.p2p.known[ann.role.seat].Key
	frame := ann.w.Frame() + 30
	forgers := []*forger{
		newForger(t, g, netip.MustParseAddrPort("127.0.9.1:5001"), ai, bob, &key, bobUnit, frame),
		newForger(t, g, netip.MustParseAddrPort("127.0.9.2:5002"), ai, bob, nil, bobUnit, frame),
	}
	g.waitFor(10*time.Second, "both forged connections dropped", func() bool {
		return forgers[0].tr.State() == transport.Disconnected && forgers[1].tr.State() == transport.Disconnected
	})
	for i, f := range forgers {
		if f.sent != 200 || !f.tr.Answered() {
			t.Errorf("forger %d: sent %d commands, answered %v: the attack did not happen", i, f.sent, f.tr.Answered())
		}
	}
	if ann.stats.DirectRefused != 2 {
		t.Errorf("ann refused %d direct connections, want 2", ann.stats.DirectRefused)
	}
	if ann.stats.DirectLost != 0 {
		t.Errorf("ann told the server of %d lost links: a refused forgery is no link, and must not spend her LinkLosts", ann.stats.DirectLost)
	}
	g.run(5 * time.Second) // past the forged commands' frames
	if ann.p2p.links[bob.role.seat] != annLink || !annLink.Connected() || bob.p2p.links[ann.role.seat] != bobLink || !bobLink.Connected() {
		t.Error("bob's link with ann was replaced or ended")
	}
	for _, f := range forgers {
		for i := range uint32(200) {
			k := cmdKey{bob.role.seat, f.cmdBase + i}
			if _, ok := g.srv.sched.seen[k]; ok {
				t.Fatalf("the server took forged command %d", k.id)
			}
			for _, c := range g.live() {
				if _, ok := c.sched.seen[k]; ok {
					t.Fatalf("seat %d took forged command %d", c.role.seat, k.id)
				}
			}
		}
	}
	if ann.stats.BadMessages == 0 {
		t.Error("ann counted none of the forged commands as bad messages")
	}
	for _, c := range g.live() {
		if directLinks(c) != 2 {
			t.Errorf("seat %d has %d direct links, want 2", c.role.seat, directLinks(c))
		}
	}
	if g.srv.stats.RealtimeResyncs+g.srv.stats.StopWorldResyncs != 0 {
		t.Errorf("%d real-time and %d stop-the-world re-syncs", g.srv.stats.RealtimeResyncs, g.srv.stats.StopWorldResyncs)
	}
	checkAgree(t, g)
}
