package transport

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/wire"
)

// The join-lockout attacks, replayed in virtual time: a flood of connection requests while
// honest clients join. Measured against the binaries before the handshake budgets were per
// source, a flood of 1,000 requests a second from one address kept 5 of 5 honest clients out;
// before only the key exchange had a global budget, the same flood from 512 /24s kept 4 of 5
// out.

// floodNet is a network in virtual time for one server, a few honest clients and a flooder:
// every datagram takes latency to arrive, in the order sent.
type floodNet struct {
	now     time.Time
	latency time.Duration
	queue   []floodDatagram
	srv     *Server
	srvAddr netip.AddrPort
	clients map[netip.AddrPort]*Client
	// answer: the flood's sources receive, and return each challenge they get with a
	// response, as a client would (the player id each request of theirs carried).
	answer  bool
	players map[netip.AddrPort]wire.PlayerID

	toFlood, challengesToFlood, challengesToHonest int // what the server sent to addresses no client has
	bytesToFlood                                   int
}

type floodDatagram struct {
	from, to netip.AddrPort
	data     []byte
	due      time.Time
}

// floodWriter sends from one address of a floodNet.
type floodWriter struct {
	n    *floodNet
	from netip.AddrPort
}

func (w floodWriter) WriteTo(b []byte, to netip.AddrPort) error {
	w.n.queue = append(w.n.queue, floodDatagram{from: w.from, to: to, data: append([]byte(nil), b...), due: w.n.now.Add(w.n.latency)})
	return nil
}

// deliver hands every datagram due by now to its receiver.
func (n *floodNet) deliver() {
	k := 0
	for k < len(n.queue) && !n.queue[k].due.After(n.now) {
		d := n.queue[k]
		k++
		switch c := n.clients[d.to]; {
		case d.to == n.srvAddr:
			n.srv.Handle(n.now, Datagram{From: d.from, Data: d.data})
		case c != nil:
			if body, err := wire.OpenDatagram(d.data, 0); err == nil && body[0] == byte(wire.TypeChallenge) {
				n.challengesToHonest++
			}
			c.Handle(n.now, Datagram{From: d.from, Data: d.data})
		default:
			n.toFlood++
			n.bytesToFlood += len(d.data)
			if body, err := wire.OpenDatagram(d.data, 0); err == nil && body[0] == byte(wire.TypeChallenge) {
				n.challengesToFlood++
				if ch, err := wire.ParseChallenge(body); err == nil && n.answer {
					floodWriter{n, d.to}.WriteTo(challengeResponse(uuid.UUID(n.players[d.to]), "flood", ch), n.srvAddr)
				}
			}
		}
	}
	n.queue = n.queue[:copy(n.queue, n.queue[k:])]
}

// floodScenario is one run: flooders send rate connection requests a second for the whole
// run, from addresses source draws; honest clients start one a second from the first second.
type floodScenario struct {
	name    string
	rate    int
	source  func(rng *rand.Rand) netip.Addr
	honest  []netip.Addr
	cfg     ServerConfig
	runFor  time.Duration
	latency time.Duration
	answer  bool // the flood's sources return their challenges (floodNet.answer)
}

// floodResult is what a run measured.
type floodResult struct {
	joined                       int
	joinTimes                    []time.Duration // from each client's first request to its connection
	requests                     int
	challengesToFlood, toFlood   int
	challengesToHonest, accepted int
	bytesToFlood, bytesFromFlood int
	stats                        ServerStats
	usedTags                     int
}

