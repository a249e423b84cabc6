package transport

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/wire"
)

// serverState is what a server holds about clients, read on its loop.
type serverState struct{ peers, byAddr, usedTags int }

func stateOf(l *loop, s *Server) (st serverState) {
	l.call(func(time.Time) {
		st = serverState{len(s.peers), len(s.byAddr), len(s.usedTags)}
	})
	return st
}

func startServer(t *testing.T, cfg ServerConfig) (*Server, *loop) {
	t.Helper()
	srv, err := Listen("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, startLoop(srv)
}

func stopServer(t *testing.T, srv *Server, l *loop) {
	t.Helper()
	l.stop()
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
}

// stats polls the server's published snapshot until cond holds.
func waitStats(t *testing.T, srv *Server, what string, cond func(ServerStats) bool) ServerStats {
	t.Helper()
	var st ServerStats
	waitFor(t, what, 5*time.Second, func() bool { st = srv.Stats(); return cond(st) })
	return st
}

// handshake plays a whole handshake by hand from r and returns the server's Accepted and the
// bytes of the challenge response that won it (rawSealer gives the connection's keys).
func handshake(t *testing.T, r *rawPeer, player uuid.UUID) (wire.Accepted, []byte) {
	t.Helper()
	req := connectRequest(player, "raw")
	r.send(req)
	ch, err := wire.ParseChallenge(r.expect(wire.TypeChallenge, len(req)).body)
	if err != nil {
		t.Fatal(err)
	}
	resp := challengeResponse(player, "raw", ch)
	r.send(resp)
	acc, err := wire.ParseAccepted(r.expect(wire.TypeAccepted, len(resp)).body)
	if err != nil {
		t.Fatal(err)
	}
	return acc, resp
}

func TestHandshakeUnansweredChallengeCreatesNoState(t *testing.T) {
	srv, sl := startServer(t, ServerConfig{})
	for i := range 3 {
		r := newRawPeer(t, srv.LocalAddr())
		req := connectRequest(playerID(2, i), "ghost")
		r.send(req)
		rep := r.expect(wire.TypeChallenge, len(req))
		t.Logf("request %d bytes, challenge %d bytes", len(req), rep.size)
	}
	st := waitStats(t, srv, "three requests counted", func(st ServerStats) bool { return st.Requests == 3 })
	if st.Challenges != 3 || st.Accepted != 0 || len(st.Peers) != 0 {
		t.Errorf("after three unanswered challenges: %d challenges, %d accepted, %d peers; want 3, 0, 0", st.Challenges, st.Accepted, len(st.Peers))
	}
	if got := stateOf(sl, srv); got != (serverState{}) {
		t.Errorf("the server holds state for clients that never answered: %+v", got)
	}
	stopServer(t, srv, sl)
	verifyNoLeaks(t)
}

// TestHandshakeRepliesNeverLarger plays every handshake answer the server can give to a raw
// socket and checks that none is larger than the datagram that provoked it, and that
// datagrams that do not parse get no answer at all.
func TestHandshakeRepliesNeverLarger(t *testing.T) {
	srv, sl := startServer(t, ServerConfig{MaxClients: 1})
	a := newRawPeer(t, srv.LocalAddr())
	received := 0
	expect := func(r *rawPeer, typ wire.PacketType, sent []byte) reply {
		t.Helper()
		rep := r.expect(typ, len(sent))
		received += rep.size
		return rep
	}

	// Junk and short handshake packets: no answer. The valid request that follows is a
	// barrier: the server answers datagrams in order, so if the junk had an answer it would
	// come first.
	short := seal(0, func(b []byte) []byte { return append(b, byte(wire.TypeConnectRequest), wire.ProtocolVersion) })
	a.send(short)
	a.send([]byte{1, 2, 3})
	a.send(seal(0, func(b []byte) []byte { return append(b, byte(wire.TypeChallengeResponse)) }))
	req := connectRequest(playerID(3, 0), "ann")
	a.send(req)
	ch, err := wire.ParseChallenge(expect(a, wire.TypeChallenge, req).body)
	if err != nil {
		t.Fatal(err)
	}

	// Another protocol version: denied.
	old := seal(0, func(b []byte) []byte {
		return mustBuild(wire.AppendConnectRequest(b, &wire.ConnectRequest{Version: wire.ProtocolVersion + 1, Player: wire.PlayerID(playerID(3, 0)), Name: "ann"}))
	})
	a.send(old)
	if d, _ := wire.ParseDenied(expect(a, wire.TypeDenied, old).body); d.Reason != wire.DenyVersion {
		t.Errorf("other version: %v, want %v", d.Reason, wire.DenyVersion)
	}

	// A wrong tag: denied.
	bad := ch
	bad.Tag[3] ^= 0x10
	resp := challengeResponse(playerID(3, 0), "ann", bad)
	a.send(resp)
	if d, _ := wire.ParseDenied(expect(a, wire.TypeDenied, resp).body); d.Reason != wire.DenyChallenge {
		t.Errorf("wrong tag: %v, want %v", d.Reason, wire.DenyChallenge)
	}

	// The right one: accepted.
	resp = challengeResponse(playerID(3, 0), "ann", ch)
	a.send(resp)
	expect(a, wire.TypeAccepted, resp)

	// The only seat is taken: a request and a response from somebody else are denied.
	b := newRawPeer(t, srv.LocalAddr())
	req = connectRequest(playerID(3, 1), "bob")
	b.send(req)
	if d, _ := wire.ParseDenied(expect(b, wire.TypeDenied, req).body); d.Reason != wire.DenyServerFull {
		t.Errorf("full server: %v, want %v", d.Reason, wire.DenyServerFull)
	}
	resp = challengeResponse(playerID(3, 1), "bob", ch)
	b.send(resp)
	expect(b, wire.TypeDenied, resp)

	if sent := a.sent + b.sent; received > sent {
		t.Errorf("the server sent %d bytes of handshake answers for %d bytes of requests", received, sent)
	} else {
		t.Logf("handshake answers: %d bytes for %d bytes of requests", received, sent)
	}
	stopServer(t, srv, sl)
	verifyNoLeaks(t)
}

func TestHandshakeReplayedResponseRefused(t *testing.T) {
	var mu sync.Mutex
	var bye []string
	srv, sl := startServer(t, ServerConfig{ChallengeTTL: time.Minute, Config: Config{
		OnDisconnect: func(p *Peer, _ time.Time, r wire.DisconnectReason, text string) {
			mu.Lock()
			bye = append(bye, r.String()+": "+text)
			mu.Unlock()
		},
	}})
	a := newRawPeer(t, srv.LocalAddr())
	acc, resp := handshake(t, a, playerID(4, 0))

	// The same response again from the same address while connected: the Accepted was
	// lost, as far as the server can tell. Same key, no new connection.
	a.send(resp)
	if again, _ := wire.ParseAccepted(a.expect(wire.TypeAccepted, len(resp)).body); again.PublicKey != acc.PublicKey {
		t.Errorf("repeated response: key %x, want the same %x", again.PublicKey, acc.PublicKey)
	}
	// From another address: the tag is bound to the address.
	b := newRawPeer(t, srv.LocalAddr())
	b.send(resp)
	b.expect(wire.TypeDenied, len(resp))

	// Disconnect, then replay from both addresses.
	a.send(sealWith(rawSealer(t, a, acc), func(b []byte) []byte {
		return mustBuild(wire.AppendDisconnect(b, &wire.Disconnect{Reason: wire.DisconnectClosed, Text: "bye"}))
	}))
	waitFor(t, "the server drops the connection", 5*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(bye) == 1
	})
	if bye[0] != "closed: bye" {
		t.Errorf("server saw %q, want %q", bye[0], "closed: bye")
	}
	a.send(resp)
	if d, _ := wire.ParseDenied(a.expect(wire.TypeDenied, len(resp)).body); d.Reason != wire.DenyChallenge {
		t.Errorf("replay after disconnect: %v, want %v", d.Reason, wire.DenyChallenge)
	}
	b.send(resp)
	b.expect(wire.TypeDenied, len(resp))

	st := waitStats(t, srv, "three refusals", func(st ServerStats) bool { return st.Rejected.BadChallenge >= 3 })
	if st.Accepted != 1 || st.Rejected.BadChallenge != 3 || len(st.Peers) != 0 {
		t.Errorf("accepted %d, refused %d, peers %d; want 1, 3, 0", st.Accepted, st.Rejected.BadChallenge, len(st.Peers))
	}
	stopServer(t, srv, sl)
	verifyNoLeaks(t)
}

