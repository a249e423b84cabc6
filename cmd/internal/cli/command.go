package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
)

// The exit codes of the README's contract. Scripts, tests and graders drive the binaries, so
// the exit code is an interface. 0 is a clean end: --duration ran out, an interrupt or SIGTERM arrived, the player
// pressed q, or --help was asked for; a script that stops a game with a signal has not failed.
// 2 is a bad command line: an unknown flag, a stray argument, a value out of range or an address
// that cannot be parsed or resolved (ListenAddr, ServerAddr), with a message naming it, so that a
// script's mistake is told apart from a game's failure before anything ran. 1 is every other
// failure: a file that cannot be opened, a socket that cannot be bound (an address in use), a
// game that ended in error, a client that never connected to its server (however its run
// ended), a --stats file that cannot be written. Every message starts with the binary's name.
const (
	ExitOK      = 0 // a clean end: --duration elapsed, an interrupt, q in the UI, or --help
	ExitFailure = 1 // anything that went wrong once the flags were accepted
	ExitUsage   = 2 // a bad flag or a stray argument, with a message saying which
)

// Binary is what differs between the binaries' shared flags.
type Binary struct {
	Name          string     // "server" or "client": the flag set's name and the start of every message
	Summary       string     // what the binary does, under the usage line of --help
	HeadlessUsage string     // what --headless does in this binary, for --help
	RecordWhat    string     // the socket --record records, for --help ("the server's socket")
	LogLevel      slog.Level // --log-level's default
}

// Command is one binary's command line and what it sets up from it: the flags both binaries
// share, the choice between the terminal UI and headless, the log, the --trace file, the link
// conditioner, the context of the run and the --stats report. A binary adds its own flags to
// Flags, calls Parse, checks its own flags (Fail with ExitUsage), calls Open, wires the game
// with Logger, Link and Trace, runs it under Context (the UI through RunUI), and at exit calls
// WriteStats.
type Command struct {
	Name  string        // the binary's name, the start of every message it prints
	Flags *flag.FlagSet // the shared flags, and the binary's own once it has added them

	// The shared flags, set by Parse.
	Headless  bool          // --headless; Open sets it too when there is no terminal
	Duration  time.Duration // --duration: 0 runs until interrupted
	StatsPath string        // --stats: "" writes no report; Open creates the file, WriteStats fills it
	TracePath string        // --trace: "" writes no trace
	LogPath   string        // --log; in UI mode Open sets it to the file it logs to
	LogLevel  slog.Level    // --log-level
	LinkFlags LinkFlags     // --loss, --latency, --jitter, --dup
	Record    RecordFlags   // --record, --record-limit
	Late      game.LateMode // --late: what the game does with a late event

	Link   *transport.LinkSettings // the socket's conditioner (Parse, Open): nil for none, never nil in UI mode
	Logger *slog.Logger            // set by Open: to LogPath, or to standard error when that is ""
	Trace  io.Writer               // set by Open: the --trace file, nil without --trace
	// Recorder is set by Open when --record asks for a capture (TapAndKeys wires it, and
	// CloseRecord finishes it); nil without --record.
	Recorder *record.Recorder

	// The standard files as New found them; the package's tests put pipes and
	// pseudo-terminals in their place.
	stdin, stdout *os.File
	stderr        io.Writer

	summary string
	uiRan   bool       // RunUI ran a UI: Close says where the log went
	files   []*os.File // opened by Open, closed by Close
	stats   *os.File   // the --stats file, created by Open, written and closed by WriteStats
}

// New returns the command line of binary b with the shared flags registered on its flag set:
// --headless, --duration, --stats, --trace, --log, --log-level, the link flags and --record.
func New(b Binary) *Command {
	c := &Command{
		Name:    b.Name,
		Flags:   flag.NewFlagSet(b.Name, flag.ContinueOnError),
		stdin:   os.Stdin,
		stdout:  os.Stdout,
		stderr:  os.Stderr,
		summary: b.Summary,
	}
	fs := c.Flags
	fs.BoolVar(&c.Headless, "headless", false, b.HeadlessUsage+" (the default when standard input or output is not a terminal)")
	fs.DurationVar(&c.Duration, "duration", 0, "exit cleanly after this long (0: run until interrupted)")
	fs.StringVar(&c.StatsPath, "stats", "", "write a JSON report to this file at exit (created at the start)")
	fs.StringVar(&c.TracePath, "trace", "", "write a JSON line per executed guaranteed message to this file")
	fs.StringVar(&c.LogPath, "log", "", "append the log to this file (default: standard error with --headless, else a file of this run's own in the temporary directory, "+filepath.Join(os.TempDir(), "ackattack-"+b.Name+"-PID.log")+", printed at exit)")
	fs.TextVar(&c.LogLevel, "log-level", b.LogLevel, "least `level` logged: debug, info, warn or error")
	c.LinkFlags.Register(fs)
	c.Record.Register(fs, b.RecordWhat)
	fs.TextVar(&c.Late, "late", game.LateRollback, "what the game does with an event that arrives for a frame it already ran: `rollback` (run those frames again, exactly) or fastforward (apply it at once and fast-forward its units: the classic lockstep fast-forward, whose worlds can drift)")
	return c
}

