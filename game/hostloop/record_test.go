package hostloop

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// TestRecordRealGame: a client that records a short real game over loopback, on a link that
// loses and duplicates both ways. Read back with pcapgo, the capture holds every datagram the
// conditioner was offered, with its fate, in the conditioner's own counts; read back with
// net/record's keys, it holds every Data packet the client's transport counted: each one sent,
// and each one received once (accepted, or refused as stale or a duplicate).
func TestRecordRealGame(t *testing.T) {
	t.Parallel()
	srv, err := NewServer(game.ServerConfig{Listen: "127.0.0.1:0", Bots: 1, MinPlayers: 1, StartDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "game.pcapng")
	rec, err := record.Create(path, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := linksim.Settings{LossPercent: 10, DupPercent: 5}
	ccfg := game.ClientConfig{Connect: srv.Addr(), Name: "ann", Bot: true, Seed: 2}
	ccfg.Transport.Link = &transport.LinkSettings{Out: bad, In: bad}
	ccfg.Transport.LinkSeed = 7
	ccfg.Transport.Tap, ccfg.Transport.KeyLog = rec, rec.KeyLog
	c, err := NewClient(ccfg)
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, stopServer := context.WithCancel(context.Background())
	srvDone, cDone := make(chan error, 1), make(chan error, 1)
	go func() { srvDone <- srv.Run(srvCtx) }()
	go func() { cDone <- c.Run(context.Background()) }()
	waitUntil(t, "frame 20", func() bool { return c.Snapshot().Frame >= 20 })
	// The server stops first and says goodbye, so that the client's loop ends after it handled
	// every datagram the server sent before (a link without latency keeps their order).
	stopServer()
	if err := <-srvDone; err != nil {
		t.Errorf("server Run: %v", err)
	}
	if err := <-cDone; !errors.Is(err, game.ErrDisconnected) {
		t.Errorf("client Run: %v, want the server's goodbye", err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	report := c.Report()
	if report.Frame < 20 {
		t.Fatalf("the game reached frame %d, want 20", report.Frame)
	}
	linkOut, linkIn, _ := c.sock.LinkStats()

	// The conditioner's counts, from the capture as Wireshark reads it.
	type key struct {
		iface   int
		out     bool
		comment string
	}
	counts := map[key]uint64{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ng, err := pcapgo.NewNgReader(f, pcapgo.NgReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, ci, opts, err := ng.ReadPacketDataWithOptions()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		k := key{iface: ci.InterfaceIndex, out: opts.Flags != nil && opts.Flags.Direction == pcapgo.NgEpbFlagDirectionOutbound}
		if len(opts.Comments) > 0 {
			k.comment = opts.Comments[0]
		}
		counts[k]++
	}
	sent := counts[key{record.IfaceSocket, true, ""}] + counts[key{record.IfaceSocket, true, record.CommentDuplicated}]
	for _, check := range []struct {
		what             string
		capture, counted uint64
	}{
		{"datagrams sent, dropped or not", sent + counts[key{record.IfaceDropped, true, record.CommentDropped}], linkOut.Offered},
		{"datagrams the link dropped on the way out", counts[key{record.IfaceDropped, true, record.CommentDropped}], linkOut.Dropped},
		{"datagrams the link duplicated on the way out", counts[key{record.IfaceSocket, true, record.CommentDuplicated}], linkOut.Duplicated},
		{"datagrams the link dropped on the way in", counts[key{record.IfaceDropped, false, record.CommentDropped}], linkIn.Dropped},
		{"datagrams handed to the client", counts[key{record.IfaceSocket, false, ""}] + counts[key{record.IfaceDropped, false, record.CommentOverflow}], linkIn.Delivered},
		{"datagrams the client's queue had no room for", counts[key{record.IfaceDropped, false, record.CommentOverflow}], report.Rejected.Overflow},
	} {
		if check.capture != check.counted {
			t.Errorf("%s: %d in the capture, %d counted", check.what, check.capture, check.counted)
		}
	}
	if linkOut.Dropped == 0 || linkIn.Dropped == 0 || linkOut.Duplicated+linkIn.Duplicated == 0 {
		t.Errorf("the link lost or duplicated nothing: out %+v, in %+v", linkOut, linkIn)
	}

	// The transport's counts, from the capture opened with its keys.
	all, err := record.ReadAll(path, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	var dataSent, dataReceived uint64
	seen := map[uint64]bool{} // the counters of the server's datagrams the client opened
	received := func(d record.Datagram) {
		if wire.PacketType(d.Packet[0]) == wire.TypeData && !seen[d.Counter] {
			seen[d.Counter] = true // a copy is refused as a replay before the packet layer sees it
			dataReceived++
		}
	}
	keys := false              // the client has its keys: an Accepted reached it
	var early *record.Datagram // the last sealed datagram that came before them
	for _, d := range all {
		if d.Packet == nil {
			t.Fatalf("a datagram of %d bytes that does not open: %+v", len(d.Data), d)
		}
		typ := wire.PacketType(d.Packet[0])
		switch {
		case d.Out:
			if typ == wire.TypeData {
				dataSent++
			}
		case d.Fate != transport.TapPassed:
		case typ == wire.TypeAccepted && !keys:
			// Before its keys the client cannot open what the server sealed (its Accepted was
			// lost); it keeps the last such datagram and opens it now. The capture's key file
			// opens them all.
			keys = true
			if early != nil {
				received(*early)
			}
		case !keys && d.Sealed:
			early = &d
		case keys && d.Sealed:
			received(d)
		}
	}
	net := report.Net
	if dataSent != net.PacketsSent || dataReceived != net.PacketsReceived+net.Stale+net.Duplicate {
		t.Errorf("Data packets in the capture: %d sent, %d received; the transport counted %d sent, %d received + %d stale + %d duplicate",
			dataSent, dataReceived, net.PacketsSent, net.PacketsReceived, net.Stale, net.Duplicate)
	}
}
