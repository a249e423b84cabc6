package tmuxtest

import (
	"fmt"
	"runtime"
	"testing"
)

// outcome records how Require ended a test: skipped, failed, or neither.
type outcome struct {
	testing.TB
	skipped, failed bool
	said            string
}

func (o *outcome) Helper() {}

func (o *outcome) Skip(args ...any) {
	o.skipped, o.said = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (o *outcome) Fatal(args ...any) {
	o.failed, o.said = true, fmt.Sprint(args...)
	runtime.Goexit()
}

// TestRequireWithoutTmux: where tmux is missing Require skips, except in CI, which installs it:
// there it fails, so that the terminal tests never pass by skipping.
func TestRequireWithoutTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("Require skips everything under -short")
	}
	for _, tc := range []struct {
		name, ci      string
		skip, failure bool
	}{
		{name: "on a machine of one's own", ci: "", skip: true},
		{name: "in CI", ci: "1", failure: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir()) // no tmux on it
			t.Setenv("CI", tc.ci)
			o := &outcome{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Require(o)
			}()
			<-done
			if o.skipped != tc.skip || o.failed != tc.failure {
				t.Errorf("skipped %v, failed %v (%q); want skipped %v, failed %v", o.skipped, o.failed, o.said, tc.skip, tc.failure)
			}
		})
	}
}
