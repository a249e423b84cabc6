package wire

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// referenceChecksum computes the checksum the slow, obvious way.
func referenceChecksum(body []byte, key uint64) uint32 {
	var in []byte
	in = binary.BigEndian.AppendUint64(in, ProtocolID)
	in = binary.BigEndian.AppendUint64(in, key)
	in = append(in, body...)
	return crc32.Checksum(in, crc32.MakeTable(crc32.Castagnoli))
}

func TestProtocolIDSpellsName(t *testing.T) {
	if got := string(binary.BigEndian.AppendUint64(nil, ProtocolID)); got != "ACKATT01" {
		t.Errorf("ProtocolID spells %q", got)
	}
}

func TestSealDatagram(t *testing.T) {
	tests := []struct {
		name string
		body string // after the checksum
		key  uint64
		hex  string // the whole sealed datagram
	}{
		{"keepalive, key 0", "01 10 0100 01", 0, "1c9ac69e 01 10 0100 01"},
		{"keepalive, connection key", "01 10 0100 01", 0x0123456789ABCDEF, "9041c681 01 10 0100 01"},
		{"two records, key 0", "01 10 0100 01 02 0005 02 6869 02 8006 0005 02 796f", 0,
			"49be273a 01 10 0100 01 02 0005 02 6869 02 8006 0005 02 796f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := unhex(t, tt.body)
			d := append(BeginDatagram(nil), body...)
			SealDatagram(d, tt.key)
			if want := unhex(t, tt.hex); !bytes.Equal(d, want) {
				t.Errorf("sealed = %x, want %x", d, want)
			}
			if got, want := binary.BigEndian.Uint32(d), referenceChecksum(body, tt.key); got != want {
				t.Errorf("checksum %08x, reference %08x", got, want)
			}
			got, err := OpenDatagram(d, tt.key)
			checkErr(t, err, nil)
			if !bytes.Equal(got, body) || &got[0] != &d[ChecksumSize] {
				t.Errorf("OpenDatagram = %x, want d[4:] = %x", got, body)
			}
		})
	}
}

func TestBeginDatagram(t *testing.T) {
	if got := BeginDatagram([]byte{1}); !bytes.Equal(got, []byte{1, 0, 0, 0, 0}) {
		t.Errorf("BeginDatagram = %x", got)
	}
}

func TestOpenDatagramRejects(t *testing.T) {
	const key = 0xFEEDFACECAFEBEEF
	sealed := func(body []byte, key uint64) []byte {
		d := append(BeginDatagram(nil), body...)
		SealDatagram(d, key)
		return d
	}
	good := sealed([]byte{1, 0x10, 0x01, 0x00, 0x01, 0x01, 0x00}, key)
	tests := []struct {
		name string
		d    []byte
		key  uint64
		want error
	}{
		{"good", good, key, nil},
		{"wrong key", good, key ^ 1, ErrChecksum},
		{"key 0", good, 0, ErrChecksum},
		{"truncated by one", good[:len(good)-1], key, ErrChecksum},
		{"extended by one", append(bytes.Clone(good), 0), key, ErrChecksum},
		{"empty", nil, key, ErrShort},
		{"checksum only", sealed(nil, key), key, ErrShort},
		{"checksum and type", sealed([]byte{1}, key), key, nil},
		{"largest", sealed(make([]byte, MaxDatagram-ChecksumSize), key), key, nil},
		{"one past largest", sealed(make([]byte, MaxDatagram-ChecksumSize+1), key), key, ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OpenDatagram(tt.d, tt.key)
			checkErr(t, err, tt.want)
			if err != nil && got != nil {
				t.Errorf("returned %x alongside an error", got)
			}
		})
	}
}

// TestOpenDatagramFlippedBit flips every bit of a sealed datagram in turn;
// CRC-32C detects every single-bit error.
func TestOpenDatagramFlippedBit(t *testing.T) {
	d := append(BeginDatagram(nil), unhex(t, "01 10 0100 01 02 0005 02 6869 02 8006 0005 02 796f")...)
	SealDatagram(d, 42)
	for i := range 8 * len(d) {
		c := bytes.Clone(d)
		c[i/8] ^= 1 << (i % 8)
		if _, err := OpenDatagram(c, 42); err == nil {
			t.Fatalf("bit %d flipped, datagram still opens", i)
		} else {
			checkErr(t, err, ErrChecksum)
		}
	}
}

func TestSealDatagramPanicsWhenShort(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SealDatagram of 3 bytes did not panic")
		}
	}()
	SealDatagram(make([]byte, 3), 0)
}

func TestDatagramNoAlloc(t *testing.T) {
	d := append(BeginDatagram(nil), make([]byte, 1200)...)
	bad := bytes.Clone(d)
	allocs := testing.AllocsPerRun(100, func() {
		SealDatagram(d, 99)
		if _, err := OpenDatagram(d, 99); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenDatagram(bad, 99); err == nil {
			t.Fatal("unsealed datagram opened")
		}
		if _, err := OpenDatagram(d[:2], 99); err == nil {
			t.Fatal("2-byte datagram opened")
		}
	})
	if allocs != 0 {
		t.Errorf("Seal/Open allocate %v times", allocs)
	}
}
