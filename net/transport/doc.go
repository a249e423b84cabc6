// Package transport puts the sans-IO protocol core on real UDP sockets: a Server that serves
// many clients on one socket, a Client, the connection handshake, keepalives, pings, timeouts,
// disconnect reasons and per-peer statistics.
//
// # Who owns what
//
// A Server or Client is an endpoint that does no I/O of its own: datagrams come in through
// Handle(now, datagram), time passes through Tick(now), NextTick says when to call again, and
// what it sends goes to a Writer. NewServer and NewClient make such endpoints; the owner of the
// socket (a game host with one socket for its server connection and its direct links, or a
// test that runs a whole game over a linksim.Network in virtual time) feeds them. Callbacks
// carry the time of the call that caused them. Listen and Dial are the ready-made version
// with a Socket of its own: one goroutine reads the socket and copies every datagram into a
// channel (Datagrams), and the owner loop (Run is one) is the only goroutine that touches
// connection state, so there are no locks around it. Stats are
// published by the loop as immutable snapshots behind an atomic pointer, so a user interface can
// read them at any moment without waiting for the loop. Close stops the reader goroutine and
// waits for it.
//
// # The handshake
//
// A UDP server must not become a weapon. Anybody can send it a datagram with a forged source
// address, and if the reply were larger than the request the server would amplify an attack on
// the forged address. So:
//
//	client                                     server
//	ConnectRequest (padded to 1200 bytes)  ─►  no state; a challenge: HMAC(secret, address,
//	                                           time, player id), 29 bytes
//	ChallengeResponse (echo, 1200 bytes)   ◄─  Challenge
//	                                       ─►  checks the HMAC and its age: only now does the
//	                                           client get state and a connection key
//	Data packets sealed with the key       ◄─  Accepted (key)
//
// The request is padded so that no answer is ever larger than what provoked it. The challenge
// costs the server no memory: it recomputes the HMAC when the response comes, so a flood of
// requests from forged addresses creates nothing; a client that cannot receive at its claimed
// address never learns the challenge. A used challenge is remembered until it expires, so a
// replay is refused. A server with MaxClients connections, or whose owner's Admit refuses the
// player (the game has no seat for it), answers "server full".
//
// Challenges are rationed, and a request over a budget gets no answer at all: at most
// MaxPendingHandshakes (64) per ChallengeTTL (5 s) in all, MaxHandshakesPerPrefix (32) to one
// /24 of IPv4 or /64 of IPv6, and MaxHandshakesPerAddress (16) to one address. So a flood of
// requests from one address, or one network, spends its own share and leaves the rest to
// everybody else: in virtual time, 1,000 requests a second from one address, or from all over
// one /24, delay no honest client's join by a single round trip, where one global budget kept
// five of five out. A flood from forged addresses everywhere is held by the global budget
// alone: the server still sends no more than 64 challenges per 5 s. The per-source buckets live
// in two fixed tables of 1,024 slots indexed by a keyed hash, two slots per source, so they
// take 16 KiB whatever comes, and a flood of forged sources can neither grow them nor evict
// anybody (budget.go).
//
// After the handshake every datagram of the connection is sealed with the connection key (it
// is mixed into the checksum, see net/wire). A datagram from the client's address that fails
// the key (a spoofer who guessed the address, a stale connection) is dropped and counted as
// spoofed.
//
// # Every rejected datagram is counted
//
// A datagram that is of no use (it does not parse, it comes from an unexpected address or
// with the wrong key or after its connection ended, it is stale or a duplicate, it is a request over a budget or a response
// with a bad challenge, or the socket's reader had to drop it) is counted under its reason in
// Rejections, over the endpoint's whole life: ServerStats.Rejected and ClientStats.Rejected.
// The counters of a connection that ended are kept in ServerStats.Ended. At most every 10 s
// the Logger gets a line with the rejections since the last one.
//
// # Keeping the connection alive, and ending it
//
// A connection with nothing to send still sends a packet every Keepalive (100 ms), so acks flow
// both ways even when the game traffic is one-way; a packet that arrived is acknowledged within
// AckDelay. Both are the message layer's policy (message.Conn decides when a packet is due and
// includes it in NextDeadline); the transport only sets the durations. Pings go both ways once a second and measure the round trip and the offset between
// the two clocks (t0..t3, as in NTP). A connection that hears nothing for Timeout (5 s) ends
// with DisconnectTimeout. A clean disconnect, a kick, the server shutting down, or an error of
// the message layer (an unexecuted dependency expired, a message passed the resend limit) sends
// a Disconnect with the reason, three times since nothing acknowledges it, so both sides and
// their user interfaces learn why. A player id names a connection but proves nothing (every
// player of a game learns every other's): a client that connects with the id of an open
// connection gets a connection of its own beside it, and the owner decides which one stays
// (Drop with DisconnectReplaced, or Kick). A new connection from the address of an open one
// does replace it: the challenge showed that it receives at that address. Seats are not the
// transport's business: the game above keeps them, and Accepted carries only the connection
// key.
//
// # Breaking the network on purpose
//
// Config.Link puts a net/linksim conditioner under the socket; SetLink changes its loss,
// latency, jitter and duplication while the game runs. That is what the sliders drive.
package transport
