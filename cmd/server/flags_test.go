package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
	"github.com/ackattack/ackattack/game"
)

// The README's contract: exit 2 on a bad flag. --map takes skirmish or continent; an unknown
// map is refused only by NewServer, with exit code 1.
func TestUnknownMapExit2(t *testing.T) {
	if code := run([]string{"--listen", "127.0.0.1:0", "--map", "atlantis", "--duration", "1s"}); code != 2 {
		t.Errorf("--map atlantis: exit code %d, want 2", code)
	}
}

// TestBadListenExit2: a --listen address that cannot be parsed or resolved is a mistake of the
// command line, exit code 2, with a message naming --listen and the address, before anything
// runs.
func TestBadListenExit2(t *testing.T) {
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:99999", "127.0.0.1:-1", "[::1", "127.0.0.1:7777:1", ""} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--headless", "--listen", addr, "--duration", "1s"})
		})
		if code != 2 || !strings.HasPrefix(stderr, "server: --listen ") || !strings.Contains(stderr, addr) {
			t.Errorf("--listen %q: exit code %d, want 2, and a message naming --listen and the address:\n%s", addr, code, stderr)
		}
	}
}

// TestListenInUseExit1: an address that parses but cannot be bound (here one in use) is a
// failure of the run, exit code 1, with a message naming --listen and the address.
func TestListenInUseExit1(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	addr := pc.LocalAddr().String()
	var code int
	_, stderr := capture.Output(t, func() {
		code = run([]string{"--headless", "--listen", addr, "--duration", "1s"})
	})
	if code != 1 || !strings.HasPrefix(stderr, "server: --listen "+addr+": ") {
		t.Errorf("--listen %s (in use): exit code %d, want 1, and a message naming --listen and the address:\n%s", addr, code, stderr)
	}
}

// TestMinPlayersRange: --min-players counts the humans awaited, so it is 0 up to the seats the
// bots leave free; anything else is a usage error, exit code 2, naming the flag and the range.
func TestMinPlayersRange(t *testing.T) {
	checkFlagRanges(t, []flagRange{
		{args: []string{"--min-players", "-3"}, want: "--min-players must be 0..8"},
		{args: []string{"--min-players", "9"}, want: "--min-players must be 0..8"},
		{args: []string{"--bots", "2", "--min-players", "7"}, want: "--min-players must be 0..6"},
		{args: []string{"--bots", "8", "--min-players", "1"}, want: "--min-players must be 0..0"},
		{args: []string{"--bots", "2", "--min-players", "6"}},
		{args: []string{"--min-players", "8"}},
	})
}

// flagRange is a command line, and the start of the message it must exit 2 with ("" when it
// is accepted: a short run exits 0).
type flagRange struct {
	args []string
	want string
}

func checkFlagRanges(t *testing.T, cases []flagRange) {
	t.Helper()
	for _, tc := range cases {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run(append([]string{"--headless", "--listen", "127.0.0.1:0", "--duration", "100ms", "--log-level", "warn"}, tc.args...))
		})
		switch {
		case tc.want == "" && code != 0:
			t.Errorf("%q: exit code %d, want 0:\n%s", tc.args, code, stderr)
		case tc.want != "" && (code != 2 || !strings.HasPrefix(stderr, "server: "+tc.want)):
			t.Errorf("%q: exit code %d, want 2, and %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// TestDirectFlag: --direct takes auto, on or off; anything else is a usage error, exit code 2,
// naming the flag, the value and what it takes.
func TestDirectFlag(t *testing.T) {
	for _, tc := range []struct {
		direct string
		want   string // the message; "" when accepted
	}{
		{direct: "auto"},
		{direct: "on"},
		{direct: "off"},
		{direct: "yes", want: `--direct "yes": want auto, on or off`},
		{direct: "", want: `--direct "": want auto, on or off`},
		{direct: "OFF", want: `--direct "OFF": want auto, on or off`},
	} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--headless", "--listen", "127.0.0.1:0", "--duration", "100ms", "--log-level", "warn", "--direct", tc.direct})
		})
		switch {
		case tc.want == "" && code != 0:
			t.Errorf("--direct %q: exit code %d, want 0:\n%s", tc.direct, code, stderr)
		case tc.want != "" && (code != 2 || !strings.HasPrefix(stderr, "server: "+tc.want)):
			t.Errorf("--direct %q: exit code %d, want 2, and %q:\n%s", tc.direct, code, tc.want, stderr)
		}
	}
}

// TestLeadFlag: --lead takes auto or a duration above 0 and at most game.MaxFixedLead; anything
// else is a usage error, exit code 2, naming the flag, the value and what it takes. A fixed
// lead is the game's from the start, rounded to whole frames (the --stats report has it).
func TestLeadFlag(t *testing.T) {
	for _, tc := range []struct {
		lead   string
		want   string // the message; "" when accepted
		millis int64  // the lead in the report, when accepted
	}{
		{lead: "5s", want: `--lead "5s": want auto, or a duration above 0 and at most 3s, such as 300ms`},
		{lead: "0s", want: `--lead "0s": want auto`},
		{lead: "-1s", want: `--lead "-1s": want auto`},
		{lead: "fast", want: `--lead "fast": want auto`},
		{lead: "", want: `--lead "": want auto`},
		{lead: "auto", millis: 100},
		{lead: "320ms", millis: 300},
		{lead: "3s", millis: 3000},
	} {
		stats := filepath.Join(t.TempDir(), "stats.json")
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--headless", "--listen", "127.0.0.1:0", "--duration", "100ms", "--log-level", "warn", "--stats", stats, "--lead", tc.lead})
		})
		if tc.want != "" {
			if code != 2 || !strings.HasPrefix(stderr, "server: "+tc.want) {
				t.Errorf("--lead %q: exit code %d, want 2, and %q:\n%s", tc.lead, code, tc.want, stderr)
			}
			continue
		}
		if code != 0 {
			t.Errorf("--lead %q: exit code %d, want 0:\n%s", tc.lead, code, stderr)
			continue
		}
		b, err := os.ReadFile(stats)
		if err != nil {
			t.Fatal(err)
		}
		var r game.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Game.LeadTimeMillis != tc.millis {
			t.Errorf("--lead %q: lead_time_ms %d, want %d", tc.lead, r.Game.LeadTimeMillis, tc.millis)
		}
	}
}

// TestPlaceShareFlags: --seats-per-address and --seats-per-network take 1..8 (the seats),
// --spectators-per-address and --spectators-per-network 1..256 (the spectators' places);
// anything else is a usage error, exit code 2, naming the flag and its range.
func TestPlaceShareFlags(t *testing.T) {
	checkFlagRanges(t, []flagRange{
		{args: []string{"--seats-per-address", "0"}, want: "--seats-per-address must be 1..8"},
		{args: []string{"--seats-per-address", "9"}, want: "--seats-per-address must be 1..8"},
		{args: []string{"--seats-per-network", "-1"}, want: "--seats-per-network must be 1..8"},
		{args: []string{"--spectators-per-address", "257"}, want: "--spectators-per-address must be 1..256"},
		{args: []string{"--spectators-per-network", "0"}, want: "--spectators-per-network must be 1..256"},
		{args: []string{"--seats-per-address", "8", "--seats-per-network", "1", "--spectators-per-address", "256", "--spectators-per-network", "1"}},
	})
}
