package game

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/ackattack/ackattack/net/wire"
)

// Every rule of CheckPlayerName, with the characters that break it.
func TestCheckPlayerName(t *testing.T) {
	t.Parallel()
	ok := []struct{ what, name string }{
		{"ASCII", "ann"},
		{"a space inside", "Ada Lovelace"},
		{"digits and signs", "x_1337-hax!"},
		{"one byte", "a"},
		{"32 bytes", strings.Repeat("n", wire.MaxNameLen)},
		{"Latin with a precomposed accent", "Zoë"},
		{"Latin with a combining accent", "Zoe\u0308"},
		{"Vietnamese, two marks on one letter", "Nguye\u0302\u0303n"},
		{"four marks on one letter", "e\u0301\u0302\u0303\u0304"},
		{"CJK", "玩家"},
		{"Cyrillic alone", "Аня"},
		{"a Cyrillic а look-alike (refused only where ann sits: FoldName)", "\u0430nn"},
		{"Greek", "Ζωή"},
		{"Hebrew", "דנה"},
		{"Arabic with Arabic digits", "علي٣"},
		{"Arabic with European digits", "علي3"},
		{"Devanagari with its vowel signs", "नमस्ते"},
		{"Thai with its vowel and tone marks", "สมชาย"},
		{"an emoji", "ann 😀"},
		{"an emoji with a skin tone", "👍🏽"},
		{"bot alone", "bot"},
		{"bot and a letter", "bot1a"},
		{"robot and a number", "robot1"},
		{"bot, a space and a number", "bot 1"},
	}
	for _, c := range ok {
		if err := CheckPlayerName(c.name); err != nil {
			t.Errorf("%s: %q refused: %v", c.what, c.name, err)
		}
	}

	bad := []struct {
		what, name string
		want       error
		says       string // a piece of the reason
	}{
		{"empty", "", wire.ErrBadName, "is empty"},
		{"33 bytes", strings.Repeat("n", wire.MaxNameLen+1), wire.ErrTooLong, "33 bytes"},
		{"32 bytes plus a 2-byte letter", strings.Repeat("n", wire.MaxNameLen-1) + "ë", wire.ErrTooLong, "33 bytes"},
		{"invalid UTF-8", "an\xffn", wire.ErrBadName, "UTF-8"},
		{"a line break (Cc)", "an\nn", wire.ErrBadName, "U+000A"},
		{"an escape sequence (Cc)", "\x1b[31mann", wire.ErrBadName, "U+001B"},
		{"a C1 control (Cc)", "an\u0085n", wire.ErrBadName, "U+0085"},
		{"U+202E RIGHT-TO-LEFT OVERRIDE (Cf)", "ann\u202Egnp.exe", wire.ErrBadName, "U+202E"},
		{"U+202D LEFT-TO-RIGHT OVERRIDE (Cf)", "\u202Dann", wire.ErrBadName, "U+202D"},
		{"U+2067 RIGHT-TO-LEFT ISOLATE (Cf)", "ann\u2067", wire.ErrBadName, "U+2067"},
		{"U+200F RIGHT-TO-LEFT MARK (Cf)", "ann\u200F", wire.ErrBadName, "U+200F"},
		{"U+061C ARABIC LETTER MARK (Cf)", "علي\u061C", wire.ErrBadName, "U+061C"},
		{"U+200B ZERO WIDTH SPACE (Cf)", "an\u200Bn", wire.ErrBadName, "U+200B"},
		{"U+200C ZERO WIDTH NON-JOINER (Cf)", "an\u200Cn", wire.ErrBadName, "U+200C"},
		{"U+200D ZERO WIDTH JOINER in an emoji sequence (Cf)", "👩\u200D💻", wire.ErrBadName, "U+200D"},
		{"U+2060 WORD JOINER (Cf)", "an\u2060n", wire.ErrBadName, "U+2060"},
		{"U+FEFF byte order mark (Cf)", "\uFEFFann", wire.ErrBadName, "U+FEFF"},
		{"U+00AD SOFT HYPHEN (Cf)", "an\u00ADn", wire.ErrBadName, "U+00AD"},
		{"U+180E MONGOLIAN VOWEL SEPARATOR (Cf)", "an\u180En", wire.ErrBadName, "U+180E"},
		{"a tag character (Cf)", "ann\U000E0041", wire.ErrBadName, "U+E0041"},
		{"U+3164 HANGUL FILLER (invisible)", "\u3164", wire.ErrBadName, "U+3164"},
		{"U+115F HANGUL CHOSEONG FILLER (invisible)", "an\u115Fn", wire.ErrBadName, "U+115F"},
		{"U+FFA0 HALFWIDTH HANGUL FILLER (invisible)", "an\uFFA0n", wire.ErrBadName, "U+FFA0"},
		{"U+034F COMBINING GRAPHEME JOINER (invisible)", "an\u034Fn", wire.ErrBadName, "U+034F"},
		{"U+FE0F VARIATION SELECTOR-16 (invisible)", "ann ❤\uFE0F", wire.ErrBadName, "U+FE0F"},
		{"U+2800 BRAILLE PATTERN BLANK (invisible)", "\u2800", wire.ErrBadName, "U+2800"},
		{"U+FFFC OBJECT REPLACEMENT CHARACTER", "an\uFFFCn", wire.ErrBadName, "U+FFFC"},
		{"private use (Co)", "ann\uE000", wire.ErrBadName, "U+E000"},
		{"private use, plane 15 (Co)", "ann\U000F0000", wire.ErrBadName, "U+F0000"},
		{"noncharacter U+FDD0", "ann\uFDD0", wire.ErrBadName, "U+FDD0"},
		{"noncharacter U+FFFE", "ann\uFFFE", wire.ErrBadName, "U+FFFE"},
		{"noncharacter U+FFFF", "ann\uFFFF", wire.ErrBadName, "U+FFFF"},
		{"noncharacter U+1FFFF", "ann\U0001FFFF", wire.ErrBadName, "U+1FFFF"},
		{"unassigned U+0378", "ann\u0378", wire.ErrBadName, "U+0378"},
		{"only a space", " ", wire.ErrBadName, "starts with a space"},
		{"a leading space", " ann", wire.ErrBadName, "starts with a space"},
		{"a trailing space", "ann ", wire.ErrBadName, "ends with a space"},
		{"two spaces in a row", "ann  lee", wire.ErrBadName, "two spaces"},
		{"U+00A0 NO-BREAK SPACE", "ann\u00A0lee", wire.ErrBadName, "U+00A0"},
		{"U+3000 IDEOGRAPHIC SPACE", "玩\u3000家", wire.ErrBadName, "U+3000"},
		{"U+2028 LINE SEPARATOR", "ann\u2028lee", wire.ErrBadName, "U+2028"},
		{"U+1680 OGHAM SPACE MARK", "ann\u1680lee", wire.ErrBadName, "U+1680"},
		{"a tab", "ann\tlee", wire.ErrBadName, "U+0009"},
		{"a combining mark at the start", "\u0301ann", wire.ErrBadName, "at the start"},
		{"an enclosing mark at the start", "\u20DD", wire.ErrBadName, "at the start"},
		{"a combining mark on a space", "ann \u0301lee", wire.ErrBadName, "not on a letter"},
		{"a combining mark on a sign", "ann-\u0301", wire.ErrBadName, "not on a letter"},
		{"five marks in a row", "e\u0301\u0302\u0303\u0304\u0305", wire.ErrBadName, "more than 4"},
		{"Latin and Hebrew", "annדנה", wire.ErrBadName, "mixes"},
		{"Hebrew and Latin", "דנהann", wire.ErrBadName, "mixes"},
		{"Latin and Arabic digits", "ann٣", wire.ErrBadName, "mixes"},
		{"a bot's name", "bot1", ErrNameReserved, "reserved"},
		{"a bot's name, capitals", "BOT2", ErrNameReserved, "reserved"},
		{"a bot's name, a leading zero", "bot01", ErrNameReserved, "reserved"},
		{"a bot's name, big", "bot12345", ErrNameReserved, "reserved"},
		{"a bot's name, fullwidth", "ｂｏｔ１", ErrNameReserved, "reserved"},
		{"a bot's name with a Cyrillic о", "b\u043Et1", ErrNameReserved, "reserved"},
		{"a bot's name in Cyrillic and Greek capitals", "\u0412\u039F\u04221", ErrNameReserved, "reserved"},
		{"a bot's name with a mathematical 𝐛", "\U0001D41Bot3", ErrNameReserved, "reserved"},
		{"a bot's name with Arabic-Indic digits", "bot٣", wire.ErrBadName, "mixes"},
	}
	for _, c := range bad {
		err := CheckPlayerName(c.name)
		var ne *NameError
		switch {
		case err == nil:
			t.Errorf("%s: %q accepted", c.what, c.name)
		case !errors.Is(err, c.want):
			t.Errorf("%s: %q: %v, want %v", c.what, c.name, err, c.want)
		case !errors.As(err, &ne) || ne.Name != c.name:
			t.Errorf("%s: %q: %v is not a NameError of the name", c.what, c.name, err)
		case !strings.Contains(err.Error(), c.says):
			t.Errorf("%s: %q: %q does not say %q", c.what, c.name, err, c.says)
		}
		if err != nil && (strings.ContainsFunc(err.Error(), func(r rune) bool { return r == '\u202E' || r == '\u200B' || r == '\n' }) || !utf8.ValidString(err.Error())) {
			t.Errorf("%s: the reason %q carries the character it refuses, or invalid UTF-8", c.what, err)
		}
	}
}