func runFlood(t *testing.T, sc floodScenario) floodResult {
	t.Helper()
	start := time.Unix(1_000_000, 0)
	n := &floodNet{now: start, latency: sc.latency, srvAddr: netip.MustParseAddrPort("198.51.100.1:7777"), clients: map[netip.AddrPort]*Client{},
		answer: sc.answer, players: map[netip.AddrPort]wire.PlayerID{}}
	cfg := sc.cfg
	cfg.Rand = rand.NewChaCha8([32]byte{1})
	n.srv = NewServer(cfg, floodWriter{n, n.srvAddr})

	rng := rand.New(rand.NewPCG(11, 12))
	type honest struct {
		c       *Client
		startAt time.Time
		started time.Time
		joined  time.Time
	}
	hs := make([]*honest, len(sc.honest))
	for i, a := range sc.honest {
		addr := netip.AddrPortFrom(a, uint16(50000+i))
		h := &honest{startAt: start.Add(time.Duration(i+1) * time.Second)}
		var key [32]byte
		key[0] = byte(i + 2)
		c, err := NewClient(n.srvAddr, ClientConfig{Name: fmt.Sprintf("honest%d", i), PlayerID: playerID(11, i),
			Config: Config{Rand: rand.NewChaCha8(key), OnConnect: func(_ *Peer, now time.Time) { h.joined = now }}}, floodWriter{n, addr})
		if err != nil {
			t.Fatal(err)
		}
		h.c = c
		hs[i] = h
		n.clients[addr] = c
	}

	var res floodResult
	const step = time.Millisecond
	owed := 0.0
	for now := start; now.Before(start.Add(sc.runFor)); now = now.Add(step) {
		n.now = now
		// The flood: rate requests a second, each from a fresh port and a fresh player id,
		// from the address its source draws.
		for owed += float64(sc.rate) * step.Seconds(); owed >= 1; owed-- {
			from := netip.AddrPortFrom(sc.source(rng), uint16(1024+rng.IntN(60000)))
			player := randomID(rng)
			if n.answer {
				n.players[from] = player
			}
			req := connectRequest(uuid.UUID(player), "flood")
			floodWriter{n, from}.WriteTo(req, n.srvAddr)
			res.requests++
			res.bytesFromFlood += len(req)
		}
		n.deliver()
		n.srv.Tick(now)
		for _, h := range hs {
			if now.Before(h.startAt) {
				continue
			}
			if h.started.IsZero() {
				h.started = now
			}
			h.c.Tick(now)
		}
	}
	for _, h := range hs {
		if !h.joined.IsZero() {
			res.joined++
			res.joinTimes = append(res.joinTimes, h.joined.Sub(h.started))
		}
	}
	res.challengesToFlood, res.toFlood, res.challengesToHonest, res.bytesToFlood = n.challengesToFlood, n.toFlood, n.challengesToHonest, n.bytesToFlood
	res.stats = n.srv.StatsNow()
	res.accepted = int(res.stats.Accepted)
	res.usedTags = len(n.srv.usedTags)
	r := res.stats.Rejected
	t.Logf("%s: %d requests/s for %v: %d of %d honest clients joined, in %v; challenges: %d to the flood, %d to the honest clients (%d in all); throttled: address %d, prefix %d, global %d",
		sc.name, sc.rate, sc.runFor, res.joined, len(hs), res.joinTimes, res.challengesToFlood, res.challengesToHonest, res.stats.Challenges,
		r.ThrottledAddress, r.ThrottledPrefix, r.ThrottledGlobal)
	return res
}

// budgetOf is the most challenges a budget of n per ttl (a full bucket at the start) hands out
// in d.
func budgetOf(n int, ttl, d time.Duration) int {
	return n + int(int64(n)*int64(d)/int64(ttl))
}

var (
	// honestElsewhere are five clients, each in a /24 of its own.
	honestElsewhere = []netip.Addr{
		netip.MustParseAddr("10.1.0.7"), netip.MustParseAddr("10.2.0.7"), netip.MustParseAddr("10.3.0.7"),
		netip.MustParseAddr("10.4.0.7"), netip.MustParseAddr("172.16.5.7"),
	}
	flooder = netip.MustParseAddr("10.66.0.1")
)

