package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// handoutCommand is a row of the handout's table of commands: `go run ./cmd/client ARGS`.
var handoutCommand = regexp.MustCompile("(?m)^\\| `go run \\./cmd/client([^`]*)` \\|")

// handoutCommands are the arguments of every client command the one-page handout gives the
// students (assets/lessons/HANDOUT.md), as written.
func handoutCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "assets", "lessons", "HANDOUT.md"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	for _, m := range handoutCommand.FindAllStringSubmatch(string(b), -1) {
		cmds = append(cmds, strings.Fields(m[1]))
	}
	if len(cmds) < 6 {
		t.Fatalf("the handout's table of commands has %d client commands, want the six a student uses: the test reads rows like \"| `go run ./cmd/client …` | … |\"", len(cmds))
	}
	return cmds
}

// TestHandoutCommandsRun runs every client command of the handout as a student types it (the
// class's host for HOST:7777, the class's capture for class.pcapng), headless, each in a
// configuration directory of its own, and checks that it does what its row says: the game of
// one's own and the lesson play, the join takes a seat (and the same command again, after a
// quit, the same seat), the fresh identity takes a seat, the spectator watches, and the
// replay prints the capture.
func TestHandoutCommandsRun(t *testing.T) {
	t.Parallel()
	srv := startClassServer(t)
	capture := t.TempDir()
	for _, name := range []string{"resync.pcapng", "resync.pcapng.keys"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "game", "replay", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(capture, strings.Replace(name, "resync", "class", 1)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seatOf := func(name string) int {
		for _, si := range srv.Snapshot().Seats {
			if si.Name == name && si.Connected {
				return int(si.Seat)
			}
		}
		return -1
	}
	for _, args := range handoutCommands(t) {
		line := strings.Join(append([]string{"go run ./cmd/client"}, args...), " ")
		var run []string
		for _, a := range args {
			switch a {
			case "HOST:7777":
				a = srv.Addr()
			case "class.pcapng":
				a = filepath.Join(capture, a)
			}
			run = append(run, a)
		}
		run = append(run, "--headless")
		if slices.Contains(args, "--connect") && !slices.Contains(args, "--spectate") {
			run = append(run, "--quiet") // read from the server's table: no status lines needed
		}
		config := t.TempDir()
		env := []string{"XDG_CONFIG_HOME=" + config, "HOME=" + config, "AppData=" + config}
		start := func() *clientRun { return startClientEnv(t, env, run...) }
		stop := func(r *clientRun) {
			t.Helper()
			if code, _, stderr := r.interrupt(); code != 0 {
				t.Errorf("%s: exit code %d:\n%s", line, code, stderr)
			}
		}
		name := ""
		for i, a := range args {
			if a == "--name" && i+1 < len(args) {
				name = args[i+1]
			}
		}
		switch {
		case slices.Contains(args, "--replay"):
			r := start()
			code, stdout, stderr := r.exit()
			if code != 0 || !strings.Contains(stdout, "ConnectRequest") || !strings.Contains(stdout, "UnitUpdate") {
				t.Errorf("%s: exit code %d, and the capture's datagrams (a ConnectRequest, a UnitUpdate) not printed:\n%.600s\n%s", line, code, stdout, stderr)
			}
		case slices.Contains(args, "--spectate"):
			r := start()
			r.waitFrame(1, "SPECTATING")
			stop(r)
		case slices.Contains(args, "--new-identity"):
			// A new player, so a name of its own while the handout's ann may hold her seat.
			for i := range run {
				if run[i] == name {
					run[i] = name + "2"
				}
			}
			r := start()
			r.until(line+": a seat", func() bool { return seatOf(name+"2") >= 0 })
			stop(r)
		case slices.Contains(args, "--connect"):
			var seats []int
			reclaimed := srv.Snapshot().Stats.SeatsReclaimed
			for run := range 2 { // the row says: the same command again gets the seat back
				r := start()
				r.until(line+": a seat", func() bool {
					return seatOf(name) >= 0 && srv.Snapshot().Stats.SeatsReclaimed == reclaimed+uint64(run)
				})
				seats = append(seats, seatOf(name))
				stop(r)
			}
			if seats[0] != seats[1] {
				t.Errorf("%s: seat %d, then seat %d when the command ran again", line, seats[0], seats[1])
			}
		case slices.Contains(args, "--lesson"):
			r := start()
			r.wait(line+": the lesson's first step", func(out string) bool {
				return strings.Contains(out, "step 1 of")
			})
			stop(r)
		default: // a game of one's own
			r := start()
			r.waitFrame(5, "RUNNING")
			stop(r)
		}
	}
}
