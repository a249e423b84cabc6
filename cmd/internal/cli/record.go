package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
)

// ByteSize is a flag's number of bytes: a whole number with an optional unit, KB, MB, GB
// (powers of 1000) or KiB, MiB, GiB (powers of 1024), as in "64MiB", "500KB" or "1000000".
type ByteSize int64

// sizeUnits are the units ByteSize reads, longest first so that "MiB" is not read as "B".
var sizeUnits = []struct {
	name string
	n    int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"B", 1},
}

// maxByteSize keeps a size and its arithmetic far from overflow: 1 TiB.
const maxByteSize = 1 << 40

func (s *ByteSize) Set(v string) error {
	num, mul := strings.TrimSpace(v), int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(num, u.name); ok {
			num, mul = strings.TrimSpace(n), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > maxByteSize/mul {
		return fmt.Errorf("want a size such as 64MiB, 500KB or 1000000 (bytes), at most 1TiB")
	}
	*s = ByteSize(n * mul)
	return nil
}

// String writes the size in the largest binary unit that holds it whole.
func (s ByteSize) String() string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s > 0 && int64(s)%u.n == 0 {
			return strconv.FormatInt(int64(s)/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10)
}

// RecordFlags are --record and --record-limit, shared by both binaries.
type RecordFlags struct {
	Path  string
	Limit ByteSize
}

// Register adds --record and --record-limit to fs. what says which socket a binary records.
func (r *RecordFlags) Register(fs *flag.FlagSet, what string) {
	fs.StringVar(&r.Path, "record", "", "write every datagram of "+what+", sent, received and dropped by the link conditioner, with its time, to this pcapng `file` (Wireshark opens it; assets/wireshark dissects it), and the keys that open the sealed ones to file.keys")
	r.Limit = record.DefaultLimit
	fs.Var(&r.Limit, "record-limit", "the largest the --record file grows: later datagrams are counted, not written (KB, MB, GB, KiB, MiB, GiB)")
}

// minRecordLimit is the smallest --record-limit: room for the capture's headers and a few
// datagrams.
const minRecordLimit = 4 << 10

// check reports a --record-limit too small for any capture.
func (r *RecordFlags) check() error {
	if r.Limit < minRecordLimit {
		return fmt.Errorf("--record-limit %v: at least %v, room for a capture's headers and a few datagrams", r.Limit, ByteSize(minRecordLimit))
	}
	return nil
}

// openRecord creates the --record files, if asked for.
func (c *Command) openRecord() error {
	if c.Record.Path == "" {
		return nil
	}
	r, err := record.Create(c.Record.Path, record.Options{Limit: int64(c.Record.Limit), Logger: c.Logger})
	if err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	c.Recorder = r
	return nil
}

// TapAndKeys puts the recorder, if --record asked for one, on a transport configuration: the
// socket shows it every datagram, and the endpoints tell it their connections' keys.
func (c *Command) TapAndKeys(cfg *transport.Config) {
	if c.Recorder == nil {
		return
	}
	cfg.Tap = c.Recorder
	cfg.KeyLog = c.Recorder.KeyLog
}

// CloseRecord finishes the --record capture: it writes what is queued, closes the files and
// says on standard error what the capture holds. Call it once the game's socket is closed. Its
// error is the capture's or the key file's (a full disk), after which the files hold what was
// written before.
func (c *Command) CloseRecord() error {
	r := c.Recorder
	if r == nil {
		return nil
	}
	c.Recorder = nil
	err := r.Close()
	st := r.Stats()
	fmt.Fprintf(c.stderr, "%s: recorded %d datagrams to %s (keys in %s)", c.Name, st.Written, c.Record.Path, record.KeysPath(c.Record.Path))
	if st.OverLimit > 0 {
		fmt.Fprintf(c.stderr, "; %d more after it reached --record-limit %v", st.OverLimit, c.Record.Limit)
	}
	if st.QueueFull > 0 {
		fmt.Fprintf(c.stderr, "; %d lost because the disk was too slow", st.QueueFull)
	}
	fmt.Fprintln(c.stderr)
	if err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	return nil
}
