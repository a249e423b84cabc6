package transport

// Stats returns a snapshot of this connection. Owner loop only; other goroutines read the
// published snapshots of Server.Stats and Client.Stats.
func (p *Peer) Stats() PeerStats { return p.snapshot() }