// TestJoinUnderFloodFromOneAddress: 100 and 1,000 connection requests a second from one
// address for 8 s, while five honest clients join, one a second from the first second, from
// other addresses of the flooder's own /24: each joins in its first round trip, and the
// flooder gets no more challenges than the per-address budget.
func TestJoinUnderFloodFromOneAddress(t *testing.T) {
	runParallel(t)
	honest := []netip.Addr{}
	for i := range 5 {
		honest = append(honest, netip.AddrFrom4([4]byte{10, 66, 0, byte(10 + i)}))
	}
	const runFor, latency = 8 * time.Second, 2 * time.Millisecond
	for _, rate := range []int{100, 1000} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			sc := floodScenario{name: "one address", rate: rate, source: func(*rand.Rand) netip.Addr { return flooder },
				honest: honest, runFor: runFor, latency: latency}
			res := runFlood(t, sc)
			checkJoins(t, res, len(honest), 4*latency+2*time.Millisecond)
			if most := budgetOf(16, 5*time.Second, runFor); res.challengesToFlood > most {
				t.Errorf("the flooder got %d challenges, more than its address's budget of %d in %v", res.challengesToFlood, most, runFor)
			}
			checkStateless(t, res)
		})
	}
}

// TestJoinUnderFloodFromOnePrefix: the same flood from random addresses of one /24 (and of
// one /64), with the honest clients in other prefixes: they all join at once, and the
// flooders' prefix gets no more challenges than its budget.
func TestJoinUnderFloodFromOnePrefix(t *testing.T) {
	runParallel(t)
	const runFor, latency = 8 * time.Second, 2 * time.Millisecond
	for _, sc := range []floodScenario{
		{name: "one /24", source: func(rng *rand.Rand) netip.Addr { return netip.AddrFrom4([4]byte{10, 66, 0, byte(rng.Uint32())}) },
			honest: honestElsewhere},
		{name: "one /64", source: func(rng *rand.Rand) netip.Addr {
			b := netip.MustParseAddr("2001:db8:66:1::").As16()
			binary.BigEndian.PutUint64(b[8:], rng.Uint64())
			return netip.AddrFrom16(b)
		}, honest: []netip.Addr{
			netip.MustParseAddr("2001:db8:1::7"), netip.MustParseAddr("2001:db8:2::7"), netip.MustParseAddr("2001:db8:66:2::7"),
			netip.MustParseAddr("2001:db8:66:3::7"), netip.MustParseAddr("10.1.0.7"),
		}},
	} {
		t.Run(strings.TrimPrefix(sc.name, "one /"), func(t *testing.T) {
			sc.rate, sc.runFor, sc.latency = 1000, runFor, latency
			res := runFlood(t, sc)
			checkJoins(t, res, len(sc.honest), 4*latency+2*time.Millisecond)
			if most := budgetOf(32, 5*time.Second, runFor); res.challengesToFlood > most {
				t.Errorf("the flooders got %d challenges, more than their prefix's budget of %d in %v", res.challengesToFlood, most, runFor)
			}
			if r := res.stats.Rejected; r.ThrottledPrefix == 0 {
				t.Errorf("the prefix budget refused nothing: %+v", r)
			}
			checkStateless(t, res)
		})
	}
}

// everywhere512 draws flood sources from 512 /24s of the IPv4 space, a random address in a
// random one of them each time: so many prefixes that at 1,000 requests a second none comes
// near its prefix's budget (2 requests a second each), and only a global budget could hold
// the flood.
func everywhere512() func(rng *rand.Rand) netip.Addr {
	pick := rand.New(rand.NewPCG(512, 24))
	seen := map[[3]byte]bool{}
	var prefixes [][3]byte
	for len(prefixes) < 512 {
		// In 11.0.0.0/8, where none of the honest clients is.
		p := [3]byte{11, byte(pick.Uint32()), byte(pick.Uint32())}
		if !seen[p] {
			seen[p] = true
			prefixes = append(prefixes, p)
		}
	}
	return func(rng *rand.Rand) netip.Addr {
		p := prefixes[rng.IntN(len(prefixes))]
		return netip.AddrFrom4([4]byte{p[0], p[1], p[2], byte(1 + rng.IntN(254))})
	}
}

