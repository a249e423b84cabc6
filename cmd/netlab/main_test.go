package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/cli"
)

var update = flag.Bool("update", false, "rewrite testdata/all-tiny.md from this run")

// TestAllTinyGolden: every experiment at its tiny size, in Markdown, without what depends on
// the machine, is the same output byte for byte on every run: the experiments are seeded and
// run in virtual time. The run goes through --into, as BENCHMARKS.md is made: the file keeps
// what lies around the markers. go test ./cmd/netlab -run Golden -update rewrites the golden
// file.
func TestAllTinyGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "B.md")
	before, after := "# Benchmarks\n\nintro\n\n"+beginMarker+"\n", endMarker+"\n\n## after\n"
	if err := os.WriteFile(path, []byte(before+"old numbers\n"+after), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"all", "--tiny", "--deterministic", "--into", path}, &out, &errs); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, before+"\n") || !strings.HasSuffix(got, "\n"+after) || out.Len() != 0 {
		t.Fatalf("--into did not keep what lies around the markers (or printed %q):\n%s", out.String(), got)
	}
	md := strings.TrimSuffix(strings.TrimPrefix(got, before+"\n"), "\n"+after)
	golden := filepath.Join("testdata", "all-tiny.md")
	if *update {
		if err := os.WriteFile(golden, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if md != string(want) {
		t.Errorf("the Markdown differs from %s (go test ./cmd/netlab -run Golden -update rewrites it):\n%s", golden, firstDiff(md, string(want)))
	}
	for _, e := range experiments {
		if !strings.Contains(md, "### netlab "+e.name) {
			t.Errorf("no section for %s", e.name)
		}
	}
	if n := strings.Count(md, "### netlab resync"); n != 2 {
		t.Errorf("%d resync sections, want 2 (rollback and fastforward)", n)
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + g[i] + "\nwant: " + w[i]
		}
	}
	return "lengths differ: " + strconv.Itoa(len(g)) + " lines, want " + strconv.Itoa(len(w))
}

func TestCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string // in standard error
	}{
		{nil, cli.ExitUsage, "usage: netlab <experiment>"},
		{[]string{"--help"}, cli.ExitOK, "experiments:"},
		{[]string{"nope"}, cli.ExitUsage, `unknown experiment "nope" (experiments: hol, overhead, olddep, fragments, resync, scale, all)`},
		{[]string{"hol", "--bogus"}, cli.ExitUsage, "flag provided but not defined: -bogus"},
		{[]string{"hol", "--loss", "101"}, cli.ExitUsage, "LossPercent is 101, want 0..100"},
		{[]string{"hol", "--latency", "-5ms"}, cli.ExitUsage, "Latency is -5ms"},
		{[]string{"hol", "--messages", "0"}, cli.ExitUsage, "--messages must be at least 1"},
		{[]string{"hol", "stray"}, cli.ExitUsage, `unexpected argument "stray"`},
		{[]string{"hol", "--rate", "0", "--tiny"}, cli.ExitUsage, "--rate must be more than 0"},
		{[]string{"fragments", "--size", "0"}, cli.ExitUsage, "--size must be"},
		{[]string{"scale", "--clients", "2,x"}, cli.ExitUsage, `--clients "2,x"`},
		{[]string{"scale", "--clients", "265", "--tiny"}, cli.ExitUsage, "a game has 8 seats for players and room for 256 spectators"},
		{[]string{"resync", "--late", "sideways"}, cli.ExitUsage, "sideways"},
		{[]string{"all", "--rate", "5"}, cli.ExitUsage, "flag provided but not defined: -rate"},
		{[]string{"olddep", "--help"}, cli.ExitOK, "-duration"},
	} {
		var out, errs bytes.Buffer
		code := run(c.args, &out, &errs)
		if code != c.code || !strings.Contains(errs.String(), c.msg) {
			t.Errorf("netlab %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, errs.String(), c.code, c.msg)
		}
	}
}

// TestIntoNeedsTheMarkers: --into a file without the markers fails before anything runs, and
// leaves the file alone; only all takes --into.
func TestIntoNeedsTheMarkers(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "plain.md")
	if err := os.WriteFile(plain, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"hol", "--into", plain}, &out, &errs); code != cli.ExitUsage {
		t.Errorf("--into for one experiment: exit %d, want %d", code, cli.ExitUsage)
	}
	errs.Reset()
	if code := run([]string{"all", "--into", plain}, &out, &errs); code != cli.ExitFailure || !strings.Contains(errs.String(), "no section between") {
		t.Errorf("--into a file without markers: exit %d, %q", code, errs.String())
	}
	if b, _ := os.ReadFile(plain); string(b) != "no markers\n" {
		t.Errorf("the file without markers changed: %q", b)
	}
}

// TestOneExperiment: hol alone, as text and as Markdown, with its charts as SVG files.
func TestOneExperiment(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	if code := run([]string{"hol", "--tiny", "--deterministic", "--svg", dir}, &out, &errs); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, name := range []string{"hol-1.svg", "hol-2.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.HasPrefix(b, []byte("<svg ")) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !strings.HasPrefix(out.String(), "netlab hol: head-of-line blocking") {
		t.Errorf("no text report with --svg:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"hol", "--tiny", "--deterministic", "--markdown", "--messages", "50"}, &out, &errs); code != cli.ExitOK ||
		!strings.HasPrefix(out.String(), "### netlab hol: head-of-line blocking") || !strings.Contains(out.String(), "--messages 50 ") {
		t.Errorf("exit %d, Markdown:\n%s", code, out.String())
	}
}
