package game

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"

	"github.com/ackattack/ackattack/net/wire"
)

// Player names: the one place that says which names a player may sit under.
//
// Two layers check a name. The handshake (wire.CheckName) checks what every packet must hold
// to be well formed: 1 to wire.MaxNameLen bytes of UTF-8 without control characters. That
// rule is about bytes and stays fixed, so that two hosts never disagree on whether a packet is
// malformed. The rules below are the game's: a name is shown beside every chat line and in
// every player table, so it must be visible, read in one direction, and not pass for another
// player's or a bot's. They need Unicode's tables, which grow with each Unicode version, and
// a name they refuse is refused with a reason the player reads (Server.refuseName), not
// dropped as a malformed packet. The client applies them too (CheckPlayerName) before it
// connects, so a bad --name fails at once.
//
// A name that breaks a rule is refused, never repaired: the player chooses its name, and a
// server that quietly changed it (trimmed a space, dropped an invisible character, added a
// suffix) would show the others a name its owner never typed.

// Errors of the names' rules, beside wire.ErrBadName (a character or form the rules refuse)
// and wire.ErrTooLong (more than wire.MaxNameLen bytes), which CheckPlayerName also wraps.
var (
	// ErrNameTaken: another seat on the server holds the name, or one that looks the same
	// (FoldName).
	ErrNameTaken = errors.New("name taken")
	// ErrNameReserved: the name has the form the server gives its bots ("bot1", "bot2", …).
	ErrNameReserved = errors.New("name reserved")
)

// NameError says why a name is refused. Its text is for the player, who reads it on the
// screen and at exit.
type NameError struct {
	Name   string
	Reason string // what is wrong, after `name "…" `
	Err    error  // wire.ErrBadName, wire.ErrTooLong, ErrNameTaken or ErrNameReserved
}

func (e *NameError) Error() string { return fmt.Sprintf("name %q %s", e.Name, e.Reason) }
func (e *NameError) Unwrap() error { return e.Err }

func nameErrorf(name string, err error, format string, args ...any) *NameError {
	return &NameError{Name: name, Err: err, Reason: fmt.Sprintf(format, args...)}
}

// maxMarksInARow bounds the combining marks on one character: enough for every script's
// stacked vowels and tones (Vietnamese writes two, Tibetan a few), too few for the towers of
// accents that spill over the chat's neighbouring lines.
const maxMarksInARow = 4

// invisibleSymbols are characters of the graphic categories that draw nothing: U+2800
// BRAILLE PATTERN BLANK (a symbol, So) and U+FFFC OBJECT REPLACEMENT CHARACTER. The other
// blank-looking letters (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0) are Unicode's
// default-ignorable code points, refused with those.
var invisibleSymbols = []rune{0x2800, 0xFFFC}

// CheckPlayerName reports why a human player may not sit under name, or nil. Its rules, each
// refused with a NameError that names the character and where it is:
//
//   - The handshake's: 1 to wire.MaxNameLen (32) bytes of valid UTF-8 without control
//     characters (Unicode category Cc).
//   - No format characters (category Cf): they are invisible, and some change the direction
//     of the text around them. U+202E RIGHT-TO-LEFT OVERRIDE and the other bidi controls,
//     U+200B ZERO WIDTH SPACE, the zero-width joiners U+200C and U+200D (so no emoji
//     sequences joined by them), U+2060 WORD JOINER, U+FEFF (the byte order mark), U+00AD SOFT
//     HYPHEN, the tag characters of plane 14, and the rest.
//   - No other invisible characters: Unicode's other default-ignorable code points (the
//     Hangul fillers, U+034F COMBINING GRAPHEME JOINER, …), the variation selectors (so no
//     U+FE0F after an emoji), U+2800 BRAILLE PATTERN BLANK and U+FFFC.
//   - No private-use characters (Co), which every font draws differently, no noncharacters
//     (U+FDD0..U+FDEF, U+FFFE, U+FFFF and their likes in every plane), and no characters
//     that Unicode has not assigned (yet): nobody can say how they look.
//   - One kind of space: U+0020, never first or last, never two in a row. No other space
//     (U+00A0 NO-BREAK SPACE, U+3000 IDEOGRAPHIC SPACE, the line and paragraph separators, …).
//   - A combining mark (category M) follows a letter or a number (or another mark on it),
//     at most maxMarksInARow (4) in a row: a name that starts with a mark, or puts one on a
//     space or a sign, or stacks a tower of them, is refused.
//   - One direction: a name may not mix left-to-right letters with right-to-left letters or
//     Arabic digits (bidi classes L against R, AL and AN). Mixed, a terminal that lays text out
//     in both directions may reorder the name, and the chat line it starts.
//   - The form of the server's bots' names is theirs (ErrNameReserved): "bot" and a number,
//     in any case and any look-alike spelling (IsBotName).
//
// What it leaves to the seat table is uniqueness (a name another seat holds, compared by
// FoldName). A name that passes may still use any script, punctuation, symbols and emoji.
func CheckPlayerName(name string) error {
	if err := wire.CheckName(name); err != nil {
		switch {
		case name == "":
			return nameErrorf(name, wire.ErrBadName, "is empty")
		case len(name) > wire.MaxNameLen:
			return nameErrorf(name, wire.ErrTooLong, "is %d bytes long, at most %d", len(name), wire.MaxNameLen)
		case !utf8.ValidString(name):
			return nameErrorf(name, wire.ErrBadName, "is not valid UTF-8")
		}
		for i, r := range name {
			if unicode.IsControl(r) {
				return nameErrorf(name, wire.ErrBadName, "has the control character %U at byte %d", r, i)
			}
		}
		return &NameError{Name: name, Reason: "is refused by the handshake: " + err.Error(), Err: err}
	}
	if err := checkNameChars(name); err != nil {
		return err
	}
	if IsBotName(name) {
		return nameErrorf(name, ErrNameReserved, "is reserved: the server names its bots like that")
	}
	return nil
}

