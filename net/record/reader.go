package record

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// Datagram is one datagram of a capture, opened where a key allowed.
type Datagram struct {
	At   time.Time
	Out  bool              // sent by the recording host; false: sent to it
	Fate transport.TapFate // passed, dropped (by the link or the socket: see Comment), duplicated
	// Comment is the capture's comment on the datagram ("" for one that simply passed).
	Comment     string
	Local, Peer netip.AddrPort // the recording host's address and the other side's
	Data        []byte         // the datagram as it traveled
	// Packet is the packet inside, from its type byte on: from the plain frame, whose
	// checksum was right, or opened with a key of the key file. nil when neither worked (a
	// sealed datagram without its key, or a datagram of another program).
	Packet []byte
	// Sealed: Packet was opened with a key; Counter is then the datagram's counter.
	Sealed  bool
	Counter uint64
}

// Reader reads a capture that a Recorder wrote, in the order it was written, and opens its
// sealed datagrams with the keys of its key file. A receiver rebuilds a datagram's counter from
// the 16 bits that travel and the counters it accepted before; the Reader does the same for
// each direction and each key (wire.ExpandCounter), so it opens what the host opened, and the
// datagrams the link dropped too. A key line that breaks the format is skipped and counted
// (SkippedKeyLines): the datagrams it was for stay sealed, as without a key file, and the rest
// of the capture reads.
type Reader struct {
	r     *pcapgo.NgReader
	file  io.Closer
	keys  []Key
	byDir map[direction][]int // the keys of each direction, as indexes into keys, in the file's order
	seal  []*wire.SealKey     // per key, made when first needed
	next  []uint64            // per key: the counter after the largest it opened
	index int                 // the number of the datagram read last, from 1, for errors
	open  []byte
	bad   badLines // the key file's lines that Open skipped
}

// direction is a datagram's source and destination.
type direction struct{ from, to netip.AddrPort }

// Open reads the capture at path and the key file beside it (KeysPath). A missing key file is
// no error: the sealed datagrams then stay closed. Nor is a key line that breaks the format:
// Open skips it (SkippedKeyLines), and the datagrams it was for stay closed. A key file that
// cannot be read, is too long, or has a line too long is an error. Close closes the capture.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var keys []Key
	var bad badLines
	kf, err := os.Open(KeysPath(path))
	switch {
	case err == nil:
		keys, bad, err = parseKeys(kf)
		kf.Close()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", KeysPath(path), err)
		}
	case !errors.Is(err, os.ErrNotExist):
		f.Close()
		return nil, err
	}
	r, err := NewReader(f, keys)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.file, r.bad = f, bad
	return r, nil
}

// SkippedKeyLines is how many lines of the key file Open skipped because they broke the
// format, with the first one's error (naming its line); 0 and nil when none.
func (r *Reader) SkippedKeyLines() (int, error) { return r.bad.n, r.bad.first }

// NewReader reads the capture from capture, opening sealed datagrams with keys (ParseKeys).
func NewReader(capture io.Reader, keys []Key) (*Reader, error) {
	ng, err := pcapgo.NewNgReader(capture, pcapgo.NgReaderOptions{})
	if err != nil {
		return nil, fmt.Errorf("record: not a pcapng capture: %w", err)
	}
	if lt := ng.LinkType(); lt != layers.LinkTypeRaw {
		return nil, fmt.Errorf("record: a capture of link type %v, want raw IP (%v): not one a Recorder wrote", lt, layers.LinkTypeRaw)
	}
	r := &Reader{r: ng, keys: keys, byDir: make(map[direction][]int), seal: make([]*wire.SealKey, len(keys)),
		next: make([]uint64, len(keys)), open: make([]byte, 0, wire.MaxDatagram)}
	for i, k := range keys {
		dir := direction{k.From, k.To}
		r.byDir[dir] = append(r.byDir[dir], i)
	}
	return r, nil
}

// Keys are the keys the Reader opens datagrams with.
func (r *Reader) Keys() []Key { return r.keys }

// Next returns the next datagram, or io.EOF after the last. An error names the packet that
// is not one a Recorder writes; the Reader can go on past it.
func (r *Reader) Next() (Datagram, error) {
	data, ci, opts, err := r.r.ReadPacketDataWithOptions()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Datagram{}, io.EOF
		}
		return Datagram{}, fmt.Errorf("record: packet %d: %w", r.index+1, err)
	}
	r.index++
	src, dst, payload, err := parseFrame(data)
	if err != nil {
		return Datagram{}, fmt.Errorf("record: packet %d: %w", r.index, err)
	}
	d := Datagram{At: ci.Timestamp, Data: payload}
	if opts.Flags != nil {
		d.Out = opts.Flags.Direction == pcapgo.NgEpbFlagDirectionOutbound
	}
	d.Local, d.Peer = dst, src
	if d.Out {
		d.Local, d.Peer = src, dst
	}
	if len(opts.Comments) > 0 {
		d.Comment = opts.Comments[0]
	}
	switch {
	case ci.InterfaceIndex == IfaceDropped && d.Comment == CommentOverflow:
		d.Fate = transport.TapOverflow
	case ci.InterfaceIndex == IfaceDropped:
		d.Fate = transport.TapDropped
	case d.Comment == CommentDuplicated:
		d.Fate = transport.TapDuplicated
	}
	r.openPacket(&d, src, dst)
	return d, nil
}

// openPacket fills d.Packet: opened with a key of the datagram's direction (the one logged
// last before it first, then the others), else from the plain frame.
func (r *Reader) openPacket(d *Datagram, src, dst netip.AddrPort) {
	ids := r.byDir[direction{src, dst}]
	best := 0 // the one logged last before the datagram, else the first
	for i, id := range ids {
		if !r.keys[id].At.After(d.At) {
			best = i
		}
	}
	for i := range ids {
		id := ids[(best+i)%len(ids)]
		if r.seal[id] == nil {
			r.seal[id] = wire.NewSealKey(&r.keys[id].Key)
		}
		packet, counter, err := r.seal[id].Open(r.open[:0], d.Data, r.next[id])
		if err != nil {
			continue
		}
		d.Packet, d.Sealed, d.Counter = slices.Clone(packet), true, counter
		r.next[id] = max(r.next[id], counter+1)
		return
	}
	if body, err := wire.OpenDatagram(d.Data, 0); err == nil {
		d.Packet = body
	}
}

// Close closes the capture file that Open opened.
func (r *Reader) Close() error {
	if r.file == nil {
		return nil
	}
	return r.file.Close()
}

// ReadAll reads every datagram of the capture at path, at most limit of them (an error past
// that: a replay holds the capture in memory, and a capture is bounded by its recorder's
// limit, so a larger one is not one of ours).
func ReadAll(path string, limit int) ([]Datagram, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var all []Datagram
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			return all, nil
		}
		if err != nil {
			return nil, err
		}
		if len(all) == limit {
			return nil, fmt.Errorf("record: %s holds more than %d datagrams", path, limit)
		}
		all = append(all, d)
	}
}
