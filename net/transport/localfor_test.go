package transport

import (
	"net"
	"net/netip"
	"testing"
)

// TestLocalFor: a client binds the address the server will see it come from, never every
// interface when the system knows the way: the server's own loopback address for a loopback
// server, and the machine's own address for a server there.
func TestLocalFor(t *testing.T) {
	for _, tt := range []struct{ server, want string }{
		{"127.0.0.1:7777", "127.0.0.1:0"},
		{"127.0.0.2:7777", "127.0.0.2:0"},
		{"[::1]:7777", "[::1]:0"},
	} {
		if got := LocalFor(netip.MustParseAddrPort(tt.server)); got != tt.want {
			t.Errorf("LocalFor(%s) = %s, want %s", tt.server, got, tt.want)
		}
	}
	// A server on one of this machine's own interface addresses is reached from that address.
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, a := range addrs {
		ip, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		addr, ok := netip.AddrFromSlice(ip.IP)
		if !ok || addr.IsLoopback() || addr.IsLinkLocalUnicast() || !addr.Unmap().Is4() {
			continue
		}
		addr = addr.Unmap()
		tried++
		want := netip.AddrPortFrom(addr, 0).String()
		if got := LocalFor(netip.AddrPortFrom(addr, 7777)); got != want {
			t.Errorf("LocalFor(%v:7777) = %s, want %s", addr, got, want)
		}
	}
	if tried == 0 {
		t.Log("no IPv4 address on an interface other than loopback: only the loopback cases ran")
	}
}
