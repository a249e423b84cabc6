package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/cmd/internal/capture"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/internal/seedcorpus"
)

var (
	testPlayer = uuid.MustParse("6f1c2a4e-0b8d-4c3e-9a51-3d2f7e8c9b10")
	testSecret = game.Secret([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"))
)

// The identity files the format allows, spelled out.
var identityTests = []struct {
	name string
	id   identity
	text string
}{
	{"no secret yet", identity{Player: testPlayer},
		"ackattack identity 1\nplayer 6f1c2a4e-0b8d-4c3e-9a51-3d2f7e8c9b10\n"},
	{"with a secret", identity{Player: testPlayer, Secret: testSecret},
		"ackattack identity 1\nplayer 6f1c2a4e-0b8d-4c3e-9a51-3d2f7e8c9b10\nsecret 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n"},
}

func TestIdentityFile(t *testing.T) {
	for _, tt := range identityTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(appendIdentity(nil, tt.id)); got != tt.text {
				t.Errorf("append = %q\nwant     %q", got, tt.text)
			}
			id, err := parseIdentity([]byte(tt.text))
			if err != nil || id != tt.id {
				t.Errorf("parse = %+v, %v; want %+v", id, err, tt.id)
			}
		})
	}
}

func TestIdentityFileRejects(t *testing.T) {
	const head = "ackattack identity 1\n"
	const player = "player 6f1c2a4e-0b8d-4c3e-9a51-3d2f7e8c9b10\n"
	const secret = "secret 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n"
	for _, tt := range []struct{ name, text string }{
		{"empty", ""},
		{"header only", head},
		{"other version", "ackattack identity 2\n" + player},
		{"no final line feed", head + strings.TrimSuffix(player, "\n")},
		{"carriage returns", strings.ReplaceAll(head+player, "\n", "\r\n")},
		{"player upper case", head + strings.ToUpper(player)},
		{"player in braces", head + "player {6f1c2a4e-0b8d-4c3e-9a51-3d2f7e8c9b10}\n"},
		{"player as a urn", head + "player urn:uuid:6f1c2a4e-0b8d-4c3e-9a51-3d2f7e8c9b10\n"},
		{"nil player", head + "player 00000000-0000-0000-0000-000000000000\n"},
		{"player missing", head + secret},
		{"secret short", head + player + "secret 0001\n"},
		{"secret upper case", head + player + strings.ToUpper(secret)},
		{"secret not hex", head + player + "secret " + strings.Repeat("zz", 32) + "\n"},
		{"secret all zero", head + player + "secret " + strings.Repeat("00", 32) + "\n"},
		{"a fourth line", head + player + secret + "\n"},
		{"trailing space", head + player + strings.TrimSuffix(secret, "\n") + " \n"},
	} {
		if id, err := parseIdentity([]byte(tt.text)); !errors.Is(err, errIdentity) {
			t.Errorf("%s: parsed as %+v, %v", tt.name, id, err)
		}
	}
}

// FuzzParseIdentity: parseIdentity never panics, and what it accepts is written back byte
// for byte (one spelling per identity).
func FuzzParseIdentity(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		id, err := parseIdentity(in)
		if err != nil {
			if !errors.Is(err, errIdentity) {
				t.Fatalf("%q: error %v does not wrap errIdentity", in, err)
			}
			return
		}
		if got := appendIdentity(nil, id); !bytes.Equal(got, in) {
			t.Fatalf("%q parsed as %+v, written back as %q", in, id, got)
		}
	})
}

// TestIdentityFuzzCorpus: the seeds mean what their names say.
func TestIdentityFuzzCorpus(t *testing.T) {
	valid := 0
	for _, seed := range seedcorpus.Read(t, filepath.Join("testdata", "fuzz", "FuzzParseIdentity")) {
		_, err := parseIdentity(seed.Data)
		switch {
		case seed.Broken && err == nil:
			t.Errorf("%s parses", seed.Name)
		case !seed.Broken && err != nil:
			t.Errorf("%s: %v", seed.Name, err)
		case !seed.Broken:
			valid++
		}
	}
	if valid < 2 {
		t.Errorf("%d valid seeds, want one with a secret and one without", valid)
	}
}

