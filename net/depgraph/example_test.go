package depgraph_test

import (
	"fmt"
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
)

// A spawn and the kill that depends on it, seen from both ends: the sender's local graph
// prunes the dependency once the spawn is acknowledged, and the receiver's graph holds a kill
// that overtook its spawn until the spawn arrives.
func Example() {
	now := time.Unix(0, 0)
	expiry := 6 * time.Second // the connection timeout plus a second

	// The sender.
	s := depgraph.NewWindowSender(expiry)
	var spawn depgraph.Dependency
	onWire, _ := s.Send(now, 0, nil, &spawn, nil)
	fmt.Println("spawn #0 depends on", onWire)
	onWire, _ = s.Send(now, 1, []*depgraph.Dependency{&spawn}, nil, onWire)
	fmt.Println("kill #1 depends on", onWire)
	s.Acked(now, 0) // a packet carrying the spawn was acknowledged: it executes locally
	onWire, _ = s.Send(now, 2, []*depgraph.Dependency{&spawn}, nil, onWire)
	fmt.Println("a later kill #2 depends on", onWire, "- pruned:", s.Pruned())

	// The receiver: the kill's packet arrives first.
	g := depgraph.New(depgraph.Config{Expiry: expiry, Window: true}, func(seq uint16, what string) {
		fmt.Println("executed", what)
	})
	g.Add(now, 1, []uint16{0}, "kill #1", true)
	fmt.Println("waiting:", g.WaitingCount())
	g.Add(now, 0, nil, "spawn #0", true)
	if err := g.Expire(now.Add(time.Second)); err != nil {
		fmt.Println(err) // a message that never came: the connection fails
	}
	// Output:
	// spawn #0 depends on []
	// kill #1 depends on [0]
	// a later kill #2 depends on [] - pruned: 1
	// waiting: 1
	// executed spawn #0
	// executed kill #1
}
