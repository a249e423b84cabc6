package transport

import (
	"bytes"
	"log/slog"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRejectionReasons: the reasons Each names are the JSON names of the fields, in order.
func TestRejectionReasons(t *testing.T) {
	var tags []string
	rt := reflect.TypeOf(Rejections{})
	for i := range rt.NumField() {
		tags = append(tags, rt.Field(i).Tag.Get("json"))
	}
	var names []string
	var r Rejections
	for i, c := range r.counts() {
		*c = uint64(i + 1)
	}
	r.Each(func(reason string, n uint64) {
		names = append(names, reason)
		if want := uint64(len(names)); n != want {
			t.Errorf("%s: %d, want %d", reason, n, want)
		}
	})
	if !slices.Equal(tags, names) {
		t.Errorf("reasons %v, JSON names %v", names, tags)
	}
	if r.Total() != uint64(len(names)*(len(names)+1)/2) {
		t.Errorf("total %d", r.Total())
	}
}

// TestRejectionsLogged: the log gets a line with the datagrams rejected since the last one, by
// reason, at most every rejectLogEvery, and a last one when the server shuts down.
func TestRejectionsLogged(t *testing.T) {
	var log bytes.Buffer
	srv := NewServer(ServerConfig{Config: Config{Logger: slog.New(slog.NewTextHandler(&log, nil))}}, discard{})
	now := time.Unix(1_000_000, 0)
	from := netip.MustParseAddrPort("192.0.2.1:4000")
	junk := func(n int) {
		for range n {
			srv.Handle(now, Datagram{From: from, Data: []byte{1, 2, 3}})
		}
		srv.Tick(now)
	}
	junk(3)
	now = now.Add(time.Second)
	junk(2) // within rejectLogEvery of the first line: no line yet
	now = now.Add(rejectLogEvery)
	junk(1)
	srv.Handle(now, Datagram{From: from, Data: connectRequest(playerID(12, 0), "x")[:100]})
	srv.Shutdown(now)
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	want := []string{"total=3 malformed=3", "total=3 since=11s malformed=3", "total=1 since=0s malformed=1"}
	if len(lines) != len(want) {
		t.Fatalf("log:\n%s\nwant %d lines", log.String(), len(want))
	}
	for i, l := range lines {
		if !strings.Contains(l, `msg="datagrams rejected" `+want[i]) {
			t.Errorf("line %d: %s\nwant %q", i, l, want[i])
		}
	}
}

type discard struct{}

func (discard) WriteTo([]byte, netip.AddrPort) error { return nil }

// TestAfterClose: the copies of a Disconnect that arrive after the first one ended the
// connection are counted as after_close, not as malformed; after a Timeout they are junk
// like any other.
func TestAfterClose(t *testing.T) {
	start := time.Unix(1_000_000, 0)
	n := &floodNet{now: start, latency: time.Millisecond, srvAddr: netip.MustParseAddrPort("198.51.100.1:7777"), clients: map[netip.AddrPort]*Client{}}
	n.srv = NewServer(ServerConfig{}, floodWriter{n, n.srvAddr})
	addr := netip.MustParseAddrPort("192.0.2.9:5000")
	var copies [][]byte
	w := floodWriter{n, addr}
	tap := writerFunc(func(b []byte, to netip.AddrPort) error {
		copies = append(copies, append([]byte(nil), b...))
		return w.WriteTo(b, to)
	})
	c, err := NewClient(n.srvAddr, ClientConfig{Name: "ann"}, tap)
	if err != nil {
		t.Fatal(err)
	}
	n.clients[addr] = c
	step := func(d time.Duration) {
		for end := n.now.Add(d); n.now.Before(end); n.now = n.now.Add(time.Millisecond) {
			n.deliver()
			n.srv.Tick(n.now)
			c.Tick(n.now)
		}
	}
	step(100 * time.Millisecond)
	if c.State() != Connected {
		t.Fatalf("client %v", c.State())
	}
	copies = nil
	c.Disconnect(n.now, "bye")
	bye := copies[len(copies)-1]
	step(100 * time.Millisecond)
	r := n.srv.StatsNow().Rejected
	if r.AfterClose != disconnectCopies-1 || r.Malformed != 0 {
		t.Errorf("after the goodbye: %+v, want %d after close and nothing malformed", r, disconnectCopies-1)
	}
	step(5 * time.Second)
	n.srv.Handle(n.now, Datagram{From: addr, Data: bye})
	if r := n.srv.StatsNow().Rejected; r.AfterClose != disconnectCopies-1 || r.Malformed != 1 {
		t.Errorf("a goodbye after the timeout: %+v, want it malformed", r)
	}
}

type writerFunc func(b []byte, to netip.AddrPort) error

func (f writerFunc) WriteTo(b []byte, to netip.AddrPort) error { return f(b, to) }
