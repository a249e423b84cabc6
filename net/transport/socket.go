package transport

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// Datagram is one datagram read from the socket. Data belongs to the receiver of the
// Datagram; Handle gives it back to the socket's buffer pool when done.
type Datagram struct {
	From netip.AddrPort
	Data []byte
}

// socketQueue is how many datagrams may wait between the reader goroutine and the owner loop.
// A loop that falls this far behind drops datagrams (counted), as a full kernel buffer would.
const socketQueue = 1024

// socket owns a net.PacketConn and the goroutine that reads it. Everything else about a
// connection lives in the owner loop; the reader only copies datagrams into a channel.
type socket struct {
	pc   net.PacketConn
	out  chan Datagram
	done chan struct{}
	pool sync.Pool

	overflow atomic.Uint64 // datagrams dropped because the loop did not keep up
	oversize atomic.Uint64 // datagrams longer than a read buffer (truncated by the kernel)
	closed   atomic.Bool
}

// readBufferSize is larger than any valid datagram, so an oversized one is noticed, not
// silently truncated into something that might parse.
const readBufferSize = 2048

func newSocket(pc net.PacketConn) *socket {
	s := &socket{pc: pc, out: make(chan Datagram, socketQueue), done: make(chan struct{})}
	s.pool.New = func() any { b := make([]byte, readBufferSize); return &b }
	go s.read()
	return s
}

func (s *socket) read() {
	defer close(s.done)
	defer close(s.out)
	for {
		bp := s.pool.Get().(*[]byte)
		n, addr, err := s.pc.ReadFrom(*bp)
		if err != nil {
			s.pool.Put(bp)
			if errors.Is(err, net.ErrClosed) || s.closed.Load() {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			// ICMP errors (port unreachable after a peer left) surface here on some systems;
			// they say nothing about the datagrams to come.
			continue
		}
		if n == len(*bp) {
			s.oversize.Add(1)
			s.pool.Put(bp)
			continue
		}
		ua, ok := addr.(*net.UDPAddr)
		if !ok {
			s.pool.Put(bp)
			continue
		}
		ap := ua.AddrPort()
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		select {
		case s.out <- Datagram{From: ap, Data: (*bp)[:n]}:
		default:
			s.overflow.Add(1)
			s.pool.Put(bp)
		}
	}
}

// release gives a datagram's buffer back for reuse.
func (s *socket) release(d Datagram) {
	if cap(d.Data) == readBufferSize {
		b := d.Data[:readBufferSize]
		s.pool.Put(&b)
	}
}

func (s *socket) writeTo(b []byte, to netip.AddrPort) error {
	_, err := s.pc.WriteTo(b, net.UDPAddrFromAddrPort(to))
	return err
}

// close closes the socket and waits for the reader goroutine to end.
func (s *socket) close() error {
	if s.closed.Swap(true) {
		<-s.done
		return nil
	}
	err := s.pc.Close()
	<-s.done
	return err
}
