package main

import (
	"flag"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/cmd/internal/tmuxtest"
	"github.com/ackattack/ackattack/net/wire"
)

var (
	floodFor     = flag.Duration("attack.flood", 30*time.Second, "BenchmarkFloodWhilePlaying: flood a playing server this long")
	floodSenders = flag.Int("attack.flood.senders", 4, "BenchmarkFloodWhilePlaying: goroutines sending the flood (0: a baseline run without a flood)")
	floodRate    = flag.Int("attack.flood.rate", 125000, "BenchmarkFloodWhilePlaying: datagrams a second, all senders together (0: as fast as they can)")
)

// BenchmarkFloodWhilePlaying is a measured run (RELIABILITY.md), not part of the suite: a
// server (the binary) and two honest bot clients (the binary) play at 5% loss on every host
// while senders fire datagrams at the server (at -attack.flood.rate, 125,000 a second by
// default) for -attack.flood: random bytes, 1,200-byte connection requests, altered copies of
// sealed datagrams. It reports the rate (datagrams/s), what the server counted (counted/op),
// the clients' round trips (rtt-ms), and the server's peak memory (peak-kB), and logs whether
// the worlds agree and chat arrived; it fails if the worlds disagree, a chat line is lost, or
// a process ends in error.
//
//	go test ./cmd/server -run '^$' -bench FloodWhilePlaying -v -attack.flood=30s
//	go test ./cmd/server -run '^$' -bench FloodWhilePlaying -v -attack.flood=30s -attack.flood.senders=0   # the baseline
func BenchmarkFloodWhilePlaying(b *testing.B) {
	server := tmuxtest.Build(b, "server")
	client := tmuxtest.BuildPackage(b, "client", "github.com/ackattack/ackattack/cmd/client")
	for b.Loop() {
		floodWhilePlaying(b, server, client)
	}
}

func floodWhilePlaying(b *testing.B, server, client string) {
	c := startBinClass(b, server, client, *floodFor+10*time.Second)
	c.join("ann", "bob")
	time.Sleep(5 * time.Second) // a measured run on the wall clock: the game plays a while first

	stop := make(chan struct{})
	var sent atomic.Int64
	var wg sync.WaitGroup
	to, _ := net.ResolveUDPAddr("udp", c.addr)
	for i := range *floodSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 30, byte(i+1))})
			if err != nil {
				b.Error(err)
				return
			}
			defer pc.Close()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			junk := make([]byte, 1200)
			req := wire.ConnectRequest{Version: wire.ProtocolVersion, Player: wire.PlayerID(uuid.New()), Name: "flood"}
			request, _ := wire.AppendConnectRequest(wire.BeginDatagram(nil), &req)
			wire.SealDatagram(request, 0)
			start := time.Now()
			for n := 0; ; n++ {
				if n%64 == 0 {
					select {
					case <-stop:
						return
					default:
					}
					if *floodRate > 0 {
						// Each sender's share of the rate: wait until n datagrams are due.
						due := start.Add(time.Duration(float64(n) * float64(*floodSenders) / float64(*floodRate) * float64(time.Second)))
						time.Sleep(time.Until(due))
					}
				}
				var d []byte
				switch n % 3 {
				case 0:
					d = junk[:1+rng.IntN(len(junk))]
					for j := range d {
						d[j] = byte(rng.Uint32())
					}
				case 1:
					d = request
				case 2:
					d = junk[:wire.SealedOverhead+1+rng.IntN(100)] // looks sealed, opens with no key
				}
				if _, err := pc.WriteToUDP(d, to); err == nil {
					sent.Add(1)
				}
			}
		}()
	}
	began := time.Now()
	var peak int64
	for time.Since(began) < *floodFor {
		time.Sleep(500 * time.Millisecond)
		peak = max(peak, vmHWM(c.hosts[0].cmd.Process.Pid))
	}
	close(stop)
	wg.Wait()
	took := time.Since(began)
	srv, clients := c.finish()
	b.ReportMetric(float64(sent.Load())/took.Seconds(), "datagrams/s")
	b.ReportMetric(float64(srv.Rejected.Total), "counted")
	b.ReportMetric(float64(peak), "peak-kB")
	b.ReportMetric((clients["ann"].Net.RTTMillis+clients["bob"].Net.RTTMillis)/2, "rtt-ms")
	b.Logf("%d datagrams in %v: %.0f a second; the server counted %d rejected (%d overflowed its socket queue), %d connection requests",
		sent.Load(), took.Round(time.Millisecond), float64(sent.Load())/took.Seconds(), srv.Rejected.Total, srv.Rejected.Overflow, srv.Rejected.ThrottledAddress+srv.Rejected.ThrottledPrefix+srv.Rejected.ThrottledGlobal)
	b.Logf("server: peak memory %d kB (VmHWM), frame %d, frames late %d (latest %.0f ms)", peak, srv.Frame, srv.Game.FramesLate, srv.Game.MaxFrameLateMillis)
	for _, name := range []string{"ann", "bob"} {
		cl := clients[name]
		b.Logf("%s: round trip %.1f ms, loss %.1f%%, %d chat lines sent, %d received", name, cl.Net.RTTMillis, cl.Net.LossPercent, cl.Chat.SentTotal, cl.Chat.ReceivedTotal)
	}
	// Every line one wrote, the other read (a line sent in the last second may still be on
	// its way when the clients stop). A report lists the last lines only: when it has dropped
	// some, the totals are all there is to compare.
	for _, pair := range [][2]string{{"ann", "bob"}, {"bob", "ann"}} {
		from, to := clients[pair[0]], clients[pair[1]]
		got := 0
		for _, l := range to.Chat.Received {
			if l.From == pair[0] {
				got++
			}
		}
		if uint64(len(to.Chat.Received)) < to.Chat.ReceivedTotal {
			continue
		}
		if uint64(got)+1 < from.Chat.SentTotal {
			b.Errorf("%s wrote %d lines, %s read %d of them", pair[0], from.Chat.SentTotal, pair[1], got)
		}
	}
	checkHonest(b, srv, clients, false)
}

// vmHWM is a process's peak resident memory in kB (Linux; 0 elsewhere).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}
