package main

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/replay"
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
	tshark := tsharkPath(t)
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

// tsharkPath is where tshark is. Without it the test skips, except in CI, which installs it
// (.ci/run).
func tsharkPath(t *testing.T) string {
	t.Helper()
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tshark is not installed, and CI installs it (.ci/run)")
		}
		t.Skip("tshark is not installed (apt-get install tshark)")
	}
	return tshark
}

// TestREADMETsharkOpensTheClassCapture: the tshark command of the README's class, as written
// there (its code block, run from the repository's root, with a fresh capture in place of
// class.pcapng), opens every sealed datagram with the key file beside the capture: none is
// shown sealed without a key, and the dissector marks as opened as many as the capture holds.
func TestREADMETsharkOpensTheClassCapture(t *testing.T) {
	tshark := tsharkPath(t)
	t.Parallel()
	args := readmeCommand(t, "tshark", "class.pcapng")
	dir := t.TempDir()
	path := filepath.Join(dir, "class.pcapng")
	r := startClient(t, "--headless", "--bot", "--name", "ann", "--loss", "10", "--log", filepath.Join(dir, "client.log"), "--record", path)
	r.waitFrame(20, "")
	if code, _, stderr := r.interrupt(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr)
	}
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "class.pcapng", path)
	}
	run := func(extra ...string) string {
		cmd := exec.Command(tshark, append(slices.Clone(args), extra...)...)
		cmd.Dir = filepath.Join("..", "..") // the README's commands run from the repository's root
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || strings.Contains(stderr.String(), "Lua:") {
			t.Fatalf("tshark %q: %v\n%s", cmd.Args[1:], err, stderr.String())
		}
		return string(out)
	}
	if out := run(); strings.Contains(out, "no key") || !strings.Contains(out, "AckAttack") {
		t.Errorf("the README's command shows datagrams it could not open, or none of the game's:\n%s", out)
	}
	all, sealed := readCapture(t, path)
	opened, shut := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(run("-T", "fields", "-e", "ackattack.opened")), "\n") {
		switch line {
		case "1", "True":
			opened++
		case "0", "False":
			shut++
		}
	}
	t.Logf("%d datagrams, %d sealed, %d opened by the README's command", len(all), sealed, opened)
	if sealed < 20 || opened != sealed || shut != 0 {
		t.Errorf("the capture holds %d sealed datagrams; the README's command opened %d, and %d not", sealed, opened, shut)
	}
}

// readCapture reads the capture at path with net/record and counts its sealed datagrams.
func readCapture(t *testing.T, path string) (all []record.Datagram, sealed int) {
	t.Helper()
	all, err := record.ReadAll(path, replay.MaxDatagrams)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		if d.Sealed {
			sealed++
		}
	}
	return all, sealed
}

// readmeCommand is the command line in a code block of the README that starts with name and
// names file, split at its spaces (the README's commands quote nothing).
func readmeCommand(t *testing.T, name, file string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	inBlock := false
	for line := range strings.Lines(string(b)) {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock
		case inBlock && strings.HasPrefix(line, name+" ") && strings.Contains(line, file):
			return strings.Fields(line)[1:]
		}
	}
	t.Fatalf("README.md has no %s command on %s in a code block", name, file)
	return nil
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
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "game.pcapng")
	// A unit corrupted now and then brings hash requests and unit updates, with units.
	r := startClient(t, "--headless", "--bot", "--name", "ann", "--loss", "10",
		"--inject-desync", "300ms", "--log", filepath.Join(dir, "client.log"), "--record", path)
	r.waitFrame(20, "")
	if code, _, stderr := r.interrupt(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr)
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
				case r.Kind == wire.KindFragment && dropped != "":
					// Never reached the other side: the dissector collects no fragment of it.
				case r.Kind == wire.KindFragment:
					// The dissector puts a message together from the fragments the capture
					// holds that reached the other side, the first copy of each, and shows it
					// where the last one came.
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

// fromHex reads hex digits, with or without spaces between them.
func fromHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// examplePacket is one datagram of a capture written by exampleCapture: a packet sealed with
// its direction's key, or a plain datagram as it is.
type examplePacket struct {
	out   bool // client to server
	plain bool // data is the whole datagram, sent as it is (the handshake's)
	fate  transport.TapFate
	data  []byte
}

