package transport

import (
	"io"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/wire"
)

// answerTo hands the server one datagram from a client's address and returns the type of its
// answer (TypeInvalid: none), and the answer's challenge if it is one.
func answerTo(t *testing.T, srv *Server, out *outbox, now time.Time, from netip.AddrPort, d []byte) (wire.PacketType, wire.Challenge) {
	t.Helper()
	srv.Handle(now, Datagram{From: from, Data: d})
	sent := out.take()
	if len(sent) == 0 {
		return wire.TypeInvalid, wire.Challenge{}
	}
	if len(sent) > 1 {
		t.Fatalf("%d datagrams answer one", len(sent))
	}
	if len(sent[0]) > len(d) {
		t.Errorf("a %d-byte answer to %d bytes", len(sent[0]), len(d))
	}
	body, err := wire.OpenDatagram(sent[0], 0)
	if err != nil {
		t.Fatalf("the answer does not open: %v", err)
	}
	typ, _ := wire.PeekType(body)
	var ch wire.Challenge
	if typ == wire.TypeChallenge {
		if ch, err = wire.ParseChallenge(body); err != nil {
			t.Fatal(err)
		}
	}
	return typ, ch
}

// countingReader counts the bytes drawn from a source of randomness.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// forgeTag computes a challenge's tag under secret, as the server computes it: what whoever
// learned a secret of the server could do.
func forgeTag(secret []byte, from netip.AddrPort, issued uint64, player uuid.UUID) [16]byte {
	s := newChallengeSecrets(nil, time.Hour, secret)
	s.rotate(time.UnixMilli(int64(issued))) // binds secret to issued's period: no draw
	tag, _ := s.tag(from, issued, wire.PlayerID(player))
	return tag
}

// TestChallengeSecretRotates: the challenges' secret changes every ChallengeTTL, the server
// keeps the one before for the challenges still fresh, and then forgets it. A tag made with
// the server's first secret (as whoever read it from the server's memory could make one) is
// good only in the first period and the next; a genuine challenge returned across the end of
// a period is good while it is fresh; rotating draws 32 bytes a period, never one per request.
func TestChallengeSecretRotates(t *testing.T) {
	const ttl = 5 * time.Second
	period0 := time.UnixMilli(1_700_000_000_000 / ttl.Milliseconds() * ttl.Milliseconds()) // a period starts
	from := netip.MustParseAddrPort("192.0.2.7:50000")
	player := playerID(30, 0)
	for _, tt := range []struct {
		name         string
		request      time.Duration // after period0: a genuine request (negative: none)
		forgeAt      time.Duration // after period0: a tag forged with the first secret, issued then (negative: none)
		respond      time.Duration // after period0: the response
		want         wire.PacketType
		wantRotating int // secrets drawn by the response (one, however many periods passed)
	}{
		{"genuine, in its period", 1 * time.Second, -1, 2 * time.Second, wire.TypeAccepted, 0},
		{"genuine, across the period's end", ttl - 100*time.Millisecond, -1, ttl + 100*time.Millisecond, wire.TypeAccepted, 1},
		{"genuine, expired", 1 * time.Second, -1, 1*time.Second + ttl + time.Millisecond, wire.TypeDenied, 1},
		{"genuine, returned two periods on", ttl - 100*time.Millisecond, -1, 2*ttl + 100*time.Millisecond, wire.TypeDenied, 1},
		{"forged with the first secret, in the first period", -1, 1 * time.Second, 1 * time.Second, wire.TypeAccepted, 0},
		{"forged with the first secret, issued in it, returned in the next", -1, ttl - time.Second, ttl + time.Second, wire.TypeAccepted, 1},
		{"forged with the first secret, in the next period", -1, ttl + time.Second, ttl + time.Second, wire.TypeDenied, 1},
		{"forged with the first secret, two periods on", -1, 2*ttl + time.Second, 2*ttl + time.Second, wire.TypeDenied, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seed := [32]byte{30}
			var drawn0 [32]byte
			rand.NewChaCha8(seed).Read(drawn0[:])
			first := deriveKey(drawn0[:], "challenge secret")
			rnd := &countingReader{r: rand.NewChaCha8(seed)}
			var out outbox
			srv := NewServer(ServerConfig{ChallengeTTL: ttl, Config: Config{Rand: rnd}}, &out)
			// The first challenge binds the first secret to the first period, as a server's
			// first join does.
			if typ, _ := answerTo(t, srv, &out, period0, netip.MustParseAddrPort("198.51.100.9:1"), connectRequest(playerID(30, 9), "first")); typ != wire.TypeChallenge {
				t.Fatalf("the first request: %v", typ)
			}
			var ch wire.Challenge
			if tt.request >= 0 {
				var typ wire.PacketType
				if typ, ch = answerTo(t, srv, &out, period0.Add(tt.request), from, connectRequest(player, "ann")); typ != wire.TypeChallenge {
					t.Fatalf("the request: %v", typ)
				}
			}
			if tt.forgeAt >= 0 {
				ch.Issued = uint64(period0.Add(tt.forgeAt).UnixMilli())
				ch.Tag = forgeTag(first, from, ch.Issued, player)
			}
			drawn := rnd.n
			typ, _ := answerTo(t, srv, &out, period0.Add(tt.respond), from, challengeResponse(player, "ann", ch))
			if typ != tt.want {
				t.Errorf("the response: %v, want %v", typ, tt.want)
			}
			rotating := (rnd.n - drawn) / 32
			if typ == wire.TypeAccepted {
				rotating-- // the connection's key pair
			}
			if rotating != tt.wantRotating {
				t.Errorf("%d secrets drawn by the response, want %d", rotating, tt.wantRotating)
			}
		})
	}

	t.Run("a draw per period, none per request", func(t *testing.T) {
		rnd := &countingReader{r: rand.NewChaCha8([32]byte{31})}
		var out outbox
		srv := NewServer(ServerConfig{ChallengeTTL: ttl, MaxHandshakesPerAddress: 1 << 20, MaxHandshakesPerPrefix: 1 << 20, Config: Config{Rand: rnd}}, &out)
		const requests, over = 2000, 4 * ttl
		for i := range requests {
			now := period0.Add(time.Duration(i) * over / requests)
			if typ, _ := answerTo(t, srv, &out, now, from, connectRequest(playerID(31, i), "many")); typ != wire.TypeChallenge {
				t.Fatalf("request %d: %v", i, typ)
			}
		}
		if want := 32 * (1 + 3); rnd.n != want {
			t.Errorf("%d requests over 4 periods drew %d bytes, want %d: the first secret and one for each later period", requests, rnd.n, want)
		}
	})
}

