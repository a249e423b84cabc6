package linksim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"time"
)

// tagSize is the length of the tag a PacketConn puts in front of every datagram it hands to a
// Conditioner. A Conditioner carries bytes only; the tag keys the datagram's address in a side
// table, so the address travels with the datagram through loss, duplication and reordering.
const tagSize = 8

// maxReadSize is the largest UDP payload; the reader goroutine's buffer holds one.
const maxReadSize = 64 << 10

// maxInBacklog bounds the incoming datagrams in flight or waiting for ReadFrom. When it is
// reached the reader goroutine stops reading until ReadFrom makes room, so the datagrams pile
// up in the kernel's receive buffer, which drops them when full, as it would for an
// application that stops reading a plain socket.
const maxInBacklog = 4096

// PacketConn wraps a net.PacketConn with two Conditioners, one for outgoing and one for
// incoming datagrams, driven by the real clock. It is a net.PacketConn itself, so whatever
// reads and writes a socket can be given a bad network without knowing it. The settings can
// change at any time (SetSettings) and apply to datagrams sent or received afterwards.
//
// Two goroutines belong to a PacketConn: a writer that puts delayed outgoing datagrams on the
// inner connection when they fall due, and a reader that takes datagrams off the inner
// connection and schedules them on the incoming Conditioner. Close stops both. All methods
// are safe for concurrent use. A datagram due at once (a link with zero settings) is written
// by WriteTo itself, so an unimpaired link adds no delay; ReadFrom waits for the earliest
// delivery, the read deadline or Close, whichever comes first.
//
// It is the one part of the package that uses the real clock and goroutines, and a run over it
// is not repeatable the way a Network run is: the seed still decides the fate of the n-th
// datagram, but the scheduler decides which datagram is the n-th. Protocol tests belong on a
// Network; the wrapper is for watching the real program cope (the debug panel's sliders reach
// SetSettings through the transport while the game runs).
type PacketConn struct {
	inner net.PacketConn

	// writeMu is held while datagrams are written to inner, by WriteTo and by the writer
	// goroutine, so that they leave in delivery order. Lock order: writeMu, then mu.
	writeMu  sync.Mutex
	due      [][]byte // outgoing datagrams being written; guarded by writeMu
	dueAddrs []dest   // their destinations; guarded by writeMu

	mu       sync.Mutex // guards everything below, up to the channels
	out, in  *Conditioner
	outAddrs map[uint64]addrRef // destination of each outgoing datagram in flight, by tag
	inAddrs  map[uint64]addrRef // source of each incoming datagram in flight, by tag
	outTag   uint64             // last tag given to an outgoing datagram
	inTag    uint64             // last tag given to an incoming datagram
	sendBuf  []byte             // tag ‖ datagram, the bytes WriteTo offers to out
	observe  func(Observation)  // told the fate of every datagram offered, if set

	readDeadline, writeDeadline time.Time

	// waiters are the channels of the ReadFrom calls waiting for something to look at: a
	// datagram arrived, the read deadline moved, an error came, the conn closed. wakeReaders
	// signals each once. A waiter's channel comes from (and goes back to) wakePool, so that
	// waiting allocates nothing in steady state.
	waiters   []chan struct{}
	wakePool  sync.Pool
	readErr   error // an error from inner.ReadFrom, waiting for one ReadFrom call to return it
	readerErr error // why the reader goroutine stopped, when it was not Close
	closed    bool

	writerWake chan struct{} // capacity 1: the earliest outgoing delivery moved earlier
	errTaken   chan struct{} // capacity 1: ReadFrom returned readErr, the reader may go on
	inSpace    chan struct{} // capacity 1: ReadFrom made room in the incoming backlog
	done       chan struct{} // closed by Close
	wg         sync.WaitGroup
}

var _ net.PacketConn = (*PacketConn)(nil)

// addrRef is the address of a datagram in flight and how many of its deliveries are still
// scheduled (two when it was duplicated).
type addrRef struct {
	dest
	refs int
}

