package compare

import (
	"bufio"
	"io"
	"net"
	"testing"

	"github.com/ackattack/ackattack/net/linksim"
)

// runTCP sends r.n messages over one loopback TCP connection, one Write per message (Go turns
// Nagle's algorithm off, so each goes out at once). The link conditioner works on datagrams
// only, so TCP runs without loss.
func runTCP(tb testing.TB, r *run, _ linksim.Settings) counts {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	cc, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	defer cc.Close()
	sc, ok := <-accepted
	if !ok {
		tb.Fatal("accept failed")
	}
	defer sc.Close()

	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		br := bufio.NewReaderSize(sc, 64<<10)
		var buf [payloadSize]byte
		for {
			if _, err := io.ReadFull(br, buf[:]); err != nil {
				return
			}
			r.receive(buf[:])
		}
	}()

	r.begin(tb)
	sendErr := make(chan error, 1)
	go func() {
		var buf [payloadSize]byte
		for i := range r.n {
			r.stamp(buf[:], i)
			if _, err := cc.Write(buf[:]); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- nil
	}()
	r.finish(tb)
	if err := <-sendErr; err != nil {
		tb.Fatal(err)
	}
	cc.Close()
	<-recvDone
	return counts{}
}
