package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// The capture's packets are raw IP (LINKTYPE_RAW, 101): an IPv4 or IPv6 header, a UDP header,
// then the datagram as it traveled. A socket hands its host only the payload of a UDP datagram
// and the two addresses, so the recorder writes the headers the kernel would have:
//
//	IPv4  45 00 LL LL  II II 40 00  40 11 CC CC  source (4)  destination (4)
//	      version 4, 20-byte header, total length, an id that counts the packets, don't
//	      fragment, TTL 64, protocol 17 (UDP), the header checksum
//	IPv6  60 00 00 00  LL LL 11 40  source (16)  destination (16)
//	      version 6, payload length, next header 17 (UDP), hop limit 64
//	UDP   SS SS DD DD  LL LL CC CC  source port, destination port, length, checksum
//
// The lengths and checksums are right, so that Wireshark shows no error and dissects the UDP
// payload by port. An IPv4 socket's datagrams get IPv4 headers; a socket bound to an IPv6
// address writes IPv4 peers as IPv4-mapped IPv6 addresses, and an IPv4 local address with an
// IPv6 peer (which a socket cannot have) would be written mapped the same way.

const (
	ipv4HeaderSize = 20
	ipv6HeaderSize = 40
	udpHeaderSize  = 8
	protoUDP       = 17
	hopLimit       = 64
	// maxPayload is the largest datagram a frame holds: what fits in an IPv4 packet's 16-bit
	// total length with both headers.
	maxPayload = 65535 - ipv4HeaderSize - udpHeaderSize
)

// addrPair is the two addresses of a datagram as the capture writes them: of one family.
func addrPair(local, peer netip.Addr) (l, p netip.Addr) {
	local, peer = local.Unmap(), peer.Unmap()
	if local.Is4() == peer.Is4() {
		return local, peer
	}
	if local.Is4() && local.IsUnspecified() {
		return netip.IPv6Unspecified(), netip.AddrFrom16(peer.As16())
	}
	return netip.AddrFrom16(local.As16()), netip.AddrFrom16(peer.As16())
}

// endpoints are the datagram's source and destination as the capture writes them.
func endpoints(out bool, local, peer netip.AddrPort) (src, dst netip.AddrPort) {
	l, p := addrPair(local.Addr(), peer.Addr())
	src, dst = netip.AddrPortFrom(p, peer.Port()), netip.AddrPortFrom(l, local.Port())
	if out {
		src, dst = dst, src
	}
	return src, dst
}