// Names that look alike fold alike, names that do not fold apart.
func TestFoldName(t *testing.T) {
	t.Parallel()
	same := []struct{ what, a, b string }{
		{"case", "ann", "ANN"},
		{"mixed case", "Ann", "aNn"},
		{"a Cyrillic а", "ann", "\u0430nn"},
		{"a capital Cyrillic А", "Ann", "\u0410nn"},
		{"all Cyrillic", "COPE", "\u0421\u041E\u0420\u0415"},
		{"a Greek ο", "bob", "b\u03BFb"},
		{"Greek capitals", "NIKE", "\u039D\u0399\u039A\u0395"},
		{"an Armenian օ", "bob", "b\u0585b"},
		{"a dotless ı", "kim", "k\u0131m"},
		{"a Cyrillic і with a Cyrillic ё", "ië", "\u0456\u0451"},
		{"fullwidth", "ann", "ａｎｎ"},
		{"mathematical bold", "ann", "\U0001D41A\U0001D427\U0001D427"},
		{"a ligature", "jeff", "je\uFB00"},
		{"a superscript", "ann2", "ann²"},
		{"the Kelvin sign", "kim", "\u212Aim"},
		{"precomposed and combining", "Zoë", "Zoe\u0308"},
		{"sharp s", "strasse", "STRAßE"},
		{"final sigma", "σοφος", "ΣΟΦΟΣ"},
	}
	for _, c := range same {
		if fa, fb := FoldName(c.a), FoldName(c.b); fa != fb {
			t.Errorf("%s: %q folds to %+q, %q to %+q: want the same", c.what, c.a, fa, c.b, fb)
		}
	}
	apart := []struct{ what, a, b string }{
		{"an accent", "Zoe", "Zoë"},
		{"different letters", "ann", "anne"},
		{"a space", "ann lee", "annlee"},
		{"capital I and small l (a fixed-width font sets them apart)", "Ian", "lan"},
		{"O and 0", "b0b", "bob"},
		{"a small Cyrillic в is no Latin b", "bob", "\u0432ob"},
		{"a small Cyrillic н is no Latin h", "hal", "\u043Dal"},
	}
	for _, c := range apart {
		if fa, fb := FoldName(c.a), FoldName(c.b); fa == fb {
			t.Errorf("%s: %q and %q both fold to %+q", c.what, c.a, c.b, fa)
		}
	}
}

