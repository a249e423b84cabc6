package game

// Tests of the unit-hash checks and of both kinds of re-sync on real loopback sockets: a client
// corrupts some of its own units on purpose, and the server has to find and repair them.
//
// Every game here has one server bot and two bot clients: three players of five units, ids 1
// to 15. With the default group size of 16 they all fall in the first hash group, so the units
// a client corrupts at once are reported together, drilled into by one HashRequest and
// answered by one UnitHashes: the server sees all of them in one go, which is what decides
// between a real-time and a stop-the-world re-sync.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

const (
	desyncBots    = 1
	desyncClients = 2
	// desyncWarmup: the corruption happens once every client is this many frames into the game.
	// The corrupted units are in the first hash group, which a client reports at the frames
	// that are multiples of hashReportEvery; frame 21 is just after such a report, so the
	// corruption waits almost the longest possible time for the next one.
	desyncWarmup = 21
	// desyncDetectBound is how long after the corruption the server must have counted it.
	// A client reports each hash group once every hashReportEvery frames (1 s), so the first
	// report covering the unit leaves at most 1 s after the corruption. From that report the
	// server is allowed another second: it needs the report, its HashRequest and the client's
	// UnitHashes to cross loopback (well under a millisecond each) and at most one frame
	// (0.1 s) if the report is about a frame the server has not reached yet, so the second is
	// the slack for a loaded machine and the race detector. That makes 2 s; the last 0.5 s
	// cover the snapshot the test reads, republished only every 0.1 s, and the scheduling of
	// the test's own polling. On an idle machine the measure is about 1 s (0.1 s when the
	// corruption happens just before a report).
	desyncDetectBound = 2500 * time.Millisecond
	// desyncAfter: after a re-sync, every host must run at least this many more frames.
	desyncAfter = 20
)

// injection is a corruption made by Client.InjectDesync on the client's own loop.
type injection struct {
	at    time.Time
	frame uint32   // the client's world frame then (the next frame it steps)
	ids   []uint32 // the units whose state was changed
}

// injectDesync corrupts n of c's units on c's loop and tells which.
func injectDesync(ctx context.Context, c *Client, n int) (injection, bool) {
	done := make(chan injection, 1)
	c.Do(func(c *Client) {
		before := make(map[uint32]int32, len(c.w.Units()))
		for _, u := range c.w.Units() {
			before[u.ID] = u.HP
		}
		c.InjectDesync(n)
		inj := injection{at: time.Now(), frame: c.w.Frame()}
		for _, u := range c.w.Units() {
			if hp, ok := before[u.ID]; ok && hp != u.HP {
				inj.ids = append(inj.ids, u.ID)
			}
		}
		done <- inj
	})
	select {
	case inj := <-done:
		return inj, true
	case <-ctx.Done():
		return injection{}, false
	}
}

// waitUntil polls cond every 5 ms until it holds (true) or ctx ends (false).
func waitUntil(ctx context.Context, cond func() bool) bool {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return cond()
		case <-tick.C:
		}
	}
	return true
}

