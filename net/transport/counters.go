package transport

import (
	"log/slog"
	"time"
)

// Rejections counts the datagrams an endpoint dropped, one counter per reason. Every datagram
// that reaches an endpoint and is of no use to it is counted in exactly one of them, over the
// endpoint's whole life (connections that ended included). The names in the JSON tags are the
// ones Each gives.
type Rejections struct {
	// Malformed: fails the checksum of the plain frame (and belongs to no connection), or does
	// not parse, or has an unknown packet type.
	Malformed uint64 `json:"malformed"`
	// Unexpected: well formed, but nothing expects it: a connection's packet from an address
	// with no connection, a handshake answer out of turn, a client's datagram from an address
	// other than its server's.
	Unexpected uint64 `json:"unexpected"`
	// WrongKey: from a connection's address, but it fails the connection's authentication: forged
	// or altered, sealed with another key (an old connection), or a copy so old that its
	// counter no longer expands to the one it was sealed with.
	WrongKey uint64 `json:"wrong_key"`
	// Replay: a connection's datagram that authenticates, but whose counter was accepted
	// before or is older than the replay window: a copy, whether an attacker or the link's
	// duplication made it.
	Replay uint64 `json:"replay"`
	// AfterClose: a connection's packet that came after the connection ended: the other
	// copies of a Disconnect, the last packets in flight.
	AfterClose uint64 `json:"after_close"`
	// Stale and Duplicate: a connection's Data packet older than the newest one received, or
	// one received before. (On a sealed connection a copy is refused as a Replay first, so
	// Duplicate counts only what a peer sealed twice.)
	Stale     uint64 `json:"stale"`
	Duplicate uint64 `json:"duplicate"`
	// ReassemblyFull: a connection's packet whose fragments would pass the memory bound of
	// reassembly (it is sent again later).
	ReassemblyFull uint64 `json:"reassembly_full"`
	// Throttled…: handshake packets over a budget (budget.go), not answered. Address and
	// prefix: connection requests over their source's budget of challenges; global: valid
	// challenge responses over the budget of key exchanges (the client sends them again).
	// Servers only.
	ThrottledAddress uint64 `json:"throttled_address"`
	ThrottledPrefix  uint64 `json:"throttled_prefix"`
	ThrottledGlobal  uint64 `json:"throttled_global"`
	// BadChallenge: challenge responses with a forged, expired or replayed challenge, denied.
	// Servers only.
	BadChallenge uint64 `json:"bad_challenge"`
	// ServerFull and WrongVersion: handshake packets denied because no connection is free (or
	// the owner's Admit refused the player), or because they speak another protocol version.
	// Servers only.
	ServerFull   uint64 `json:"server_full"`
	WrongVersion uint64 `json:"wrong_version"`
	// Overflow and Oversize: dropped by the socket's reader, because the owner loop did not
	// keep up, or because they were longer than any valid datagram. Only on the endpoint that
	// counts its socket (Config.CountSocket, or its own socket).
	Overflow uint64 `json:"overflow"`
	Oversize uint64 `json:"oversize"`
}

// rejectionReasons are the reasons' names, in the order of Rejections' fields.
var rejectionReasons = [...]string{"malformed", "unexpected", "wrong_key", "replay", "after_close", "stale", "duplicate", "reassembly_full",
	"throttled_address", "throttled_prefix", "throttled_global", "bad_challenge", "server_full", "wrong_version",
	"overflow", "oversize"}

// counts are the counters, in the order of rejectionReasons.
func (r *Rejections) counts() [len(rejectionReasons)]*uint64 {
	return [...]*uint64{&r.Malformed, &r.Unexpected, &r.WrongKey, &r.Replay, &r.AfterClose, &r.Stale, &r.Duplicate, &r.ReassemblyFull,
		&r.ThrottledAddress, &r.ThrottledPrefix, &r.ThrottledGlobal, &r.BadChallenge, &r.ServerFull, &r.WrongVersion,
		&r.Overflow, &r.Oversize}
}

// Each calls f with every reason's name and count, in the order of the fields.
func (r Rejections) Each(f func(reason string, n uint64)) {
	for i, c := range r.counts() {
		f(rejectionReasons[i], *c)
	}
}

// Total is the number of datagrams rejected, for every reason.
func (r Rejections) Total() uint64 {
	var n uint64
	for _, c := range r.counts() {
		n += *c
	}
	return n
}

// Throttled is the number of handshake packets over any of the handshake budgets.
func (r Rejections) Throttled() uint64 {
	return r.ThrottledAddress + r.ThrottledPrefix + r.ThrottledGlobal
}

