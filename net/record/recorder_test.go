package record

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"
	"go.uber.org/goleak"

	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

var (
	clientAddr = netip.MustParseAddrPort("127.0.0.1:50432")
	serverAddr = netip.MustParseAddrPort("127.0.0.1:7777")
	epoch      = time.Unix(1700000000, 0)
)

// conversation is what the test hosts' socket saw: a client's, on the addresses and keys of
// exampleKeys.
type conversation struct {
	tapped  []transport.TappedDatagram
	packets [][]byte // the packet inside each, from its type byte on
	sealed  []bool
}

// newConversation builds a client's traffic: the handshake's plain datagrams, then sealed
// ones both ways, with every fate a datagram can meet.
func newConversation(t *testing.T) *conversation {
	t.Helper()
	c := &conversation{}
	toServer, toClient := wire.NewSealKey(&exampleKeys[0].Key), wire.NewSealKey(&exampleKeys[1].Key)
	var sentSealed, gotSealed uint64
	add := func(out bool, fate transport.TapFate, sealed bool, packet []byte) {
		var d []byte
		switch {
		case !sealed:
			d = append(wire.BeginDatagram(nil), packet...)
			wire.SealDatagram(d, 0)
		case out:
			d = toServer.Seal(append(wire.BeginSealed(nil), packet...), 0, sentSealed)
			sentSealed++
		default:
			d = toClient.Seal(append(wire.BeginSealed(nil), packet...), 0, gotSealed)
			gotSealed++
		}
		at := epoch.Add(time.Duration(len(c.tapped)) * time.Millisecond)
		c.tapped = append(c.tapped, transport.TappedDatagram{At: at, Out: out, Fate: fate, Local: clientAddr, Peer: serverAddr, Data: d})
		c.packets = append(c.packets, packet)
		c.sealed = append(c.sealed, sealed)
	}
	req, err := wire.AppendConnectRequest(nil, &wire.ConnectRequest{Version: wire.ProtocolVersion, Player: wire.PlayerID{1}, Name: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	add(true, transport.TapPassed, false, req)
	add(false, transport.TapPassed, false, wire.AppendChallenge(nil, &wire.Challenge{Issued: 1700000000000}))
	data := func(seq uint16) []byte {
		return wire.AppendHeader(nil, wire.Header{Type: wire.TypeData, Seq: seq, AckBits: 0})
	}
	add(true, transport.TapPassed, true, data(0))
	add(true, transport.TapDropped, true, data(1))
	add(true, transport.TapDuplicated, true, data(2))
	add(false, transport.TapDropped, true, data(0))
	add(false, transport.TapPassed, true, data(1))
	add(false, transport.TapOverflow, true, data(2))
	add(true, transport.TapPassed, true, wire.AppendPing(nil, &wire.Ping{ID: 7, T0: 42}))
	return c
}

// record gives the conversation and the keys to r, as a socket and an endpoint would.
func (c *conversation) record(r *Recorder) {
	for i, d := range c.tapped {
		if i == 2 { // the first sealed datagram: the keys are known by now
			r.KeyLog(transport.ConnKeys{Peer: serverAddr, Send: exampleKeys[0].Key, Recv: exampleKeys[1].Key})
		}
		r.Tapped(d)
	}
}

// recordToFile records a conversation to a capture file with o, and closes the Recorder.
func recordToFile(t *testing.T, o Options) (path string, r *Recorder, c *conversation) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "game.pcapng")
	r, err := Create(path, o)
	if err != nil {
		t.Fatal(err)
	}
	c = newConversation(t)
	c.record(r)
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return path, r, c
}

