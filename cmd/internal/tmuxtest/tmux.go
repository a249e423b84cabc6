package tmuxtest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Poll is how often Wait and Exit look at the screen; Timeout is how long they look.
const (
	Poll    = 100 * time.Millisecond
	Timeout = 20 * time.Second
)

// Require skips the test under -short and where tmux is not installed, except in CI (the
// environment variable CI set), which installs tmux (.ci/run): there a missing tmux fails the
// test rather than leave the terminal untested.
func Require(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("terminal smoke test: skipped under -short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed, and CI installs it (.ci/run)")
		}
		t.Skip("tmux not installed: the terminal smoke test needs it (apt-get install -y tmux)")
	}
}

// Build compiles the main package in the working directory (the test's package) and returns
// the binary's path. Under -race the binary is built with the race detector too, which also
// reuses the packages the test binary was compiled with.
func Build(t testing.TB, name string) string {
	t.Helper()
	return BuildPackage(t, name, ".")
}

// BuildPackage is Build for another main package, named as go build names it (a path
// relative to the test's package, such as "../server", or an import path). Each binary is
// built once per test binary, into a directory that Main removes at the end: a package whose
// tests build with it runs them through Main (TestMain).
func BuildPackage(t testing.TB, name, pkg string) string {
	t.Helper()
	builds.mu.Lock()
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "ackattack-test-bin-")
		if err != nil {
			builds.mu.Unlock()
			t.Fatal(err)
		}
		builds.dir, builds.bins = dir, map[[2]string]*build{}
	}
	key := [2]string{name, pkg}
	b := builds.bins[key]
	if b == nil {
		b = &build{path: filepath.Join(builds.dir, strconv.Itoa(len(builds.bins)), name)}
		builds.bins[key] = b
	}
	builds.mu.Unlock()
	b.once.Do(func() {
		// A directory per binary: the binary keeps its name (a test may look for its process
		// by it), and two of one name from two packages do not meet.
		if b.err = os.MkdirAll(filepath.Dir(b.path), 0o755); b.err != nil {
			return
		}
		args := []string{"build", "-o", b.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		b.out, b.err = exec.Command("go", append(args, pkg)...).CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build: %v\n%s", b.err, b.out)
	}
	return b.path
}

// builds are the binaries BuildPackage built, by name and package.
var builds struct {
	mu   sync.Mutex
	dir  string // "" until the first build
	bins map[[2]string]*build
}

// build is one binary, built once.
type build struct {
	once sync.Once
	path string
	out  []byte // go build's output
	err  error
}

// Parallel is how many tests of a package that runs processes run at once (t.Parallel), unless
// -test.parallel says otherwise. Such tests mostly wait for their processes, which have the
// machine's cores; go test's default, GOMAXPROCS, would leave those cores idle while the
// tests wait in turn.
const Parallel = 8

// Main runs the tests (from a package's TestMain), Parallel of them at once unless
// -test.parallel is given, with a configuration directory of their own (isolateConfig), and
// then removes the binaries they built.
func Main(m *testing.M) int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(Parallel, runtime.GOMAXPROCS(0))))
	}
	dir, err := isolateConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmuxtest: no configuration directory of the tests' own:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	code := m.Run()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	return code
}

// isolateConfig gives the tests, and every process they start, a directory of their own in
// place of the user's configuration directory (os.UserConfigDir), and returns it: the client
// keeps the identities of the players it joins as there (cmd/client's identity_store.go), and
// a test must never touch the user's. go build, which the tests run, keeps finding its cache,
// modules and settings where they were: they are pinned first, since on some systems they
// follow the same variables.
func isolateConfig() (string, error) {
	pinned := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}
	out, err := exec.Command("go", append([]string{"env"}, pinned...)...).Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	values := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(values) != len(pinned) {
		return "", fmt.Errorf("go env printed %q", out)
	}
	dir, err := os.MkdirTemp("", "ackattack-test-config-")
	if err != nil {
		return "", err
	}
	env := map[string]string{}
	for i, name := range pinned {
		env[name] = values[i]
	}
	switch runtime.GOOS { // where os.UserConfigDir looks
	case "windows":
		env["AppData"] = dir
	case "darwin", "ios":
		env["HOME"] = dir
	case "plan9":
		env["home"] = dir
	default:
		env["XDG_CONFIG_HOME"] = dir
	}
	for name, v := range env {
		if err := os.Setenv(name, v); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	if got, err := os.UserConfigDir(); err != nil || !strings.HasPrefix(got, dir) {
		os.RemoveAll(dir)
		return "", fmt.Errorf("the configuration directory is still %q (%v)", got, err)
	}
	return dir, nil
}