// dest is the address of a datagram: a net.Addr, or, when it came or goes through the
// allocation-free calls of a UDP socket (ReadFromUDPAddrPort, WriteToUDPAddrPort), an address
// and port with addr nil.
type dest struct {
	addr net.Addr
	ap   netip.AddrPort
}

// netAddr is d as a net.Addr.
func (d dest) netAddr() net.Addr {
	if d.addr != nil || !d.ap.IsValid() {
		return d.addr
	}
	return net.UDPAddrFromAddrPort(d.ap)
}

// addrPort is d as an address and port, if it is a UDP address.
func (d dest) addrPort() (netip.AddrPort, bool) {
	if d.addr == nil {
		return d.ap, d.ap.IsValid()
	}
	if u, ok := d.addr.(*net.UDPAddr); ok {
		return u.AddrPort(), true
	}
	return netip.AddrPort{}, false
}

// The allocation-free calls of *net.UDPConn, used on the inner connection when it has them.
type addrPortReader interface {
	ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error)
}

type addrPortWriter interface {
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
}

// WrapPacketConn returns a PacketConn that sends through inner after impairing outgoing
// datagrams with out, and impairs datagrams read from inner with in before ReadFrom returns
// them. The two Conditioners get their own seeds derived from seed. From now on inner belongs
// to the PacketConn: Close closes it, and nothing else may read from it.
//
// WrapPacketConn panics if either Settings is invalid (see Settings.Validate), like
// NewConditioner.
func WrapPacketConn(inner net.PacketConn, seed uint64, out, in Settings) *PacketConn {
	p := &PacketConn{
		inner:      inner,
		out:        NewConditioner(deriveSeed(seed, route{"local", "remote"}), out),
		in:         NewConditioner(deriveSeed(seed, route{"remote", "local"}), in),
		outAddrs:   make(map[uint64]addrRef),
		inAddrs:    make(map[uint64]addrRef),
		writerWake: make(chan struct{}, 1),
		errTaken:   make(chan struct{}, 1),
		inSpace:    make(chan struct{}, 1),
		done:       make(chan struct{}),
	}
	p.wg.Add(2)
	go p.writeLoop()
	go p.readLoop()
	return p
}

// Fate is what a conditioner did with one datagram offered to it.
type Fate uint8

const (
	Passed     Fate = iota // scheduled for one delivery
	Dropped                // lost, by either kind of loss
	Duplicated             // scheduled for two deliveries
)

func (f Fate) String() string {
	switch f {
	case Passed:
		return "passed"
	case Dropped:
		return "dropped"
	case Duplicated:
		return "duplicated"
	}
	return fmt.Sprintf("Fate(%d)", uint8(f))
}

// fateOf names the fate of a datagram from the deliveries Send scheduled for it.
func fateOf(copies int) Fate {
	switch {
	case copies <= 0:
		return Dropped
	case copies == 1:
		return Passed
	}
	return Duplicated
}

// Observation is one datagram offered to a PacketConn's conditioners, and what they decided.
type Observation struct {
	Outgoing bool      // offered by WriteTo; false: read from the inner connection
	Fate     Fate      // what the conditioner of its direction did with it
	At       time.Time // when it was offered
	// Addr is its destination (outgoing) or its source (incoming); the zero AddrPort if that
	// is not a UDP address. An address and port, not a net.Addr, so that observing a datagram
	// allocates nothing.
	Addr netip.AddrPort
	Data []byte // the datagram: valid only during the call
}

// Observe makes f see every datagram offered to either conditioner from now on, with its fate:
// what a recorder needs to keep the datagrams a link lost, which no reader of the conn ever
// sees. f is called with the conn's lock held, from WriteTo for outgoing datagrams and from the
// reader goroutine for incoming ones, so it must be quick and must not call the PacketConn. A
// nil f stops the observation.
func (p *PacketConn) Observe(f func(Observation)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.observe = f
}