// waitUntilTime blocks until at or until ctx ends.
func waitUntilTime(ctx context.Context, at time.Time) {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// clientsAtFrame: every client runs the game and has reached frame f.
func clientsAtFrame(cs []*Client, f uint32) bool {
	for _, c := range cs {
		if s := c.Snapshot(); !s.Started || s.Paused || s.Frame < f {
			return false
		}
	}
	return true
}

// stopPlaying makes every bot stop playing and every client stop corrupting its units, so that
// the last repairs can settle before the game ends.
func stopPlaying(srv *Server, cs []*Client) {
	srv.Do(func(s *Server) { s.StopBots() })
	for _, c := range cs {
		c.Do(func(c *Client) {
			c.StopBot()
			c.cfg.InjectDesync = 0
		})
	}
}

// compareWorldHashes checks r's world hashes against the server's at every frame both recorded
// after frame after, and returns how many frames that was.
func compareWorldHashes(t *testing.T, server, r Report, after uint32) int {
	t.Helper()
	common := 0
	for f, h := range r.WorldHashes {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil {
			t.Errorf("%s: world hash at frame %q", r.Name, f)
			continue
		}
		sh, ok := server.WorldHashes[f]
		if !ok || uint32(n) <= after {
			continue
		}
		common++
		if sh != h {
			t.Errorf("%s: world hash at frame %s is %s, the server's %s", r.Name, f, h, sh)
		}
	}
	return common
}

// checkInSyncAfter: every client's world hash equals the server's at every frame both recorded
// after frame last (the server's last re-sync), and there are at least two such frames. Unlike
// checkHashesAfterResync it counts the last frames of the game too: nothing corrupts the
// worlds once these tests stop, so nothing may differ there either.
func checkInSyncAfter(t *testing.T, res sessionResult, last uint32) {
	t.Helper()
	for _, r := range res.clients {
		if n := compareWorldHashes(t, res.server, r, last); n < 2 {
			t.Errorf("%s: %d frames in common with the server after the last re-sync at frame %d, want 2 or more (hashes: server %v, client %v)",
				r.Name, n, last, res.server.WorldHashes, r.WorldHashes)
		}
	}
}

// logSyncEvents logs the server's lines about mismatches and re-syncs.
func logSyncEvents(t *testing.T, snap *ServerSnapshot) {
	t.Helper()
	for _, e := range snap.Events {
		for _, w := range []string{"mismatch", "re-sync", "stop the world", "paused", "resumed"} {
			if strings.Contains(e, w) {
				t.Logf("server event: %s", e)
				break
			}
		}
	}
}

// syncEvent is one of the server's log lines about a seat's mismatch or repair.
type syncEvent struct {
	what  string // "hash mismatch", "real-time re-sync" or "stop the world"
	at    uint32 // the server's frame when it happened
	seat  uint8
	frame uint32 // the frame the report was about (mismatch), the update is for (real-time re-sync)
}

var (
	syncEventLine  = regexp.MustCompile(`^\S+ frame (\d+): (hash mismatch|real-time re-sync|stop the world) seat=(\d+)(.*)$`)
	syncEventFrame = regexp.MustCompile(` frame=(\d+)`)
)

// syncEvents parses the server's event log, oldest first.
func syncEvents(snap *ServerSnapshot) []syncEvent {
	var out []syncEvent
	for _, line := range snap.Events {
		m := syncEventLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, _ := strconv.ParseUint(m[1], 10, 32)
		seat, _ := strconv.ParseUint(m[3], 10, 8)
		e := syncEvent{what: m[2], at: uint32(at), seat: uint8(seat)}
		if f := syncEventFrame.FindStringSubmatch(m[4]); f != nil {
			n, _ := strconv.ParseUint(f[1], 10, 32)
			e.frame = uint32(n)
		}
		out = append(out, e)
	}
	return out
}

// firstEvent is the first event of kind what about seat, if any.
func firstEvent(es []syncEvent, what string, seat uint8) (syncEvent, bool) {
	for _, e := range es {
		if e.what == what && e.seat == seat {
			return e, true
		}
	}
	return syncEvent{}, false
}

// executedFrames lists, in order, the client's frame when each message of type typ executed,
// from its trace.
func executedFrames(t *testing.T, trace *bytes.Buffer, typ string) []uint32 {
	t.Helper()
	var out []uint32
	sc := bufio.NewScanner(bytes.NewReader(trace.Bytes()))
	for sc.Scan() {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace: %v: %s", err, sc.Text())
		}
		if l.Type == typ {
			out = append(out, l.Frame)
		}
	}
	return out
}

