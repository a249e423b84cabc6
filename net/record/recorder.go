package record

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/ackattack/ackattack/net/transport"
)

// The capture's two interfaces (pcapng's Interface Description Blocks).
const (
	// IfaceSocket holds the datagrams that left the host or reached it.
	IfaceSocket = 0
	// IfaceDropped holds the datagrams that never reached the other side: dropped by the link
	// conditioner on the way out or in, or by the socket because the host's queue was full.
	IfaceDropped = 1
)

// The comments on the packets whose fate was not simply "passed", exactly as written.
const (
	CommentDropped    = "dropped by the link conditioner"
	CommentDuplicated = "duplicated by the link conditioner: the other side gets it twice"
	CommentOverflow   = "dropped by the socket: the host's queue was full"
)

// DefaultLimit is the size a capture stops growing at when Options.Limit is 0. A client with
// a bot at 10% loss writes about 4.5 KB a second, so this is some 16 hours of it; a server
// writes about 4 KB a second for each client it serves, more as players order more
// (BENCHMARKS.md), so a class of 40 fills it in well under an hour and wants a larger limit.
const DefaultLimit = 256 << 20

// queueSize is how many datagrams may wait for the writer goroutine. A recorder whose writer
// falls this far behind (a slow disk) drops records, counted, rather than slow the host.
const queueSize = 4096

// drainEvery is how often the writer goroutine wakes to write what was queued. It never waits
// on the queue itself: a goroutine blocked on a channel is woken by every send, and that
// wake-up, once per datagram, cost the receive path more than the copy (BENCHMARKS.md). At
// 4,096 datagrams per 10 ms the queue holds 400,000 datagrams a second, a hundred times what a
// server with 40 players receives.
const drainEvery = 10 * time.Millisecond

// flushEvery is how often the writer pushes what it buffered to the file, so that a process
// that dies loses at most this much of the end of its capture.
const flushEvery = time.Second

// bufSize is the room of a pooled copy of a datagram: the largest the socket reads.
const bufSize = 2048

// Options configure a Recorder.
type Options struct {
	// Limit is the most bytes the capture file may reach (0: DefaultLimit). The datagrams
	// that come after it is reached are counted, not written.
	Limit int64
	// Logger is told, once, when the capture is full or cannot be written (default: discard).
	Logger *slog.Logger
}

// Stats are a Recorder's counters.
type Stats struct {
	Written   uint64 // datagrams written to the capture
	Bytes     int64  // the capture's size so far (as buffered; Close flushes it)
	QueueFull uint64 // datagrams not recorded because the writer had fallen behind
	OverLimit uint64 // datagrams not recorded because the capture reached its limit
	Failed    uint64 // datagrams not recorded because the file could not be written
	Keys      uint64 // key lines written
}

// Lost is how many datagrams the capture misses, for any reason.
func (s Stats) Lost() uint64 { return s.QueueFull + s.OverLimit + s.Failed }

// pending is one datagram on its way to the writer goroutine.
type pending struct {
	at          time.Time
	out         bool
	fate        transport.TapFate
	local, peer netip.AddrPort
	buf         *[]byte // from the pool; its length is the datagram's
}

