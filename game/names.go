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

	"github.com/ackattack/ackattack/internal/confusables"
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
	// ErrNameTaken: another seat or spectator on the server holds the name, or one that looks
	// like it (LooksLike).
	ErrNameTaken = errors.New("name taken")
	// ErrNameReserved: the name has the form the server gives its bots ("bot1", "bot2", …),
	// or is one of the server's and the teacher's (reservedNames), or looks like one of these.
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
//     in any case and any look-alike spelling (IsBotName: "b0t1" looks like "bot1"). So are
//     "server", "admin" and "teacher" (reservedNames), and their look-alikes.
//
// What it leaves to the seat table is uniqueness (a name another seat or a spectator holds,
// or one that looks like it: LooksLike). A name that passes may still use any script,
// punctuation, symbols and emoji.
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
	return checkReserved(name)
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

// Look-alike names. Two names look alike when a reader could take one for the other, and a
// server seats one of them only. The comparison stands on Unicode's confusable detection (UTS
// #39, internal/confusables): the skeleton of a string, in which every character drawn like
// another becomes the same prototype ("Ꭼve" with a Cherokee letter and "Eve", "b0t1" and
// "bOtl", "rn" and "m"). The skeleton keeps case, and names are also compared blind to it
// ("Eve" and "eve"), but the two relations do not combine into one: capital I looks like small
// l, and is small i in another case, yet i and l look nothing alike. So a name has three keys,
// each lookKey of the name in one form, and two names look alike when any key of one equals
// the same key of the other (LooksLike):
//
//  1. the name as typed: capitals look like what they look like ("Ian" and "lan", a Greek
//     capital Eta "Ηal" and "Hal");
//  2. the name case-folded: any case of a name is the same name, and so are its look-alikes
//     in any case ("EVE", "eve", "Ꭼve", "ЕVE" with a Cyrillic Е);
//  3. the name with its ASCII letters case-folded and its other characters as typed: a
//     capital look-alike mixed with ASCII letters of another case ("ΗIAN" and "hian").
//
// A key is reached in small steps, each undoing one way of writing a letter differently
// (lookKey): the compatibility decomposition (NFKD: fullwidth "ｅｖｅ", mathematical "𝐞𝐯𝐞",
// ligatures, superscripts), the game's few look-alikes that Unicode's table lacks
// (extraLookalikes), the skeleton, case folding, and the skeleton again, since a folded letter
// may have a prototype of its own.
//
// What stays apart: accents (Zoë is not Zoe), small i and small l, and every letter from the
// letters it is not drawn like. Unicode's table is wider than what a terminal font shows
// (it also pairs characters alike in some fonts only), so an honest name is refused now and
// then: the reason names the look-alike, and the player chooses another.

// extraLookalikes are letters that a terminal font draws like a Latin letter although
// Unicode's table maps them elsewhere: small Cyrillic п is an n without the serif in the
// fixed-width fonts of a class's terminals, where the table pairs it with Greek π. Each
// replaces the table's prototype of its character.
var extraLookalikes = map[rune]string{
	'\u043F': "n", // CYRILLIC SMALL LETTER PE
}

