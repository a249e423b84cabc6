package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/ackattack/ackattack/game"
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
func WriteReport(path string, r game.Report) error {
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

// Terminal tells whether standard input and standard output are both terminals, as the
// terminal UI needs (it reads keys from one and draws on the other). When one is not, it names
// it, for the message of the fallback to headless. It looks at the file's mode only, so it
// needs nothing beyond the standard library: a terminal is a character device. /dev/null is a
// character device too, but nobody can type into it or read it, so it does not count.
func Terminal() (ok bool, notTerminal string) {
	devNull, _ := os.Stat(os.DevNull)
	for _, f := range []struct {
		file *os.File
		name string
	}{{os.Stdout, "standard output"}, {os.Stdin, "standard input"}} {
		fi, err := f.file.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 || (devNull != nil && os.SameFile(fi, devNull)) {
			return false, f.name
		}
	}
	return true, ""
}

// OpenLog returns a text logger at level that appends to the file at path (created if
// missing, so that runs add to one file instead of erasing the last one's), and that file,
// for the caller to close at exit.
func OpenLog(path string, level slog.Leveler) (*slog.Logger, *os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("--log: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})), f, nil
}

// Output is where a binary's screen and log go, decided once at start by SetupOutput.
type Output struct {
	Headless bool         // no UI: asked for, or standard input or output is not a terminal
	LogPath  string       // the log file ("" with Headless and no --log: standard error)
	Logger   *slog.Logger //
	Link     *transport.LinkSettings
	close    func() error
}

// Close closes the log file, if there is one.
func (o *Output) Close() error {
	if o.close == nil {
		return nil
	}
	return o.close()
}

// SetupOutput decides between the UI and headless for program prog (falling back to headless,
// with a note on standard error, when standard input or output is not a terminal), opens the
// log (in UI mode a file, defaultLog unless logPath names one: a log line on the screen would
// tear the UI) and, in UI mode, gives the socket a link conditioner even when link is nil (a
// perfect link) so that the UI's sliders can change it while the game runs. An error is a log
// file that cannot be opened.
func SetupOutput(prog string, headless bool, logPath, defaultLog string, level slog.Level, link *transport.LinkSettings) (*Output, error) {
	o := &Output{Headless: headless, LogPath: logPath, Link: link}
	if !o.Headless {
		if ok, what := Terminal(); !ok {
			fmt.Fprintf(os.Stderr, "%s: %s is not a terminal: running headless (--headless)\n", prog, what)
			o.Headless = true
		}
	}
	if o.LogPath == "" && !o.Headless {
		o.LogPath = defaultLog
	}
	o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if o.LogPath != "" {
		l, f, err := OpenLog(o.LogPath, level)
		if err != nil {
			return nil, err
		}
		o.Logger, o.close = l, f.Close
	}
	if o.Link == nil && !o.Headless {
		o.Link = &transport.LinkSettings{}
	}
	return o, nil
}