// Recorder writes a socket's datagrams to a pcapng capture and the keys of its connections to
// a key file beside it. It is a transport.Tap (Tapped) and a key log (KeyLog): give it to
// transport.Config as Tap and KeyLog. Tapped only copies the datagram and queues it, so the
// host never waits for the disk; a goroutine of the Recorder's own writes the capture.
//
// What the capture holds. Each datagram the socket shows it becomes one packet: link type raw
// IP with the IPv4 or IPv6 and UDP headers the socket never hands over (frame.go), so Wireshark
// dissects it as UDP and by port; the time it was sent, received or dropped, in nanoseconds;
// pcapng's direction flag (inbound, outbound); and one of two interfaces, IfaceSocket for what
// left or reached the host and IfaceDropped for what never reached the other side, with a
// comment saying why (CommentDropped, CommentOverflow; an outgoing datagram the conditioner
// duplicated is on IfaceSocket with CommentDuplicated). So in Wireshark the filter
// frame.interface_id == 1 shows the losses, and a replay tells the fates apart without
// guessing. At the end come pcapng's interface statistics of IfaceSocket: datagrams written,
// and those the recorder itself missed.
//
// Bounded, and never in the host's way. The writer wakes every 10 ms to write what was queued,
// through a buffer that goes to the file once a second: the host's receive path pays a copy and
// a channel send, and never wakes the writer (BENCHMARKS.md). If the writer falls behind (4,096
// datagrams queued), datagrams are counted as lost instead of waited for. The capture stops
// growing at Options.Limit (DefaultLimit), and a write error (a full disk) stops it too, with
// what was written kept, the loss counted, and the error returned by Close; the game goes on
// either way.
//
// The key file holds each connection's two keys (keys.go), so that the sealed datagrams can be
// read: whoever holds it can read and forge those connections' datagrams. It is created with
// mode 0600, and it is for a class's own games, never for a game that matters.
type Recorder struct {
	queue chan pending
	pool  sync.Pool
	done  chan struct{} // closed by Close: the writer drains the queue and stops
	ended chan struct{} // closed by the writer when it stopped
	shut  atomic.Bool

	queueFull atomic.Uint64
	local     atomic.Pointer[netip.AddrPort] // the socket's address, from the datagrams

	capture io.WriteCloser // nil for New's writers that need no closing
	limit   int64
	logger  *slog.Logger

	// Owned by the writer goroutine until ended is closed.
	w        *pcapgo.NgWriter
	size     int64 // the capture's bytes, written or buffered
	frame    []byte
	ipID     uint16
	written  atomic.Uint64
	bytes    atomic.Int64
	overLim  atomic.Uint64
	failed   atomic.Uint64
	writeErr error // the first write error, or the limit reached (errLimit)

	keyMu   sync.Mutex
	keys    io.Writer
	keyFile io.Closer
	keyBuf  []byte
	keyN    atomic.Uint64
	keyErr  error
	// early holds the keys logged before any datagram showed the socket's address, until one
	// does (at most maxEarlyKeys connections).
	early []earlyKey
}

// earlyKey is a connection's keys that wait for the socket's address.
type earlyKey struct {
	at   time.Time
	keys transport.ConnKeys
}

// maxEarlyKeys bounds the connections whose keys wait for the socket's address. A host shows
// its recorder the handshake's datagrams before it learns any key, so a key comes first only
// from a recorder that was given as a KeyLog but not as the same socket's Tap.
const maxEarlyKeys = 64

// errLimit marks a capture that stopped at its limit: not an error of the recording.
var errLimit = errors.New("record: the capture reached its size limit")

// KeysPath is the key file beside the capture at path.
func KeysPath(path string) string { return path + ".keys" }

// Create creates the capture at path and its key file at KeysPath(path), and starts the
// Recorder's writer. Both files are created or emptied now, so that a path that cannot be
// written is an error before anything is recorded.
func Create(path string, o Options) (*Recorder, error) {
	capture, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	keys, err := os.OpenFile(KeysPath(path), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) // keys open the datagrams
	if err != nil {
		capture.Close()
		return nil, err
	}
	r, err := newRecorder(capture, keys, o)
	if err != nil {
		capture.Close()
		keys.Close()
		return nil, fmt.Errorf("record: %s: %w", path, err)
	}
	r.capture, r.keyFile = capture, keys
	return r, nil
}

// New is a Recorder that writes the capture to capture and the key lines to keys (nil: keys
// are not kept). Close closes neither.
func New(capture, keys io.Writer, o Options) (*Recorder, error) {
	return newRecorder(capture, keys, o)
}