// Parse parses args (without the binary's name) and checks the shared flags. It returns the
// exit code to stop with and false when the binary should not go on: ExitOK after --help,
// ExitUsage for a bad flag, a stray argument or a shared flag out of range, each with a
// message saying which. It sets Link from the link flags.
func (c *Command) Parse(args []string) (exit int, ok bool) {
	fs := c.Flags
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [flags]\n\n%s\n\nflags:\n", fs.Name(), c.summary)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false // the flag package has said which flag and printed the usage
	}
	if fs.NArg() > 0 {
		return c.Fail(ExitUsage, fmt.Errorf("unexpected argument %q", fs.Arg(0))), false
	}
	link, err := c.LinkFlags.Settings()
	if err != nil {
		return c.Fail(ExitUsage, err), false
	}
	if c.Duration < 0 {
		return c.Fail(ExitUsage, errors.New("--duration must not be negative")), false
	}
	if err := c.Record.check(); err != nil {
		return c.Fail(ExitUsage, err), false
	}
	c.Link = link
	return ExitOK, true
}

// Open decides between the terminal UI and headless, opens the log and the --trace file,
// creates the --record files and the --stats file, and gives the socket its link conditioner.
//
// Without --headless it runs headless all the same when standard input or output is not a
// terminal (a script, a pipe, CI), and says so once on standard error. In UI mode the log goes
// to a file, because a log line on the screen would tear the UI: --log, or a new file of this
// process's own in the temporary directory (openRunLog), so that clients started side by side
// on one machine never write into one file. Headless it goes to --log or standard error. In UI mode the socket
// gets a conditioner even without a link flag (a perfect link), so that the UI's sliders can
// change the link while the game runs.
//
// Every file is opened here, before the run, so that a path that cannot be written stops the
// binary at once, not after the whole run: the --stats file is created (or emptied) now and
// written at exit. An error is a file that cannot be opened, named by its flag; Open closes
// what it opened before it returns one.
func (c *Command) Open() error {
	if !c.Headless {
		if ok, what := terminal(c.stdin, c.stdout); !ok {
			fmt.Fprintf(c.stderr, "%s: %s is not a terminal: running headless (--headless)\n", c.Name, what)
			c.Headless = true
		}
	}
	logTo := c.stderr
	if c.LogPath == "" && !c.Headless {
		f, err := openRunLog(os.TempDir(), c.Name, os.Getpid())
		if err != nil {
			return fmt.Errorf("the log file: %w (--log names another)", err)
		}
		c.files = append(c.files, f)
		c.LogPath, logTo = f.Name(), f
	} else if c.LogPath != "" {
		// Appended to, so that runs add to one file instead of erasing the last one's.
		f, err := os.OpenFile(c.LogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("--log: %w", err)
		}
		c.files = append(c.files, f)
		logTo = f
	}
	c.Logger = slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: c.LogLevel}))
	if c.TracePath != "" {
		f, err := os.Create(c.TracePath)
		if err != nil {
			c.Close()
			return fmt.Errorf("--trace: %w", err)
		}
		c.files = append(c.files, f)
		c.Trace = f
	}
	if err := c.openRecord(); err != nil {
		c.Close()
		return err
	}
	if c.StatsPath != "" {
		// Emptied now, so that a run that ends without a report leaves no older one behind.
		f, err := os.Create(c.StatsPath)
		if err != nil {
			c.Close()
			return fmt.Errorf("--stats: %w", err)
		}
		c.stats = f
	}
	if c.Link == nil && !c.Headless {
		c.Link = &transport.LinkSettings{}
	}
	return nil
}

// keptLogs bounds the log files of one binary that openRunLog leaves in a directory: it
// removes the oldest beyond them, so that a machine where clients start all day keeps the
// latest few instead of every one.
const keptLogs = 16

