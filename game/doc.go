// Package game is the lockstep session of AckAttack: the message types that travel over the
// UDP stack, commands scheduled commandLeadTime ahead, enemies spawned and killed by the server,
// chat, unit-hash checks, real-time and stop-the-world re-sync, the host loops and the bots.
//
// # Sessions that do no I/O
//
// Server and Client are sessions in the style of net/message.Conn: they never open a socket,
// read the clock or start a goroutine. A datagram comes in through Handle(now, datagram), time
// passes through Tick(now), NextDeadline says when the session next has work, and what it
// sends goes to the transport.Writer it was made with. Spawns, bots, injected desyncs and
// lead-time changes all run on that clock. A test (sansio_test.go) type-checks the package and
// fails on any use of the clock, timers, sockets, the OS or a go statement.
//
// So the same code runs two ways. game/hostloop is the thin loop of the binaries: it owns a UDP
// socket and the wall clock, and one goroutine that alone calls the session; a user interface
// reads the session's immutable snapshots and hands it intents. The tests run a server, its
// clients and their direct links over a linksim.Network in virtual time, seeded: a minute of
// play at 10% loss takes a fraction of a second, and the same seed gives the same game, byte
// for byte (Virtual, virtual.go; cmd/netlab measures whole games this way too).
//
// One of each. The seats are the game's (the transport has connections named by player id):
// a player who vanished keeps its seat for SeatHold (at most 30 s), then it is free, so
// students who kill their clients do not fill the server for good. A client has one socket
// for the server and its direct links, told apart by address. Every connection of every host
// has the same back-pressure policy (outbox.go): a message the connection cannot take yet
// waits, in order, and one that does not fit the bounded outbox is refused to whoever issued
// it. History that grows with the game (chat, events, pauses) is kept as a count and the
// latest lines (bounded.go), and the --stats report is built once, at exit.
//
// Hosts talk in messages (PlayerInfo, Command, Chat, Pause, …), each the payload of one message
// of the stack: a type byte, then its fields, with exactly one valid encoding per value.
// AppendMsg writes one and ParseMsg reads one, refusing anything malformed without panicking.
// Each type has one home, an entry of the table msgTypes (msg.go) at the index of its type
// byte, with its name and a constructor: the type's name, the struct ParseMsg fills and every
// test that visits each type come from that table, so no second list can fall out of step.
// Each type travels guaranteed, unreliable or sync, and depends only on what it cannot do
// without, so a lost packet holds back as little as possible: a command depends on nothing,
// because it names the frame it runs at, while a kill depends on the spawn of its enemy.
// PROTOCOL.md has the table of messages, the reasons and the bytes.
//
// # Trust: who is who
//
// A game on a LAN is open to anybody who can send a datagram, and a player is a possible
// attacker too, so nothing that identifies a player is a credential by being known. A player
// id is public (every client sees every player's in PlayerInfo). What proves a player is a
// secret that the server gives that player alone on its first join: coming back to the seat,
// while the old connection is still open or while the seat is held, takes a proof of it (an
// HMAC of a fresh nonce), and until the proof comes the seat and its open connection are left
// alone; a claim without it is refused with "seat belongs to another player" (identity.go).
// The addresses of the direct links are the ones the server sees the connections come from,
// never ones a client names (which could be a victim's), and a client sends an address
// nothing but a few connection requests until it has answered. A direct link counts only once
// the other side has proved the key the server gave that pair of players and nobody else, so
// a player who dials another as somebody else carries no command and leaves the real link
// alone.
//
// # Lockstep with a lead time (seed 002)
//
// Every host runs the same world. Only orders travel: a command issued at frame f runs at
// f + lead on every host, and the events of a frame run in the same order everywhere (kind,
// seat, id), whatever order they arrived in. The server sets the lead from the worst path among
// its players (lead.go): half the round trip, a frame, twice the jitter, and as many resend
// delays as the loss calls for to leave under 1% of the commands late. Clients step at the
// server's frame boundaries as they estimate them from its FrameSync. An event that arrives
// after its frame sends the world back to a copy from before that frame, and the frames run
// again with it, exactly (resim.go); later than the window, or with --late fastforward, it runs
// at once and its units are fast-forwarded over the frames they missed (seed 002): only their
// walking, so the result can differ from the hosts that had it on time.
//
// # A game that lasts
//
// The enemies keep coming, so a player whose army runs low (fewer than two units) gets a
// fresh starting squad at its spawn point. The server decides it from its own world and
// announces it a few seconds ahead, like a spawn (Reinforce), and every host lands it at
// that frame; reinforce.go says why a message and not a rule each host applies to its own
// copy. The teacher can start a new round (NewRound, round.go): at an announced frame every
// host empties its world and seeds it again, and the players get fresh squads.
//
// # One link for the whole class
//
// The teacher's server can give every client the same link setting (ClassLink, classlink.go),
// which each client puts on the conditioner under its own socket: 10% loss for the whole room
// at one key press. It comes from the server's connection only, bounded by the sliders' ranges,
// at most four a second.
//
// # Spectators
//
// A class has more students than seats: beyond the 8 seats the server admits up to 32
// spectators (spectate.go), clients that asked to watch (cmd/client --spectate) or found
// every seat taken. Each gets the world as a late joiner does and every event on the
// players' frames, and runs its own copy in lockstep, so its map is the game and its debug
// panel its own link. It chats at a player's rate, all the spectators together at two
// players' (chat.go), marked as a spectator's, unless the teacher turns spectator chat off.
// Nothing it does reaches the players: it gets no link, key or secret, the lead time ignores
// its link, the server waits for it in no pause (it is sent the paused world instead), a
// drift in its reports is repaired by a copy of the world to it alone, and a connection that
// falls spectatorBacklog messages behind is dropped with the reason. A client the server cannot admit is told why: "the game is full: 8 players and
// 32 spectators".
//
// # Finding and repairing drift
//
// Clients report once a second the root of a hash tree over their units: one group hash (id
// range 1 to world.MaxUnitID, XOR of every unit's hash) for the frame it describes, about 15
// bytes. When it differs from the server's, the server splits its own units into at most ten
// sub-ranges and sends each with its hash (a HashRequest); the client answers with its units'
// own hashes in the sub-ranges whose hashes differ, and names the others as skipped (a
// UnitHashes): the drifted unit is named one round trip after the report, from a tenth of the
// units. A frame is reported, and checked, only once it has settled: a late event would run
// it again, so each host waits a frame longer than the latest event it ran again in the last
// 30 s (resim.go, settle). The hashes come from the
// host's history, which every re-run rewrites, so they are the frame's final state: a
// mismatch is a real drift, not an event one side has not seen yet. The server compares
// them with its history of that frame, drills down as above, and repairs the units that
// differ in real time: every host puts the server's state of them in place at a future
// frame, like a command. If a repaired unit is wrong again soon, or too many differ, the server
// stops the world: every host pauses at a frame far enough ahead (the Pause is a sync message),
// clients send the hash of every unit, the server sends what differs in batches, clients
// acknowledge each, and the server orders the resume. Nobody waits forever: a client that has
// not finished its part by the pause's deadline is dropped from the round (it resumes with the
// others, and its next reports show what still differs), so a pause with a silent client
// still ends within 2 s; a client dropped from two rounds in a row leaves the game. One
// player's reports cannot stall the others either: they lead to at most one real-time
// re-sync a second, and to no second stop-the-world within 30 s (a client that would need one
// leaves the game and rejoins with a fresh copy of the world). Pauses are timed and reported. Both
// sides log what they saw (synclog.go) for the debug panel: each mismatch with the client's
// and the server's hash of every unit that differed, and what was done about it. A UnitUpdate
// carries the server's hashes for that, since a client never computes them.
//
// # Shortcuts between players
//
// Clients also connect to each other and send their commands directly, which saves the
// server's relay hop; every host takes a command once, whichever path brought it first. The
// server says where each player is (the address it sees its connection come from) and gives
// each pair a key, which both sides of a link prove before it carries a command (p2p.go).
// A command names the players it went to directly, and the server relays it to the others
// only: the link is a guaranteed connection, so the relay would be a second copy. When a link
// stops delivering (no datagram for 1.5 s, or a command unacknowledged for the lead time),
// either end tells the server which way commands may be lost, and the server sends that way's
// recent commands again and relays them for a while: a cut cable costs late commands, run
// again exactly, not a drift.
package game
