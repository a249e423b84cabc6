package game

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// LinkFlags are the link conditioner's command-line flags, shared by both binaries.
type LinkFlags struct {
	Loss    float64
	Latency time.Duration
	Jitter  time.Duration
	Dup     float64
}

// Register adds --loss, --latency, --jitter and --dup to fs.
func (l *LinkFlags) Register(fs *flag.FlagSet) {
	fs.Float64Var(&l.Loss, "loss", 0, "packet loss in percent, in each direction (0-100)")
	fs.DurationVar(&l.Latency, "latency", 0, "added one-way latency, e.g. 50ms")
	fs.DurationVar(&l.Jitter, "jitter", 0, "latency jitter, ± this much, e.g. 20ms")
	fs.Float64Var(&l.Dup, "dup", 0, "packet duplication in percent, in each direction (0-100)")
}

// Settings returns the conditioner settings, nil when every flag is zero (no conditioner), or
// a clear error for values out of range.
func (l *LinkFlags) Settings() (*transport.LinkSettings, error) {
	s := linksim.Settings{LossPercent: l.Loss, Latency: l.Latency, Jitter: l.Jitter, DupPercent: l.Dup}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("link flags: %w", err)
	}
	if s == (linksim.Settings{}) {
		return nil, nil
	}
	return &transport.LinkSettings{Out: s, In: s}, nil
}

// ParseFlags parses args with fs, whose usage line and summary it sets. It returns the exit
// code to stop with and false when the binary should not go on: 0 after --help, 2 for a bad
// flag or a stray argument (with a message saying which).
func ParseFlags(fs *flag.FlagSet, args []string, summary string) (int, bool) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [flags]\n\n%s\n\nflags:\n", fs.Name(), summary)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// WriteReport writes r as indented JSON to path (the --stats file).
func WriteReport(path string, r Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// CheckDuration rejects a negative --duration with a clear message.
func CheckDuration(d time.Duration) error {
	if d < 0 {
		return errors.New("--duration must not be negative")
	}
	return nil
}
