package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
)

// The figures of BenchmarkLockstepOverRealUDP that its processes' --stats reports do not hold:
// the lead the clients ran with, from their status lines, and how long the server took to
// find each corruption --inject-desync made and to repair it, from the logs.

// percentile is the p-th percentile of xs (nearest rank); xs is not changed.
func percentile(xs []int64, p float64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// everyAgrees counts the frames whose world hash the server's report and every client's hold,
// older than the newest settled frames of the host that stopped first (frames), and those where
// every client's hash is the server's (agreed).
func everyAgrees(server game.Report, clients []game.Report, settled uint32) (agreed, frames int) {
	last := server.Frame
	for _, c := range clients {
		last = min(last, c.Frame)
	}
	for f, h := range server.WorldHashes {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil || uint32(n)+settled > last {
			continue
		}
		held, equal := true, true
		for _, c := range clients {
			ch, ok := c.WorldHashes[f]
			held, equal = held && ok, equal && ch == h
		}
		if held {
			frames++
			if equal {
				agreed++
			}
		}
	}
	return agreed, frames
}

// statusLine is a headless client's status line: "frame 123  lead 300 ms  rtt …", or with a
// change on its way "frame 123  lead 300 ms → 500 ms at frame 140  rtt …" (the first is the
// lead in force).
var statusLine = regexp.MustCompile(`^frame (\d+)  lead (\d+) ms`)

// readStatusLines reads a client's output: the lead of each status line after the first skip
// of them (one a second) whose world had started, and the fewest frames run between two such
// lines in a row (-1 when fewer than two).
func readStatusLines(path string, skip int) (leads []int64, slowest int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, -1, err
	}
	defer f.Close()
	slowest, prev, n := -1, -1, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := statusLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue // a chat line
		}
		if n++; n <= skip {
			continue
		}
		frame, _ := strconv.Atoi(m[1])
		lead, _ := strconv.ParseInt(m[2], 10, 64)
		if frame == 0 {
			continue
		}
		leads = append(leads, lead)
		if prev >= 0 && (slowest < 0 || frame-prev < slowest) {
			slowest = frame - prev
		}
		prev = frame
	}
	return leads, slowest, sc.Err()
}

// logLine is one line of a process's log (slog's text format): its time, message and
// attributes.
type logLine struct {
	at    time.Time
	msg   string
	attrs map[string]string
}

// readLog reads the lines of a log whose message is one of msgs.
func readLog(path string, msgs ...string) ([]logLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		attrs := parseLogAttrs(sc.Text())
		if !slices.Contains(msgs, attrs["msg"]) {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, attrs["time"])
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %v", path, sc.Text(), err)
		}
		lines = append(lines, logLine{at: at, msg: attrs["msg"], attrs: attrs})
	}
	return lines, sc.Err()
}

// parseLogAttrs splits a text log line into its key=value pairs, a quoted value unquoted.
func parseLogAttrs(line string) map[string]string {
	attrs := map[string]string{}
	for line != "" {
		k, rest, ok := strings.Cut(line, "=")
		if !ok {
			break
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				break
			}
			v, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			v, rest, _ = strings.Cut(rest, " ")
		}
		attrs[k] = v
		line = strings.TrimLeft(rest, " ")
	}
	return attrs
}

// desyncTiming is one corruption a client's --inject-desync made: when, at which frame, and
// how long after it the server's hash check found it (found: its first "hash mismatch" of that
// player for a later frame), and how long after that the server decided the repair (decided:
// its next real-time re-sync or stop-the-world of that player) and the client received it
// (received). A negative duration: it did not happen before the client's next corruption.
type desyncTiming struct {
	client                   string
	at                       time.Time
	frame                    uint32
	found, decided, received time.Duration
}

