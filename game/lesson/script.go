package lesson

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ackattack/ackattack/assets"
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/world"
)

// Script is a parsed lesson: its header, the embedded game it runs and its steps. The format
// is in assets/lessons/README.md.
//
// A lesson is a text file, not code (assets/lessons/*.txt, embedded in the binaries; a
// teacher's own file loads the same way), so a teacher writes a new one without Go. Its header
// sets up the game: the map, the bots, the player's link; its steps say what to read, what to
// try, what the game is made to do ("do spawn-kill", "every 1s bots-chat 3") and the events
// that end the step ("until messages-waited type=KillEnemy"). Parse reads it strictly: a
// mistake is refused with the file and line, like the maps and the unit table.
type Script struct {
	File   string // where it came from, for messages
	Number int    // from "lesson N"
	Title  string
	About  []string // what the lesson is about, a line each
	Setup  Setup
	Show   []Key // counters the panel shows through the whole lesson
	Steps  []Step
}

// Setup is the embedded game a lesson runs.
type Setup struct {
	Map         string
	Seed        uint64
	Bots        int              // the server's own bot players
	Link        linksim.Settings // the player's link, both ways, at the start
	Late        game.LateMode
	EnemyEvery  time.Duration
	MaxEnemies  int
	RealtimeMax int  // more mismatched units than this stop the world
	MTU         int  // the message layer's packet size
	Autoplay    bool // a bot plays the player's units
}

// Step is one step of a lesson: what the panel says, what the game is made to do, and the
// events that end it.
type Step struct {
	Line  int // where "step" is
	Title string
	Text  []string
	Try   []string
	// Read is the least time the step stays up, so that it can be read even when its event
	// comes at once.
	Read  time.Duration
	Do    []Action // once, as the step begins
	Every []Repeat // again and again while the step is up
	Until []Goal   // every one must be met
	Show  []Key
}

// Goal is one until line: an event that has to happen.
type Goal struct {
	Line int
	Key  Key
	// AtLeast: the counter reaches N (">=N"); otherwise it grows by N during the step ("+N").
	AtLeast bool
	N       uint64
}

// String writes the goal as a script does.
func (g Goal) String() string {
	s := g.Key.Event
	if g.AtLeast {
		s += " >=" + strconv.FormatUint(g.N, 10)
	} else {
		s += " +" + strconv.FormatUint(g.N, 10)
	}
	if g.Key.Type != "" {
		s += " type=" + g.Key.Type
	}
	return s
}

// ActionKind is what an action makes the game do.
type ActionKind uint8

const (
	ActLink         ActionKind = iota + 1 // set the player's link, both ways
	ActSpawn                              // the server spawns N enemies
	ActSpawnKill                          // the server spawns an enemy and kills it After
	ActBotsChat                           // every server bot says N chat lines
	ActInjectDesync                       // the player's host corrupts N of its units
	ActStopTheWorld                       // the server stops the world (All: sends every unit)
	ActLate                               // every host's late mode
)

var actionNames = [...]string{ActLink: "link", ActSpawn: "spawn", ActSpawnKill: "spawn-kill", ActBotsChat: "bots-chat",
	ActInjectDesync: "inject-desync", ActStopTheWorld: "stop-the-world", ActLate: "late"}

func (k ActionKind) String() string {
	if int(k) < len(actionNames) && actionNames[k] != "" {
		return actionNames[k]
	}
	return fmt.Sprintf("ActionKind(%d)", uint8(k))
}

// Action is one thing a script makes the game do. Real games rarely show the thing on cue: at
// 10% loss a kill seldom overtakes its spawn, and a stop-the-world re-sync needs a drift the
// real-time re-sync cannot mend. So a lesson does not wait for luck: its game plays at the loss
// it needs, and the script makes the game do the telling thing now, on the same paths the game
// always takes (game/stage.go): spawn an enemy and kill it a frame later, have the bots chat in
// bursts, corrupt units, stop the world and send every unit.
type Action struct {
	Line  int
	Kind  ActionKind
	N     int
	After time.Duration // spawn-kill: the kill leaves this long after the spawn (0: a frame)
	All   bool
	Link  linksim.Settings
	Late  game.LateMode
}

// String writes the action as a script does.
func (a Action) String() string {
	switch a.Kind {
	case ActLink:
		return "link " + linkText(a.Link)
	case ActSpawn, ActBotsChat, ActInjectDesync:
		return fmt.Sprintf("%s %d", a.Kind, a.N)
	case ActSpawnKill:
		if a.After > 0 {
			return "spawn-kill after=" + a.After.String()
		}
		return "spawn-kill"
	case ActStopTheWorld:
		if a.All {
			return "stop-the-world all"
		}
		return "stop-the-world"
	case ActLate:
		return "late " + a.Late.String()
	}
	return a.Kind.String()
}

