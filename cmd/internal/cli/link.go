package cli

import (
	"flag"
	"fmt"
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

// Settings returns the conditioner settings, the same in both directions, nil when every flag
// is zero (no conditioner), or a clear error for values out of range.
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