// Add adds o's counts to r.
func (r *Rejections) Add(o Rejections) {
	oc := o.counts()
	for i, c := range r.counts() {
		*c += *oc[i]
	}
}

// Minus is r less o's counts (o counted no more than r: an earlier reading of the same
// counters).
func (r Rejections) Minus(o Rejections) Rejections {
	oc := o.counts()
	for i, c := range r.counts() {
		*c -= *oc[i]
	}
	return r
}

// addPeer adds the datagrams one connection rejected.
func (r *Rejections) addPeer(p PeerTotals) {
	r.Malformed += p.Malformed
	r.WrongKey += p.Spoofed
	r.Replay += p.Replayed
	r.Stale += p.Stale
	r.Duplicate += p.Duplicate
	r.ReassemblyFull += p.FragmentsDropped
}

// PeerTotals sums the counters of connections: a server's ServerStats.Ended holds those of
// every connection that has ended, so that nothing a connection counted is lost when it ends.
type PeerTotals struct {
	Connections uint64
	// RTT and LossPercent are the sums of each connection's latest estimates: divide by
	// Connections for the average.
	RTT         time.Duration
	LossPercent float64

	PacketsSent, PacketsReceived, BytesSent, BytesReceived uint64
	Stale, Duplicate, Malformed, Spoofed, Replayed         uint64
	FragmentsDropped                                       uint64
	GuaranteedSent, GuaranteedResent, GuaranteedExecuted   uint64
	SpuriousResends, DuplicatesIgnored, DependencyBytes    uint64
}

// Add adds one connection's counters.
func (t *PeerTotals) Add(p PeerStats) {
	t.Merge(PeerTotals{Connections: 1, RTT: p.RTT, LossPercent: p.LossPercent,
		PacketsSent: p.PacketsSent, PacketsReceived: p.PacketsReceived, BytesSent: p.BytesSent, BytesReceived: p.BytesReceived,
		Stale: p.Stale, Duplicate: p.Duplicate, Malformed: p.Malformed, Spoofed: p.Spoofed, Replayed: p.Replayed, FragmentsDropped: p.Message.FragmentsDropped,
		GuaranteedSent: p.GuaranteedSent, GuaranteedResent: p.GuaranteedResent, GuaranteedExecuted: p.GuaranteedExecuted,
		SpuriousResends: p.SpuriousResends, DuplicatesIgnored: p.DuplicatesIgnored, DependencyBytes: p.DependencyBytes})
}

// Merge adds the totals o.
func (t *PeerTotals) Merge(o PeerTotals) {
	t.Connections += o.Connections
	t.RTT += o.RTT
	t.LossPercent += o.LossPercent
	t.PacketsSent += o.PacketsSent
	t.PacketsReceived += o.PacketsReceived
	t.BytesSent += o.BytesSent
	t.BytesReceived += o.BytesReceived
	t.Stale += o.Stale
	t.Duplicate += o.Duplicate
	t.Malformed += o.Malformed
	t.Spoofed += o.Spoofed
	t.Replayed += o.Replayed
	t.FragmentsDropped += o.FragmentsDropped
	t.GuaranteedSent += o.GuaranteedSent
	t.GuaranteedResent += o.GuaranteedResent
	t.GuaranteedExecuted += o.GuaranteedExecuted
	t.SpuriousResends += o.SpuriousResends
	t.DuplicatesIgnored += o.DuplicatesIgnored
	t.DependencyBytes += o.DependencyBytes
}

// rejectLogEvery is how often at most an endpoint logs the datagrams it rejected.
const rejectLogEvery = 10 * time.Second

// rejectLog writes the rejections to the log: a line with those since the last line, by
// reason, at most every rejectLogEvery, and none when there were none.
type rejectLog struct {
	at   time.Time
	last Rejections
}

func (l *rejectLog) update(logger *slog.Logger, now time.Time, r Rejections, force bool) {
	if !force && now.Sub(l.at) < rejectLogEvery {
		return
	}
	since := r.Minus(l.last)
	if n := since.Total(); n > 0 {
		args := []any{"total", n, "since", now.Sub(l.at).Round(time.Millisecond)}
		if l.at.IsZero() {
			args = args[:2]
		}
		since.Each(func(reason string, k uint64) {
			if k > 0 {
				args = append(args, reason, k)
			}
		})
		logger.Info("datagrams rejected", args...)
	}
	l.at, l.last = now, r
}
