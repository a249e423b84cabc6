package stacklab

import (
	"fmt"
	"time"

	"github.com/ackattack/ackattack/cmd/netlab/internal/report"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/wire"
)

// OldDepConfig is the old-dependency experiment's setting.
type OldDepConfig struct {
	Link     linksim.Settings
	Seed     uint64
	Messages int           // over the whole run: the rate is Messages / Duration
	Duration time.Duration // of virtual time
}

// oldPairs is how many enemies are spawned at the start and killed later, one kill every
// Duration / oldPairs, the last at the end.
const oldPairs = 6

// OldKill is one kill of an enemy spawned at the start.
type OldKill struct {
	SentAt     time.Duration // when the kill was handed over
	Since      int           // sequence numbers used between the spawn and the kill
	SpawnSeq   int           // -1: never seen on the wire
	KillSeq    int
	DepBytes   uint64 // dependency bytes the kill's records carried, over all its sends
	Sends      int    // records of the kill sent (first send and resends)
	Executed   bool
	AfterSpawn bool          // executed after its spawn had
	Reused     int           // other messages that were sent with the spawn's sequence number
	ExecAt     time.Duration // when the kill executed
}

// Wraps is how many times the 15-bit sequence numbers went round between the spawn and the kill.
func (k OldKill) Wraps() float64 { return float64(k.Since) / float64(wire.SeqMask+1) }

// OldDepResult is the experiment's outcome.
type OldDepResult struct {
	Config     OldDepConfig
	Messages   int
	Kills      []OldKill
	Violations int // messages executed before a dependency, twice or never: all of them
	Resends    uint64
	Elapsed    time.Duration
}

// oldDepTraffic is the head-of-line traffic at Messages/Duration a second with oldPairs
// enemies spawned at the start and killed through the run, merged by time. It returns the
// messages and the indices of the old spawns and kills.
func oldDepTraffic(cfg OldDepConfig) (msgs []tmsg, spawns, kills []int) {
	rate := float64(cfg.Messages) / cfg.Duration.Seconds()
	base := traffic(cfg.Seed, max(cfg.Messages-2*oldPairs, 1), rate)
	var old []tmsg
	for range oldPairs {
		old = append(old, tmsg{at: 0, kind: kindSpawn})
	}
	for j := range oldPairs {
		at := (cfg.Duration * time.Duration(j+1) / oldPairs).Truncate(trafficTick)
		old = append(old, tmsg{at: at, kind: kindKill, deps: []int{j}})
	}
	// Merge the two time-ordered lists, the old ones first at equal times, renumbering the
	// dependencies of each.
	newOld, newBase := make([]int, len(old)), make([]int, len(base))
	for i, j := 0, 0; i < len(old) || j < len(base); {
		if j == len(base) || i < len(old) && old[i].at <= base[j].at {
			newOld[i] = len(msgs)
			m := old[i]
			m.deps = renumber(m.deps, newOld)
			msgs = append(msgs, m)
			i++
		} else {
			newBase[j] = len(msgs)
			m := base[j]
			m.deps = renumber(m.deps, newBase)
			msgs = append(msgs, m)
			j++
		}
	}
	return msgs, newOld[:oldPairs], newOld[oldPairs:]
}

func renumber(deps []int, to []int) []int {
	out := make([]int, len(deps))
	for i, d := range deps {
		out[i] = to[d]
	}
	return out
}

