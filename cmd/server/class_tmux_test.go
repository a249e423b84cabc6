package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
)

// The README's class, played with the real binaries in real terminals: the commands of its
// section "For teachers: a 45-minute class" as written there (go run replaced by the built
// binary, TEACHER by the loopback address, the port by a free one, the capture by a file in
// the test's directory), and what its table says happens, row by row, read off the screens.
// Each row's checks are subtests named after the row: a check that fails ends its subtest
// alone, says which row it was and shows the screen, and the class goes on, so that one run
// tells every row that holds from every row that does not.

// classSection is the heading of the README's class section.
const classSection = "## For teachers: a 45-minute class"

// classPlan is what the test takes from the README's class section.
type classPlan struct {
	// The commands, each as the README writes it after "go run": the package, then its
	// arguments.
	server, projector, student, replay, lesson []string
	port                                       string // the server's port in the README (7777)
	rows                                       []classRow
	prose                                      []string // the paragraphs, one string each
}

// classRow is a row of the class table: its minutes ("5–12") and the whole row's text; or a
// paragraph of the section, as a row of its own.
type classRow struct {
	minutes, text string
}

// where names the row in a failure's message.
func (r classRow) where() string {
	if r.minutes == afterTable {
		return "README.md's class section, the paragraph after the table"
	}
	return "README.md's class table, row " + r.minutes
}

// afterTable stands for the minutes of a paragraph after the table.
const afterTable = "after the table"

// parseClassPlan reads the class section of readme: the commands of its shell blocks, the
// lesson command in its table, its table and its paragraphs. It fails, saying what it missed,
// when the section no longer has the shape the test plays.
func parseClassPlan(readme string) (classPlan, error) {
	var p classPlan
	start := strings.Index(readme, "\n"+classSection+"\n")
	if start < 0 {
		return p, fmt.Errorf("README.md has no section %q", classSection)
	}
	section := readme[start+len(classSection)+2:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var commands [][]string
	fence, para := false, ""
	endPara := func() {
		if para != "" {
			p.prose = append(p.prose, para)
			para = ""
		}
	}
	for i, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			endPara()
			fence = !fence
		case fence:
			line, _, _ = strings.Cut(line, " #") // the comment
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			if strings.HasPrefix(line, "tshark ") || strings.HasPrefix(line, "wireshark ") {
				continue // the capture opened in Wireshark: cmd/client's TestREADMETsharkOpensTheClassCapture runs it
			}
			argv, err := goRun(line)
			if err != nil {
				return p, fmt.Errorf("README.md's class section, line %d of the section: %w", i+1, err)
			}
			commands = append(commands, argv)
		case strings.HasPrefix(line, "|"):
			endPara()
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			if len(cells) < 2 || cells[0] == "minutes" || strings.HasPrefix(cells[0], "---") {
				continue
			}
			p.rows = append(p.rows, classRow{minutes: cells[0], text: strings.Join(cells[1:], " | ")})
		case strings.TrimSpace(line) == "":
			endPara()
		default:
			para = strings.TrimSpace(para + " " + line)
		}
	}
	endPara()
	if fence {
		return p, errors.New("README.md's class section: a code block is not closed")
	}
	if len(p.rows) == 0 {
		return p, errors.New("README.md's class section has no table of what happens")
	}
	// The lesson command is in the table: `go run ./cmd/client --lesson 3`.
	for _, r := range p.rows {
		for _, code := range backquoted(r.text) {
			if strings.HasPrefix(code, "go run ") && strings.Contains(code, "--lesson") && p.lesson == nil {
				argv, err := goRun(code)
				if err != nil {
					return p, fmt.Errorf("%s: %w", r.where(), err)
				}
				p.lesson = argv
			}
		}
	}
	for _, argv := range commands {
		var role *[]string
		switch {
		case argv[0] == "./cmd/server":
			role = &p.server
		case argv[0] != "./cmd/client":
			return p, fmt.Errorf("README.md's class section runs %s: the test knows ./cmd/server and ./cmd/client", argv[0])
		case hasFlag(argv, "--replay"):
			role = &p.replay
		case hasFlag(argv, "--spectate"):
			role = &p.projector
		case hasFlag(argv, "--name"):
			role = &p.student
		default:
			return p, fmt.Errorf("README.md's class section: %q is neither the projector (--spectate), a student (--name) nor the replay (--replay)", strings.Join(argv, " "))
		}
		if *role != nil {
			return p, fmt.Errorf("README.md's class section has two commands for one role: %q and %q", strings.Join(*role, " "), strings.Join(argv, " "))
		}
		*role = argv
	}
	for _, c := range []struct {
		argv *[]string
		what string
	}{
		{&p.server, "server command (go run ./cmd/server --listen 0.0.0.0:7777 ...)"},
		{&p.projector, "projector command (go run ./cmd/client ... --spectate --record class.pcapng)"},
		{&p.student, "student join command (go run ./cmd/client --connect TEACHER:7777 --name ann)"},
		{&p.replay, "replay command (go run ./cmd/client --replay class.pcapng)"},
		{&p.lesson, "lesson command in its table (go run ./cmd/client --lesson 3)"},
	} {
		if *c.argv == nil {
			return p, fmt.Errorf("README.md's class section has no %s", c.what)
		}
	}
	listen, _ := flagValue(p.server, "--listen")
	_, port, err := net.SplitHostPort(listen)
	if err != nil || port == "" || port == "0" {
		return p, fmt.Errorf("README.md's class section: the server's --listen %q has no port", listen)
	}
	p.port = port
	for _, c := range []struct {
		argv []string
		who  string
	}{{p.projector, "the projector"}, {p.student, "a student"}} {
		addr, _ := flagValue(c.argv, "--connect")
		if host, port, err := net.SplitHostPort(addr); err != nil || port != p.port || host == "" {
			return p, fmt.Errorf("README.md's class section: %s connects to %q, not to the server's port %s", c.who, addr, p.port)
		}
	}
	if addr, _ := flagValue(p.student, "--connect"); !strings.HasPrefix(addr, "TEACHER:") {
		return p, fmt.Errorf("README.md's class section: a student connects to %q, not to TEACHER:%s", addr, p.port)
	}
	if name, _ := flagValue(p.student, "--name"); name == "" {
		return p, errors.New("README.md's class section: a student's command has an empty --name")
	}
	record, _ := flagValue(p.projector, "--record")
	replay, _ := flagValue(p.replay, "--replay")
	if record == "" || record != replay {
		return p, fmt.Errorf("README.md's class section: the projector records %q and the replay plays %q", record, replay)
	}
	return p, nil
}

