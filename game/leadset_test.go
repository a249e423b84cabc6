package game

import (
	"errors"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

func TestParseLead(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want LeadSetting
		err  bool
	}{
		{"auto", LeadAuto, false},
		{"300ms", FixedLead(300 * time.Millisecond), false},
		{"3s", FixedLead(MaxFixedLead), false},
		{"1ms", FixedLead(time.Millisecond), false},
		{"3.001s", LeadAuto, true},
		{"0s", LeadAuto, true},
		{"-100ms", LeadAuto, true},
		{"fast", LeadAuto, true},
		{"", LeadAuto, true},
		{"Auto", LeadAuto, true},
	} {
		got, err := ParseLead(tt.in)
		if tt.err != (err != nil) || got != tt.want {
			t.Errorf("ParseLead(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err != nil && !errors.Is(err, errLead) {
			t.Errorf("ParseLead(%q): %v does not wrap errLead", tt.in, err)
		}
	}
	if s := FixedLead(300 * time.Millisecond).String(); s != "300ms" {
		t.Errorf("FixedLead(300ms) reads %q", s)
	}
	if s := LeadAuto.String(); s != "auto" {
		t.Errorf("LeadAuto reads %q", s)
	}
}

// TestLeadSettingRounded: a fixed lead is taken in whole frames, the nearest, at least one.
func TestLeadSettingRounded(t *testing.T) {
	ms := func(n int) LeadSetting { return FixedLead(time.Duration(n) * time.Millisecond) }
	for _, tt := range []struct {
		in, want LeadSetting
		frame    time.Duration
		err      bool
	}{
		{LeadAuto, LeadAuto, DefaultFrame, false},
		{ms(300), ms(300), DefaultFrame, false},
		{ms(149), ms(100), DefaultFrame, false},
		{ms(150), ms(200), DefaultFrame, false},
		{ms(20), ms(100), DefaultFrame, false}, // at least a frame
		{ms(3000), ms(3000), DefaultFrame, false},
		{ms(3001), LeadAuto, DefaultFrame, true},
		{ms(-1), LeadAuto, DefaultFrame, true},
		{ms(2000), ms(2000), 40 * time.Millisecond, false}, // 50 frames: the most any lead has
		{ms(2100), LeadAuto, 40 * time.Millisecond, true},
	} {
		got, err := tt.in.rounded(tt.frame)
		if tt.err != (err != nil) || got != tt.want {
			t.Errorf("%v in frames of %v: %v, %v; want %v, error %v", tt.in, tt.frame, got, err, tt.want, tt.err)
		}
	}
	if _, err := NewServer(ServerConfig{Orders: Orders{Lead: FixedLead(4 * time.Second)}}, nil); !errors.Is(err, errLead) {
		t.Errorf("a server with a lead of 4 s: %v", err)
	}
}

// slowLink is 300 ms of round trip: the policy wants 3 frames of lead (lead.go).
var slowLink = linksim.Settings{Latency: 150 * time.Millisecond}

// leadWatch is a client session that notes, after every datagram, the frame its world was at
// when each announced change of the lead arrived: a change must be there before its frame
// runs. (A change is put in force only when a frame runs, so it waits in lead.next right after
// the datagram that brought it.)
type leadWatch struct {
	*Client
	arrived map[uint32]uint32 // a LeadTime's frame → the client's frame when it arrived
}

func (w *leadWatch) Handle(now time.Time, d transport.Datagram) {
	w.Client.Handle(now, d)
	for _, lt := range w.lead.next {
		if _, ok := w.arrived[lt.Frame]; !ok {
			at := uint32(0) // before the world: in time
			if w.w != nil && w.phase != phaseAwaitingWorld {
				at = w.w.Frame()
			}
			w.arrived[lt.Frame] = at
		}
	}
}

// watchLeads puts a leadWatch around client i.
func (g *vgame) watchLeads(i int) *leadWatch {
	w := &leadWatch{Client: g.clients[i], arrived: map[uint32]uint32{}}
	g.Attach(g.caddrs[i], w)
	return w
}

// checkLeadEverywhere fails unless the server and every live client have lead frames in force,
// fixed by the teacher or not.
func checkLeadEverywhere(t *testing.T, g *vgame, frames uint32, fixed bool) {
	t.Helper()
	if g.srv.lead.cur != frames || g.srv.lead.fixed != fixed {
		t.Errorf("the server's lead: %d frames (fixed %v), want %d (fixed %v)", g.srv.lead.cur, g.srv.lead.fixed, frames, fixed)
	}
	for _, c := range g.live() {
		if c.lead.cur != frames || c.lead.fixed != fixed {
			t.Errorf("%s's lead: %d frames (fixed %v), want %d (fixed %v)", c.cfg.Name, c.lead.cur, c.lead.fixed, frames, fixed)
		}
	}
}

// leadEverywhere reports whether the server and every live client have lead frames in force.
func leadEverywhere(g *vgame, frames uint32, fixed bool) bool {
	if g.srv.lead.cur != frames || g.srv.lead.fixed != fixed {
		return false
	}
	for _, c := range g.live() {
		if !clientRunning(c) || c.lead.cur != frames || c.lead.fixed != fixed {
			return false
		}
	}
	return true
}

// TestFixedLeadHolds: a game whose teacher fixed the lead (--lead 120ms: one frame) keeps it on
// every host, a spectator's included, from the start and for as long as it runs: the policy,
// which would want three frames on this link, changes nothing. And the trade shows: one frame
// is shorter than the way a command travels, so commands come late and every host runs their
// frames again, exactly (the worlds agree).
func TestFixedLeadHolds(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 31, bots: 1, clients: 2, link: slowLink, server: func(c *ServerConfig) {
		c.Orders.Lead = FixedLead(120 * time.Millisecond) // one frame, rounded
	}})
	g.joinWatcher(func(c *ClientConfig) { c.Name, c.Spectate = "watcher", true })
	g.waitFor(10*time.Second, "every client in the game", func() bool { return leadEverywhere(g, 1, true) })
	if want := g.srv.wantLead(); want <= 1 {
		t.Fatalf("the policy wants %d frames: the test would show nothing", want)
	}
	g.runUntil(g.now.Add(20*time.Second), func() bool {
		if !leadEverywhere(g, 1, true) {
			checkLeadEverywhere(t, g, 1, true)
			return true
		}
		return false
	})
	if n := g.srv.stats.LeadChanges + g.srv.stats.LeadSettings; n != 0 {
		t.Errorf("%d lead changes with the lead fixed from the start", n)
	}
	var resims uint64
	for _, c := range g.clients {
		if c.stats.LeadTimes != 0 {
			t.Errorf("%s got %d LeadTimes: StartGame had the lead", c.cfg.Name, c.stats.LeadTimes)
		}
		resims += c.drift.rw.stats.Resimulations
		if s := c.Snapshot(); !s.LeadFixed || s.Game.LeadTimeMillis != 100 {
			t.Errorf("%s's snapshot: lead %d ms, fixed %v; want 100 ms, fixed", c.cfg.Name, s.Game.LeadTimeMillis, s.LeadFixed)
		}
	}
	if s := g.srv.Snapshot(); s.LeadSetting != FixedLead(100*time.Millisecond) || !s.LeadFixed || s.Lead != 1 || s.LeadNext != (LeadTime{}) {
		t.Errorf("the server's snapshot: setting %v, fixed %v, %d frames, next %+v; want 100ms, fixed, 1, none", s.LeadSetting, s.LeadFixed, s.Lead, s.LeadNext)
	}
	t.Logf("a lead of one frame on a 300 ms round trip: %d re-runs on the clients", resims)
	if resims == 0 {
		t.Error("no re-run with a lead shorter than the way there")
	}
	checkAgree(t, g)
}

