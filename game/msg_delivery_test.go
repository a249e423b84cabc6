package game

import (
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/wire"
)

// TestMsgDeliveryOnTheWire: every game message that crosses a link travels as its entry in
// msgTypes says: an unreliable one in an unreliable record, a guaranteed one in a guaranteed
// record or in fragments, a sync one with the record's sync bit. The game, in virtual time,
// sends every type: three players with direct links and a spectator chat, the teacher pushes
// a link setting, a unit drifts and is repaired, then three at once and the world stops for a
// re-sync, one player's link slows down (a longer lead time), a new round starts, a fourth
// player joins without units (a squad), and a player vanishes from its direct links.
func TestMsgDeliveryOnTheWire(t *testing.T) {
	g := newVGame(t, vspec{seed: 5, bots: 1, clients: 3, link: linksim.Settings{LossPercent: 10, Latency: 10 * time.Millisecond},
		server: func(c *ServerConfig) { c.RealtimeMax = 2 }})
	seen := map[MsgType]int{}
	g.tap = func(d linksim.Datagram) {
		p, ok := g.keys.open(d.From, d.To, d.Data)
		if !ok || len(p) == 0 || wire.PacketType(p[0]) != wire.TypeData {
			return
		}
		_, n, err := wire.ParseHeader(p)
		if err != nil {
			t.Fatal(err)
		}
		for rest := p[n:]; len(rest) > 0; {
			var r wire.Record
			k, err := wire.ParseRecord(rest, &r)
			if err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
			if len(r.Payload) == 0 || r.Kind == wire.KindFragment && r.FragIndex > 0 {
				continue // the type byte is the first byte of the first fragment
			}
			typ, travels := MsgType(r.Payload[0]), Guaranteed
			switch {
			case r.Kind == wire.KindUnreliable:
				travels = Unreliable
			case r.Sync:
				travels = Sync
			}
			if travels != typ.Delivery() && seen[typ] >= 0 {
				t.Errorf("%s → %s: a %v travels %v (%v record), msgTypes says %v", d.From, d.To, typ, travels, r.Kind, typ.Delivery())
				seen[typ] = -1 // once is enough
			}
			if seen[typ] >= 0 {
				seen[typ]++
			}
		}
	}
	spectator := g.joinWatcher(func(c *ClientConfig) { c.Spectate = true })
	c := g.clients[0]
	g.waitFor(10*time.Second, "the first client at frame 21", func() bool { return c.w != nil && c.w.Frame() >= 21 })
	for _, say := range []struct {
		client int
		text   string
	}{{0, "gg"}, {spectator, "nice"}} {
		if err := g.clients[say.client].Say(g.now, say.text); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.srv.PushLink(g.now, linksim.Settings{LossPercent: 5}); err != nil {
		t.Fatal(err)
	}
	c.InjectDesync(1)
	g.run(2500 * time.Millisecond)
	c.InjectDesync(3)
	g.waitFor(10*time.Second, "the stop-the-world's end", func() bool {
		return c.drift.pause == nil && len(c.drift.log.pauses) > 0 && !c.drift.log.pauses[len(c.drift.log.pauses)-1].Running
	})
	// A slower link to one player: the server sets a longer lead time.
	slow := linksim.Settings{Latency: 150 * time.Millisecond}
	if err := g.Network().SetLink(g.srvAddr.String(), g.caddrs[1].String(), slow, slow); err != nil {
		t.Fatal(err)
	}
	if _, err := g.srv.NewRound(g.now); err != nil {
		t.Fatal(err)
	}
	g.join(nil) // a seat without units, which the server reinforces
	g.run(10 * time.Second)
	g.vanish(2)
	g.run(5 * time.Second)

	for typ := range seen {
		if !typ.known() {
			t.Errorf("a game message of unknown type %v", typ)
		}
	}
	var missing []MsgType
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		if seen[typ] == 0 {
			missing = append(missing, typ)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the game sent no %v, so their delivery went unchecked (seen: %v)", missing, seen)
	}
}
