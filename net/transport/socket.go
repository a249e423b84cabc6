package transport

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
)

// Datagram is one datagram read from a socket. Data belongs to the receiver of the Datagram;
// the owner loop gives it back to the socket's buffer pool (Socket.Release) when done.
type Datagram struct {
	From netip.AddrPort
	Data []byte
}

// Writer is where an endpoint's datagrams go: a Socket in a program, a node of a
// linksim.Network in a test. The endpoints (Server, Client) never open a socket or read one
// themselves; whoever owns the loop does, and hands them what arrived.
type Writer interface {
	WriteTo(b []byte, to netip.AddrPort) error
}

// socketQueue is how many datagrams may wait between the reader goroutine and the owner loop.
// A loop that falls this far behind drops datagrams (counted), as a full kernel buffer would.
const socketQueue = 1024

// Socket owns a net.PacketConn and the goroutine that reads it: the part of a host that is
// real I/O. Everything else about a connection lives in the owner loop; the reader only copies
// datagrams into a channel. With a link setting it puts a net/linksim conditioner under the
// socket, whose settings SetLink changes while the game runs (the sliders).
type Socket struct {
	pc    net.PacketConn
	link  *linksim.PacketConn
	tap   Tap            // nil: nobody watches
	local netip.AddrPort // the address the socket was bound to, for the tap
	out   chan Datagram
	done  chan struct{}
	// free holds read buffers the owner loop gave back (Release), for the reader to use
	// again: a channel of slices, so that giving one back allocates nothing (a sync.Pool of
	// slices would box each one).
	free chan []byte
	// The allocation-free calls of a UDP socket, when pc has them (a *net.UDPConn does, and
	// so does a linksim.PacketConn).
	apr addrPortReader
	apw addrPortWriter

	overflow atomic.Uint64 // datagrams dropped because the loop did not keep up
	oversize atomic.Uint64 // datagrams longer than a read buffer (truncated by the kernel)
	sendErrs atomic.Uint64
	closed   atomic.Bool
}

// readBufferSize is larger than any valid datagram, so an oversized one is noticed, not
// silently truncated into something that might parse.
const readBufferSize = 2048

type addrPortReader interface {
	ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error)
}

type addrPortWriter interface {
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
}

// OpenSocket opens a UDP socket on addr ("127.0.0.1:7777", "127.0.0.1:0" for any free port)
// and starts its reader goroutine. o.Link, if not nil, puts a conditioner under it, seeded with
// o.Seed (0: 1); o.Tap, if not nil, is shown every datagram (tap.go).
func OpenSocket(addr string, o SocketOptions) (*Socket, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: listen on %s: %w", addr, err)
	}
	if uc, ok := pc.(*net.UDPConn); ok {
		// The kernel's default receive buffer (208 kB on Linux) holds well under a second of
		// a flood: full, it drops the players' datagrams with the flood's. Ask for more; the
		// kernel grants up to its limit (net.core.rmem_max), and less is no error.
		uc.SetReadBuffer(receiveBuffer)
	}
	return NewSocket(pc, o), nil
}

// receiveBuffer is the kernel receive buffer a socket asks for.
const receiveBuffer = 4 << 20

// NewSocket is OpenSocket on a socket the caller opened.
func NewSocket(pc net.PacketConn, o SocketOptions) *Socket {
	s := &Socket{out: make(chan Datagram, socketQueue), done: make(chan struct{}), tap: o.Tap,
		free: make(chan []byte, socketQueue)}
	s.local = addrPortOf(pc.LocalAddr())
	if o.Link != nil {
		seed := o.Seed
		if seed == 0 {
			seed = 1
		}
		s.link = linksim.WrapPacketConn(pc, seed, o.Link.Out, o.Link.In)
		if s.tap != nil {
			s.link.Observe(s.observe)
		}
		pc = s.link
	}
	s.pc = pc
	s.apr, _ = pc.(addrPortReader)
	s.apw, _ = pc.(addrPortWriter)
	go s.read()
	return s
}

// buffer is a read buffer: one given back, or a new one.
func (s *Socket) buffer() []byte {
	select {
	case b := <-s.free:
		return b
	default:
		return make([]byte, readBufferSize)
	}
}

// recycle keeps b for a later read, unless enough are kept already.
func (s *Socket) recycle(b []byte) {
	select {
	case s.free <- b[:readBufferSize]:
	default:
	}
}

// readFrom reads one datagram into b, from a UDP address (ok false: some other kind, which is
// dropped).
func (s *Socket) readFrom(b []byte) (n int, from netip.AddrPort, ok bool, err error) {
	if s.apr != nil {
		n, from, err = s.apr.ReadFromUDPAddrPort(b)
		return n, unmapped(from), from.IsValid(), err
	}
	n, addr, err := s.pc.ReadFrom(b)
	_, ok = addr.(*net.UDPAddr)
	return n, addrPortOf(addr), ok, err
}

