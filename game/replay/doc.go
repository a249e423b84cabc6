// Package replay plays a capture back: the datagrams that net/record wrote for one host, taken
// one at a time, rebuild what that host's debug panel showed while it played.
//
// # The idea
//
// A host's protocol state is a function of the datagrams it sent and received and of when.
// The capture holds exactly those, opened with the key file, so the state can be rebuilt by
// handing them, in order and with their times, to the same code the host ran:
//
//   - net/packet's Endpoint is told every Data packet the host sent (Sent) and every one that
//     reached it (Received). It numbers, acknowledges, measures the round trip and counts
//     losses exactly as the host did, so the ack cells, the ack bits, the RTT samples and the
//     loss estimate of the replay are the host's own.
//   - net/message's Conn is handed every Data packet that reached the host (ReceivePacket):
//     its receiver graph executes the guaranteed messages in dependency order, reassembles
//     fragments and ignores copies, and its history records when each message arrived and
//     executed.
//   - The sent messages are followed from the records of the packets that went out: the first
//     send, the resends, the dependencies each send carried (one dropped between two sends was
//     pruned by the sender's local graph), and, from the packet acknowledgements, when every
//     piece was acknowledged. A net/depgraph Graph plays the sender's local graph: it executes
//     a message once it is acknowledged and its dependencies have executed, as the sender's,
//     and keeps the sender's window rule, so a number reused soon after is a new message.
//   - The game's registry of message types (game.ParseMsg) names and decodes every message
//     payload: chat lines, the players' and the spectators', and the re-sync messages a class
//     wants to find (Pause, ResyncBatch, Resume; UnitUpdate, the real-time re-sync;
//     HashRequest, the drill-down).
//
// Nothing is parsed twice or by a second parser: net/wire reads the headers and records,
// net/record opens the datagrams, game reads the game messages.
//
// # What a capture cannot show
//
// The capture sees the socket, not the host's queues: a sent message is "queued" when its
// first copy left, and a dependency the sender pruned before the first send never appears (a
// pruned edge is one that a later send left off). Without the key file only the handshake is
// readable; the rest is counted as sealed. Times are the capture's, which the socket took as
// it handed each datagram over: within a millisecond of the host's own clock.
//
// # Pure and clockless
//
// Model holds the capture and the state after its first Pos datagrams; Step applies one more,
// Seek goes to any position (from the start again when it goes back: the state is rebuilt,
// not undone). Player turns elapsed time into datagrams at a speed, paused or playing; the
// caller owns the clock (a ticker in the binary, a loop of fixed steps in a test), so the same
// keys and the same times give the same screens.
package replay
