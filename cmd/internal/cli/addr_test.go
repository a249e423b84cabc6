package cli

import (
	"strings"
	"testing"
)

// TestAddrs: an address that parses comes back as the socket will use it; one that does not is
// an error naming the flag and the value.
func TestAddrs(t *testing.T) {
	for _, tc := range []struct {
		addr         string
		listen, dial string // what ListenAddr and ServerAddr return; "" for an error
	}{
		{addr: "127.0.0.1:7777", listen: "127.0.0.1:7777", dial: "127.0.0.1:7777"},
		{addr: "[::1]:7777", listen: "[::1]:7777", dial: "[::1]:7777"},
		{addr: "127.0.0.1:0", listen: "127.0.0.1:0"}, // any free port, but no server's
		{addr: ":7777", listen: ":7777"},             // every interface, but no server's host
		{addr: "0.0.0.0:7777", listen: "0.0.0.0:7777", dial: "0.0.0.0:7777"},
		{addr: ""},
		{addr: "127.0.0.1"},
		{addr: "127.0.0.1:99999"},
		{addr: "127.0.0.1:-1"},
		{addr: "[::1"},
		{addr: "1:2:3"},
	} {
		for _, f := range []struct {
			name string
			fn   func(string, string) (string, error)
			want string
		}{{"listen", ListenAddr, tc.listen}, {"connect", ServerAddr, tc.dial}} {
			got, err := f.fn(f.name, tc.addr)
			switch {
			case f.want != "" && (err != nil || got != f.want):
				t.Errorf("--%s %q: %q, %v, want %q", f.name, tc.addr, got, err, f.want)
			case f.want == "" && err == nil:
				t.Errorf("--%s %q: %q, want an error", f.name, tc.addr, got)
			case f.want == "" && (!strings.HasPrefix(err.Error(), "--"+f.name+" ") || !strings.Contains(err.Error(), tc.addr)):
				t.Errorf("--%s %q: error %q does not name the flag and the address", f.name, tc.addr, err)
			}
		}
	}
}