// SetSettings replaces the settings of both directions. Datagrams already in flight keep the
// delivery times they were given. If either Settings is invalid nothing changes.
func (p *PacketConn) SetSettings(out, in Settings) error {
	if err := out.Validate(); err != nil {
		return fmt.Errorf("outgoing: %w", err)
	}
	if err := in.Validate(); err != nil {
		return fmt.Errorf("incoming: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.out.SetSettings(out) // validated above
	_ = p.in.SetSettings(in)
	return nil
}

// Settings returns the settings of the outgoing and the incoming direction.
func (p *PacketConn) Settings() (out, in Settings) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Settings(), p.in.Settings()
}

// Stats returns the counters of the outgoing and the incoming Conditioner. Outgoing Delivered
// counts datagrams handed to the inner connection; incoming Delivered counts datagrams
// returned by ReadFrom.
func (p *PacketConn) Stats() (out, in Stats) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Stats(), p.in.Stats()
}

// WriteTo offers b, addressed to addr, to the outgoing Conditioner, which copies it. A
// delivery that is due at once (no latency, say) is written to the inner connection before
// WriteTo returns, and an error of that write is returned; later deliveries are written by the
// writer goroutine, and an error then loses the datagram, as a network would.
//
// The write deadline only makes WriteTo fail once it has passed: WriteTo never waits for the
// network, and the deadline of a call is not applied to deliveries made after it returned.
func (p *PacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	return p.writeTo(b, dest{addr: addr})
}

// WriteToUDPAddrPort is WriteTo with the address as a netip.AddrPort, as *net.UDPConn has it:
// it allocates nothing in steady state when the inner connection has it too.
func (p *PacketConn) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	return p.writeTo(b, dest{ap: addr})
}

func (p *PacketConn) writeTo(b []byte, to dest) (int, error) {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()

	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, p.opError("write", to.netAddr(), net.ErrClosed)
	}
	now := time.Now()
	if !p.writeDeadline.IsZero() && !now.Before(p.writeDeadline) {
		p.mu.Unlock()
		return 0, p.opError("write", to.netAddr(), os.ErrDeadlineExceeded)
	}
	p.outTag++
	tag := p.outTag
	p.sendBuf = binary.BigEndian.AppendUint64(p.sendBuf[:0], tag)
	p.sendBuf = append(p.sendBuf, b...)

	head, hadHead := p.out.NextDelivery()
	queued := p.out.Stats().Queued
	p.out.Send(now, p.sendBuf)
	copies := p.out.Stats().Queued - queued
	if p.observe != nil {
		ap, _ := to.addrPort()
		p.observe(Observation{Outgoing: true, Fate: fateOf(copies), At: now, Addr: ap, Data: b})
	}
	inline := p.collectDue(now, tag, to)
	if later := copies - inline; later > 0 {
		// The caller may reuse addr once we return.
		p.outAddrs[tag] = addrRef{dest: dest{addr: cloneAddr(to.addr), ap: to.ap}, refs: later}
	}
	// The writer sleeps until the earliest delivery it has seen; wake it only if this
	// datagram is to leave before that.
	next, hasNext := p.out.NextDelivery()
	p.mu.Unlock()
	if hasNext && (!hadHead || next.Before(head)) {
		signal(p.writerWake)
	}

	if err := p.writeDue(tag); err != nil {
		return 0, err
	}
	return len(b), nil
}

// collectDue moves the outgoing deliveries due at now into p.due, with their destinations in
// p.dueAddrs, and returns how many of them are copies of the datagram tagged mine, whose
// address is mineAddr rather than an entry of outAddrs. The caller holds writeMu and mu.
func (p *PacketConn) collectDue(now time.Time, mine uint64, mineAddr dest) (nMine int) {
	p.due = p.out.Deliver(now, p.due[:0])
	for _, d := range p.due {
		if tagOf(d) == mine {
			nMine++
			p.dueAddrs = append(p.dueAddrs, mineAddr)
			continue
		}
		p.dueAddrs = append(p.dueAddrs, takeAddr(p.outAddrs, d))
	}
	return nMine
}

