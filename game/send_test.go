package game

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/message"
	"github.com/ackattack/ackattack/world"
)

// TestOutboxWaitsThenRefuses: a message the connection cannot take yet (every sequence number
// may still be in flight) waits in the outbox, behind the ones before it; once maxOutbox wait,
// the next is refused with ErrOutboxFull, to the caller, and the queue stays bounded.
func TestOutboxWaitsThenRefuses(t *testing.T) {
	c := message.New(message.Config{}, func(*message.Message) {})
	now := time.Unix(1_000_000, 0)
	var o outbox
	sent := 0
	for ; o.waiting() == 0; sent++ {
		if err := o.send(c, now, []byte{byte(sent)}, Guaranteed, nil, nil); err != nil {
			t.Fatalf("message %d: %v", sent, err)
		}
		if sent > 1<<16 {
			t.Fatal("the connection never pushed back")
		}
	}
	t.Logf("the connection took %d messages before pushing back", sent-1)
	for o.waiting() < maxOutbox {
		if err := o.send(c, now, []byte{1}, Guaranteed, nil, nil); err != nil {
			t.Fatalf("with %d waiting: %v", o.waiting(), err)
		}
	}
	err := o.send(c, now, []byte{2}, Guaranteed, nil, nil)
	if !errors.Is(err, ErrOutboxFull) || o.waiting() != maxOutbox {
		t.Fatalf("the send past the bound: %v, %d waiting", err, o.waiting())
	}
	// Nothing was acknowledged: the connection still takes nothing, and nothing is lost.
	o.flush(c, now)
	if o.waiting() != maxOutbox {
		t.Errorf("after a flush without acks %d wait, want %d", o.waiting(), maxOutbox)
	}
}

// TestEventsForAFrameResendTwice: a command, a spawn, a kill, a reinforcement and a new round
// (events every host runs at their frame) go once and then twice on every resend, 10 ms apart
// (message.Conn.SendTimely) on the server's downlinks; a repair goes twice on every send
// (SendUrgent); a chat line once on every send; and a player's own command on its uplink once
// on every send too. The link loses everything, so every try is the timer's, 260 ms after the
// latest send.
func TestEventsForAFrameResendTwice(t *testing.T) {
	const ms = time.Millisecond
	once, timely, urgent := []time.Duration{0, 260 * ms}, []time.Duration{0, 260 * ms, 270 * ms}, []time.Duration{0, 10 * ms, 20 * ms, 280 * ms, 290 * ms, 300 * ms}
	cmd := &Command{Seat: 1, ID: 1, Frame: 10, Kind: world.CommandMove, Units: []uint32{1}}
	for _, tt := range []struct {
		m      Msg
		uplink bool // a player's own connection to the server: not timely
		want   []time.Duration
	}{
		{cmd, false, timely},
		{&SpawnEnemy{ID: 10001, Frame: 10}, false, timely},
		{&KillEnemy{ID: 10001, Frame: 10}, false, timely},
		{&Reinforce{Frame: 10, Seats: []uint8{1}}, false, timely},
		{&NewRound{Frame: 10, Round: 2}, false, timely},
		{&UnitUpdate{Frame: 10}, false, urgent},
		{&Chat{Seat: 1, Line: 1, Text: "gg"}, false, once},
		{cmd, true, once},
	} {
		name := tt.m.Type().String()
		if tt.uplink {
			name += " up"
		}
		t.Run(name, func(t *testing.T) {
			payload, err := AppendMsg(nil, tt.m)
			if err != nil {
				t.Fatal(err)
			}
			c := message.New(message.Config{}, func(*message.Message) {})
			now := time.Unix(1_000_000, 0)
			if _, err := sendNow(c, now, payload, Guaranteed, !tt.uplink, nil, nil); err != nil {
				t.Fatal(err)
			}
			var sends []time.Duration
			for at := now; !at.After(now.Add(400 * ms)); at = at.Add(ms) {
				for {
					before := c.Stats().GuaranteedSent + c.Stats().GuaranteedResent
					if _, ok := c.AppendPacket(nil, at, false); !ok {
						break
					}
					if c.Stats().GuaranteedSent+c.Stats().GuaranteedResent > before {
						sends = append(sends, at.Sub(now))
					}
				}
			}
			if !slices.Equal(sends, tt.want) {
				t.Errorf("it left at %v, want at %v", sends, tt.want)
			}
		})
	}
}

// TestOnlyTheServerSendsEventsTimely: the server's downlinks, a player's and a spectator's,
// send the events for a frame with each resend twice; a player's own uplink does not (its
// upload is what the modem bounds).
func TestOnlyTheServerSendsEventsTimely(t *testing.T) {
	g := newVGame(t, vspec{seed: 1, bots: 1, clients: 1})
	sp := g.joinWatcher(func(c *ClientConfig) { c.Spectate = true })
	g.waitFor(10*time.Second, "the player and the spectator following", func() bool {
		return clientRunning(g.clients[0]) && g.clients[sp].w != nil
	})
	links := 0
	for d := range g.srv.seats.following {
		links++
		if !d.out.timely {
			t.Errorf("the server's downlink to %s is not timely", d.who)
		}
	}
	if links < 2 {
		t.Errorf("%d downlinks, want the player's and the spectator's", links)
	}
	for _, c := range g.clients {
		if c.out.timely {
			t.Error("a client's uplink is timely")
		}
	}
}

// TestWhatGoesThreeTimes: a repair (UnitUpdate) and a drill-down's request (HashRequest) go
// three times whatever their size; a drill-down's answer (UnitHashes) only while it is small
// (urgentAnswerBytes), since the copies of a large one would take a modem's upload for
// seconds; anything else, and what is not a message, once per try.
func TestWhatGoesThreeTimes(t *testing.T) {
	hashes := func(n int) []world.UnitHash {
		hs := make([]world.UnitHash, n)
		for i := range hs {
			hs[i] = world.UnitHash{ID: uint32(i + 1), Hash: 0x0123456789abcdef}
		}
		return hs
	}
	for _, tt := range []struct {
		name string
		m    Msg
		want bool
	}{
		{"a repair", &UnitUpdate{Frame: 9}, true},
		{"a drill-down's request", &HashRequest{Frame: 9, Ranges: []IDRange{{Start: 1, End: 40}}}, true},
		{"a drill-down's answer of 40 units", &UnitHashes{Frame: 9, Hashes: hashes(40)}, true},
		{"a drill-down's answer of 200 units", &UnitHashes{Frame: 9, Hashes: hashes(200)}, false},
		{"a hash report", &HashReport{Frame: 9}, false},
		{"a command", &Command{Frame: 9, Kind: world.CommandMove, Units: []uint32{1}}, false},
	} {
		b, err := AppendMsg(nil, tt.m)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := urgent(b); got != tt.want {
			t.Errorf("%s (%d bytes): three times %v, want %v", tt.name, len(b), got, tt.want)
		}
	}
	for _, b := range [][]byte{nil, {0xff}} {
		if urgent(b) {
			t.Errorf("%x: three times, want not a message", b)
		}
	}
}
