package replay

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// Bounds of what a Model keeps as it plays: a capture is bounded by its recorder's limit,
// and what grows with it here is bounded again, so that a long capture plays in constant
// memory beyond its datagrams and their index (each parsed once, and the re-sync marks).
const (
	// MaxDatagrams is the most datagrams a replay loads: far more than the default
	// --record-limit of 256 MiB holds of a client's game (some 16 hours).
	MaxDatagrams = 4_000_000
	// maxConns bounds the connections a Model follows (a server's capture has one per client
	// that ever came); the datagrams of more are shown, not followed.
	maxConns    = 1024
	maxEvents   = 1024
	maxChat     = 256
	maxSyncKept = 32 // pauses and real-time re-syncs, as the game's own sync log keeps
	// maxSeen bounds the chat lines and re-sync batches remembered to tell their copies (a
	// server relays each line to every client, a client may be sent a batch twice) from new
	// ones: copies come within moments of each other, far fewer keys apart than this.
	maxSeen           = 1024
	resyncForgetAfter = 10 * time.Second
)

// EventKind sorts the events of a replay.
type EventKind uint8

const (
	EventResync     EventKind = iota + 1 // a message of a re-sync: drill-down, real-time or stop-the-world
	EventChat                            // a chat line
	EventConnection                      // a handshake packet, a disconnect
)

// Event is something the recorded host sent or received that a class looks for.
type Event struct {
	Index int // the datagram that carried it (for a guaranteed message: its first copy, or the packet that completed it)
	At    time.Time
	Peer  netip.AddrPort
	Out   bool
	Kind  EventKind
	Type  game.MsgType // the game message, 0 for a connection event
	Text  string
}

// ChatLine is one line of the game's chat, as the capture shows it: a player's, or a
// spectator's.
type ChatLine struct {
	At        time.Time
	Seat      uint16 // the player's seat; for a spectator's line, its number (1..game.MaxSpectatorNumber)
	Spectator bool
	From      string // the player's name, when a PlayerInfo named it; the spectator's, when the server's relay did
	Text      string
}

// Model is a capture and the state of the recorded host after its first Pos datagrams.
//
// A host's protocol state is a function of the datagrams it sent and received and of when.
// The capture holds exactly those, opened with the key file, so the state is rebuilt by handing
// them, in order and with their times, to the same code the host ran:
//
//   - net/packet's Endpoint is told every Data packet the host sent (Sent) and every one that
//     reached it (Received): the ack cells, the ack bits, the RTT samples and the loss
//     estimate of the replay are the host's own.
//   - net/message's Conn is handed every Data packet that reached the host (ReceivePacket):
//     its receiver graph executes the guaranteed messages in dependency order, reassembles
//     fragments and ignores copies, and its history records when each message arrived and
//     executed.
//   - The sent messages are followed from the records of the packets that went out: the first
//     send, the resends, the dependencies each send carried (one dropped between two sends was
//     pruned by the sender's local graph), and, from the acknowledgements, when every piece was
//     acknowledged. A net/depgraph Graph plays the sender's local graph, with its window rule.
//   - game.ParseMsg names and decodes every payload: chat lines, and the re-sync messages a
//     class wants to find (Pause, ResyncBatch, Resume; UnitUpdate; HashRequest).
//
// Nothing is parsed twice or by a second parser. What a capture cannot show: it sees the
// socket, not the host's queues, so a sent message is "queued" when its first copy left, and a
// dependency the sender pruned before the first send never appears. Without the key file only
// the handshake is readable; the rest is counted as sealed. Times are the capture's, within a
// millisecond of the host's own clock.
type Model struct {
	raw    []record.Datagram
	parsed []Datagram // as read, before any annotation
	marks  []int      // the datagrams that carry a new re-sync message, ascending
	pos    int
	cur    Datagram // the datagram applied last, annotated

	conns  []*conn
	byPeer map[netip.AddrPort]*conn
	over   int // datagrams of connections beyond maxConns

	events     ring[Event]
	chat       ring[ChatLine]
	chatSeen   recentSet[[3]uint32] // (0 for a seat or 1 for a spectator, its number, line) of the latest chat lines seen
	names      [world.MaxPlayers]string
	pauses     ring[game.PauseRecord]
	mismatches ring[game.SyncRecord]
	batches    recentSet[[2]uint32] // (frame, batch) of the latest re-sync batches counted
	sealed     int                  // datagrams no key opened
}

