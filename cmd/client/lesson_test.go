package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/capture"
	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// TestLessonFlagRefusals: --lesson takes a built-in lesson's number or a script file. An
// unknown number, a missing file or a broken script is a mistake of the command line: exit
// code 2, with a message naming --lesson and, for a number or a missing file, the lessons
// there are; a broken script's message says file:line. A lesson plays its own game, so
// --connect or --spectate with it is refused too.
func TestLessonFlagRefusals(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "broken.txt")
	if err := os.WriteFile(broken, []byte("lesson 50\ntitle Broken\nstep One\nuntil packets-eaten\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--lesson", "12"}, []string{"client: --lesson 12: no lesson 12; the lessons are:", "  1  Packets, acks and the ack bitfield", "  9  Fragments"}},
		{[]string{"--lesson", "0"}, []string{"no lesson 0", "  3  One ordered channel versus the graph"}},
		{[]string{"--lesson", "no-such-lesson.txt"}, []string{"--lesson no-such-lesson.txt:", "no such file", "  2  Out of order"}},
		{[]string{"--lesson", broken}, []string{broken + ":4: unknown event \"packets-eaten\""}},
		{[]string{"--lesson", "2", "--connect", "127.0.0.1:7777"}, []string{"--lesson plays in an embedded game of its own: leave out --connect"}},
		{[]string{"--lesson", "2", "--spectate"}, []string{"--lesson needs you at the controls: leave out --spectate"}},
	} {
		var code int
		_, stderr := capture.Output(t, func() { code = run(append([]string{"--headless", "--quiet", "--duration", "1s"}, tc.args...)) })
		if code != 2 {
			t.Errorf("%q: exit code %d, want 2", tc.args, code)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: standard error lacks %q:\n%s", tc.args, w, stderr)
			}
		}
	}
}

// TestLessonFileRunsHeadless: a teacher's own lesson file plays headless on real sockets:
// the lesson's game starts, its step is printed with its text, and it ends when its event
// comes.
func TestLessonFileRunsHeadless(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mine.txt")
	script := "lesson 50\ntitle A teacher's lesson\nlink loss=10\nstep Frames go by\n  text Watch the frame counter.\n  read 0s\n  until frames +5\n"
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startClient(t, "--headless", "--lesson", file, "--name", "ann")
	r.wait("the lesson to end", func(out string) bool { return strings.Contains(out, "lesson 50 done\n") })
	code, stdout, stderr := r.interrupt()
	if code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr)
	}
	for _, w := range []string{"hosting lesson 50 on 127.0.0.1:", "lesson 50, step 1 of 1: Frames go by\n  Watch the frame counter.\n", "lesson 50 done\n"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("standard output lacks %q:\n%s", w, stdout)
		}
	}
}

// TestLessonMenuInTerminal runs the real binary in a real terminal (tmux) with --lesson 1:
// the lesson's panel shows its first step once the game starts; F4 opens the menu, 4 starts
// lesson 4, whose game and panel replace the first; q quits with exit status 0.
func TestLessonMenuInTerminal(t *testing.T) {
	tmuxtest.Require(t)
	t.Parallel()
	bin := tmuxtest.Build(t, "client")
	logFile := filepath.Join(t.TempDir(), "client.log")
	p := tmuxtest.Start(t, 120, 36, bin, "--lesson", "1", "--log", logFile, "--name", "ann")
	p.WaitText("Every packet has a number (1 of 4)")
	p.Send("F4")
	p.WaitText("Enter or the number starts")
	p.Send("4")
	p.WaitText("▶ A fresh dependency")
	p.Send("q")
	if status := p.Exit(); status != 0 {
		t.Fatalf("exit status %d after q, want 0; last screen:\n%s", status, p.Last())
	}
}