// Repeat is an every line: an action again and again.
type Repeat struct {
	Every  time.Duration
	Action Action
}

// Limits of a script. They keep the panel readable and a script's game within what a class
// can watch; a script beyond them is refused with the line.
const (
	MaxScriptBytes = 64 << 10
	MaxLineBytes   = 300
	MaxSteps       = 24
	MaxStepLines   = 12 // text lines of a step
	MaxTries       = 6
	MaxActions     = 8 // do lines of a step, and every lines
	MaxGoals       = 4
	MaxShows       = 8
	MaxLessonNum   = 999
	DefaultRead    = 6 * time.Second
	maxRead        = 5 * time.Minute
	minEvery       = 100 * time.Millisecond
	maxEvery       = 10 * time.Minute
	maxSpawn       = 200
	maxBotsChat    = 10
	maxInject      = 50
	maxAfter       = time.Minute
)

// DefaultSetup is the game of a script that says nothing about it: the skirmish map with one
// bot, a clean link, late events run again.
func DefaultSetup() Setup {
	return Setup{Map: "skirmish", Seed: 1, Bots: 1, Late: game.LateRollback, EnemyEvery: game.DefaultEnemyEvery,
		MaxEnemies: game.DefaultMaxEnemies, RealtimeMax: game.DefaultRealtimeMax, MTU: 1200}
}

// Parse reads a lesson script; file names it in errors, which say file:line and what is
// wrong. It never panics, whatever data holds.
func Parse(file string, data []byte) (*Script, error) {
	p := &parser{s: &Script{File: file, Setup: DefaultSetup()}, seen: map[string]int{}}
	if len(data) > MaxScriptBytes {
		return nil, p.fail(0, "%d bytes, at most %d", len(data), MaxScriptBytes)
	}
	for n, raw := range bytes.Split(data, []byte("\n")) {
		p.line = n + 1
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		if err := p.parseLine(raw); err != nil {
			return nil, err
		}
	}
	return p.s, p.finish()
}

type parser struct {
	s    *Script
	line int
	step *Step
	seen map[string]int // header directives given once: where
}

