package game

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/wire"
)

// holdersAt are n places held from the addresses addr(i), the later ones taken later.
func holdersAt(n int, t0 time.Time, addr func(i int) netip.Addr) []placeHolder {
	hs := make([]placeHolder, n)
	for i := range hs {
		hs[i] = placeHolder{addr: addr(i), since: t0.Add(time.Duration(i) * time.Second)}
	}
	return hs
}

// TestPlaceToTakeBack: a newcomer that finds no place free takes back the newest place of the
// address or network furthest beyond its share, never the server's own host's; one whose own
// address or network holds its share takes none, and hears why; and with nobody beyond a share,
// nothing is lent to take back. Each text fits a Disconnect.
func TestPlaceToTakeBack(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	one := netip.MustParseAddr("198.51.100.7")
	other := netip.MustParseAddr("203.0.113.9")
	host := netip.MustParseAddr("127.0.0.1")
	isHost := func(a netip.Addr) bool { return a == host }
	onNet := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{198, 51, 100, byte(1 + i%250)}) }
	at := func(a netip.Addr) func(int) netip.Addr { return func(int) netip.Addr { return a } }
	for _, tt := range []struct {
		name            string
		hs              []placeHolder
		kind            placeKind
		perAddr, perNet int
		from            netip.Addr
		wantOK          bool
		wantSince       int // of the place taken back: the index of hs
		wantWhy         string
	}{
		{"one address holds 40 spectators' places, one from elsewhere comes", holdersAt(40, t0, at(one)), placeSpectator, 32, 128, other,
			true, 39, "your place went to a newcomer: your address holds 40 spectators and keeps 32 while others wait"},
		{"one more from that address", holdersAt(40, t0, at(one)), placeSpectator, 32, 128, one,
			false, 0, "40 are your address's, which keeps 32"},
		{"one network holds 256 places from 250 addresses, one from elsewhere comes", holdersAt(256, t0, onNet), placeSpectator, 32, 128, other,
			true, 255, "your place went to a newcomer: your network holds 256 spectators and keeps 128 while others wait"},
		{"one more from that network", holdersAt(256, t0, onNet), placeSpectator, 32, 128, netip.MustParseAddr("198.51.100.251"),
			false, 0, "256 are your network's, which keeps 128"},
		{"the host holds 40: nothing of it is lent", holdersAt(40, t0, at(host)), placeSpectator, 32, 128, other,
			false, 0, ""},
		{"everybody within the shares: nothing is lent", holdersAt(100, t0, onNet), placeSpectator, 32, 128, other,
			false, 0, ""},
		{"two addresses beyond: the further one gives", append(holdersAt(36, t0, at(one)), holdersAt(34, t0.Add(time.Hour), at(other))...), placeSpectator, 32, 128, host,
			true, 35, "your place went to a newcomer: your address holds 36 spectators and keeps 32 while others wait"},
		{"one address holds 6 of the seats", holdersAt(6, t0, at(one)), placeSeat, 2, 8, other,
			true, 5, "your place went to a newcomer: your address holds 6 seats and keeps 2 while others wait"},
		{"a seat for that address again", holdersAt(6, t0, at(one)), placeSeat, 2, 8, one,
			false, 0, "6 are your address's, which keeps 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, ok, why := lentPlace(tt.hs, tt.from, tt.kind, tt.perAddr, tt.perNet, isHost)
			if ok != tt.wantOK || why != tt.wantWhy {
				t.Errorf("ok %v, why %q; want %v, %q", ok, why, tt.wantOK, tt.wantWhy)
			}
			if ok && h != tt.hs[tt.wantSince] {
				t.Errorf("took back %v's place of %v, want %v's of %v", h.addr, h.since, tt.hs[tt.wantSince].addr, tt.hs[tt.wantSince].since)
			}
			if len(why) > wire.MaxReasonText {
				t.Errorf("%d bytes: a Disconnect carries %d", len(why), wire.MaxReasonText)
			}
		})
	}
	// The longest refusal a spectator reads fits a Disconnect too.
	full := fmt.Sprintf("the game is full: 8 players and %d spectators; %d are your network's, which keeps %d", MaxSpectators, MaxSpectators, MaxSpectators)
	if len(full) > wire.MaxReasonText || !strings.HasPrefix(full, "the game is full") {
		t.Errorf("%q: %d bytes, a Disconnect carries %d", full, len(full), wire.MaxReasonText)
	}
}
