package message

import (
	"time"

	"github.com/ackattack/ackattack/net/depgraph"
)

// Chain is an ordered channel built from dependencies: every message sent through it depends
// on the one sent before it, so the receiver executes them in order, while messages outside the
// chain never wait for it. That is the idea of ordered channels as dependency chains: a channel
// is a dependency graph whose every node has one predecessor. A chat is a chain per sender.
//
// Once the previous message has executed in the sender's local graph the dependency costs
// nothing on the wire, so a chain in steady state pays the same 2 bytes per message as a
// classic ordered channel.
//
// The zero Chain is ready to use; a Chain must not be copied (it holds a Dependency).
type Chain struct {
	last depgraph.Dependency
	deps [1]*depgraph.Dependency
}

// Send queues payload as the next guaranteed message of the chain on c.
func (ch *Chain) Send(c *Conn, now time.Time, payload []byte) (uint16, error) {
	ch.deps[0] = &ch.last
	return c.SendGuaranteed(now, payload, ch.deps[:], &ch.last)
}

// Last is the handle of the chain's latest message, for messages outside the chain that must
// come after it.
func (ch *Chain) Last() *depgraph.Dependency { return &ch.last }