func (p *parser) fail(line int, format string, args ...any) error {
	return &assets.Error{File: p.s.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) failf(format string, args ...any) error { return p.fail(p.line, format, args...) }

// headerOnce lists the directives a header may give at most once.
var headerOnce = []string{"lesson", "title", "map", "seed", "bots", "link", "late", "enemy-every", "max-enemies", "realtime-max", "mtu", "autoplay"}

var stepDirectives = []string{"text", "try", "read", "do", "every", "until", "show"}

func (p *parser) parseLine(raw []byte) error {
	if len(raw) > MaxLineBytes {
		return p.failf("line of %d bytes, at most %d", len(raw), MaxLineBytes)
	}
	if !utf8.Valid(raw) {
		return p.failf("not UTF-8")
	}
	line := strings.TrimSpace(string(raw))
	if strings.ContainsFunc(line, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) {
		return p.failf("a control character")
	}
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	word, rest := firstWord(line)
	switch {
	case word == "step":
		return p.beginStep(rest)
	case slices.Contains(stepDirectives, word) && (p.step != nil || word == "show"):
		if p.step == nil {
			keys, err := p.parseShow(rest)
			if err == nil {
				err = addAtMost(p, &p.s.Show, MaxShows, "counters shown", keys...)
			}
			return err
		}
		return p.stepLine(word, rest)
	case slices.Contains(stepDirectives, word):
		return p.failf("%q before the first step", word)
	case slices.Contains(headerOnce, word) || word == "about":
		if p.step != nil {
			return p.failf("%q after the first step: the header comes first", word)
		}
		return p.headerLine(word, rest)
	}
	return p.failf("unknown directive %q (want one of: %s, about, step, %s)", word, strings.Join(headerOnce, ", "), strings.Join(stepDirectives, ", "))
}

func (p *parser) headerLine(word, rest string) error {
	if word != "about" {
		if at, ok := p.seen[word]; ok {
			return p.failf("%q again (first on line %d)", word, at)
		}
		p.seen[word] = p.line
	}
	if rest == "" {
		return p.failf("%q needs a value", word)
	}
	su := &p.s.Setup
	var err error
	switch word {
	case "lesson":
		p.s.Number, err = p.intIn(rest, 1, MaxLessonNum)
	case "title":
		p.s.Title = rest
	case "about":
		err = addAtMost(p, &p.s.About, MaxStepLines, "about lines", rest)
	case "map":
		if !slices.Contains(world.Maps(), rest) {
			err = p.failf("no map %q (the maps: %s)", rest, strings.Join(world.Maps(), ", "))
		}
		su.Map = rest
	case "seed":
		var v uint64
		v, err = strconv.ParseUint(rest, 10, 63)
		if err != nil || v == 0 {
			err = p.failf("seed %q: want a whole number from 1", rest)
		}
		su.Seed = v
	case "bots":
		su.Bots, err = p.intIn(rest, 0, world.MaxPlayers-1)
	case "link":
		su.Link, err = p.parseLink(rest)
	case "late":
		su.Late, err = p.parseLate(rest)
	case "enemy-every":
		su.EnemyEvery, err = p.durationIn(rest, minEvery, time.Minute)
	case "max-enemies":
		su.MaxEnemies, err = p.intIn(rest, 1, 500)
	case "realtime-max":
		su.RealtimeMax, err = p.intIn(rest, 1, 1000)
	case "mtu":
		su.MTU, err = p.intIn(rest, message.MinMTU, 1200)
	case "autoplay":
		switch rest {
		case "on":
			su.Autoplay = true
		case "off":
			su.Autoplay = false
		default:
			err = p.failf("autoplay %q: on or off", rest)
		}
	}
	return err
}

func (p *parser) beginStep(title string) error {
	if p.step != nil {
		if err := p.endStep(); err != nil {
			return err
		}
	}
	if title == "" {
		return p.failf("a step needs a title")
	}
	if len(p.s.Steps) == MaxSteps {
		return p.failf("more than %d steps", MaxSteps)
	}
	p.s.Steps = append(p.s.Steps, Step{Line: p.line, Title: title, Read: DefaultRead})
	p.step = &p.s.Steps[len(p.s.Steps)-1]
	return nil
}

// endStep checks the step just read.
func (p *parser) endStep() error {
	if len(p.step.Until) == 0 {
		return p.fail(p.step.Line, "step %q has no until line: it would never end", p.step.Title)
	}
	return nil
}

func (p *parser) stepLine(word, rest string) error {
	st := p.step
	if rest == "" {
		return p.failf("%q needs a value", word)
	}
	var err error
	switch word {
	case "text":
		return addAtMost(p, &st.Text, MaxStepLines, "text lines in a step", rest)
	case "try":
		return addAtMost(p, &st.Try, MaxTries, "try lines in a step", rest)
	case "read":
		st.Read, err = p.durationIn(rest, 0, maxRead)
	case "do":
		var a Action
		if a, err = p.parseAction(rest); err == nil {
			err = addAtMost(p, &st.Do, MaxActions, "do lines in a step", a)
		}
	case "every":
		every, what := firstWord(rest)
		var r Repeat
		if r.Every, err = p.durationIn(every, minEvery, maxEvery); err != nil {
			return err
		}
		if r.Action, err = p.parseAction(what); err == nil {
			err = addAtMost(p, &st.Every, MaxActions, "every lines in a step", r)
		}
	case "until":
		var g Goal
		if g, err = p.parseGoal(rest); err == nil {
			err = addAtMost(p, &st.Until, MaxGoals, "until lines in a step", g)
		}
	case "show":
		var keys []Key
		if keys, err = p.parseShow(rest); err == nil {
			err = addAtMost(p, &st.Show, MaxShows, "counters shown in a step", keys...)
		}
	}
	return err
}

// addAtMost appends vs to *list, or refuses the line when that would make more than most
// (what names them).
func addAtMost[T any](p *parser, list *[]T, most int, what string, vs ...T) error {
	if len(*list)+len(vs) > most {
		return p.failf("more than %d %s", most, what)
	}
	*list = append(*list, vs...)
	return nil
}

func (p *parser) finish() error {
	if p.step != nil {
		if err := p.endStep(); err != nil {
			return err
		}
	}
	switch {
	case p.s.Number == 0:
		return p.fail(0, `no "lesson N" line: every lesson has a number`)
	case p.s.Title == "":
		return p.fail(0, `no "title" line`)
	case len(p.s.Steps) == 0:
		return p.fail(0, `no steps: a lesson needs at least one "step" with an "until"`)
	}
	return nil
}

func (p *parser) intIn(s string, lo, hi int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, p.failf("%q: want a whole number from %d to %d", s, lo, hi)
	}
	return v, nil
}

func (p *parser) durationIn(s string, lo, hi time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < lo || d > hi {
		return 0, p.failf("%q: want a duration from %v to %v (like 500ms or 3s)", s, lo, hi)
	}
	return d, nil
}