// TestRecordAndReadBack: a conversation recorded, read back by pcapgo as Wireshark would see it
// (interfaces, directions, comments, raw IP), and by Reader with every sealed datagram opened,
// the dropped ones too.
func TestRecordAndReadBack(t *testing.T) {
	defer goleak.VerifyNone(t)
	path, r, c := recordToFile(t, Options{})
	st := r.Stats()
	if st.Written != uint64(len(c.tapped)) || st.Lost() != 0 || st.Keys != 2 {
		t.Errorf("stats %+v, want %d written, none lost, 2 keys", st, len(c.tapped))
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != st.Bytes {
		t.Errorf("capture of %v bytes (%v), stats say %d", fi.Size(), err, st.Bytes)
	}
	if fi, err := os.Stat(KeysPath(path)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v; want mode 0600", fi.Mode(), err)
	}

	// As Wireshark sees it.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ng, err := pcapgo.NewNgReader(f, pcapgo.NgReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		data, ci, opts, err := ng.ReadPacketDataWithOptions()
		if errors.Is(err, io.EOF) {
			if i != len(c.tapped) {
				t.Errorf("%d packets, want %d", i, len(c.tapped))
			}
			if ng.NInterfaces() != 2 {
				t.Errorf("%d interfaces, want 2", ng.NInterfaces())
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		td := c.tapped[i]
		wantIface, wantComment := IfaceSocket, ""
		switch td.Fate {
		case transport.TapDropped:
			wantIface, wantComment = IfaceDropped, CommentDropped
		case transport.TapOverflow:
			wantIface, wantComment = IfaceDropped, CommentOverflow
		case transport.TapDuplicated:
			wantComment = CommentDuplicated
		}
		wantDir := pcapgo.NgEpbFlagDirectionInbound
		if td.Out {
			wantDir = pcapgo.NgEpbFlagDirectionOutbound
		}
		comment := strings.Join(opts.Comments, "|")
		if ci.InterfaceIndex != wantIface || comment != wantComment || opts.Flags == nil || opts.Flags.Direction != wantDir || !ci.Timestamp.Equal(td.At) {
			t.Errorf("packet %d: interface %d, comment %q, flags %+v, at %v; want %d, %q, direction %v, at %v",
				i, ci.InterfaceIndex, comment, opts.Flags, ci.Timestamp, wantIface, wantComment, wantDir, td.At)
		}
		src, dst, payload, err := parseFrame(data)
		wantSrc, wantDst := serverAddr, clientAddr
		if td.Out {
			wantSrc, wantDst = clientAddr, serverAddr
		}
		if err != nil || src != wantSrc || dst != wantDst || !bytes.Equal(payload, td.Data) {
			t.Errorf("packet %d: %v → %v, %d bytes (%v); want %v → %v, %d bytes", i, src, dst, len(payload), err, wantSrc, wantDst, len(td.Data))
		}
	}

	// As a replay reads it.
	all, err := ReadAll(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(c.tapped) {
		t.Fatalf("ReadAll: %d datagrams, want %d", len(all), len(c.tapped))
	}
	for i, d := range all {
		td := c.tapped[i]
		if d.Out != td.Out || d.Fate != td.Fate || d.Local != clientAddr || d.Peer != serverAddr || !d.At.Equal(td.At) || !bytes.Equal(d.Data, td.Data) {
			t.Errorf("datagram %d: %+v; want %+v", i, d, td)
		}
		if !bytes.Equal(d.Packet, c.packets[i]) || d.Sealed != c.sealed[i] {
			t.Errorf("datagram %d: packet %x (sealed %v), want %x (sealed %v)", i, d.Packet, d.Sealed, c.packets[i], c.sealed[i])
		}
	}
	if ctr := all[4].Counter; ctr != 2 {
		t.Errorf("third datagram sealed by the client: counter %d, want 2 (the dropped one was 1)", ctr)
	}
}

// TestReadWithoutKeys: without the key file the sealed datagrams stay closed, and the
// handshake still reads.
func TestReadWithoutKeys(t *testing.T) {
	path, _, c := recordToFile(t, Options{})
	if err := os.Remove(KeysPath(path)); err != nil {
		t.Fatal(err)
	}
	all, err := ReadAll(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range all {
		if opened := d.Packet != nil; opened != !c.sealed[i] || d.Sealed {
			t.Errorf("datagram %d: opened %v (sealed %v) without keys; want only the plain ones opened", i, opened, d.Sealed)
		}
	}
}

// TestRecorderLimit: a capture stops at its limit, counts what it could not hold, and is whole.
func TestRecorderLimit(t *testing.T) {
	// Room for the headers, the 1200-byte request and a few small datagrams. A capture at its
	// limit is no error: recordToFile's Close succeeds.
	const limit = 2000
	path, r, c := recordToFile(t, Options{Limit: limit})
	st := r.Stats()
	if st.Written == 0 || st.OverLimit == 0 || st.Written+st.OverLimit != uint64(len(c.tapped)) {
		t.Errorf("stats %+v: want some written, the rest over the limit, %d in all", st, len(c.tapped))
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > limit || fi.Size() != st.Bytes {
		t.Errorf("capture of %d bytes (%v), limit %d, stats %d", fi.Size(), err, limit, st.Bytes)
	}
	all, err := ReadAll(path, 100)
	if err != nil || uint64(len(all)) != st.Written {
		t.Errorf("read back %d datagrams (%v), want %d", len(all), err, st.Written)
	}
}

// fullDisk is a file that takes room bytes and then fails as a full disk does.
type fullDisk struct {
	room int
	got  bytes.Buffer
}

var errNoSpace = errors.New("no space left on device")

func (d *fullDisk) Write(b []byte) (int, error) {
	if len(b) > d.room {
		n := d.room
		d.got.Write(b[:n])
		d.room = 0
		return n, errNoSpace
	}
	d.room -= len(b)
	return d.got.Write(b)
}

// TestRecorderFullDisk: a capture or key file that cannot be written is an error from Close,
// naming the file's trouble; the datagrams after it are counted; nothing panics.
func TestRecorderFullDisk(t *testing.T) {
	defer goleak.VerifyNone(t)
	disk := &fullDisk{room: 6000}
	keys := &fullDisk{room: len(keyFileHeader) + 10}
	r, err := New(disk, keys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newConversation(t)
	for range 5 {
		c.record(r)
	}
	err = r.Close()
	if !errors.Is(err, errNoSpace) || !strings.Contains(err.Error(), "writing the capture") || !strings.Contains(err.Error(), "writing the key file") {
		t.Errorf("Close = %v, want the capture's and the key file's write errors", err)
	}
	st := r.Stats()
	if st.Failed == 0 || st.Written+st.Failed != 5*uint64(len(c.tapped)) {
		t.Errorf("stats %+v: want every datagram written or counted as failed", st)
	}
	r.Tapped(c.tapped[0]) // after Close: ignored
}

// blockingDisk blocks every write after the first until release is closed.
type blockingDisk struct {
	writes  int
	release chan struct{}
}

func (d *blockingDisk) Write(b []byte) (int, error) {
	d.writes++
	if d.writes > 1 {
		<-d.release
	}
	return len(b), nil
}

// TestRecorderNeverBlocks: with the writer stuck on a slow disk, Tapped returns at once and
// counts what the queue cannot hold; once the disk moves, the rest is written.
func TestRecorderNeverBlocks(t *testing.T) {
	defer goleak.VerifyNone(t)
	disk := &blockingDisk{release: make(chan struct{})}
	r, err := New(disk, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := transport.TappedDatagram{At: epoch, Out: true, Local: clientAddr, Peer: serverAddr, Data: make([]byte, 1000)}
	const n = 2 * queueSize
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range n {
			r.Tapped(big)
		}
	}()
	wg.Wait() // returns although the disk never took a byte
	close(disk.release)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.QueueFull == 0 || st.Written+st.QueueFull != n {
		t.Errorf("stats %+v: want some lost to the full queue, the rest written, %d in all", st, n)
	}
}