func newRecorder(capture, keys io.Writer, o Options) (*Recorder, error) {
	r := &Recorder{
		queue:  make(chan pending, queueSize),
		done:   make(chan struct{}),
		ended:  make(chan struct{}),
		limit:  o.Limit,
		logger: o.Logger,
		keys:   keys,
		frame:  make([]byte, 0, ipv6HeaderSize+udpHeaderSize+bufSize),
	}
	if r.limit <= 0 {
		r.limit = DefaultLimit
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.pool.New = func() any { b := make([]byte, 0, bufSize); return &b }
	counter := &countingWriter{w: capture}
	intf := pcapgo.NgInterface{
		Name:                "ackattack",
		Description:         "the datagrams the host sent and received on its socket",
		LinkType:            layers.LinkTypeRaw,
		TimestampResolution: 9,
	}
	w, err := pcapgo.NewNgWriterInterface(counter, intf, pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{
		Application: "ackattack",
		Comment:     "AckAttack datagrams; the keys of the sealed ones are in the key file beside this capture (name.keys)",
	}})
	if err != nil {
		return nil, err
	}
	dropped := intf
	dropped.Name = "dropped"
	dropped.Description = "the datagrams that never reached the other side: dropped by the link conditioner, or by the socket when the host's queue was full"
	if _, err := w.AddInterface(dropped); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	r.w = w
	r.size = counter.n // the section header and the two interfaces
	r.bytes.Store(r.size)
	if keys != nil {
		if _, err := io.WriteString(keys, keyFileHeader); err != nil {
			return nil, err
		}
	}
	go r.run()
	return r, nil
}

// Tapped queues a copy of d for the capture (transport.Tap). It never blocks: when the queue
// is full, or the Recorder is closed, the datagram is counted as lost.
func (r *Recorder) Tapped(d transport.TappedDatagram) {
	if r.shut.Load() {
		return
	}
	if r.local.Load() == nil {
		local := d.Local
		if r.local.CompareAndSwap(nil, &local) {
			r.writeEarlyKeys(local)
		}
	}
	bp := r.pool.Get().(*[]byte)
	n := min(len(d.Data), maxPayload)
	*bp = append((*bp)[:0], d.Data[:n]...)
	select {
	case r.queue <- pending{at: d.At, out: d.Out, fate: d.Fate, local: d.Local, peer: d.Peer, buf: bp}:
	default:
		r.queueFull.Add(1)
		r.pool.Put(bp)
	}
}

// KeyLog writes the two keys of a connection to the key file (transport.Config.KeyLog). The
// local address is the socket's, as the datagrams the recorder was shown carry it: the
// handshake's come before any key. Keys that come before any datagram wait for the first one
// (Tapped), so that their lines name the address the capture's datagrams carry.
func (r *Recorder) KeyLog(k transport.ConnKeys) {
	now := time.Now()
	r.keyMu.Lock()
	defer r.keyMu.Unlock()
	if r.keys == nil || r.keyErr != nil {
		return
	}
	// Read under the lock: Tapped sets the address before it takes the lock to write what
	// waited, so a key either sees the address or waits and is written by it.
	l := r.local.Load()
	if l == nil && len(r.early) < maxEarlyKeys {
		r.early = append(r.early, earlyKey{now, k})
		return
	}
	local := noAddress(k.Peer)
	if l != nil {
		local = *l
	}
	r.writeKeys(now, local, k)
}

// writeEarlyKeys writes the keys that waited for the socket's address, now local.
func (r *Recorder) writeEarlyKeys(local netip.AddrPort) {
	r.keyMu.Lock()
	defer r.keyMu.Unlock()
	r.flushEarly(func(netip.AddrPort) netip.AddrPort { return local })
}

