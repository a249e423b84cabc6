package game

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"

	"github.com/ackattack/ackattack/net/transport"
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
		{"a Cyrillic а look-alike (refused only where ann sits: LooksLike)", "\u0430nn"},
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
		{"a server's name", "servers"},
		{"admins", "admins"},
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
		{"a bot's name with a zero for o", "b0t1", ErrNameReserved, `looks like "bot1"`},
		{"a bot's name with an l for 1", "botl", ErrNameReserved, `looks like "bot1"`},
		{"a bot's name with an o for 0", "boto", ErrNameReserved, `looks like "bot0"`},
		{"server", "server", ErrNameReserved, "reserved for the server"},
		{"admin", "Admin", ErrNameReserved, `looks like "admin"`},
		{"teacher", "TEACHER", ErrNameReserved, `looks like "teacher"`},
		{"teacher with a Cyrillic е", "t\u0435acher", ErrNameReserved, `looks like "teacher"`},
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

// Names that look alike look alike (LooksLike), and names that do not, do not: Unicode's
// confusables, in any case.
func TestLooksLike(t *testing.T) {
	t.Parallel()
	same := []struct{ what, a, b string }{
		{"case", "ann", "ANN"},
		{"mixed case", "Ann", "aNn"},
		{"a Cherokee capital beside small letters", "eve", "\u13ACve"},
		{"a Cherokee small letter and a Latin small capital", "\u1D07ve", "\uAB7Cve"},
		{"a Cyrillic а", "ann", "\u0430nn"},
		{"Cyrillic а and п", "ann", "\u0430\u043F\u043F"},
		{"a capital Cyrillic А", "Ann", "\u0410nn"},
		{"all Cyrillic", "COPE", "\u0421\u041E\u0420\u0415"},
		{"Cyrillic and Latin mixed in one word", "paypal", "p\u0430yp\u0430l"},
		{"a Greek ο", "bob", "b\u03BFb"},
		{"Greek capitals", "NIKE", "\u039D\u0399\u039A\u0395"},
		{"a Greek capital Eta", "Hal", "\u0397al"},
		{"a Greek capital Eta beside ASCII capitals", "hian", "\u0397IAN"},
		{"an Armenian օ", "bob", "b\u0585b"},
		{"a dotless ı", "kim", "k\u0131m"},
		{"a Cyrillic і with a Cyrillic ё", "i\u00EB", "\u0456\u0451"},
		{"fullwidth", "eve", "\uFF45\uFF56\uFF45"},
		{"fullwidth capitals", "eve", "\uFF25\uFF36\uFF25"},
		{"mathematical bold", "ann", "\U0001D41A\U0001D427\U0001D427"},
		{"mathematical script", "bob", "\U0001D4B7\u2134\U0001D4B7"},
		{"a ligature", "jeff", "je\uFB00"},
		{"a superscript", "ann2", "ann\u00B2"},
		{"the Kelvin sign", "kim", "\u212Aim"},
		{"digit zero and o", "bob", "b0b"},
		{"digit one and l", "bot1", "botl"},
		{"digit one and capital I", "ali1", "aliI"},
		{"capital I and small l", "Ian", "lan"},
		{"capital I and small l, in capitals", "IAN", "lan"},
		{"rn and m", "sam", "sarn"},
		{"a vertical line and l", "lee", "|ee"},
		{"precomposed and combining", "Zo\u00EB", "Zoe\u0308"},
		{"a Devanagari accent on a Latin letter", "\u00E9ve", "e\u0954ve"},
		{"a short solidus overlay and ø", "s\u00F8s", "so\u0337s"},
		{"sharp s", "strasse", "STRA\u00DFE"},
		{"final sigma", "\u03C3\u03BF\u03C6\u03BF\u03C2", "\u03A3\u039F\u03A6\u039F\u03A3"},
	}
	for _, c := range same {
		if !LooksLike(c.a, c.b) || !LooksLike(c.b, c.a) {
			t.Errorf("%s: %q and %q (%+q) do not look alike: keys %+q and %+q", c.what, c.a, c.b, c.b, lookOf(c.a), lookOf(c.b))
		}
	}
	apart := []struct{ what, a, b string }{
		{"an accent", "Zoe", "Zo\u00EB"},
		{"a letter more", "ann", "anne"},
		{"another letter", "bob", "rob"},
		{"another first letter", "eve", "ave"},
		{"a space", "ann lee", "annlee"},
		{"small i and small l", "ian", "lan"},
		{"m and n", "mia", "nia"},
		{"a small Cyrillic в is no Latin b", "bob", "\u0432ob"},
		{"a small Cyrillic н is no Latin h", "hal", "\u043Dal"},
		{"Greek, not Latin", "zoe", "\u0396\u03C9\u03AE"},
	}
	for _, c := range apart {
		if LooksLike(c.a, c.b) {
			t.Errorf("%s: %q and %q (%+q) look alike: keys %+q and %+q", c.what, c.a, c.b, c.b, lookOf(c.a), lookOf(c.b))
		}
	}
	// FoldName is blind to case: the client names kept identities by it.
	for _, c := range [][2]string{{"ann", "ANN"}, {"\u13ACve", "\u13ACVE"}, {"\uAB7Cve", "\u13ACVE"}, {"strasse", "STRA\u00DFE"}} {
		if a, b := FoldName(c[0]), FoldName(c[1]); a != b {
			t.Errorf("%q folds to %+q, %q to %+q", c[0], a, c[1], b)
		}
	}
}

