package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/hostloop"
)

// The tests of a whole run (a game played, a capture recorded, a lesson walked) run the binary
// as a process of its own, headless, its standard output and error pipes the test reads while
// it runs: as a script or CI runs it. A test waits for what the run prints (a status line past
// a frame, a lesson's step) instead of a fixed --duration, ends the run with an interrupt
// (Ctrl-C, a clean end), and checks the exit code and the files the run wrote. The processes
// run side by side (t.Parallel), each with a game of its own.

// waitTimeout bounds each wait for a run's output: a game starts within seconds, but a machine
// busy with other builds slows the binary built with -race a lot.
const waitTimeout = 90 * time.Second

// clientRun is the client binary, running.
type clientRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout lockedBuffer
	stderr lockedBuffer
	exited chan struct{} // closed once it has exited
	err    error         // what cmd.Wait returned
}

// startClient starts the client binary with args. It is killed, if it still runs, when the
// test ends.
func startClient(t *testing.T, args ...string) *clientRun {
	t.Helper()
	return startClientEnv(t, nil, args...)
}

// startClientEnv is startClient with the variables env ("NAME=value") added to the process's
// environment.
func startClientEnv(t *testing.T, env []string, args ...string) *clientRun {
	t.Helper()
	bin := tmuxtest.Build(t, "client")
	ctx, cancel := context.WithCancel(context.Background())
	r := &clientRun{t: t, cmd: exec.CommandContext(ctx, bin, args...), exited: make(chan struct{})}
	r.cmd.Env = append(os.Environ(), env...)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		r.err = r.cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.exited
	})
	return r
}

// wait polls standard output until ok accepts it, and returns it. It fails the test when the
// run exits first or after waitTimeout, with what the run printed.
func (r *clientRun) wait(what string, ok func(stdout string) bool) string {
	r.t.Helper()
	var out string
	r.until(what, func() bool {
		out = r.stdout.String()
		return ok(out)
	})
	return out
}

// until polls cond until it holds. It fails the test when the run exits first or after
// waitTimeout, with what the run printed.
func (r *clientRun) until(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		if cond() {
			return
		}
		select {
		case <-r.exited:
			r.t.Fatalf("the run exited (%v) before %s; standard output:\n%s\nstandard error:\n%s", r.err, what, r.stdout.String(), r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("waited %v for %s; standard output:\n%s\nstandard error:\n%s", waitTimeout, what, r.stdout.String(), r.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// statusLine is a headless status line: its frame, and its state at the end.
var statusLine = regexp.MustCompile(`(?m)^frame (\d+) .*  ([A-Z][^\n]*)$`)

// waitFrame waits for a status line at frame or later whose state starts with state
// ("RUNNING", "SPECTATING"; "": any).
func (r *clientRun) waitFrame(frame int, state string) string {
	r.t.Helper()
	return r.wait("a status line at frame "+strconv.Itoa(frame)+", "+state, func(out string) bool {
		for _, m := range statusLine.FindAllStringSubmatch(out, -1) {
			if f, _ := strconv.Atoi(m[1]); f >= frame && len(m[2]) >= len(state) && m[2][:len(state)] == state {
				return true
			}
		}
		return false
	})
}

// interrupt ends the run as Ctrl-C does and returns its exit code, with what it printed.
func (r *clientRun) interrupt() (code int, stdout, stderr string) {
	r.t.Helper()
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		r.t.Fatal(err)
	}
	return r.exit()
}

// exit waits for the run to exit and returns its exit code, with what it printed.
func (r *clientRun) exit() (code int, stdout, stderr string) {
	r.t.Helper()
	select {
	case <-r.exited:
	case <-time.After(waitTimeout):
		r.t.Fatalf("the run did not exit; standard output:\n%s\nstandard error:\n%s", r.stdout.String(), r.stderr.String())
	}
	code = 0
	if ee := (*exec.ExitError)(nil); errors.As(r.err, &ee) {
		code = ee.ExitCode()
	} else if r.err != nil {
		r.t.Fatal(r.err)
	}
	return code, r.stdout.String(), r.stderr.String()
}

// lockedBuffer is a buffer the process writes to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitUntil polls cond until it holds, failing the test after waitTimeout.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitTimeout); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", waitTimeout, what)
		}
	}
}

// startClassServer runs a server with one bot on a free loopback port, in this process, for the
// client binary to join; it stops when the test ends.
func startClassServer(t *testing.T) *hostloop.Server {
	t.Helper()
	srv, err := hostloop.NewServer(game.ServerConfig{Listen: "127.0.0.1:0", Bots: 1, MinPlayers: 1, StartDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return srv
}
