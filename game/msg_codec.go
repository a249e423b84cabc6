package game

import (
	"fmt"
	"time"

	"github.com/ackattack/ackattack/internal/int30"
	"github.com/ackattack/ackattack/net/wire"
	"github.com/ackattack/ackattack/world"
)

// The fields of every message in the order of their bytes after the type byte, its layout in
// one line above them (PROTOCOL.md, section 3, says what each field means). Each method serves
// writing, reading and measuring alike (msg_stream.go), so it is the whole codec of its message:
// a field's rule is part of the call that declares the field, and the few rules that tie two
// fields together come last, refused the same way.

// PlayerInfo: seat ‖ player [16] ‖ name (1..32 bytes) ‖ flags u8 (bit 0 bot, bit 1 connected).
func (m *PlayerInfo) fields(s fieldStream) fieldStream {
	s.seat("seat", &m.Seat)
	s.raw("player", m.Player[:])
	s.text("name", &m.Name, 1, wire.MaxNameLen) // the rule of wire.CheckName
	s.flags("flags", &m.Bot, &m.Connected)
	return s
}

// StartGame: map (1..64 bytes) ‖ seed u64 ‖ frame u30 ‖ frame millis u30 ‖ lead frames u30 ‖
// seats list of seat ‖ flags u8 (bit 0 lead fixed), optional.
func (m *StartGame) fields(s fieldStream) fieldStream {
	s.text("map", &m.Map, 1, MaxMapNameLen)
	s.u64("seed", &m.Seed)
	s.u30("frame", &m.Frame)
	s.u30("frame millis", &m.FrameMillis)
	s.u30("lead frames", &m.LeadFrames)
	s = list(s, "seats", &m.Seats, 0, world.MaxPlayers, seatElems)
	s.optionalFlags("flags", &m.LeadFixed)
	return s
}

// Command: seat ‖ id u30 ‖ frame u30 ‖ kind u8 (1..3) ‖ units list of u30 (1..1024) ‖ x i30 ‖
// y i30 ‖ target u30 ‖ direct u8 (seat bits).
func (m *Command) fields(s fieldStream) fieldStream {
	s.seat("seat", &m.Seat)
	s.u30("id", &m.ID)
	s.u30("frame", &m.Frame)
	s.u8In("kind", (*uint8)(&m.Kind), uint8(world.CommandMove), uint8(world.CommandStop))
	s.ids("units", &m.Units, 1, world.MaxCommandUnits)
	s.i30("x", &m.X)
	s.i30("y", &m.Y)
	s.u30("target", &m.Target)
	s.u8("direct", &m.Direct)
	// Across fields: those a kind does not use are 0 (one encoding per command), and a command
	// is not sent directly to its own seat.
	switch {
	case m.Kind != world.CommandMove && (m.X != 0 || m.Y != 0):
		s.refuse("cell", wire.ErrNonCanonical, "%v with a cell (%d, %d), want (0, 0)", m.Kind, m.X, m.Y)
	case m.Kind != world.CommandAttack && m.Target != 0:
		s.refuse("target", wire.ErrNonCanonical, "%v with target %d, want 0", m.Kind, m.Target)
	case m.Direct&(1<<m.Seat) != 0:
		s.refuse("direct", wire.ErrNonCanonical, "to its own seat %d", m.Seat)
	}
	return s
}

// SpawnEnemy: frame u30 ‖ id u30 ‖ kind u8 ‖ x i30 ‖ y i30.
func (m *SpawnEnemy) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.u30("id", &m.ID)
	s.u8("kind", &m.Kind)
	s.i30("x", &m.X)
	s.i30("y", &m.Y)
	return s
}

// KillEnemy: frame u30 ‖ id u30.
func (m *KillEnemy) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.u30("id", &m.ID)
	return s
}

// Chat: seat ‖ line u30 ‖ text (0..200 bytes).
func (m *Chat) fields(s fieldStream) fieldStream {
	s.seat("seat", &m.Seat)
	s.u30("line", &m.Line)
	s.chatText("text", &m.Text)
	return s
}

// LeadTime: frame u30 ‖ lead frames u30 ‖ flags u8 (bit 0 fixed), optional.
func (m *LeadTime) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.u30("lead frames", &m.LeadFrames)
	s.optionalFlags("flags", &m.Fixed)
	return s
}