func (p *parser) parseLate(s string) (game.LateMode, error) {
	m, err := game.ParseLateMode(s)
	if err != nil {
		return 0, p.failf("%v", err)
	}
	return m, nil
}

// parseLink reads "clean" or fields like "loss=30 latency=40ms": the fields not named are 0.
// The ranges are the sliders' (game.ClassLinkOf).
func (p *parser) parseLink(s string) (linksim.Settings, error) {
	var ls linksim.Settings
	if s == "clean" {
		return ls, nil
	}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return ls, p.failf("link %q: want clean, or fields like loss=30 latency=40ms", f)
		}
		var err error
		switch k {
		case "loss":
			ls.LossPercent, err = p.percent(v)
		case "burst":
			ls.BurstLossPercent, err = p.percent(v)
		case "burst-length":
			ls.BurstLength, err = strconv.ParseFloat(v, 64)
		case "dup":
			ls.DupPercent, err = p.percent(v)
		case "latency":
			ls.Latency, err = time.ParseDuration(v)
		case "jitter":
			ls.Jitter, err = time.ParseDuration(v)
		default:
			return ls, p.failf("link field %q: want loss, burst, burst-length, latency, jitter or dup", k)
		}
		if err != nil {
			return ls, p.failf("link %s=%q: not a number or duration", k, v)
		}
	}
	if _, err := game.ClassLinkOf(ls); err != nil {
		return ls, p.failf("link: %v", err)
	}
	return ls, nil
}

func (p *parser) percent(v string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
}

// parseAction reads what a do or every line makes the game do.
func (p *parser) parseAction(s string) (Action, error) {
	word, rest := firstWord(s)
	a := Action{Line: p.line}
	count := func(hi int) (err error) {
		a.N = 1
		if rest != "" {
			a.N, err = p.intIn(rest, 1, hi)
		}
		return err
	}
	var err error
	switch word {
	case "link":
		a.Kind = ActLink
		if rest == "" {
			return a, p.failf("link needs settings: clean, or fields like loss=30 latency=40ms")
		}
		a.Link, err = p.parseLink(rest)
	case "spawn":
		a.Kind = ActSpawn
		err = count(maxSpawn)
	case "bots-chat":
		a.Kind = ActBotsChat
		err = count(maxBotsChat)
	case "inject-desync":
		a.Kind = ActInjectDesync
		err = count(maxInject)
	case "spawn-kill":
		a.Kind = ActSpawnKill
		if rest != "" {
			v, ok := strings.CutPrefix(rest, "after=")
			if !ok {
				return a, p.failf("spawn-kill %q: want nothing, or after=DURATION", rest)
			}
			a.After, err = p.durationIn(v, 0, maxAfter)
		}
	case "stop-the-world":
		a.Kind = ActStopTheWorld
		switch rest {
		case "":
		case "all":
			a.All = true
		default:
			err = p.failf("stop-the-world %q: want nothing, or all", rest)
		}
	case "late":
		a.Kind = ActLate
		a.Late, err = p.parseLate(rest)
	default:
		names := slices.Clone(actionNames[1:])
		return a, p.failf("unknown action %q (want one of: %s)", word, strings.Join(names, ", "))
	}
	return a, err
}

// parseGoal reads an until line: EVENT [+N | >=N] [type=NAME].
func (p *parser) parseGoal(s string) (Goal, error) {
	fields := strings.Fields(s)
	g := Goal{Line: p.line, N: 1}
	e, err := p.eventWord(fields[0])
	if err != nil {
		return g, err
	}
	g.Key.Event = e.name
	counted := false
	for _, f := range fields[1:] {
		switch {
		case strings.HasPrefix(f, "type="):
			if g.Key.Type != "" {
				return g, p.failf("type given twice")
			}
			if g.Key.Type, err = p.typeWord(e, strings.TrimPrefix(f, "type=")); err != nil {
				return g, err
			}
		case strings.HasPrefix(f, "+") || strings.HasPrefix(f, ">="):
			if counted {
				return g, p.failf("the number given twice")
			}
			counted = true
			g.AtLeast = strings.HasPrefix(f, ">=")
			v, err := strconv.ParseUint(strings.TrimLeft(f, "+>="), 10, 32)
			if err != nil || (v == 0 && !g.AtLeast) {
				return g, p.failf("until %s %q: want +N (grows by N, from 1) or >=N (reaches N)", e.name, f)
			}
			g.N = v
		default:
			return g, p.failf("until %s: %q is neither +N, >=N nor type=NAME", e.name, f)
		}
	}
	return g, nil
}