// TestKeyExchangeBudget: the global budget guards the key exchange, not the challenge. With a
// budget of 2 per 5 s, two valid responses get their connections and a third none (no answer,
// counted as throttled_global); a flood of requests meanwhile gets its challenges and spends
// nothing; the third client's same response is accepted as soon as a token is back (2.5 s),
// while its challenge is fresh; and the repeat of an accepted response (its Accepted lost)
// is answered with the budget empty.
func TestKeyExchangeBudget(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	var out outbox
	srv := NewServer(ServerConfig{MaxPendingHandshakes: 2, ChallengeTTL: 5 * time.Second, Config: Config{Rand: rand.NewChaCha8([32]byte{32})}}, &out)
	addrs := []netip.AddrPort{netip.MustParseAddrPort("192.0.2.1:1000"), netip.MustParseAddrPort("198.51.100.1:1000"), netip.MustParseAddrPort("203.0.113.1:1000")}
	resps := make([][]byte, len(addrs))
	for i, a := range addrs {
		typ, ch := answerTo(t, srv, &out, now, a, connectRequest(playerID(32, i), "honest"))
		if typ != wire.TypeChallenge {
			t.Fatalf("client %d's request: %v", i, typ)
		}
		resps[i] = challengeResponse(playerID(32, i), "honest", ch)
	}
	for i, want := range []wire.PacketType{wire.TypeAccepted, wire.TypeAccepted, wire.TypeInvalid} {
		if typ, _ := answerTo(t, srv, &out, now, addrs[i], resps[i]); typ != want {
			t.Errorf("client %d's response: %v, want %v", i, typ, want)
		}
	}
	if typ, _ := answerTo(t, srv, &out, now, addrs[0], resps[0]); typ != wire.TypeAccepted {
		t.Errorf("client 0's response again (its Accepted lost), budget spent: %v, want %v", typ, wire.TypeAccepted)
	}
	// A flood of requests from everywhere for 2.5 s: every one challenged, none answered.
	rng := rand.New(rand.NewPCG(32, 32))
	for i := range 2500 {
		at := now.Add(time.Duration(i) * time.Millisecond)
		if typ, _ := answerTo(t, srv, &out, at, netip.AddrPortFrom(anywhere4(rng), 4000), connectRequest(uuid.UUID(randomID(rng)), "flood")); typ != wire.TypeChallenge {
			t.Fatalf("flood request %d: %v", i, typ)
		}
	}
	if typ, _ := answerTo(t, srv, &out, now.Add(2400*time.Millisecond), addrs[2], resps[2]); typ != wire.TypeInvalid {
		t.Errorf("client 2's response before a token is back: %v, want no answer", typ)
	}
	if typ, _ := answerTo(t, srv, &out, now.Add(2500*time.Millisecond), addrs[2], resps[2]); typ != wire.TypeAccepted {
		t.Errorf("client 2's response once a token is back: %v, want %v", typ, wire.TypeAccepted)
	}
	st := srv.StatsNow()
	if r := st.Rejected; st.Accepted != 3 || r.ThrottledGlobal != 2 || r.ThrottledAddress+r.ThrottledPrefix != 0 || st.Challenges != 2503 {
		t.Errorf("accepted %d, challenges %d, throttled %+v; want 3 accepted, 2,503 challenges, 2 throttled by the global budget", st.Accepted, st.Challenges, r)
	}
}

// BenchmarkHandshakeRequest: what one connection request costs the server's loop, sent
// nowhere: challenged (a source within its budgets, as each of a flood from everywhere is),
// and throttled (a source over its budget, as a flood from one address is).
//
//	go test ./net/transport -run '^$' -bench HandshakeRequest -benchmem
func BenchmarkHandshakeRequest(b *testing.B) {
	req := connectRequest(playerID(34, 0), "flood")
	for _, bc := range []struct {
		name string
		from func(i int) netip.AddrPort
	}{
		{"challenged", func(i int) netip.AddrPort {
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte{11, byte(i >> 16), byte(i >> 8), byte(i)}), 4000)
		}},
		{"throttled", func(int) netip.AddrPort { return netip.MustParseAddrPort("192.0.2.1:4000") }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := NewServer(ServerConfig{MaxHandshakesPerPrefix: 1 << 30}, discard{})
			now := time.UnixMilli(1_700_000_000_000)
			i := 0
			for b.Loop() {
				srv.Handle(now, Datagram{From: bc.from(i), Data: req})
				i++
			}
		})
	}
}