// writeDue writes the datagrams collected by collectDue to the inner connection, gives their
// buffers back to the Conditioner and returns the first write error of a copy of the datagram
// tagged mine. Errors of other datagrams are dropped: nobody is waiting for them. The caller
// holds writeMu but not mu.
func (p *PacketConn) writeDue(mine uint64) error {
	if len(p.due) == 0 {
		return nil
	}
	var err error
	for i, d := range p.due {
		if werr := p.writeInner(d[tagSize:], p.dueAddrs[i]); werr != nil && err == nil && tagOf(d) == mine {
			err = werr
		}
	}
	p.mu.Lock()
	for _, d := range p.due {
		p.out.Recycle(d)
	}
	p.mu.Unlock()
	clear(p.due)
	clear(p.dueAddrs)
	p.due, p.dueAddrs = p.due[:0], p.dueAddrs[:0]
	return err
}

// writeInner writes one datagram to the inner connection, through WriteToUDPAddrPort when
// both the address and the connection allow it.
func (p *PacketConn) writeInner(b []byte, to dest) error {
	if w, ok := p.inner.(addrPortWriter); ok && to.addr == nil {
		_, err := w.WriteToUDPAddrPort(b, to.ap)
		return err
	}
	_, err := p.inner.WriteTo(b, to.netAddr())
	return err
}

// writeLoop is the writer goroutine: it sleeps until the earliest outgoing delivery, writes
// what is due, and stops when the conn is closed.
func (p *PacketConn) writeLoop() {
	defer p.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		p.writeMu.Lock()
		p.mu.Lock()
		p.collectDue(time.Now(), 0, dest{}) // tags start at 1, so 0 is nobody's
		next, ok := p.out.NextDelivery()
		p.mu.Unlock()
		_ = p.writeDue(0)
		p.writeMu.Unlock()

		var fire <-chan time.Time
		if ok {
			timer.Reset(time.Until(next))
			fire = timer.C
		}
		select {
		case <-p.done:
			return
		case <-p.writerWake:
		case <-fire:
		}
	}
}

// readLoop is the reader goroutine: it reads datagrams from the inner connection and offers
// them to the incoming Conditioner, stamped with the time they were read. It stops when the
// conn is closed or the inner connection is closed under it.
func (p *PacketConn) readLoop() {
	defer p.wg.Done()
	buf := make([]byte, tagSize+maxReadSize)
	apr, _ := p.inner.(addrPortReader)
	for {
		var n int
		var from dest
		var err error
		if apr != nil {
			n, from.ap, err = apr.ReadFromUDPAddrPort(buf[tagSize:])
		} else {
			n, from.addr, err = p.inner.ReadFrom(buf[tagSize:])
		}
		now := time.Now()
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		if err != nil {
			p.wakeReaders()
			if errors.Is(err, net.ErrClosed) {
				p.readerErr = err
				p.mu.Unlock()
				return
			}
			// Any other error (an ICMP error reported by the kernel, say) is what a plain
			// socket's reader would have seen: hand it to one ReadFrom call, and go on
			// reading once it has, so a persistent error cannot spin this loop.
			p.readErr = err
			p.mu.Unlock()
			select {
			case <-p.errTaken:
				continue
			case <-p.done:
				return
			}
		}
		p.inTag++
		binary.BigEndian.PutUint64(buf, p.inTag)
		queued := p.in.Stats().Queued
		p.in.Send(now, buf[:tagSize+n])
		after := p.in.Stats().Queued
		copies := after - queued
		if p.observe != nil {
			ap, _ := from.addrPort()
			p.observe(Observation{At: now, Fate: fateOf(copies), Addr: ap, Data: buf[tagSize : tagSize+n]})
		}
		if copies > 0 {
			p.inAddrs[p.inTag] = addrRef{dest: from, refs: copies}
			p.wakeReaders()
		}
		p.mu.Unlock()
		if after >= maxInBacklog && !p.waitForRoom() {
			return
		}
	}
}