// TestSetLeadLive: the teacher fixes the lead while the game runs. The change reaches every
// client, the spectator included, before the frame it was announced for, and is in force
// everywhere from that frame; while it is fixed the policy changes nothing, and a client that
// joins then starts with it. Back to auto, the policy's lead comes at once, and the policy
// follows the link again.
func TestSetLeadLive(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 33, bots: 1, clients: 2, link: slowLink})
	g.joinWatcher(func(c *ClientConfig) { c.Name, c.Spectate = "watcher", true })
	var watches []*leadWatch
	for i := range g.clients {
		watches = append(watches, g.watchLeads(i))
	}
	g.waitFor(20*time.Second, "the policy's 3 frames everywhere", func() bool { return leadEverywhere(g, 3, false) })

	// set changes the lead to l and checks the change the server announced: frames, fixed.
	set := func(l LeadSetting, frames uint32, fixed bool) LeadTime {
		t.Helper()
		changes, settings := g.srv.stats.LeadChanges, g.srv.stats.LeadSettings
		if got, err := g.srv.SetLead(g.now, l); err != nil || got != l {
			t.Fatalf("SetLead(%v) = %v, %v", l, got, err)
		}
		if g.srv.stats.LeadChanges != changes+1 || g.srv.stats.LeadSettings != settings+1 {
			t.Fatalf("SetLead(%v) announced %d changes, %d of the teacher's; want one at once", l,
				g.srv.stats.LeadChanges-changes, g.srv.stats.LeadSettings-settings)
		}
		lt := g.srv.lead.next[len(g.srv.lead.next)-1]
		if lt.LeadFrames != frames || lt.Fixed != fixed || lt.Frame <= g.srv.w.Frame() {
			t.Fatalf("SetLead(%v) announced %+v at frame %d, want %d frames (fixed %v) ahead", l, lt, g.srv.w.Frame(), frames, fixed)
		}
		g.srv.Intent(g.now)
		if s := g.srv.Snapshot(); s.LeadNext != lt || s.LeadSetting != l {
			t.Errorf("the server's snapshot: next %+v, setting %v; want %+v, %v", s.LeadNext, s.LeadSetting, lt, l)
		}
		g.waitFor(5*time.Second, "the change on its way in every client's snapshot", func() bool {
			for _, c := range g.live() {
				if c.Snapshot().LeadNext != lt {
					return false
				}
			}
			return true
		})
		g.waitFor(10*time.Second, "the change in force everywhere", func() bool { return leadEverywhere(g, frames, fixed) })
		for _, w := range watches {
			if at, ok := w.arrived[lt.Frame]; !ok || at > lt.Frame {
				t.Errorf("%s: the change for frame %d arrived at frame %d (arrived: %v)", w.cfg.Name, lt.Frame, at, ok)
			}
			if w.w.Frame() <= lt.Frame {
				t.Errorf("%s in force at frame %d, before the change's frame %d", w.cfg.Name, w.w.Frame(), lt.Frame)
			}
		}
		return lt
	}

	set(FixedLead(time.Second), 10, true)
	changes := g.srv.stats.LeadChanges
	g.run(15 * time.Second)
	checkLeadEverywhere(t, g, 10, true)
	if g.srv.stats.LeadChanges != changes {
		t.Errorf("%d lead changes while the teacher fixed it", g.srv.stats.LeadChanges-changes)
	}
	for _, c := range g.clients {
		c.publish(g.now, true)
		if s := c.Snapshot(); !s.LeadFixed || s.Game.LeadTimeMillis != 1000 {
			t.Errorf("%s's snapshot: lead %d ms, fixed %v; want 1000 ms, fixed", c.cfg.Name, s.Game.LeadTimeMillis, s.LeadFixed)
		}
	}
	// A client that joins now starts with the teacher's lead.
	late := g.join(func(c *ClientConfig) { c.Name = "late" })
	g.waitFor(20*time.Second, "the latecomer in the game", func() bool { return clientRunning(g.clients[late]) })
	checkLeadEverywhere(t, g, 10, true)

	// Back to auto: the policy's 3 frames at once, then the policy follows the link.
	set(LeadAuto, 3, false)
	for _, from := range g.names {
		for _, to := range g.names {
			if cond := g.nw.Conditioner(from, to); cond != nil {
				if err := cond.SetSettings(linksim.Settings{Latency: 300 * time.Millisecond}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	changes = g.srv.stats.LeadChanges
	g.waitFor(30*time.Second, "the policy's lead for 600 ms of round trip", func() bool {
		return g.srv.lead.cur > 3 && leadEverywhere(g, g.srv.lead.cur, false)
	})
	if g.srv.stats.LeadChanges == changes {
		t.Error("the policy changed nothing after the teacher gave the lead back")
	}
	checkAgree(t, g)
}

// TestTeacherLeadPaced: the teacher's changes go out at most one every teacherLeadEvery: of five
// presses of the key within 100 ms, the first goes at once and the last after the bound, the
// others never, and every host ends with the last. A refused setting changes nothing.
func TestTeacherLeadPaced(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 35, bots: 1, clients: 2})
	g.waitFor(10*time.Second, "the game to start", func() bool { return clientRunning(g.clients[0]) && clientRunning(g.clients[1]) })
	if _, err := g.srv.SetLead(g.now, FixedLead(4*time.Second)); !errors.Is(err, errLead) {
		t.Errorf("a lead of 4 s: %v", err)
	}
	if _, err := g.srv.SetLead(g.now, FixedLead(-time.Second)); !errors.Is(err, errLead) {
		t.Errorf("a lead of -1 s: %v", err)
	}
	if g.srv.lead.setting != LeadAuto || g.srv.lead.teacher.asked != LeadAuto || g.srv.stats.LeadSettings != 0 {
		t.Fatalf("a refused setting changed the lead: %v, asked %v, %d sent", g.srv.lead.setting, g.srv.lead.teacher.asked, g.srv.stats.LeadSettings)
	}
	got := map[*Client]uint64{}
	for _, c := range g.clients {
		got[c] = c.stats.LeadTimes
	}
	ms := func(n int) LeadSetting { return FixedLead(time.Duration(n) * time.Millisecond) }
	for i, l := range []LeadSetting{ms(100), ms(300), ms(1000), LeadAuto, ms(2000)} {
		if i > 0 {
			g.run(20 * time.Millisecond)
		}
		if _, err := g.srv.SetLead(g.now, l); err != nil {
			t.Fatal(err)
		}
	}
	if g.srv.stats.LeadSettings != 1 {
		t.Errorf("%d of the teacher's changes sent at once, want 1", g.srv.stats.LeadSettings)
	}
	if next := g.srv.NextDeadline(g.now); next.After(g.now.Add(teacherLeadEvery)) {
		t.Errorf("the server's next deadline is %v away, after the waiting change's %v", next.Sub(g.now), teacherLeadEvery)
	}
	g.waitFor(10*time.Second, "2 s fixed everywhere", func() bool { return leadEverywhere(g, 20, true) })
	g.run(time.Second)
	if g.srv.stats.LeadSettings != 2 {
		t.Errorf("%d of the teacher's changes sent, want 2: the first and the last", g.srv.stats.LeadSettings)
	}
	for _, c := range g.clients {
		if n := c.stats.LeadTimes - got[c]; n != 2 {
			t.Errorf("%s got %d LeadTimes, want 2", c.cfg.Name, n)
		}
	}
	checkLeadEverywhere(t, g, 20, true)
}

// TestSetLeadBeforeStart: a lead the teacher fixes in the lobby is in force at once (the
// snapshot shows it) and is the one the game starts with: StartGame carries it, and no
// LeadTime is needed.
func TestSetLeadBeforeStart(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 37, clients: 1})
	if _, err := g.srv.SetLead(g.now, FixedLead(time.Second)); err != nil {
		t.Fatal(err)
	}
	g.srv.Intent(g.now)
	if s := g.srv.Snapshot(); s.Running || s.Lead != 10 || !s.LeadFixed || s.LeadSetting != FixedLead(time.Second) {
		t.Errorf("the lobby's snapshot: running %v, %d frames, fixed %v, setting %v; want 10 frames fixed at 1s", s.Running, s.Lead, s.LeadFixed, s.LeadSetting)
	}
	g.waitFor(10*time.Second, "the game to start", func() bool { return clientRunning(g.clients[0]) })
	checkLeadEverywhere(t, g, 10, true)
	if n := g.clients[0].stats.LeadTimes + g.srv.stats.LeadChanges + g.srv.stats.LeadSettings; n != 0 {
		t.Errorf("%d LeadTimes and lead changes for a lead set before the start", n)
	}
}