// skeletonOf is the compatibility decomposition of s, with extraLookalikes, in UTS #39's
// skeleton.
func skeletonOf(s string) string {
	s = norm.NFKD.String(s)
	if strings.IndexFunc(s, func(r rune) bool { _, ok := extraLookalikes[r]; return ok }) >= 0 {
		var b strings.Builder
		for _, r := range s {
			if to, ok := extraLookalikes[r]; ok {
				b.WriteString(to)
			} else {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	return confusables.Skeleton(s)
}

// lookKey is the skeleton of s, case-folded, then its skeleton again.
func lookKey(s string) string {
	if k, ok := asciiLookKey(s); ok {
		return k
	}
	return lookKeySlow(s)
}

// lookKeySlow is lookKey the long way, for any s.
func lookKeySlow(s string) string {
	return skeletonOf(foldCase(skeletonOf(s)))
}

// asciiLookKey is lookKey of an ASCII name whose characters' prototypes are ASCII too (every
// character but %), without the normalisations, which leave ASCII as it is: a server compares
// each name that joins with every seat's and spectator's, and most are ASCII. ok is false for
// any other s.
func asciiLookKey(s string) (string, bool) {
	skel := func(s string) (string, bool) {
		var b []byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= utf8.RuneSelf {
				return "", false
			}
			p, ok := confusables.Prototype(rune(c))
			switch {
			case !ok:
				if b != nil {
					b = append(b, c)
				}
				continue
			case b == nil:
				b = append(make([]byte, 0, len(s)+4), s[:i]...)
			}
			for j := 0; j < len(p); j++ {
				if p[j] >= utf8.RuneSelf {
					return "", false
				}
			}
			b = append(b, p...)
		}
		if b == nil {
			return s, true
		}
		return string(b), true
	}
	k, ok := skel(s)
	if !ok {
		return "", false
	}
	return skel(strings.ToLower(k))
}

// foldCase is Unicode's full case folding (ANN is ann, ß is ss, final ς is σ), then every
// letter in its small form. The second step makes the fold one form per letter: x/text's
// folding turns a Cherokee capital into its small letter and a small letter into its capital,
// so that folding twice would give the capital back.
func foldCase(s string) string {
	return strings.Map(unicode.ToLower, cases.Fold().String(s))
}

// nameLook holds the three keys of a name (see above).
type nameLook [3]string

// lookOf returns the keys of name.
func lookOf(name string) nameLook {
	if isASCII(name) { // NFKD leaves it as it is, and both folds make its letters small
		lower := lookKey(strings.ToLower(name))
		return nameLook{lookKey(name), lower, lower}
	}
	// Decomposed first, so that an ASCII letter under an accent is folded by foldASCII
	// whether the name came composed or not (İ is I and a dot above).
	name = norm.NFKD.String(name)
	return nameLook{lookKey(name), lookKey(foldCase(name)), lookKey(foldASCII(name))}
}

// like reports whether any key of l equals the same key of o.
func (l nameLook) like(o nameLook) bool {
	return l[0] == o[0] || l[1] == o[1] || l[2] == o[2]
}

// isASCII: every byte of s is ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldASCII is s with its ASCII capitals made small.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// LooksLike reports whether names a and b look alike: a server seats one of them only.
func LooksLike(a, b string) bool { return lookOf(a).like(lookOf(b)) }

// FoldName is one form of name that names which look alike in any case share: its key blind
// to case (the second above). Names with the same fold look alike; the converse needs all
// three keys (LooksLike). A client names the identities it keeps by it (cmd/client), so that
// ann and ANN are one player there.
func FoldName(name string) string { return lookKey(foldCase(name)) }

// reservedNames are names for the server and the teacher, never a student's: the server's
// own reports and events speak as "server", the teacher's actions are logged as "teacher",
// and a student named "admin" could pass a chat line for an announcement. Their look-alikes
// are reserved with them.
var reservedNames = []string{"server", "admin", "teacher"}

// reservedLooks are the looks of reservedNames.
var reservedLooks = func() []nameLook {
	out := make([]nameLook, len(reservedNames))
	for i, n := range reservedNames {
		out[i] = lookOf(n)
	}
	return out
}()

// botName is the name the server gives its i-th bot (from 0): bot1, bot2, …
func botName(i int) string { return fmt.Sprintf("bot%d", i+1) }

// digitLooks[d] is the key of the digit d: "o" for 0 (the skeleton's O, folded), "l" for 1,
// the digit itself for the others.
var digitLooks = func() (out [10]string) {
	for d := range out {
		out[d] = lookKey(strconv.Itoa(d))
	}
	return out
}()

// IsBotName reports whether name has the form of the server's bots' names, "bot" and one or
// more decimal digits, or looks like such a name: BOT1, bot01, ｂｏｔ１, b0t1, botl and bоt1
// with a Cyrillic о all count. Such names are for the server's bots only.
func IsBotName(name string) bool {
	_, ok := botLookalike(name)
	return ok
}

// botLookalike returns the bot's name that name looks like ("bot1" for "b0tl"), if any: a key
// of name is "bot" and the keys of one or more digits (or other decimal digits).
func botLookalike(name string) (string, bool) {
	for _, k := range lookOf(name) {
		rest, ok := strings.CutPrefix(k, "bot")
		if !ok || rest == "" {
			continue
		}
		digits := []byte("bot")
	next:
		for rest != "" {
			for d, dk := range digitLooks {
				if after, ok := strings.CutPrefix(rest, dk); ok {
					digits, rest = append(digits, byte('0'+d)), after
					continue next
				}
			}
			r, n := utf8.DecodeRuneInString(rest)
			if !unicode.Is(unicode.Nd, r) {
				break
			}
			digits, rest = utf8.AppendRune(digits, r), rest[n:]
		}
		if rest == "" {
			return string(digits), true
		}
	}
	return "", false
}

// checkReserved refuses a name that looks like a bot's or one of reservedNames.
func checkReserved(name string) error {
	if bot, ok := botLookalike(name); ok {
		if bot == name {
			return nameErrorf(name, ErrNameReserved, "is reserved: the server names its bots like that")
		}
		return lookalikeError(name, ErrNameReserved, bot, ": reserved for the server's bots")
	}
	look := lookOf(name)
	for i, r := range reservedLooks {
		if !look.like(r) {
			continue
		}
		if name == reservedNames[i] {
			return nameErrorf(name, ErrNameReserved, "is reserved for the server and the teacher")
		}
		return lookalikeError(name, ErrNameReserved, reservedNames[i], ": reserved for the server and the teacher")
	}
	return nil
}

// lookalikeError says that name looks like other, then tail. When the reader may not see the
// difference (a character outside ASCII), the name's code points show it, if they fit in a
// Disconnect's text (wire.MaxReasonText) with the rest.
func lookalikeError(name string, err error, other, tail string) error {
	if strconv.Quote(name) != strconv.QuoteToASCII(name) {
		e := nameErrorf(name, err, "(%+q) looks like %q%s", name, other, tail)
		if len(e.Error()) <= wire.MaxReasonText {
			return e
		}
	}
	return nameErrorf(name, err, "looks like %q%s", other, tail)
}

// refuseName says why the server refuses to seat a player, or to admit a spectator, under
// name, or nil: the name breaks a rule of CheckPlayerName, or another seat or spectator holds
// it or a name that looks like it (LooksLike): a spectator's name is shown beside its chat
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
	look := lookOf(name)
	for _, x := range s.seats.players {
		if x == nil || x == own || s.holdExpired(x, now) || !lookOf(x.name).like(look) {
			continue
		}
		switch held := x.peer == nil && x.bot == nil; {
		case x.name == name && held:
			return nameErrorf(name, ErrNameTaken, "is taken (seat %d, held for its player who left)", x.idx)
		case x.name == name:
			return nameErrorf(name, ErrNameTaken, "is taken (seat %d)", x.idx)
		case held:
			return lookalikeError(name, ErrNameTaken, x.name, fmt.Sprintf(", held for its player who left (seat %d)", x.idx))
		default:
			return lookalikeError(name, ErrNameTaken, x.name, fmt.Sprintf(", who is seated (seat %d)", x.idx))
		}
	}
	for _, x := range s.seats.spectators {
		switch {
		case x == nil || !lookOf(x.name).like(look):
		case x.name == name:
			return nameErrorf(name, ErrNameTaken, "is taken (spectator %d)", x.num)
		default:
			return lookalikeError(name, ErrNameTaken, x.name, fmt.Sprintf(", who is watching (spectator %d)", x.num))
		}
	}
	return nil
}
