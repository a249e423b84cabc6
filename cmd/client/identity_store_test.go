package main

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// useConfigDir points the user's configuration directory (os.UserConfigDir) at a new
// directory for the rest of the test, and returns where the identities go in it.
func useConfigDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir) // Linux and the other Unix systems
	t.Setenv("HOME", dir)            // macOS
	t.Setenv("AppData", dir)         // Windows
	base, err := os.UserConfigDir()
	if err != nil || !strings.HasPrefix(base, dir) {
		t.Skipf("the configuration directory is %q (%v), not one a test can set", base, err)
	}
	return filepath.Join(base, "ackattack", "identities")
}

// keptFiles lists the identity files in dir.
func keptFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if isKeptIdentity(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestKeptIdentityKey: one identity per server and name, the name compared as the server
// compares names.
func TestKeptIdentityKey(t *testing.T) {
	st := identityStore{dir: t.TempDir()}
	const server = "192.168.1.20:7777"
	for _, tc := range []struct {
		server, name string
		same         bool
	}{
		{server, "ann", true},
		{server, "ANN", true},
		{server, "ａｎｎ", true}, // fullwidth: the server's folding takes it for ann
		{server, "bob", false},
		{"192.168.1.20:7778", "ann", false},
		{"192.168.1.21:7777", "ann", false},
	} {
		if same := st.path(tc.server, tc.name) == st.path(server, "ann"); same != tc.same {
			t.Errorf("%s as %q: the same file as %s as ann: %v, want %v", tc.server, tc.name, server, same, tc.same)
		}
		if name := filepath.Base(st.path(tc.server, tc.name)); !isKeptIdentity(name) {
			t.Errorf("%s as %q: file %s, which the store does not count as its own", tc.server, tc.name, name)
		}
	}
}

// TestKeptIdentity: the first join keeps a new identity (the directory 0700, the file 0600),
// the next join finds it, --new-identity replaces it, an unreadable one is replaced with a
// note, and the secret a server gives is kept with it.
func TestKeptIdentity(t *testing.T) {
	dir := useConfigDir(t)
	const server = "10.0.0.1:7777"
	first, keep, note := keptIdentity(server, "ann", false)
	if keep == nil || note != "" {
		t.Fatalf("first join: keep %v, note %q", keep != nil, note)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, identityStore{dir}.path(server, "ann"): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	first.Secret = testSecret
	if err := keep(first); err != nil {
		t.Fatal(err)
	}
	again, _, note := keptIdentity(server, "ann", false)
	if again != first || note != "" {
		t.Errorf("the next join: %+v, note %q; want %+v, the one kept", again, note, first)
	}
	fresh, _, note := keptIdentity(server, "ann", true)
	if fresh.Player == first.Player || !fresh.Secret.IsZero() || note != "" {
		t.Errorf("--new-identity: %+v, note %q; want a new player without a secret", fresh, note)
	}
	if after, _, _ := keptIdentity(server, "ann", false); after != fresh {
		t.Errorf("after --new-identity the store keeps %+v, want the new %+v", after, fresh)
	}
	if err := os.WriteFile(identityStore{dir}.path(server, "ann"), []byte("not an identity\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mended, keep, note := keptIdentity(server, "ann", false)
	if mended.Player == fresh.Player || keep == nil || !strings.Contains(note, "cannot be read") {
		t.Errorf("an unreadable identity: %+v, keep %v, note %q; want a new player, kept, and a note", mended, keep != nil, note)
	}
	if n := len(keptFiles(t, dir)); n != 1 {
		t.Errorf("%d identities kept, want 1 (one server, one name)", n)
	}
}

// TestKeptIdentityNowhere: when the configuration directory cannot be found or written, the
// player joins with a new identity kept nowhere, and a note says why.
func TestKeptIdentityNowhere(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config string
	}{
		{"a relative path", "relative/config"},
		{"a file", file},
	} {
		t.Run(tc.name, func(t *testing.T) {
			useConfigDir(t)
			t.Setenv("XDG_CONFIG_HOME", tc.config)
			t.Setenv("HOME", tc.config)
			t.Setenv("AppData", tc.config)
			id, keep, note := keptIdentity("10.0.0.1:7777", "ann", false)
			if id.Player.String() == "00000000-0000-0000-0000-000000000000" || keep != nil || !strings.Contains(note, "your identity is not kept") {
				t.Errorf("player %v, keep %v, note %q: want a new player, kept nowhere, and why", id.Player, keep != nil, note)
			}
		})
	}
}

// TestKeptIdentityDirMadePrivate: a directory of identities that others may read is made
// private.
func TestKeptIdentityDirMadePrivate(t *testing.T) {
	dir := useConfigDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, keep, note := keptIdentity("10.0.0.1:7777", "ann", false); keep == nil || note != "" {
		t.Fatalf("keep %v, note %q", keep != nil, note)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}

// TestKeptIdentitiesBounded: keeping one more identity than maxKeptIdentities removes the one
// used longest ago; one just used stays, however old its file.
func TestKeptIdentitiesBounded(t *testing.T) {
	dir := useConfigDir(t)
	st, err := openIdentityStore()
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-24 * time.Hour)
	var paths []string
	for i := range maxKeptIdentities {
		server := "10.0.0.1:" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		if _, _, note := keptIdentity(server, "ann", false); note != "" {
			t.Fatal(note)
		}
		path := st.path(server, "ann")
		at := old.Add(time.Duration(i) * time.Minute) // the first, oldest
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	// The second oldest is used again: it is now the newest.
	if _, err := st.load("10.0.0.1:b", "ann"); err != nil {
		t.Fatal(err)
	}
	if _, _, note := keptIdentity("10.0.0.2:7777", "bob", false); note != "" {
		t.Fatal(note)
	}
	kept := keptFiles(t, dir)
	if len(kept) != maxKeptIdentities {
		t.Errorf("%d identities kept, want %d", len(kept), maxKeptIdentities)
	}
	for i, path := range paths[:2] {
		if got, want := slices.Contains(kept, filepath.Base(path)), i == 1; got != want {
			t.Errorf("identity %d (used %s): kept %v, want %v", i, map[bool]string{true: "again", false: "longest ago"}[i == 1], got, want)
		}
	}
}

// TestWhoKeepsAnIdentity: a player who joins a server keeps an identity for it; a spectator,
// a bot and an embedded game do not; --new-identity where nothing is kept is a mistake of the
// command line. When nothing can be kept, the run says so once and goes on.
func TestWhoKeepsAnIdentity(t *testing.T) {
	silent, err := net.ListenPacket("udp", "127.0.0.1:0") // a server that never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	server := silent.LocalAddr().String()
	run1 := []string{"--headless", "--quiet", "--duration", "200ms", "--name", "ann"}
	for _, tc := range []struct {
		name   string
		args   []string
		broken bool // the configuration directory is a file
		code   int
		kept   int    // identities kept after the run
		says   string // on standard error
	}{
		{name: "a player", args: []string{"--connect", server}, code: 1, kept: 1},
		{name: "a player, afresh", args: []string{"--connect", server, "--new-identity"}, code: 1, kept: 1},
		{name: "a spectator", args: []string{"--connect", server, "--spectate"}, code: 1},
		{name: "a bot", args: []string{"--connect", server, "--bot"}, code: 1},
		{name: "afresh without --connect", args: []string{"--new-identity"}, code: 2, says: "--new-identity: only a player who joins"},
		{name: "a spectator afresh", args: []string{"--connect", server, "--spectate", "--new-identity"}, code: 2, says: "--new-identity"},
		{name: "nowhere to keep it", args: []string{"--connect", server}, broken: true, code: 1, says: "client: your identity is not kept ("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := useConfigDir(t)
			if tc.broken {
				file := filepath.Join(t.TempDir(), "config")
				if err := os.WriteFile(file, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				t.Setenv("XDG_CONFIG_HOME", file)
				t.Setenv("HOME", file)
				t.Setenv("AppData", file)
			}
			var code int
			_, stderr := capture.Output(t, func() { code = run(append(slices.Clip(run1), tc.args...)) })
			if code != tc.code {
				t.Errorf("exit code %d, want %d:\n%s", code, tc.code, stderr)
			}
			if n := len(keptFiles(t, dir)); n != tc.kept {
				t.Errorf("%d identities kept, want %d", n, tc.kept)
			}
			if tc.says != "" && strings.Count(stderr, tc.says) != 1 {
				t.Errorf("standard error says %q %d times, want once:\n%s", tc.says, strings.Count(stderr, tc.says), stderr)
			}
		})
	}
}

// TestRejoinGetsTheSeatBack is the class's rejoin: a student quits and runs the same join
// command again, without --identity, while the server holds the seat. The client kept its
// identity for that server and name, so the second run proves the secret and sits in the same
// seat (the server counts a reclaim, and refuses nobody); the same command with
// --new-identity is a new player, kept out of the seat while it is held.
func TestRejoinGetsTheSeatBack(t *testing.T) {
	t.Parallel()
	srv := startClassServer(t)
	config := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + config, "HOME=" + config, "AppData=" + config}
	join := []string{"--connect", srv.Addr(), "--name", "ann", "--headless", "--quiet"}
	// annSeat is ann's seat on the server, -1 while she is not connected in one.
	annSeat := func() int {
		for _, si := range srv.Snapshot().Seats {
			if si.Name == "ann" && si.Connected {
				return int(si.Seat)
			}
		}
		return -1
	}
	var seats []int
	for run := range 2 {
		r := startClientEnv(t, env, join...)
		r.until("ann in her seat", func() bool {
			return annSeat() >= 0 && srv.Snapshot().Stats.SeatsReclaimed == uint64(run)
		})
		seats = append(seats, annSeat())
		if code, _, stderr := r.interrupt(); code != 0 {
			t.Fatalf("run %d: exit code %d:\n%s", run+1, code, stderr)
		}
	}
	if seats[0] != seats[1] {
		t.Errorf("ann sat in seat %d, then in seat %d after she ran the command again", seats[0], seats[1])
	}
	if s := srv.Snapshot().Stats; s.SeatsReclaimed != 1 || s.ClaimsRefused != 0 || s.JoinsRefused != 0 {
		t.Errorf("the server counts %d seats reclaimed, %d claims and %d joins refused; want 1, 0 and 0", s.SeatsReclaimed, s.ClaimsRefused, s.JoinsRefused)
	}
	r := startClientEnv(t, env, append(join, "--new-identity")...)
	code, _, stderr := r.exit()
	if code != 1 || !strings.Contains(stderr, `name "ann" is taken`) {
		t.Errorf("--new-identity while the seat is held: exit code %d, want 1 and the name taken:\n%s", code, stderr)
	}
}