// Pane is one terminal running one command, with the test its failures go to (For).
type Pane struct {
	t testing.TB
	*terminal
}

// terminal is the pane itself, shared by every Pane that For made of it.
type terminal struct {
	socket  string
	status  string   // the file the command's exit status is written to
	screens []string // every distinct screen seen, in order
}

// For returns the same pane with its failures going to t: a subtest's, for a pane that lives
// as long as the test that started it and that several subtests read in turn (a failed wait
// ends that subtest alone). Use one at a time: they share the screens seen.
func (p *Pane) For(t testing.TB) *Pane { return &Pane{t: t, terminal: p.terminal} }

// Start runs argv in a new detached tmux pane of width×height cells. The pane stays after
// the command exits (remain-on-exit), so that Exit can read the screen it left. The tmux
// server is killed when the test ends.
func Start(t testing.TB, width, height int, argv ...string) *Pane {
	t.Helper()
	dir := t.TempDir()
	// remain-on-exit must be on before the command starts, or a command that exits at once
	// takes its pane, and the screen it left, with it: a config file is read first. Our own
	// file also keeps ~/.tmux.conf out of the test, and the command line below needs a POSIX
	// shell, whatever $SHELL is.
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set-option -g remain-on-exit on\nset-option -g default-shell /bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Pane{t: t, terminal: &terminal{socket: fmt.Sprintf("ackattack-test-%d-%d", os.Getpid(), time.Now().UnixNano()), status: filepath.Join(dir, "status")}}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	// tmux has the exit status of a dead pane (#{pane_dead_status}), but not always: when the
	// pane's terminal closes before tmux reaps the process, it may never show it. The shell
	// that runs the command writes it to a file instead, and exits with it. Ctrl-C sends
	// SIGINT to the shell too: it traps it (a trap, unlike an ignored signal, is not passed on
	// to the command) to live on and write the status.
	command := "trap : INT; " + strings.Join(quoted, " ") + "; s=$?; echo $s >" + shellQuote(p.status) + "; exit $s"
	if _, err := p.tmux("-f", conf, "new-session", "-d", "-s", "test", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), command); err != nil {
		t.Fatalf("tmux new-session: %v", err)
	}
	// kill-server stops the server and the command, but may leave the socket file behind.
	socket, err := p.tmux("display-message", "-p", "#{socket_path}")
	t.Cleanup(func() {
		_, _ = p.tmux("kill-server")
		if err == nil {
			os.Remove(strings.TrimSpace(socket))
		}
	})
	return p
}

// PID returns the process id of the pane's shell, the one that runs the command as its
// child (and waits for it, to write its exit status).
func (p *Pane) PID() int {
	p.t.Helper()
	out, err := p.tmux("display-message", "-p", "-t", "test", "#{pane_pid}")
	if err != nil {
		p.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		p.t.Fatalf("tmux pane_pid: %q", out)
	}
	return pid
}

func (p *Pane) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...)
	// Inside tmux, TMUX names the server of the tmux around us; ours is -L's.
	cmd.Env = append(os.Environ(), "TMUX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Capture returns the screen as text, one line per row (wrapped lines joined), and keeps it
// for Screens.
func (p *Pane) Capture() string {
	p.t.Helper()
	return p.capture()
}

// capture captures the screen, and before it the lines scrolled off it with "-S", "-".
func (p *Pane) capture(args ...string) string {
	p.t.Helper()
	s, err := p.tmux(append([]string{"capture-pane", "-p", "-J", "-t", "test"}, args...)...)
	if err != nil {
		p.t.Fatalf("%v\nlast screen:\n%s", err, p.Last())
	}
	// -J keeps the spaces at the end of each row, and the rows below the last line written
	// are blank: leave them out of what failures show.
	rows := strings.Split(strings.TrimRight(s, " \n"), "\n")
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
	}
	s = strings.Join(rows, "\n") + "\n"
	if len(p.screens) == 0 || p.screens[len(p.screens)-1] != s {
		p.screens = append(p.screens, s)
	}
	return s
}