// flushEarly writes the keys that waited, each with the local address local gives for its
// peer. The caller holds keyMu.
func (r *Recorder) flushEarly(local func(peer netip.AddrPort) netip.AddrPort) {
	for _, e := range r.early {
		if r.keys == nil || r.keyErr != nil {
			break
		}
		r.writeKeys(e.at, local(e.keys.Peer), e.keys)
	}
	r.early = nil
}

// noAddress is the local address of a key line when no datagram ever showed the socket's: the
// unspecified address of the peer's family, port 0. The line reads, and opens nothing.
func noAddress(peer netip.AddrPort) netip.AddrPort {
	if peer.Addr().Unmap().Is4() {
		return netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
	}
	return netip.AddrPortFrom(netip.IPv6Unspecified(), 0)
}

// writeKeys writes the two lines of a connection's keys. The caller holds keyMu.
func (r *Recorder) writeKeys(at time.Time, local netip.AddrPort, k transport.ConnKeys) {
	out, in := endpoints(true, local, k.Peer)
	r.keyBuf = appendKeyLine(r.keyBuf[:0], Key{At: at, From: out, To: in, Key: k.Send})
	r.keyBuf = appendKeyLine(r.keyBuf, Key{At: at, From: in, To: out, Key: k.Recv})
	// Written at once and unbuffered: a key comes once per connection, and a capture whose
	// process died must still be readable.
	if _, err := r.keys.Write(r.keyBuf); err != nil {
		r.keyErr = fmt.Errorf("record: writing the key file: %w", err)
		r.logger.Error("the key file cannot be written: sealed datagrams of later connections will not open", "err", err)
		return
	}
	r.keyN.Add(2)
}

// Stats returns the counters (safe from any goroutine).
func (r *Recorder) Stats() Stats {
	return Stats{
		Written: r.written.Load(), Bytes: r.bytes.Load(), QueueFull: r.queueFull.Load(),
		OverLimit: r.overLim.Load(), Failed: r.failed.Load(), Keys: r.keyN.Load(),
	}
}

// Close writes what is queued, flushes the capture and closes the files Create opened. Call it
// once the socket is closed: datagrams shown after Close are not recorded. Its error is the
// first the capture or the key file met (a full disk), with what was written up to then kept;
// a capture that reached its limit is not an error (Stats.OverLimit counts what it missed).
func (r *Recorder) Close() error {
	if r.shut.Swap(true) {
		<-r.ended
		return nil
	}
	close(r.done)
	<-r.ended
	var errs []error
	if r.writeErr != nil && !errors.Is(r.writeErr, errLimit) {
		errs = append(errs, r.writeErr)
	}
	r.keyMu.Lock()
	r.flushEarly(noAddress) // no datagram ever came: the keys are kept all the same
	errs = append(errs, r.keyErr)
	r.keyMu.Unlock()
	if r.capture != nil {
		errs = append(errs, r.capture.Close())
	}
	if r.keyFile != nil {
		errs = append(errs, r.keyFile.Close())
	}
	return errors.Join(errs...)
}

// run is the writer goroutine: every drainEvery it writes what is queued, every flushEvery it
// pushes the buffer to the file, and when Close asks it writes the rest and ends the capture.
func (r *Recorder) run() {
	defer close(r.ended)
	tick := time.NewTicker(drainEvery)
	defer tick.Stop()
	lastFlush := time.Now()
	for {
		select {
		case <-tick.C:
			r.drain()
			if now := time.Now(); now.Sub(lastFlush) >= flushEvery {
				r.flush()
				lastFlush = now
			}
		case <-r.done:
			r.drain()
			r.finish()
			return
		}
	}
}

// drain writes every datagram queued now.
func (r *Recorder) drain() {
	for {
		select {
		case p := <-r.queue:
			r.write(p)
		default:
			return
		}
	}
}

