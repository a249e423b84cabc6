package transport

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"net/netip"
	"time"
)

// The handshake budgets. A challenge costs the server an HMAC and a 29-byte datagram to an
// address nobody has verified, so the server hands out only so many: at most
// MaxPendingHandshakes per ChallengeTTL in all, MaxHandshakesPerPrefix to one prefix (a /24 of
// IPv4, a /64 of IPv6: what one home, one LAN or one customer of a provider holds) and
// MaxHandshakesPerAddress to one address. A request must fit all three; one that does not
// gets no answer and is counted under the first budget it failed. So a flood from one address
// spends at most its own budget of the total, a flood from one prefix at most the prefix's, and
// the rest stays for everybody else. A flood from forged addresses all over the Internet is
// held by the total alone: it still cannot make the server send more than the total budget.

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

// sourceSlots is the size of each table of per-source buckets: a power of two.
const sourceSlots = 1024

// sourceTable holds the per-source buckets: a fixed array indexed by a keyed hash of the
// source, so it never grows, never evicts, and costs 8 KiB whatever the traffic. Each source
// has two buckets (two hashes, as a count-min sketch has): a request fits if either of them
// has a token, and takes one from both. A heavy source drains both of its buckets, and an
// honest source that shares one of them with it still gets its tokens from the other; an
// honest source is only shut out if both of its buckets are a heavy source's, which the keyed
// hash keeps an attacker from arranging. A flood of forged sources evicts nothing (there is
// nothing to evict): it spreads over every bucket, and only the requests that pass every
// budget take tokens at all.
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
	t.full[i] = t.rate.take(t.full[i], now)
	t.full[j] = t.rate.take(t.full[j], now)
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

// budgets are the server's three handshake budgets.
type budgets struct {
	global   rate
	full     int64 // the global bucket
	addrs    *sourceTable
	prefixes *sourceTable
}

// newBudgets keys the tables with values derived from the server's secret (one-way, so that
// learning a table's key would tell nothing about the challenges').
func newBudgets(cfg ServerConfig, secret []byte) budgets {
	key := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	return budgets{
		global:   newRate(cfg.MaxPendingHandshakes, cfg.ChallengeTTL),
		addrs:    newSourceTable(key("handshake budget per address"), newRate(cfg.MaxHandshakesPerAddress, cfg.ChallengeTTL)),
		prefixes: newSourceTable(key("handshake budget per prefix"), newRate(cfg.MaxHandshakesPerPrefix, cfg.ChallengeTTL)),
	}
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
	overGlobal
)

// take takes a token from every budget of a request from addr, if each of them has one, and
// says which budget, if any, refused it. A refused request takes nothing.
func (b *budgets) take(addr netip.Addr, now time.Time) budgetVerdict {
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
	if !b.global.fits(b.full, t) {
		return overGlobal
	}
	b.addrs.take(ai, aj, t)
	b.prefixes.take(pi, pj, t)
	b.full = b.global.take(b.full, t)
	return withinBudget
}
