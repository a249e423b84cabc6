package game

import (
	"slices"
	"testing"

	"github.com/ackattack/ackattack/world"
)

// sparseUnitHashes is n units with the even ids 2..2n, so that a unit only one side has can
// sit between two of them.
func sparseUnitHashes(n int) []world.UnitHash {
	hs := unitHashesOf(n)
	for i := range hs {
		hs[i].ID *= 2
	}
	return hs
}

// roundTrip is m as the other side reads it: encoded, parsed, and its size in bytes.
func roundTrip[T Msg](t *testing.T, m T) (T, int) {
	t.Helper()
	b, err := AppendMsg(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseMsg(b)
	if err != nil {
		t.Fatal(err)
	}
	return got.(T), len(b)
}

// TestDrillDownAnswersTheSubRangeThatDiffers: among 2000 units, the client reports the root
// of the hash tree; the server's drill-down carries its hashes of ten sub-ranges; the client
// answers the units of the sub-ranges whose hashes differ and skips the others; the server
// names the units that differ, that the client lacks and that only the client has, and no
// unit of a skipped sub-range. Every message crosses the codec.
func TestDrillDownAnswersTheSubRangeThatDiffers(t *testing.T) {
	const n = 2000
	mine := sparseUnitHashes(n)
	changed := func(id uint32) func([]world.UnitHash) []world.UnitHash {
		return func(hs []world.UnitHash) []world.UnitHash {
			i, _ := slices.BinarySearchFunc(hs, id, func(h world.UnitHash, id uint32) int { return int(h.ID) - int(id) })
			hs[i].Hash ^= uint64(id) * 0xff51afd7ed558ccd // two drifts must not cancel in the XOR
			return hs
		}
	}
	lacks := func(id uint32) func([]world.UnitHash) []world.UnitHash {
		return func(hs []world.UnitHash) []world.UnitHash {
			return slices.DeleteFunc(hs, func(h world.UnitHash) bool { return h.ID == id })
		}
	}
	extra := func(id uint32) func([]world.UnitHash) []world.UnitHash {
		return func(hs []world.UnitHash) []world.UnitHash {
			i, _ := slices.BinarySearchFunc(hs, id, func(h world.UnitHash, id uint32) int { return int(h.ID) - int(id) })
			return slices.Insert(hs, i, world.UnitHash{ID: id, Hash: 77})
		}
	}
	for _, tt := range []struct {
		name          string
		client        []func([]world.UnitHash) []world.UnitHash // how the client's units differ
		ids, removed  []uint32                                  // what the server must name
		answerRanges  int                                       // sub-ranges the client answers
		answeredUnits int                                       // units in its answer
	}{
		{"one unit drifted", []func([]world.UnitHash) []world.UnitHash{changed(2000)}, []uint32{2000}, nil, 1, 200},
		{"one unit missing at the client", []func([]world.UnitHash) []world.UnitHash{lacks(3000)}, []uint32{3000}, nil, 1, 199},
		{"the first unit missing at the client", []func([]world.UnitHash) []world.UnitHash{lacks(2)}, []uint32{2}, nil, 1, 199},
		{"one unit only the client has", []func([]world.UnitHash) []world.UnitHash{extra(1001)}, nil, []uint32{1001}, 1, 201},
		{"a unit only the client has, past the server's last", []func([]world.UnitHash) []world.UnitHash{extra(5001)}, nil, []uint32{5001}, 1, 201},
		{"two drifts in two sub-ranges", []func([]world.UnitHash) []world.UnitHash{changed(10), changed(3990)}, []uint32{10, 3990}, nil, 2, 400},
		{"a drift, a missing unit and an extra one in one sub-range",
			[]func([]world.UnitHash) []world.UnitHash{changed(1202), lacks(1204), extra(1205)}, []uint32{1202, 1204}, []uint32{1205}, 1, 200},
		// The client's units equal the server's (its report was made up, or its history was
		// run again since): it skips every sub-range, and the server names nothing.
		{"nothing differs", nil, nil, nil, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			theirs := slices.Clone(mine)
			for _, f := range tt.client {
				theirs = f(theirs)
			}
			report, reportBytes := roundTrip(t, &HashReport{Frame: 40, Root: rootHash(theirs)})
			mismatched := mismatchedRanges(mine, report.Root)
			if len(tt.client) > 0 && len(mismatched) != 1 {
				t.Fatalf("the root's mismatch: %v, want the one group", mismatched)
			}
			if len(mismatched) == 0 {
				mismatched = []IDRange{{Start: 1, End: world.MaxUnitID}}
			}
			req, reqBytes := roundTrip(t, drillRequest(40, mine, mismatched, DefaultGroupSize))
			if len(req.Ranges) != drillRanges || len(req.Hashes) != drillRanges {
				t.Fatalf("the request has %d ranges and %d hashes, want %d of each", len(req.Ranges), len(req.Hashes), drillRanges)
			}
			for i, r := range req.Ranges {
				if (i == 0 && r.Start != 1) || (i > 0 && r.Start != req.Ranges[i-1].End+1) || (i == len(req.Ranges)-1 && r.End != world.MaxUnitID) {
					t.Fatalf("the request's ranges %v do not tile the ids", req.Ranges)
				}
			}
			answer, differ := answerDrillDown(theirs, req)
			answer, answerBytes := roundTrip(t, answer)
			t.Logf("report %d B, request %d B, answer %d B: %d units, %d ranges answered, %d skipped",
				reportBytes, reqBytes, answerBytes, len(answer.Hashes), len(differ), len(answer.Skipped))
			if len(differ) != tt.answerRanges || len(answer.Hashes) != tt.answeredUnits || len(answer.Skipped) != drillRanges-tt.answerRanges {
				t.Errorf("the answer: %d units of %d ranges, %d skipped; want %d units of %d ranges, %d skipped",
					len(answer.Hashes), len(differ), len(answer.Skipped), tt.answeredUnits, tt.answerRanges, drillRanges-tt.answerRanges)
			}
			for _, h := range answer.Hashes {
				if !inRanges(differ, h.ID) {
					t.Fatalf("unit %d of the answer is outside the ranges it answers %v", h.ID, differ)
				}
			}
			got := compareAnswer(mine, req.Ranges, answer)
			if !slices.Equal(got.ids, tt.ids) || !slices.Equal(got.removed, tt.removed) {
				t.Errorf("the server names %v and, only the client's, %v; want %v and %v", got.ids, got.removed, tt.ids, tt.removed)
			}
			if !slices.Equal(got.answered, differ) {
				t.Errorf("the server compared ranges %v, the client answered %v", got.answered, differ)
			}
		})
	}
}