func TestHandshakeForgedChallengeRefused(t *testing.T) {
	runParallel(t)
	const ttl = time.Second // the fresh challenge at the end must be answered within it, under load too
	srv, sl := startServer(t, ServerConfig{ChallengeTTL: ttl})
	a := newRawPeer(t, srv.LocalAddr())
	player := playerID(5, 0)
	req := connectRequest(player, "eve")
	a.send(req)
	ch, err := wire.ParseChallenge(a.expect(wire.TypeChallenge, len(req)).body)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, c wire.Challenge, p uuid.UUID) {
		t.Helper()
		resp := challengeResponse(p, "eve", c)
		a.send(resp)
		if d, _ := wire.ParseDenied(a.expect(wire.TypeDenied, len(resp)).body); d.Reason != wire.DenyChallenge {
			t.Errorf("%s: %v, want %v", what, d.Reason, wire.DenyChallenge)
		}
	}
	forged := ch
	forged.Tag[15] ^= 1
	refused("wrong tag", forged, player)
	forged = ch
	forged.Issued += 1000 // a later issue time, to make the challenge last longer
	refused("altered issue time", forged, player)
	refused("another player's challenge", ch, playerID(5, 1))
	forged = wire.Challenge{Issued: uint64(time.Now().Add(time.Hour).UnixMilli())}
	refused("zero tag from the future", forged, player)

	// The genuine challenge after it expired.
	expired := time.UnixMilli(int64(ch.Issued)).Add(ttl + 50*time.Millisecond)
	waitFor(t, "the challenge to expire", 5*time.Second, func() bool { return time.Now().After(expired) })
	refused("expired challenge", ch, player)

	// A fresh one still works: the refusals were about the challenges, not the client.
	a.send(req)
	ch, err = wire.ParseChallenge(a.expect(wire.TypeChallenge, len(req)).body)
	if err != nil {
		t.Fatal(err)
	}
	resp := challengeResponse(player, "eve", ch)
	a.send(resp)
	a.expect(wire.TypeAccepted, len(resp))

	st := waitStats(t, srv, "one accepted", func(st ServerStats) bool { return st.Accepted == 1 })
	if st.Rejected.BadChallenge != 5 {
		t.Errorf("refused %d challenges, want 5", st.Rejected.BadChallenge)
	}
	stopServer(t, srv, sl)
	verifyNoLeaks(t)
}

