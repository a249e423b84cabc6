package lesson

import (
	"fmt"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/message"
)

// Meter turns a stream of observations into counters: the ones the game keeps, read as they
// are, and the ones worked out here from the connection's message histories, which no single
// snapshot holds.
//
// # One ordered channel, measured beside the graph
//
// The messages from the server carry sequence numbers in the order the server sent them. A
// single ordered channel (TCP, or a reliable-ordered UDP channel) would hand message s to the
// game only once every message before it had arrived: at the latest arrival of all of them.
// The dependency graph hands it over once its own dependencies have executed. The history of
// received messages has both times for each message: when it arrived and when the graph
// executed it. So the meter keeps, in sequence order, the arrival of every message as it
// learns of it and, for each, the time an ordered channel would have delivered it; the two
// waits beside each other are what lesson 3 shows. A message neither way held counts as 0 ms
// both ways. The history is a ring; the lessons give it HistorySize entries a direction, and
// the meter reads it ten times a second, so it sees every message of a lesson's game.
//
// # Fragments resent one by one
//
// The history of the messages the server sent has, for each, its number of fragments and how
// many sends they took. A fragmented message acknowledged after more sends than fragments but
// fewer than twice as many had some fragments resent and not the others: what lesson 9
// shows.
type Meter struct {
	in       inOrder
	inSeen   uint64 // the newest serial of the received history looked at
	fragSeen uint64 // the newest serial of a fragmented message counted
	pauses   uint32 // the frame of the latest pause counted as over
	totals   Counters
	notes    map[Key]string
	empty    game.ClientSnapshot
}

// inOrder is the ordered channel's bookkeeping: the next sequence number it waits for
// (frontier), the latest arrival of all the messages before it, and the messages known from
// the frontier on.
type inOrder struct {
	started  bool
	frontier uint16
	latest   time.Time
	arrived  map[uint16]time.Time    // arrivals at or after the frontier, by sequence number
	pending  map[uint16]*measuredMsg // received messages not yet measured, by sequence number
	stuck    time.Time               // since when the frontier waits while later messages are known
}

// measuredMsg is one received message on its way to being measured.
type measuredMsg struct {
	serial   uint64
	seq      uint16
	typ      string
	deps     []message.Edge
	arrived  time.Time
	executed time.Time // zero until the graph executed it
	ordered  time.Time // zero until every message before it arrived
	seen     time.Time // when the meter first saw it
}

// Bounds of the meter's bookkeeping: a message not measured within maxPendingAge is
// forgotten, and a frontier stuck that long on a message the history never showed moves on.
const (
	maxPending    = 4096
	maxPendingAge = 10 * time.Second
)

// NewMeter returns a meter that has seen nothing.
func NewMeter() *Meter {
	return &Meter{totals: Counters{}, notes: map[Key]string{},
		in: inOrder{arrived: map[uint16]time.Time{}, pending: map[uint16]*measuredMsg{}}}
}

// Observe reads o at now and returns every counter: a fresh map the caller may keep.
func (m *Meter) Observe(now time.Time, o Observation) Counters {
	if o.Client == nil {
		o.Client = &m.empty
	}
	if d := o.Link.Debug; d != nil {
		m.received(now, d.Incoming)
	}
	if d := o.ServerLink.Debug; d != nil {
		m.fragments(d.Outgoing)
	}
	for _, p := range o.Client.Pauses {
		if !p.Running && !p.Start.IsZero() && p.Frame > m.pauses {
			m.pauses = p.Frame
			m.add(Key{Event: "pauses-done"}, 1)
		}
	}
	c := make(Counters, len(events)+len(m.totals))
	read(&o, c)
	for k, v := range m.totals {
		if _, kept := c[k]; !kept || k.Type != "" {
			c[k] = v
		}
	}
	return c
}

// Note is what the meter last saw of the counter k happen, in a line ("KillEnemy #57 waited
// 84 ms for #55"), "" for nothing.
func (m *Meter) Note(k Key) string {
	if n, ok := m.notes[k]; ok {
		return n
	}
	return m.notes[Key{Event: k.Event}]
}

func (m *Meter) add(k Key, v uint64) { m.totals[k] += v }

// addTyped adds v to the counter of every type and to the one of typ.
func (m *Meter) addTyped(event, typ string, v uint64) {
	m.add(Key{Event: event}, v)
	m.add(Key{Event: event, Type: typ}, v)
}

func (m *Meter) note(event, typ, text string) {
	m.notes[Key{Event: event}] = text
	m.notes[Key{Event: event, Type: typ}] = text
}

