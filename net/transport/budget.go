package transport

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"net/netip"
	"time"
)

// The handshake budgets. The handshake has a cheap step and an expensive one, and each has the
// budget that fits it.
//
// The cheap step, a challenge, costs the server an HMAC and a 29-byte datagram to an address
// nobody has verified, 41 times smaller than the 1,200-byte request it answers, and no state
// at all. It is rationed per source only: at most MaxHandshakesPerAddress per ChallengeTTL to
// one address and MaxHandshakesPerPrefix to one prefix (a /24 of IPv4, a /64 of IPv6: what one
// home, one LAN or one customer of a provider holds). A request must fit both; one that does
// not gets no answer and is counted under the first budget it failed. So a flood from one
// address or one prefix costs the server at most that source's budget of HMACs and datagrams.
// There is no budget of challenges in all: a flood of forged sources from everywhere would
// spend it, and every honest request would have to win its token against the flood's (a
// global budget of 64 per 5 s refills 13 tokens a second, and a flood of 1,000 requests a
// second from 512 /24s took nearly all of them). A challenge that nobody returns costs
// nothing more.
//
// The expensive step, a key exchange (an X25519 key pair and its shared secret) and a
// connection's state, happens only for a response that returned a valid, fresh challenge, so
// only for an address that receives what the server sends it. That step has the global
// budget: at most MaxPendingHandshakes per ChallengeTTL in all. A valid response over it gets
// no answer (counted as throttled_global); the client sends it again, and its challenge stays
// valid for ChallengeTTL. A flood of forged requests never gets here, and one source gets here
// at most as often as it got challenges, so only a flood from many sources that really
// receive (many machines, in many networks) competes with honest clients for this budget.

// Prefix lengths of the per-prefix budget.
const (
	prefixBits4 = 24
	prefixBits6 = 64
)

// rate is a token bucket of burst tokens that refills one token per interval, kept as one
// number per bucket: the time at which the bucket will be full again (the "theoretical arrival
// time" of the generic cell rate algorithm, as ATM switches police a cell rate). A bucket whose
// time is in the past is full; the zero value is a full bucket. A request fits while the
// bucket's time is at most (burst−1)·interval ahead of now, and taking a token moves the time
// one interval on. One int64 per bucket, nothing to refill on a timer.
type rate struct {
	interval  int64 // nanoseconds per token
	tolerance int64 // (burst−1)·interval
}

// newRate is a budget of n tokens per period (n ≥ 1).
func newRate(n int, period time.Duration) rate {
	iv := max(int64(period)/int64(n), 1)
	return rate{interval: iv, tolerance: iv * int64(n-1)}
}

func (r rate) fits(full, now int64) bool { return full-now <= r.tolerance }

func (r rate) take(full, now int64) int64 { return max(full, now) + r.interval }

// sourceSlots is the size of each table of per-source buckets: a power of two. A flood of
// forged sources from everywhere takes about one token per request from the table, spread
// over every bucket (conservative update, below), so it drains every bucket, and shuts out
// every honest source as a global budget would, only once it brings more than
// sourceSlots · (budget / ChallengeTTL) requests a second: 32,768 × 16 / 5 s, about 105,000
// requests a second (1 Gbit/s of 1,200-byte requests) for the transport's per-address
// budget, twice that for the per-prefix one. (With the 1,024 buckets it had while a global
// budget rationed the challenges first, and a token taken from both buckets, a flood from
// everywhere of 1,500 requests a second refused one honest request in five.)
const sourceSlots = 32768

// sourceTable holds the per-source buckets: a fixed array indexed by a keyed hash of the
// source, so it never grows, never evicts, and costs 256 KiB whatever the traffic. Each
// source has two buckets (two hashes, as a count-min sketch has): a request fits if either
// of them has a token, and takes its token with a conservative update: the emptier bucket
// moves one interval on, and the other only as far as that, if it was behind. A heavy source
// drains both of its buckets, and an honest source that shares one of them with it still gets
// its tokens from the other; an honest source is only shut out if both of its buckets are a
// heavy source's, which the keyed hash keeps an attacker from arranging. A flood of forged
// sources evicts nothing (there is nothing to evict): it spreads over every bucket, and the
// conservative update keeps it from charging each request twice.
type sourceTable struct {
	k0, k1 uint64
	rate   rate
	full   [sourceSlots]int64
}