// desyncTimings reads the server's log (hosts[0]) and its clients' and times every corruption
// the clients' logs name.
func desyncTimings(hosts []*udpHost) ([]desyncTiming, error) {
	server, err := readLog(hosts[0].log, "join", "hash mismatch", "real-time re-sync", "stop the world")
	if err != nil {
		return nil, err
	}
	seats := map[string]string{} // name → seat
	for _, l := range server {
		if l.msg == "join" {
			seats[l.attrs["name"]] = l.attrs["seat"]
		}
	}
	var all []desyncTiming
	for _, h := range hosts[1:] {
		client, err := readLog(h.log, "desync injected", "repair received")
		if err != nil {
			return nil, err
		}
		var injected []logLine
		for _, l := range client {
			if l.msg == "desync injected" {
				injected = append(injected, l)
			}
		}
		seat, ok := seats[h.name]
		for i, inj := range injected {
			frame, _ := strconv.ParseUint(inj.attrs["frame"], 10, 32)
			d := desyncTiming{client: h.name, at: inj.at, frame: uint32(frame), found: -1, decided: -1, received: -1}
			end := time.Time{}
			if i+1 < len(injected) {
				end = injected[i+1].at
			}
			before := func(t time.Time) bool { return end.IsZero() || t.Before(end) }
			var foundAt time.Time
			for _, l := range server {
				if !ok || l.attrs["seat"] != seat || !before(l.at) || l.at.Before(inj.at) {
					continue
				}
				f, _ := strconv.ParseUint(l.attrs["frame"], 10, 32)
				switch {
				case foundAt.IsZero() && l.msg == "hash mismatch" && uint32(f) > d.frame:
					foundAt, d.found = l.at, l.at.Sub(inj.at)
				case !foundAt.IsZero() && d.decided < 0 && (l.msg == "real-time re-sync" || l.msg == "stop the world"):
					d.decided = l.at.Sub(foundAt)
				}
			}
			for _, l := range client {
				if !foundAt.IsZero() && d.received < 0 && l.msg == "repair received" && !l.at.Before(foundAt) && before(l.at) {
					d.received = l.at.Sub(foundAt)
				}
			}
			all = append(all, d)
		}
	}
	return all, nil
}

// foundTimes and repairTimes are the corruptions' times to be found, and from found to the
// repair's arrival at the client, in ms, of those that were.
func foundTimes(ds []desyncTiming) []int64 {
	var ms []int64
	for _, d := range ds {
		if d.found >= 0 {
			ms = append(ms, d.found.Milliseconds())
		}
	}
	return ms
}

func repairTimes(ds []desyncTiming) []int64 {
	var ms []int64
	for _, d := range ds {
		if d.received >= 0 {
			ms = append(ms, d.received.Milliseconds())
		}
	}
	return ms
}

// logDesyncs logs every corruption's times, and their percentiles.
func logDesyncs(t testing.TB, ds []desyncTiming) {
	t.Helper()
	if len(ds) == 0 {
		return
	}
	logDesyncLines(t, ds)
	summarizeDesyncs(t, ds)
}

// logDesyncLines logs each corruption's times, a line each.
func logDesyncLines(t testing.TB, ds []desyncTiming) {
	t.Helper()
	ms := func(d time.Duration) string {
		if d < 0 {
			return "never"
		}
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	for _, d := range ds {
		t.Logf("%s: corrupted at %s (frame %d); found %s after; the repair decided %s after that, received %s after that",
			d.client, d.at.Format("15:04:05.000"), d.frame, ms(d.found), ms(d.decided), ms(d.received))
	}
}

// summarizeDesyncs logs the percentiles of the corruptions' times: found, the repair decided,
// and the repair received.
func summarizeDesyncs(t testing.TB, ds []desyncTiming) {
	t.Helper()
	var decided []int64
	for _, d := range ds {
		if d.decided >= 0 {
			decided = append(decided, d.decided.Milliseconds())
		}
	}
	summary := func(what string, xs []int64) {
		if len(xs) == 0 {
			t.Logf("%s: none of %d", what, len(ds))
			return
		}
		t.Logf("%s: %d of %d; p50 %d ms, p95 %d ms, max %d ms", what, len(xs), len(ds), percentile(xs, 0.50), percentile(xs, 0.95), slices.Max(xs))
	}
	summary("found, after the corruption", foundTimes(ds))
	summary("repair decided, after found", decided)
	summary("repair received by the client, after found", repairTimes(ds))
}