func (s *Socket) read() {
	defer close(s.done)
	defer close(s.out)
	for {
		b := s.buffer()
		n, from, udp, err := s.readFrom(b)
		if err != nil {
			s.recycle(b)
			if errors.Is(err, net.ErrClosed) || s.closed.Load() {
				return
			}
			// Timeouts, and ICMP errors (port unreachable after a peer left) that surface
			// here on some systems: they say nothing about the datagrams to come.
			continue
		}
		if n == len(b) {
			s.oversize.Add(1)
			s.recycle(b)
			continue
		}
		if !udp {
			s.recycle(b)
			continue
		}
		d := Datagram{From: from, Data: b[:n]}
		fate := TapPassed
		select {
		case s.out <- d:
		default:
			s.overflow.Add(1)
			fate = TapOverflow
		}
		if s.tap != nil {
			// After the hand-over, so that the host never waits for the tap. The host only
			// reads a datagram's bytes, and the buffer it gives back goes to the free list
			// that only this goroutine takes from, so d.Data stays as it came until the next
			// read.
			s.tap.Tapped(TappedDatagram{At: time.Now(), Fate: fate, Local: s.local, Peer: d.From, Data: d.Data})
		}
		if fate == TapOverflow {
			s.recycle(b)
		}
	}
}

// Datagrams is the channel of datagrams read from the socket, for the owner loop. It is
// closed when the socket closes.
func (s *Socket) Datagrams() <-chan Datagram { return s.out }

// Release gives a datagram's buffer back for reuse, once the loop handled it.
func (s *Socket) Release(d Datagram) {
	if cap(d.Data) == readBufferSize {
		s.recycle(d.Data)
	}
}

// WriteTo sends one datagram. A failure is counted (SendErrors) and returned.
func (s *Socket) WriteTo(b []byte, to netip.AddrPort) error {
	if s.tap != nil && s.link == nil {
		// With a conditioner, its observer shows the datagram with its fate.
		s.tap.Tapped(TappedDatagram{At: time.Now(), Out: true, Local: s.local, Peer: to, Data: b})
	}
	var err error
	if s.apw != nil {
		_, err = s.apw.WriteToUDPAddrPort(b, to)
	} else {
		_, err = s.pc.WriteTo(b, net.UDPAddrFromAddrPort(to))
	}
	if err != nil {
		s.sendErrs.Add(1)
	}
	return err
}

// LocalAddr is the socket's address.
func (s *Socket) LocalAddr() netip.AddrPort {
	if ua, ok := s.pc.LocalAddr().(*net.UDPAddr); ok {
		return ua.AddrPort()
	}
	return netip.AddrPort{}
}

// SetLink changes the link conditioner's settings at run time (safe from any goroutine). It
// fails if the socket was not opened with a link setting.
func (s *Socket) SetLink(ls LinkSettings) error {
	if s.link == nil {
		return errors.New("transport: no link conditioner (start with a link setting)")
	}
	return s.link.SetSettings(ls.Out, ls.In)
}

// Link returns the conditioner's settings and whether there is one.
func (s *Socket) Link() (LinkSettings, bool) {
	if s.link == nil {
		return LinkSettings{}, false
	}
	out, in := s.link.Settings()
	return LinkSettings{Out: out, In: in}, true
}

// LinkStats returns the counters of the conditioner's two directions, and whether there is
// one (safe from any goroutine).
func (s *Socket) LinkStats() (out, in linksim.Stats, ok bool) {
	if s.link == nil {
		return linksim.Stats{}, linksim.Stats{}, false
	}
	out, in = s.link.Stats()
	return out, in, true
}

// SocketStats are the socket's own counters.
type SocketStats struct {
	Overflow   uint64 // datagrams dropped because the loop did not keep up
	Oversize   uint64 // datagrams longer than any valid one
	SendErrors uint64
}

// Stats returns the socket's counters (safe from any goroutine).
func (s *Socket) Stats() SocketStats {
	return SocketStats{Overflow: s.overflow.Load(), Oversize: s.oversize.Load(), SendErrors: s.sendErrs.Load()}
}

// closeFlush bounds how long Close waits for datagrams the link conditioner still delays.
const closeFlush = time.Second

// Close closes the socket and waits for the reader goroutine to end. With a link conditioner
// it first lets the datagrams it still delays leave, for at most closeFlush: the Disconnect a
// host sends as it closes is among them, and a goodbye dropped here would leave the peer
// reporting a timeout or a connection error instead.
func (s *Socket) Close() error {
	if s.closed.Swap(true) {
		<-s.done
		return nil
	}
	if s.link != nil {
		s.link.Flush(closeFlush)
	}
	err := s.pc.Close()
	<-s.done
	return err
}
