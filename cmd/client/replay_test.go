package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
)

// testCapture is game/replay's capture of a client's short game (with its key file).
const testCapture = "../../game/replay/testdata/resync.pcapng"

// TestReplayFlagErrors: a --replay that cannot be played is a mistake of the command line,
// exit code 2, with a message saying what is wrong: no file, a file that is no capture, an
// empty value, and a flag a replay has no use for.
func TestReplayFlagErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a capture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--replay", filepath.Join(dir, "missing.pcapng")}, "client: --replay: no capture at "},
		{[]string{"--replay", text}, "not a capture that --record writes"},
		{[]string{"--replay", ""}, "client: --replay is empty"},
		{[]string{"--replay", testCapture, "--connect", "127.0.0.1:7777"}, "--connect has nothing to do there"},
		{[]string{"--replay", testCapture, "--record", filepath.Join(dir, "again.pcapng")}, "--record has nothing to do there"},
		{[]string{"--loss", "10", "--replay", testCapture}, "--loss has nothing to do there"},
	} {
		var code int
		_, stderr := capture.Output(t, func() { code = run(append(tc.args, "--headless")) })
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit code %d, standard error %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "again.pcapng")); err == nil {
		t.Error("a refused --record created its file")
	}
}

// TestReplayHeadless: headless, --replay prints every datagram and what it carried, the
// re-sync messages among them.
func TestReplayHeadless(t *testing.T) {
	var code int
	stdout, stderr := capture.Output(t, func() { code = run([]string{"--replay", testCapture, "--headless"}) })
	if code != 0 || stderr != "" {
		t.Fatalf("exit code %d, standard error %q", code, stderr)
	}
	for _, want := range []string{"#0 0.000 out → 127.0.0.1:7777  ConnectRequest from c1", "sync #24 Pause", "event: Pause: stop the world at frame",
		"event: UnitUpdate: real-time re-sync", "dropped by the link conditioner", "#292 "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in the replay:\n%s", want, stdout)
		}
	}
}

// TestReplayWithoutKeys: a capture whose key file is missing still plays: the handshake is
// read, the rest is shown sealed, and the binary says why.
func TestReplayWithoutKeys(t *testing.T) {
	b, err := os.ReadFile(testCapture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "game.pcapng")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var code int
	stdout, stderr := capture.Output(t, func() { code = run([]string{"--replay", path, "--headless"}) })
	if code != 0 || !strings.Contains(stderr, "no key file "+path+".keys") || !strings.Contains(stderr, "stay sealed") {
		t.Errorf("exit code %d, standard error %q: want 0 and a note on the missing key file", code, stderr)
	}
	if !strings.Contains(stdout, "ConnectRequest from c1") || !strings.Contains(stdout, "sealed: no key of the key file opens it") {
		t.Errorf("the replay without keys:\n%s", stdout)
	}
}
