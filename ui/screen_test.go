package ui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden screen dumps in testdata")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// pollLimit bounds every wait for the event loop; reaching it fails the test
// instead of hanging it.
const pollLimit = 10 * time.Second

// screenApp is a tview application running on a simulated screen, for driving
// a widget with keys and mouse events and reading back what it drew.
//
// The application's event loop owns the widgets and the screen's cells, so the
// test touches them only inside QueueUpdate, which runs a function on that
// loop and waits for it.
type screenApp struct {
	t      *testing.T
	app    *tview.Application
	screen tcell.SimulationScreen
	done   chan error
	once   sync.Once
	// halt, if set, is how stop ends the application (a screen runner stops through its
	// context, so that its ticker is the one to call Stop).
	halt func()
}

// runApp starts an application with root on a width×height simulated screen
// and returns once its event loop is running. The test's cleanup stops it,
// waits for Run to return, and checks that no goroutine was left behind.
func runApp(t *testing.T, root tview.Primitive, width, height int) *screenApp {
	t.Helper()
	leakOpt := goleak.IgnoreCurrent()
	screen := tcell.NewSimulationScreen("UTF-8")
	app := tview.NewApplication()
	app.SetScreen(screen) // initialises the screen, which resets its size
	screen.SetSize(width, height)
	app.EnableMouse(true).SetRoot(root, true).SetFocus(root)
	sa := &screenApp{t: t, app: app, screen: screen, done: make(chan error, 1)}
	go func() { sa.done <- app.Run() }()
	started := make(chan struct{})
	go func() {
		app.QueueUpdate(func() {}) // runs only once Run's loop is serving updates
		close(started)
	}()
	select {
	case <-started:
	case err := <-sa.done:
		t.Fatalf("Run returned before starting: %v", err)
	case <-time.After(pollLimit):
		t.Fatal("event loop did not start")
	}
	t.Cleanup(func() {
		sa.stop()
		goleak.VerifyNone(t, leakOpt)
	})
	return sa
}

// stop stops the application and waits for Run to return.
func (sa *screenApp) stop() {
	sa.t.Helper()
	sa.once.Do(func() {
		if sa.halt != nil {
			sa.halt()
		} else {
			sa.app.Stop()
		}
		select {
		case err := <-sa.done:
			if err != nil {
				sa.t.Errorf("Run: %v", err)
			}
		case <-time.After(pollLimit):
			sa.t.Error("Run did not return after Stop")
		}
	})
}

// do runs f on the event loop and waits for it.
func (sa *screenApp) do(f func()) { sa.app.QueueUpdate(f) }

// waitFor polls cond on the event loop until it holds, failing the test after
// pollLimit. Input events and queued updates reach the loop through different
// channels, so polling is how a test learns that an injected event was
// handled; each handled event is drawn before the loop picks up the next
// update, so once cond holds the screen shows it.
func (sa *screenApp) waitFor(what string, cond func() bool) {
	sa.t.Helper()
	deadline := time.Now().Add(pollLimit)
	for {
		var ok bool
		sa.do(func() { ok = cond() })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			sa.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func (sa *screenApp) key(k tcell.Key) { sa.screen.InjectKey(k, 0, tcell.ModNone) }

func (sa *screenApp) rune(r rune) { sa.screen.InjectKey(tcell.KeyRune, r, tcell.ModNone) }

// cell returns the rune and style drawn at (x, y).
func (sa *screenApp) cell(x, y int) (r rune, style tcell.Style) {
	sa.do(func() {
		cells, w, h := sa.screen.GetContents()
		if x < 0 || y < 0 || x >= w || y >= h {
			sa.t.Fatalf("cell (%d, %d) outside the %dx%d screen", x, y, w, h)
		}
		c := cells[y*w+x]
		r, style = ' ', c.Style
		if len(c.Runes) > 0 {
			r = c.Runes[0]
		}
	})
	return r, style
}

// text returns the screen's characters, one line per row, trailing spaces
// trimmed. GetContents hands out the screen's own buffer, so it is read on
// the event loop, where nothing draws into it at the same time.
func (sa *screenApp) text() string {
	var b strings.Builder
	sa.do(func() {
		cells, w, h := sa.screen.GetContents()
		for y := range h {
			var line strings.Builder
			for x := range w {
				c := cells[y*w+x]
				if len(c.Runes) == 0 {
					line.WriteByte(' ')
				} else {
					line.WriteString(string(c.Runes))
				}
			}
			b.WriteString(strings.TrimRight(line.String(), " "))
			b.WriteByte('\n')
		}
	})
	return b.String()
}

// checkGolden compares got with testdata/name.golden, or rewrites that file
// when the test runs with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("screen differs from %s (run with -update to accept):\n--- got\n%s--- want\n%s", path, got, want)
	}
}
