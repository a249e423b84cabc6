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
//	ChallengeResponse (echo, 1200 bytes,   ◄─  Challenge
//	  + the client's X25519 public key)    ─►  checks the HMAC and its age: only now does the
//	                                           client get state, and the server a key pair
//	every packet sealed with the keys      ◄─  Accepted (the server's public key)
//
// The request is padded so that no answer is ever larger than what provoked it. The challenge
// costs the server no memory: it recomputes the HMAC when the response comes, so a flood of
// requests from forged addresses creates nothing; a client that cannot receive at its claimed
// address never learns the challenge. A used challenge is remembered until it expires, so a
// replay is refused. A server with MaxClients connections, or whose owner's Admit refuses the
// player (the game has no seat for it), answers "server full". The client's handshake also
// says what it asks to be (wire.Role: a player, or an observer that only watches); the
// transport hands that to its owner (Peer.Role) and acts on it no further.
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
// # Keys, and why the handshake exchanges them
//
// The handshake travels in the clear, so a connection key the server simply sent would be
// known to anybody who reads the traffic: a student on the same network could read every
// message and forge any. So the two sides run an X25519 exchange: the client draws a key pair and
// sends its public key in the ChallengeResponse, the server draws one when it accepts and
// answers with its public key in Accepted, and each side derives the connection's two keys,
// one per direction, from the shared secret and both public keys (wire.ConnectionKeys, HKDF).
// The keys never travel. The exchange keeps the anti-amplification rules: the challenge stays
// stateless and bound to the address (the client's public key arrives only with the response,
// and the server spends an X25519 operation only on a response whose tag is good), the replies
// to an unproven address are still a 29-byte Challenge or a 6-byte Denied, and the 37-byte
// Accepted goes only to an address that has proven itself. It does not authenticate the
// server: somebody who can rewrite the handshake in flight (not merely read it) can sit in the
// middle; a LAN game has no key it could know beforehand.
//
// After the handshake every datagram of the connection, Data, Ping, Pong and Disconnect alike,
// is sealed with ChaCha20-Poly1305 (net/wire's sealed frame): encrypted, authenticated, and
// numbered by a counter per direction that the connection's sealer keeps (seal.go). A datagram
// from the peer's address that fails authentication (forged or altered, a spoofer who guessed
// the address, a stale connection) is dropped and counted as wrong_key; one that authenticates
// but whose counter was accepted before, or lies 1,024 or more behind the largest accepted, is
// a copy and is dropped and counted as replay, unanswered: a replayed Ping gets no Pong.
// Config.KeyLog hands the keys to a test or a debugging tool that wants to decode a capture.
//
// # Every rejected datagram is counted
//
// A datagram that is of no use (it does not parse, it comes from an unexpected address or
// fails the connection's keys or comes after its connection ended, it is a replay, stale or a
// duplicate, it is a request over a budget or a response
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
// transport's business: the game above keeps them, and Accepted carries only the server's
// half of the key exchange.
//
// # Breaking the network on purpose
//
// Config.Link puts a net/linksim conditioner under the socket; SetLink changes its loss,
// latency, jitter and duplication while the game runs. That is what the sliders drive.
//
// # Watching the traffic
//
// Config.Tap shows every datagram of the socket to a recorder: those the host sends, those
// that reach it, and those the conditioner dropped, which neither side ever sees (tap.go says
// where each is seen). With Config.KeyLog it is all a capture needs to be read later,
// sealed datagrams included: net/record writes one that Wireshark opens.
package transport
