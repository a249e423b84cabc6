package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ackattack/ackattack/cmd/internal/cli"
	"github.com/ackattack/ackattack/game/replay"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/ui"
)

// replayFlags are the flags that go with --replay: a replay opens no socket and plays no
// game, so every other flag would be ignored, and is refused instead.
var replayFlags = []string{"replay", "headless", "log", "log-level", "duration"}

// replayConflict names the first flag set besides --replay that a replay has no use for.
func replayConflict(fs *flag.FlagSet) string {
	var bad string
	fs.Visit(func(f *flag.Flag) {
		if bad == "" && !slices.Contains(replayFlags, f.Name) {
			bad = f.Name
		}
	})
	return bad
}

// runReplay plays the capture at path: in the terminal UI, or headless as one line per
// datagram on standard output (with its messages on a second line, and the events it
// carried), for a script or a pipe.
func runReplay(cmd *cli.Command, path string) int {
	if bad := replayConflict(cmd.Flags); bad != "" {
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--replay plays a capture back and opens no socket: --%s has nothing to do there", bad))
	}
	all, err := record.ReadAll(path, replay.MaxDatagrams)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--replay: no capture at %s (--record FILE writes one)", path))
	case err != nil:
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--replay %s: not a capture that --record writes: %w", path, err))
	case len(all) == 0:
		return cmd.Fail(cli.ExitUsage, fmt.Errorf("--replay %s: the capture holds no datagram", path))
	}
	m := replay.New(all)
	note := ""
	if n := m.Unopened(); n > 0 {
		if _, err := os.Stat(record.KeysPath(path)); errors.Is(err, os.ErrNotExist) {
			note = fmt.Sprintf("no key file %s: %d of %d datagrams stay sealed (the handshake reads; a connection's keys never travel, --record writes them beside the capture)",
				record.KeysPath(path), n, len(all))
		} else {
			note = fmt.Sprintf("%d of %d datagrams open with no key of %s", n, len(all), record.KeysPath(path))
		}
		fmt.Fprintf(os.Stderr, "client: --replay: %s\n", note)
	}
	if err := cmd.Open(); err != nil {
		return cmd.Fail(cli.ExitFailure, err)
	}
	defer cmd.Close()
	ctx, stop := cmd.Context()
	defer stop()
	if cmd.Headless {
		printReplay(ctx, os.Stdout, m)
		return cli.ExitOK
	}
	if err := cmd.RunUI(func() error {
		return ui.RunReplay(ctx, ui.ReplayOptions{Name: filepath.Base(path), Model: m, Note: note})
	}); err != nil {
		return cli.ExitFailure
	}
	return cli.ExitOK
}

// printReplay writes every datagram of m, its time from the first, what it carried and the
// events it brought, until ctx ends.
func printReplay(ctx context.Context, w io.Writer, m *replay.Model) {
	for ctx.Err() == nil && m.Step() {
		d, _ := m.Current()
		fmt.Fprintf(w, "#%d %.3f %s\n", d.Index, d.At.Sub(m.Start()).Seconds(), d.Headline())
		if detail := d.Detail(); detail != "" {
			fmt.Fprintf(w, "    %s\n", detail)
		}
		events := m.Events()
		first := len(events)
		for first > 0 && events[first-1].Index == d.Index {
			first--
		}
		for _, e := range events[first:] {
			fmt.Fprintf(w, "    event: %s\n", strings.TrimSpace(e.Text))
		}
	}
}

// given reports whether the flag called name was on the command line.
func given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}