// The server refuses a name that looks like a seated player's, a held seat's or a spectator's,
// or like a reserved name, with the reason; and seats an honest name that only resembles one.
func TestLookalikeNamesRefused(t *testing.T) {
	t.Parallel()
	s, err := NewServer(ServerConfig{Seed: 1}, nowhere{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	s.seats.players[0] = &seat{idx: 0, name: "eve", downlink: downlink{peer: new(transport.Peer)}}
	s.seats.players[1] = &seat{idx: 1, name: "ann", downlink: downlink{peer: new(transport.Peer)}}
	s.seats.players[2] = &seat{idx: 2, name: "bob", left: now.Add(-time.Second)} // held
	s.seats.players[3] = &seat{idx: 3, name: botName(0), bot: &Bot{}}
	s.seats.spectators[0] = &spectator{num: 1, name: "zoe"}

	for _, c := range []struct {
		what, name string
		want       error  // nil: seated
		says       string // a piece of the reason
	}{
		{"the same name", "eve", ErrNameTaken, `name "eve" is taken (seat 0)`},
		{"capitals", "Eve", ErrNameTaken, `looks like "eve", who is seated (seat 0)`},
		{"a Cherokee Ꭼ", "\u13ACve", ErrNameTaken, `("\u13acve") looks like "eve", who is seated (seat 0)`},
		{"a Cherokee Ꭼ in capitals", "\u13ACVE", ErrNameTaken, `looks like "eve", who is seated`},
		{"a Cyrillic е", "\u0435ve", ErrNameTaken, `looks like "eve"`},
		{"a capital Greek Epsilon", "\u0395VE", ErrNameTaken, `looks like "eve"`},
		{"fullwidth", "\uFF45\uFF56\uFF45", ErrNameTaken, `looks like "eve"`},
		{"mathematical bold", "\U0001D41E\U0001D42F\U0001D41E", ErrNameTaken, `looks like "eve"`},
		{"a combining accent of another script", "e\u0954ve", nil, ""},
		{"Cyrillic а and п", "\u0430\u043F\u043F", ErrNameTaken, `looks like "ann", who is seated (seat 1)`},
		{"Cyrillic а, Latin nn", "\u0430nn", ErrNameTaken, `looks like "ann"`},
		{"a held seat's, with a zero", "b0b", ErrNameTaken, `looks like "bob", held for its player who left (seat 2)`},
		{"a held seat's, with a Greek capital and a Greek ο", "\u0392\u03BFb", ErrNameTaken, `looks like "bob", held for its player who left`},
		{"a spectator's", "ZOE", ErrNameTaken, `looks like "zoe", who is watching (spectator 1)`},
		{"a spectator's, with a zero", "z0e", ErrNameTaken, `looks like "zoe", who is watching`},
		{"the bot's", "bot1", ErrNameReserved, "the server names its bots like that"},
		{"the bot's, with a zero", "b0t1", ErrNameReserved, `looks like "bot1"`},
		{"the bot's, with an l", "botl", ErrNameReserved, `looks like "bot1"`},
		{"the bot's, a capital I", "BOTI", ErrNameReserved, `looks like "bot1"`},
		{"another bot's, in capitals with a zero", "B0T7", ErrNameReserved, `looks like "bot7"`},
		{"another bot's, a Cyrillic о", "b\u043Et3", ErrNameReserved, `looks like "bot3"`},
		{"server", "server", ErrNameReserved, "is reserved for the server and the teacher"},
		{"Server, with Cyrillic ѕ and е", "\u0405\u0435rver", ErrNameReserved, `looks like "server"`},
		{"admin", "admin", ErrNameReserved, "is reserved for the server and the teacher"},
		{"ADMIN, a capital I", "ADMIN", ErrNameReserved, `looks like "admin"`},
		{"admin with rn", "adrnin", ErrNameReserved, `looks like "admin"`},
		{"teacher", "Teacher", ErrNameReserved, `looks like "teacher"`},
		{"teacher, mathematical", "\U0001D42D\U0001D41E\U0001D41A\U0001D41C\U0001D421\U0001D41E\U0001D42B", ErrNameReserved, `looks like "teacher"`},
		// Honest names that only resemble one.
		{"anne beside ann", "anne", nil, ""},
		{"rob beside bob", "rob", nil, ""},
		{"ève beside eve", "\u00E8ve", nil, ""},
		{"eva beside eve", "eva", nil, ""},
		{"lan (l, not i)", "lan", nil, ""},
		{"robot1", "robot1", nil, ""},
		{"adm1n (1 is drawn like l, not like i)", "adm1n", nil, ""},
		{"bot alone", "bot", nil, ""},
		{"servers", "servers", nil, ""},
		{"Аня in Cyrillic", "\u0410\u043D\u044F", nil, ""},
		{"Zoë beside zoe", "Zo\u00EB", nil, ""},
	} {
		err := s.refuseName(c.name, nil, now)
		var ne *NameError
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %q refused: %v", c.what, c.name, err)
		case c.want == nil:
		case err == nil:
			t.Errorf("%s: %q (%+q) accepted", c.what, c.name, c.name)
		case !errors.Is(err, c.want) || !errors.As(err, &ne) || ne.Name != c.name:
			t.Errorf("%s: %q: %v, want a NameError of %v", c.what, c.name, err, c.want)
		case !strings.Contains(err.Error(), c.says):
			t.Errorf("%s: %q: %q does not say %q", c.what, c.name, err, c.says)
		}
	}
	// A player who comes back to its seat keeps its name.
	if err := s.refuseName("eve", s.seats.players[0], now); err != nil {
		t.Errorf("eve coming back to her seat: %v", err)
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
// NameError that wraps one of the rules' errors; a name looks like its copy in the other
// Unicode normal form, and like itself in capitals, in small letters and case-folded; and the
// short way to an ASCII name's key gives what the long way gives.
func FuzzCheckPlayerName(f *testing.F) {
	for _, s := range []string{"ann", "Ada Lovelace", "Zoë", "玩家", "bot1", "\u0430nn", "ann\u202E", "an\u200Bn", "\uFEFF", " ", "", "e\u0301\u0302", "علي٣", "\u13ACve", "b0t1", "Ian 100% `m|I\"", "STRA\u00DFE", "\u03A3\u039F\u03A6\u039F\u03A3"} {
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
		if k, ok := asciiLookKey(name); ok && k != lookKeySlow(name) {
			t.Fatalf("%+q: the key of an ASCII name is %+q, %+q the long way", name, k, lookKeySlow(name))
		}
		if a, b := lookOf(norm.NFC.String(name)), lookOf(norm.NFD.String(name)); a != b {
			t.Fatalf("%+q has the keys %+q composed, %+q decomposed", name, a, b)
		}
		for _, other := range []string{cases.Upper(language.Und).String(name), cases.Lower(language.Und).String(name), foldCase(name)} {
			if !LooksLike(name, other) || FoldName(name) != FoldName(other) {
				t.Fatalf("%+q and %+q, the same name in another case, do not look alike: keys %+q and %+q", name, other, lookOf(name), lookOf(other))
			}
		}
	})
}
