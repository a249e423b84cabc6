package wire

import "testing"

var benchHeader = Header{Type: TypeData, Seq: 0x0100, Ack: 0x00F0, AckBits: 0xFFFF7FFF}

func BenchmarkAppendHeader(b *testing.B) {
	buf := make([]byte, 0, MaxHeaderSize)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendHeader(buf[:0], benchHeader)
	}
}

func BenchmarkParseHeader(b *testing.B) {
	in := AppendHeader(nil, benchHeader)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseHeader(in); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPacket builds a 1200-byte sealed Data datagram holding 20 guaranteed
// records with 0 to 3 dependencies each.
func benchPacket(tb testing.TB) []byte {
	const size, records = 1200, 20
	d := BeginDatagram(make([]byte, 0, size))
	d = AppendHeader(d, benchHeader)
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte(i)
	}
	for i := range records {
		r := Record{Kind: KindGuaranteed, Seq: uint16(1000 + i)}
		for j := 1; j <= i%4; j++ {
			r.Deps = append(r.Deps, uint16(1000+i-j))
		}
		// Share what is left evenly; the last record takes the remainder.
		// Payloads stay below 128 bytes, so their length takes 1 byte and
		// the overhead is the size of the record with an empty payload.
		left := size - len(d)
		share := left / (records - i)
		if i == records-1 {
			share = left
		}
		r.Payload = payload[:share-r.Size()]
		var err error
		if d, err = AppendRecord(d, &r); err != nil {
			tb.Fatal(err)
		}
	}
	if len(d) != size {
		tb.Fatalf("bench packet is %d bytes, want %d", len(d), size)
	}
	SealDatagram(d, 7)
	return d
}

func BenchmarkParseRecords(b *testing.B) {
	d := benchPacket(b)
	packet, err := OpenDatagram(d, 7)
	if err != nil {
		b.Fatal(err)
	}
	_, hn, err := ParseHeader(packet)
	if err != nil {
		b.Fatal(err)
	}
	r := Record{Deps: make([]uint16, 0, MaxDeps)}
	b.SetBytes(int64(len(packet) - hn))
	b.ReportAllocs()
	for b.Loop() {
		count := 0
		for rest := packet[hn:]; len(rest) > 0; count++ {
			n, err := ParseRecord(rest, &r)
			if err != nil {
				b.Fatal(err)
			}
			rest = rest[n:]
		}
		if count != 20 {
			b.Fatalf("%d records", count)
		}
	}
}

func BenchmarkAppendRecords(b *testing.B) {
	d := benchPacket(b)
	packet, _ := OpenDatagram(d, 7)
	_, hn, _ := ParseHeader(packet)
	var records []Record
	for rest := packet[hn:]; len(rest) > 0; {
		r := Record{Deps: make([]uint16, 0, MaxDeps)}
		n, err := ParseRecord(rest, &r)
		if err != nil {
			b.Fatal(err)
		}
		records = append(records, r)
		rest = rest[n:]
	}
	buf := make([]byte, 0, MaxDatagram)
	b.SetBytes(int64(len(packet) - hn))
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i := range records {
			buf, _ = AppendRecord(buf, &records[i])
		}
	}
}

func BenchmarkSealDatagram(b *testing.B) {
	d := benchPacket(b)
	b.SetBytes(int64(len(d)))
	b.ReportAllocs()
	for b.Loop() {
		SealDatagram(d, 7)
	}
}

func BenchmarkOpenDatagram(b *testing.B) {
	d := benchPacket(b)
	b.SetBytes(int64(len(d)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := OpenDatagram(d, 7); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSeqListLong(b *testing.B) {
	in := rawList(0, seqRange(1, MaxDeps))
	buf := make([]uint16, 0, MaxDeps)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := ParseSeqList(in, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseConnectRequest is the server's cost per request, the packet
// anybody can send: the name's string is its one allocation.
func BenchmarkParseConnectRequest(b *testing.B) {
	in, err := AppendConnectRequest(nil, &ConnectRequest{Version: ProtocolVersion, Name: "Ada Lovelace"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseConnectRequest(in); err != nil {
			b.Fatal(err)
		}
	}
}

// The sealed frame's cost, for the packet sizes a connection sends most: a 1200-byte packet
// full of records, and the 5-byte header of a keepalive or an ack (23 bytes sealed).
var sealedBenchSizes = []struct {
	name string
	size int // the whole sealed datagram
}{{"1200B", 1200}, {"keepalive", 5 + SealedOverhead}}

func sealedBenchDatagram(size int) []byte {
	d := append(BeginSealed(make([]byte, 0, MaxDatagram)), make([]byte, size-SealedOverhead)...)
	d[CounterSize] = byte(TypeData)
	return d
}

func BenchmarkSeal(b *testing.B) {
	var key [KeySize]byte
	k := NewSealKey(&key)
	for _, sz := range sealedBenchSizes {
		b.Run(sz.name, func(b *testing.B) {
			d := sealedBenchDatagram(sz.size)
			n := len(d)
			var counter uint64
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				counter++
				d = k.Seal(d[:n], 0, counter)
			}
		})
	}
}

// BenchmarkOpen opens into a buffer, as the transport does, so the datagram stays sealed.
func BenchmarkOpen(b *testing.B) {
	var key [KeySize]byte
	k := NewSealKey(&key)
	buf := make([]byte, 0, MaxDatagram)
	for _, sz := range sealedBenchSizes {
		b.Run(sz.name, func(b *testing.B) {
			d := k.Seal(sealedBenchDatagram(sz.size)[:sz.size-TagSize], 0, 7)
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := k.Open(buf, d, 7); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
