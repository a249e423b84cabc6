// Package replay plays a capture back (cmd/client --replay): the datagrams that net/record
// wrote for one host, taken one at a time, rebuild what that host's debug panel showed while it
// played (Model says how: the same packet layer, message layer and dependency graph the host
// ran), with the events a class looks for: chat, drill-downs, real-time and stop-the-world
// re-syncs, handshakes.
//
// # The map
//
//	model.go     Model (New): the capture and the state after its first Pos datagrams; Step,
//	             Seek (back is a rebuild from the start, not an undo), NextResync; what the
//	             debug panel reads: PeerStats, RTTSamples, Events, Chat, Pauses, Mismatches,
//	             Conns
//	conn.go      one connection of the recorded host, rebuilt: its packet layer, its message
//	             layer and the local graph of its sent messages
//	datagram.go  Datagram: one datagram as the replay shows it (its fate, header, messages)
//	player.go    Player: a Model played at a speed (Speeds), paused or playing, with the time
//	             the caller gives it
//	bounded.go   the rings that keep what grows with a capture bounded
//
// # Usage
//
//	ds, err := record.ReadAll("class.pcapng", replay.MaxDatagrams)
//	m := replay.New(ds)
//	p := replay.NewPlayer(m)
//	p.Play()
//	for each tick of the screen:
//		p.Advance(elapsed)      // applies the datagrams whose time has come
//		d, ok := m.Current()    // the datagram applied last
//		stats := m.PeerStats(0) // what the debug panel draws
//	p.SeekResync() // the next Pause or UnitUpdate
//
// # Rules
//
//   - Pure and clockless: the caller owns the clock (a ticker in the binary, fixed steps in a
//     test), so the same capture, keys and times give the same screens.
//   - The replay runs the real code, never a second parser: net/wire, net/record, net/packet,
//     net/message, net/depgraph and game.ParseMsg.
//   - What grows with the capture is bounded (MaxDatagrams, and rings for the logs).
package replay
