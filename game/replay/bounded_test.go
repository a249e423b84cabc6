package replay

import (
	"slices"
	"testing"
)

func TestRingKeepsTheLatest(t *testing.T) {
	tests := []struct {
		pushed, limit int
		want          []int
	}{
		{0, 3, []int{}},
		{2, 3, []int{0, 1}},
		{3, 3, []int{0, 1, 2}},
		{4, 3, []int{1, 2, 3}},
		{8, 3, []int{5, 6, 7}},
	}
	for _, tt := range tests {
		var r ring[int]
		for i := range tt.pushed {
			r.push(i, tt.limit)
		}
		if got := r.all(); !slices.Equal(got, tt.want) {
			t.Errorf("%d pushed, limit %d: %v, want %v", tt.pushed, tt.limit, got, tt.want)
		}
	}
}

func TestRecentSetForgetsTheOldest(t *testing.T) {
	var s recentSet[int]
	for i := range 5 {
		if !s.add(i, 3) {
			t.Fatalf("%d not new", i)
		}
	}
	for k, want := range map[int]bool{0: true, 1: true, 2: false, 3: false, 4: false} {
		if got := s.has[k] == false; got != want {
			t.Errorf("key %d forgotten %v, want %v", k, got, want)
		}
	}
	if s.add(4, 3) {
		t.Error("a key just added counted as new")
	}
	if len(s.has) != 3 {
		t.Errorf("%d keys kept, want 3", len(s.has))
	}
}