// TestDrillDownWithoutHashes: a request without the server's hashes (the older drill-down) is
// answered with every unit of every range, and skips none; the server compares them all, and an
// empty answer then says the client lacks every unit.
func TestDrillDownWithoutHashes(t *testing.T) {
	mine := sparseUnitHashes(50)
	req := &HashRequest{Frame: 8, Ranges: []IDRange{{Start: 1, End: 20}, {Start: 60, End: 70}}}
	answer, differ := answerDrillDown(mine, req)
	if want := 10 + 6; len(answer.Hashes) != want || len(answer.Skipped) != 0 || !slices.Equal(differ, req.Ranges) {
		t.Errorf("answer of %d units, %d ranges skipped, answering %v; want %d units, none skipped, every range",
			len(answer.Hashes), len(answer.Skipped), differ, want)
	}
	if got := compareAnswer(mine, req.Ranges, &UnitHashes{Frame: 8}); len(got.ids) != 16 || len(got.removed) != 0 {
		t.Errorf("an empty answer: the server names %v and %v, want the 16 units of the ranges", got.ids, got.removed)
	}
}

// TestAnsweredRanges: an answer skips only ranges of its request, exactly; a skipped range the
// server did not ask about, or part of one, skips nothing, and the units there are compared.
func TestAnsweredRanges(t *testing.T) {
	asked := []IDRange{{Start: 1, End: 10}, {Start: 11, End: 20}, {Start: 21, End: world.MaxUnitID}}
	for _, tt := range []struct {
		name    string
		skipped []IDRange
		want    []IDRange
	}{
		{"none skipped", nil, asked},
		{"one skipped", []IDRange{asked[1]}, []IDRange{asked[0], asked[2]}},
		{"every one skipped", asked, []IDRange{}},
		{"part of a range", []IDRange{{Start: 1, End: 5}}, asked},
		{"a range not asked about", []IDRange{{Start: 1, End: world.MaxUnitID}}, asked},
	} {
		if got := answeredRanges(asked, tt.skipped); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
