package lesson

import (
	"bytes"
	"errors"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/ackattack/ackattack/assets"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
)

// tiny is the smallest script there is: a number, a title, one step with one until.
const tiny = "lesson 7\ntitle Tiny\nstep Only\nuntil frames +10\n"

func TestParseReadsEveryDirective(t *testing.T) {
	src := `# a comment
lesson 12
title A lesson of everything
about First line.
about Second line.
map continent
seed 9
bots 3
link loss=30 latency=40ms jitter=5ms dup=1 burst=2 burst-length=3
late fastforward
enemy-every 500ms
max-enemies 80
realtime-max 2
mtu 576
autoplay on
show packets-lost hol-avoided type=SpawnEnemy

step The first
	text Some text,
	text on two lines.
	try Press d.
	read 2s
	do link clean
	do spawn 5
	do spawn-kill after=3s
	do bots-chat
	do inject-desync 4
	do stop-the-world all
	do late rollback
	every 500ms spawn-kill
	until messages-waited type=KillEnemy
	until frames >=300
	show seconds

step The second
  until seconds +4
`
	s, err := Parse("x.txt", []byte(strings.ReplaceAll(src, "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := Setup{Map: "continent", Seed: 9, Bots: 3, Late: game.LateFastForward, EnemyEvery: 500 * time.Millisecond,
		MaxEnemies: 80, RealtimeMax: 2, MTU: 576, Autoplay: true,
		Link: linksim.Settings{LossPercent: 30, Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, DupPercent: 1, BurstLossPercent: 2, BurstLength: 3}}
	if s.Number != 12 || s.Title != "A lesson of everything" || len(s.About) != 2 || s.Setup != want {
		t.Errorf("header: %d %q %q %+v", s.Number, s.Title, s.About, s.Setup)
	}
	if len(s.Show) != 2 || s.Show[1] != (Key{"hol-avoided", "SpawnEnemy"}) {
		t.Errorf("show %+v", s.Show)
	}
	if len(s.Steps) != 2 {
		t.Fatalf("%d steps", len(s.Steps))
	}
	st := s.Steps[0]
	if st.Line != 18 || st.Title != "The first" || len(st.Text) != 2 || st.Try[0] != "Press d." || st.Read != 2*time.Second {
		t.Errorf("step 1: %+v", st)
	}
	var did []string
	for _, a := range st.Do {
		did = append(did, a.String())
	}
	if got := strings.Join(did, "; "); got != "link clean; spawn 5; spawn-kill after=3s; bots-chat 1; inject-desync 4; stop-the-world all; late rollback" {
		t.Errorf("do: %s", got)
	}
	if len(st.Every) != 1 || st.Every[0].Every != 500*time.Millisecond || st.Every[0].Action.Kind != ActSpawnKill {
		t.Errorf("every: %+v", st.Every)
	}
	if len(st.Until) != 2 || st.Until[0].String() != "messages-waited +1 type=KillEnemy" || st.Until[1].String() != "frames >=300" {
		t.Errorf("until: %v", st.Until)
	}
	if s.Steps[1].Read != DefaultRead || s.Steps[1].Until[0].Key.Event != "seconds" {
		t.Errorf("step 2: %+v", s.Steps[1])
	}
	// Format writes it back; the writing reads back to itself.
	again, err := Parse("again.txt", s.Format())
	if err != nil {
		t.Fatalf("the formatted script: %v\n%s", err, s.Format())
	}
	if !bytes.Equal(again.Format(), s.Format()) {
		t.Errorf("formatted twice differs:\n%s\n---\n%s", s.Format(), again.Format())
	}
}

// TestParseRefusesWithTheLine: every mistake is refused with the file, the line and what is
// wrong, never a panic.
func TestParseRefusesWithTheLine(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		want      string
	}{
		{"no number", "title T\nstep S\nuntil frames\n", 0, `no "lesson N" line`},
		{"no title", "lesson 1\nstep S\nuntil frames\n", 0, `no "title" line`},
		{"no steps", "lesson 1\ntitle T\n", 0, "no steps"},
		{"a step without until", "lesson 1\ntitle T\nstep S\ntext hello\nstep S2\nuntil frames\n", 3, `step "S" has no until line`},
		{"the last step without until", "lesson 1\ntitle T\nstep S\ntext hello\n", 3, "has no until line"},
		{"unknown directive", "lesson 1\ntitle T\nwibble 3\n", 3, `unknown directive "wibble"`},
		{"unknown event", tiny + "step B\nuntil packets-eaten +1\n", 6, `unknown event "packets-eaten"`},
		{"a bad number", "lesson one\n", 1, `"one": want a whole number from 1 to 999`},
		{"a lesson out of range", "lesson 1000\n", 1, "from 1 to 999"},
		{"a bad count", tiny + "step B\nuntil frames +x\n", 6, "want +N"},
		{"a zero count", tiny + "step B\nuntil frames +0\n", 6, "want +N"},
		{"a bare count", tiny + "step B\nuntil frames 4\n", 6, `"4" is neither`},
		{"a type on an untyped event", tiny + "step B\nuntil frames type=Chat\n", 6, "not counted by message type"},
		{"an unknown type", tiny + "step B\nuntil hol-avoided type=Pizza\n", 6, `no message type "Pizza"`},
		{"an unknown action", tiny + "do explode\n", 5, `unknown action "explode"`},
		{"an action out of range", tiny + "do spawn 1000\n", 5, "from 1 to 200"},
		{"a bad duration", tiny + "every often spawn\n", 5, `"often": want a duration`},
		{"too often", tiny + "every 1ms spawn\n", 5, "from 100ms"},
		{"every without an action", tiny + "every 1s\n", 5, `unknown action ""`},
		{"a link field unknown", "lesson 1\nlink speed=3\n", 2, `link field "speed"`},
		{"a link beyond the sliders", "lesson 1\nlink loss=90\n", 2, "loss 90%"},
		{"a link number", "lesson 1\nlink loss=lots\n", 2, "not a number"},
		{"an unknown map", "lesson 1\nmap moon\n", 2, `no map "moon"`},
		{"a header line twice", "lesson 1\ntitle A\ntitle B\n", 3, `"title" again (first on line 2)`},
		{"a header line after a step", tiny + "bots 2\n", 5, `"bots" after the first step`},
		{"text before a step", "lesson 1\ntext hello\n", 2, `"text" before the first step`},
		{"a late mode unknown", "lesson 1\nlate sometimes\n", 2, `late mode "sometimes"`},
		{"too many bots", "lesson 1\nbots 8\n", 2, "from 0 to 7"},
		{"an mtu too small", "lesson 1\nmtu 100\n", 2, "from 576"},
		{"autoplay maybe", "lesson 1\nautoplay maybe\n", 2, "on or off"},
		{"not UTF-8", "lesson 1\ntitle \xff\n", 2, "not UTF-8"},
		{"a control character", "lesson 1\ntitle a\x07b\n", 2, "control character"},
		{"a long line", "lesson 1\ntitle " + strings.Repeat("x", MaxLineBytes) + "\n", 2, "at most 300"},
		{"a step without a title", "lesson 1\nstep\n", 2, "needs a title"},
		{"an empty value", "lesson 1\ntitle\n", 2, `"title" needs a value`},
		{"show of an unknown event", "lesson 1\nshow frames nothing\n", 2, `unknown event "nothing"`},
		{"show with a stray type", "lesson 1\nshow type=Chat\n", 2, "does not follow an event"},
		{"spawn-kill with a stray word", tiny + "do spawn-kill soon\n", 5, "after=DURATION"},
		{"too many steps", "lesson 1\ntitle T\n" + strings.Repeat("step S\nuntil frames\n", MaxSteps+1), 2*MaxSteps + 3, "more than 24 steps"},
		{"too big", strings.Repeat("#\n", MaxScriptBytes), 0, "at most 65536"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("lessons/x.txt", []byte(tc.src))
			var ae *assets.Error
			if !errors.As(err, &ae) {
				t.Fatalf("error %v, want an *assets.Error", err)
			}
			if ae.File != "lessons/x.txt" || ae.Line != tc.line || !strings.Contains(ae.Msg, tc.want) {
				t.Errorf("error %q (line %d), want line %d and %q", err, ae.Line, tc.line, tc.want)
			}
		})
	}
}