// The server's bots' names are the reserved ones, and the rules accept no other name of
// that form.
func TestBotNamesAreReserved(t *testing.T) {
	t.Parallel()
	for i := range 8 {
		n := botName(i)
		if !IsBotName(n) {
			t.Errorf("bot %d is named %q, which IsBotName does not reserve", i, n)
		}
		if err := wire.CheckName(n); err != nil {
			t.Errorf("bot %d is named %q, which the handshake refuses: %v", i, n, err)
		}
		if err := CheckPlayerName(n); !errors.Is(err, ErrNameReserved) {
			t.Errorf("a human may take the name %q of bot %d: %v", n, i, err)
		}
	}
}

// FuzzCheckPlayerName checks the rules' promises on any string: no panic; a name they accept
// is one the handshake carries, with no space at either end, and is refused again once a
// zero-width space or a right-to-left override is put anywhere in it; a refusal is a
// NameError that wraps one of the rules' errors; and FoldName is the same for a name and for
// its copy in the other Unicode normal form.
func FuzzCheckPlayerName(f *testing.F) {
	for _, s := range []string{"ann", "Ada Lovelace", "Zoë", "玩家", "bot1", "\u0430nn", "ann\u202E", "an\u200Bn", "\uFEFF", " ", "", "e\u0301\u0302", "علي٣"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, name string, at uint8) {
		err := CheckPlayerName(name)
		if err != nil {
			var ne *NameError
			if !errors.As(err, &ne) || ne.Name != name {
				t.Fatalf("%+q: %v is not a NameError of the name", name, err)
			}
			if !errors.Is(err, wire.ErrBadName) && !errors.Is(err, wire.ErrTooLong) && !errors.Is(err, ErrNameReserved) {
				t.Fatalf("%+q: %v wraps none of the rules' errors", name, err)
			}
			return
		}
		if werr := wire.CheckName(name); werr != nil {
			t.Fatalf("%+q accepted, but the handshake refuses it: %v", name, werr)
		}
		if strings.HasPrefix(name, " ") || strings.HasSuffix(name, " ") {
			t.Fatalf("%+q accepted with a space at an end", name)
		}
		i := int(at) % (len(name) + 1)
		for i < len(name) && !utf8.RuneStart(name[i]) {
			i++
		}
		for _, r := range []string{"\u200B", "\u202E"} {
			if spiked := name[:i] + r + name[i:]; CheckPlayerName(spiked) == nil {
				t.Fatalf("%+q accepted", spiked)
			}
		}
		if a, b := FoldName(norm.NFC.String(name)), FoldName(norm.NFD.String(name)); a != b {
			t.Fatalf("%+q folds to %+q composed, %+q decomposed", name, a, b)
		}
	})
}