// New returns a Model of the capture's datagrams (record.ReadAll), before the first.
func New(datagrams []record.Datagram) *Model {
	m := &Model{raw: datagrams, parsed: make([]Datagram, len(datagrams))}
	type msgKey struct {
		peer netip.AddrPort
		out  bool
		seq  uint16
	}
	seen := map[msgKey]time.Time{}
	for i := range datagrams {
		m.parsed[i] = parse(i, &datagrams[i])
		d := &m.parsed[i]
		for _, r := range d.Records {
			if r.Kind == wire.KindUnreliable || !resync(r.Type) {
				continue
			}
			k := msgKey{d.Peer, d.Out, r.Seq}
			if at, ok := seen[k]; ok && d.At.Sub(at) < resyncForgetAfter {
				continue // a resend of one already marked
			}
			seen[k] = d.At
			if len(m.marks) == 0 || m.marks[len(m.marks)-1] != i {
				m.marks = append(m.marks, i)
			}
		}
	}
	m.Reset()
	return m
}

// Reset goes back to before the first datagram.
func (m *Model) Reset() {
	*m = Model{raw: m.raw, parsed: m.parsed, marks: m.marks, byPeer: map[netip.AddrPort]*conn{}}
}

// Len is the number of datagrams in the capture.
func (m *Model) Len() int { return len(m.raw) }

// Pos is the number of datagrams applied: the state is the host's after datagram Pos-1.
func (m *Model) Pos() int { return m.pos }

// Start is the time of the first datagram (zero for an empty capture), End of the last.
func (m *Model) Start() time.Time {
	if len(m.raw) == 0 {
		return time.Time{}
	}
	return m.raw[0].At
}

// End is the time of the last datagram.
func (m *Model) End() time.Time {
	if len(m.raw) == 0 {
		return time.Time{}
	}
	return m.raw[len(m.raw)-1].At
}

// At is the time of datagram i.
func (m *Model) At(i int) time.Time { return m.raw[i].At }

// Current is the datagram applied last, and false before the first.
func (m *Model) Current() (Datagram, bool) { return m.cur, m.pos > 0 }

// Unopened is how many datagrams of the whole capture no key opens.
func (m *Model) Unopened() int {
	n := 0
	for i := range m.parsed {
		if !m.parsed[i].Opened {
			n++
		}
	}
	return n
}

// Sealed is how many of the datagrams applied so far no key opened.
func (m *Model) Sealed() int { return m.sealed }

// Resyncs are the datagrams that carry the first copy of a Pause or a UnitUpdate.
func (m *Model) Resyncs() []int { return m.marks }

// NextResync is the first datagram at or after Pos that carries a new Pause or UnitUpdate, and
// false when none does.
func (m *Model) NextResync() (int, bool) {
	i, _ := slices.BinarySearch(m.marks, m.pos)
	if i == len(m.marks) {
		return 0, false
	}
	return m.marks[i], true
}

// Seek applies datagrams until Pos is pos (from the start again when pos is behind).
func (m *Model) Seek(pos int) {
	pos = min(max(pos, 0), len(m.raw))
	if pos < m.pos {
		m.Reset()
	}
	for m.pos < pos {
		m.Step()
	}
}

// Step applies the next datagram; false at the end.
func (m *Model) Step() bool {
	if m.pos >= len(m.raw) {
		return false
	}
	d := m.parsed[m.pos]
	d.Records = slices.Clone(d.Records)
	m.apply(&d, m.raw[m.pos].Packet)
	m.cur = d
	m.pos++
	return true
}

// apply updates the host's state with one datagram.
func (m *Model) apply(d *Datagram, packetBytes []byte) {
	if !d.Opened {
		m.sealed++
		if c := m.conn(d.Peer); c != nil {
			c.counts.sealedNoKey++
		}
		return
	}
	c := m.conn(d.Peer)
	if c == nil {
		return
	}
	c.now = d.At
	if d.Sealed && !d.Out && d.Fate == transport.TapPassed && c.opening.client && !c.opening.accepted {
		// A client cannot open what the server sealed before its Accepted arrives (it was
		// lost, or overtaken): it keeps the last such datagram (the one before is lost) and
		// reads it once connected.
		c.opening.early = &early{d: *d, packet: packetBytes}
		d.Verdict = "came before the key (the Accepted): kept, to read once it comes"
		return
	}
	m.applyOpened(c, d, packetBytes)
}

// early is a sealed datagram a client keeps until its key comes.
type early struct {
	d      Datagram
	packet []byte
}

