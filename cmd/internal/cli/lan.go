package cli

import (
	"net"
	"net/netip"
	"slices"
)

// A server bound to every interface (--listen 0.0.0.0:7777, or [::]) is reached at none of
// those addresses: the students need the machine's own address on the LAN. JoinAddrs finds
// it from the interfaces, which come from a function (SystemInterfaces, or a test's), so that
// what the screens and the log say can be tested on any machine.

// maxJoinAddrs bounds the addresses a join hint lists: a laptop has one or two that matter,
// and a machine with many bridges must not fill the teacher's line.
const maxJoinAddrs = 3

// Interface is a network interface as JoinAddrs reads it.
type Interface struct {
	Name     string
	Up       bool // up and running (a bridge with nothing plugged in is not)
	Loopback bool
	Addrs    []netip.Addr
}

// Interfaces lists the machine's network interfaces.
type Interfaces func() ([]Interface, error)

// SystemInterfaces are this machine's interfaces (net.Interfaces), with their addresses.
func SystemInterfaces() ([]Interface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]Interface, 0, len(ifs))
	for _, ifc := range ifs {
		i := Interface{Name: ifc.Name, Up: ifc.Flags&net.FlagUp != 0 && ifc.Flags&net.FlagRunning != 0,
			Loopback: ifc.Flags&net.FlagLoopback != 0}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue // an interface that says nothing of its addresses has none to offer
		}
		for _, a := range addrs {
			if p, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(p.IP); ok {
					i.Addrs = append(i.Addrs, ip.Unmap())
				}
			}
		}
		out = append(out, i)
	}
	return out, nil
}

// JoinAddrs are the addresses players give --connect to reach a server bound to addr (what
// its socket says: "[::]:7777", "127.0.0.1:7777"). An address of one interface is that
// address. An unspecified one (0.0.0.0, [::], or no host) is the machine's addresses on its
// LAN, with addr's port: of the interfaces that are up, not loopback, neither link-local nor
// loopback addresses, IPv4 first (an IPv4 socket takes no IPv6), at most maxJoinAddrs. With
// none (no network, or interfaces fails), the loopback address: only players on this machine
// can join.
func JoinAddrs(addr string, interfaces Interfaces) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return []string{addr}
	}
	ip, err := netip.ParseAddr(host)
	if host != "" && (err != nil || !ip.IsUnspecified()) {
		return []string{addr}
	}
	v4only := ip.Is4()
	var v4, v6 []string
	ifs, err := interfaces()
	if err != nil {
		ifs = nil
	}
	for _, ifc := range ifs {
		if !ifc.Up || ifc.Loopback {
			continue
		}
		for _, a := range ifc.Addrs {
			hp := net.JoinHostPort(a.WithZone("").String(), port)
			switch {
			case !a.IsValid() || a.IsLoopback() || a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsMulticast():
			case slices.Contains(v4, hp) || slices.Contains(v6, hp): // on two interfaces
			case a.Is4():
				v4 = append(v4, hp)
			case !v4only:
				v6 = append(v6, hp)
			}
		}
	}
	out := append(v4, v6...)
	if len(out) == 0 {
		return []string{net.JoinHostPort("127.0.0.1", port)}
	}
	return out[:min(len(out), maxJoinAddrs)]
}

// maxHostPrefixes bounds HostPrefixes: a machine with many bridges lists that many of its
// addresses, and the loopback networks, where the projector connects, come first.
const maxHostPrefixes = 64

// loopbackNets are the networks whose every address is this machine's.
var loopbackNets = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// HostPrefixes are the server's own host's addresses, for game.Places.Host: the
// loopback networks (127.0.0.0/8, ::1) and each address of the machine's interfaces, up or
// not, without its zone. A connection from one of them comes from this machine (the
// projector's, with --connect 127.0.0.1:7777 or the machine's LAN address). With no
// interfaces (interfaces fails), the loopback networks alone; at most maxHostPrefixes in all.
func HostPrefixes(interfaces Interfaces) []netip.Prefix {
	out := slices.Clone(loopbackNets)
	ifs, err := interfaces()
	if err != nil {
		return out
	}
	for _, ifc := range ifs {
		for _, a := range ifc.Addrs {
			a = a.Unmap().WithZone("")
			if !a.IsValid() || a.IsUnspecified() || slices.ContainsFunc(out, func(p netip.Prefix) bool { return p.Contains(a) }) {
				continue
			}
			if len(out) == maxHostPrefixes {
				return out
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}