// waitForRoom blocks the reader goroutine until the incoming backlog is below maxInBacklog.
// It returns false if the conn was closed meanwhile.
func (p *PacketConn) waitForRoom() bool {
	for {
		p.mu.Lock()
		full := p.in.Stats().Queued >= maxInBacklog
		p.mu.Unlock()
		if !full {
			return true
		}
		select {
		case <-p.inSpace:
		case <-p.done:
			return false
		}
	}
}

// ReadFrom returns the next incoming datagram whose delivery time has come, with the address
// it was read from. It waits until one is due, the read deadline passes (a net.Error whose
// Timeout is true), or the conn is closed (net.ErrClosed). A datagram longer than b is
// truncated, as the kernel would. An error of the inner connection is returned once, as the
// inner connection would have; if the inner connection was closed without Close, ReadFrom
// returns the datagrams still in flight and then that error.
func (p *PacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := p.readFrom(b)
	return n, from.netAddr(), err
}

// ReadFromUDPAddrPort is ReadFrom with the address as a netip.AddrPort, as *net.UDPConn has
// it: it allocates nothing in steady state when the inner connection has it too. A datagram
// from an address that is not a UDP address is returned with the zero AddrPort.
func (p *PacketConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	n, from, err := p.readFrom(b)
	ap, _ := from.addrPort()
	return n, ap, err
}

func (p *PacketConn) readFrom(b []byte) (int, dest, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			return 0, dest{}, p.opError("read", nil, net.ErrClosed)
		}
		now := time.Now()
		if !p.readDeadline.IsZero() && !now.Before(p.readDeadline) {
			p.mu.Unlock()
			return 0, dest{}, p.opError("read", nil, os.ErrDeadlineExceeded)
		}
		if d, ok := p.in.popDue(now); ok {
			from := takeAddr(p.inAddrs, d.data)
			n := copy(b, d.data[tagSize:])
			p.in.Recycle(d.data)
			if _, more := p.in.NextDelivery(); more && len(p.waiters) > 0 {
				p.wakeReaders() // another reader may take the next one
			}
			p.mu.Unlock()
			signal(p.inSpace)
			return n, from, nil
		}
		if err := p.readErr; err != nil {
			p.readErr = nil
			p.mu.Unlock()
			signal(p.errTaken)
			return 0, dest{}, err
		}
		next, inFlight := p.in.NextDelivery()
		if p.readerErr != nil && !inFlight {
			err := p.readerErr
			p.mu.Unlock()
			return 0, dest{}, err
		}

		// Wait for the earliest of: the next delivery, the deadline, a wake-up.
		until := next
		if !p.readDeadline.IsZero() && (!inFlight || p.readDeadline.Before(next)) {
			until = p.readDeadline
		}
		wake, _ := p.wakePool.Get().(chan struct{})
		if wake == nil {
			wake = make(chan struct{}, 1)
		}
		p.waiters = append(p.waiters, wake)
		p.mu.Unlock()

		var fire <-chan time.Time
		if !until.IsZero() {
			if timer == nil {
				timer = time.NewTimer(time.Until(until))
			} else {
				timer.Reset(time.Until(until))
			}
			fire = timer.C
		}
		select {
		case <-wake:
		case <-fire:
		}
		p.mu.Lock()
		// Woken or not, this call is no longer waiting: take its channel off the list (it is
		// still there after a timer), empty it, and give it back.
		if i := slices.Index(p.waiters, wake); i >= 0 {
			p.waiters = slices.Delete(p.waiters, i, i+1)
		}
		select {
		case <-wake:
		default:
		}
		p.wakePool.Put(wake)
	}
}

// wakeReaders makes every waiting ReadFrom look again. The caller holds mu.
func (p *PacketConn) wakeReaders() {
	for i, w := range p.waiters {
		w <- struct{}{} // capacity 1, and signalled only here, once, before it leaves the list
		p.waiters[i] = nil
	}
	p.waiters = p.waiters[:0]
}