// anywhere4 draws flood sources from the whole IPv4 space: a new address, and nearly always
// a new /24, each time.
func anywhere4(rng *rand.Rand) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], rng.Uint32())
	return netip.AddrFrom4(b)
}

// TestJoinUnderFloodFromEverywhere: 1,000 connection requests a second from 512 /24s, and
// 10,000 a second from all over the IPv4 space (forged: nobody answers their challenges),
// while five honest clients join, one a second from the first second, each from a /24 of its
// own: all five connect within their connect timeout of 5 s, at their first try. The flood
// gets its challenges (they cost the server no state and are 41 times smaller than the
// requests), but a challenge that nobody returns spends no budget: only a valid response
// reaches the key exchange and its global budget. Measured against the binaries when the
// global budget rationed the challenges themselves, the first flood kept 4 of 5 honest
// clients out; in this test then, all 5.
func TestJoinUnderFloodFromEverywhere(t *testing.T) {
	runParallel(t)
	const runFor, latency = 11 * time.Second, 2 * time.Millisecond
	for _, sc := range []floodScenario{
		{name: "512 prefixes", rate: 1000, source: everywhere512()},
		{name: "anywhere", rate: 10_000, source: anywhere4},
	} {
		t.Run(sc.name, func(t *testing.T) {
			sc.honest, sc.runFor, sc.latency = honestElsewhere, runFor, latency
			res := runFlood(t, sc)
			checkJoins(t, res, len(sc.honest), 4*latency+2*time.Millisecond)
			if res.accepted != len(sc.honest) {
				t.Errorf("%d connections accepted, want the %d honest ones", res.accepted, len(sc.honest))
			}
			if r := res.stats.Rejected; r.Throttled() != 0 {
				t.Errorf("throttled %+v: the flood's requests are spread over so many sources that none comes near its budget", r)
			}
			// The flood got a challenge per request (but those still on their way) and nothing
			// else: 29 bytes for its 1,200.
			inFlight := sc.rate*int(2*latency)/int(time.Second) + 1
			if res.toFlood != res.challengesToFlood || res.challengesToFlood > res.requests || res.challengesToFlood < res.requests-inFlight {
				t.Errorf("the server sent the flood %d datagrams, %d of them challenges, for %d requests: want a challenge each", res.toFlood, res.challengesToFlood, res.requests)
			}
			if res.bytesToFlood*1000 > res.bytesFromFlood*25 {
				t.Errorf("the server sent the flood's addresses %d bytes for their %d: more than 0.025 of them", res.bytesToFlood, res.bytesFromFlood)
			}
			t.Logf("the flood's addresses got %d bytes for their %d: %.4f of them", res.bytesToFlood, res.bytesFromFlood, float64(res.bytesToFlood)/float64(res.bytesFromFlood))
			checkStateless(t, res)
		})
	}
}

// TestKeyExchangesHeldByGlobalBudget: a flood whose sources receive, in 512 /24s, returns
// every challenge it gets, 200 a second: each response is valid, and the global budget of key
// exchanges holds it: the server never makes more connections (and key pairs) than the
// budget allows, and keeps a used challenge only for a connection it made. (Honest clients
// compete with such a flood for the budget: it takes many machines that really receive at
// their addresses, in many networks; see the log.)
func TestKeyExchangesHeldByGlobalBudget(t *testing.T) {
	runParallel(t)
	const runFor = 8 * time.Second
	sc := floodScenario{name: "512 /24s that answer", rate: 200, source: everywhere512(), honest: honestElsewhere, runFor: runFor,
		latency: 2 * time.Millisecond, answer: true, cfg: ServerConfig{MaxClients: 255}}
	res := runFlood(t, sc)
	if most := budgetOf(64, 5*time.Second, runFor); res.accepted > most {
		t.Errorf("the server made %d connections, more than its budget of %d key exchanges in %v", res.accepted, most, runFor)
	}
	r := res.stats.Rejected
	if r.ThrottledGlobal == 0 || r.ThrottledAddress+r.ThrottledPrefix != 0 {
		t.Errorf("throttled: %+v; want the global budget of key exchanges to do the work", r)
	}
	if res.challengesToFlood > res.requests || res.challengesToFlood < res.requests-2 {
		t.Errorf("%d challenges to the flood for %d requests: want one each", res.challengesToFlood, res.requests)
	}
	if res.usedTags > res.accepted || len(res.stats.Peers) > res.accepted {
		t.Errorf("after the flood: %d used challenges and %d peers for %d connections", res.usedTags, len(res.stats.Peers), res.accepted)
	}
}