// received takes the history of received messages (oldest first).
func (m *Meter) received(now time.Time, recs []message.Record) {
	in := &m.in
	if len(recs) == 0 {
		return
	}
	if !in.started {
		// The frontier starts at the lowest sequence number of the first messages seen (the
		// sequence numbers of a connection start at 0, but a lesson may begin late).
		in.started, in.frontier = true, recs[0].Seq
		for _, r := range recs {
			if int16(r.Seq-in.frontier) < 0 {
				in.frontier = r.Seq
			}
		}
	}
	for i := range recs {
		r := &recs[i]
		if r.Serial <= m.inSeen {
			continue
		}
		m.inSeen = r.Serial
		if len(in.pending) >= maxPending || in.pending[r.Seq] != nil {
			continue
		}
		in.pending[r.Seq] = &measuredMsg{serial: r.Serial, seq: r.Seq, typ: typeName(r.First), deps: r.Deps, arrived: r.Arrived, seen: now}
		if int16(r.Seq-in.frontier) >= 0 {
			in.arrived[r.Seq] = r.Arrived
		}
	}
	m.advance(now)
	// In the history's order, so that the notes name the latest message.
	for i := range recs {
		r := &recs[i]
		p := in.pending[r.Seq]
		if p == nil || p.serial != r.Serial {
			continue
		}
		if p.executed.IsZero() && !r.Executed.IsZero() {
			p.executed = r.Executed
			if p.executed.After(p.arrived) {
				// The count of every type is the graph's own (message.Stats.Waited).
				m.add(Key{Event: "messages-waited", Type: p.typ}, 1)
				m.note("messages-waited", p.typ, fmt.Sprintf("%s #%d waited %d ms for %s", p.typ, p.seq,
					p.executed.Sub(p.arrived).Milliseconds(), depsText(p.deps)))
			}
		}
		if !p.executed.IsZero() && !p.ordered.IsZero() {
			m.measure(p)
			delete(in.pending, r.Seq)
		}
	}
	for seq, p := range in.pending {
		if now.Sub(p.seen) > maxPendingAge {
			delete(in.pending, seq) // left the history unexecuted, or came behind the frontier
		}
	}
}

// advance moves the ordered channel's frontier over every message that has arrived, giving
// each the time the channel would deliver it.
func (m *Meter) advance(now time.Time) {
	in := &m.in
	for {
		at, ok := in.arrived[in.frontier]
		if !ok {
			break
		}
		delete(in.arrived, in.frontier)
		if at.After(in.latest) {
			in.latest = at
		}
		if p := in.pending[in.frontier]; p != nil {
			p.ordered = in.latest
		}
		in.frontier++
		in.stuck = time.Time{}
	}
	if len(in.arrived) == 0 {
		in.stuck = time.Time{}
		return
	}
	// Later messages are known and the frontier's is not: it is on its way (lost, to be
	// resent), or the history dropped it before the meter looked. The second must not stop
	// the measuring for good.
	if in.stuck.IsZero() {
		in.stuck = now
	} else if now.Sub(in.stuck) > maxPendingAge {
		next, first := in.frontier, true
		for seq := range in.arrived {
			if first || int16(seq-next) < 0 {
				next, first = seq, false
			}
		}
		in.frontier, in.stuck = next, time.Time{}
		m.advance(now)
	}
}

// measure counts the two waits of a message both times of which are known.
func (m *Meter) measure(p *measuredMsg) {
	graph := max(p.executed.Sub(p.arrived), 0)
	ordered := max(p.ordered.Sub(p.arrived), 0)
	m.addTyped("messages-compared", p.typ, 1)
	m.addTyped("graph-wait-ms", p.typ, uint64(graph.Milliseconds()))
	m.addTyped("ordered-wait-ms", p.typ, uint64(ordered.Milliseconds()))
	if ordered >= time.Millisecond && graph < time.Millisecond {
		m.addTyped("hol-avoided", p.typ, 1)
		m.note("hol-avoided", p.typ, fmt.Sprintf("%s #%d ran at once; one ordered channel would have held it %d ms",
			p.typ, p.seq, ordered.Milliseconds()))
	}
}

// fragments takes the history of the messages the server sent, and counts each fragmented
// message once it is acknowledged.
func (m *Meter) fragments(recs []message.Record) {
	newest := m.fragSeen
	for i := range recs {
		r := &recs[i]
		if r.Serial <= m.fragSeen || r.Pieces < 2 {
			continue
		}
		if r.Acked.IsZero() {
			break // counted in order: this one and the later ones wait for their acks
		}
		newest = r.Serial
		if resent := r.Sends - r.Pieces; resent > 0 && resent < r.Pieces {
			m.add(Key{Event: "partial-resends"}, 1)
			m.notes[Key{Event: "partial-resends"}] = fmt.Sprintf("%s #%d: %d fragments, %d sends: only the lost went again",
				typeName(r.First), r.Seq, r.Pieces, r.Sends)
		}
	}
	m.fragSeen = newest
}

// depsText names the dependencies of a message: "#55", "#55, #56".
func depsText(deps []message.Edge) string {
	if len(deps) == 0 {
		return "its dependencies"
	}
	s := ""
	for i, d := range deps {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("#%d", d.Seq)
	}
	return s
}