// applyOpened applies a datagram whose packet was read.
func (m *Model) applyOpened(c *conn, d *Datagram, packetBytes []byte) {
	switch d.Type {
	case wire.TypeData:
		if d.Note != "Data" { // a header or record that does not parse
			c.counts.malformed++
			return
		}
		switch {
		case d.Out:
			c.sentData(d.At, d)
		case d.Fate == transport.TapPassed:
			d.Verdict = c.receivedData(d.At, d, packetBytes)
		}
	case wire.TypeConnectRequest, wire.TypeChallengeResponse:
		if d.Type == wire.TypeConnectRequest && d.Out {
			c.opening.client = true
		}
		if d.Type == wire.TypeConnectRequest && c.opening.hasData {
			// The same address starts again: a new connection, the old one kept as it ended.
			if c.closed == "" {
				c.closed = "replaced by a new connection"
			}
			c = m.newConn(d.Peer)
			if c == nil {
				return
			}
			c.now = d.At
		}
		if r, err := wire.ParseConnectRequest(packetBytes); err == nil {
			c.name, c.player = r.Name, uuid.UUID(r.Player)
		} else if r, err := wire.ParseChallengeResponse(packetBytes); err == nil {
			c.name, c.player = r.Name, uuid.UUID(r.Player)
		}
		m.event(d, EventConnection, 0, d.Note)
	case wire.TypeAccepted:
		if d.Fate == transport.TapPassed || d.Out {
			c.since = d.At
		}
		m.event(d, EventConnection, 0, "Accepted: connected")
		if !d.Out && d.Fate == transport.TapPassed && !c.opening.accepted {
			c.opening.accepted = true
			if e := c.opening.early; e != nil {
				c.opening.early = nil
				e.d.At, e.d.Index = d.At, d.Index
				m.applyOpened(c, &e.d, e.packet)
			}
		}
	case wire.TypeDenied, wire.TypeDisconnect:
		if d.Fate == transport.TapPassed || d.Out {
			c.closed = d.Note
		}
		m.event(d, EventConnection, 0, d.Note)
	case wire.TypePong:
		if p, err := wire.ParsePong(packetBytes); err == nil && !d.Out && d.Fate == transport.TapPassed {
			c.counts.pingRTT = max(time.Duration(d.At.UnixNano()-p.T0-(p.T2-p.T1)), 0)
		}
	}
}

// conn is the connection of peer, made on its first datagram; nil past maxConns.
func (m *Model) conn(peer netip.AddrPort) *conn {
	if c := m.byPeer[peer]; c != nil {
		return c
	}
	return m.newConn(peer)
}

func (m *Model) newConn(peer netip.AddrPort) *conn {
	if len(m.conns) == maxConns {
		m.over++
		return nil
	}
	c := newConn(peer, m.decode)
	m.conns = append(m.conns, c)
	m.byPeer[peer] = c
	return c
}

// decode reads a game message that was sent whole (or completed) or received and executed,
// with the game's registry of message types, and notes what a class looks for.
func (m *Model) decode(c *conn, out bool, payload []byte) {
	msg, err := game.ParseMsg(payload)
	if err != nil {
		return
	}
	d := &Datagram{Index: m.pos, At: c.now, Out: out, Peer: c.peer}
	switch v := msg.(type) {
	case *game.PlayerInfo:
		if int(v.Seat) < len(m.names) {
			m.names[v.Seat] = v.Name
		}
	case *game.Chat:
		if !m.chatSeen.add([3]uint32{0, uint32(v.Seat), v.Line}, maxSeen) {
			return
		}
		line := ChatLine{At: c.now, Seat: uint16(v.Seat), Text: v.Text}
		if int(v.Seat) < len(m.names) {
			line.From = m.names[v.Seat]
		}
		m.chat.push(line, maxChat)
		who := line.From
		if who == "" {
			who = fmt.Sprintf("seat %d", v.Seat)
		}
		m.event(d, EventChat, v.Type(), fmt.Sprintf("<%s> %s", who, v.Text))
	case *game.SpectatorChat:
		// A spectator sends its line without its name; the server's relay names it.
		if !m.chatSeen.add([3]uint32{1, v.Spectator, v.Line}, maxSeen) {
			return
		}
		m.chat.push(ChatLine{At: c.now, Seat: uint16(v.Spectator), Spectator: true, From: v.Name, Text: v.Text}, maxChat)
		who := v.Name
		if who == "" {
			who = fmt.Sprintf("spectator %d", v.Spectator)
		}
		m.event(d, EventChat, v.Type(), fmt.Sprintf("<%s (spectator)> %s", who, v.Text))
	case *game.HashRequest:
		text := fmt.Sprintf("HashRequest: drill-down into %d id ranges at frame %d", len(v.Ranges), v.Frame)
		if len(v.Hashes) > 0 {
			text += ", with the server's hash of each"
		}
		m.event(d, EventResync, v.Type(), text)
	case *game.UnitHashes:
		text := fmt.Sprintf("UnitHashes: %d unit hashes at frame %d", len(v.Hashes), v.Frame)
		if len(v.Skipped) > 0 {
			text += fmt.Sprintf(", id ranges skipped as their hashes matched: %d", len(v.Skipped))
		}
		m.event(d, EventResync, v.Type(), text)
	case *game.UnitUpdate:
		if slices.ContainsFunc(m.mismatches.buf, func(r game.SyncRecord) bool {
			return r.Action == game.ActionRealtime && r.Seat == v.Seat && r.At == v.Frame && r.Frame == v.Checked
		}) {
			break // a server sends the same repair to every client
		}
		rec := game.SyncRecord{When: c.now, Seat: v.Seat, Frame: v.Checked, Action: game.ActionRealtime, At: v.Frame}
		for _, h := range v.Hashes {
			rec.Units = append(rec.Units, game.UnitMismatch{ID: h.ID, Server: h.Hash})
		}
		state := ""
		if len(v.State) > 0 {
			// The capture has the server's hash of the state, not the client's.
			rec.State = &game.StateMismatch{Server: v.StateHash}
			state = " and of the world's state"
		}
		m.mismatches.push(rec, maxSyncKept)
		m.event(d, EventResync, v.Type(), fmt.Sprintf("UnitUpdate: real-time re-sync of %d units%s of seat %d, checked at frame %d, applied at frame %d",
			len(v.Units)+len(v.Removed), state, v.Seat, v.Checked, v.Frame))
	case *game.Pause:
		if m.pause(v.Frame) == nil {
			// (No hash-mismatch record: a Pause does not say whose units drifted.)
			m.pauses.push(game.PauseRecord{Frame: v.Frame, Start: c.now, Running: true}, maxSyncKept)
		}
		m.event(d, EventResync, v.Type(), fmt.Sprintf("Pause: stop the world at frame %d", v.Frame))
	case *game.WorldHashes:
		m.event(d, EventResync, v.Type(), fmt.Sprintf("WorldHashes: %d unit hashes at the paused frame %d", len(v.Hashes), v.Frame))
	case *game.ResyncBatch:
		units := len(v.Units) + len(v.Removed)
		if m.batches.add([2]uint32{v.Frame, v.Batch}, maxSeen) {
			if p := m.pause(v.Frame); p != nil {
				p.Units += units
			}
		}
		m.event(d, EventResync, v.Type(), fmt.Sprintf("ResyncBatch %d: %d units for the paused frame %d", v.Batch, units, v.Frame))
	case *game.BatchApplied:
		m.event(d, EventResync, v.Type(), fmt.Sprintf("BatchApplied: batch %d of the pause at frame %d", v.Batch, v.Frame))
	case *game.Resume:
		if p := m.pause(v.Frame); p != nil && p.Running {
			p.Running = false
			p.Millis = max(c.now.Sub(p.Start).Milliseconds(), 1)
		}
		m.event(d, EventResync, v.Type(), fmt.Sprintf("Resume: the pause at frame %d ends %d ms after this arrives", v.Frame, v.AfterMillis))
	}
}

