package replay

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// Datagram is one datagram of a capture as the replay shows it: read with net/wire's
// parsers once, when the capture is loaded, and annotated by the Model as it applies it.
type Datagram struct {
	Index int // its place in the capture, from 0
	At    time.Time
	Out   bool // sent by the recorded host
	Fate  transport.TapFate
	Peer  netip.AddrPort // the other side
	Size  int            // bytes as it traveled
	// Opened: the packet inside could be read (the plain frame, or sealed with a key of the
	// key file). Sealed: it was sealed, and Counter is its counter.
	Opened, Sealed bool
	Counter        uint64
	Type           wire.PacketType // the packet's type (when Opened)
	// Header and Records: a Data packet's header and message records.
	Header  wire.Header
	Records []Record
	// Note says what else the packet is: "ConnectRequest from ann", "Disconnect: timeout", or
	// why it could not be read.
	Note string
	// Verdict is what the recorded host did with an incoming Data packet that reached it
	// (accepted, stale, duplicate, refused as a replayed copy), set when the Model applies it.
	Verdict string
}

// Record is one message record of a Data packet.
type Record struct {
	Kind                 wire.MessageKind
	Sync                 bool
	Seq                  uint16
	Deps                 []uint16
	FragIndex, FragCount uint8
	Size                 int          // payload bytes
	Type                 game.MsgType // 0 when the record does not show it (a fragment after the first)
	payload              []byte
	// Again (set by the Model): a sent unit that went before (a resend), or a received one
	// that had arrived before (ignored as a copy).
	Again bool
}

// parse reads d with net/wire's parsers.
func parse(i int, d *record.Datagram) Datagram {
	p := Datagram{Index: i, At: d.At, Out: d.Out, Fate: d.Fate, Peer: d.Peer, Size: len(d.Data),
		Opened: d.Packet != nil, Sealed: d.Sealed, Counter: d.Counter}
	if d.Packet == nil {
		if _, err := wire.OpenDatagram(d.Data, 0); err != nil && len(d.Data) >= wire.CounterSize+1+wire.TagSize {
			p.Note = "sealed: no key of the key file opens it"
		} else {
			p.Note = "not an AckAttack datagram"
		}
		return p
	}
	t, err := wire.PeekType(d.Packet)
	if err != nil {
		p.Note = err.Error()
		return p
	}
	p.Type = t
	switch t {
	case wire.TypeData:
		p.parseData(d.Packet)
	case wire.TypeConnectRequest:
		if m, err := wire.ParseConnectRequest(d.Packet); err == nil {
			p.Note = "ConnectRequest from " + m.Name
		}
	case wire.TypeChallengeResponse:
		if m, err := wire.ParseChallengeResponse(d.Packet); err == nil {
			p.Note = "ChallengeResponse from " + m.Name
		}
	case wire.TypeDenied:
		if m, err := wire.ParseDenied(d.Packet); err == nil {
			p.Note = "Denied: " + m.Reason.String()
		}
	case wire.TypeDisconnect:
		if m, err := wire.ParseDisconnect(d.Packet); err == nil {
			p.Note = "Disconnect: " + m.Reason.String()
			if m.Text != "" {
				p.Note += " (" + m.Text + ")"
			}
		}
	}
	if p.Note == "" {
		p.Note = t.String()
	}
	return p
}

// parseData reads a Data packet's header and records.
func (p *Datagram) parseData(packet []byte) {
	h, n, err := wire.ParseHeader(packet)
	if err != nil {
		p.Note = "Data: " + err.Error()
		return
	}
	p.Header = h
	for rest := packet[n:]; len(rest) > 0; {
		var r wire.Record
		k, err := wire.ParseRecord(rest, &r)
		if err != nil {
			p.Note = fmt.Sprintf("Data: record %d: %v", len(p.Records), err)
			p.Records = nil
			return
		}
		rec := Record{Kind: r.Kind, Sync: r.Sync, Seq: r.Seq, Deps: append([]uint16(nil), r.Deps...),
			FragIndex: r.FragIndex, FragCount: r.FragCount, Size: len(r.Payload), payload: r.Payload}
		if len(r.Payload) > 0 && (r.Kind != wire.KindFragment || r.FragIndex == 0) {
			rec.Type = game.MsgType(r.Payload[0])
		}
		p.Records = append(p.Records, rec)
		rest = rest[k:]
	}
}

// FateText is the datagram's fate in words.
func (d *Datagram) FateText() string {
	switch {
	case d.Fate == transport.TapDropped && d.Out:
		return "sent, dropped by the link conditioner"
	case d.Fate == transport.TapDropped:
		return "dropped by the link conditioner on its way in"
	case d.Fate == transport.TapDuplicated:
		return "sent, duplicated by the link conditioner"
	case d.Fate == transport.TapOverflow:
		return "dropped by the socket: the host's queue was full"
	case d.Out:
		return "sent"
	}
	return "received"
}

// Headline is the datagram in one line: which way, its packet, size and fate.
//
//	out → 127.0.0.1:7777  Data 87 B  sent, dropped by the link conditioner
func (d *Datagram) Headline() string {
	arrow := "in  ← "
	if d.Out {
		arrow = "out → "
	}
	what := d.Note
	if d.Type == wire.TypeData && d.Opened && d.Note == "Data" {
		what = "Data"
	}
	s := fmt.Sprintf("%s%v  %s %d B  %s", arrow, d.Peer, what, d.Size, d.FateText())
	if d.Verdict != "" {
		s += ": " + d.Verdict
	}
	return s
}

// Detail is what a Data packet carries, in one line: its header fields and its records.
//
//	seq 812 ack 790 bits 11111111111111111111111111111011 · #903 Command · #904 KillEnemy deps 901 (resent)
func (d *Datagram) Detail() string {
	if d.Type != wire.TypeData || !d.Opened || d.Note != "Data" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "seq %d ack %d bits %032b", d.Header.Seq, d.Header.Ack, d.Header.AckBits)
	if len(d.Records) == 0 {
		b.WriteString(" · no messages (keepalive / ack)")
	}
	for _, r := range d.Records {
		b.WriteString(" · ")
		b.WriteString(r.String())
	}
	return b.String()
}

// String is the record in a few words: "#904 KillEnemy deps 901", "frag 2/3 of #77", "sync #12
// Pause", "unreliable HashReport".
func (r *Record) String() string {
	var b strings.Builder
	switch r.Kind {
	case wire.KindUnreliable:
		b.WriteString("unreliable")
	case wire.KindFragment:
		fmt.Fprintf(&b, "frag %d/%d of #%d", r.FragIndex+1, r.FragCount, r.Seq)
	default:
		if r.Sync {
			b.WriteString("sync ")
		}
		fmt.Fprintf(&b, "#%d", r.Seq)
	}
	if r.Type != 0 {
		b.WriteString(" " + r.Type.String())
	}
	if len(r.Deps) > 0 {
		b.WriteString(" deps")
		for _, dep := range r.Deps {
			fmt.Fprintf(&b, " %d", dep)
		}
	}
	if r.Again {
		b.WriteString(" (again)")
	}
	return b.String()
}

// resync reports whether a message type starts a re-sync that a seek stops at: a
// stop-the-world Pause, or a real-time UnitUpdate.
func resync(t game.MsgType) bool { return t == game.MsgPause || t == game.MsgUnitUpdate }