// TestInjectDesyncRealtimeRepair: one unit corrupted on one client is found by the hash checks
// within desyncDetectBound, repaired by a real-time re-sync (the world does not stop), and from
// then on every host's world equals the server's.
func TestInjectDesyncRealtimeRepair(t *testing.T) {
	t.Parallel()
	const dur, quiet = 10 * time.Second, 2 * time.Second
	var (
		inj      injection
		seat     uint8           // the corrupted client's
		detected *ServerSnapshot // the first snapshot in which the server counted the mismatch
		repaired *ServerSnapshot // the first snapshot with the real-time re-sync
		server   *Server
	)
	res := runSession(t, sessionSpec{bots: desyncBots, clients: desyncClients, dur: dur,
		during: func(ctx context.Context, srv *Server, cs []*Client) {
			begin := time.Now()
			defer func() {
				waitUntilTime(ctx, begin.Add(dur-quiet))
				stopPlaying(srv, cs)
			}()
			server = srv
			if !waitUntil(ctx, func() bool { return clientsAtFrame(cs, desyncWarmup) }) {
				t.Errorf("the clients never reached frame %d", desyncWarmup)
				return
			}
			base := srv.Snapshot().Stats
			if base.MismatchedUnits != 0 || base.RealtimeResyncs != 0 || base.StopWorldResyncs != 0 {
				t.Errorf("mismatches before any corruption: %+v", base)
			}
			var ok bool
			if inj, ok = injectDesync(ctx, cs[0], 1); !ok {
				return
			}
			seat = cs[0].Snapshot().Seat
			waitUntil(ctx, func() bool {
				s := srv.Snapshot()
				if detected == nil && s.Stats.MismatchedUnits > base.MismatchedUnits {
					detected = s
				}
				if repaired == nil && s.Stats.RealtimeResyncs > base.RealtimeResyncs {
					repaired = s
				}
				return detected != nil && repaired != nil
			})
		}})
	logReports(t, res)
	if server != nil {
		logSyncEvents(t, server.Snapshot()) // Run has returned: the snapshot is its last
	}
	if len(inj.ids) != 1 {
		t.Fatalf("InjectDesync(1) corrupted units %v, want one", inj.ids)
	}
	t.Logf("corrupted unit %d at client frame %d", inj.ids[0], inj.frame)
	if detected == nil {
		t.Fatalf("the server never found the corrupted unit %d", inj.ids[0])
	}
	lat := detected.At.Sub(inj.at)
	t.Logf("detection: %v after the corruption (server frame %d, %d frames after the client's)",
		lat.Round(time.Millisecond), detected.Frame, int64(detected.Frame)-int64(inj.frame))
	if lat > desyncDetectBound {
		t.Errorf("the server found the corrupted unit %v after the corruption, want at most %v", lat.Round(time.Millisecond), desyncDetectBound)
	}
	if repaired == nil {
		t.Fatalf("no real-time re-sync")
	}
	t.Logf("real-time re-sync: %v after the corruption", repaired.At.Sub(inj.at).Round(time.Millisecond))

	// The same in frames, from the server's log: the mismatch comes from the first report
	// covering the unit after the corruption (within hashReportEvery frames of it), and the
	// server finds the unit and repairs it within hashReportEvery frames of that report.
	es := syncEvents(server.Snapshot())
	if m, ok := firstEvent(es, "hash mismatch", seat); !ok {
		t.Errorf("no hash mismatch of seat %d in the server's log", seat)
	} else if r, ok := firstEvent(es, "real-time re-sync", seat); !ok {
		t.Errorf("no real-time re-sync of seat %d in the server's log", seat)
	} else {
		t.Logf("frames: corrupted before client frame %d, reported at frame %d, found and repaired at server frame %d",
			inj.frame, m.frame, r.at)
		if m.frame < inj.frame || m.frame >= inj.frame+hashReportEvery {
			t.Errorf("the mismatch came from the report of frame %d, not the first one after the corruption at frame %d", m.frame, inj.frame)
		}
		if r.at > m.frame+hashReportEvery {
			t.Errorf("the unit reported at frame %d was found and repaired only at server frame %d", m.frame, r.at)
		}
	}

	s := res.server.Sync
	if s.RealtimeResyncs == 0 || s.StopWorldResyncs != 0 || len(s.PauseMillis) != 0 {
		t.Errorf("server: %d real-time and %d stop-the-world re-syncs (pauses %v), want real-time only",
			s.RealtimeResyncs, s.StopWorldResyncs, s.PauseMillis)
	}
	if s.MismatchedUnits < 1 {
		t.Errorf("server: %d mismatched units, want at least the corrupted one", s.MismatchedUnits)
	}
	if c := res.clients[0].Sync; c.RealtimeResyncs == 0 || c.StopWorldResyncs != 0 {
		t.Errorf("%s (corrupted): %d real-time and %d stop-the-world re-syncs received, want real-time only",
			res.clients[0].Name, c.RealtimeResyncs, c.StopWorldResyncs)
	}
	last := s.LastResyncFrame
	if last < inj.frame {
		t.Errorf("last re-sync at frame %d, before the corruption at frame %d", last, inj.frame)
	}
	for _, r := range res.clients {
		if r.Frame < last+desyncAfter {
			t.Errorf("%s stopped at frame %d, under %d frames after the re-sync at %d", r.Name, r.Frame, desyncAfter, last)
		}
	}
	// The corrupted client matches the server from the repair on.
	checkInSyncAfter(t, res, last)
	// The others were never touched: they match at every frame, the repair is local.
	for _, r := range res.clients[1:] {
		if n := compareWorldHashes(t, res.server, r, 0); n == 0 {
			t.Errorf("%s: no world hash in common with the server", r.Name)
		}
	}
}