// goRun splits a command line of the README, "go run ./cmd/X args...", into ./cmd/X and its
// arguments. The test runs the binaries without a shell: a line that needs one is refused.
func goRun(line string) ([]string, error) {
	if strings.ContainsAny(line, "'\"$`\\|;&<>*?") {
		return nil, fmt.Errorf("%q needs a shell (quotes, variables, pipes): the test runs the commands without one", line)
	}
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != "go" || f[1] != "run" || !strings.HasPrefix(f[2], "./cmd/") {
		return nil, fmt.Errorf("%q is not \"go run ./cmd/X ...\"", line)
	}
	return f[2:], nil
}

// backquoted returns the `code` spans of a line of markdown.
func backquoted(s string) []string {
	var spans []string
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		spans = append(spans, parts[i])
	}
	return spans
}

// hasFlag reports whether argv has the flag, as --flag, --flag value or --flag=value.
func hasFlag(argv []string, flag string) bool {
	return slices.ContainsFunc(argv, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
}

// flagValue is the value of --flag value or --flag=value in argv.
func flagValue(argv []string, flag string) (string, bool) {
	for i, a := range argv {
		if a == flag && i+1 < len(argv) {
			return argv[i+1], true
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
	}
	return "", false
}

// setFlag is argv with flag's value set to v.
func setFlag(argv []string, flag, v string) []string {
	argv = slices.Clone(argv)
	for i, a := range argv {
		if a == flag && i+1 < len(argv) {
			argv[i+1] = v
			return argv
		}
		if strings.HasPrefix(a, flag+"=") {
			argv[i] = flag + "=" + v
			return argv
		}
	}
	return append(argv, flag, v)
}

// TestParseClassPlan: the README's own class section parses, and a section whose commands
// change shape fails with a message that says what changed.
func TestParseClassPlan(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if _, err := parseClassPlan(readme); err != nil {
		t.Fatalf("the README's class section: %v", err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"no section", classSection, "## For teachers", "has no section"},
		{"server renamed", "go run ./cmd/server --listen", "go run ./cmd/host --listen", "./cmd/host"},
		{"no student", "go run ./cmd/client --connect TEACHER:7777 --name ann\n", "\n", "no student join command"},
		{"student on another port", "--connect TEACHER:7777 --name ann", "--connect TEACHER:7778 --name ann", "not to the server's port 7777"},
		{"student to the loopback", "--connect TEACHER:7777 --name ann", "--connect 127.0.0.1:7777 --name ann", "not to TEACHER:7777"},
		{"replay of another file", "--replay class.pcapng", "--replay other.pcapng", `records "class.pcapng" and the replay plays "other.pcapng"`},
		{"a shell variable", "--connect TEACHER:7777 --name ann", "--connect TEACHER:7777 --name $USER", "needs a shell"},
		{"no lesson command", "`go run ./cmd/client --lesson 3`", "`lesson 3`", "no lesson command"},
		{"the projector twice", "--name ann\n", "--name ann\ngo run ./cmd/client --connect 127.0.0.1:7777 --spectate\n", "two commands for one role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := strings.Replace(readme, tc.old, tc.new, 1)
			if changed == readme {
				t.Fatalf("the README has no %q to change", tc.old)
			}
			_, err := parseClassPlan(changed)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// classroom is the class while it runs: the plan, the binaries and where each person's files go.
type classroom struct {
	t    *testing.T
	plan classPlan
	bins map[string]string // by package: "./cmd/server", "./cmd/client"
	port string            // the free port that stands for the README's
	dir  string
}

// argv is a README command as the test runs it: the binary for go run's package, TEACHER the
// loopback address, the README's port the free one, and the capture a file in the test's
// directory.
func (c *classroom) argv(cmd []string) []string {
	argv := []string{c.bins[cmd[0]]}
	for i, a := range cmd[1:] {
		a = strings.ReplaceAll(a, "TEACHER", "127.0.0.1")
		if host, port, err := net.SplitHostPort(a); err == nil && port == c.plan.port {
			a = net.JoinHostPort(host, c.port)
		}
		if prev := cmd[i]; prev == "--record" || prev == "--replay" {
			a = filepath.Join(c.dir, a)
		}
		argv = append(argv, a)
	}
	return argv
}

// start runs argv in a 100×30 terminal as the person who: a home (and a configuration
// directory) of their own, where a client keeps who it is, and a temporary directory of their
// own for the log.
func (c *classroom) start(who string, argv []string) *tmuxtest.Pane {
	c.t.Helper()
	home := filepath.Join(c.dir, "home-"+who)
	tmp := filepath.Join(home, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		c.t.Fatal(err)
	}
	env := []string{"env", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "TMPDIR=" + tmp}
	return tmuxtest.Start(c.t, 100, 30, append(env, argv...)...)
}

// row is the table's row of the minutes, and fails the test when the table has none. The
// keys a row's checks press must be the row's own: a README that changes them fails here.
func (c *classroom) row(minutes string, keys ...string) classRow {
	c.t.Helper()
	for _, r := range c.plan.rows {
		if r.minutes == minutes {
			for _, k := range keys {
				if !r.mentions(k) {
					c.t.Errorf("README.md's class table, row %s, no longer names the key %s the test presses: %s", minutes, k, r.text)
				}
			}
			return r
		}
	}
	c.t.Fatalf("README.md's class table has no row %q: the test plays it", minutes)
	return classRow{}
}

// paragraph is the class section's paragraph that says about, as a row of its own ("after the
// table"), and fails the test when there is none.
func (c *classroom) paragraph(about string, keys ...string) classRow {
	c.t.Helper()
	for _, p := range c.plan.prose {
		if strings.Contains(p, about) {
			r := classRow{minutes: afterTable, text: p}
			for _, k := range keys {
				if !r.mentions(k) {
					c.t.Errorf("README.md's class section, the paragraph %q, no longer names the key %s the test presses", about, k)
				}
			}
			return r
		}
	}
	c.t.Fatalf("README.md's class section has no paragraph about %q: the test plays it", about)
	return classRow{}
}

// mentions reports whether the row names key: as `key`, or, for a function key, as the word.
func (r classRow) mentions(key string) bool {
	if strings.Contains(r.text, "`"+key+"`") {
		return true
	}
	return strings.HasPrefix(key, "F") && regexp.MustCompile(`\b`+key+`\b`).MatchString(r.text)
}

// check runs one check of a row as a subtest, and reports whether it passed.
func (c *classroom) check(r classRow, what string, f func(t *testing.T)) bool {
	return c.t.Run(r.minutes+": "+what, f)
}

// wait waits on p's screen for ok, failing t with the row, what was awaited and the screen.
func (r classRow) wait(t *testing.T, p *tmuxtest.Pane, what string, ok func(screen string) bool) string {
	t.Helper()
	text := r.text
	if n := 90; len([]rune(text)) > n {
		text = string([]rune(text)[:n]) + "…"
	}
	return p.For(t).Wait(fmt.Sprintf("%s (%q): %s", r.where(), text, what), ok)
}

// waitText waits until p's screen holds every one of texts.
func (r classRow) waitText(t *testing.T, p *tmuxtest.Pane, who string, texts ...string) string {
	t.Helper()
	return r.wait(t, p, fmt.Sprintf("%s shows %q", who, texts), func(s string) bool {
		return !slices.ContainsFunc(texts, func(x string) bool { return !strings.Contains(s, x) })
	})
}

// quit presses q in p, and fails t unless who exits with status 0.
func (r classRow) quit(t *testing.T, p *tmuxtest.Pane, who string) {
	t.Helper()
	p.For(t).Send("q")
	if status := p.For(t).Exit(); status != 0 {
		t.Fatalf("%s: %s exits %d after q, want 0; last screen:\n%s", r.where(), who, status, p.Last())
	}
}

// freezeAndStep freezes the graph view p shows (f), steps it (.), and makes it live again and
// closes the panel.
func (r classRow) freezeAndStep(t *testing.T, p *tmuxtest.Pane, who string) {
	t.Helper()
	r.waitText(t, p, who+"'s graph view", "live  f: freeze")
	p.For(t).Send("f")
	r.waitText(t, p, who+"'s graph view", "FROZEN")
	// Frozen at the latest message, the first step may have none to go to ("no newer step
	// yet"): the test presses . again each second, as a person would, until one steps.
	polls := 0
	r.wait(t, p, who+"'s frozen graph to step (its notice says \"step: \"; the test presses . each second)", func(s string) bool {
		if strings.Contains(s, "step: ") {
			return true
		}
		if polls++; polls%10 == 1 {
			p.For(t).Send(".")
		}
		return false
	})
	p.For(t).Send("f", "d")
	r.wait(t, p, who+"'s map back", func(s string) bool { return !strings.Contains(s, "debug: server link") })
}

// newestMessage is the highest message number (#n) the graph view on screen shows.
func newestMessage(screen string) int {
	newest := -1
	for _, m := range graphMessage.FindAllStringSubmatch(screen, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			newest = max(newest, n)
		}
	}
	return newest
}

// waitChat waits until the chat panel of p shows line.
func (r classRow) waitChat(t *testing.T, p *tmuxtest.Pane, who, line string) string {
	t.Helper()
	return r.wait(t, p, fmt.Sprintf("%s's chat shows %q", who, line), func(s string) bool {
		return strings.Contains(chatText(s), line)
	})
}

// chatText is the text of a screen's right-hand column, where the chat is, its rows joined
// by spaces: a chat line the panel wrapped reads whole.
func chatText(screen string) string {
	var rows []string
	for _, line := range strings.Split(screen, "\n") {
		if i := strings.LastIndex(line, "│"); i > 0 {
			if j := strings.LastIndex(line[:i], "│"); j >= 0 {
				rows = append(rows, strings.TrimSpace(line[j+len("│"):i]))
			}
		}
	}
	return strings.Join(rows, " ")
}

// waitStatus waits until the status line (the screen's last line) of p holds every one of texts.
func (r classRow) waitStatus(t *testing.T, p *tmuxtest.Pane, who string, texts ...string) string {
	t.Helper()
	return r.wait(t, p, fmt.Sprintf("%s's status line shows %q", who, texts), func(s string) bool {
		line := lastLine(s)
		return !slices.ContainsFunc(texts, func(x string) bool { return !strings.Contains(line, x) })
	})
}

// lastLine is a screen's last line: the status line of every screen.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

// seatRow is a row of the server's player table: seat, name, state (its first word) and rtt.
var seatRow = regexp.MustCompile(`(?m)^║(\d+|s\d+) +(\S+) +(\S+)(?: +([\d.]+ m?s|-))?`)

// seatOf is the seat of name in the server's player table, its state's first word, and how
// many rows bear the name.
func seatOf(screen, name string) (seat, state string, rows int) {
	for _, m := range seatRow.FindAllStringSubmatch(screen, -1) {
		if m[2] == name {
			seat, state, rows = m[1], m[3], rows+1
		}
	}
	return seat, state, rows
}

var (
	// leadOnStatus is the lead in force on a status line.
	leadOnStatus = regexp.MustCompile(`  lead (\d+) ms`)
	// rttOnStatus is the round trip on a status line.
	rttOnStatus = regexp.MustCompile(`  rtt ([\d.]+) ms`)
	// linkPanelLoss is the loss slider of the link panel.
	linkPanelLoss = regexp.MustCompile(`│loss +\[[#-]+\] +(\d+)%│`)
	// ackCells are the acks view's 32 cells: █ acked, x lost, . in flight.
	ackCells = regexp.MustCompile(`sent +([█x.]+)`)
	// rttLine is the acks view's round-trip line: the latest, and the sparkline of the samples.
	rttLine = regexp.MustCompile(`rtt {3}\S+ [▁▂▃▄▅▆▇█]*`)
	// lateLine is the hashes view's first line at a lead of 100 ms: the late events run again.
	lateLine = regexp.MustCompile(`lead 100 ms \(teacher\) · late events: (\d+) re-runs?`)
	// The hashes view's record of a mismatch, its drill-down to the units, and the repair.
	mismatchRecord = regexp.MustCompile(`frame \d+ +player \d+`)
	drillDown      = regexp.MustCompile(`unit \d+ +local [0-9a-f]{16} +server [0-9a-f]{16}`)
	repair         = regexp.MustCompile(`-> (real-time re-sync at frame \d+|stop-the-world, pause at frame \d+)`)
	// graphMessage is a message of the graph view: its number and type.
	graphMessage = regexp.MustCompile(`#(\d+) +[A-Z]\w+ `)
	// replayPosition is the replay's timeline: datagram n of all.
	replayPosition = regexp.MustCompile(`datagram (\d+) of (\d+)`)
)

// rttMillis is the round trip on a screen's status line, -1 if it shows none.
func rttMillis(screen string) float64 {
	m := rttOnStatus.FindStringSubmatch(lastLine(screen))
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return v
}

// leadMillis is the lead on a screen's status line, -1 if it shows none.
func leadMillis(screen string) int {
	m := leadOnStatus.FindStringSubmatch(lastLine(screen))
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestClassFromREADME plays the README's 45-minute class with the real binaries, each in a
// terminal of its own: the server, the projector, and two students, ann and bob; then the
// replay of the projector's capture. Each row of the README's table is a group of subtests
// ("5–12: F6 puts 10% loss on every client's link"), played in the table's order, then the
// paragraph on the spectators' chat and the clean link, and a second look at the graph once
// it has seen more messages than it keeps, as at minute 12 of a real class. It plays what the
// server, the projector and the students do in the class game; of the lessons the students
// play alone it runs the one the table names (cmd/client tests the lessons), and it leaves out
// what hangs on which packets the link happens to lose (a kill in the graph waiting on its
// spawn) and the lessons of minutes 36–40.
func TestClassFromREADME(t *testing.T) {
	tmuxtest.Require(t)
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := parseClassPlan(string(b))
	if err != nil {
		t.Fatal(err)
	}
	_, port, err := net.SplitHostPort(freeUDPAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	c := &classroom{t: t, plan: plan, port: port, dir: t.TempDir(), bins: map[string]string{
		"./cmd/server": tmuxtest.Build(t, "server"),
		"./cmd/client": tmuxtest.BuildPackage(t, "client", "../client"),
	}}
	ann, _ := flagValue(plan.student, "--name")
	const bob = "bob"
	var server, projector, annPane, bobPane *tmuxtest.Pane
	annSeat := ""

	// 0–5: everybody joins and plays on a clean link; spectators see SPECTATING; Enter chats.
	join := c.row("0–5", "Enter")
	if !c.check(join, "the server serves", func(t *testing.T) {
		server = c.start("teacher", c.argv(plan.server))
		join.waitText(t, server, "the server", "serving on")
	}) {
		t.Fatal("the server did not start: the class cannot go on")
	}
	c.check(join, "the projector shows SPECTATING on its status line", func(t *testing.T) {
		projector = c.start("teacher", c.argv(plan.projector))
		join.waitStatus(t, projector, "the projector", "SPECTATING")
	})
	if !c.check(join, "the students are seated and play on a clean link", func(t *testing.T) {
		annPane = c.start(ann, c.argv(plan.student))
		bobPane = c.start(bob, c.argv(setFlag(plan.student, "--name", bob)))
		for _, s := range []struct {
			p    *tmuxtest.Pane
			name string
		}{{annPane, ann}, {bobPane, bob}} {
			join.waitStatus(t, s.p, s.name, "link clean", "RUNNING")
		}
		screen := join.wait(t, server, "the server's table seats "+ann+" and "+bob+", playing", func(s string) bool {
			_, a, _ := seatOf(s, ann)
			_, b, _ := seatOf(s, bob)
			return a == "playing" && b == "playing"
		})
		annSeat, _, _ = seatOf(screen, ann)
	}) {
		t.Fatal("the students are not seated: the class cannot go on")
	}
	c.check(join, "Enter: the students see each other's chat", func(t *testing.T) {
		annPane.For(t).Send("Enter")
		annPane.For(t).SendText("hello from ann")
		annPane.For(t).Send("Enter")
		join.waitChat(t, bobPane, bob, ann+": hello from ann")
		bobPane.For(t).Send("Enter")
		bobPane.For(t).SendText("hi ann, bob here")
		bobPane.For(t).Send("Enter")
		join.waitChat(t, annPane, ann, bob+": hi ann, bob here")
		join.waitChat(t, projector, "the projector", ann+": hello from ann")
		join.waitChat(t, projector, "the projector", bob+": hi ann, bob here")
	})

	// 5–12: c gives the class the sliders, F6 puts 10% loss on every client's link; the acks
	// view shows the lost packets as holes, and the RTT line keeps going.
	acks := c.row("5–12", "c", "F6", "d", "n")
	c.check(acks, "c gives the class's link to the sliders", func(t *testing.T) {
		server.For(t).Send("c")
		acks.waitText(t, server, "the server", "class link: every client")
	})
	c.check(acks, "F6 puts 10% loss on every client's link", func(t *testing.T) {
		server.For(t).Send("F6")
		for _, s := range []struct {
			p    *tmuxtest.Pane
			name string
		}{{annPane, ann}, {bobPane, bob}, {projector, "the projector"}} {
			acks.wait(t, s.p, s.name+"'s link panel and status line show 10% loss", func(screen string) bool {
				m := linkPanelLoss.FindStringSubmatch(screen)
				return m != nil && m[1] == "10" && strings.Contains(lastLine(screen), "link: loss 10%")
			})
		}
	})
	c.check(acks, "the acks view shows lost packets as holes in the 32 cells", func(t *testing.T) {
		annPane.For(t).Send("d")
		acks.waitText(t, annPane, ann, "1 graph │ 2 acks │ 3 hashes │ 4 pauses")
		annPane.For(t).Send("n")
		acks.wait(t, annPane, ann+"'s acks view shows a lost packet (x) among its cells", func(s string) bool {
			m := ackCells.FindStringSubmatch(s)
			return strings.Contains(s, "x lost") && m != nil && strings.Contains(m[1], "x")
		})
	})
	c.check(acks, "the RTT line keeps going", func(t *testing.T) {
		first := rttLine.FindString(acks.wait(t, annPane, ann+"'s acks view shows its RTT line", rttLine.MatchString))
		acks.wait(t, annPane, fmt.Sprintf("%s's RTT line to take a new sample (it was %q)", ann, first), func(s string) bool {
			line := rttLine.FindString(s)
			return line != "" && line != first
		})
	})

	// 12–20: F7 for 30% loss; the graph view freezes and steps.
	graph := c.row("12–20", "F7", "f", ".")
	c.check(graph, "F7 puts 30% loss on every client's link", func(t *testing.T) {
		server.For(t).Send("F7")
		graph.waitStatus(t, annPane, ann, "link: loss 30%")
		graph.waitStatus(t, bobPane, bob, "link: loss 30%")
	})
	c.check(graph, "the graph view freezes and steps", func(t *testing.T) {
		annPane.For(t).Send("n", "n", "n") // acks → hashes → pauses → graph
		graph.freezeAndStep(t, annPane, ann)
	})

	// 20–28: the students leave for a lesson of their own; their seats are held, and they come
	// back with the join command.
	alone := c.row("20–28")
	c.check(alone, "a student leaves, and the seat is held", func(t *testing.T) {
		alone.quit(t, annPane, ann+"'s client")
		alone.wait(t, server, fmt.Sprintf("the server's table holds %s's seat %s", ann, annSeat), func(s string) bool {
			seat, state, _ := seatOf(s, ann)
			return seat == annSeat && strings.HasPrefix(state, "disconnected")
		})
	})
	c.check(alone, "the lesson command runs a lesson", func(t *testing.T) {
		lesson := c.start(ann, c.argv(plan.lesson))
		n, _ := flagValue(plan.lesson, "--lesson")
		alone.waitText(t, lesson, "the lesson", "lesson "+n)
		alone.waitStatus(t, lesson, "the lesson", "RUNNING")
		alone.quit(t, lesson, "the lesson")
	})
	c.check(alone, "the join command again gets the seat back", func(t *testing.T) {
		annPane = c.start(ann, c.argv(plan.student))
		screen := alone.wait(t, annPane, ann+"'s client back in the game (RUNNING)", func(s string) bool {
			line := lastLine(s)
			return strings.Contains(line, "RUNNING") || strings.Contains(line, "DISCONNECTED")
		})
		if strings.Contains(lastLine(screen), "DISCONNECTED") {
			t.Fatalf("%s: %s reran the join command and was turned away; screen:\n%s", alone.where(), ann, annPane.Last())
		}
		alone.wait(t, server, fmt.Sprintf("the server's table seats %s in seat %s again, playing, and in no other", ann, annSeat), func(s string) bool {
			seat, state, rows := seatOf(s, ann)
			return seat == annSeat && state == "playing" && rows == 1
		})
	})

	// 28–36: R starts a new round; F8 makes the round trip 150 ms and the lead covers half of it and a frame; t takes
	// the lead over (at 100 ms the hashes view counts the late events run again) and gives it
	// back; i corrupts a unit, and the hashes view shows the mismatch, the drill-down and the
	// repair.
	lockstep := c.row("28–36", "R", "F8", "t", "i", "n")
	c.check(lockstep, "R starts a new round", func(t *testing.T) {
		server.For(t).Send("R")
		lockstep.waitText(t, bobPane, bob, "new round at frame")
		lockstep.waitText(t, server, "the server", "round 2")
	})
	leadBefore := -1 // bob's lead before F8
	c.check(lockstep, "F8 makes the round trip 150 ms", func(t *testing.T) {
		leadBefore = leadMillis(bobPane.For(t).Capture())
		server.For(t).Send("F8")
		lockstep.waitStatus(t, bobPane, bob, "link: lat 75ms")
		lockstep.wait(t, server, "the server's table shows a round trip of 150 ms or so to "+bob, func(s string) bool {
			for _, m := range seatRow.FindAllStringSubmatch(s, -1) {
				if ms, ok := strings.CutSuffix(m[4], " ms"); m[2] == bob && ok {
					v, err := strconv.ParseFloat(ms, 64)
					return err == nil && v >= 140
				}
			}
			return false
		})
	})
	c.check(lockstep, "F8: the status line's round trip follows, and the lead covers half of it and a frame", func(t *testing.T) {
		if leadBefore < 0 {
			t.Fatalf("%s: %s's status line showed no lead before F8", lockstep.where(), bob)
		}
		screen := lockstep.wait(t, bobPane, bob+"'s round trip near 150 ms, and a lead of at least half of it and a frame", func(s string) bool {
			rtt := rttMillis(s)
			return rtt >= 120 && float64(leadMillis(s)) >= rtt/2+100
		})
		t.Logf("%s's lead: %d ms before F8, %d ms after, at a round trip of %.0f ms", bob, leadBefore, leadMillis(screen), rttMillis(screen))
	})
	c.check(lockstep, "t: at 100 ms the hashes view counts the late events run again", func(t *testing.T) {
		server.For(t).Send("t")
		lockstep.waitText(t, server, "the server", "lead 100 ms, set by the teacher")
		lockstep.waitStatus(t, bobPane, bob, "lead 100 ms (teacher)")
		// The projector shows the class its hashes view; bob selects his squad (a box over the
		// whole map) and gives orders, which come later than 100 ms to the projector.
		projector.For(t).Send("d", "n", "n")
		lockstep.waitText(t, projector, "the projector's hashes view", "lead 100 ms (teacher) · late events:")
		bobPane.For(t).Send("K", "K", "K", "K", "H", "H", "H", "H", "H", "H", "H", "H", "v",
			"L", "L", "L", "L", "L", "L", "L", "L", "J", "J", "J", "J", "v", "H", "H", "H", "K", "K")
		lockstep.waitText(t, bobPane, bob, "selected")
		polls := 0
		lockstep.wait(t, projector, "the projector's hashes view to count a late event run again while "+bob+" gives orders", func(s string) bool {
			if polls++; polls%5 == 1 {
				if polls%10 == 1 { // between two cells of open ground, over and over
					bobPane.For(t).Send("j", "m")
				} else {
					bobPane.For(t).Send("k", "m")
				}
			}
			m := lateLine.FindStringSubmatch(s)
			return m != nil && m[1] != "0"
		})
		projector.For(t).Send("d")
	})
	c.check(lockstep, "t steps the lead through 300 ms, 1 s and 2 s, and gives it back", func(t *testing.T) {
		for _, step := range []string{"lead 300 ms, set by the teacher", "lead 1 s, set by the teacher", "lead 2 s, set by the teacher"} {
			server.For(t).Send("t")
			lockstep.waitText(t, server, "the server", step)
		}
		lockstep.waitStatus(t, bobPane, bob, "lead 2000 ms (teacher)")
		server.For(t).Send("t")
		lockstep.waitText(t, server, "the server", "lead auto")
		lockstep.wait(t, bobPane, bob+"'s status line shows the lead the server sets (no \"(teacher)\")", func(s string) bool {
			return leadMillis(s) > 0 && !strings.Contains(lastLine(s), "(teacher)")
		})
	})
	c.check(lockstep, "i: the hashes view shows the mismatch, the drill-down and the repair", func(t *testing.T) {
		bobPane.For(t).Send("Escape", "d", "n", "n") // graph → acks → hashes
		lockstep.waitText(t, bobPane, bob+"'s hashes view", "late events:")
		bobPane.For(t).Send("i")
		lockstep.waitText(t, bobPane, bob, "desync injected")
		lockstep.wait(t, bobPane, bob+"'s hashes view shows the mismatch, the units' hashes and the repair", func(s string) bool {
			return mismatchRecord.MatchString(s) && drillDown.MatchString(s) && repair.MatchString(s)
		})
		bobPane.For(t).Send("d")
	})

	// After the table: s turns the spectators' chat off and on again; F5 gives everyone a
	// clean link back.
	spectators := c.paragraph("spectators' chat", "s")
	say := func(t *testing.T, p *tmuxtest.Pane, line string) {
		p.For(t).Send("Enter")
		p.For(t).SendText(line)
		p.For(t).Send("Enter")
	}
	c.check(spectators, "the projector's chat reaches the students", func(t *testing.T) {
		say(t, projector, "projector line one")
		spectators.waitChat(t, bobPane, bob, "(spectator): projector line one")
	})
	c.check(spectators, "s on the server turns the spectators' chat off", func(t *testing.T) {
		server.For(t).Send("s")
		spectators.waitText(t, server, "the server", "spectator chat off")
		say(t, projector, "projector line two")
		// Refused by the client, which knows chat is off, or by the server, which tells it.
		spectators.wait(t, projector, "the projector tells its chat line was not sent", func(s string) bool {
			return strings.Contains(s, "chat line not sent: spectator chat is off") || strings.Contains(s, "the server refused your chat line")
		})
	})
	c.check(spectators, "s again turns it on", func(t *testing.T) {
		server.For(t).Send("s")
		spectators.waitText(t, server, "the server", "spectator chat on")
		// The projector learns of it a round trip later, and until then keeps its line: it says
		// it again, as a person would, until the line is in its own chat (sent).
		say(t, projector, "projector line three")
		polls := 0
		spectators.wait(t, projector, "the projector's chat to send its line", func(s string) bool {
			if strings.Contains(chatText(s), "projector line three") {
				return true
			}
			if polls++; polls%10 == 0 {
				say(t, projector, "projector line three")
			}
			return false
		})
		spectators.waitChat(t, bobPane, bob, "(spectator): projector line three")
	})
	c.check(spectators, "F5 gives everyone a clean link back", func(t *testing.T) {
		if !strings.Contains(spectators.text, "F5") {
			t.Errorf("README.md's class section no longer says what F5 does after the table: %s", spectators.text)
		}
		server.For(t).Send("F5")
		spectators.waitStatus(t, bobPane, bob, "link clean")
	})

	// 12–20 again, as a class meets it at minute 12: the graph view has seen more messages
	// than it keeps, and still freezes and steps.
	c.check(graph, "the graph view freezes and steps after minutes of play", func(t *testing.T) {
		polls := 0
		graph.wait(t, bobPane, bob+"'s graph view, past message #300 (more than the view keeps of a direction)", func(s string) bool {
			if !strings.Contains(s, "live  f: freeze") {
				if polls++; polls%3 == 1 {
					bobPane.For(t).Send("n") // the panel opens on the view it was left at
				}
				if !strings.Contains(s, "1 graph │ 2 acks") {
					bobPane.For(t).Send("d")
				}
				return false
			}
			return newestMessage(s) >= 300
		})
		graph.freezeAndStep(t, bobPane, bob)
	})

	// 40–45: the projector quits; the replay shows its capture, seeks to a re-sync and steps
	// through it one datagram at a time.
	replayRow := c.row("40–45", "q", "n", ".", "space", "+ -")
	record, _ := flagValue(plan.projector, "--record")
	c.check(replayRow, "q quits the projector, which leaves its capture", func(t *testing.T) {
		replayRow.quit(t, projector, "the projector")
		for _, f := range []string{record, record + ".keys"} {
			if st, err := os.Stat(filepath.Join(c.dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: the projector's %s: %v", replayRow.where(), f, err)
			}
		}
	})
	c.check(replayRow, "the replay seeks to a re-sync and steps one datagram at a time", func(t *testing.T) {
		replay := c.start("teacher", c.argv(plan.replay))
		replayRow.waitText(t, replay, "the replay", "replay "+filepath.Base(record), "datagram ")
		replay.For(t).Send("n")
		replayRow.waitText(t, replay, "the replay", "a re-sync starts here")
		at := replayPosition.FindStringSubmatch(replay.For(t).Capture())
		if at == nil {
			t.Fatalf("%s: the replay shows no position; screen:\n%s", replayRow.where(), replay.Last())
		}
		n, _ := strconv.Atoi(at[1])
		replay.For(t).Send(".")
		replayRow.waitText(t, replay, "the replay", fmt.Sprintf("datagram %d of %s", n+1, at[2]), "paused")
		replay.For(t).Send("+")
		replayRow.waitText(t, replay, "the replay", "2×")
		replay.For(t).Send("Space")
		replayRow.waitText(t, replay, "the replay", "playing")
		replayRow.quit(t, replay, "the replay")
	})
}