// checkNameChars applies the character rules of CheckPlayerName to a name the handshake
// accepts.
func checkNameChars(name string) error {
	bad := func(i int, r rune, what string) error {
		return nameErrorf(name, wire.ErrBadName, "has %U at byte %d, %s", r, i, what)
	}
	var (
		prev       rune // the character before, 0 at the start
		marks      int  // combining marks since the last base
		markable   bool // the last base takes combining marks (a letter or a number)
		ltr, rtl   bool // a strong left-to-right, right-to-left character seen
		firstL     int  // where the first of each was
		firstR     int
		rtlExample rune
	)
	for i, r := range name {
		switch {
		case r == ' ':
			switch {
			case i == 0:
				return nameErrorf(name, wire.ErrBadName, "starts with a space")
			case i == len(name)-1:
				return nameErrorf(name, wire.ErrBadName, "ends with a space")
			case prev == ' ':
				return nameErrorf(name, wire.ErrBadName, "has two spaces in a row at byte %d", i-1)
			}
		case unicode.Is(unicode.Cf, r) && isDirectionControl(r):
			return bad(i, r, "an invisible direction control")
		case unicode.Is(unicode.Cf, r):
			return bad(i, r, "an invisible format character")
		case unicode.Is(unicode.Co, r):
			return bad(i, r, "a private-use character")
		case unicode.Is(unicode.Noncharacter_Code_Point, r):
			return bad(i, r, "a noncharacter")
		case unicode.In(r, unicode.Z) || unicode.IsSpace(r):
			return bad(i, r, "a space other than U+0020")
		case unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) || isInvisibleSymbol(r):
			return bad(i, r, "an invisible character")
		case !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S):
			return bad(i, r, "unassigned in Unicode")
		}
		if unicode.In(r, unicode.M) {
			switch {
			case !markable:
				if prev == 0 {
					return bad(i, r, "a combining mark at the start")
				}
				return bad(i, r, "a combining mark not on a letter or a number")
			case marks == maxMarksInARow:
				return nameErrorf(name, wire.ErrBadName, "has more than %d combining marks in a row at byte %d", maxMarksInARow, i)
			}
			marks++
		} else {
			marks, markable = 0, unicode.In(r, unicode.L, unicode.N)
		}
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.L:
			if !ltr {
				ltr, firstL = true, i
			}
		case bidi.R, bidi.AL, bidi.AN:
			if !rtl {
				rtl, firstR, rtlExample = true, i, r
			}
		}
		if ltr && rtl {
			return nameErrorf(name, wire.ErrBadName, "mixes left-to-right (byte %d) and right-to-left (%U at byte %d)", firstL, rtlExample, firstR)
		}
		prev = r
	}
	return nil
}

// isDirectionControl: r is one of the format characters that set the direction of the text:
// the marks U+200E, U+200F and U+061C, the embeddings and overrides U+202A..U+202E, and the
// isolates U+2066..U+2069.
func isDirectionControl(r rune) bool {
	return r == 0x200E || r == 0x200F || r == 0x061C || 0x202A <= r && r <= 0x202E || 0x2066 <= r && r <= 0x2069
}

func isInvisibleSymbol(r rune) bool {
	for _, x := range invisibleSymbols {
		if r == x {
			return true
		}
	}
	return false
}

// FoldName returns the form in which two names are compared: names with the same fold look
// alike, and a server seats one of them only. It is, in order:
//
//  1. Unicode compatibility decomposition (NFKD): fullwidth letters (ａｎｎ), mathematical
//     letters (𝐚𝐧𝐧), ligatures (ﬀ), superscripts (²) and the like become the plain letters
//     they stand for, and accents come apart from their letters;
//  2. the look-alikes of nameLookalikes: Cyrillic, Greek, Armenian and a few Latin letters that
//     are drawn like a Latin letter or a digit, mapped to it, in the case they are drawn in
//     (Cyrillic а is Latin a, capital Cyrillic Н is Latin H);
//  3. full case folding (ANN is ann, ß is ss, final ς is σ), and NFKD again.
//
// The accents stay (Zoë is not Zoe), and so do the look-alikes within ASCII (I, l and 1, O
// and 0, rn and m): the terminal's fixed-width fonts set them apart, and folding them would
// refuse many ordinary names.
func FoldName(name string) string {
	s := norm.NFKD.String(name)
	s = strings.Map(func(r rune) rune {
		if to, ok := nameLookalikes[r]; ok {
			return to
		}
		return r
	}, s)
	return norm.NFKD.String(cases.Fold().String(s))
}