// pause is the record of the pause at frame, or nil.
func (m *Model) pause(frame uint32) *game.PauseRecord {
	for i := range m.pauses.buf {
		if m.pauses.buf[i].Frame == frame {
			return &m.pauses.buf[i]
		}
	}
	return nil
}

// event notes an event of datagram d.
func (m *Model) event(d *Datagram, kind EventKind, t game.MsgType, text string) {
	m.events.push(Event{Index: d.Index, At: d.At, Peer: d.Peer, Out: d.Out, Kind: kind, Type: t, Text: text}, maxEvents)
}

// Events are the latest events of the datagrams applied, oldest first (at most 1024), in a
// slice of the caller's own.
func (m *Model) Events() []Event { return m.events.all() }

// Chat is the latest chat lines, players' and spectators', oldest first (at most 256).
func (m *Model) Chat() []ChatLine { return m.chat.all() }

// Pauses are the latest stop-the-world re-syncs seen (at most 32), as the debug panel's pauses
// view reads them; Mismatches the re-syncs, as its hashes view reads them.
func (m *Model) Pauses() []game.PauseRecord { return m.pauses.all() }

// Mismatches are the latest real-time re-syncs seen (at most 32), oldest first.
func (m *Model) Mismatches() []game.SyncRecord { return m.mismatches.all() }

// Conn is one connection of the recorded host, as a replay lists them.
type Conn struct {
	Peer   netip.AddrPort
	Name   string // the player's name from the handshake, "" if the capture does not show it
	Closed string // why it ended, "" while up
}

// Conns lists the connections seen so far, in the order they appeared.
func (m *Model) Conns() []Conn {
	out := make([]Conn, len(m.conns))
	for i, c := range m.conns {
		out[i] = Conn{Peer: c.peer, Name: c.name, Closed: c.closed}
	}
	return out
}

// PeerStats is connection i's state in the form a live transport snapshot has it, for the
// debug panel: the packet layer's counters and ack cells, the message layer's counters and
// the history of the latest guaranteed messages each way.
func (m *Model) PeerStats(i int) transport.PeerStats { return m.conns[i].stats() }

// RTTSamples are connection i's latest round-trip samples, oldest first.
func (m *Model) RTTSamples(i int) []time.Duration { return slices.Clone(m.conns[i].rtts) }