// TestInjectDesyncManyUnitsStopsTheWorld: more units corrupted at once than the real-time limit
// makes the server stop the world; the pause ends, every host runs on, and their worlds equal
// the server's afterwards.
func TestInjectDesyncManyUnitsStopsTheWorld(t *testing.T) {
	t.Parallel()
	const (
		dur, quiet  = 12 * time.Second, 2 * time.Second
		realtimeMax = 2
		corrupt     = realtimeMax + 1
	)
	var (
		inj      injection
		detected *ServerSnapshot
		resumed  *ServerSnapshot // the first snapshot after the pause ended
		server   *Server
	)
	res := runSession(t, sessionSpec{bots: desyncBots, clients: desyncClients, dur: dur,
		during: func(ctx context.Context, srv *Server, cs []*Client) {
			begin := time.Now()
			defer func() {
				waitUntilTime(ctx, begin.Add(dur-quiet))
				stopPlaying(srv, cs)
			}()
			server = srv
			// runSession builds the configuration itself; the server's loop is the place to
			// change it.
			srv.Do(func(s *Server) { s.cfg.RealtimeMax = realtimeMax })
			if !waitUntil(ctx, func() bool { return clientsAtFrame(cs, desyncWarmup) }) {
				t.Errorf("the clients never reached frame %d", desyncWarmup)
				return
			}
			base := srv.Snapshot().Stats
			if base.MismatchedUnits != 0 || base.StopWorldResyncs != 0 {
				t.Errorf("mismatches before any corruption: %+v", base)
			}
			var ok bool
			if inj, ok = injectDesync(ctx, cs[0], corrupt); !ok {
				return
			}
			waitUntil(ctx, func() bool {
				s := srv.Snapshot()
				if detected == nil && s.Stats.MismatchedUnits > base.MismatchedUnits {
					detected = s
				}
				if len(s.Stats.PauseMillis) > len(base.PauseMillis) {
					resumed = s
				}
				return resumed != nil
			})
		}})
	logReports(t, res)
	if server != nil {
		logSyncEvents(t, server.Snapshot()) // Run has returned: the snapshot is its last
	}
	if len(inj.ids) != corrupt {
		t.Fatalf("InjectDesync(%d) corrupted units %v", corrupt, inj.ids)
	}
	t.Logf("corrupted units %v at client frame %d", inj.ids, inj.frame)
	if detected == nil {
		t.Fatalf("the server never found the corrupted units")
	}
	lat := detected.At.Sub(inj.at)
	t.Logf("detection: %v after the corruption", lat.Round(time.Millisecond))
	if lat > desyncDetectBound {
		t.Errorf("the server found the corrupted units %v after the corruption, want at most %v", lat.Round(time.Millisecond), desyncDetectBound)
	}
	if resumed == nil {
		t.Fatalf("the world never resumed (server pauses %v)", res.server.Sync.PauseMillis)
	}
	t.Logf("resumed %v after the corruption", resumed.At.Sub(inj.at).Round(time.Millisecond))

	s := res.server.Sync
	t.Logf("pauses: server %v ms, %s %v ms, %s %v ms", s.PauseMillis,
		res.clients[0].Name, res.clients[0].Sync.PauseMillis, res.clients[1].Name, res.clients[1].Sync.PauseMillis)
	if s.StopWorldResyncs == 0 {
		t.Errorf("server: no stop-the-world re-sync for %d units with a real-time limit of %d", corrupt, realtimeMax)
	}
	if len(s.PauseMillis) == 0 || uint64(len(s.PauseMillis)) != s.StopWorldResyncs {
		t.Errorf("server: %d stop-the-world re-syncs, pauses %v: every pause should have ended", s.StopWorldResyncs, s.PauseMillis)
	}
	if s.MismatchedUnits < corrupt {
		t.Errorf("server: %d mismatched units, want at least the %d corrupted", s.MismatchedUnits, corrupt)
	}
	last := s.LastResyncFrame
	if res.server.Frame < last+desyncAfter {
		t.Errorf("server stopped at frame %d, under %d frames after the pause at %d", res.server.Frame, desyncAfter, last)
	}
	for _, r := range res.clients {
		if r.Sync.StopWorldResyncs == 0 || len(r.Sync.PauseMillis) == 0 {
			t.Errorf("%s: %d pauses received, pauses %v: want a pause that ended", r.Name, r.Sync.StopWorldResyncs, r.Sync.PauseMillis)
		}
		if r.Frame < last+desyncAfter {
			t.Errorf("%s stopped at frame %d, under %d frames after the pause at %d", r.Name, r.Frame, desyncAfter, last)
		}
	}
	checkInSyncAfter(t, res, res.server.Sync.LastResyncFrame)
}