// Last returns the last screen captured, with each run of blank rows shown as one line
// that counts them, so that a failure's message stays readable.
func (p *Pane) Last() string {
	if len(p.screens) == 0 {
		return "(nothing captured)"
	}
	var b strings.Builder
	blank := 0
	for _, row := range strings.SplitAfter(p.screens[len(p.screens)-1], "\n") {
		if strings.TrimSpace(row) == "" && row != "" {
			blank++
			continue
		}
		if blank > 0 {
			fmt.Fprintf(&b, "(%d blank rows)\n", blank)
			blank = 0
		}
		b.WriteString(row)
	}
	return b.String()
}

// Screens returns every distinct screen captured so far.
func (p *Pane) Screens() []string { return p.screens }

// Wait captures the screen every Poll until ok accepts it and returns that screen, or fails
// the test after Timeout saying what it waited for and showing the last screen.
func (p *Pane) Wait(what string, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		s := p.Capture()
		if ok(s) {
			return s
		}
		if dead, status := p.dead(); dead {
			p.capture("-S", "-")
			p.t.Fatalf("waiting for %s: the command exited (status %d); last screen:\n%s", what, status, p.Last())
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waited %v for %s; last screen:\n%s", Timeout, what, p.Last())
		}
		time.Sleep(Poll)
	}
}

// WaitText waits until the screen contains every one of texts.
func (p *Pane) WaitText(texts ...string) string {
	p.t.Helper()
	return p.Wait(fmt.Sprintf("%q on the screen", texts), func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// WaitGone waits until the screen no longer contains text.
func (p *Pane) WaitGone(text string) string {
	p.t.Helper()
	return p.Wait(fmt.Sprintf("%q to leave the screen", text), func(s string) bool { return !strings.Contains(s, text) })
}

// Send types keys, in tmux's send-keys names: "q", "?", "Escape", "Enter", "C-c".
func (p *Pane) Send(keys ...string) {
	p.t.Helper()
	if _, err := p.tmux(append([]string{"send-keys", "-t", "test"}, keys...)...); err != nil {
		p.t.Fatalf("%v\nlast screen:\n%s", err, p.Last())
	}
}

// SendText types text literally (no key names), e.g. a chat line.
func (p *Pane) SendText(text string) {
	p.t.Helper()
	if _, err := p.tmux("send-keys", "-t", "test", "-l", text); err != nil {
		p.t.Fatalf("%v\nlast screen:\n%s", err, p.Last())
	}
}

// Exit waits for the command to exit and returns its exit status, failing the test after
// Timeout. The last screen is then what the command left on the terminal, with the lines
// scrolled off it: tmux scrolls the screen by one line to say "Pane is dead".
func (p *Pane) Exit() int {
	p.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		if dead, status := p.dead(); dead {
			p.capture("-S", "-")
			return status
		}
		if time.Now().After(deadline) {
			p.Capture()
			p.t.Fatalf("waited %v for the command to exit; last screen:\n%s", Timeout, p.Last())
		}
		time.Sleep(Poll)
	}
}

// dead reports whether the command has exited, and its exit status (128+n: killed by signal
// n), once the pane has closed too, so that the screen holds all that the command wrote.
func (p *Pane) dead() (bool, int) {
	p.t.Helper()
	b, err := os.ReadFile(p.status)
	if err != nil || !strings.HasSuffix(string(b), "\n") {
		return false, 0 // not written yet, or not all of it
	}
	status, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		p.t.Fatalf("exit status file: %q", b)
	}
	out, err := p.tmux("list-panes", "-t", "test", "-F", "#{pane_dead}")
	if err != nil {
		p.t.Fatalf("%v\nlast screen:\n%s", err, p.Last())
	}
	return strings.TrimSpace(out) == "1", status
}

// shellQuote quotes s for the shell tmux runs the command with.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