// TestHandshakeWrongKeyIsSpoofed: datagrams from a connected client's address that fail its
// connection's keys are dropped and counted on that peer, and the connection goes on.
func TestHandshakeWrongKeyIsSpoofed(t *testing.T) {
	srv, sl := startServer(t, ServerConfig{})
	tap := newTapConn(t, false)
	cli, err := DialOn(tap, srv.LocalAddr(), ClientConfig{Name: "cat"})
	if err != nil {
		t.Fatal(err)
	}
	cl := startLoop(cli)
	waitFor(t, "connected", 5*time.Second, func() bool { return cli.Stats().State == Connected })
	const wrongKey, keyZero = 7, 5
	for i := range wrongKey {
		var k [wire.KeySize]byte
		k[0] = byte(i + 1)
		tap.inject(sealWith(newSealer(&k, &k), func(b []byte) []byte { return wire.AppendPing(b, &wire.Ping{ID: 99}) }), srv.LocalAddr())
	}
	for range keyZero {
		tap.inject(seal(0, func(b []byte) []byte { return wire.AppendPing(b, &wire.Ping{ID: 99}) }), srv.LocalAddr())
	}
	st := waitStats(t, srv, "spoofed datagrams counted", func(st ServerStats) bool {
		return len(st.Peers) == 1 && st.Peers[0].Spoofed >= wrongKey+keyZero
	})
	if r := st.Rejected; st.Peers[0].Spoofed != wrongKey+keyZero || r.WrongKey != wrongKey+keyZero || r.Total() != r.WrongKey {
		t.Errorf("peer spoofed %d, rejected %+v; want %d with a wrong key and nothing else", st.Peers[0].Spoofed, r, wrongKey+keyZero)
	}
	if s := cli.Stats(); s.State != Connected {
		t.Errorf("client %v after the spoofed datagrams", s.State)
	}
	cl.stop()
	sl.stop()
	cli.Close()
	srv.Close()
	verifyNoLeaks(t)
}