// PingSummary: average rtt u30 ‖ min rtt u30 ‖ max rtt u30 ‖ loss u30 (0..1000 ‰).
func (m *PingSummary) fields(s fieldStream) fieldStream {
	s.u30("average rtt", &m.AvgRTTMicros)
	s.u30("min rtt", &m.MinRTTMicros)
	s.u30("max rtt", &m.MaxRTTMicros)
	s.u30In("loss", &m.LossPermille, 0, MaxLossPermille)
	return s
}

// HashReport: frame u30 ‖ root u64 ‖ state hash u64 ‖ inputs u32 ‖ locator 6 × u30.
func (m *HashReport) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.u64("root", &m.Root)
	s.u64("state hash", &m.State)
	s.u32("inputs", &m.Inputs)
	for i := range m.Locator {
		s.u30In("locator", &m.Locator[i], 0, world.MaxUnitID)
	}
	return s
}

// HashRequest: frame u30 ‖ ranges list of (start u30 ‖ end u30), at most 4096 ‖ hashes list of
// u64, optional.
func (m *HashRequest) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s = list(s, "ranges", &m.Ranges, 0, MaxHashRanges, rangeElems)
	s = optionalList(s, "hashes", &m.Hashes, MaxHashRanges, hashElems)
	if len(m.Hashes) > 0 && len(m.Hashes) != len(m.Ranges) { // across fields: one per range, or none
		s.refuse("hashes", wire.ErrRange, "%d for %d ranges, want none or one per range", len(m.Hashes), len(m.Ranges))
	}
	return s
}

// UnitHashes: frame u30 ‖ hashes list of (id u30 ‖ hash u64) ‖ skipped list of (start u30 ‖
// end u30), at most 4096, optional.
func (m *UnitHashes) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s = list(s, "hashes", &m.Hashes, 0, anyCount, unitHashElems)
	return optionalList(s, "skipped", &m.Skipped, MaxHashRanges, rangeElems)
}

// UnitUpdate: frame u30 ‖ units list of unit ‖ removed list of u30 ‖ seat ‖ checked u30 ‖
// hashes list of (id u30 ‖ hash u64), ids strictly ascending ‖ state, optional: a u30 length
// and World.AppendCoreState's bytes, then the state hash u64.
func (m *UnitUpdate) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s = list(s, "units", &m.Units, 0, anyCount, unitElems)
	s.ids("removed", &m.Removed, 0, anyCount)
	s.seat("seat", &m.Seat)
	s.u30("checked", &m.Checked)
	s = list(s, "hashes", &m.Hashes, 0, anyCount, unitHashByIDElems)
	if s.leftOut(len(m.State) == 0) {
		if m.StateHash != 0 { // across fields: the hash goes with the state
			s.refuse("state hash", wire.ErrNonCanonical, "%#x without a state, want 0", m.StateHash)
		}
		return s
	}
	worldBytes(&s, "state", &m.State, world.ParseCoreState)
	s.u64("state hash", &m.StateHash)
	return s
}

// Pause: frame u30.
func (m *Pause) fields(s fieldStream) fieldStream { s.u30("frame", &m.Frame); return s }

// WorldHashes: frame u30 ‖ hashes list of (id u30 ‖ hash u64) ‖ attacks hash u64.
func (m *WorldHashes) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s = list(s, "hashes", &m.Hashes, 0, anyCount, unitHashElems)
	s.u64("attacks hash", &m.AttacksHash)
	return s
}

// ResyncBatch: frame u30 ‖ batch u30 ‖ units list of unit ‖ removed list of u30 ‖ flags u8
// (bit 0 has attacks, bit 1 has state) ‖ if bit 0: attacks list of attack ‖ if bit 1: state, a
// u30 length and World.AppendState's bytes.
func (m *ResyncBatch) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.u30("batch", &m.Batch)
	s = list(s, "units", &m.Units, 0, anyCount, unitElems)
	s.ids("removed", &m.Removed, 0, anyCount)
	hasState := len(m.State) > 0
	s.flags("flags", &m.HasAttacks, &hasState)
	if hasState && !m.HasAttacks {
		s.fail("flags", fmt.Errorf("a state without the attacks: %w", wire.ErrNonCanonical))
	}
	if m.HasAttacks {
		s = list(s, "attacks", &m.Attacks, 0, anyCount, attackElems)
	}
	if hasState {
		worldBytes(&s, "state", &m.State, world.ParseState)
	}
	// Across fields: the attacks and the state go only in a batch that says it has the attacks.
	if !m.HasAttacks && (len(m.Attacks) > 0 || hasState) {
		s.refuse("attacks", wire.ErrRange, "%d attacks and %d bytes of state without HasAttacks", len(m.Attacks), len(m.State))
	}
	return s
}

