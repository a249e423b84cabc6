package world_test

import (
	"fmt"

	"github.com/ackattack/ackattack/world"
)

// Two hosts run the same world: same map, same seed, same calls at the same
// frames. Their hashes agree; a command one of them misses shows up in the
// grouped hashes, and the differing units are found and sent.
func Example() {
	server, _ := world.NewWorld("skirmish", 42)
	server.AddPlayerUnits(0) // units 1..5 at spawn point 1
	client := server.Clone()

	order := world.Command{Player: 0, Kind: world.CommandMove, Units: []uint32{1, 2}, X: 20, Y: 10}
	if err := server.Apply(order); err != nil {
		fmt.Println(err)
	}
	// The client never hears of the order.
	for range 20 {
		server.Step()
		client.Step()
	}
	fmt.Println("frame", server.Frame(), "in sync:", server.Hash() == client.Hash())

	for _, g := range client.GroupHashes(3, nil) {
		if server.RangeHash(g.Start, g.End) == g.Hash {
			fmt.Printf("units %d..%d agree\n", g.Start, g.End)
			continue
		}
		fmt.Printf("units %d..%d differ\n", g.Start, g.End)
		theirs := client.UnitHashes(g.Start, g.End, nil)
		for i, uh := range server.UnitHashes(g.Start, g.End, nil) {
			if theirs[i] != uh {
				u, _ := server.Unit(uh.ID)
				client.SetUnit(u) // in a game: AppendUnit, the network, ParseUnit
			}
		}
	}
	fmt.Println("in sync after re-sync:", server.Hash() == client.Hash())
	// Output:
	// frame 20 in sync: false
	// units 1..3 differ
	// units 4..1073741823 agree
	// in sync after re-sync: true
}
