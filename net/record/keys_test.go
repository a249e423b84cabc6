package record

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/internal/seedcorpus"
)

// exampleKeys are the keys of net/PROTOCOL.md section 9, on the addresses of a loopback game.
var exampleKeys = []Key{
	{At: time.Unix(0, 1700000000000000000), From: netip.MustParseAddrPort("127.0.0.1:50432"), To: netip.MustParseAddrPort("127.0.0.1:7777"),
		Key: mustKey("ec34ff33f467e85cd7a703c5f246a640090ff2c3087283a52e77ed70d2af4e2d")},
	{At: time.Unix(0, 1700000000000000000), From: netip.MustParseAddrPort("127.0.0.1:7777"), To: netip.MustParseAddrPort("127.0.0.1:50432"),
		Key: mustKey("811632324e87fbabc68fd6ac7e0f6e9051304502b08cabcc535c6456902a3ec8")},
}

const exampleKeyLines = `ACKATTACK_KEY 1700000000000000000 127.0.0.1:50432 127.0.0.1:7777 ec34ff33f467e85cd7a703c5f246a640090ff2c3087283a52e77ed70d2af4e2d
ACKATTACK_KEY 1700000000000000000 127.0.0.1:7777 127.0.0.1:50432 811632324e87fbabc68fd6ac7e0f6e9051304502b08cabcc535c6456902a3ec8
`

func mustKey(s string) (k [32]byte) {
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		panic(err)
	}
	return k
}

// TestKeyLines: the lines of a key file, written and read back.
func TestKeyLines(t *testing.T) {
	var b []byte
	for _, k := range exampleKeys {
		b = appendKeyLine(b, k)
	}
	if string(b) != exampleKeyLines {
		t.Errorf("key lines:\n%s\nwant\n%s", b, exampleKeyLines)
	}
	got, err := ParseKeys(strings.NewReader(keyFileHeader + "\n" + exampleKeyLines))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(exampleKeys) {
		t.Fatalf("%d keys, want %d", len(got), len(exampleKeys))
	}
	for i := range got {
		if !got[i].At.Equal(exampleKeys[i].At) || got[i].From != exampleKeys[i].From || got[i].To != exampleKeys[i].To || got[i].Key != exampleKeys[i].Key {
			t.Errorf("key %d = %+v, want %+v", i, got[i], exampleKeys[i])
		}
	}
	v6 := Key{At: time.Unix(0, 5), From: netip.MustParseAddrPort("[::1]:7777"), To: netip.MustParseAddrPort("[2001:db8::1]:1")}
	if line := string(appendKeyLine(nil, v6)); line != "ACKATTACK_KEY 5 [::1]:7777 [2001:db8::1]:1 "+strings.Repeat("00", 32)+"\n" {
		t.Errorf("IPv6 key line %q", line)
	}
}

// TestParseKeysRejects: a line that breaks the format is refused with its number.
func TestParseKeysRejects(t *testing.T) {
	key := strings.Repeat("ab", 32)
	tests := []struct {
		name, file, says string
	}{
		{"another label", "CLIENT_RANDOM 1 127.0.0.1:1 127.0.0.1:2 " + key, "line 1"},
		{"four fields", "ACKATTACK_KEY 1 127.0.0.1:1 " + key, "got 4 fields"},
		{"time not a number", "ACKATTACK_KEY soon 127.0.0.1:1 127.0.0.1:2 " + key, "time"},
		{"address without port", "# c\nACKATTACK_KEY 1 127.0.0.1 127.0.0.1:2 " + key, "line 2: from"},
		{"bad destination", "ACKATTACK_KEY 1 127.0.0.1:1 host:2 " + key, "to"},
		{"short key", "ACKATTACK_KEY 1 127.0.0.1:1 127.0.0.1:2 abcd", "4 hex digits"},
		{"key not hex", "ACKATTACK_KEY 1 127.0.0.1:1 127.0.0.1:2 " + strings.Repeat("zz", 32), "key"},
		{"line too long", strings.Repeat("#", 600), "longer than 512"},
	}
	for _, tt := range tests {
		_, err := ParseKeys(strings.NewReader(tt.file))
		if !errors.Is(err, ErrKeyFile) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: ParseKeys = %v, want ErrKeyFile saying %q", tt.name, err, tt.says)
		}
	}
}

// FuzzParseKeys: ParseKeys never panics, and the keys it reads write back as lines that read
// as the same keys.
// Its seeds are in testdata/fuzz/FuzzParseKeys (TestFuzzCorpora).
func FuzzParseKeys(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, err := ParseKeys(bytes.NewReader(b))
		if err != nil {
			return
		}
		var again []byte
		for _, k := range keys {
			again = appendKeyLine(again, k)
		}
		back, err := ParseKeys(bytes.NewReader(again))
		if err != nil || len(back) != len(keys) {
			t.Fatalf("written again: %q: %v", again, err)
		}
		for i := range back {
			if !back[i].At.Equal(keys[i].At) || back[i].From != keys[i].From || back[i].To != keys[i].To || back[i].Key != keys[i].Key {
				t.Fatalf("key %d read back as %+v, was %+v", i, back[i], keys[i])
			}
		}
	})
}

// TestFuzzCorpora: the seeds of the fuzz targets mean what their names say.
func TestFuzzCorpora(t *testing.T) {
	parsers := map[string]func([]byte) error{
		"FuzzParseFrame": func(b []byte) error { _, _, _, err := parseFrame(b); return err },
		"FuzzParseKeys":  func(b []byte) error { _, err := ParseKeys(bytes.NewReader(b)); return err },
	}
	for target, parse := range parsers {
		valid := 0
		for _, seed := range seedcorpus.Read(t, filepath.Join("testdata", "fuzz", target)) {
			err := parse(seed.Data)
			switch {
			case seed.Broken && err == nil:
				t.Errorf("%s/%s parses", target, seed.Name)
			case !seed.Broken && err != nil:
				t.Errorf("%s/%s: %v", target, seed.Name, err)
			case !seed.Broken:
				valid++
			}
		}
		if valid < 2 {
			t.Errorf("%s: %d valid seeds, want at least 2", target, valid)
		}
	}
}
