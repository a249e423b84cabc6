// Package depgraph is the message dependency graph: it orders guaranteed messages by the
// messages each one names as its dependencies, instead of by one global sequence, so that a lost
// message holds back only what really needs it. The receiver's Graph executes each message
// exactly once, after its dependencies; the sender's local graph (Sender) runs a copy of it on
// the acknowledgements, so it knows which messages the receiver has executed and prunes
// dependencies on them from what it sends. IDEAS.md: the message dependency graph (the
// receiver's graph, the sender's local graph, pruning, node expiry, the window), ordered
// channels as dependency chains.
//
// # The map
//
//	graph.go   Graph, the receiver's graph: New, Add (a message and its dependencies; a
//	           dependency never seen gets a placeholder), Arrive, Expire and NextExpiry
//	           (node expiry), Executed, PendingDeps; Config (Expiry, KeepUnexecuted,
//	           Window); Window, the window rule; SeqSpace, SeqMask; the errors
//	sender.go  Sender, the sender's local graph: NewSender, NewWindowSender, Send (binds a
//	           Dependency handle to a new message and returns the dependencies that still go
//	           on the wire), Acked, Free (may this sequence number be used now?), Pruned;
//	           Dependency, the handle game code holds instead of a sequence number
//
// # Usage
//
// net/message wires both ends together; game code only holds Dependency handles and passes
// them to message.Conn.SendGuaranteed. Underneath, the sender and the receiver do this
// (example_test.go runs it):
//
//	// The sender: a spawn, and a kill that depends on it.
//	s := depgraph.NewWindowSender(6 * time.Second)
//	var spawn depgraph.Dependency
//	onWire, err := s.Send(now, 0, nil, &spawn, nil)                                // []
//	onWire, err = s.Send(now, 1, []*depgraph.Dependency{&spawn}, nil, onWire)     // [0]
//	s.Acked(now, 0) // a packet carrying the spawn was acknowledged: it executes locally
//	onWire, err = s.Send(now, 2, []*depgraph.Dependency{&spawn}, nil, onWire)     // [], pruned
//
//	// The receiver: executes each message once, after its dependencies.
//	g := depgraph.New(depgraph.Config{Expiry: 6 * time.Second, Window: true},
//		func(seq uint16, msg string) { /* run it */ })
//	g.Add(now, 1, []uint16{0}, "kill", true) // waits: 0 is a placeholder
//	g.Add(now, 0, nil, "spawn", true)        // the spawn runs, then the kill
//	if err := g.Expire(now); err != nil { /* a message that never came: the connection fails */ }
//
// # Rules
//
//   - A message executes exactly once: a copy of an executed message is ignored.
//   - Whatever the sender's local graph has executed, the receiver has executed: a sent node
//     arrives only when a packet carrying it was acknowledged, and executes only after its
//     dependencies executed locally. So a pruned dependency is always already met.
//   - A Dependency must not be copied (go vet's copylocks check catches it: the local graph
//     keeps a pointer to it); binding it to another message, or Release, detaches the old one.
//   - Sequence numbers are 15 bits and wrap. A number may be sent again only when Sender.Free
//     says so; with the window rule (NewWindowSender, and Config.Window on the receiver) the
//     numbers go out in order, and a new one only while every message Window or more before it
//     has executed locally.
//   - Node expiry: an unexecuted node that waits Config.Expiry is ErrExpired, and one the
//     window passes is ErrWindow; on the receiver both are connection errors.
//   - Sans-IO and single-goroutine: nothing reads a clock (every call that depends on time
//     takes now, and NextExpiry says when to call Expire); a Graph or Sender belongs to one
//     goroutine, and the execute callback may call back into its Graph (the work is queued).
package depgraph
