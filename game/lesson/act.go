package lesson

import (
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/game/hostloop"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// Host is the game a lesson runs on: what it shows, and its loops to hand actions to.
type Host interface {
	// Observe returns the game's latest snapshots.
	Observe() Observation
	// Perform hands a to the loops that own the hosts it acts on, and calls done on one of
	// them with its outcome (nil, or why the game refused it). It returns an error, and
	// never calls done, when it could not hand a over at all.
	Perform(a Action, done func(error)) error
}

// OnServer reports whether a acts on the server, OnClient whether on the player's host; a
// link action acts on neither, but on the player's link.
func (a Action) OnServer() bool {
	switch a.Kind {
	case ActSpawn, ActSpawnKill, ActBotsChat, ActStopTheWorld, ActLate:
		return true
	}
	return false
}

// OnClient: see OnServer.
func (a Action) OnClient() bool { return a.Kind == ActInjectDesync || a.Kind == ActLate }

var errNoBots = errors.New("no bot to chat: the lesson's game has none")

// ApplyServer does a's part on the server s, on its owner loop.
func ApplyServer(a Action, s *game.Server, now time.Time) error {
	stage := game.StageOf(s)
	switch a.Kind {
	case ActSpawn:
		_, err := stage.SpawnEnemies(now, a.N)
		return err
	case ActSpawnKill:
		return stage.SpawnDoomed(now, a.After)
	case ActBotsChat:
		if stage.BotsChat(now, a.N) == 0 {
			return errNoBots
		}
	case ActStopTheWorld:
		return stage.StopTheWorld(now, a.All)
	case ActLate:
		s.SetLate(a.Late)
	}
	return nil
}

// ApplyClient does a's part on the player's host c, on its owner loop.
func ApplyClient(a Action, c *game.Client, now time.Time) error {
	switch a.Kind {
	case ActInjectDesync:
		if c.InjectDesync(a.N) == 0 {
			return errors.New("no unit to corrupt (none with hit points to spare)")
		}
	case ActLate:
		c.SetLate(a.Late)
	}
	return nil
}

// Driver runs a lesson on a host: each Tick observes the game, walks the script and hands
// the game what is due. One goroutine calls it (a screen's ticker, a headless loop, a test),
// ten times a second, and draws the Progress it returns; the game's state stays with the
// game's loops, on real sockets (Embedded: actions go to the hosts' loops as intents) or in
// virtual time in the tests.
type Driver struct {
	run   *Runner
	meter *Meter
	host  Host
	last  Counters

	mu      sync.Mutex
	refused string // the latest action the game refused, and why
}

// NewDriver returns a driver of s on h.
func NewDriver(s *Script, h Host) *Driver {
	return &Driver{run: NewRunner(s), meter: NewMeter(), host: h}
}

// Runner is the driver's runner.
func (d *Driver) Runner() *Runner { return d.run }

// Counters are the counters of the latest Tick (nil before the first).
func (d *Driver) Counters() Counters { return d.last }

// Tick observes the game at now, advances the lesson, hands the game its actions and returns
// the lesson's progress.
func (d *Driver) Tick(now time.Time) Progress {
	c := d.meter.Observe(now, d.host.Observe())
	d.last = c
	for _, a := range d.run.Advance(now, c) {
		if err := d.host.Perform(a, func(err error) { d.done(a, err) }); err != nil {
			d.done(a, err)
		}
	}
	p := d.run.Progress(now, c, d.meter.Note)
	d.mu.Lock()
	p.Err = d.refused
	d.mu.Unlock()
	return p
}

// done notes the outcome of an action (on a game loop, or the driver's goroutine).
func (d *Driver) done(a Action, err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	d.refused = a.String() + ": " + err.Error()
	d.mu.Unlock()
}

// Embedded is a lesson's game on real sockets: the embedded server and the player's client,
// each run by its loop (game/hostloop). Player is the player's id, which finds the server's
// end of the player's connection.
type Embedded struct {
	Server *hostloop.Server
	Client *hostloop.Client
	Player uuid.UUID
}

// Observe reads both loops' latest snapshots.
func (e Embedded) Observe() Observation {
	cs := e.Client.Stats()
	o := Observation{Client: e.Client.Snapshot(), Link: cs.Server, Server: e.Server.Snapshot()}
	for _, p := range e.Server.Stats().Peers {
		if p.PlayerID == e.Player && p.Connected {
			o.ServerLink = p
		}
	}
	return o
}

var errBusy = errors.New("the game is busy")

// Perform puts a link on the player's socket, both ways, or hands a to the loops it acts on.
func (e Embedded) Perform(a Action, done func(error)) error {
	if a.Kind == ActLink {
		return e.Client.SetLink(transport.LinkSettings{Out: a.Link, In: a.Link})
	}
	if a.OnServer() && !e.Server.TryDo(func(s *game.Server, now time.Time) { done(ApplyServer(a, s, now)) }) {
		return errBusy
	}
	if a.OnClient() && !e.Client.TryDo(func(c *game.Client, now time.Time) { done(ApplyClient(a, c, now)) }) {
		return errBusy
	}
	return nil
}

// Link is the player's link at the start of the lesson.
func (s *Script) Link() linksim.Settings { return s.Setup.Link }