// appendFrame appends the IP and UDP headers of a datagram from src to dst, then payload. id
// is the IPv4 header's identification. The addresses must be of one family (endpoints) and the
// payload at most maxPayload bytes.
func appendFrame(b []byte, src, dst netip.AddrPort, id uint16, payload []byte) []byte {
	udpLen := udpHeaderSize + len(payload)
	start := len(b)
	if src.Addr().Is4() {
		b = append(b, 0x45, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(ipv4HeaderSize+udpLen))
		b = binary.BigEndian.AppendUint16(b, id)
		b = append(b, 0x40, 0, hopLimit, protoUDP, 0, 0) // don't fragment; checksum below
		s, d := src.Addr().As4(), dst.Addr().As4()
		b = append(append(b, s[:]...), d[:]...)
		binary.BigEndian.PutUint16(b[start+10:], ^fold(onesSum(0, b[start:])))
	} else {
		b = append(b, 0x60, 0, 0, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
		b = append(b, protoUDP, hopLimit)
		s, d := src.Addr().As16(), dst.Addr().As16()
		b = append(append(b, s[:]...), d[:]...)
	}
	udp := len(b)
	b = binary.BigEndian.AppendUint16(b, src.Port())
	b = binary.BigEndian.AppendUint16(b, dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
	b = append(b, 0, 0)
	b = append(b, payload...)
	binary.BigEndian.PutUint16(b[udp+6:], udpChecksum(src.Addr(), dst.Addr(), b[udp:]))
	return b
}

// udpChecksum is the UDP checksum of segment (header with a zero checksum, and payload) over
// the pseudo-header of its addresses (RFC 768, RFC 8200 section 8.1). A sum of 0 is sent as
// 0xFFFF: 0 means "no checksum" in IPv4 and is not allowed in IPv6.
func udpChecksum(src, dst netip.Addr, segment []byte) uint16 {
	var sum uint32
	if src.Is4() {
		s, d := src.As4(), dst.As4()
		sum = onesSum(onesSum(0, s[:]), d[:])
	} else {
		s, d := src.As16(), dst.As16()
		sum = onesSum(onesSum(0, s[:]), d[:])
	}
	sum += protoUDP + uint32(len(segment))
	c := ^fold(onesSum(sum, segment))
	if c == 0 {
		c = 0xFFFF
	}
	return c
}

// onesSum adds b to sum as big-endian 16-bit words (an odd last byte padded with zero), the
// one's-complement sum of the Internet checksum before folding.
func onesSum(sum uint32, b []byte) uint32 {
	for len(b) >= 2 {
		sum += uint32(b[0])<<8 | uint32(b[1])
		sum = sum&0xFFFF + sum>>16
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	return sum
}

// fold folds the carries of a one's-complement sum into 16 bits.
func fold(sum uint32) uint16 {
	for sum>>16 != 0 {
		sum = sum&0xFFFF + sum>>16
	}
	return uint16(sum)
}

// errFrame is what parseFrame reports for a packet that is not one of appendFrame's.
var errFrame = errors.New("record: not an IPv4 or IPv6 packet with a UDP datagram")

// parseFrame reads the addresses and the UDP payload of a raw IP packet, as appendFrame writes
// them (IPv4 options are skipped; IPv6 extension headers are not read). It checks the lengths,
// not the checksums: a capture written by another tool may leave them out.
func parseFrame(b []byte) (src, dst netip.AddrPort, payload []byte, err error) {
	if len(b) < 1 {
		return src, dst, nil, errFrame
	}
	var s, d netip.Addr
	var rest []byte
	switch b[0] >> 4 {
	case 4:
		ihl := int(b[0]&0x0F) * 4
		if ihl < ipv4HeaderSize || len(b) < ihl {
			return src, dst, nil, fmt.Errorf("%w: IPv4 header of %d bytes in %d", errFrame, ihl, len(b))
		}
		total := int(binary.BigEndian.Uint16(b[2:]))
		if b[9] != protoUDP || total < ihl || total > len(b) {
			return src, dst, nil, fmt.Errorf("%w: IPv4 protocol %d, total length %d of %d", errFrame, b[9], total, len(b))
		}
		s, d = netip.AddrFrom4([4]byte(b[12:16])), netip.AddrFrom4([4]byte(b[16:20]))
		rest = b[ihl:total]
	case 6:
		if len(b) < ipv6HeaderSize {
			return src, dst, nil, fmt.Errorf("%w: IPv6 header cut at %d bytes", errFrame, len(b))
		}
		plen := int(binary.BigEndian.Uint16(b[4:]))
		if b[6] != protoUDP || ipv6HeaderSize+plen > len(b) {
			return src, dst, nil, fmt.Errorf("%w: IPv6 next header %d, payload length %d of %d", errFrame, b[6], plen, len(b)-ipv6HeaderSize)
		}
		s, d = netip.AddrFrom16([16]byte(b[8:24])), netip.AddrFrom16([16]byte(b[24:40]))
		rest = b[ipv6HeaderSize : ipv6HeaderSize+plen]
	default:
		return src, dst, nil, fmt.Errorf("%w: IP version %d", errFrame, b[0]>>4)
	}
	if len(rest) < udpHeaderSize {
		return src, dst, nil, fmt.Errorf("%w: UDP header cut at %d bytes", errFrame, len(rest))
	}
	ulen := int(binary.BigEndian.Uint16(rest[4:]))
	if ulen < udpHeaderSize || ulen > len(rest) {
		return src, dst, nil, fmt.Errorf("%w: UDP length %d of %d", errFrame, ulen, len(rest))
	}
	src = netip.AddrPortFrom(s, binary.BigEndian.Uint16(rest[0:]))
	dst = netip.AddrPortFrom(d, binary.BigEndian.Uint16(rest[2:]))
	return src, dst, rest[udpHeaderSize:ulen], nil
}
