package stacklab

import (
	"fmt"

	"github.com/ackattack/ackattack/cmd/netlab/internal/report"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/wire"
)

// OverheadConfig is the overhead experiment's setting. Link's loss is the highest of the
// sweep: the experiment runs at six losses from 0 up to it.
type OverheadConfig struct {
	Link     linksim.Settings
	Seed     uint64
	Messages int // per loss
	Rate     float64
}

// OverheadRow is what one loss measured: bytes summed over every send (resends included) of
// the sender, divided by the messages delivered.
type OverheadRow struct {
	Loss      float64
	Messages  int
	Delivered int
	Sends     uint64 // guaranteed records sent, first sends and resends
	Packets   uint64 // sender's datagrams
	// Bytes over all sends: the sequence words, the dependency words as sent (pruned), as
	// they would be without pruning (every declared dependency on every send), and the whole
	// record overhead (kind, sequence list, payload length) as sent.
	SeqBytes, DepBytes, DepBytesUnpruned, RecordBytes uint64
	HeaderBytes, FrameBytes                           uint64 // of the sender's datagrams
	ReceiverBytes                                     uint64 // every byte the receiver sent: acks, keepalives
	Resends                                           uint64
	Violations                                        int
}

func (r OverheadRow) perMsg(v uint64) float64 { return float64(v) / float64(max(r.Delivered, 1)) }

// OverheadResult is the whole sweep.
type OverheadResult struct {
	Config OverheadConfig
	Rows   []OverheadRow
}

// overheadLosses are the sweep's losses for a highest loss of top.
func overheadLosses(top float64) []float64 {
	out := make([]float64, 6)
	for i := range out {
		out[i] = top * float64(i) / 5
	}
	return out
}

// RunOverhead sends the head-of-line experiment's traffic with the dependency graph at each
// loss of the sweep and counts the bytes of every datagram the sender writes. A guaranteed
// message carries its 15-bit sequence number and the numbers of the messages it depends on,
// 2 + 2n bytes. The sender's local graph learns from the acks which messages the receiver must
// have executed and leaves dependencies on them off the wire (pruning), so n falls to 0 for
// every dependency older than a round trip; the experiment counts the bytes with and without
// that pruning.
func RunOverhead(cfg OverheadConfig) (*OverheadResult, error) {
	if cfg.Messages < 1 || cfg.Rate <= 0 {
		return nil, fmt.Errorf("overhead: %w: --messages and --rate must be more than 0", report.ErrSetting)
	}
	msgs := traffic(cfg.Seed, cfg.Messages, cfg.Rate)
	deps := wireDeps(msgs, WayGraph)
	r := &OverheadResult{Config: cfg}
	for _, loss := range overheadLosses(cfg.Link.LossPercent) {
		link := cfg.Link
		link.LossPercent = loss
		row := OverheadRow{Loss: loss, Messages: len(msgs)}
		var rec wire.Record
		count := func(d *duplex, p []byte) {
			row.Packets++
			row.FrameBytes += wire.ChecksumSize
			row.HeaderBytes += uint64(eachRecord(p, &rec, func(rec *wire.Record) {
				if rec.Kind == wire.KindUnreliable {
					return
				}
				row.Sends++
				row.SeqBytes += 2
				row.DepBytes += 2 * uint64(len(rec.Deps))
				row.RecordBytes += uint64(rec.Size() - len(rec.Payload))
				if i, _, ok := parsePayload(rec.Payload); ok && i < len(msgs) {
					row.DepBytesUnpruned += 2 * uint64(len(msgs[i].deps))
				}
			}))
		}
		res, d, _ := runMessages(cfg.Seed, link, msgs, deps, runOptions{sentA: count})
		if res.Err != nil {
			return r, fmt.Errorf("overhead at %g%% loss: %w", loss, res.Err)
		}
		row.Delivered, row.Resends, row.Violations = res.Delivered, res.Resends, res.Violations
		row.ReceiverBytes = d.b.Stats().Packet.BytesSent
		r.Rows = append(r.Rows, row)
	}
	return r, nil
}