// newSourceTable makes a table whose hash is keyed by key (secret: an attacker who knew it
// could aim its sources at an honest client's buckets).
func newSourceTable(key []byte, r rate) *sourceTable {
	return &sourceTable{k0: binary.LittleEndian.Uint64(key[:8]), k1: binary.LittleEndian.Uint64(key[8:16]), rate: r}
}

// slots are the two buckets of a source (an address, or a prefix's first address).
func (t *sourceTable) slots(a netip.Addr) (int, int) {
	b := a.As16()
	h := mix64(mix64(binary.LittleEndian.Uint64(b[:8])^t.k0) ^ binary.LittleEndian.Uint64(b[8:]) ^ t.k1)
	i, j := int(h%sourceSlots), int((h>>32)%sourceSlots)
	if i == j {
		j = (j + 1) % sourceSlots
	}
	return i, j
}

func (t *sourceTable) fits(i, j int, now int64) bool {
	return t.rate.fits(t.full[i], now) || t.rate.fits(t.full[j], now)
}

func (t *sourceTable) take(i, j int, now int64) {
	m := t.rate.take(min(t.full[i], t.full[j]), now)
	t.full[i] = max(t.full[i], m)
	t.full[j] = max(t.full[j], m)
}

// mix64 is SplitMix64's finaliser: every input bit reaches every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// budgets are the server's handshake budgets: the challenges' per address and per prefix, and
// the key exchanges' in all.
type budgets struct {
	exchanges rate
	full      int64 // the bucket of key exchanges
	addrs     *sourceTable
	prefixes  *sourceTable
}

// newBudgets keys the tables with values derived from the server's secret (one-way, so that
// learning a table's key would tell nothing about the challenges').
func newBudgets(cfg ServerConfig, secret []byte) budgets {
	return budgets{
		exchanges: newRate(cfg.MaxPendingHandshakes, cfg.ChallengeTTL),
		addrs:     newSourceTable(deriveKey(secret, "handshake budget per address"), newRate(cfg.MaxHandshakesPerAddress, cfg.ChallengeTTL)),
		prefixes:  newSourceTable(deriveKey(secret, "handshake budget per prefix"), newRate(cfg.MaxHandshakesPerPrefix, cfg.ChallengeTTL)),
	}
}

// deriveKey is a 32-byte key for one use (label) derived from the server's secret:
// HMAC-SHA256(secret, label), one-way, so that whoever learns one key learns nothing of the
// secret or of the other keys.
func deriveKey(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// prefixOf is the first address of a's prefix of the per-prefix budget.
func prefixOf(a netip.Addr) netip.Addr { return Network(a).Addr() }

// Network is the network a belongs to as the per-prefix budget counts it: its /24 (IPv4, an
// IPv4-mapped IPv6 address included) or its /64 (IPv6), what one home, one LAN or one customer
// of a provider holds; an IPv6 zone does not count. The game shares its places by the same
// networks.
func Network(a netip.Addr) netip.Prefix {
	a = a.Unmap().WithZone("")
	bits := prefixBits6
	if a.Is4() {
		bits = prefixBits4
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return netip.PrefixFrom(a, a.BitLen()) // the invalid address: a network of its own
	}
	return p
}

// budgetVerdict is what the budgets say about a request.
type budgetVerdict uint8

const (
	withinBudget budgetVerdict = iota
	overAddress
	overPrefix
)

// takeChallenge takes a token from both budgets of a challenge to addr, if each of them has
// one, and says which budget, if any, refused it. A refused request takes nothing.
func (b *budgets) takeChallenge(addr netip.Addr, now time.Time) budgetVerdict {
	t := now.UnixNano()
	addr = addr.Unmap()
	ai, aj := b.addrs.slots(addr)
	if !b.addrs.fits(ai, aj, t) {
		return overAddress
	}
	pi, pj := b.prefixes.slots(prefixOf(addr))
	if !b.prefixes.fits(pi, pj, t) {
		return overPrefix
	}
	b.addrs.take(ai, aj, t)
	b.prefixes.take(pi, pj, t)
	return withinBudget
}

// takeExchange takes a token from the budget of key exchanges, if it has one.
func (b *budgets) takeExchange(now time.Time) bool {
	t := now.UnixNano()
	if !b.exchanges.fits(b.full, t) {
		return false
	}
	b.full = b.exchanges.take(b.full, t)
	return true
}