// exampleCapture writes a capture at path of a client at 127.0.0.1:50432 and a server at
// 127.0.0.1:7777 exchanging packets, a millisecond apart, with net/PROTOCOL.md section 9's keys
// in its key file: each sealed packet at its direction's next counter, 0 first.
func exampleCapture(t *testing.T, path string, packets []examplePacket) {
	t.Helper()
	var toServer, toClient [wire.KeySize]byte
	copy(toServer[:], fromHex(t, "ec34ff33f467e85cd7a703c5f246a640090ff2c3087283a52e77ed70d2af4e2d"))
	copy(toClient[:], fromHex(t, "811632324e87fbabc68fd6ac7e0f6e9051304502b08cabcc535c6456902a3ec8"))
	r, err := record.Create(path, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client, server := netip.MustParseAddrPort("127.0.0.1:50432"), netip.MustParseAddrPort("127.0.0.1:7777")
	at := time.Unix(1700000000, 0)
	counters := map[bool]uint64{}
	for i, p := range packets {
		b := p.data
		if !p.plain {
			key := map[bool]*[wire.KeySize]byte{true: &toServer, false: &toClient}[p.out]
			b = wire.NewSealKey(key).Seal(append(wire.BeginSealed(nil), p.data...), 0, counters[p.out])
			counters[p.out]++
		}
		r.Tapped(transport.TappedDatagram{At: at, Out: p.out, Fate: p.fate, Local: client, Peer: server, Data: b})
		at = at.Add(time.Millisecond)
		if i == 0 { // the recorder learns its local address from the first datagram
			r.KeyLog(transport.ConnKeys{Peer: server, Send: toServer, Recv: toClient})
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWiresharkDissectsTheProtocolExamples: the worked examples of net/PROTOCOL.md, sections 7
// to 9, in a capture: the Challenge in the plain frame, and section 8's Data packet sealed with
// section 9's keys at counters 0 and 1 each way. The dissector's ChaCha20 decrypts them to the
// bytes Go's sealed them from, and shows every field of section 8.
func TestWiresharkDissectsTheProtocolExamples(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil && os.Getenv("CI") == "" {
		t.Skip("tshark is not installed (apt-get install tshark)")
	}
	challenge := fromHex(t, "3da97b30 03 0000018bcfe56800 f0e1d2c3b4a5968778695a4b3c2d1e0f")
	data := fromHex(t, "0110010001 0200050268 69028006000502796f") // section 8, without its checksum
	path := filepath.Join(t.TempDir(), "examples.pcapng")
	packets := []examplePacket{{plain: true, data: challenge}}
	for range 2 {
		packets = append(packets, examplePacket{out: true, data: data}, examplePacket{data: data})
	}
	exampleCapture(t, path, packets)
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

// gameExamples are the rows of game/PROTOCOL.md section 4: a whole game message each.
func gameExamples(t *testing.T) []gameExample {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "game", "PROTOCOL.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## 4. Examples")
	end := strings.Index(doc, "\n## 5.")
	if start < 0 || end < start {
		t.Fatal("game/PROTOCOL.md has no section 4, Examples, before section 5")
	}
	var rows []gameExample
	for _, m := range regexp.MustCompile("(?m)^\\| (\\w+) \\| ([^|]+) \\| `([0-9a-f ]+)` \\|$").FindAllStringSubmatch(doc[start:end], -1) {
		rows = append(rows, gameExample{msg: m[1], value: m[2], bytes: fromHex(t, m[3])})
	}
	return rows
}

// gameExample is a row of game/PROTOCOL.md section 4.
type gameExample struct {
	msg, value string
	bytes      []byte
}

// gameExampleFields are, for every row of game/PROTOCOL.md section 4 (by its message and value
// columns), fields the dissector must show for the row's bytes, as tshark writes them (after
// "ackattack."; a field that occurs several times has its values joined by commas): what the
// value column says.
var gameExampleFields = []struct {
	msg, value string
	fields     map[string]string
}{
	{"PlayerInfo", `seat 1, player 00112233…ff, "Ada", connected`, map[string]string{"game.playerinfo.seat": "1",
		"game.playerinfo.player": "00112233445566778899aabbccddeeff", "game.playerinfo.name": "Ada",
		"game.playerinfo.flags.connected": "1", "game.playerinfo.flags.bot": "0"}},
	{"StartGame", `map "skirmish", seed 0x0123456789abcdef, frame 0, 100 ms, lead 3, seats 0, 2, 5`, map[string]string{
		"game.startgame.map": "skirmish", "game.startgame.seed": "0x0123456789abcdef", "game.startgame.frame": "0",
		"game.startgame.frame_ms": "100", "game.startgame.lead_frames": "3", "game.startgame.seats.seat": "0,2,5",
		"game.startgame.flags": ""}},
	{"StartGame", `map "skirmish", seed 0x0123456789abcdef, frame 0, 100 ms, lead 3 fixed by the teacher, seats 0, 2, 5`, map[string]string{
		"game.startgame.lead_frames": "3", "game.startgame.seats.seat": "0,2,5", "game.startgame.flags": "1",
		"game.startgame.flags.lead_fixed": "1"}},
	{"Command", "seat 2, id 5, frame 200, move units 3 and 4 to (40, 12)", map[string]string{"game.command.seat": "2",
		"game.command.id": "5", "game.command.frame": "200", "game.command.kind": "1", "game.command.units.unit": "3,4",
		"game.command.x": "40", "game.command.y": "12"}},
	{"Command", "seat 7, id 16384, frame 1,073,741,823, attack: unit 10000 on 10001 (x and y 0)", map[string]string{
		"game.command.seat": "7", "game.command.id": "16384", "game.command.frame": "1073741823", "game.command.kind": "2",
		"game.command.units.unit": "10000", "game.command.target": "10001"}},
	{"Command", "seat 1, id 1, frame 1, move unit 1 to (−64, 8191)", map[string]string{"game.command.x": "-64", "game.command.y": "8191"}},
	{"Command", "seat 2, id 5, frame 200, stop unit 3, sent directly to seats 0, 1 and 7", map[string]string{"game.command.kind": "3",
		"game.command.direct": "131", "game.command.direct.seat0": "1", "game.command.direct.seat1": "1",
		"game.command.direct.seat2": "0", "game.command.direct.seat7": "1"}},
	{"SpawnEnemy", "frame 300, id 10000, kind 2 at (5, −3)", map[string]string{"game.spawnenemy.frame": "300",
		"game.spawnenemy.id": "10000", "game.spawnenemy.kind": "2", "game.spawnenemy.x": "5", "game.spawnenemy.y": "-3"}},
	{"KillEnemy", "frame 300, id 10000", map[string]string{"game.killenemy.frame": "300", "game.killenemy.id": "10000"}},
	{"Chat", `seat 3, line 1, "gg"`, map[string]string{"game.chat.seat": "3", "game.chat.line": "1", "game.chat.text": "gg"}},
	{"LeadTime", "from frame 250, 4 frames", map[string]string{"game.leadtime.frame": "250", "game.leadtime.lead_frames": "4",
		"game.leadtime.flags": ""}},
	{"LeadTime", "from frame 250, 3 frames fixed by the teacher", map[string]string{"game.leadtime.frame": "250",
		"game.leadtime.lead_frames": "3", "game.leadtime.flags": "1", "game.leadtime.flags.fixed": "1"}},
	{"PingSummary", "45 ms average, 30 ms smallest, 120 ms largest, 2.5 % loss", map[string]string{
		"game.pingsummary.avg_rtt_us": "45000", "game.pingsummary.min_rtt_us": "30000",
		"game.pingsummary.max_rtt_us": "120000", "game.pingsummary.loss_permille": "25"}},
	{"HashReport", "frame 120, no unit: root 0; state hash 0xfedcba9876543210; inputs' digest 0x0badf00d; locator all 0", map[string]string{
		"game.hashreport.frame": "120", "game.hashreport.root": "0x0000000000000000",
		"game.hashreport.state_hash": "0xfedcba9876543210", "game.hashreport.inputs": "0x0badf00d",
		"game.hashreport.locator_bit0": "0", "game.hashreport.locator_bit5": "0"}},
	{"HashReport", "frame 120: root 0x1122334455667788; state hash 0xfedcba9876543210; inputs' digest 0x01020304; locator 6699, 5, 0, 1000, 0, 16383", map[string]string{
		"game.hashreport.frame": "120", "game.hashreport.root": "0x1122334455667788",
		"game.hashreport.state_hash": "0xfedcba9876543210", "game.hashreport.inputs": "0x01020304",
		"game.hashreport.locator_bit0": "6699", "game.hashreport.locator_bit1": "5", "game.hashreport.locator_bit2": "0",
		"game.hashreport.locator_bit3": "1000", "game.hashreport.locator_bit4": "0", "game.hashreport.locator_bit5": "16383"}},
	{"HashRequest", "frame 120, ids 1..5", map[string]string{"game.hashrequest.frame": "120",
		"game.hashrequest.ranges.start": "1", "game.hashrequest.ranges.end": "5", "game.hashrequest.hashes": ""}},
	{"HashRequest", "frame 120, ids 1..200 where the server's hash is 0x1122334455667788, ids 201..1,073,741,823 where it is 0",
		map[string]string{"game.hashrequest.frame": "120", "game.hashrequest.ranges.start": "1,201",
			"game.hashrequest.ranges.end": "200,1073741823", "game.hashrequest.hashes": "2",
			"game.hashrequest.hashes.hash": "0x1122334455667788,0x0000000000000000"}},
	{"UnitHashes", "frame 120, unit 3 hash 0xdeadbeef00000001", map[string]string{"game.unithashes.frame": "120",
		"game.unithashes.hashes.id": "3", "game.unithashes.hashes.hash": "0xdeadbeef00000001", "game.unithashes.skipped": ""}},
	{"UnitHashes", "frame 120, unit 3 hash 0xdeadbeef00000001; ids 4..200 and 201..1,073,741,823 left out, their hashes equal",
		map[string]string{"game.unithashes.hashes.id": "3", "game.unithashes.skipped": "2",
			"game.unithashes.skipped.start": "4,201", "game.unithashes.skipped.end": "200,1073741823"}},
	{"UnitUpdate", "frame 121, unit 3 moving to (12, 20); unit 10002 removed; found in seat 1's report of frame 118, where unit 3's hash was 0x0123456789abcdef",
		map[string]string{"game.unitupdate.frame": "121", "unit.id": "3", "unit.x": "10", "unit.y": "20", "unit.hp": "50",
			"unit.target_x": "12", "unit.target_y": "20", "unit.move_progress": "40", "game.unitupdate.removed.id": "10002",
			"game.unitupdate.seat": "1", "game.unitupdate.checked": "118", "game.unitupdate.hashes.hash": "0x0123456789abcdef",
			"game.unitupdate.state": "", "game.unitupdate.state_hash": ""}},
	{"UnitUpdate", "frame 121, the world's state alone: the core state of section 5's example (next id 11, next attack id 2, the generator, one arrow); found in seat 1's report of frame 118, where the server's state hash was 0x0123456789abcdef",
		map[string]string{"game.unitupdate.frame": "121", "game.unitupdate.units": "0", "game.unitupdate.seat": "1",
			"game.unitupdate.checked": "118", "game.unitupdate.hashes": "0",
			"game.unitupdate.state":      "0b02147063673a402119bdbf870fd3d5a610ff03b67bf7010102" + "09a71096" + "76815e078096",
			"game.unitupdate.state_hash": "0x0123456789abcdef"}},
	{"Pause", "frame 500", map[string]string{"game.pause.frame": "500"}},
	{"WorldHashes", "frame 500, unit 1 hash 1, unit 2 hash 2, attacks hash all ones", map[string]string{
		"game.worldhashes.frame": "500", "game.worldhashes.hashes.id": "1,2",
		"game.worldhashes.hashes.hash": "0x0000000000000001,0x0000000000000002", "game.worldhashes.attacks_hash": "0xffffffffffffffff"}},
	{"ResyncBatch", "frame 500, batch 0, no units, one attack in flight", map[string]string{"game.resyncbatch.frame": "500",
		"game.resyncbatch.batch": "0", "game.resyncbatch.units": "0", "game.resyncbatch.flags.has_attacks": "1",
		"game.resyncbatch.attacks": "1", "attack.id": "7", "attack.target": "10000", "attack.y": "-250", "attack.speed": "150"}},
	{"ResyncBatch", "frame 500, batch 1, unit 5 removed, no attack list", map[string]string{"game.resyncbatch.batch": "1",
		"game.resyncbatch.removed.id": "5", "game.resyncbatch.flags.has_attacks": "0", "game.resyncbatch.attacks": ""}},
	{"BatchApplied", "frame 500, batch 1", map[string]string{"game.batchapplied.frame": "500", "game.batchapplied.batch": "1"}},
	{"Resume", "frame 500, after 250 ms", map[string]string{"game.resume.frame": "500", "game.resume.after_ms": "250"}},
	{"FrameSync", "frame 1000, clock 1,700,000,000.123456789 s", map[string]string{"game.framesync.frame": "1000",
		"game.framesync.server_unix_ns": "1700000000123456789"}},
	{"Peers", "seat 0 at 192.0.2.1:4000 with key 11 11 … 11, seat 3 at [2001:db8::1]:4001 with key 00 01 … 1f", map[string]string{
		"game.peers.peers": "2", "game.peers.peers.seat": "0,3", "game.peers.peers.addr": "192.0.2.1,2001:db8::1",
		"game.peers.peers.port": "4000,4001",
		"game.peers.peers.key":  strings.Repeat("11", 32) + ",000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"}},
	{"Peers", "none (a client's: it takes direct links)", map[string]string{"game.peers.peers": "0", "game.peers.peers.seat": ""}},
	{"PlayerSecret", "secret 00 01 … 1f", map[string]string{"game.playersecret.secret": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"}},
	{"Challenge", "nonce 10 11 … 1f", map[string]string{"game.challenge.nonce": "101112131415161718191a1b1c1d1e1f"}},
	{"Proof", "MAC 11 11 … 11", map[string]string{"game.proof.mac": strings.Repeat("11", 32)}},
	{"Reinforce", "frame 300, seats 1 and 4", map[string]string{"game.reinforce.frame": "300", "game.reinforce.seats.seat": "1,4"}},
	{"NewRound", "frame 1200, round 2, seed 0x0123456789abcdef, seats 0, 2, 5", map[string]string{"game.newround.frame": "1200",
		"game.newround.round": "2", "game.newround.seed": "0x0123456789abcdef", "game.newround.seats.seat": "0,2,5"}},
	{"ClassLink", "10% loss, 75 ms latency", map[string]string{"game.classlink.loss_permille": "100",
		"game.classlink.burst_permille": "0", "game.classlink.latency_ms": "75", "game.classlink.jitter_ms": "0", "game.classlink.dup_permille": "0"}},
	{"ClassLink", "bad Wi-Fi: 2% loss, bursts of 4 starting at 5%, 20 ms latency, 40 ms jitter, 1% duplication", map[string]string{
		"game.classlink.loss_permille": "20", "game.classlink.burst_permille": "50", "game.classlink.burst_length": "4",
		"game.classlink.latency_ms": "20", "game.classlink.jitter_ms": "40", "game.classlink.dup_permille": "10"}},
	{"Spectate", "spectator 3, every seat was taken, spectator chat off", map[string]string{"game.spectate.number": "3",
		"game.spectate.why": "2", "game.spectate.flags.chat_off": "1", "game.spectate.refused": "0", "game.spectate.refused_why": "0"}},
	{"Spectate", "spectator 32, it asked, 5 lines refused, the latest too fast", map[string]string{"game.spectate.number": "32",
		"game.spectate.why": "1", "game.spectate.flags.chat_off": "0", "game.spectate.refused": "5", "game.spectate.refused_why": "2"}},
	{"Spectate", "spectator 258, the last place, it asked", map[string]string{"game.spectate.number": "258",
		"game.spectate.why": "1", "game.spectate.flags.chat_off": "0", "game.spectate.refused": "0", "game.spectate.refused_why": "0"}},
	{"SpectatorChat", `from spectator 3: line 1, "gg"`, map[string]string{"game.spectatorchat.spectator": "3",
		"game.spectatorchat.name": "", "game.spectatorchat.line": "1", "game.spectatorchat.text": "gg"}},
	{"SpectatorChat", `relayed: spectator 3, "eve", line 128, "gg"`, map[string]string{"game.spectatorchat.spectator": "3",
		"game.spectatorchat.name": "eve", "game.spectatorchat.line": "128", "game.spectatorchat.text": "gg"}},
	{"LinkLost", "the link with seat 5, stalled with commands 200 to 203 unacknowledged", map[string]string{"game.linklost.seat": "5", "game.linklost.why": "2",
		"game.linklost.from": "200", "game.linklost.to": "203"}},
}

// TestWiresharkDissectsTheGameExamples: every example of game/PROTOCOL.md section 4, each the
// payload of a guaranteed record in a sealed Data packet of a capture: the dissector names its
// type, reads it to its end, and shows the field values its row says (gameExampleFields). The
// capture ends with a message in two fragments whose second one the link dropped and sent
// again: the dissector puts it together where the second copy arrived, not where it was
// dropped.
func TestWiresharkDissectsTheGameExamples(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil && os.Getenv("CI") == "" {
		t.Skip("tshark is not installed (apt-get install tshark)")
	}
	rows := gameExamples(t)
	typeOf := map[string]int{}
	for i := 1; i < 256; i++ {
		typeOf[game.MsgType(i).String()] = i
	}
	// The fields to ask tshark for, and each row's expectations.
	want := make([]map[string]string, len(rows))
	asked := []string{"frame.number", "ackattack.game.type", "ackattack.malformed", "ackattack.dropped"}
	for _, ex := range gameExampleFields {
		i := slices.IndexFunc(rows, func(r gameExample) bool { return r.msg == ex.msg && r.value == ex.value })
		if i < 0 {
			t.Fatalf("game/PROTOCOL.md section 4 has no %s row %q", ex.msg, ex.value)
		}
		want[i] = ex.fields
		for f := range ex.fields {
			if !slices.Contains(asked, "ackattack."+f) {
				asked = append(asked, "ackattack."+f)
			}
		}
	}
	var packets []examplePacket
	data := func(seq int, r wire.Record) []byte {
		b := wire.AppendHeader(nil, wire.Header{Type: wire.TypeData, Seq: uint16(seq), AckBits: 0})
		b, err := wire.AppendRecord(b, &r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i, r := range rows {
		if want[i] == nil {
			t.Errorf("the %s row %q has no fields to check in gameExampleFields", r.msg, r.value)
		}
		packets = append(packets, examplePacket{out: true, data: data(i, wire.Record{Kind: wire.KindGuaranteed, Seq: uint16(i), Payload: r.bytes})})
	}
	// The first Peers row in two fragments; the second dropped, then sent again.
	peers := rows[slices.IndexFunc(rows, func(r gameExample) bool { return r.msg == "Peers" })].bytes
	frag := func(i int, fate transport.TapFate) examplePacket {
		half := len(peers) / 2
		piece := [][]byte{peers[:half], peers[half:]}[i]
		return examplePacket{out: true, fate: fate, data: data(len(packets)+i, wire.Record{Kind: wire.KindFragment, Seq: 500,
			FragIndex: uint8(i), FragCount: 2, TotalLen: uint32(len(peers)), Payload: piece})}
	}
	packets = append(packets, frag(0, transport.TapPassed), frag(1, transport.TapDropped), frag(1, transport.TapPassed))

	path := filepath.Join(t.TempDir(), "game-examples.pcapng")
	exampleCapture(t, path, packets)
	lines := tsharkFields(t, path, asked...)
	if len(lines) != len(packets) {
		t.Fatalf("tshark shows %d frames, the capture holds %d", len(lines), len(packets))
	}
	got := make([]map[string]string, len(lines))
	for i, l := range lines {
		vals := strings.Split(l, "|")
		got[i] = map[string]string{}
		for j, f := range asked {
			got[i][strings.TrimPrefix(f, "ackattack.")] = vals[j]
		}
	}
	for i, r := range rows {
		if g := got[i]; g["game.type"] != strconv.Itoa(typeOf[r.msg]) || g["malformed"] != "" {
			t.Errorf("frame %d, %s %q: game message type %q, malformed %q; want %d and not malformed", i+1, r.msg, r.value, g["game.type"], g["malformed"], typeOf[r.msg])
		}
		for f, v := range want[i] {
			if got[i][f] != v {
				t.Errorf("frame %d, %s %q: %s is %q, want %q", i+1, r.msg, r.value, f, got[i][f], v)
			}
		}
	}
	// The fragments: whole nowhere but in the frame that completed them on the other side.
	n := len(rows)
	for i, w := range []struct{ typ, dropped string }{{"", ""}, {"", "1"}, {strconv.Itoa(typeOf["Peers"]), ""}} {
		if g := got[n+i]; g["game.type"] != w.typ || g["dropped"] != w.dropped || g["malformed"] != "" {
			t.Errorf("frame %d, fragment %d of Peers: game message type %q, dropped %q, malformed %q; want %q and %q",
				n+i+1, min(i, 1), g["game.type"], g["dropped"], g["malformed"], w.typ, w.dropped)
		}
	}
}