// TestInjectDesyncFlag: ClientConfig.InjectDesync corrupts a unit every 2 s on both clients;
// every corruption is found and repaired, and once the corruptions stop the game ends in sync.
func TestInjectDesyncFlag(t *testing.T) {
	t.Parallel()
	const dur, quiet = 10 * time.Second, 3500 * time.Millisecond
	var (
		clients []*Client
		server  *Server
	)
	res := runSession(t, sessionSpec{bots: desyncBots, clients: desyncClients, dur: dur,
		clientCfg: func(i int, c *ClientConfig) { c.InjectDesync = 2 * time.Second },
		during: func(ctx context.Context, srv *Server, cs []*Client) {
			clients = cs
			waitUntilTime(ctx, time.Now().Add(dur-quiet))
			stopPlaying(srv, cs)
			server = srv
		}})
	logReports(t, res)
	if server != nil {
		logSyncEvents(t, server.Snapshot()) // Run has returned: the snapshot is its last
	}
	// Run has returned on every client (runSession waited for it): its counters are final.
	var desyncs uint64
	for i, c := range clients {
		r := res.clients[i]
		desyncs += c.stats.Desyncs
		t.Logf("%s: %d units corrupted, %d repaired", r.Name, c.stats.Desyncs, r.Sync.MismatchedUnits)
		if c.stats.Desyncs == 0 {
			t.Errorf("%s corrupted no unit", r.Name)
		}
		if r.Sync.MismatchedUnits == 0 {
			t.Errorf("%s: none of its %d corrupted units was repaired", r.Name, c.stats.Desyncs)
		}
	}
	s := res.server.Sync
	if s.MismatchedUnits == 0 || s.RealtimeResyncs+s.StopWorldResyncs == 0 {
		t.Errorf("server: %d mismatched units, %d real-time and %d stop-the-world re-syncs after %d corruptions",
			s.MismatchedUnits, s.RealtimeResyncs, s.StopWorldResyncs, desyncs)
	}
	if uint64(len(s.PauseMillis)) != s.StopWorldResyncs {
		t.Errorf("server: %d stop-the-world re-syncs, pauses %v: every pause should have ended", s.StopWorldResyncs, s.PauseMillis)
	}
	checkInSyncAfter(t, res, res.server.Sync.LastResyncFrame)
}

