package main

import (
	"bufio"
	"flag"
	"fmt"
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

	joinFloodRate     = flag.Int("attack.joinflood.rate", 1000, "BenchmarkJoinUnderFloodFromEverywhere: connection requests a second, all sources together (0: no flood, a baseline)")
	joinFloodPrefixes = flag.Int("attack.joinflood.prefixes", 512, "BenchmarkJoinUnderFloodFromEverywhere: /24s the requests come from (1 to 1024)")
	joinFloodHosts    = flag.Int("attack.joinflood.hosts", 1, "BenchmarkJoinUnderFloodFromEverywhere: addresses in each /24 the requests come from (1 to 254)")
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
func BenchmarkFloodWhilePlaying(b *testing.B) { withBinaries(b, floodWhilePlaying) }

// withBinaries builds the server and client binaries once, and runs a measured run with them
// once per iteration of b.
func withBinaries(b *testing.B, run func(b *testing.B, server, client string)) {
	server := tmuxtest.Build(b, "server")
	client := tmuxtest.BuildPackage(b, "client", "github.com/ackattack/ackattack/cmd/client")
	for b.Loop() {
		run(b, server, client)
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
			request := floodRequest(wire.PlayerID(uuid.New()))
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

// BenchmarkJoinUnderFloodFromEverywhere is a measured run (RELIABILITY.md), not part of the
// suite: a server (the binary) plays with one honest bot client (the binary) while a flood of
// real 1,200-byte connection requests comes from -attack.joinflood.prefixes /24s of
// 127.0.0.0/8 (-attack.joinflood.hosts sockets in each, bound to addresses of their own, a
// fresh player id each request), at -attack.joinflood.rate requests a second in all, one
// every 1/rate seconds, round robin: 1,000 a second from one address in each of 512 /24s by
// default, so that no address and no prefix comes near its budget. Two seconds into the
// flood, five honest client binaries start, 300 ms apart; each must join within 5 s (joinBound).
// It reports how many joined (joined), the slowest join (join-ms: from the process's start to
// its "connected" log line), the requests the server's socket queue dropped (overflow) and
// what the server throttled, and fails unless all five joined and the class played on.
//
//	go test ./cmd/server -run '^$' -bench JoinUnderFloodFromEverywhere -v
//	go test ./cmd/server -run '^$' -bench JoinUnderFloodFromEverywhere -v -attack.joinflood.rate=0   # the baseline
func BenchmarkJoinUnderFloodFromEverywhere(b *testing.B) {
	withBinaries(b, joinUnderFloodFromEverywhere)
}

func joinUnderFloodFromEverywhere(b *testing.B, server, client string) {
	const joiners, joinerPlays = 5, 8 * time.Second
	prefixes, hostsEach := *joinFloodPrefixes, *joinFloodHosts
	if prefixes < 1 || prefixes > 1024 || hostsEach < 1 || hostsEach > 254 {
		b.Fatalf("-attack.joinflood.prefixes %d, -attack.joinflood.hosts %d: want 1 to 1024 and 1 to 254", prefixes, hostsEach)
	}
	c := startBinClass(b, server, client, 20*time.Second)
	c.join("ann")
	time.Sleep(2 * time.Second) // a measured run on the wall clock: the game starts first

	// Sockets in each /24: 127.100.0.1, 127.100.1.1, … 127.103.255.1, then .2 in each, and so
	// on: consecutive requests come from different prefixes.
	socks := make([]*net.UDPConn, 0, prefixes*hostsEach)
	for h := range hostsEach {
		for i := range prefixes {
			pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, byte(100+i/256), byte(i), byte(1+h))})
			if err != nil {
				b.Fatal(err)
			}
			defer pc.Close()
			socks = append(socks, pc)
		}
	}
	to, _ := net.ResolveUDPAddr("udp", c.addr)
	stop, done := make(chan struct{}), make(chan struct{})
	var sent atomic.Int64
	go func() {
		defer close(done)
		if *joinFloodRate <= 0 {
			return
		}
		rng := rand.New(rand.NewPCG(512, 24))
		start := time.Now()
		for n := 0; ; n++ {
			// Evenly spaced, as a flood from many machines arrives: no gaps between bursts
			// for an honest request to slip through.
			if n%100 == 0 {
				select {
				case <-stop:
					return
				default:
				}
			}
			if wait := time.Until(start.Add(time.Duration(n) * time.Second / time.Duration(*joinFloodRate))); wait > 0 {
				time.Sleep(wait)
			}
			if _, err := socks[n%len(socks)].WriteToUDP(floodRequest(randomPlayer(rng)), to); err == nil {
				sent.Add(1)
			}
		}
	}()
	floodStart := time.Now()
	time.Sleep(2 * time.Second) // the flood has spent any budget it could

	hosts := make([]*udpHost, joiners)
	starts := make([]time.Time, joiners)
	for i := range hosts {
		name := fmt.Sprintf("j%d", i+1)
		starts[i] = time.Now()
		hosts[i] = startHost(b, c.ctx, c.dir, name, client, append([]string{"--connect", c.addr, "--bot", "--quiet", "--name", name,
			"--duration", joinerPlays.String()}, classLinkFlags...)...)
		time.Sleep(300 * time.Millisecond)
	}
	joined, slowest := 0, time.Duration(0)
	var times []time.Duration
	for i, h := range hosts {
		err := h.wait()
		at, ok := connectedAt(h.log)
		if err != nil || !ok {
			out, _ := os.ReadFile(h.out)
			b.Logf("%s did not join: %v; %s", h.name, err, strings.TrimSpace(string(out)))
			times = append(times, 0)
			continue
		}
		joined++
		d := at.Sub(starts[i])
		times = append(times, d.Round(time.Millisecond))
		slowest = max(slowest, d)
	}
	close(stop)
	<-done
	took := time.Since(floodStart)
	srv, clients := c.finish()
	b.ReportMetric(float64(joined), "joined")
	b.ReportMetric(float64(slowest.Milliseconds()), "join-ms")
	b.ReportMetric(float64(sent.Load())/took.Seconds(), "requests/s")
	b.ReportMetric(float64(srv.Rejected.Overflow), "overflow")
	b.Logf("%d requests from %d addresses in %d /24s in %v (%.0f a second); %d of %d honest clients joined, in %v; the server throttled %d by address, %d by prefix, %d globally; %d datagrams overflowed its socket queue",
		sent.Load(), len(socks), prefixes, took.Round(time.Millisecond), float64(sent.Load())/took.Seconds(), joined, joiners, times,
		srv.Rejected.ThrottledAddress, srv.Rejected.ThrottledPrefix, srv.Rejected.ThrottledGlobal, srv.Rejected.Overflow)
	b.Logf("server: frames late %d (latest %.0f ms); ann: round trip %.1f ms, loss %.1f%%", srv.Game.FramesLate, srv.Game.MaxFrameLateMillis,
		clients["ann"].Net.RTTMillis, clients["ann"].Net.LossPercent)
	if joined != joiners {
		b.Errorf("%d of %d honest clients joined under the flood", joined, joiners)
	}
	if slowest > joinBound {
		b.Errorf("the slowest honest join took %v under the flood, want at most %v", slowest.Round(time.Millisecond), joinBound)
	}
	checkHonest(b, srv, clients, false)
}

// joinBound is how long an honest join may take under the flood from everywhere: 5 s, the
// connect timeout a client had when the flood was first measured (it is 10 s since, for the
// class's 30% loss), so that the longer timeout cannot hide a slower join.
const joinBound = 5 * time.Second

// floodRequest is a real connection request of player's, 1,200 bytes in the plain frame, as
// a flood sends it.
func floodRequest(player wire.PlayerID) []byte {
	req := wire.ConnectRequest{Version: wire.ProtocolVersion, Player: player, Name: "flood"}
	d, _ := wire.AppendConnectRequest(wire.BeginDatagram(nil), &req)
	wire.SealDatagram(d, 0)
	return d
}

// randomPlayer is a player id drawn from rng: a flood's requests each claim a new player.
func randomPlayer(rng *rand.Rand) (player wire.PlayerID) {
	for j := range player {
		player[j] = byte(rng.Uint32())
	}
	return player
}

// connectedAt is the time of a client's "connected" line in its --log (the text handler's
// time= field).
func connectedAt(logFile string) (time.Time, bool) {
	f, err := os.Open(logFile)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, " msg=connected ") || !strings.HasPrefix(line, "time=") {
			continue
		}
		field, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
		if t, err := time.Parse(time.RFC3339Nano, field); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
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
