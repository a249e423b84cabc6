package record

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/ackattack/ackattack/net/wire"
)

// The key file: one line per direction of each connection, written when the connection's
// keys are known, in the manner of the key log files that let Wireshark read TLS:
//
//	# comment lines start with #; blank lines are ignored
//	ACKATTACK_KEY <unix nanoseconds> <from address:port> <to address:port> <key: 64 hex digits>
//
//	ACKATTACK_KEY 1700000000000000000 127.0.0.1:50432 127.0.0.1:7777 ec34ff33f467e85cd7a703c5f246a640090ff2c3087283a52e77ed70d2af4e2d
//
// The key opens the sealed datagrams that go from the first address to the second (net/
// PROTOCOL.md section 3); the addresses are written as the capture's IP and UDP headers have
// them ([::1]:7777 for IPv6). The time is when the recording host learned the keys. An address
// pair can have several keys over a capture (a client that reconnects from the same port):
// a reader tries the one logged last before the datagram first, then the others, and keeps
// the one that opens it.

// keyLabel starts every key line.
const keyLabel = "ACKATTACK_KEY"

// keyFileHeader is the comment at the top of every key file the recorder writes.
const keyFileHeader = `# AckAttack key log (net/record): the keys of the sealed datagrams in the capture beside it.
# Whoever holds this file can read and forge those connections' datagrams.
# ACKATTACK_KEY <unix nanoseconds> <from address:port> <to address:port> <ChaCha20-Poly1305 key, hex>
`

// maxKeyLines bounds the key lines a reader takes from one file: two per connection, so
// room for 50,000 connections, far more than a capture's limit holds.
const maxKeyLines = 100_000

// maxKeyLineLen bounds one line: a key line with two IPv6 addresses with zones fits in 256.
const maxKeyLineLen = 512

// Key is one line of a key file: the key of the datagrams from From to To, known since At.
type Key struct {
	At       time.Time
	From, To netip.AddrPort
	Key      [wire.KeySize]byte
}

// appendKeyLine appends k's line, with its line feed.
func appendKeyLine(b []byte, k Key) []byte {
	b = append(b, keyLabel...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, k.At.UnixNano(), 10)
	b = append(b, ' ')
	b = k.From.AppendTo(b)
	b = append(b, ' ')
	b = k.To.AppendTo(b)
	b = append(b, ' ')
	b = hex.AppendEncode(b, k.Key[:])
	return append(b, '\n')
}

// ErrKeyFile is wrapped by every error ParseKeys returns.
var ErrKeyFile = errors.New("record: bad key file")

// ParseKeys reads a key file. An error names the line that breaks the format; a file of more
// than 100,000 key lines, or with a line longer than 512 bytes, is refused.
func ParseKeys(r io.Reader) ([]Key, error) {
	keys, bad, err := parseKeys(r)
	if err == nil {
		err = bad.first
	}
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// badLines counts the key lines that break the format, and keeps the first one's error.
type badLines struct {
	n     int
	first error
}

// parseKeys reads a key file, going past the lines that break the format (bad). err is what
// ends the reading early: more than 100,000 key lines, good or bad, a line longer than 512
// bytes, a failed read.
func parseKeys(r io.Reader) (keys []Key, bad badLines, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, maxKeyLineLen), maxKeyLineLen)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		if len(keys)+bad.n == maxKeyLines {
			return nil, bad, fmt.Errorf("%w: more than %d key lines", ErrKeyFile, maxKeyLines)
		}
		k, err := parseKeyLine(text)
		if err != nil {
			if bad.n++; bad.first == nil {
				bad.first = fmt.Errorf("%w: line %d: %v", ErrKeyFile, line, err)
			}
			continue
		}
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, bad, fmt.Errorf("%w: a line longer than %d bytes", ErrKeyFile, maxKeyLineLen)
		}
		return nil, bad, fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	return keys, bad, nil
}

// parseKeyLine reads one key line, without its line feed.
func parseKeyLine(s string) (Key, error) {
	f := strings.Fields(s)
	if len(f) != 5 || f[0] != keyLabel {
		return Key{}, fmt.Errorf("want %s <unix nanoseconds> <from> <to> <key>, got %d fields", keyLabel, len(f))
	}
	var k Key
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return Key{}, fmt.Errorf("time %q: %v", f[1], err)
	}
	k.At = time.Unix(0, ns)
	if k.From, err = netip.ParseAddrPort(f[2]); err != nil {
		return Key{}, fmt.Errorf("from: %v", err)
	}
	if k.To, err = netip.ParseAddrPort(f[3]); err != nil {
		return Key{}, fmt.Errorf("to: %v", err)
	}
	if len(f[4]) != 2*wire.KeySize {
		return Key{}, fmt.Errorf("key of %d hex digits, want %d", len(f[4]), 2*wire.KeySize)
	}
	if _, err := hex.Decode(k.Key[:], []byte(f[4])); err != nil {
		return Key{}, fmt.Errorf("key: %v", err)
	}
	return k, nil
}
