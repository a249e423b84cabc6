package cli

import (
	"flag"
	"fmt"
	"hash/fnv"
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

// LinkSeed is the seed of a process's link conditioner, drawn from what tells the processes of
// a game apart: the binary, the player's name and --seed. With one seed for every process
// (the transport's default), the k-th datagram of each process would meet the same fate in all
// of them: at --loss 30, the handshakes of several clients failed together.
func LinkSeed(binary, name string, seed uint64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", binary, name, seed)
	return max(h.Sum64(), 1) // 0 means the default
}
