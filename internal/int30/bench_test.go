package int30

import "testing"

func BenchmarkParseUInt30(b *testing.B) {
	ins := [][]byte{{0x64}, {0x83, 0xe8}, {0xc0, 0x01, 0x86, 0xa0}}
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range ins {
			if _, _, err := ParseUInt30(in); err != nil {
				b.Fatal(err)
			}
		}
	}
}
