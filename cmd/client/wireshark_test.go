package main

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/cmd/internal/capture"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/record"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// The tests of the Wireshark dissector (assets/wireshark/ackattack.lua): tshark runs it on
// captures that --record wrote, and every field it shows is compared with what the Go code
// reads from the same bytes. CI installs tshark (.ci/run); without it they skip, except in CI.

// dissector is the Lua dissector, from this package's directory.
var dissector = filepath.Join("..", "..", "assets", "wireshark", "ackattack.lua")

// tsharkFields runs tshark with the dissector on a capture and its key file and returns, per
// frame, the values of fields (the values of a field that occurs several times joined by
// commas, the fields by "|").
func tsharkFields(t *testing.T, capture string, fields ...string) []string {
	t.Helper()
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tshark is not installed, and CI installs it (.ci/run)")
		}
		t.Skip("tshark is not installed (apt-get install tshark)")
	}
	script, err := filepath.Abs(dissector)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "-X", "lua_script:" + script, "-o", "ackattack.keys:" + record.KeysPath(capture), "-r", capture,
		"-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	cmd := exec.Command(tshark, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no preferences of the machine's user
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "Lua:") || strings.Contains(stderr.String(), "ackattack.lua") {
		t.Fatalf("tshark complains about the dissector:\n%s", stderr.String())
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// TestWiresharkDissectsARecordedGame: a client records a short game with its bot at 10% loss;
// for every frame of the capture, the dissector shows the packet type, the counter it rebuilt
// for a sealed datagram (so it decrypted it with the key file), the Data header's Seq and Ack,
// each message's sequence number and dependencies, the game message types (fragments
// reassembled), the player's name in the handshake, and whether the link dropped it: each the
// value the Go code reads from the same datagram. And it finds no message malformed: every
// field of every game message in the capture read to its end.
func TestWiresharkDissectsARecordedGame(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil && os.Getenv("CI") == "" {
		t.Skip("tshark is not installed (apt-get install tshark)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "game.pcapng")
	var code int
	capture.Output(t, func() {
		// A unit corrupted now and then brings hash requests and unit updates, with units.
		code = run([]string{"--headless", "--bot", "--quiet", "--name", "ann", "--duration", "3s", "--loss", "10",
			"--inject-desync", "300ms", "--log", filepath.Join(dir, "client.log"), "--record", path})
	})
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	want := expectedFields(t, path)
	got := tsharkFields(t, path, "frame.number", "ackattack.type", "ackattack.counter", "ackattack.seq", "ackattack.ack",
		"ackattack.msg.seq", "ackattack.msg.dep", "ackattack.game.type", "ackattack.name", "ackattack.dropped", "ackattack.malformed")
	if len(got) != len(want) {
		t.Fatalf("tshark shows %d frames, the capture holds %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			if bad++; bad <= 10 {
				t.Errorf("frame %d:\n tshark %s\n Go     %s", i+1, got[i], want[i])
			}
		}
	}
	if bad > 10 {
		t.Errorf("and %d more frames", bad-10)
	}
	// What the comparison covered, so that it cannot pass on an empty game.
	var sealed, gameMsgs, dropped int
	for _, line := range want {
		f := strings.Split(line, "|")
		if f[2] != "" {
			sealed++
		}
		if f[7] != "" {
			gameMsgs++
		}
		if f[9] != "" {
			dropped++
		}
	}
	if !strings.HasPrefix(want[0], "1|2|||||||ann|") || sealed < 20 || gameMsgs < 5 || dropped == 0 {
		t.Errorf("a capture of %d frames with %d sealed, %d with game messages, %d dropped; first %q", len(want), sealed, gameMsgs, dropped, want[0])
	}
}

// expectedFields reads the capture with net/record and the Go parsers and writes, per frame,
// the fields tsharkFields asks for, as tshark writes them.
func expectedFields(t *testing.T, path string) []string {
	t.Helper()
	all, err := record.ReadAll(path, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	type fragKey struct {
		dir   string
		seq   uint16
		total uint32
	}
	fragments := map[fragKey]map[uint8][]byte{}
	var lines []string
	for i, d := range all {
		var typ, counter, seq, ack, name, dropped string
		var seqs, deps, types []string
		if d.Fate == transport.TapDropped || d.Fate == transport.TapOverflow {
			dropped = "1"
		}
		if d.Sealed {
			counter = strconv.FormatUint(d.Counter, 10)
		}
		if len(d.Packet) > 0 {
			typ = strconv.Itoa(int(d.Packet[0]))
		}
		switch {
		case len(d.Packet) == 0:
		case wire.PacketType(d.Packet[0]) == wire.TypeConnectRequest:
			m, err := wire.ParseConnectRequest(d.Packet)
			if err != nil {
				t.Fatalf("frame %d: %v", i+1, err)
			}
			name = m.Name
		case wire.PacketType(d.Packet[0]) == wire.TypeChallengeResponse:
			m, err := wire.ParseChallengeResponse(d.Packet)
			if err != nil {
				t.Fatalf("frame %d: %v", i+1, err)
			}
			name = m.Name
		case wire.PacketType(d.Packet[0]) == wire.TypeData:
			h, n, err := wire.ParseHeader(d.Packet)
			if err != nil {
				t.Fatalf("frame %d: %v", i+1, err)
			}
			seq, ack = strconv.Itoa(int(h.Seq)), strconv.Itoa(int(h.Ack))
			src, dst := d.Peer, d.Local
			if d.Out {
				src, dst = dst, src
			}
			dir := src.String() + ">" + dst.String()
			var complete [][]byte
			for rest := d.Packet[n:]; len(rest) > 0; {
				var r wire.Record
				n, err := wire.ParseRecord(rest, &r)
				if err != nil {
					t.Fatalf("frame %d: %v", i+1, err)
				}
				rest = rest[n:]
				if r.Kind != wire.KindUnreliable {
					seqs = append(seqs, strconv.Itoa(int(r.Seq)))
					for _, dep := range r.Deps {
						deps = append(deps, strconv.Itoa(int(dep)))
					}
				}
				switch {
				case r.Kind == wire.KindFragment:
					// The dissector puts a message together from the fragments the capture
					// holds, the first copy of each, and shows it where the last one came.
					k := fragKey{dir, r.Seq, r.TotalLen}
					if fragments[k] == nil {
						fragments[k] = map[uint8][]byte{}
					}
					if _, ok := fragments[k][r.FragIndex]; !ok {
						fragments[k][r.FragIndex] = slices.Clone(r.Payload)
						if len(fragments[k]) == int(r.FragCount) {
							var whole []byte
							for j := range r.FragCount {
								whole = append(whole, fragments[k][j]...)
							}
							complete = append(complete, whole)
							delete(fragments, k)
						}
					}
				case len(r.Payload) > 0:
					types = append(types, gameType(t, r.Payload))
				}
			}
			for _, whole := range complete {
				types = append(types, gameType(t, whole))
			}
		}
		lines = append(lines, strings.Join([]string{strconv.Itoa(i + 1), typ, counter, seq, ack,
			strings.Join(seqs, ","), strings.Join(deps, ","), strings.Join(types, ","), name, dropped, ""}, "|"))
	}
	return lines
}

// gameType is a game message's type as tshark writes it, checked by parsing the message.
func gameType(t *testing.T, payload []byte) string {
	t.Helper()
	m, err := game.ParseMsg(payload)
	if err != nil {
		t.Fatalf("a game message that does not parse: %v (% x)", err, payload)
	}
	return strconv.Itoa(int(m.Type()))
}

// TestWiresharkDissectsTheProtocolExamples: the worked examples of net/PROTOCOL.md, sections 7
// to 9, in a capture: the Challenge in the plain frame, and section 8's Data packet sealed with
// section 9's keys at counters 0 and 1 each way. The dissector's ChaCha20 decrypts them to the
// bytes Go's sealed them from, and shows every field of section 8.
func TestWiresharkDissectsTheProtocolExamples(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil && os.Getenv("CI") == "" {
		t.Skip("tshark is not installed (apt-get install tshark)")
	}
	fromHex := func(s string) []byte {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var toServer, toClient [wire.KeySize]byte
	copy(toServer[:], fromHex("ec34ff33f467e85cd7a703c5f246a640090ff2c3087283a52e77ed70d2af4e2d"))
	copy(toClient[:], fromHex("811632324e87fbabc68fd6ac7e0f6e9051304502b08cabcc535c6456902a3ec8"))
	challenge := fromHex("3da97b30 03 0000018bcfe56800 f0e1d2c3b4a5968778695a4b3c2d1e0f")
	data := fromHex("0110010001 0200050268 69028006000502796f") // section 8, without its checksum

	path := filepath.Join(t.TempDir(), "examples.pcapng")
	r, err := record.Create(path, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client, server := netip.MustParseAddrPort("127.0.0.1:50432"), netip.MustParseAddrPort("127.0.0.1:7777")
	at := time.Unix(1700000000, 0)
	tap := func(out bool, b []byte) {
		r.Tapped(transport.TappedDatagram{At: at, Out: out, Local: client, Peer: server, Data: b})
		at = at.Add(time.Millisecond)
	}
	tap(false, challenge)
	r.KeyLog(transport.ConnKeys{Peer: server, Send: toServer, Recv: toClient})
	for counter := range uint64(2) {
		for _, out := range []bool{true, false} {
			key := map[bool]*[wire.KeySize]byte{true: &toServer, false: &toClient}[out]
			tap(out, wire.NewSealKey(key).Seal(append(wire.BeginSealed(nil), data...), 0, counter))
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got := tsharkFields(t, path, "frame.number", "ackattack.type", "ackattack.checksum", "ackattack.issued", "ackattack.counter",
		"ackattack.seq", "ackattack.ack", "ackattack.ack_bits", "ackattack.msg.seq", "ackattack.msg.dep", "ackattack.payload")
	// frame | type | checksum | issued | counter | seq | ack | ack bits | message seqs | deps | payloads
	want := []string{
		"1|3|0x3da97b30|1700000000000|||||||",
		"2|1|||0|256|255|0xffffffff|5,6|5|6869,796f",
		"3|1|||0|256|255|0xffffffff|5,6|5|6869,796f",
		"4|1|||1|256|255|0xffffffff|5,6|5|6869,796f",
		"5|1|||1|256|255|0xffffffff|5,6|5|6869,796f",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tshark:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDissectorKnowsEveryType: every packet type of net/wire and every game message type of
// game/msg.go has its name in the dissector, and a game message its layout: a type added to
// the Go code and not to the dissector fails here, without tshark.
func TestDissectorKnowsEveryType(t *testing.T) {
	b, err := os.ReadFile(dissector)
	if err != nil {
		t.Fatal(err)
	}
	lua := string(b)
	table := func(name string) string { // the Lua table `local name = { ... }`
		start := strings.Index(lua, "local "+name+" = {")
		if start < 0 {
			t.Fatalf("the dissector has no table %s", name)
		}
		end := strings.Index(lua[start:], "\n}")
		return lua[start : start+end]
	}
	packets, msgs, layouts := table("packet_types"), table("msg_types"), table("layouts")
	for i := 1; i < 256; i++ {
		if name := wire.PacketType(i).String(); !strings.Contains(name, "(") && !strings.Contains(packets, fmt.Sprintf("[%d] = %q", i, name)) {
			t.Errorf("packet type %d %s is not in the dissector's packet_types", i, name)
		}
		name := game.MsgType(i).String()
		if strings.HasPrefix(name, "MsgType(") {
			continue
		}
		if !strings.Contains(msgs, fmt.Sprintf("[%d] = %q", i, name)) {
			t.Errorf("game message %d %s is not in the dissector's msg_types", i, name)
		}
		if !strings.Contains(layouts, fmt.Sprintf("\t[%d] = {", i)) {
			t.Errorf("game message %d %s has no layout in the dissector", i, name)
		}
	}
}
