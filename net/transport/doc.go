// Package transport puts the sans-IO protocol core on real UDP sockets: a Server that serves
// many clients on one socket, a Client, the connection handshake with its key exchange, the
// sealed frame of every connection, keepalives, pings, timeouts, disconnect reasons and
// per-peer statistics. Each connection is a Peer with a net/message Conn inside; the game
// (package game) sits on top and knows connections, not sockets. IDEAS.md: the handshake,
// sealing and the connection lifecycle; the trust rules (the handshake budget).
//
// # The map
//
//	server.go    Server: Listen, Serve, NewServer; the handshake's server side (the stateless
//	             challenge, accept, the Accepted repeated until the client is heard), Kick,
//	             Drop, Flush, Shutdown; ServerConfig (MaxClients, the budgets, ChallengeTTL, Admit)
//	client.go    Client: Dial, DialOn, NewClient; the handshake's client side (a request
//	             every Retry and up to a quarter more, give up after ConnectTimeout),
//	             Disconnect, Shutdown;
//	             ClientConfig (PlayerID, Name, Role); LocalFor, ResolveServer
//	host.go      what both share: Config (Timeout, Keepalive, AckDelay, PingInterval,
//	             PingIdleOnly, Link, Tap, KeyLog), pump (what a connection has due, and pings,
//	             which stand for keepalives), receive (Data, Ping, Pong, Disconnect), Run, the
//	             ready-made owner loop, and Earliest
//	peer.go      Peer, one established connection: Conn, Role, PlayerID, the pongs;
//	             PeerStats, its snapshot (Peer.Stats, in peer_stats.go)
//	counters.go  Rejections, every dropped datagram counted by reason; PeerTotals
//	socket.go    Socket: the UDP socket, its reader goroutine and its link conditioner
//	             (SetLink); Datagram, Writer
//	seal.go      the connection's keys from the X25519 exchange (ConnKeys), the sealer, and
//	             ReplayRecord, the record of accepted counters that refuses copies
//	challenge.go the challenge, the handshake's stateless cookie: its tag, and the secret
//	             that rotates every ChallengeTTL
//	budget.go    the handshake budgets: challenges per address and per /24 or /64, key
//	             exchanges in all
//	tap.go       Tap: every datagram of a socket shown to a recorder (net/record), the ones
//	             the link conditioner dropped included
//
// net/transport/compare holds the benchmarks against quic-go and TCP.
//
// # Usage
//
// A Server or Client is an endpoint that does no I/O of its own: datagrams come in through
// Handle(now, datagram), time passes through Tick(now), NextTick says when to call again, and
// what it sends goes to a Writer. Listen and Dial are the ready-made version with a Socket of
// its own, driven by Run:
//
//	srv, err := transport.Listen("127.0.0.1:7777", transport.ServerConfig{Config: transport.Config{
//		OnConnect:    func(p *transport.Peer, now time.Time) { /* seat it */ },
//		OnMessage:    func(p *transport.Peer, now time.Time, m *message.Message) { /* use it */ },
//		OnDisconnect: func(p *transport.Peer, now time.Time, why wire.DisconnectReason, text string) {},
//	}})
//	do := make(chan func(time.Time))
//	go transport.Run(ctx, srv, do)
//	do <- func(now time.Time) { p.Conn().SendGuaranteed(now, payload, nil, nil) } // on the loop
//
//	cli, err := transport.Dial("127.0.0.1:7777", transport.ClientConfig{Name: "ann"})
//	go transport.Run(ctx, cli, nil)
//
// NewServer and NewClient make endpoints without a socket, for an owner that feeds them: a
// game host with one socket for its server connection and its direct links (game/hostloop),
// or a test that runs a whole game over a linksim.Network in virtual time.
//
// # Rules
//
//   - One goroutine owns an endpoint and every Peer of it (Run's loop, or the owner's): only
//     it calls Handle, Tick and the methods that change connection state, and the callbacks
//     run on it, with the time of the call that caused them. There are no locks around
//     connection state. Stats, SetLink, LocalAddr and Close are safe from anywhere: the loop
//     publishes immutable snapshots behind an atomic pointer.
//   - The handshake answers no unproven address with more bytes than it sent, keeps no state
//     before a valid response, rations its challenges per source and its key exchanges in
//     all (budget.go): a flood of forged requests from everywhere spends nothing that an
//     honest client needs.
//   - Every datagram of a connection is sealed; one that fails authentication, or a copy of
//     one accepted before, is dropped and counted, never answered.
//   - A connection that hears nothing for Timeout (5 s) ends with DisconnectTimeout; every end
//     sends a Disconnect with its reason three times, since nothing acknowledges it.
//   - A player id is public: it names a connection and proves nothing. The owner decides
//     which of two connections with one id stays.
//   - Every datagram that is of no use is counted under one reason (Rejections), over the
//     endpoint's whole life; at most every 10 s the Logger gets a line with the counts.
//   - A server's Tick works only on the connections that need it (their deadline came, a
//     datagram of theirs arrived, or their owner queued a message since): a server with a
//     lecture hall's connections does not poll every one of them on every Tick.
package transport
