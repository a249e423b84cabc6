package record

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// frameCases are datagrams with the frames appendFrame must write for them.
var frameCases = []struct {
	name     string
	src, dst string
	id       uint16
	payload  string
	want     string // hex
}{
	{
		name: "IPv4", src: "127.0.0.1:50432", dst: "127.0.0.1:7777", id: 1, payload: "hi",
		want: "4500001e00014000401100" + "00" + "7f0000017f000001" + "c5001e61000a" + "0000" + "6869",
	},
	{
		name: "IPv6", src: "[::1]:7777", dst: "[2001:db8::1]:50432", id: 9, payload: "hi!",
		want: "60000000000b1140" + "00000000000000000000000000000001" + "20010db8000000000000000000000001" + "1e61c500000b" + "0000" + "686921",
	},
}

// TestAppendFrame: the headers appendFrame writes are, byte for byte, the ones gopacket's own
// IPv4, IPv6 and UDP layers serialize with their checksums computed, and the expected bytes.
func TestAppendFrame(t *testing.T) {
	for _, tc := range frameCases {
		t.Run(tc.name, func(t *testing.T) {
			src, dst := netip.MustParseAddrPort(tc.src), netip.MustParseAddrPort(tc.dst)
			got := appendFrame([]byte{0xAA}, src, dst, tc.id, []byte(tc.payload))[1:]

			udp := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
			var ip gopacket.SerializableLayer
			if src.Addr().Is4() {
				v4 := &layers.IPv4{Version: 4, IHL: 5, Id: tc.id, Flags: layers.IPv4DontFragment, TTL: 64, Protocol: layers.IPProtocolUDP,
					SrcIP: net.IP(src.Addr().AsSlice()), DstIP: net.IP(dst.Addr().AsSlice())}
				_ = udp.SetNetworkLayerForChecksum(v4)
				ip = v4
			} else {
				v6 := &layers.IPv6{Version: 6, NextHeader: layers.IPProtocolUDP, HopLimit: 64,
					SrcIP: net.IP(src.Addr().AsSlice()), DstIP: net.IP(dst.Addr().AsSlice())}
				_ = udp.SetNetworkLayerForChecksum(v6)
				ip = v6
			}
			buf := gopacket.NewSerializeBuffer()
			if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
				ip, udp, gopacket.Payload(tc.payload)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, buf.Bytes()) {
				t.Errorf("appendFrame:\n got %x\nwant %x (gopacket)", got, buf.Bytes())
			}
			want, err := hex.DecodeString(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			// The expected bytes carry zero checksums; the checksums are gopacket's to check.
			masked := maskChecksums(got, src.Addr().Is4())
			if !bytes.Equal(masked, want) {
				t.Errorf("appendFrame without checksums:\n got %x\nwant %x", masked, want)
			}

			gs, gd, gp, err := parseFrame(got)
			if err != nil || gs != src || gd != dst || string(gp) != tc.payload {
				t.Errorf("parseFrame = %v, %v, %q, %v; want %v, %v, %q", gs, gd, gp, err, src, dst, tc.payload)
			}
		})
	}
}

// maskChecksums is a copy of frame with its IP header's and UDP header's checksums zeroed.
func maskChecksums(frame []byte, v4 bool) []byte {
	f := bytes.Clone(frame)
	udp := ipv6HeaderSize
	if v4 {
		f[10], f[11] = 0, 0
		udp = ipv4HeaderSize
	}
	f[udp+6], f[udp+7] = 0, 0
	return f
}

// TestEndpoints: the capture's addresses for each direction, and the families made to match.
func TestEndpoints(t *testing.T) {
	tests := []struct {
		local, peer string
		out         bool
		src, dst    string
	}{
		{"127.0.0.1:5000", "127.0.0.1:7777", true, "127.0.0.1:5000", "127.0.0.1:7777"},
		{"127.0.0.1:5000", "127.0.0.1:7777", false, "127.0.0.1:7777", "127.0.0.1:5000"},
		{"[::]:5000", "192.0.2.1:7777", true, "[::]:5000", "[::ffff:192.0.2.1]:7777"},
		{"0.0.0.0:5000", "[2001:db8::1]:7777", false, "[2001:db8::1]:7777", "[::]:5000"},
		{"[::ffff:127.0.0.1]:5000", "127.0.0.1:7777", true, "127.0.0.1:5000", "127.0.0.1:7777"},
	}
	for _, tt := range tests {
		src, dst := endpoints(tt.out, netip.MustParseAddrPort(tt.local), netip.MustParseAddrPort(tt.peer))
		if src.String() != tt.src || dst.String() != tt.dst {
			t.Errorf("endpoints(%v, %s, %s) = %v, %v; want %s, %s", tt.out, tt.local, tt.peer, src, dst, tt.src, tt.dst)
		}
	}
}

// TestParseFrameRejects: packets that are not an IP packet with a whole UDP datagram are
// refused with errFrame, never a panic.
func TestParseFrameRejects(t *testing.T) {
	good := appendFrame(nil, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"), 1, []byte("abc"))
	good6 := appendFrame(nil, netip.MustParseAddrPort("[::1]:1"), netip.MustParseAddrPort("[::1]:2"), 1, []byte("abc"))
	with := func(b []byte, i int, v byte) []byte { b = bytes.Clone(b); b[i] = v; return b }
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"IP version 5", with(good, 0, 0x55)},
		{"IPv4 header longer than the packet", with(good, 0, 0x4F)},
		{"IPv4 header length below 20", with(good, 0, 0x44)},
		{"TCP", with(good, 9, 6)},
		{"IPv4 total length past the end", with(good, 3, 0xFF)},
		{"cut IPv4 header", good[:19]},
		{"cut UDP header", good[:25]},
		{"UDP length past the end", with(good, 25, 0xFF)},
		{"UDP length below its header", with(good, 25, 7)},
		{"cut IPv6 header", good6[:39]},
		{"IPv6 next header TCP", with(good6, 6, 6)},
		{"IPv6 payload length past the end", with(good6, 5, 0xFF)},
	}
	for _, tt := range tests {
		if _, _, _, err := parseFrame(tt.b); !errors.Is(err, errFrame) {
			t.Errorf("%s: parseFrame(%x) = %v, want errFrame", tt.name, tt.b, err)
		}
	}
}

// FuzzParseFrame: parseFrame never panics, and what it accepts from a frame appendFrame wrote
// is what was written.
// Its seeds are in testdata/fuzz/FuzzParseFrame (TestFuzzCorpora).
func FuzzParseFrame(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		src, dst, payload, err := parseFrame(b)
		if err != nil {
			return
		}
		if src.Addr().Is4() != dst.Addr().Is4() {
			t.Fatalf("addresses of two families: %v, %v", src, dst)
		}
		again := appendFrame(nil, src, dst, 0, payload)
		s2, d2, p2, err := parseFrame(again)
		if err != nil || s2 != src || d2 != dst || !bytes.Equal(p2, payload) {
			t.Fatalf("written again and read: %v %v %x %v; want %v %v %x", s2, d2, p2, err, src, dst, payload)
		}
	})
}