// BatchApplied: frame u30 ‖ batch u30.
func (m *BatchApplied) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.u30("batch", &m.Batch)
	return s
}

// Resume: frame u30 ‖ after millis u30.
func (m *Resume) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.u30("after millis", &m.AfterMillis)
	return s
}

// FrameSync: frame u30 ‖ server clock u64 (Unix nanoseconds, two's complement).
func (m *FrameSync) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	s.i64("server clock", &m.ServerUnixNanos)
	return s
}

// Peers: list of (seat ‖ family u8 (4 or 6) ‖ address (4 or 16 bytes) ‖ port u16 ‖ key [32]),
// at most 8, seats strictly ascending.
func (m *Peers) fields(s fieldStream) fieldStream {
	return list(s, "peers", &m.List, 0, world.MaxPlayers, peerElems)
}

// PlayerSecret: secret [32].
func (m *PlayerSecret) fields(s fieldStream) fieldStream { s.raw("secret", m.Secret[:]); return s }

// Challenge: nonce [16].
func (m *Challenge) fields(s fieldStream) fieldStream { s.raw("nonce", m.Nonce[:]); return s }

// Proof: mac [32].
func (m *Proof) fields(s fieldStream) fieldStream { s.raw("mac", m.MAC[:]); return s }

// Reinforce: frame u30 ‖ seats list of seat (at least one).
func (m *Reinforce) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	return list(s, "seats", &m.Seats, 1, world.MaxPlayers, seatElems)
}

// NewRound: frame u30 ‖ round u30 (2 or more) ‖ seed u64 ‖ seats list of seat.
func (m *NewRound) fields(s fieldStream) fieldStream {
	s.u30("frame", &m.Frame)
	if s.u30("round", &m.Round); m.Round < 2 {
		s.refuse("round", wire.ErrRange, "%d, want 2 or more (the first round needs no message)", m.Round)
	}
	s.u64("seed", &m.Seed)
	return list(s, "seats", &m.Seats, 0, world.MaxPlayers, seatElems)
}

// ClassLink: loss ‰ u30 ‖ burst ‰ u30 ‖ burst length u30 ‖ latency ms u30 ‖ jitter ms u30 ‖
// duplication ‰ u30, each bounded by its slider's range.
func (m *ClassLink) fields(s fieldStream) fieldStream {
	s.u30In("loss ‰", &m.LossPermille, 0, 10*MaxLinkLossPercent)
	s.u30In("burst ‰", &m.BurstPermille, 0, 10*MaxLinkBurstPercent)
	s.u30In("burst length", &m.BurstLength, 0, MaxLinkBurstLength)
	s.u30In("latency ms", &m.LatencyMillis, 0, uint32(MaxLinkLatency/time.Millisecond))
	s.u30In("jitter ms", &m.JitterMillis, 0, uint32(MaxLinkJitter/time.Millisecond))
	s.u30In("duplication ‰", &m.DupPermille, 0, 10*MaxLinkDupPercent)
	// Across fields: bursts have a length exactly when they start at all.
	switch {
	case m.BurstPermille == 0 && m.BurstLength != 0:
		s.refuse("burst length", wire.ErrNonCanonical, "%d datagrams in bursts that never start, want 0", m.BurstLength)
	case m.BurstPermille != 0 && m.BurstLength == 0:
		s.refuse("burst length", wire.ErrRange, "bursts of no datagram, want 1 or more")
	}
	return s
}

// Spectate: number u30 (1..258) ‖ why u8 (1..2) ‖ flags u8 (bit 0: chat off) ‖ refused u30 ‖
// refused why u8 (0..2).
func (m *Spectate) fields(s fieldStream) fieldStream {
	s.u30In("number", &m.Number, 1, MaxSpectatorNumber)
	s.u8In("why", &m.Why, SpectateAsked, SpectateSeatsFull)
	s.flags("flags", &m.ChatOff)
	s.u30("refused", &m.Refused)
	s.u8In("refused why", &m.RefusedWhy, 0, maxRefusedCause)
	// Across fields: a refusal has a reason, and only a refusal has one.
	switch {
	case m.Refused == 0 && m.RefusedWhy != 0:
		s.refuse("refused why", wire.ErrNonCanonical, "%d when no line was refused, want 0", m.RefusedWhy)
	case m.Refused != 0 && m.RefusedWhy == 0:
		s.refuse("refused why", wire.ErrRange, "none for %d lines refused", m.Refused)
	}
	return s
}

