// Package tmuxtest runs a real binary in a real (if invisible) terminal for smoke tests: a
// tmux pane of a fixed size, whose screen the test reads as text and types keys into. Unit
// tests of the UI draw on a simulated screen; only this shows that the binary finds the
// terminal, draws on it, takes keys, and gives it back when it exits.
//
// # The map
//
//	tmux.go              Require (skip without tmux, or under -short; in CI a missing tmux
//	                     fails), Build and BuildPackage (each binary built once per test
//	                     binary, with -race when the test has it), Main (a configuration
//	                     directory of the tests' own, isolateConfig; removes the
//	                     binaries), Pane (Start, For, Capture, Wait, WaitText, WaitGone,
//	                     Send, SendText, Exit, PID)
//	race.go, norace.go   whether the test binary was built with the race detector
//	tmux_test.go         Require without tmux: a skip, or in CI a failure
//
// # Usage
//
//	func TestMain(m *testing.M) { os.Exit(tmuxtest.Main(m)) }
//
//	func TestSmoke(t *testing.T) {
//		tmuxtest.Require(t)
//		p := tmuxtest.Start(t, 100, 28, tmuxtest.Build(t, "client"), "--lesson", "1")
//		p.WaitText("lesson 1")
//		p.Send("q")
//		if code := p.Exit(); code != 0 { t.Fatalf("exit %d", code) }
//	}
//
// # Rules
//
//   - Every Pane has a tmux server of its own (tmux -L with a unique socket name), so tests
//     that run in parallel, or a tmux already running on the machine, never see each other.
//   - The pane stays after the command exits, so Exit reads the screen it left and its status.
//   - A pane that several subtests read in turn (a class played row by row) is started by the
//     parent test and read through For(t) in each subtest: a failed wait ends that subtest
//     alone, and the pane lives on for the next.
package tmuxtest
