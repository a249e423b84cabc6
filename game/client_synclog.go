package game

import (
	"slices"
	"time"

	"github.com/ackattack/ackattack/world"
)

// The client's side of the sync log (synclog.go) and its pending orders. Everything here only
// watches the game for the debug panel and the orders line: the simulation never reads it, so
// it cannot make this host's world differ from the others'.

// drillAnswer is the hashes a client sent in answer to a HashRequest. They are only
// candidates: the server's UnitUpdate says which of them differed, and this is where the
// client finds its own hash of those units again.
type drillAnswer struct {
	frame  uint32
	hashes []world.UnitHash // ids ascending
}

// maxAnswers is how many answers a client keeps. A repair follows its answer within a round
// trip or two, long before eight more drill-downs come.
const maxAnswers = 8

// pendingStale is how long after its frame a pending order is dropped even though its event
// never ran. An order normally leaves the list when it runs; one that never will must not stay
// forever: a stop-the-world re-sync drops the events before the paused frame (the server
// refused them too), and the list would otherwise show "pending until frame F" for a frame
// long gone. Five seconds is far more than any order waits to run.
const pendingStale = 5 * time.Second

// answer returns the hashes sent in answer to the HashRequest for frame, if still kept.
func (c *Client) answer(frame uint32) ([]world.UnitHash, bool) {
	for i := len(c.answers) - 1; i >= 0; i-- {
		if c.answers[i].frame == frame {
			return c.answers[i].hashes, true
		}
	}
	return nil, false
}

// logUpdate records a real-time re-sync: the units that differed at the checked frame, with
// this client's hash and the server's. For this player's own drift, the client's hashes are
// those it sent in its answer; for another player's, it has only its history of the frame,
// which may be gone (the units are then listed with LocalKnown false).
func (c *Client) logUpdate(now time.Time, v *UnitUpdate) {
	if v.Checked == 0 && len(v.Hashes) == 0 && len(v.Removed) == 0 {
		return // not the repair of a drift (a test's or a benchmark's update)
	}
	var (
		local []world.UnitHash
		known bool
	)
	if v.Seat == c.seat {
		local, known = c.answer(v.Checked)
	}
	if !known {
		local, known = c.hist.at(v.Checked)
	}
	mine := func(m UnitMismatch) UnitMismatch {
		if known {
			var has bool
			m.Local, has = hashOf(local, m.ID)
			m.NoLocal, m.LocalKnown = !has, true
		}
		return m
	}
	us := make([]UnitMismatch, 0, len(v.Hashes)+len(v.Removed))
	for _, h := range v.Hashes {
		us = append(us, mine(UnitMismatch{ID: h.ID, Server: h.Hash}))
	}
	for _, id := range v.Removed {
		// A removed unit with a hash is one the server had at the checked frame and has lost
		// since (killed): it is listed above. Without one, the server never had it.
		if _, ok := hashOf(v.Hashes, id); !ok {
			us = append(us, mine(UnitMismatch{ID: id, NoServer: true}))
		}
	}
	rec := findRecord(c.syncLog, v.Seat, v.Checked, ActionDrillDown)
	if rec == nil { // another player's drift, or a drill-down the log has dropped
		c.syncLog = pushRecord(c.syncLog, SyncRecord{When: now, Seat: v.Seat, Frame: v.Checked})
		rec = &c.syncLog[len(c.syncLog)-1]
	}
	rec.setUnits(us)
	rec.Action, rec.At = ActionRealtime, v.Frame
}

// logPause records a Pause: a new pause record, and the stop-the-world on the latest
// drill-down still open (the server most likely stopped the world over its answer), or on a
// new record. A drill-down older than the hash history cannot be waiting for an answer any
// more; it is not the one.
func (c *Client) logPause(now time.Time, frame uint32) {
	if pr := c.runningPause(); pr != nil {
		pr.Running = false // a new pause replaces one that never resumed
	}
	c.pauseLog = pushRecord(c.pauseLog, PauseRecord{Frame: frame, Running: true})
	c.pauseSeen = make(map[uint32]bool)
	for i := len(c.syncLog) - 1; i >= 0; i-- {
		r := &c.syncLog[i]
		if r.Action != ActionDrillDown {
			continue
		}
		if r.Frame+historyFrames >= frame {
			r.Action, r.At = ActionStopWorld, frame
			return
		}
		break
	}
	c.syncLog = pushRecord(c.syncLog, SyncRecord{When: now, Seat: c.seat, Frame: frame, Action: ActionStopWorld, At: frame})
}

// runningPause is the log's record of the pause under way, or nil.
func (c *Client) runningPause() *PauseRecord {
	if n := len(c.pauseLog); n > 0 && c.pauseLog[n-1].Running {
		return &c.pauseLog[n-1]
	}
	return nil
}

// logBatch records a stop-the-world batch: its units count in the pause record, and the ones
// that differ here go into the stop-the-world record. The batch holds the server's state at
// the paused frame, and the client's WorldHashes were of the same frame, so the two hashes
// compare.
func (c *Client) logBatch(b *ResyncBatch) {
	if pr := c.runningPause(); pr != nil {
		pr.Units += len(b.Units) + len(b.Removed)
	}
	var rec *SyncRecord
	for i := len(c.syncLog) - 1; i >= 0; i-- {
		if r := &c.syncLog[i]; r.Action == ActionStopWorld && r.At == c.pauseFrame {
			rec = r
			break
		}
	}
	if rec == nil {
		return // dropped from the log already
	}
	for i := range b.Units {
		c.logBatchUnit(rec, UnitMismatch{ID: b.Units[i].ID, Server: b.Units[i].Hash()})
	}
	for _, id := range b.Removed {
		c.logBatchUnit(rec, UnitMismatch{ID: id, NoServer: true})
	}
}

// logBatchUnit adds one unit of a batch to the stop-the-world record. A batch that comes before
// this client reached the paused frame (the server sends the units it already knows about at
// once) finds no hashes sent yet: the client's hash is then unknown. A unit that turns out
// equal here (a batch goes to every client, not only the one that drifted) is no mismatch.
func (c *Client) logBatchUnit(rec *SyncRecord, m UnitMismatch) {
	if c.sentHashes {
		var has bool
		m.Local, has = hashOf(c.pauseHashes, m.ID)
		m.NoLocal, m.LocalKnown = !has, true
		same := m.NoLocal == m.NoServer && m.Local == m.Server
		if same && !rec.lists(m.ID) {
			return
		}
	}
	if c.pauseSeen == nil {
		c.pauseSeen = make(map[uint32]bool)
	}
	if c.pauseSeen[m.ID] && !rec.lists(m.ID) {
		return // counted in More already
	}
	c.pauseSeen[m.ID] = true
	rec.addUnit(m)
}

// executed takes a command of this player off the pending list: its event ran.
func (c *Client) executed(id uint32) {
	c.pending = slices.DeleteFunc(c.pending, func(o PendingOrder) bool { return o.ID == id })
}

// dropStalePending drops the orders whose frame is pendingStale behind frame f.
func (c *Client) dropStalePending(f uint32) {
	stale := uint32(pendingStale / c.frameDur)
	c.pending = slices.DeleteFunc(c.pending, func(o PendingOrder) bool { return o.Frame+stale < f })
}
