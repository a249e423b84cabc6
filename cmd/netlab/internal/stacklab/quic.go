package stacklab

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/ackattack/ackattack/net/linksim"
)

// The outside reference of the head-of-line experiment: quic-go with one unidirectional
// stream per message, QUIC's way to send reliable messages that do not wait for each other.
// quic-go reads the system clock and runs its own goroutines, so it cannot run in virtual time;
// it runs on two real UDP sockets on loopback instead, the client's wrapped in a
// net/linksim PacketConn with the experiment's settings both ways, and the game's messages are
// handed over at their times by the wall clock. The numbers are therefore this machine's and
// this run's. The receiver applies the same dependencies as the graph: a message that arrives
// before one it needs waits for it.

const quicALPN = "ackattack-netlab"

// quicTLS is a server and a client TLS configuration sharing a fresh self-signed certificate
// for 127.0.0.1.
func quicTLS() (server, client *tls.Config, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: quicALPN},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:   now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}}, NextProtos: []string{quicALPN}}
	client = &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", NextProtos: []string{quicALPN}}
	return server, client, nil
}

// quicReceiver executes the messages that arrive on the streams in dependency order, and
// times everything by the wall clock since start.
type quicReceiver struct {
	mu      sync.Mutex
	start   time.Time
	log     *receiverLog
	blocked []int // arrived, waiting for a dependency
	handed  int   // handed over by the sender so far
	heldMax int
	backlog int // the most handed over and not yet executed at once
	heldSum float64
	last    time.Duration // when held last changed, for its mean over time
	done    chan struct{}
}

// account adds the time since the last change to the held integral; mu is held.
func (q *quicReceiver) account() time.Duration {
	now := time.Since(q.start)
	q.heldSum += float64(q.log.held) * (now - q.last).Seconds()
	q.last = now
	return now
}

func (q *quicReceiver) ready(i int) bool {
	for _, d := range q.log.msgs[i].deps {
		if !q.log.executed[d] {
			return false
		}
	}
	return true
}

// arrive handles message i, complete on its stream.
func (q *quicReceiver) arrive(i int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.account()
	if i < 0 || i >= len(q.log.msgs) {
		q.log.violations++
		return
	}
	if !q.ready(i) {
		q.log.arrive(i)
		q.blocked = append(q.blocked, i)
	} else {
		q.log.execute(i, now)
		// Whatever waited for it may go now, and what waited for those.
		for progress := true; progress; {
			progress = false
			rest := q.blocked[:0]
			for _, j := range q.blocked {
				if q.ready(j) {
					q.log.execute(j, now)
					progress = true
				} else {
					rest = append(rest, j)
				}
			}
			q.blocked = rest
		}
	}
	q.heldMax = max(q.heldMax, q.log.held)
	q.backlog = max(q.backlog, q.handed-q.log.delivered)
	if q.log.delivered == len(q.log.msgs) {
		select {
		case <-q.done:
		default:
			close(q.done)
		}
	}
}

func (q *quicReceiver) handedOver() {
	q.mu.Lock()
	q.handed++
	q.backlog = max(q.backlog, q.handed-q.log.delivered)
	q.mu.Unlock()
}

// runQUIC sends msgs over quic-go, a stream per message, in wall-clock time.
func runQUIC(cfg HOLConfig, msgs []tmsg) (res WayResult) {
	res = WayResult{Way: WayQUIC, WallClock: true}
	fail := func(err error) WayResult {
		res.Err = fmt.Errorf("quic-go: %w", err)
		return res
	}
	// quic-go cannot size a wrapped socket's receive buffer, and would say so on every run.
	os.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true")
	serverTLS, clientTLS, err := quicTLS()
	if err != nil {
		return fail(err)
	}
	spc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	defer spc.Close()
	raw, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	cpc := linksim.WrapPacketConn(raw, cfg.Seed, cfg.Link, cfg.Link)
	defer cpc.Close()
	str, ctr := &quic.Transport{Conn: spc}, &quic.Transport{Conn: cpc}
	defer str.Close()
	defer ctr.Close()
	ln, err := str.Listen(serverTLS, &quic.Config{})
	if err != nil {
		return fail(err)
	}
	defer ln.Close()
	limit := msgs[len(msgs)-1].at + 2*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()

	accepted := make(chan *quic.Conn, 1)
	go func() {
		if c, err := ln.Accept(ctx); err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	cc, err := ctr.Dial(ctx, spc.LocalAddr(), clientTLS, &quic.Config{})
	if err != nil {
		return fail(err)
	}
	defer cc.CloseWithError(0, "done")
	sc, ok := <-accepted
	if !ok {
		return fail(fmt.Errorf("the server accepted no connection"))
	}

	q := &quicReceiver{log: newReceiverLog(msgs), done: make(chan struct{})}
	var wg sync.WaitGroup
	defer func() {
		// Closing the connections ends every read of a stream still incomplete (a run that
		// failed); only then can the readers be waited for.
		cancel()
		_ = cc.CloseWithError(0, "done")
		_ = sc.CloseWithError(0, "done")
		wg.Wait()
	}()
	q.start = time.Now()
	wg.Go(func() {
		var streams sync.WaitGroup
		defer streams.Wait()
		for {
			s, err := sc.AcceptUniStream(ctx)
			if err != nil {
				return
			}
			// A goroutine per stream: reading them one after the other would put back the
			// head-of-line blocking that streams exist to avoid.
			streams.Go(func() {
				b, err := io.ReadAll(s)
				if err != nil {
					return
				}
				i, _, ok := parsePayload(b)
				if !ok {
					i = -1
				}
				q.arrive(i)
			})
		}
	})
	sendErr := make(chan error, 1)
	wg.Go(func() {
		var payload []byte
		for i, m := range msgs {
			if d := time.Until(q.start.Add(m.at)); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
					sendErr <- ctx.Err()
					return
				}
			}
			q.handedOver()
			s, err := cc.OpenUniStreamSync(ctx)
			if err != nil {
				sendErr <- err
				return
			}
			payload = appendPayload(payload[:0], i, m.kind)
			if _, err := s.Write(payload); err != nil {
				sendErr <- err
				return
			}
			if err := s.Close(); err != nil {
				sendErr <- err
				return
			}
		}
	})
	select {
	case <-q.done:
	case err := <-sendErr:
		return fail(err)
	case <-ctx.Done():
		q.mu.Lock()
		n := q.log.delivered
		q.mu.Unlock()
		return fail(fmt.Errorf("%d of %d messages delivered within %v", n, len(msgs), limit))
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	end := q.account()
	if end > 0 {
		res.HeldMean = q.heldSum / end.Seconds()
	}
	res.Sent, res.HeldMax, res.BacklogMax = q.handed, q.heldMax, q.backlog
	res.PacketsLost = cc.ConnectionStats().PacketsLost
	q.log.finish(&res, cfg.Link.Latency)
	return res
}
