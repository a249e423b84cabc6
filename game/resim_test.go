package game

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/world"
)

// settledAgreement counts, over every client, the frames both it and the server recorded and
// old enough to have settled, and how many of them hold the same world hash.
func settledAgreement(res sessionResult) (agreed, common int) {
	for _, r := range res.clients {
		a, c := settledFrames(res.server, r)
		agreed, common = agreed+a, common+c
	}
	return agreed, common
}

// settledFrames counts the frames both the client of report r and the server recorded, old
// enough to have settled, and how many of them hold the same world hash.
func settledFrames(server, r Report) (agreed, common int) {
	for f, h := range r.WorldHashes {
		n, _ := strconv.Atoi(f)
		sh, ok := server.WorldHashes[f]
		if !ok || uint32(n)+detectionFrames > server.Frame {
			continue
		}
		common++
		if sh == h {
			agreed++
		}
	}
	return agreed, common
}

// TestLateEventsRunAgainExactly: with the lead time held at one frame at 10% loss for 40 s, commands
// come late all the time. Re-simulating from before each late command's frame (the default)
// keeps every client's world equal to the server's; the classic fast-forward
// (LateFastForward) does not. Bots play and chat to the last frame in both.
func TestLateEventsRunAgainExactly(t *testing.T) {
	t.Parallel()
	lossy := linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
	type outcome struct {
		agreed, common int
		late, rerun    uint64
		resim          ResimStats
		res            sessionResult
	}
	play := func(mode LateMode) outcome {
		g := newVGame(t, vspec{seed: 7, bots: 2, clients: 3, link: lossy,
			server: func(c *ServerConfig) { c.Late = mode },
			client: func(_ int, c *ClientConfig) { c.Late = mode }})
		g.waitFor(10*time.Second, "the game to start", func() bool { return g.srv.clock.running })
		// Hold the lead at one frame: the server never changes it, and every host issues with it.
		g.srv.lead.cur, g.srv.lead.lastChange = 1, g.now.Add(time.Hour)
		for _, c := range g.clients {
			c.lead.cur = 1
		}
		g.run(lastsFor(40 * time.Second)) // at a lead of one frame, even a quarter has hundreds of late commands
		o := outcome{res: g.result(), resim: g.srv.drift.rw.stats}
		o.agreed, o.common = settledAgreement(o.res)
		for _, c := range g.clients {
			o.late += c.stats.CommandsLate
			o.rerun += c.drift.rw.stats.FramesRerun
			o.resim.Resimulations += c.drift.rw.stats.Resimulations
			o.resim.MaxLateFrames = max(o.resim.MaxLateFrames, c.drift.rw.stats.MaxLateFrames)
			o.resim.LateBeyondWindow += c.drift.rw.stats.LateBeyondWindow
		}
		return o
	}
	rb, ff := play(LateRollback), play(LateFastForward)
	for _, o := range []struct {
		name string
		outcome
	}{{"rollback", rb}, {"fastforward", ff}} {
		s := o.res.server.Sync
		t.Logf("%s: worlds agree at %d of %d settled frames; %d commands fast-forwarded on the clients; %d re-runs (%d frames on the clients), latest %d frames, %d beyond the window; re-syncs %d real-time, %d stop-the-world",
			o.name, o.agreed, o.common, o.late, o.resim.Resimulations, o.rerun, o.resim.MaxLateFrames, o.resim.LateBeyondWindow, s.RealtimeResyncs, s.StopWorldResyncs)
	}
	if rb.common == 0 || 100*rb.agreed < 99*rb.common {
		t.Errorf("rollback: worlds agree at %d of %d settled frames, want 99%%", rb.agreed, rb.common)
	}
	if rb.late != 0 || rb.resim.Resimulations == 0 {
		t.Errorf("rollback: %d commands fast-forwarded, %d re-runs: want every late command run again", rb.late, rb.resim.Resimulations)
	}
	if s := rb.res.server.Sync; s.StopWorldResyncs != 0 {
		t.Errorf("rollback: %d stop-the-world re-syncs", s.StopWorldResyncs)
	}
	if ff.agreed >= rb.agreed || ff.late == 0 {
		t.Errorf("fastforward agrees at %d frames, rollback at %d, with %d commands fast-forwarded: the comparison shows nothing", ff.agreed, rb.agreed, ff.late)
	}
}

