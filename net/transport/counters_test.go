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