// write writes one datagram, unless the capture is full or failed.
func (r *Recorder) write(p pending) {
	defer r.pool.Put(p.buf)
	data := *p.buf
	if r.writeErr != nil {
		r.missed()
		return
	}
	src, dst := endpoints(p.out, p.local, p.peer)
	r.ipID++
	r.frame = appendFrame(r.frame[:0], src, dst, r.ipID, data)
	ci := gopacket.CaptureInfo{Timestamp: p.at, CaptureLength: len(r.frame), Length: len(r.frame), InterfaceIndex: IfaceSocket}
	dir := pcapgo.NgEpbFlagDirectionInbound
	if p.out {
		dir = pcapgo.NgEpbFlagDirectionOutbound
	}
	opts := pcapgo.NgPacketOptions{Flags: &pcapgo.NgEpbFlags{Direction: dir}}
	switch p.fate {
	case transport.TapDropped:
		ci.InterfaceIndex = IfaceDropped
		opts.Comments = commentDropped
	case transport.TapOverflow:
		ci.InterfaceIndex = IfaceDropped
		opts.Comments = commentOverflow
	case transport.TapDuplicated:
		opts.Comments = commentDuplicated
	}
	// The block's size: its fixed 32 bytes, the frame padded to 4, the flags option (8), a
	// comment's option (4 + padded text), the end of options (4). Room is kept for the
	// statistics that end the capture.
	size := int64(32 + pad4(len(r.frame)) + 8 + 4)
	for _, c := range opts.Comments {
		size += int64(4 + pad4(len(c)))
	}
	if r.size+size+statsBlockSize > r.limit {
		r.writeErr = errLimit
		r.logger.Warn("the capture reached its size limit: later datagrams are counted, not recorded", "limit", r.limit)
		r.missed()
		return
	}
	if err := r.w.WritePacketWithOptions(ci, r.frame, opts); err != nil {
		r.fail(err)
		return
	}
	r.size += size
	r.written.Add(1)
	r.bytes.Store(r.size)
}

// statsBlockSize is the size of the Interface Statistics Block that finish writes: 24 bytes
// and three options (received, dropped, end) of 12, 12 and 4.
const statsBlockSize = 24 + 12 + 12 + 4

var (
	commentDropped    = []string{CommentDropped}
	commentDuplicated = []string{CommentDuplicated}
	commentOverflow   = []string{CommentOverflow}
)

func pad4(n int) int { return (n + 3) &^ 3 }

// missed counts a datagram that is not written, under the reason the capture stopped.
func (r *Recorder) missed() {
	if errors.Is(r.writeErr, errLimit) {
		r.overLim.Add(1)
	} else {
		r.failed.Add(1)
	}
}

// fail stops the capture at its first write error.
func (r *Recorder) fail(err error) {
	r.writeErr = fmt.Errorf("record: writing the capture: %w (it holds what was written before)", err)
	r.logger.Error("the capture cannot be written: later datagrams are counted, not recorded", "err", err)
	r.failed.Add(1)
}

func (r *Recorder) flush() {
	if r.writeErr != nil && !errors.Is(r.writeErr, errLimit) {
		return
	}
	if err := r.w.Flush(); err != nil {
		r.fail(err)
	}
}

// finish ends the capture with the statistics of the socket interface: how many datagrams were
// written and how many the recorder missed (pcapng's Interface Statistics Block), then flushes.
func (r *Recorder) finish() {
	if r.writeErr == nil || errors.Is(r.writeErr, errLimit) {
		lost := r.queueFull.Load() + r.overLim.Load()
		stats := pcapgo.NgInterfaceStatistics{LastUpdate: time.Now(), PacketsReceived: r.written.Load(), PacketsDropped: lost}
		if err := r.w.WriteInterfaceStats(IfaceSocket, stats); err != nil {
			r.fail(err)
		} else {
			r.size += statsBlockSize
		}
	}
	r.flush()
	r.bytes.Store(r.size)
}

// countingWriter counts the bytes that reach w: how the Recorder learns the size of the blocks
// that start the capture.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
