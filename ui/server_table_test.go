package ui

import (
	"testing"
)

// TestFitColumns: the player table's columns at a width: as wide as their cells while they fit;
// then long texts in fewer words, then cut (a cut column gets back what a later step freed);
// then the least read columns left out, the lead first, the seat and the name never.
func TestFitColumns(t *testing.T) {
	head := [tableColumns]string{"seat", "name", "state", "rtt", "loss", "last hash", "lead", "address"}
	rows := [][tableColumns]string{head,
		{"2", "carla", "playing", "22 ms", "2.0%", "real-time re-sync at frame 405", "200 ms", "192.168.1.102:50002"},
		{"s1", "w1", "watching (seats full)", "30 ms", "0.0%", "ok at frame 410", "200 ms", "[2001:db8:85a3::8a2e:370:7334]:40000"},
	}
	for _, c := range []struct {
		width       int
		want        [tableColumns]int
		state, hash string // row 1's texts, as the table shows them
	}{
		{200, [...]int{4, 5, 21, 5, 4, 30, 6, 36}, "watching (seats full)", "real-time re-sync at frame 405"},
		{110, [...]int{4, 5, 21, 5, 4, 21, 6, 36}, "watching (seats full)", "real-time re-sync 405"}, // 109 cells
		{100, [...]int{4, 5, 21, 5, 4, 12, 6, 36}, "watching (seats full)", "real-time re-sync 405"},
		{78, [...]int{4, 5, 8, 5, 4, 12, 6, 27}, "watching", "real-time re-sync 405"},
		{60, [...]int{4, 5, 8, 5, 4, 0, 0, 29}, "watching", "real-time re-sync 405"}, // the lead and the hash go
		{30, [...]int{4, 5, 8, 0, 0, 0, 0, 0}, "watching", "real-time re-sync 405"},
		{10, [...]int{4, 5, 0, 0, 0, 0, 0, 0}, "watching", "real-time re-sync 405"},
	} {
		r := append([][tableColumns]string(nil), rows...)
		got := fitColumns(r, c.width)
		if got != c.want || r[2][colState] != c.state || r[1][colHash] != c.hash {
			t.Errorf("width %d: %v, %q, %q; want %v, %q, %q", c.width, got, r[2][colState], r[1][colHash], c.want, c.state, c.hash)
		}
	}
	if got := cutLeft("[2001:db8:85a3::8a2e:370:7334]:40000", 21); got != "…8a2e:370:7334]:40000" {
		t.Errorf("the address cut to 21 cells: %q", got)
	}
}
