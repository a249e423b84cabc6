package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/all-tiny.md from this run")

// TestAllTinyMarkdownGolden: every experiment at its tiny size, in Markdown, without what
// depends on the machine, is the same output byte for byte on every run: the experiments are
// seeded and run in virtual time. go test ./cmd/netlab -run Golden -update rewrites the file.
func TestAllTinyMarkdownGolden(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"all", "--markdown", "--tiny", "--deterministic"}, &out, &errs); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	golden := filepath.Join("testdata", "all-tiny.md")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("the Markdown differs from %s (go test ./cmd/netlab -run Golden -update rewrites it):\n%s", golden, firstDiff(out.String(), string(want)))
	}
	for _, e := range experiments {
		if !strings.Contains(out.String(), "### netlab "+e.name) {
			t.Errorf("no section for %s", e.name)
		}
	}
	if n := strings.Count(out.String(), "### netlab resync"); n != 2 {
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
		{nil, exitUsage, "usage: netlab <experiment>"},
		{[]string{"--help"}, exitOK, "experiments:"},
		{[]string{"nope"}, exitUsage, `unknown experiment "nope" (experiments: hol, overhead, olddep, fragments, resync, scale, all)`},
		{[]string{"hol", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{[]string{"hol", "--loss", "101"}, exitUsage, "LossPercent is 101, want 0..100"},
		{[]string{"hol", "--latency", "-5ms"}, exitUsage, "Latency is -5ms"},
		{[]string{"hol", "--messages", "0"}, exitUsage, "--messages must be at least 1"},
		{[]string{"hol", "stray"}, exitUsage, `unexpected argument "stray"`},
		{[]string{"hol", "--rate", "0", "--tiny"}, exitUsage, "--rate must be more than 0"},
		{[]string{"fragments", "--size", "0"}, exitUsage, "--size must be"},
		{[]string{"scale", "--clients", "2,x"}, exitUsage, `--clients "2,x"`},
		{[]string{"scale", "--clients", "9", "--tiny"}, exitUsage, "a game has 8 seats"},
		{[]string{"resync", "--late", "sideways"}, exitUsage, "sideways"},
		{[]string{"all", "--rate", "5"}, exitUsage, "flag provided but not defined: -rate"},
		{[]string{"olddep", "--help"}, exitOK, "-duration"},
	} {
		var out, errs bytes.Buffer
		code := run(c.args, &out, &errs)
		if code != c.code || !strings.Contains(errs.String(), c.msg) {
			t.Errorf("netlab %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, errs.String(), c.code, c.msg)
		}
	}
}

// TestIntoReplacesTheMarkedSection: --into keeps what is around the markers and replaces what
// is between; a file without them is an error, and left alone.
func TestIntoReplacesTheMarkedSection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "B.md")
	before := "# Benchmarks\n\nintro\n\n" + beginMarker + "\nold numbers\n" + endMarker + "\n\n## after\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"all", "--tiny", "--deterministic", "--into", path}, &out, &errs); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if strings.Contains(got, "old numbers") || !strings.HasPrefix(got, "# Benchmarks\n\nintro\n\n"+beginMarker+"\n\n### netlab hol") ||
		!strings.HasSuffix(got, endMarker+"\n\n## after\n") || out.Len() != 0 {
		t.Errorf("after --into:\n%s\n(stdout %q)", got, out.String())
	}
	plain := filepath.Join(dir, "plain.md")
	os.WriteFile(plain, []byte("no markers\n"), 0o644)
	if code := run([]string{"hol", "--tiny", "--deterministic", "--into", plain}, &out, &errs); code != exitUsage {
		t.Errorf("--into for one experiment: exit %d, want %d (only all replaces the section)", code, exitUsage)
	}
	errs.Reset()
	if code := run([]string{"all", "--tiny", "--deterministic", "--into", plain}, &out, &errs); code != exitFailure || !strings.Contains(errs.String(), "no section between") {
		t.Errorf("--into a file without markers: exit %d, %q", code, errs.String())
	}
	if b, _ := os.ReadFile(plain); string(b) != "no markers\n" {
		t.Errorf("the file without markers changed: %q", b)
	}
}

func TestSVGFlag(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	if code := run([]string{"hol", "--tiny", "--deterministic", "--svg", dir}, &out, &errs); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, name := range []string{"hol-1.svg", "hol-2.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.HasPrefix(b, []byte("<svg ")) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !strings.Contains(out.String(), "netlab hol: head-of-line blocking") {
		t.Errorf("no text report with --svg:\n%s", out.String())
	}
}
