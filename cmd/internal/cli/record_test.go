package cli

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
)

// TestByteSize: the sizes --record-limit takes, and how it prints them.
func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  ByteSize
		shown string
	}{
		{"1000000", 1000000, "1000000"},
		{"64MiB", 64 << 20, "64MiB"},
		{"500KB", 500000, "500000"},
		{"2GB", 2e9, "1953125KiB"},
		{"1GiB", 1 << 30, "1GiB"},
		{" 3 KiB ", 3 << 10, "3KiB"},
		{"1536KiB", 1536 << 10, "1536KiB"},
		{"12B", 12, "12"},
		{"1024GiB", 1 << 40, "1024GiB"},
	} {
		var s ByteSize
		if err := s.Set(tc.in); err != nil || s != tc.want || s.String() != tc.shown {
			t.Errorf("Set(%q) = %d (%v), shown %q; want %d, %q", tc.in, s, err, s.String(), tc.want, tc.shown)
		}
	}
	for _, bad := range []string{"", "lots", "-1", "1.5MiB", "1TB", "1025GiB", "9223372036854775807KiB", "MiB", "1 M"} {
		var s ByteSize
		if err := s.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, s)
		}
	}
}

// TestRecordFlag: --record creates the capture and its key file at Open, TapAndKeys gives the
// recorder to a transport configuration, and CloseRecord finishes the capture and says where
// it is.
func TestRecordFlag(t *testing.T) {
	c, stderr := newTest(t)
	path := filepath.Join(t.TempDir(), "game.pcapng")
	if _, ok := c.Parse([]string{"--headless", "--record", path, "--record-limit", "1MiB"}); !ok {
		t.Fatal(stderr)
	}
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, p := range []string{path, record.KeysPath(path)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("Open did not create %s: %v", p, err)
		}
	}
	var cfg transport.Config
	c.TapAndKeys(&cfg)
	if cfg.Tap == nil || cfg.KeyLog == nil {
		t.Fatal("TapAndKeys set no tap or key log")
	}
	local, peer := netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2")
	cfg.Tap.Tapped(transport.TappedDatagram{At: time.Now(), Out: true, Local: local, Peer: peer, Data: []byte("datagram")})
	cfg.KeyLog(transport.ConnKeys{Peer: peer})
	if err := c.CloseRecord(); err != nil {
		t.Fatal(err)
	}
	want := "test: recorded 1 datagrams to " + path + " (keys in " + path + ".keys)\n"
	if stderr.String() != want {
		t.Errorf("standard error %q, want %q", stderr, want)
	}
	all, err := record.ReadAll(path, 10)
	if err != nil || len(all) != 1 || string(all[0].Data) != "datagram" {
		t.Errorf("capture holds %+v (%v), want the one datagram", all, err)
	}

	var none transport.Config
	c.TapAndKeys(&none) // after CloseRecord, nothing to give
	if none.Tap != nil || none.KeyLog != nil {
		t.Error("TapAndKeys without a recorder set a tap")
	}
}
