package confusables

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Skeletons of strings that look alike are equal, of strings that do not, different; the
// pairs are UTS #39's own examples and the look-alikes a student tries for a name.
func TestSkeleton(t *testing.T) {
	t.Parallel()
	same := []struct{ what, a, b string }{
		{"Cyrillic and Greek letters (UTS #39's example)", "\u0440\u0430\u0443\u0440\u0430l", "paypal"},
		{"mathematical letters", "\U0001D4C5\U0001D4B6\U0001D4CE\U0001D4C5\U0001D4B6\U0001D4C1", "paypal"},
		{"a Cherokee capital", "\u13ACve", "Eve"},
		{"digit one and small l", "bot1", "botl"},
		{"capital I and small l", "Ian", "lan"},
		{"digit zero and capital O", "b0b", "bOb"},
		{"rn and m", "warning", "waming"},
		{"a vertical line and small l", "a|ex", "alex"},
		{"precomposed and combining", "Zo\u00EB", "Zoe\u0308"},
		{"a Devanagari acute accent on a Latin letter", "e\u0954ve", "\u00E9ve"},
		{"a short solidus and a long one", "so\u0337s", "s\u00F8s"},
		{"a Greek capital Eta", "\u0397al", "Hal"},
	}
	for _, c := range same {
		if sa, sb := Skeleton(c.a), Skeleton(c.b); sa != sb {
			t.Errorf("%s: %+q has the skeleton %+q, %+q has %+q", c.what, c.a, sa, c.b, sb)
		}
	}
	apart := []struct{ what, a, b string }{
		{"case (the skeleton keeps it)", "Eve", "eve"},
		{"an accent", "Zoe", "Zo\u00EB"},
		{"different letters", "ann", "anne"},
		{"small i and small l", "ian", "lan"},
		{"a Cyrillic small ve is a small capital B, not b", "\u0432ob", "bob"},
	}
	for _, c := range apart {
		if sa, sb := Skeleton(c.a), Skeleton(c.b); sa == sb {
			t.Errorf("%s: %+q and %+q both have the skeleton %+q", c.what, c.a, c.b, sa)
		}
	}
}

// The table is well formed: sources in increasing order, each with a prototype that is valid
// UTF-8, and the prototypes end where the table does.
func TestTable(t *testing.T) {
	t.Parallel()
	if len(sources) != len(ends) {
		t.Fatalf("%d sources, %d ends", len(sources), len(ends))
	}
	for i := range sources {
		if i > 0 && sources[i] <= sources[i-1] {
			t.Errorf("source %d (%U) after %U", i, sources[i], sources[i-1])
		}
		p, ok := Prototype(sources[i])
		if !ok || p == "" || !utf8.ValidString(p) {
			t.Errorf("%U: prototype %+q, %v", sources[i], p, ok)
		}
	}
	if int(ends[len(ends)-1]) != len(prototypes) {
		t.Errorf("the last prototype ends at %d, the prototypes at %d", ends[len(ends)-1], len(prototypes))
	}
	if _, ok := Prototype('a'); ok {
		t.Error("a has a prototype: it is one")
	}
	if p, _ := Prototype(0x13AC); p != "E" {
		t.Errorf("the Cherokee letter GV has the prototype %+q, want E", p)
	}
	if Version == "" {
		t.Error("no version")
	}
}

// FuzzSkeleton checks, on any string, what the standard promises of a skeleton: it is the same
// for a string and its other normal form, it is in NFD, and a skeleton is its own skeleton.
func FuzzSkeleton(f *testing.F) {
	for _, s := range []string{"paypal", "\u13ACve", "b0t1", "Zo\u00EB", "e\u0954ve", "\u0440\u0430\u0443", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // names are valid UTF-8 before they are compared
		}
		sk := Skeleton(s)
		if a, b := Skeleton(norm.NFC.String(s)), Skeleton(norm.NFD.String(s)); a != b || a != sk {
			t.Fatalf("%+q: skeleton %+q, composed %+q, decomposed %+q", s, sk, a, b)
		}
		if !norm.NFD.IsNormalString(sk) {
			t.Fatalf("%+q: skeleton %+q is not in NFD", s, sk)
		}
		if again := Skeleton(sk); again != sk {
			t.Fatalf("%+q: skeleton %+q, whose skeleton is %+q", s, sk, again)
		}
	})
}

func BenchmarkSkeleton(b *testing.B) {
	for _, s := range []string{"ann", "Ada Lovelace", "\u13ACve \u0430\u043F\u043F"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				Skeleton(s)
			}
		})
	}
}
