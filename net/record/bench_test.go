package record

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/transport"
)

// BenchmarkTapped is what recording costs the goroutine that hands the recorder a datagram
// (a socket's reader, for every datagram received): the copy and the queue. The writer
// goroutine writes to io.Discard meanwhile; whenever the queue is full the clock stops until
// the writer has emptied it, so that every datagram measured is queued, none dropped.
func BenchmarkTapped(b *testing.B) {
	for _, size := range []int{64, 1200} {
		b.Run(map[int]string{64: "64B", 1200: "1200B"}[size], func(b *testing.B) {
			r, err := New(io.Discard, nil, Options{Limit: 1 << 40})
			if err != nil {
				b.Fatal(err)
			}
			d := transport.TappedDatagram{At: epoch, Local: clientAddr, Peer: serverAddr, Data: make([]byte, size)}
			b.ReportAllocs()
			for b.Loop() {
				if len(r.queue) == cap(r.queue) {
					b.StopTimer()
					for len(r.queue) > 0 {
						time.Sleep(time.Millisecond)
					}
					b.StartTimer()
				}
				r.Tapped(d)
			}
			b.StopTimer()
			r.Close()
			if st := r.Stats(); st.QueueFull > 0 {
				b.Errorf("%d datagrams lost to a full queue", st.QueueFull)
			}
		})
	}
}

// BenchmarkSocketReceive is one datagram through a real loopback socket to the host's loop:
// written by another socket, read by the transport.Socket's reader, handed over its channel.
// "recording" has a Recorder on the socket, writing to io.Discard; the difference is what
// recording costs the receive path.
func BenchmarkSocketReceive(b *testing.B) {
	for _, recording := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "recording"}[recording]
		b.Run(name, func(b *testing.B) {
			var o transport.SocketOptions
			var r *Recorder
			if recording {
				var err error
				if r, err = New(io.Discard, nil, Options{Limit: 1 << 40}); err != nil {
					b.Fatal(err)
				}
				o.Tap = r
			}
			sock, err := transport.OpenSocket("127.0.0.1:0", o)
			if err != nil {
				b.Fatal(err)
			}
			defer sock.Close()
			sender, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(sock.LocalAddr()))
			if err != nil {
				b.Fatal(err)
			}
			defer sender.Close()
			payload := make([]byte, 100)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sender.Write(payload); err != nil {
					b.Fatal(err)
				}
				select {
				case d := <-sock.Datagrams():
					sock.Release(d)
				case <-time.After(5 * time.Second):
					b.Fatal("no datagram")
				}
			}
			b.StopTimer()
			if r != nil {
				sock.Close()
				r.Close()
				if st := r.Stats(); st.Lost() > 0 {
					b.Logf("recorder missed %d of %d", st.Lost(), st.Written+st.Lost())
				}
			}
		})
	}
}
