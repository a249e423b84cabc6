// Package depgraph orders guaranteed messages by their dependencies instead of by one global
// sequence.
//
// # Why a graph
//
// UDP delivers packets out of order or not at all. A guaranteed message that is lost is sent
// again in a later packet, so "spawn enemy 17" may reach the peer after "kill enemy 17". The
// classic fix is an ordered channel: message N waits for every message before it. That is TCP
// again: one lost chat line holds up every spawn behind it. Several channels help, but the
// real structure is finer: each message waits only for the messages it actually needs. A
// channel is the special case where every message depends on the one before it; "kill enemy
// 17" depends on "spawn enemy 17"; "start game" depends on the N "player info" messages; ten
// spawns depend on nothing, so losing the first holds up none of the others. Those relations
// form a directed acyclic graph, and this package keeps it.
//
// # The receiver's graph
//
// Every guaranteed message carries its 15-bit sequence number and the sequence numbers it
// depends on. On arrival (Graph.Add) the message gets a node, and each dependency that has not
// executed gets an edge to it; a dependency never seen gets a placeholder node. A node with no
// waiting dependencies executes at once, and executing it releases its successors, which may
// execute in turn. That cascade runs as a loop over an explicit queue, not as recursion, so a
// chain as long as the sequence space unwinds without deepening the call stack:
//
//	sender                              receiver graph
//	A (seq 7)            ──── lost ──X
//	B (seq 8, deps [7])  ────────────►  [7 placeholder] ──► [8 B, waiting]
//	A (seq 7, resent)    ────────────►  [7 A] executes, then releases
//	                                    [8 B] executes
//
// A message whose node has executed is ignored when it comes again (a resend whose first copy
// arrived after all): each message executes exactly once.
//
// Nodes cannot stay forever: the sequence space wraps, and a stale executed node would make a
// new message with the same number look like a duplicate. A node leaves the graph Expiry after
// it executed (the connection timeout plus a second, by which time no copy of the old message
// can still be in flight), or, with the window rule below, as it executes. A node that has
// waited Expiry without executing means a message or dependency never came: Expire reports
// ErrExpired, a connection error.
//
// # The sender's local graph
//
// Dependencies cost two bytes each on the wire, and one that names an old message is wrong
// after the sequence numbers wrap ("kill enemy 17" an hour after its spawn). Both problems go
// away if the sender leaves out every dependency it knows the receiver has executed. It knows
// this by keeping a copy of the graph (Sender): a sent message gets a node that is not yet
// "arrived"; when a packet carrying it is acknowledged the node arrives (Sender.Acked) and the
// copy executes exactly as the receiver's graph does. An acknowledged message may still be
// waiting on the receiver for a dependency that was lost, so the local node waits too, and
// executes only once its dependencies have. Whatever the local graph has executed, the
// receiver has executed. In steady state every message is acknowledged within a round trip,
// so dependency lists shrink to nothing and a guaranteed message costs two bytes, as on an
// ordered channel.
//
// Game code does not hold sequence numbers; it holds Dependency handles. Send binds a handle
// to the new message, the local graph marks it executed when the message executes, and a
// later Send that names an executed handle simply leaves it off. The graph keeps a pointer to
// the handle, so a handle must not be copied (it embeds a noCopy marker that go vet's copylocks
// check catches), and binding it to another message, or Release, removes the old message's
// pointer to it.
//
// A sequence number may be reused only once its old node has left the sender's graph
// (Sender.Free). The sender's node executes after the receiver's and expires after it, so the
// receiver has forgotten the old message by the time its number returns.
//
// # Reusing sequence numbers: the window
//
// Waiting for expiry caps a sender at 32,768 messages per expiry: about 5,500 a second with
// the default connection timeout of 5 s plus 1 s. Knowledge frees numbers sooner than time can. A Sender
// made with NewWindowSender keeps one rule: it sends numbers in increasing order, and a new
// number only while every message sent Window (16,383) or more numbers before it has executed
// locally. Call N the newest message the receiver has seen. When the sender sent N, everything
// Window or more behind N had executed locally, so (the pruning rule) it had executed on the
// receiver too. A receiver Graph with Config.Window therefore knows, from N alone:
//
//   - a message Window or more behind N has executed: a copy of it is ignored and a
//     dependency on it is met;
//   - every message that has not arrived yet lies fewer than Window numbers behind N or at
//     most Window ahead of it, so on a circle of 32,768 numbers "ahead" and "behind" are
//     never ambiguous: a number ahead of N is a new message.
//
// So an executed message needs no node at all: it leaves the graph as it executes, and one
// bit per sequence number (4 KiB) says "executed" until N moves Window past it. Only messages
// that wait, and placeholders for what they wait for, are nodes. Why reuse is then safe: the
// sender uses number s again only once the message Window numbers before the new s had
// executed, that is 32,768 − Window ≥ Window numbers after the old s; the receiver saw that
// message, so N had passed the old s by Window and its bit was cleared before the new s
// could arrive. The Sender's own graph keeps the same rule, for the same reason. With Window at one less than half the circle, the
// sender may run Window messages ahead of its oldest unexecuted one, and a number returns as
// soon as its old message and the Window − 1 after it executed: the ceiling is Window
// messages per the time the oldest one takes to execute (about a round trip on a clean link),
// not 32,768 per expiry. What the graph cannot see, a copy of the old message still in flight
// when the number returns, is the message layer's to rule out (net/message: the packet layer
// drops it as stale). An unexecuted node that reaches its expiry is still an error, as
// without the window.
//
// # Cost
//
// Lookup by sequence number is one array index: a [SeqSpace]int32 table (128 KiB per graph)
// points into a slab of nodes that is recycled through a free list and grows in pages that
// never move. Successor and dependency lists keep their capacity when a slot is reused, and
// expiry walks two FIFO queues (by creation time and by execution time, both in order because
// time never goes back), so in steady state adding, executing and expiring allocate nothing
// and never scan the graph; the window forgets one number per number it moves.
//
// Like the rest of the network core the package is sans-IO: it never reads a clock; every
// call that depends on time takes now, and NextExpiry says when to call Expire.
package depgraph