// TestBuiltinScripts: the lessons that come with the game parse, are numbered 1, 2, 3, ...
// without a gap, and cover at least the nine ideas; Find finds them by number and names them
// all for an unknown one.
func TestBuiltinScripts(t *testing.T) {
	scripts, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range scripts {
		if s.Number != i+1 {
			t.Errorf("%s is lesson %d, want %d", s.File, s.Number, i+1)
		}
	}
	if len(scripts) < 9 {
		t.Errorf("%d lessons, want at least 9", len(scripts))
	}
	if s, err := Find("1", scripts); err != nil || s != scripts[0] {
		t.Errorf("Find(1) = %v, %v", s, err)
	}
	_, err = Find("99", scripts)
	if err == nil || !strings.Contains(err.Error(), "no lesson 99") || !strings.Contains(err.Error(), scripts[0].Title) {
		t.Errorf("Find(99): %v, want a list of the lessons", err)
	}
	if _, err := Find("no/such/file.txt", scripts); err == nil || !strings.Contains(err.Error(), scripts[0].Title) {
		t.Errorf("Find of a missing file: %v", err)
	}
}

// FuzzParse: whatever the bytes, Parse returns a script or an *assets.Error with a line
// inside the input, never a panic; a script it accepts keeps every limit, and formats to a
// script that reads back to the same text.
func FuzzParse(f *testing.F) {
	f.Add([]byte(tiny))
	scripts, err := Builtin()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range scripts {
		f.Add(s.Format())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.txt", data)
		if err != nil {
			var ae *assets.Error
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *assets.Error", err)
			}
			if ae.Line < 0 || ae.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error at line %d of %d", ae.Line, bytes.Count(data, []byte("\n"))+1)
			}
			return
		}
		if s.Number < 1 || s.Title == "" || len(s.Steps) == 0 || len(s.Steps) > MaxSteps {
			t.Fatalf("accepted lesson %d %q with %d steps", s.Number, s.Title, len(s.Steps))
		}
		for _, st := range s.Steps {
			if len(st.Until) == 0 || len(st.Until) > MaxGoals || len(st.Text) > MaxStepLines {
				t.Fatalf("accepted step %q: %d until, %d text lines", st.Title, len(st.Until), len(st.Text))
			}
		}
		out := s.Format()
		again, err := Parse("again.txt", out)
		if err != nil {
			t.Fatalf("the formatted script does not parse: %v\n%s", err, out)
		}
		if !bytes.Equal(again.Format(), out) {
			t.Fatalf("formatted twice differs:\n%s\n---\n%s", out, again.Format())
		}
	})
}

// TestREADMEListsTheVocabulary: assets/lessons/README.md, which teachers write lessons from,
// has a row for every event, in the vocabulary's order, and for every action; and a row for
// every built-in lesson.
func TestREADMEListsTheVocabulary(t *testing.T) {
	data, err := os.ReadFile("../../assets/lessons/README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	at := 0
	for _, e := range events {
		i := strings.Index(doc[at:], "| `"+e.name+"`")
		if i < 0 {
			t.Errorf("README.md has no row for event %q after the one before it", e.name)
			continue
		}
		at += i
		row, _, _ := strings.Cut(doc[at:], "\n")
		if e.gauge != strings.Contains(row, "(goes up and down)") {
			t.Errorf("README.md's row of %q says it goes up and down: %v, want %v", e.name, !e.gauge, e.gauge)
		}
	}
	for _, a := range actionNames[1:] {
		if !strings.Contains(doc, "| `"+a) {
			t.Errorf("README.md has no row for action %q", a)
		}
	}
	scripts, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scripts {
		if !strings.Contains(doc, "`"+path.Base(s.File)+"`") {
			t.Errorf("README.md does not list %s", s.File)
		}
	}
}
