package transport

import (
	"net"
	"net/netip"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// A tap shows a socket's traffic to a recorder (net/record writes it as a capture file): every
// datagram the host sends, every one that reaches the host, and every one the link conditioner
// under the socket dropped on the way, which neither the host nor its peer ever sees.
//
// Where each is seen:
//
//	outgoing, no conditioner     WriteTo, as the datagram goes to the network
//	outgoing, with conditioner   as the conditioner decides its fate: passed, dropped, or
//	                             duplicated (the peer gets it twice)
//	incoming, passed             the socket's reader, as it hands the datagram to the host
//	                             (after the conditioner's delay); a copy the conditioner
//	                             duplicated is seen twice, as the host gets it twice
//	incoming, dropped            as the conditioner drops it, when it was read
//	incoming, overflow           the socket's reader, when the host's queue was full
//
// The tap runs on the socket's goroutines (the owner loop's WriteTo, the reader, the
// conditioner's reader, with the conditioner's lock held), so it must be quick and never block:
// a recorder copies the datagram and hands it to a goroutine of its own.

// Tap is shown every datagram of a socket. Tapped must be safe to call from several goroutines
// at once, must not block, and must not keep d.Data after it returns.
type Tap interface {
	Tapped(d TappedDatagram)
}

// TapFate is what became of a tapped datagram.
type TapFate uint8

const (
	// TapPassed: an outgoing datagram went to the network; an incoming one reached the host.
	TapPassed TapFate = iota
	// TapDropped: the link conditioner dropped it, so it never left (outgoing) or never
	// reached the host (incoming).
	TapDropped
	// TapDuplicated: an outgoing datagram that the link conditioner sends twice.
	TapDuplicated
	// TapOverflow: an incoming datagram that the socket's reader dropped because the host's
	// queue was full (counted in SocketStats.Overflow).
	TapOverflow
)

func (f TapFate) String() string {
	switch f {
	case TapPassed:
		return "passed"
	case TapDropped:
		return "dropped"
	case TapDuplicated:
		return "duplicated"
	case TapOverflow:
		return "overflow"
	}
	return "TapFate(?)"
}

// TappedDatagram is one datagram as a Tap sees it.
type TappedDatagram struct {
	At    time.Time      // when it was sent, handed to the host, or dropped
	Out   bool           // sent by this host; false: sent to it
	Fate  TapFate        // what became of it
	Local netip.AddrPort // the socket's address, as it was bound (maybe unspecified, 0.0.0.0)
	Peer  netip.AddrPort // where it went, or where it came from
	Data  []byte         // the datagram as it travels (sealed or in the plain frame); valid only during the call
}

// SocketOptions are what a Socket puts between a net.PacketConn and its host.
type SocketOptions struct {
	Link *LinkSettings // a link conditioner with these settings; nil: none
	Seed uint64        // the conditioner's seed (0: 1)
	Tap  Tap           // shown every datagram; nil: none
}

// SocketOptions are the options of the socket that Listen or Dial open with c.
func (c Config) SocketOptions() SocketOptions {
	return SocketOptions{Link: c.Link, Seed: c.LinkSeed, Tap: c.Tap}
}

// observe is the conditioner's observer when the socket has a tap: it shows the tap every
// outgoing datagram with its fate, and the incoming ones the conditioner dropped (those that
// pass are shown by the reader, when the host gets them).
func (s *Socket) observe(o linksim.Observation) {
	if !o.Outgoing && o.Fate != linksim.Dropped {
		return
	}
	fate := TapPassed
	switch o.Fate {
	case linksim.Dropped:
		fate = TapDropped
	case linksim.Duplicated:
		fate = TapDuplicated
	}
	s.tap.Tapped(TappedDatagram{At: o.At, Out: o.Outgoing, Fate: fate, Local: s.local, Peer: unmapped(o.Addr), Data: o.Data})
}

// addrPortOf is a UDP address as an AddrPort, IPv4-mapped addresses unmapped (the zero value
// for anything else).
func addrPortOf(a net.Addr) netip.AddrPort {
	ua, ok := a.(*net.UDPAddr)
	if !ok {
		return netip.AddrPort{}
	}
	return unmapped(ua.AddrPort())
}

// unmapped is ap with an IPv4-mapped address unmapped: the form a host keys its peers by.
func unmapped(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}
