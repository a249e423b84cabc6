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

// record gives the conversation and the keys to r, as a socket and an endpoint would: the
// keys before the first sealed datagram.
func (c *conversation) record(r *Recorder) { c.recordKeysAt(r, 2) }

// recordKeysAt gives the conversation to r with the keys before datagram i.
func (c *conversation) recordKeysAt(r *Recorder, i int) {
	for k, d := range c.tapped {
		if k == i {
			logKeys(r)
		}
		r.Tapped(d)
	}
}

// logKeys gives r the keys of the conversation's connection.
func logKeys(r *Recorder) {
	r.KeyLog(transport.ConnKeys{Peer: serverAddr, Send: exampleKeys[0].Key, Recv: exampleKeys[1].Key})
}

// checkOpened checks that the sealed datagrams of the conversation read back opened, and the
// plain ones read.
func checkOpened(t *testing.T, all []Datagram, c *conversation) {
	t.Helper()
	if len(all) != len(c.tapped) {
		t.Fatalf("%d datagrams, want %d", len(all), len(c.tapped))
	}
	for i, d := range all {
		if !bytes.Equal(d.Packet, c.packets[i]) || d.Sealed != c.sealed[i] {
			t.Errorf("datagram %d: packet %x (sealed %v), want %x (sealed %v)", i, d.Packet, d.Sealed, c.packets[i], c.sealed[i])
		}
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

// TestKeysBeforeAnyDatagram: keys logged before the recorder saw a datagram wait for the
// first one, whose address their lines then name, so the capture opens as if they had come
// later; keys of a recorder that never saw a datagram are written at Close with an
// unspecified local address, and the key file still reads.
func TestKeysBeforeAnyDatagram(t *testing.T) {
	defer goleak.VerifyNone(t)
	path := filepath.Join(t.TempDir(), "game.pcapng")
	r, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newConversation(t)
	c.recordKeysAt(r, 0)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Keys != 2 {
		t.Errorf("%d key lines, want 2", st.Keys)
	}
	all, err := ReadAll(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	checkOpened(t, all, c)

	var keys bytes.Buffer
	r, err = New(io.Discard, &keys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	logKeys(r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ParseKeys(&keys)
	local := netip.MustParseAddrPort("0.0.0.0:0")
	if err != nil || len(got) != 2 || got[0].From != local || got[0].To != serverAddr || got[1].From != serverAddr || got[1].To != local {
		t.Errorf("keys of a recorder without datagrams: %+v, %v; want two lines between %v and %v", got, err, local, serverAddr)
	}
}

// TestOpenSkipsABadKeyLine: a key line that breaks the format (here one with an empty address,
// as an older recorder wrote for keys logged before any datagram) is skipped and counted, and
// the rest of the key file still opens the capture.
func TestOpenSkipsABadKeyLine(t *testing.T) {
	path, _, c := recordToFile(t, Options{})
	f, err := os.OpenFile(KeysPath(path), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	bad := "ACKATTACK_KEY 1700000000000000000 127.0.0.1:7777 " + strings.Repeat("00", 32) + "\n"
	if _, err := f.WriteString(bad); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := Open(path)
	if err != nil {
		t.Fatalf("Open refuses the capture for one bad key line: %v", err)
	}
	n, lineErr := r.SkippedKeyLines()
	r.Close()
	if n != 1 || !errors.Is(lineErr, ErrKeyFile) || !strings.Contains(lineErr.Error(), "line 6") {
		t.Errorf("skipped %d key lines (%v), want 1 naming line 6", n, lineErr)
	}
	all, err := ReadAll(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	checkOpened(t, all, c)
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