// parseShow reads the counters of a show line: EVENT [type=NAME] ...
func (p *parser) parseShow(s string) ([]Key, error) {
	if s == "" {
		return nil, p.failf(`"show" needs the events to show`)
	}
	var keys []Key
	var last *event
	for _, f := range strings.Fields(s) {
		if t, ok := strings.CutPrefix(f, "type="); ok {
			if last == nil || keys[len(keys)-1].Type != "" {
				return nil, p.failf("show: %q does not follow an event", f)
			}
			name, err := p.typeWord(last, t)
			if err != nil {
				return nil, err
			}
			keys[len(keys)-1].Type = name
			continue
		}
		e, err := p.eventWord(f)
		if err != nil {
			return nil, err
		}
		last = e
		keys = append(keys, Key{Event: e.name})
	}
	return keys, nil
}

func (p *parser) eventWord(w string) (*event, error) {
	e, ok := eventNamed(w)
	if !ok {
		return nil, p.failf("unknown event %q (assets/lessons/README.md lists them: %s)", w, strings.Join(EventNames(), ", "))
	}
	return e, nil
}

func (p *parser) typeWord(e *event, name string) (string, error) {
	if !e.typed {
		return "", p.failf("%s is not counted by message type (type= goes with messages-waited, hol-avoided and the wait times)", e.name)
	}
	if _, ok := msgTypeNamed(name); !ok {
		return "", p.failf("no message type %q (game/PROTOCOL.md names them: SpawnEnemy, KillEnemy, Chat, ...)", name)
	}
	return name, nil
}

// firstWord splits s at its first space or tab: the word, and the rest without the blanks
// around it.
func firstWord(s string) (word, rest string) {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], strings.TrimSpace(s[i+1:])
	}
	return s, ""
}

// linkText writes link settings as a script does.
func linkText(ls linksim.Settings) string {
	var parts []string
	num := func(k string, v float64) {
		if v != 0 {
			parts = append(parts, k+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	dur := func(k string, v time.Duration) {
		if v != 0 {
			parts = append(parts, k+"="+v.String())
		}
	}
	num("loss", ls.LossPercent)
	num("burst", ls.BurstLossPercent)
	num("burst-length", ls.BurstLength)
	dur("latency", ls.Latency)
	dur("jitter", ls.Jitter)
	num("dup", ls.DupPercent)
	if len(parts) == 0 {
		return "clean"
	}
	return strings.Join(parts, " ")
}

// Format writes s back as a script: every setting spelled out, one directive a line, the
// steps' lines indented. Parse reads it back to the same Script (the fuzz target checks it).
func (s *Script) Format() []byte {
	var b bytes.Buffer
	line := func(indent, word, rest string) { fmt.Fprintf(&b, "%s%s %s\n", indent, word, rest) }
	line("", "lesson", strconv.Itoa(s.Number))
	line("", "title", s.Title)
	for _, a := range s.About {
		line("", "about", a)
	}
	su := s.Setup
	line("", "map", su.Map)
	line("", "seed", strconv.FormatUint(su.Seed, 10))
	line("", "bots", strconv.Itoa(su.Bots))
	line("", "link", linkText(su.Link))
	line("", "late", su.Late.String())
	line("", "enemy-every", su.EnemyEvery.String())
	line("", "max-enemies", strconv.Itoa(su.MaxEnemies))
	line("", "realtime-max", strconv.Itoa(su.RealtimeMax))
	line("", "mtu", strconv.Itoa(su.MTU))
	line("", "autoplay", map[bool]string{false: "off", true: "on"}[su.Autoplay])
	if len(s.Show) > 0 {
		line("", "show", keysText(s.Show))
	}
	for _, st := range s.Steps {
		b.WriteByte('\n')
		line("", "step", st.Title)
		for _, t := range st.Text {
			line("  ", "text", t)
		}
		for _, t := range st.Try {
			line("  ", "try", t)
		}
		line("  ", "read", st.Read.String())
		for _, a := range st.Do {
			line("  ", "do", a.String())
		}
		for _, r := range st.Every {
			line("  ", "every", r.Every.String()+" "+r.Action.String())
		}
		for _, g := range st.Until {
			line("  ", "until", g.String())
		}
		if len(st.Show) > 0 {
			line("  ", "show", keysText(st.Show))
		}
	}
	return b.Bytes()
}

// keysText writes counters as a show line does: "hol-avoided type=SpawnEnemy frames".
func keysText(keys []Key) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if k.Type != "" {
			parts = append(parts, k.Event+" type="+k.Type)
		} else {
			parts = append(parts, k.Event)
		}
	}
	return strings.Join(parts, " ")
}