// openRunLog creates the log file of the process pid of binary name in dir, mode 0600:
// ackattack-NAME-PID.log, or, when a file of that name is left from an earlier process (a
// process id comes round again, perhaps another user's), ackattack-NAME-PID-N.log. Then it
// removes the oldest of the binary's logs in dir beyond keptLogs (files it cannot remove,
// another user's in a shared directory, stay).
func openRunLog(dir, name string, pid int) (*os.File, error) {
	base := fmt.Sprintf("ackattack-%s-%d", name, pid)
	f, err := os.OpenFile(filepath.Join(dir, base+".log"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.CreateTemp(dir, base+"-*.log")
	}
	if err != nil {
		return nil, err
	}
	pruneRunLogs(dir, name, f.Name())
	return f, nil
}

// pruneRunLogs removes the oldest of binary name's log files in dir (those openRunLog names)
// until keptLogs are left, keeping the one named own.
func pruneRunLogs(dir, name, own string) {
	KeepNewest(dir, keptLogs, own, func(file string) bool { return isRunLog(file, name) })
}

// KeepNewest removes the oldest of the regular files in dir whose names ours accepts (by
// modification time) until n are left, the one at the path own among them whatever its age:
// what bounds a directory a binary adds a file to on every run. A file it cannot remove
// (another user's, in a shared directory) stays.
func KeepNewest(dir string, n int, own string, ours func(name string) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !ours(e.Name()) || !e.Type().IsRegular() || path == own {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{path, info.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return b.mod.Compare(a.mod) }) // newest first
	for _, f := range files[min(len(files), max(n-1, 0)):] {
		os.Remove(f.path)
	}
}

// isRunLog reports whether file is a log file openRunLog names for binary name:
// ackattack-NAME-PID.log or ackattack-NAME-PID-N.log.
func isRunLog(file, name string) bool {
	rest, ok := strings.CutPrefix(file, "ackattack-"+name+"-")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, ".log")
	if !ok {
		return false
	}
	pid, n, _ := strings.Cut(rest, "-")
	digits := func(s string) bool {
		return s != "" && strings.Trim(s, "0123456789") == ""
	}
	return digits(pid) && (n == "" || digits(n)) && !strings.HasSuffix(rest, "-")
}

// Close closes the log and --trace files that Open opened, the --stats file if WriteStats
// did not, and the --record files if CloseRecord did not; if a terminal UI ran (RunUI), it says
// on standard error where the log went, the run's last line.
func (c *Command) Close() error {
	if c.uiRan && c.LogPath != "" {
		fmt.Fprintln(c.stderr, "logs:", c.LogPath)
		c.uiRan = false
	}
	var errs []error
	if c.Recorder != nil {
		errs = append(errs, c.Recorder.Close())
		c.Recorder = nil
	}
	if c.stats != nil {
		errs = append(errs, c.stats.Close())
		c.stats = nil
	}
	for _, f := range slices.Backward(c.files) {
		errs = append(errs, f.Close())
	}
	c.files = nil
	return errors.Join(errs...)
}

// Context returns the context of the run: it ends on an interrupt (Ctrl-C) or SIGTERM, which
// are clean ends with exit code 0 like q in the UI, and after --duration when that is set.
// stop releases it and gives the signals back their default action.
func (c *Command) Context() (ctx context.Context, stop context.CancelFunc) {
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if c.Duration <= 0 {
		return ctx, stopSignals
	}
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	return ctx, func() {
		cancel()
		stopSignals()
	}
}

// RunUI runs the terminal UI (run, which returns when the UI ends). An error from the UI is
// printed after the binary's name, and returned. Where the log went is said once, by Close,
// after every UI of the run gave the screen back (a lesson picked in the client's UI starts
// another): printed before a UI, the line would come back into sight with the screen the UI
// leaves, a second copy.
func (c *Command) RunUI(run func() error) error {
	c.uiRan = true
	err := run()
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: %v\n", c.Name, err)
	}
	return err
}

// Warn prints msg on standard error after the binary's name, for a run that goes on: what the
// user should read once.
func (c *Command) Warn(msg string) { fmt.Fprintf(c.stderr, "%s: %s\n", c.Name, msg) }

// Fail prints err on standard error after the binary's name and returns exit, for the binary
// to exit with: return c.Fail(ExitFailure, err).
func (c *Command) Fail(exit int, err error) int {
	fmt.Fprintf(c.stderr, "%s: %v\n", c.Name, err)
	return exit
}

// WriteStats writes r, a game.Report or a binary's report around one, as indented JSON to the
// --stats file that Open created, if one was asked for, and closes it.
func (c *Command) WriteStats(r any) error {
	if c.StatsPath == "" {
		return nil
	}
	f := c.stats
	if f == nil {
		return errors.New("--stats: the file is not open (Open creates it; WriteStats writes it once)")
	}
	c.stats = nil
	b, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--stats: %w", err)
	}
	return nil
}