// TestInjectDesyncRealtimeRepairOverLatency: the real-time re-sync of a single corrupted unit
// holds over a link with 60 ms of latency each way (a round trip of about 140 ms with the
// hosts' own delays): the UnitUpdate reaches its client before the frame it is for, so it is
// applied on time, without fast-forwarding, and the next report shows the unit in sync (no
// stop-the-world re-sync follows). One unit is corrupted on each client in turn, far enough
// apart that neither looks like a repeat of the other.
func TestInjectDesyncRealtimeRepairOverLatency(t *testing.T) {
	t.Parallel()
	const dur, quiet = 13 * time.Second, 2 * time.Second
	lat := linksim.Settings{Latency: 60 * time.Millisecond}
	var (
		seats  = make([]uint8, desyncClients)
		injs   []injection
		server *Server
	)
	res := runSession(t, sessionSpec{bots: desyncBots, clients: desyncClients, dur: dur,
		link: &transport.LinkSettings{Out: lat, In: lat},
		during: func(ctx context.Context, srv *Server, cs []*Client) {
			begin := time.Now()
			server = srv
			defer func() {
				waitUntilTime(ctx, begin.Add(dur-quiet))
				stopPlaying(srv, cs)
			}()
			if !waitUntil(ctx, func() bool { return clientsAtFrame(cs, desyncWarmup) }) {
				t.Errorf("the clients never reached frame %d", desyncWarmup)
				return
			}
			for i, c := range cs {
				seats[i] = c.Snapshot().Seat
				if i > 0 {
					// Past the re-check of the previous repair (report, drill-down,
					// update, the next report: under 3 s at this latency).
					waitUntilTime(ctx, time.Now().Add(3500*time.Millisecond))
				}
				inj, ok := injectDesync(ctx, c, 1)
				if !ok {
					return
				}
				injs = append(injs, inj)
			}
		}})
	logReports(t, res)
	if server == nil {
		t.Fatal("the game never ran")
	}
	logSyncEvents(t, server.Snapshot())
	if len(injs) != desyncClients {
		t.Fatalf("%d corruptions made, want %d", len(injs), desyncClients)
	}
	es := syncEvents(server.Snapshot())
	for i, inj := range injs {
		r := res.clients[i]
		t.Logf("%s (seat %d): unit %v corrupted before frame %d", r.Name, seats[i], inj.ids, inj.frame)
		var updates []uint32 // the frames of the real-time re-syncs of this seat
		for _, e := range es {
			if e.what == "real-time re-sync" && e.seat == seats[i] {
				updates = append(updates, e.frame)
			}
		}
		if len(updates) == 0 {
			t.Errorf("%s: no real-time re-sync", r.Name)
			continue
		}
		executed := executedFrames(t, res.traces[i], "UnitUpdate")
		for k := range min(len(updates), len(executed)) {
			// A client at frame F has not stepped F yet: an update for F executed there is
			// on time.
			t.Logf("%s: UnitUpdate for frame %d executed at client frame %d", r.Name, updates[k], executed[k])
			if executed[k] > updates[k] {
				t.Errorf("%s: the UnitUpdate for frame %d arrived at client frame %d, %d frames late: applied by fast-forward",
					r.Name, updates[k], executed[k], executed[k]-updates[k])
			}
		}
	}
	if s := res.server.Sync; s.StopWorldResyncs != 0 {
		t.Errorf("server: %d stop-the-world re-syncs after %d single-unit corruptions: a real-time re-sync failed (pauses %v ms)",
			s.StopWorldResyncs, len(injs), s.PauseMillis)
	}
	checkInSyncAfter(t, res, res.server.Sync.LastResyncFrame)
}