func checkJoins(t *testing.T, res floodResult, want int, within time.Duration) {
	t.Helper()
	if res.joined != want {
		t.Errorf("%d of %d honest clients joined", res.joined, want)
	}
	for i, d := range res.joinTimes {
		if d > within {
			t.Errorf("honest client %d joined after %v, want within %v", i, d, within)
		}
	}
}

// checkStateless: the flood left no state: a peer per connection, at most a used challenge
// per connection (they expire after ChallengeTTL), nothing else.
func checkStateless(t *testing.T, res floodResult) {
	t.Helper()
	if res.usedTags > res.accepted || len(res.stats.Peers) != res.accepted {
		t.Errorf("after the flood: %d used challenges and %d peers for %d connections", res.usedTags, len(res.stats.Peers), res.accepted)
	}
}

// TestBudgetRate: a bucket gives its burst at once, then one token per interval, and a
// refused request takes nothing.
func TestBudgetRate(t *testing.T) {
	r := newRate(4, time.Second)
	var full int64
	now := time.Unix(1_000_000, 0).UnixNano()
	got := 0
	for range 10 {
		if r.fits(full, now) {
			full = r.take(full, now)
			got++
		}
	}
	if got != 4 {
		t.Errorf("a full bucket gave %d tokens at once, want 4", got)
	}
	if now += int64(249 * time.Millisecond); r.fits(full, now) {
		t.Error("a token 249 ms after the burst; the interval is 250 ms")
	}
	if now += int64(time.Millisecond); !r.fits(full, now) {
		t.Error("no token 250 ms after the burst")
	}
	// Long idle: full again, no more.
	now += int64(time.Hour)
	got = 0
	for range 10 {
		if r.fits(full, now) {
			full = r.take(full, now)
			got++
		}
	}
	if got != 4 {
		t.Errorf("after an hour %d tokens at once, want 4", got)
	}
}

// TestBudgetSourcesApart: a source that has spent its budget does not spend anybody else's,
// even one whose bucket it shares (every other source still has a token in its other bucket),
// and a source that shares a bucket with it gets its own tokens; the table is the same size
// whatever the number of sources.
func TestBudgetSourcesApart(t *testing.T) {
	b := newBudgets(ServerConfig{MaxPendingHandshakes: 1 << 20, MaxHandshakesPerAddress: 2, MaxHandshakesPerPrefix: 1 << 20, ChallengeTTL: time.Hour}, []byte("secret"))
	now := time.Unix(1_000_000, 0)
	heavy := netip.MustParseAddr("192.0.2.1")
	for range 2 {
		if v := b.takeChallenge(heavy, now); v != withinBudget {
			t.Fatalf("the heavy source's own budget: %v", v)
		}
	}
	if v := b.takeChallenge(heavy, now); v != overAddress {
		t.Fatalf("a third request: %v, want over the address budget", v)
	}
	hi, hj := b.addrs.slots(heavy)
	var sharing []netip.Addr
	for i := range 1 << 16 {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 1})
		ai, aj := b.addrs.slots(a)
		if ai == hi || ai == hj || aj == hi || aj == hj {
			sharing = append(sharing, a)
		}
		if !b.addrs.fits(ai, aj, now.UnixNano()) {
			t.Fatalf("source %v (its buckets %d and %d, the heavy one's %d and %d) has no token", a, ai, aj, hi, hj)
		}
	}
	if len(sharing) == 0 {
		t.Fatal("no source shares a bucket with the heavy one: the test shows nothing")
	}
	a := sharing[0]
	for range 2 {
		if v := b.takeChallenge(a, now); v != withinBudget {
			t.Errorf("%v, which shares a bucket with the heavy source: %v", a, v)
		}
	}
	if v := b.takeChallenge(heavy, now); v != overAddress {
		t.Errorf("the heavy source after its neighbour's requests: %v", v)
	}
	t.Logf("%d of 65536 sources share a bucket with the heavy one, and all have a token", len(sharing))
	if size := reflect.TypeOf(sourceTable{}).Size(); size > 300_000 {
		t.Errorf("a source table takes %d bytes", size)
	}
}