// nameLookalikes maps letters of other scripts to the Latin letter or digit they are drawn
// like, case by case: a capital is mapped if it looks like a Latin capital, a small letter if
// it looks like a Latin small letter (small Cyrillic н looks like no Latin letter, capital Н
// like H). After the map, FoldName folds case, so Н and н end up as h and н: unlike, as they
// look. Letters with accents come here decomposed (NFKD), so й is и and a breve, ё is е
// and a diaeresis, and the base letter is enough. The list follows the look-alikes of Unicode's
// confusables data (UTS #39) for these scripts, limited to letters a terminal font draws
// the same.
var nameLookalikes = map[rune]rune{
	// Cyrillic capitals.
	'А': 'A', 'В': 'B', 'Е': 'E', 'З': '3', 'І': 'I', 'Ј': 'J', 'К': 'K', 'М': 'M', 'Н': 'H',
	'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'У': 'Y', 'Х': 'X', 'Ѕ': 'S', 'Ү': 'Y', 'Һ': 'H',
	'Ӏ': 'I', 'Ԛ': 'Q', 'Ԝ': 'W',
	// Cyrillic small letters.
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i',
	'ј': 'j', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l', 'ү': 'y',
	// Greek capitals.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N',
	'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X', 'Ϲ': 'C', 'Ϳ': 'J',
	// Greek small letters.
	'ο': 'o', 'ι': 'i', 'ν': 'v', 'ρ': 'p', 'υ': 'u', 'γ': 'y', 'ϲ': 'c', 'ϳ': 'j', 'α': 'a',
	// Armenian.
	'Օ': 'O', 'Ս': 'U', 'օ': 'o', 'ս': 'u', 'հ': 'h', 'ո': 'n', 'ց': 'g',
	// Latin letters outside ASCII drawn like ASCII ones.
	'ı': 'i', 'ɑ': 'a', 'ɡ': 'g', 'ɩ': 'i', 'ȷ': 'j',
}

// botName is the name the server gives its i-th bot (from 0): bot1, bot2, …
func botName(i int) string { return fmt.Sprintf("bot%d", i+1) }

// IsBotName reports whether name has the form of the server's bots' names, "bot" and one or
// more decimal digits, once folded (FoldName): BOT1, bot01, ｂｏｔ１ and bоt1 with a Cyrillic о
// all count. Such names are for the server's bots only.
func IsBotName(name string) bool {
	rest, ok := strings.CutPrefix(FoldName(name), "bot")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if !unicode.Is(unicode.Nd, r) {
			return false
		}
	}
	return true
}

// refuseName says why the server refuses to seat a player, or to admit a spectator, under
// name, or nil: the name breaks a rule of CheckPlayerName, or another seat or spectator holds
// it or a look-alike of it (the same FoldName): a spectator's name is shown beside its chat
// lines like a player's, and must not pass for one. own is the seat of the same player id
// (nil if none): a player who comes back to its seat is compared with the others only, so it
// keeps its name. A seat that waits for its player who left (SeatHold) keeps its name from
// others until it is freed.
//
// A taken name is refused rather than given a suffix ("ann" becoming "ann2"): the player
// reads why at once and chooses, where a suffix would make a name it never asked for, which
// the others could still mistake for the original, and which a later "ann2" would then
// collide with in turn. It is also what a player who restarted its client (a new player id)
// while its old seat is held needs to see: the seat keeps the name until the hold runs out.
func (s *Server) refuseName(name string, own *seat, now time.Time) error {
	if err := CheckPlayerName(name); err != nil {
		return err
	}
	fold := FoldName(name)
	taken := func(other, who string) error {
		switch {
		case other == name:
			return nameErrorf(name, ErrNameTaken, "is taken (%s)", who)
		case strconv.Quote(name) != strconv.QuoteToASCII(name):
			// The reader may not see the difference: the name's code points show it.
			return nameErrorf(name, ErrNameTaken, "(%+q) looks like %q (%s)", name, other, who)
		}
		return nameErrorf(name, ErrNameTaken, "looks like %q (%s)", other, who)
	}
	for _, x := range s.seats.players {
		if x == nil || x == own || s.holdExpired(x, now) || FoldName(x.name) != fold {
			continue
		}
		who := fmt.Sprintf("seat %d", x.idx)
		if x.peer == nil && x.bot == nil {
			who += ", held for its player who left"
		}
		return taken(x.name, who)
	}
	for _, x := range s.seats.spectators {
		if x != nil && FoldName(x.name) == fold {
			return taken(x.name, fmt.Sprintf("spectator %d", x.num))
		}
	}
	return nil
}