// Section is the experiment's report.
func (r *OverheadResult) Section(command string) *report.Section {
	c := r.Config
	s := &report.Section{Name: "overhead", Title: "netlab overhead: sequence and dependency bytes per guaranteed message", Command: command}
	s.Textf("The head-of-line experiment's traffic with the dependency graph (%s messages at %s a second, %s each way, seed %d), at six losses from 0 to %g%%. Every datagram the sender writes is parsed, and its bytes counted over every send, resends included, then divided by the messages delivered. \"Without pruning\" counts every dependency the game declared on every send, as a sender without a local graph (so without pruning) would have to.",
		report.Int(len(traffic(c.Seed, c.Messages, c.Rate))), report.F(c.Rate, 0), report.Delays(c.Link), c.Seed, c.Link.LossPercent)
	t := &report.Table{Title: "Bytes per delivered guaranteed message (B/msg), and per datagram of the sender (B/pkt)",
		Head: []string{"loss", "sends/msg", "sequence B/msg", "dependency B/msg", "without pruning", "record B/msg", "header B/pkt", "frame B/pkt", "msgs/pkt", "receiver B/msg", "delivered"}}
	chart := &report.Chart{Title: "Dependency bytes per message, with and without the sender's pruning", Kind: report.Lines, Unit: "B/msg", XLabel: "loss"}
	var pruned, unpruned, seq report.Series
	pruned.Name, unpruned.Name, seq.Name = "dependencies, pruned", "dependencies, without pruning", "sequence"
	for _, row := range r.Rows {
		t.Row(report.F(row.Loss, 0)+"%", report.F(row.perMsg(row.Sends), 2), report.F(row.perMsg(row.SeqBytes), 2),
			report.F(row.perMsg(row.DepBytes), 3), report.F(row.perMsg(row.DepBytesUnpruned), 2), report.F(row.perMsg(row.RecordBytes), 2),
			report.F(float64(row.HeaderBytes)/float64(max(row.Packets, 1)), 2), report.F(float64(row.FrameBytes)/float64(max(row.Packets, 1)), 0),
			report.F(float64(row.Sends)/float64(max(row.Packets, 1)), 2), report.F(row.perMsg(row.ReceiverBytes), 2),
			fmt.Sprintf("%d/%d", row.Delivered, row.Messages))
		chart.Labels = append(chart.Labels, report.F(row.Loss, 0)+"%")
		pruned.Values = append(pruned.Values, row.perMsg(row.DepBytes))
		unpruned.Values = append(unpruned.Values, row.perMsg(row.DepBytesUnpruned))
		seq.Values = append(seq.Values, row.perMsg(row.SeqBytes))
	}
	chart.Series = []report.Series{pruned, unpruned, seq}
	s.Add(t, chart)
	violations := 0
	for _, row := range r.Rows {
		violations += row.Violations
	}
	s.Textf("A record is its kind byte, the sequence list (2 + 2n bytes) and the payload's length; the header (5-10 bytes) carries the packet's number and the acknowledgement of the peer's last 32 packets, so an ack costs no record of its own; the frame is the plain frame's 4-byte checksum (a connection of net/transport seals its datagrams instead: 18 bytes). Receiver B/msg is everything the receiver sent back (acks, keepalives), per message. Messages executed out of order, twice or never: %d.", violations)
	ref := &report.Table{Title: "Published per-message overheads of other reliable UDP stacks (from their documentation and source, not measured here)",
		Head: []string{"stack", "per reliable message", "per acknowledgement", "per packet"}}
	ref.Row("ENet", "6 B: a 4-byte command header and a 2-byte length (SEND_RELIABLE)", "8 B: an ACKNOWLEDGE command per reliable command received", "2-4 B protocol header")
	ref.Row("KCP", "24 B segment header (conv, cmd, frg, wnd, ts, sn, una, len)", "24 B: an ACK segment per segment received", "none beyond the segments")
	ref.Row("reliable.io", "none: one message per packet", "none: the header carries the ack and 32 ack bits", "4-9 B header")
	if len(r.Rows) > 0 {
		lo, hi := r.Rows[0], r.Rows[len(r.Rows)-1]
		ref.Row(fmt.Sprintf("AckAttack, measured here (0%% and %g%% loss)", hi.Loss),
			fmt.Sprintf("%s and %s B record (kind, sequence, dependencies, length) per send", report.F(float64(lo.RecordBytes)/float64(max(lo.Sends, 1)), 2), report.F(float64(hi.RecordBytes)/float64(max(hi.Sends, 1)), 2)),
			"none: the header carries the ack and 32 ack bits",
			fmt.Sprintf("%s and %s B header, + 4 B frame", report.F(float64(lo.HeaderBytes)/float64(max(lo.Packets, 1)), 2), report.F(float64(hi.HeaderBytes)/float64(max(hi.Packets, 1)), 2)))
	}
	s.Add(ref)
	return s
}