// TestBudgetSpreadFloodLeavesHonestSources: a flood of forged sources from all over the IPv4
// space, 50,000 requests a second for 10 s (half what drains the tables: budget.go), each
// from a new address, spends no honest source's challenges: five honest clients, each in a
// /24 of its own, sending a request every 250 ms, get every one of them answered.
func TestBudgetSpreadFloodLeavesHonestSources(t *testing.T) {
	cfg := ServerConfig{}.withDefaults()
	b := newBudgets(cfg, []byte("spread flood"))
	rng := rand.New(rand.NewPCG(5, 50_000))
	const rate, runFor, every = 50_000, 10 * time.Second, 250 * time.Millisecond
	start := time.Unix(1_000_000, 0)
	refused, asked := 0, 0
	verdicts := map[budgetVerdict]int{}
	for k := range int(rate * runFor.Seconds()) {
		now := start.Add(time.Duration(k) * time.Second / rate)
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], rng.Uint32())
		verdicts[b.takeChallenge(netip.AddrFrom4(a), now)]++
		if k%int(rate*every.Seconds()) == 0 {
			for _, h := range honestElsewhere {
				asked++
				if v := b.takeChallenge(h, now); v != withinBudget {
					refused++
				}
			}
		}
	}
	t.Logf("flood: %v within budget, %v over an address's, %v over a prefix's; honest: %d of %d refused",
		verdicts[withinBudget], verdicts[overAddress], verdicts[overPrefix], refused, asked)
	if refused > 0 {
		t.Errorf("%d of %d honest requests refused during a flood from everywhere", refused, asked)
	}
}

// TestPrefixOf: the per-prefix budget groups a /24 of IPv4 and a /64 of IPv6, and IPv4-mapped
// IPv6 addresses as IPv4.
func TestPrefixOf(t *testing.T) {
	for _, c := range []struct{ a, want string }{
		{"192.0.2.77", "192.0.2.0"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::"},
		{"fe80::1%eth0", "fe80::"},
	} {
		if got := prefixOf(netip.MustParseAddr(c.a)); got.String() != c.want {
			t.Errorf("prefixOf(%s) = %v, want %s", c.a, got, c.want)
		}
	}
	b := newBudgets(ServerConfig{MaxPendingHandshakes: 100, MaxHandshakesPerAddress: 100, MaxHandshakesPerPrefix: 1, ChallengeTTL: time.Hour}, []byte("k"))
	now := time.Unix(1_000_000, 0)
	if v := b.takeChallenge(netip.MustParseAddr("::ffff:192.0.2.1"), now); v != withinBudget {
		t.Fatal(v)
	}
	if v := b.takeChallenge(netip.MustParseAddr("192.0.2.200"), now); v != overPrefix {
		t.Errorf("a mapped address and a plain one of the same /24: %v, want over the prefix budget", v)
	}
}