// TestInjectDesyncTwoClientsAtOnce: a unit corrupted on each client at the same moment. Each
// is found and repaired like a lone one: the mismatch comes from the first report that covers
// the unit after its corruption, and the repair follows within hashReportEvery frames of that
// report. One client's repair must not hold back the other's.
func TestInjectDesyncTwoClientsAtOnce(t *testing.T) {
	t.Parallel()
	const dur, quiet = 9 * time.Second, 2 * time.Second
	var (
		seats  = make([]uint8, desyncClients)
		injs   []injection
		server *Server
	)
	res := runSession(t, sessionSpec{bots: desyncBots, clients: desyncClients, dur: dur,
		during: func(ctx context.Context, srv *Server, cs []*Client) {
			begin := time.Now()
			server = srv
			defer func() {
				waitUntilTime(ctx, begin.Add(dur-quiet))
				stopPlaying(srv, cs)
			}()
			if !waitUntil(ctx, func() bool { return clientsAtFrame(cs, desyncWarmup) }) {
				t.Errorf("the clients never reached frame %d", desyncWarmup)
				return
			}
			for i, c := range cs {
				seats[i] = c.Snapshot().Seat
				inj, ok := injectDesync(ctx, c, 1)
				if !ok {
					return
				}
				injs = append(injs, inj)
			}
		}})
	logReports(t, res)
	if server == nil {
		t.Fatal("the game never ran")
	}
	logSyncEvents(t, server.Snapshot())
	if len(injs) != desyncClients {
		t.Fatalf("%d corruptions made, want %d", len(injs), desyncClients)
	}
	es := syncEvents(server.Snapshot())
	for i, inj := range injs {
		r := res.clients[i]
		m, ok := firstEvent(es, "hash mismatch", seats[i])
		if !ok {
			t.Errorf("%s: no hash mismatch in the server's log", r.Name)
			continue
		}
		fix, ok := firstEvent(es, "real-time re-sync", seats[i])
		if !ok {
			t.Errorf("%s: no real-time re-sync in the server's log", r.Name)
			continue
		}
		t.Logf("%s (seat %d): unit %v corrupted before frame %d, first reported at frame %d, repaired at server frame %d",
			r.Name, seats[i], inj.ids, inj.frame, m.frame, fix.at)
		if m.frame < inj.frame || m.frame >= inj.frame+hashReportEvery {
			t.Errorf("%s: the mismatch came from the report of frame %d, not from the first one after the corruption at frame %d",
				r.Name, m.frame, inj.frame)
		}
		if fix.at > m.frame+hashReportEvery {
			t.Errorf("%s: reported at frame %d, repaired only at server frame %d", r.Name, m.frame, fix.at)
		}
	}
	t.Logf("server: %d hash reports or answers too old to check", server.Snapshot().Stats.HashReportsTooOld)
	if s := res.server.Sync; s.RealtimeResyncs < desyncClients || s.StopWorldResyncs != 0 {
		t.Errorf("server: %d real-time and %d stop-the-world re-syncs for %d single-unit corruptions", s.RealtimeResyncs, s.StopWorldResyncs, desyncClients)
	}
	checkInSyncAfter(t, res, res.server.Sync.LastResyncFrame)
}