// BenchmarkResimulateWindow: the cost of the worst late command that is still run again
// exactly: the world of about 2000 units goes back resimWindow frames and runs them again.
func BenchmarkResimulateWindow(b *testing.B) {
	s, err := NewServer(ServerConfig{Map: "continent", Bots: 8, Seed: 1}, nowhere{})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Unix(1_000_000, 0)
	s.start(now)
	s.StopBots()
	s.StopSpawning()
	if err := spawnEnemies(s, now, 1, 2000-len(s.w.Units()), rand.New(rand.NewPCG(1, 1))); err != nil {
		b.Fatal(err)
	}
	for s.w.Frame() < 2*resimWindow {
		s.step(now)
	}
	units := len(s.w.Units())
	b.ReportAllocs()
	for b.Loop() {
		s.drift.rw.late(evCommand, s.w.Frame()-resimWindow, s.w.Frame())
		s.resimulate()
	}
	b.ReportMetric(float64(units), "units")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/rerun")
}

// TestRerunRepeatsACorruptionOnce: a unit corrupted between two frames, at a frame whose copy
// of the world the re-run of a late command starts from, is corrupted once in the re-run, not
// twice: the copy holds the corruption already. The client that ran the late command again
// ends with the world of one that had it in time.
func TestRerunRepeatsACorruptionOnce(t *testing.T) {
	const at = 15 // a multiple of resimEvery: the re-run starts from the copy of this frame
	play := func(late bool) *Client {
		c := startedOfflineClient(t)
		now := time.Now()
		for c.w.Frame() < at {
			c.step(now)
		}
		if c.InjectDesync(1) != 1 {
			t.Fatal("nothing to corrupt")
		}
		cmd := &Command{Seat: 1, ID: 1, Frame: at, Kind: world.CommandStop, Units: ownUnits(c.w, 1)}
		if !late {
			deliver(t, c, cmd)
		}
		for c.w.Frame() < at+3 {
			c.step(now)
		}
		if late {
			deliver(t, c, cmd)
			c.resimulate()
			if c.drift.rw.stats.Resimulations != 1 {
				t.Fatalf("%d re-runs, want 1", c.drift.rw.stats.Resimulations)
			}
		}
		return c
	}
	onTime, late := play(false), play(true)
	if onTime.w.Hash() != late.w.Hash() {
		t.Errorf("the client that ran the late command again differs from the one that had it in time: units %v and %v",
			onTime.w.Units()[:5], late.w.Units()[:5])
	}
}

// TestLateStateRepairRunsAgainExactly: a real-time re-sync of the world's state that comes
// after its frame is run again from before it, like any late event: the client that got it
// late ends with the world of one that had it in time, and both differ from a client that never
// got it. With the fast-forward for late commands (--late fastforward) a repair still runs
// again: fast-forwarded, it would be a drift of its own, and the repair would have to go a lead
// time ahead.
func TestLateStateRepairRunsAgainExactly(t *testing.T) {
	const at = 15
	drifted := startedOfflineClient(t).w.Clone()
	for drifted.Frame() < at {
		drifted.Step()
	}
	if !driftState(drifted, driftGenerator) || !driftState(drifted, driftNextAttackID) {
		t.Fatal("the state did not drift")
	}
	core, err := drifted.AppendCoreState(nil)
	if err != nil {
		t.Fatal(err)
	}
	update := &UnitUpdate{Frame: at, Seat: 1, Checked: at - 5, State: core, StateHash: drifted.StateHash()}
	// play runs a client to frame at+3 with late events run as late says, the update delivered
	// when its world is at frame deliverAt (never: 0, a frame it starts past).
	play := func(late LateMode, deliverAt uint32) *Client {
		c := startedOfflineClient(t)
		c.drift.rw.mode = late
		now := time.Now()
		for c.w.Frame() < at+3 {
			if c.w.Frame() == deliverAt {
				deliver(t, c, update)
				c.resimulate()
			}
			c.step(now)
		}
		return c
	}
	never, onTime := play(LateRollback, 0), play(LateRollback, at-1)
	late, fastForwarded := play(LateRollback, at+2), play(LateFastForward, at+2)
	for _, c := range []struct {
		mode LateMode
		c    *Client
	}{{LateRollback, late}, {LateFastForward, fastForwarded}} {
		if n := c.c.drift.rw.stats.Resimulations; n != 1 {
			t.Errorf("%v: %d re-runs for the late repair, want 1", c.mode, n)
		}
		if onTime.w.Hash() != c.c.w.Hash() {
			t.Errorf("%v: the client that ran the late repair again differs from the one that had it in time", c.mode)
		}
	}
	if onTime.w.StateHash() == never.w.StateHash() {
		t.Error("the repair changed nothing")
	}
	if r := findRecord(late.drift.log.records, 1, at-5, ActionRealtime); r == nil || r.State == nil || r.State.Server != update.StateHash {
		t.Errorf("the late client's record of the repair: %+v, want the server's state hash", r)
	}
}