// RunOldDep plays the old-dependency problem, a kill an hour after its spawn: enemies spawned
// at the start and killed through an hour of traffic, while the 15-bit sequence numbers wrap
// several times. A kill sent an hour after its spawn cannot name the spawn's number: by then it
// belongs to another message. Pruning solves it: the spawn executed long ago in the sender's
// local graph, so the kill carries no dependency at all.
func RunOldDep(cfg OldDepConfig) (*OldDepResult, error) {
	if cfg.Messages < 2*oldPairs+1 || cfg.Duration <= 0 {
		return nil, fmt.Errorf("olddep: %w: --messages must be more than %d and --duration more than 0", report.ErrSetting, 2*oldPairs)
	}
	msgs, spawns, kills := oldDepTraffic(cfg)
	seqOf := make([]int32, len(msgs))
	for i := range seqOf {
		seqOf[i] = -1
	}
	isKill := make(map[int]int, len(kills)) // message index → which kill
	for j, k := range kills {
		isKill[k] = j
	}
	r := &OldDepResult{Config: cfg, Messages: len(msgs), Kills: make([]OldKill, len(kills))}
	var rec wire.Record
	watch := func(d *duplex, p []byte) {
		eachRecord(p, &rec, func(rec *wire.Record) {
			i, _, ok := parsePayload(rec.Payload)
			if !ok || i >= len(msgs) {
				return
			}
			if seqOf[i] < 0 {
				seqOf[i] = int32(rec.Seq)
			}
			if j, ok := isKill[i]; ok {
				r.Kills[j].DepBytes += 2 * uint64(len(rec.Deps))
				r.Kills[j].Sends++
			}
		})
	}
	res, d, log := runMessages(cfg.Seed, cfg.Link, msgs, wireDeps(msgs, WayGraph), runOptions{sentA: watch})
	if res.Err != nil {
		return r, fmt.Errorf("olddep: %w", res.Err)
	}
	r.Violations, r.Resends, r.Elapsed = res.Violations, res.Resends, d.elapsed()
	for j, k := range kills {
		s := spawns[j]
		kr := &r.Kills[j]
		kr.SentAt, kr.Since = msgs[k].at, k-s
		kr.SpawnSeq, kr.KillSeq = int(seqOf[s]), int(seqOf[k])
		kr.Executed = log.executed[k]
		kr.AfterSpawn = log.executed[s] && log.at[s] <= log.at[k]
		kr.ExecAt = log.at[k]
		for i := s + 1; i < len(msgs); i++ {
			if seqOf[i] == seqOf[s] {
				kr.Reused++
			}
		}
	}
	return r, nil
}

// Section is the experiment's report.
func (r *OldDepResult) Section(command string) *report.Section {
	c := r.Config
	s := &report.Section{Name: "olddep", Title: "netlab olddep: a kill an hour after its spawn, across sequence wraps", Command: command}
	s.Textf("The old-dependency problem: %d enemies are spawned at the start, and each is killed later, the kill depending on its spawn, while the head-of-line traffic runs for %v of virtual time at %s messages a second (%s messages, %s wraps of the 15-bit sequence numbers), over %s each way (seed %d). The sender's local graph executed each spawn within a round trip of its send, so a kill leaves with no dependency at all: its spawn's sequence number now belongs to other messages, which must not be mistaken for the spawn either.",
		oldPairs, c.Duration, report.F(float64(c.Messages)/c.Duration.Seconds(), 1), report.Int(r.Messages), report.F(float64(r.Messages)/float64(wire.SeqMask+1), 1), report.Link(c.Link), c.Seed)
	t := &report.Table{Head: []string{"kill", "sent at", "sequence numbers since the spawn", "wraps", "spawn seq", "kill seq", "others sent with the spawn's seq", "sends", "dependency bytes", "executed", "after its spawn"}}
	zero, good := true, true
	for j, k := range r.Kills {
		t.Row(fmt.Sprintf("enemy %d", j+1), k.SentAt.Round(time.Second).String(), report.Int(k.Since), report.F(k.Wraps(), 2),
			fmt.Sprint(k.SpawnSeq), fmt.Sprint(k.KillSeq), report.Int(k.Reused), fmt.Sprint(k.Sends), fmt.Sprint(k.DepBytes), yes(k.Executed), yes(k.AfterSpawn))
		zero = zero && k.DepBytes == 0
		good = good && k.Executed && k.AfterSpawn
	}
	s.Add(t)
	s.Textf("Dependency bytes of the old kills: %s. Every kill executed once, after its spawn: %s. Over all %s messages (%s resends), messages executed before a dependency, twice or never: %d; so none of the messages that reused a spawn's number was taken for the spawn, or for a copy of it.",
		map[bool]string{true: "none", false: "SOME"}[zero], yes(good), report.Int(r.Messages), report.Int(r.Resends), r.Violations)
	return s
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
