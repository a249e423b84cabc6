package cli

import (
	"errors"
	"fmt"
	"net"
)

// ListenAddr checks the value of flag name (without its dashes), an address to listen on:
// HOST:PORT, where HOST is an IP address, a name that resolves, or empty for every interface,
// and PORT 0 asks for any free port. It returns the address resolved, which is what the socket
// is then opened on, so that the address checked is the address used.
//
// An error names the flag: the binary stops with ExitUsage, because an address that cannot be
// parsed or resolved is a mistake of the command line, found before anything ran. An address
// that resolves but cannot be bound (in use, not one of this machine's) is found only when the
// socket is opened, and is a failure of the run (ExitFailure).
func ListenAddr(name, addr string) (string, error) {
	ua, err := resolve(name, addr)
	if err != nil {
		return "", err
	}
	return ua.String(), nil
}

// ServerAddr checks the value of flag name (without its dashes), the address of a server:
// HOST:PORT, where HOST is an IP address or a name that resolves, and PORT is not 0. It returns
// the address resolved. An error names the flag, for ExitUsage, as ListenAddr's.
func ServerAddr(name, addr string) (string, error) {
	ua, err := resolve(name, addr)
	if err != nil {
		return "", err
	}
	if ua.IP == nil {
		return "", fmt.Errorf("--%s %q: no host: want HOST:PORT, e.g. 127.0.0.1:7777", name, addr)
	}
	if ua.Port == 0 {
		return "", fmt.Errorf("--%s %q: port 0: a server's port is 1 to 65535", name, addr)
	}
	return ua.String(), nil
}

func resolve(name, addr string) (*net.UDPAddr, error) {
	if addr == "" {
		return nil, fmt.Errorf("--%s is empty: want HOST:PORT, e.g. 127.0.0.1:7777", name)
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		if ae := (*net.AddrError)(nil); errors.As(err, &ae) {
			// A malformed address ("missing port in address", "invalid port"), not a failed lookup.
			return nil, fmt.Errorf("--%s %q: %w: want HOST:PORT, e.g. 127.0.0.1:7777", name, addr, err)
		}
		return nil, fmt.Errorf("--%s %q: %w", name, addr, err)
	}
	return ua, nil
}
