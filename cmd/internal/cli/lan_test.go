package cli

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
)

// TestJoinAddrs: a server bound to every interface is joined at the machine's LAN addresses,
// IPv4 first and at most three, from interfaces that are up and not loopback; a server bound
// to one address is joined there.
func TestJoinAddrs(t *testing.T) {
	addrs := func(s ...string) []netip.Addr {
		var out []netip.Addr
		for _, a := range s {
			out = append(out, netip.MustParseAddr(a))
		}
		return out
	}
	laptop := []Interface{
		{Name: "lo", Up: true, Loopback: true, Addrs: addrs("127.0.0.1", "::1")},
		{Name: "wlan0", Up: true, Addrs: addrs("fe80::1c2b:3aff:fe4d:5e6f", "2001:db8::20", "192.168.1.20")},
		{Name: "docker0", Addrs: addrs("172.17.0.1")}, // down: nothing plugged in
		{Name: "eth0", Up: true, Addrs: addrs("169.254.3.4", "10.0.0.5")},
	}
	many := []Interface{{Name: "br", Up: true, Addrs: addrs("10.1.0.1", "10.1.0.1", "10.2.0.1", "10.3.0.1", "10.4.0.1")}}
	for _, c := range []struct {
		name, addr string
		ifs        []Interface
		err        error
		want       []string
	}{
		{"every interface, IPv6 socket", "[::]:7777", laptop, nil, []string{"192.168.1.20:7777", "10.0.0.5:7777", "[2001:db8::20]:7777"}},
		{"every interface, IPv4 socket", "0.0.0.0:7777", laptop, nil, []string{"192.168.1.20:7777", "10.0.0.5:7777"}},
		{"no host", ":7777", laptop, nil, []string{"192.168.1.20:7777", "10.0.0.5:7777", "[2001:db8::20]:7777"}},
		{"at most three", "[::]:9000", many, nil, []string{"10.1.0.1:9000", "10.2.0.1:9000", "10.3.0.1:9000"}},
		{"one address", "192.168.1.20:7777", laptop, nil, []string{"192.168.1.20:7777"}},
		{"loopback", "127.0.0.1:7777", laptop, nil, []string{"127.0.0.1:7777"}},
		{"no LAN", "[::]:7777", laptop[:1], nil, []string{"127.0.0.1:7777"}},
		{"interfaces fail", "[::]:7777", nil, errors.New("no netlink"), []string{"127.0.0.1:7777"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := JoinAddrs(c.addr, func() ([]Interface, error) { return c.ifs, c.err })
			if !slices.Equal(got, c.want) {
				t.Errorf("JoinAddrs(%q) = %q, want %q", c.addr, got, c.want)
			}
		})
	}
}

// TestSystemInterfaces: this machine's interfaces read without error, the loopback among them
// when it has one.
func TestSystemInterfaces(t *testing.T) {
	ifs, err := SystemInterfaces()
	if err != nil {
		t.Skipf("no interfaces here: %v", err)
	}
	for _, i := range ifs {
		t.Logf("%s up %v loopback %v %v", i.Name, i.Up, i.Loopback, i.Addrs)
	}
	t.Logf("join a server on [::]:7777 at %q", JoinAddrs("[::]:7777", SystemInterfaces))
}

// TestHostPrefixes: the server's own host is the loopback networks and every address of the
// machine's interfaces, up or not, without zones, each once; with no interfaces, the loopback
// networks; never more than maxHostPrefixes.
func TestHostPrefixes(t *testing.T) {
	prefixes := func(s ...string) []netip.Prefix {
		var out []netip.Prefix
		for _, p := range s {
			out = append(out, netip.MustParsePrefix(p))
		}
		return out
	}
	laptop := []Interface{
		{Name: "lo", Up: true, Loopback: true, Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}},
		{Name: "wlan0", Up: true, Addrs: []netip.Addr{netip.MustParseAddr("fe80::1c2b:3aff:fe4d:5e6f%wlan0"), netip.MustParseAddr("192.168.1.20"), netip.MustParseAddr("::ffff:192.168.1.20")}},
		{Name: "docker0", Addrs: []netip.Addr{netip.MustParseAddr("172.17.0.1")}},
	}
	var bridges []Interface
	for i := range 100 {
		bridges = append(bridges, Interface{Name: "br", Up: true, Addrs: []netip.Addr{netip.AddrFrom4([4]byte{10, 0, byte(i), 1})}})
	}
	for _, c := range []struct {
		name string
		ifs  []Interface
		err  error
		want []netip.Prefix
	}{
		{"a laptop", laptop, nil, prefixes("127.0.0.0/8", "::1/128", "fe80::1c2b:3aff:fe4d:5e6f/128", "192.168.1.20/32", "172.17.0.1/32")},
		{"interfaces fail", nil, errors.New("no netlink"), prefixes("127.0.0.0/8", "::1/128")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := HostPrefixes(func() ([]Interface, error) { return c.ifs, c.err }); !slices.Equal(got, c.want) {
				t.Errorf("HostPrefixes = %v, want %v", got, c.want)
			}
		})
	}
	if got := HostPrefixes(func() ([]Interface, error) { return bridges, nil }); len(got) != maxHostPrefixes {
		t.Errorf("a machine with 100 bridges: %d host prefixes, want at most %d", len(got), maxHostPrefixes)
	}
}