func TestHandshakeServerFull(t *testing.T) {
	srv, sl := startServer(t, ServerConfig{MaxClients: 2})
	var loops []*loop
	var clients []*Client
	for i := range 2 {
		c, err := Dial(srv.LocalAddr().String(), ClientConfig{Name: "seated", PlayerID: playerID(6, i)})
		if err != nil {
			t.Fatal(err)
		}
		clients, loops = append(clients, c), append(loops, startLoop(c))
		waitFor(t, "connected", 5*time.Second, func() bool { return c.Stats().State == Connected })
	}
	denied := make(chan wire.DenyReason, 1)
	third, err := Dial(srv.LocalAddr().String(), ClientConfig{Name: "third", OnDenied: func(r wire.DenyReason, _ time.Time) { denied <- r }})
	if err != nil {
		t.Fatal(err)
	}
	tl := startLoop(third)
	select {
	case r := <-denied:
		if r != wire.DenyServerFull {
			t.Errorf("denied with %v, want %v", r, wire.DenyServerFull)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the third client was not denied")
	}
	var cerr error
	tl.call(func(time.Time) { cerr = third.Err() })
	if !errors.Is(cerr, ErrDenied) {
		t.Errorf("Err() = %v, want ErrDenied", cerr)
	}
	waitFor(t, "the third client's stats", 5*time.Second, func() bool { return third.Stats().State == Disconnected })
	if st := waitStats(t, srv, "the denial counted", func(st ServerStats) bool { return st.Denied >= 1 }); st.Accepted != 2 || len(st.Peers) != 2 {
		t.Errorf("accepted %d, %d peers; want 2, 2", st.Accepted, len(st.Peers))
	}
	for _, l := range append(loops, tl) {
		l.stop()
	}
	sl.stop()
	for _, c := range append(clients, third) {
		c.Close()
	}
	srv.Close()
	verifyNoLeaks(t)
}

// TestHandshakeThrottled: requests from one address (four sockets of 127.0.0.1) beyond its
// budget of challenges get no answer, and are counted; nothing is kept for any of them.
func TestHandshakeThrottled(t *testing.T) {
	const limit, peers, each = 5, 4, 10
	srv, sl := startServer(t, ServerConfig{MaxHandshakesPerAddress: limit, ChallengeTTL: time.Minute})
	raws := make([]*rawPeer, peers)
	for i := range raws {
		raws[i] = newRawPeer(t, srv.LocalAddr())
		for j := range each {
			raws[i].send(connectRequest(playerID(7, i*each+j), "many"))
		}
	}
	st := waitStats(t, srv, "every request counted", func(st ServerStats) bool { return st.Requests == peers*each })
	if st.Challenges != limit || st.Rejected.ThrottledAddress != peers*each-limit || st.Rejected.Throttled() != st.Rejected.ThrottledAddress {
		t.Errorf("%d challenges and %+v throttled of %d requests, want %d and %d by address", st.Challenges, st.Rejected, peers*each, limit, peers*each-limit)
	}
	// The server has sent everything it will send for these requests (the counters are
	// published after the datagrams are handled): count what arrived.
	challenges := 0
	for _, r := range raws {
		for {
			rep, ok := r.read(50 * time.Millisecond)
			if !ok {
				break
			}
			if rep.typ != wire.TypeChallenge {
				t.Errorf("got %v, want only challenges", rep.typ)
			}
			challenges++
		}
	}
	if challenges != limit {
		t.Errorf("%d challenges arrived, want %d", challenges, limit)
	}
	if got := stateOf(sl, srv); got != (serverState{}) {
		t.Errorf("state after a flood of requests: %+v", got)
	}
	stopServer(t, srv, sl)
	verifyNoLeaks(t)
}
