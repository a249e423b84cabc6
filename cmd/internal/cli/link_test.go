package cli

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// TestLinkFlagsSettings: no link flag means no conditioner; values in range give the same
// settings in both directions; a value out of range is an error naming the setting.
func TestLinkFlagsSettings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   LinkFlags
		want    *linksim.Settings // nil: no conditioner
		wantErr string            // "": no error
	}{
		{name: "none", flags: LinkFlags{}},
		{name: "loss", flags: LinkFlags{Loss: 30}, want: &linksim.Settings{LossPercent: 30}},
		{name: "every flag", flags: LinkFlags{Loss: 10, Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, Dup: 5},
			want: &linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, DupPercent: 5}},
		{name: "loss 100", flags: LinkFlags{Loss: 100}, want: &linksim.Settings{LossPercent: 100}},
		{name: "dup 100", flags: LinkFlags{Dup: 100}, want: &linksim.Settings{DupPercent: 100}},
		{name: "jitter without latency", flags: LinkFlags{Jitter: time.Millisecond}, want: &linksim.Settings{Jitter: time.Millisecond}},
		{name: "loss over 100", flags: LinkFlags{Loss: 100.5}, wantErr: "LossPercent is 100.5"},
		{name: "negative loss", flags: LinkFlags{Loss: -1}, wantErr: "LossPercent is -1"},
		{name: "loss NaN", flags: LinkFlags{Loss: math.NaN()}, wantErr: "LossPercent is NaN"},
		{name: "dup over 100", flags: LinkFlags{Dup: 101}, wantErr: "DupPercent is 101"},
		{name: "negative latency", flags: LinkFlags{Latency: -time.Second}, wantErr: "Latency is -1s"},
		{name: "negative jitter", flags: LinkFlags{Jitter: -time.Second}, wantErr: "Jitter is -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.flags.Settings()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "link flags: ") {
					t.Fatalf("error %v, want one starting \"link flags: \" and naming %q", err, tc.wantErr)
				}
				if got != nil {
					t.Errorf("settings %+v with the error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("settings %+v, want none", got)
			case tc.want != nil && got == nil:
				t.Errorf("no settings, want %+v both ways", *tc.want)
			case tc.want != nil && (got.Out != *tc.want || got.In != *tc.want):
				t.Errorf("out %+v, in %+v, want %+v both ways", got.Out, got.In, *tc.want)
			}
		})
	}
}

// TestLinkFlagsRegister: the four flags parse into the fields.
func TestLinkFlagsRegister(t *testing.T) {
	var l LinkFlags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	l.Register(fs)
	if err := fs.Parse([]string{"--loss", "12.5", "--latency", "80ms", "--jitter", "20ms", "--dup", "3"}); err != nil {
		t.Fatal(err)
	}
	if want := (LinkFlags{Loss: 12.5, Latency: 80 * time.Millisecond, Jitter: 20 * time.Millisecond, Dup: 3}); l != want {
		t.Errorf("%+v, want %+v", l, want)
	}
}

// TestLinkSeed: every process of a game gets its own conditioner seed, the same from run to run.
func TestLinkSeed(t *testing.T) {
	seen := map[uint64]string{}
	for _, p := range []struct {
		binary, name string
		seed         uint64
	}{
		{"server", "", 1}, {"server", "", 2}, {"client", "c1", 1}, {"client", "c2", 1}, {"client", "c1", 2}, {"client", "", 1},
	} {
		s := LinkSeed(p.binary, p.name, p.seed)
		what := fmt.Sprintf("%s %q --seed %d", p.binary, p.name, p.seed)
		if s == 0 || s != LinkSeed(p.binary, p.name, p.seed) {
			t.Errorf("%s: seed %d, want a fixed non-zero one", what, s)
		}
		if other, ok := seen[s]; ok {
			t.Errorf("%s and %s share the seed %d", what, other, s)
		}
		seen[s] = what
	}
}