// TestIdentityFlagBadPath: an --identity file that cannot be made, read or understood stops
// the client at once with exit code 2 and a message that names the flag.
func TestIdentityFlagBadPath(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.id")
	if err := os.WriteFile(corrupt, []byte("ackattack identity 1\nplayer bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{filepath.Join(dir, "no-such-dir", "ann.id"), "no such file"},
		{dir, "directory"},
		{corrupt, "not an identity file"},
	} {
		var code int
		_, stderr := capture.Output(t, func() {
			code = run([]string{"--identity", c.path, "--connect", "127.0.0.1:9", "--headless", "--quiet", "--duration", "1s"})
		})
		if code != 2 || !strings.Contains(stderr, "--identity") || !strings.Contains(stderr, c.says) {
			t.Errorf("--identity %s: exit code %d, standard error %q: want 2 and a message that says %q", c.path, code, stderr, c.says)
		}
	}
}

// TestIdentityFlagKeepsTheSeat: a client with --identity writes its player id and, once the
// server gives it, its secret into the file (mode 0600); the client started again with the
// same file within the seat hold gets its seat back, which the server counts as a reclaim.
func TestIdentityFlagKeepsTheSeat(t *testing.T) {
	t.Parallel()
	srv := startClassServer(t)
	path := filepath.Join(t.TempDir(), "ann.id")
	// annSeated reports whether the server has ann connected in a seat.
	annSeated := func() bool {
		for _, si := range srv.Snapshot().Seats {
			if si.Name == "ann" && si.Connected {
				return true
			}
		}
		return false
	}
	play := func(seated func() bool) identity {
		t.Helper()
		r := startClient(t, "--identity", path, "--name", "ann", "--connect", srv.Addr(), "--headless", "--quiet")
		var id identity
		waitUntil(t, "ann in her seat, her secret in the file", func() bool {
			b, _ := os.ReadFile(path)
			var err error
			id, err = parseIdentity(b)
			return err == nil && !id.Secret.IsZero() && seated()
		})
		if code, _, stderr := r.interrupt(); code != 0 {
			t.Fatalf("exit code %d:\n%s", code, stderr)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("the identity file has mode %v, want 0600", fi.Mode().Perm())
		}
		b, _ := os.ReadFile(path)
		if after, err := parseIdentity(b); err != nil || after != id {
			t.Fatalf("the identity file after the game: %v\n%s", err, b)
		}
		return id
	}
	first := play(annSeated)
	// The second run is seated once the server has given ann her seat back.
	second := play(func() bool { return annSeated() && srv.Snapshot().Stats.SeatsReclaimed == 1 })
	if first != second {
		t.Errorf("the identity changed across a restart: %+v then %+v", first, second)
	}
	s := srv.Snapshot().Stats
	if s.SeatsReclaimed != 1 || s.ClaimsRefused != 0 {
		t.Errorf("the server counts %d seats reclaimed and %d claims refused, want 1 and 0", s.SeatsReclaimed, s.ClaimsRefused)
	}
	var seats []string
	for _, si := range srv.Snapshot().Seats {
		seats = append(seats, si.Name)
	}
	if strings.Join(seats, ",") != "bot1,ann" {
		t.Errorf("the seats are %q, want the bot and ann once", seats)
	}
}

// TestIdentityFlagEmbeddedLeavesTheFile: an embedded game and a lesson are games of their
// own server, which hands out its own secret: with --identity they play under a fresh id and
// leave the file, the class server's secret, byte for byte as it was.
func TestIdentityFlagEmbeddedLeavesTheFile(t *testing.T) {
	t.Parallel()
	want := appendIdentity(nil, identity{Player: testPlayer, Secret: testSecret})
	for _, tc := range []struct{ name, lesson string }{{"embedded game", ""}, {"lesson", "1"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ann.id")
			if err := os.WriteFile(path, want, 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"--identity", path, "--name", "ann", "--headless"}
			if tc.lesson != "" {
				args = append(args, "--lesson", tc.lesson)
			}
			r := startClient(t, args...)
			// Playing: its server has given it a secret of its own.
			if tc.lesson != "" {
				r.wait("the lesson's first step", func(out string) bool { return strings.Contains(out, "lesson 1, step 1 of ") })
			} else {
				r.waitFrame(1, "RUNNING")
			}
			if code, _, stderr := r.interrupt(); code != 0 {
				t.Fatalf("exit code %d:\n%s", code, stderr)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
				t.Errorf("the identity file after the game:\n%s\nwant it unchanged:\n%s", got, want)
			}
		})
	}
}
