// Package game is the lockstep session of AckAttack: every host runs the same deterministic
// world (package world), and only orders and the server's events travel, as game messages over
// the UDP stack (net/...). The server decides what happens (enemies, squads, rounds, repairs),
// relays the players' commands, sets the command lead time and checks every client's hashes;
// each client runs its own copy in lockstep, sends its player's orders and reports its hashes.
//
// # Using it
//
// A Server and a Client are sessions that do no I/O (Session): a datagram comes in through
// Handle(now, d), time passes through Tick(now), NextDeadline says when the session next has
// work, and what it sends goes to the transport.Writer it was made with. A screen reads the
// latest immutable Snapshot and hands the session intents (Command, Say, PushLink, …) on the
// goroutine that owns it. game/hostloop is the thin loop that owns a real UDP socket and the
// wall clock; Virtual runs whole games over a simulated network in virtual time, seeded and
// repeatable, which is how the tests and cmd/netlab play (example_test.go):
//
//	v := game.NewVirtual(1)
//	link := linksim.Settings{LossPercent: 10, Latency: 50 * time.Millisecond}
//	srvAddr := netip.MustParseAddrPort("127.0.0.1:7777")
//	srv, _ := game.NewServer(game.ServerConfig{Bots: 1}, v.Writer(v.AddNode(srvAddr, link)))
//	v.Attach(srvAddr, srv)
//	me := netip.MustParseAddrPort("127.0.0.2:40000")
//	c, _ := game.NewClient(game.ClientConfig{Name: "ann", Bot: true}, v.Writer(v.AddNode(me, link)), srvAddr)
//	v.Attach(me, c)
//	v.Run(time.Minute) // a minute of play, in a fraction of a second
//	fmt.Println(c.Snapshot().Frame, srv.Report().Game.CommandsIssued)
//
// # Where each idea lives
//
// The server and the client compose parts, each of which owns its state and its limits; a part
// is a plain struct, its methods take now, and the session sends what they decide.
//
//	server.go, client.go    the sessions: the frame loop (world, schedule, clock) and the
//	                        dispatch of what arrives
//	seats.go                the seat table: one role per connection (claiming, player,
//	                        spectator), one move function, one step per role; held seats
//	phase.go                the client's life: one phase (connecting … ended) and its role
//	identity.go             who is who: a player's secret, claims on seats, the keys of links
//	names.go                players' names: the rules, names that look alike (Unicode's
//	                        confusable skeletons), the names reserved for the server and bots
//	kick.go                 the teacher's kick: a player or spectator out, its place free at once
//	spectate.go             spectators: admitted past the seats, watching, bounded
//	places.go               places shared between addresses and networks: shares, places
//	                        lent and taken back, the places kept for the server's own host
//	p2p.go, p2p_server.go   direct links between clients, LinkLost, relays saved, --direct
//	lead.go                 the command lead time: how far ahead a command runs, from the
//	                        server's own measures of the players' paths
//	commands.go             the players' commands bounded: their frames, and a rate per seat
//	leadset.go              the teacher's hand on it: fixed, or back to the policy
//	schedule.go             the events of a frame and their one order on every host
//	resim.go                late events run again exactly (rollback) or fast-forwarded
//	drift_server.go,        drift checking and repair: reports of the frame just run (unit
//	drift_client.go,        hashes, the state hash, the inputs' digest, the locator),
//	drift_history.go,       compared once both hosts ran the same inputs; the drill-down,
//	drift_log.go            real-time re-sync (units and core state), stop-the-world re-sync,
//	                        world copies, and the debug panel's log of each
//	enemies.go              the server's enemies, spawned and killed as events
//	reinforce.go, round.go  a game that lasts: fresh squads, new rounds
//	classlink.go            one link setting for the whole class
//	chat.go, rate.go        chat and the rates that bound it (and every other input), and
//	                        the pace of the teacher's settings
//	send.go                 the send API (send, sendOn, sendAfter) and the back-pressure policy
//	msg.go, msg_codec.go,   the game messages: each type declared once (its fields, how it
//	msg_stream.go           travels, what it waits for); PROTOCOL.md has the bytes
//	stage.go, lab.go        a lesson's and a lab's hands on a game, outside the session core
//	stage_wave.go           the teacher's waves: kills right behind their spawns and bursts
//	                        of the bots' chat, a packet each, so that messages wait on the wire
//	report.go, *_stats.go   the --stats report, the counters and the snapshots
//	virtual.go, session.go  games in virtual time, and what drives a host
//
// # Rules a user of the package keeps
//
//   - One goroutine owns a session: it alone calls Handle, Tick and the intents. Snapshot
//     and Transport().Stats are safe from any goroutine.
//   - The sessions read no clock: now is whatever the caller says, and must not go back.
//   - A message's delivery (guaranteed, unreliable, sync) belongs to its type (msg.go); a
//     sender says only what the message must come after (send.go).
//   - The world is changed only by events of a frame, the same on every host; what is kept for
//     screens and reports (logs, snapshots, counters) is never read back by the simulation.
//   - Everything that grows with a game is bounded: histories keep a count and the latest
//     lines (bounded.go), every table has a limit, every input a range and a rate.
package game
