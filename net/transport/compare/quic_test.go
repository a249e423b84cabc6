package compare

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/ackattack/ackattack/net/linksim"
)

// alpn is the application protocol both QUIC ends agree on.
const alpn = "ackattack-bench"

// quicConfig is quic-go's defaults. Among them, at most 100 unidirectional streams open at
// once: with one stream per message that bounds the messages in flight. Larger limits (1,000,
// 4,096) were tried; they only let more messages queue, which raised the latency tenfold and
// more without raising the throughput, so the default is QUIC at its best here.
func quicConfig() *quic.Config { return &quic.Config{} }

var (
	tlsOnce              sync.Once
	tlsServer, tlsClient *tls.Config
	tlsErr               error
)

// benchTLS returns a server and a client TLS configuration sharing a self-signed certificate
// for localhost and 127.0.0.1, made once per process.
func benchTLS(tb testing.TB) (server, client *tls.Config) {
	tlsOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			tlsErr = err
			return
		}
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(1),
			Subject:               pkix.Name{CommonName: alpn},
			DNSNames:              []string{"localhost"},
			IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
			NotBefore:             time.Now().Add(-time.Hour),
			NotAfter:              time.Now().Add(24 * time.Hour),
			KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
			ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			BasicConstraintsValid: true,
			IsCA:                  true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			tlsErr = err
			return
		}
		leaf, err := x509.ParseCertificate(der)
		if err != nil {
			tlsErr = err
			return
		}
		roots := x509.NewCertPool()
		roots.AddCert(leaf)
		tlsServer = &tls.Config{
			Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}},
			NextProtos:   []string{alpn},
		}
		tlsClient = &tls.Config{RootCAs: roots, ServerName: "localhost", NextProtos: []string{alpn}}
	})
	if tlsErr != nil {
		tb.Fatal(tlsErr)
	}
	return tlsServer, tlsClient
}

// runQUIC sends r.n messages over one QUIC connection: each on a unidirectional stream of its
// own (perMessage), or all on one unidirectional stream.
func runQUIC(tb testing.TB, r *run, link linksim.Settings, perMessage bool) counts {
	serverTLS, clientTLS := benchTLS(tb)
	var zero linksim.Settings
	spc := listenUDP(tb, 1, zero, zero)
	cpc := listenUDP(tb, 2, link, link)
	str := &quic.Transport{Conn: spc}
	ctr := &quic.Transport{Conn: cpc}
	ln, err := str.Listen(serverTLS, quicConfig())
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	setup, setupDone := context.WithTimeout(ctx, 10*time.Second)
	defer setupDone()

	accepted := make(chan *quic.Conn, 1)
	acceptErr := make(chan error, 1)
	go func() {
		c, err := ln.Accept(setup)
		if err != nil {
			acceptErr <- err
			return
		}
		accepted <- c
	}()
	cc, err := ctr.Dial(setup, spc.LocalAddr(), clientTLS, quicConfig())
	if err != nil {
		tb.Fatal(err)
	}
	var sc *quic.Conn
	select {
	case sc = <-accepted:
	case err := <-acceptErr:
		tb.Fatal(err)
	}

	// The receiver: every stream's bytes go to r.receive as soon as they are complete.
	recvDone := make(chan struct{})
	if perMessage {
		go func() {
			defer close(recvDone)
			var wg sync.WaitGroup
			defer wg.Wait()
			for {
				s, err := sc.AcceptUniStream(ctx)
				if err != nil {
					return
				}
				// A goroutine per stream: reading the streams one after the other would
				// reintroduce the head-of-line blocking this mode exists to avoid.
				wg.Go(func() {
					var buf [payloadSize]byte
					if _, err := io.ReadFull(s, buf[:]); err != nil {
						return
					}
					r.receive(buf[:])
					// Read the FIN, so the stream is finished and its credit returns to the sender.
					_, _ = s.Read(buf[:1])
				})
			}
		}()
	} else {
		go func() {
			defer close(recvDone)
			s, err := sc.AcceptUniStream(ctx)
			if err != nil {
				return
			}
			var buf [payloadSize]byte
			for {
				if _, err := io.ReadFull(s, buf[:]); err != nil {
					return
				}
				r.receive(buf[:])
			}
		}()
	}

	var one *quic.SendStream
	if !perMessage {
		if one, err = cc.OpenUniStreamSync(setup); err != nil {
			tb.Fatal(err)
		}
	}
	r.begin(tb)
	sendErr := make(chan error, 1)
	go func() {
		var buf [payloadSize]byte
		for i := range r.n {
			s := one
			if perMessage {
				var err error
				if s, err = cc.OpenUniStreamSync(ctx); err != nil {
					sendErr <- err
					return
				}
			}
			r.stamp(buf[:], i)
			if _, err := s.Write(buf[:]); err != nil {
				sendErr <- err
				return
			}
			if perMessage {
				if err := s.Close(); err != nil {
					sendErr <- err
					return
				}
			}
		}
		sendErr <- nil
	}()
	sent := false
	select {
	case <-r.done:
	case err := <-sendErr:
		if err != nil {
			tb.Fatalf("send: %v", err)
		}
		sent = true
	}
	r.finish(tb)
	c := counts{datagrams: offered(spc, cpc)}
	if !sent {
		if err := <-sendErr; err != nil {
			tb.Fatalf("send: %v", err)
		}
	}

	cancel()
	_ = cc.CloseWithError(0, "done")
	_ = sc.CloseWithError(0, "done")
	<-recvDone
	_ = ln.Close()
	_ = ctr.Close()
	_ = str.Close()
	_ = cpc.Close()
	_ = spc.Close()
	return c
}