// TestRerunKeepsWhatWasFastForwarded: a re-run gives back the world it replaces, and the late
// event it was for. A client whose re-run floor is the frame of a world copy (a re-sync put the
// world in place there) fast-forwards a command for a frame before it; a later late command
// re-runs from the floor's copy, and must apply the fast-forwarded one again where it ran, not
// lose it (it is for a frame before the copy, and the copy was taken before it came). And
// the floor's own frame has a copy, even off the usual one frame in five: a late event for the
// frames just after a re-sync is run again exactly, not fast-forwarded into a drift.
func TestRerunKeepsWhatWasFastForwarded(t *testing.T) {
	move := func(c *Client, id, frame uint32, x int32) *Command {
		return &Command{Seat: 1, ID: id, Frame: frame, Kind: world.CommandMove, Units: ownUnits(c.w, 1), X: x, Y: 3}
	}
	for _, tc := range []struct {
		name  string
		floor uint32 // the frame of the re-sync (10: a copy every resimEvery frames falls there)
		// cmds are delivered when the world is at frame at, each for its frame.
		cmds []struct{ frame, at uint32 }
	}{
		{"a command fast-forwarded before the copy's frame", 10, []struct{ frame, at uint32 }{{9, 12}, {13, 15}}},
		{"a late command right after a re-sync off the usual frames", 12, []struct{ frame, at uint32 }{{13, 15}}},
		{"both", 12, []struct{ frame, at uint32 }{{11, 13}, {14, 16}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// play runs a client to frame 20: each command comes when it says, or (onTime) the
			// last one in time, as a host that was not late for it has it.
			play := func(onTime bool) *Client {
				c := startedOfflineClient(t)
				now := time.Now()
				for c.w.Frame() < 20 {
					f := c.w.Frame()
					if f == tc.floor {
						c.drift.rw.reset(f)
					}
					for i, cmd := range tc.cmds {
						last := i == len(tc.cmds)-1
						if f == cmd.at && !(onTime && last) || f == tc.floor && onTime && last {
							deliver(t, c, move(c, uint32(i+1), cmd.frame, int32(10+5*i)))
						}
					}
					c.resimulate()
					c.step(now)
				}
				return c
			}
			onTime, late := play(true), play(false)
			if late.drift.rw.stats.Resimulations != 1 {
				t.Errorf("%d re-runs for the last command, want 1", late.drift.rw.stats.Resimulations)
			}
			if onTime.w.Hash() != late.w.Hash() {
				t.Errorf("the client that ran the last command again differs from the one that had it in time")
			}
		})
	}
}

// TestRerunKeepsACorruptionBetweenFrames: a unit corrupted between two frames (the debug key,
// --inject-desync's first hurt), after which a late command re-runs the frames before it, is
// still corrupted when its frame runs: the re-run stops where the world was, before that
// frame, and the world it replaced held the corruption. (Before, the re-run dropped it, and
// the desync a class was waiting to see was never found.)
func TestRerunKeepsACorruptionBetweenFrames(t *testing.T) {
	const at = 17 // off the copies' frames: the re-run starts from the copy of frame 15
	play := func(late bool) *Client {
		c := startedOfflineClient(t)
		now := time.Now()
		for c.w.Frame() < at {
			c.step(now)
		}
		cmd := &Command{Seat: 1, ID: 1, Frame: at - 1, Kind: world.CommandStop, Units: ownUnits(c.w, 1)}
		if !late {
			deliver(t, c, cmd) // too late too, but before the corruption: the same re-run
			c.resimulate()
		}
		if c.InjectDesync(1) != 1 {
			t.Fatal("nothing to corrupt")
		}
		if late {
			deliver(t, c, cmd)
			c.resimulate()
		}
		if c.drift.rw.stats.Resimulations != 1 {
			t.Fatalf("%d re-runs, want 1", c.drift.rw.stats.Resimulations)
		}
		for c.w.Frame() < at+3 {
			c.step(now)
		}
		return c
	}
	first, after := play(false), play(true)
	if first.w.Hash() != after.w.Hash() {
		t.Error("the client whose re-run came after the corruption lost it: its world differs from the one whose re-run came before")
	}
}