// SpectatorChat: spectator u30 (1..258) ‖ name (empty, or as a player's) ‖ line u30 ‖ text.
func (m *SpectatorChat) fields(s fieldStream) fieldStream {
	s.u30In("spectator", &m.Spectator, 1, MaxSpectatorNumber)
	s.text("name", &m.Name, 0, wire.MaxNameLen)
	s.u30("line", &m.Line)
	s.chatText("text", &m.Text)
	return s
}

// LinkLost: seat ‖ why u8 (1 quiet, 2 stalled, 3 ended) ‖ from u30 ‖ to u30 (from..to: the
// stalled commands' ids; from 0: any, to then 0 too).
func (m *LinkLost) fields(s fieldStream) fieldStream {
	s.seat("seat", &m.Seat)
	s.u8In("why", &m.Why, LinkQuiet, LinkEnded)
	s.u30("from", &m.From)
	if m.From == 0 {
		s.u30In("to", &m.To, 0, 0)
	} else {
		s.u30In("to", &m.To, m.From, int30.MaxUInt30)
	}
	return s
}

// The elements of the lists, declared as the messages are, each with its layout.
var (
	// seatElems: seat; a set, strictly ascending.
	seatElems = elems[uint8]{1, func(s fieldStream, field string, l []uint8) fieldStream {
		for i := range l {
			if s.seat(field, &l[i]); i > 0 {
				s.ascending(field, uint32(l[i]), uint32(l[i-1]))
			}
		}
		return s
	}}
	// hashElems: hash u64.
	hashElems = elems[uint64]{8, func(s fieldStream, field string, l []uint64) fieldStream {
		for i := range l {
			s.u64(field, &l[i])
		}
		return s
	}}
	// rangeElems: first id u30 ‖ last id u30, not below the first.
	rangeElems = elems[IDRange]{1 + 1, func(s fieldStream, field string, l []IDRange) fieldStream {
		for i := range l {
			s.idRange(field, i, &l[i].Start, &l[i].End)
		}
		return s
	}}
	// unitHashElems: unit id u30 ‖ its hash u64. unitHashByIDElems: the same, a set keyed by
	// unit id, strictly ascending: one order makes one encoding, and lets a receiver look a unit
	// up by binary search.
	unitHashElems     = elems[world.UnitHash]{1 + 8, unitHashes(false)}
	unitHashByIDElems = elems[world.UnitHash]{1 + 8, unitHashes(true)}
	// unitElems and attackElems: world's codec. A unit takes at least its id, owner, kind and
	// flags, then X, Y and HP, seven fields of a byte or more; an attack its id, owner, from,
	// target, X, Y, damage and speed, eight.
	unitElems   = worldElems(7, world.AppendUnit, world.ParseUnit)
	attackElems = worldElems(8, world.AppendAttack, world.ParseAttack)
	// peerElems: seat ‖ family u8 (4 or 6) ‖ address (4 or 16 bytes) ‖ port u16 ‖ key [32]; a
	// set keyed by seat.
	peerElems = elems[PeerAddr]{1 + 1 + 4 + 2 + len(LinkKey{}), func(s fieldStream, field string, l []PeerAddr) fieldStream {
		for i := range l {
			if s.seat("seat", &l[i].Seat); i > 0 {
				s.ascending("seat", uint32(l[i].Seat), uint32(l[i-1].Seat))
			}
			s.addrPort("address", &l[i].Addr)
			s.raw("key", l[i].Key[:])
		}
		return s
	}}
)

// unitHashes declares a list of unit hashes, the ids strictly ascending if byID.
func unitHashes(byID bool) func(s fieldStream, field string, l []world.UnitHash) fieldStream {
	return func(s fieldStream, field string, l []world.UnitHash) fieldStream {
		for i := range l {
			s.u30(field, &l[i].ID)
			if s.u64(field, &l[i].Hash); byID && i > 0 {
				s.ascending(field, l[i].ID, l[i-1].ID)
			}
		}
		return s
	}
}