// Flush waits until the outgoing datagrams the conditioner still delays have been written to
// the inner connection, each at its delivery time, or until limit has passed, and reports
// whether none is left. (Datagrams the conditioner dropped are not waited for: they are
// lost.) A host that is about to Close and wants its last datagrams, a goodbye, to leave
// calls Flush first. On a closed conn it does not wait.
func (p *PacketConn) Flush(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		// writeMu too: the writer goroutine holds it while it writes what it took from the
		// conditioner, so nothing pending means written.
		p.writeMu.Lock()
		p.mu.Lock()
		next, pending := p.out.NextDelivery()
		closed := p.closed
		p.mu.Unlock()
		p.writeMu.Unlock()
		now := time.Now()
		switch {
		case !pending:
			return true
		case closed || !now.Before(deadline):
			return false
		}
		time.Sleep(min(max(next.Sub(now), time.Millisecond), deadline.Sub(now)))
	}
}

// Close closes the inner connection, stops both goroutines and waits for them, and makes
// ReadFrom calls, waiting or later, return net.ErrClosed. Datagrams still in flight either way
// are lost (Flush first to let the outgoing ones leave). It returns the inner connection's
// Close error.
func (p *PacketConn) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return p.opError("close", nil, net.ErrClosed)
	}
	p.closed = true
	close(p.done)
	p.wakeReaders()
	p.mu.Unlock()

	err := p.inner.Close() // unblocks the reader goroutine's inner.ReadFrom
	p.wg.Wait()
	return err
}

// LocalAddr returns the inner connection's local address.
func (p *PacketConn) LocalAddr() net.Addr { return p.inner.LocalAddr() }

// SetDeadline sets the read and the write deadline.
func (p *PacketConn) SetDeadline(t time.Time) error {
	return p.setDeadlines(t, true, true)
}

// SetReadDeadline sets the time after which ReadFrom fails with a timeout, including a
// ReadFrom already waiting. The zero time means no deadline. A datagram whose delivery time
// is after the deadline is not returned before it.
func (p *PacketConn) SetReadDeadline(t time.Time) error {
	return p.setDeadlines(t, true, false)
}

// SetWriteDeadline sets the time after which WriteTo fails with a timeout. The zero time means
// no deadline.
func (p *PacketConn) SetWriteDeadline(t time.Time) error {
	return p.setDeadlines(t, false, true)
}

func (p *PacketConn) setDeadlines(t time.Time, read, write bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return p.opError("set", nil, net.ErrClosed)
	}
	if read {
		p.readDeadline = t
		p.wakeReaders()
	}
	if write {
		p.writeDeadline = t
	}
	return nil
}

// opError wraps err the way the net package does, so callers can use errors.Is(err,
// net.ErrClosed) and net.Error's Timeout as with a plain connection.
func (p *PacketConn) opError(op string, addr net.Addr, err error) error {
	local := p.inner.LocalAddr()
	network := ""
	if local != nil {
		network = local.Network()
	}
	return &net.OpError{Op: op, Net: network, Source: local, Addr: addr, Err: err}
}

// tagOf returns the tag at the front of a datagram handed out by a Conditioner.
func tagOf(d []byte) uint64 { return binary.BigEndian.Uint64(d) }

// takeAddr returns the address of datagram d and forgets it once its last delivery is taken.
func takeAddr(m map[uint64]addrRef, d []byte) dest {
	tag := tagOf(d)
	r := m[tag]
	if r.refs <= 1 {
		delete(m, tag)
	} else {
		r.refs--
		m[tag] = r
	}
	return r.dest
}

// cloneAddr copies a *net.UDPAddr, whose IP slice the caller could change later; other
// addresses are kept as they are.
func cloneAddr(a net.Addr) net.Addr {
	if u, ok := a.(*net.UDPAddr); ok && u != nil {
		c := *u
		c.IP = slices.Clone(u.IP)
		return &c
	}
	return a
}

// signal wakes the single goroutine that waits on ch, or leaves the wake-up for its next wait.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
