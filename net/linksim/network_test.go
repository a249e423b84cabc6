package linksim

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// traceEntry is one delivery out of a Network, with the time Step returned.
type traceEntry struct {
	at       time.Duration // since base
	from, to string
	data     string
}

// stepAll runs the network until nothing is in flight or the clock passes limit, calling
// onDeliver for every datagram, and returns the trace.
func stepAll(nw *Network, limit time.Time, onDeliver func(d Datagram)) []traceEntry {
	var (
		trace []traceEntry
		got   []Datagram
		now   time.Time
	)
	for {
		if _, ok := nw.NextEvent(); !ok || nw.Now().After(limit) {
			return trace
		}
		now, got = nw.Step(limit, got[:0])
		for _, d := range got {
			trace = append(trace, traceEntry{now.Sub(base), d.From, d.To, string(d.Data)})
			if onDeliver != nil {
				onDeliver(d)
			}
		}
	}
}

func TestNetworkStartsAtBase(t *testing.T) {
	if got := NewNetwork(1).Now(); !got.Equal(base) {
		t.Errorf("Now() = %v, want %v", got, base)
	}
}

func TestNetworkPingPong(t *testing.T) {
	nw := NewNetwork(1)
	nw.Link("client", "server", Settings{Latency: 30 * time.Millisecond}, Settings{Latency: 20 * time.Millisecond})
	client, server := nw.AddNode("client"), nw.AddNode("server")
	if client.Name() != "client" || server.Name() != "server" {
		t.Fatalf("names %q, %q", client.Name(), server.Name())
	}
	if err := client.Send("server", []byte("ping 0")); err != nil {
		t.Fatal(err)
	}
	pings := 0
	trace := stepAll(nw, base.Add(time.Second), func(d Datagram) {
		switch d.To {
		case "server":
			if err := server.Send("client", []byte("pong"+string(d.Data[4:]))); err != nil {
				t.Fatal(err)
			}
		case "client":
			if pings++; pings < 3 {
				if err := client.Send("server", fmt.Appendf(nil, "ping %d", pings)); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	want := []traceEntry{
		{30 * time.Millisecond, "client", "server", "ping 0"},
		{50 * time.Millisecond, "server", "client", "pong 0"},
		{80 * time.Millisecond, "client", "server", "ping 1"},
		{100 * time.Millisecond, "server", "client", "pong 1"},
		{130 * time.Millisecond, "client", "server", "ping 2"},
		{150 * time.Millisecond, "server", "client", "pong 2"},
	}
	if !slices.Equal(trace, want) {
		t.Errorf("trace\n%v\nwant\n%v", trace, want)
	}
}

func TestNetworkErrors(t *testing.T) {
	nw := NewNetwork(1)
	nw.Link("a", "b", Settings{}, Settings{})
	c := nw.AddNode("c") // exists but is linked to nothing
	a := nw.AddNode("a")
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"send to an unknown node", a.Send("nobody", nil), ErrUnknownNode},
		{"send to an unlinked node", a.Send("c", nil), ErrNoLink},
		{"send from an unlinked node", c.Send("a", nil), ErrNoLink},
		{"send to itself", a.Send("a", nil), ErrNoLink},
		{"set an unknown link", nw.SetLink("a", "nobody", Settings{}, Settings{}), ErrUnknownNode},
		{"set an unlinked pair", nw.SetLink("a", "c", Settings{}, Settings{}), ErrNoLink},
		{"set invalid a→b", nw.SetLink("a", "b", Settings{Jitter: -1}, Settings{}), ErrInvalidSettings},
		{"set invalid b→a", nw.SetLink("a", "b", Settings{}, Settings{DupPercent: 101}), ErrInvalidSettings},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	if s := nw.Conditioner("a", "b").Settings(); s != (Settings{}) {
		t.Errorf("a rejected SetLink changed a→b to %+v", s)
	}
	if nw.Conditioner("a", "c") != nil {
		t.Error("Conditioner returned something for an unlinked pair")
	}
}

func TestNetworkLinkPanics(t *testing.T) {
	tests := []struct {
		name string
		link func(nw *Network)
	}{
		{"self link", func(nw *Network) { nw.Link("a", "a", Settings{}, Settings{}) }},
		{"invalid a→b", func(nw *Network) { nw.Link("a", "b", Settings{LossPercent: -5}, Settings{}) }},
		{"invalid b→a", func(nw *Network) { nw.Link("a", "b", Settings{}, Settings{ReorderDelay: -1}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.link(NewNetwork(1))
		})
	}
}

func TestNetworkSetLinkAppliesToLaterSends(t *testing.T) {
	nw := NewNetwork(1)
	nw.Link("a", "b", Settings{Latency: 100 * time.Millisecond}, Settings{})
	a := nw.AddNode("a")
	if err := a.Send("b", []byte("old")); err != nil {
		t.Fatal(err)
	}
	nw.Advance(base.Add(10 * time.Millisecond))
	if err := nw.SetLink("a", "b", Settings{Latency: 5 * time.Millisecond}, Settings{}); err != nil {
		t.Fatal(err)
	}
	if err := a.Send("b", []byte("new")); err != nil {
		t.Fatal(err)
	}
	trace := stepAll(nw, base.Add(time.Second), nil)
	want := []traceEntry{
		{15 * time.Millisecond, "a", "b", "new"},
		{100 * time.Millisecond, "a", "b", "old"},
	}
	if !slices.Equal(trace, want) {
		t.Errorf("trace %v, want %v", trace, want)
	}
	// Linking again behaves like SetLink and keeps the conditioner.
	c := nw.Conditioner("a", "b")
	nw.Link("a", "b", Settings{Latency: time.Second}, Settings{})
	if nw.Conditioner("a", "b") != c || c.Settings().Latency != time.Second {
		t.Error("re-linking replaced the conditioner or ignored the settings")
	}
}

func TestNetworkStepClock(t *testing.T) {
	ms := func(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }
	nw := NewNetwork(1)
	nw.Link("a", "b", Settings{Latency: 50 * time.Millisecond}, Settings{})
	a := nw.AddNode("a")

	// Nothing in flight: Step goes to until.
	if now, got := nw.Step(ms(10), nil); !now.Equal(ms(10)) || len(got) != 0 {
		t.Fatalf("empty Step = %v, %v; want %v and nothing", now, got, ms(10))
	}
	// Never backwards.
	if now, _ := nw.Step(ms(5), nil); !now.Equal(ms(10)) {
		t.Fatalf("Step to the past moved the clock to %v", now)
	}
	nw.Advance(ms(1))
	if !nw.Now().Equal(ms(10)) {
		t.Fatalf("Advance to the past moved the clock to %v", nw.Now())
	}

	if err := a.Send("b", []byte("x")); err != nil { // due at 60ms
		t.Fatal(err)
	}
	if next, ok := nw.NextEvent(); !ok || !next.Equal(ms(60)) {
		t.Fatalf("NextEvent = %v, %v; want %v", next, ok, ms(60))
	}
	// until before the delivery: stop at until, deliver nothing.
	if now, got := nw.Step(ms(40), nil); !now.Equal(ms(40)) || len(got) != 0 {
		t.Fatalf("Step(40ms) = %v, %v", now, got)
	}
	// until after the delivery: stop at the delivery.
	if now, got := nw.Step(ms(1000), nil); !now.Equal(ms(60)) || len(got) != 1 {
		t.Fatalf("Step(1s) = %v, %v; want %v and one datagram", now, got, ms(60))
	}
	if _, ok := nw.NextEvent(); ok {
		t.Fatal("NextEvent reports something after the last delivery")
	}

	// Advance past a delivery: the next Step hands it out at the current time.
	if err := a.Send("b", []byte("y")); err != nil { // due at 110ms
		t.Fatal(err)
	}
	nw.Advance(ms(200))
	if now, got := nw.Step(ms(300), nil); !now.Equal(ms(200)) || len(got) != 1 || string(got[0].Data) != "y" {
		t.Fatalf("Step after Advance = %v, %v; want the overdue datagram at %v", now, got, ms(200))
	}
}

func TestNetworkTiesGoBySendOrderAcrossLinks(t *testing.T) {
	nw := NewNetwork(1)
	same := Settings{Latency: 10 * time.Millisecond}
	nw.Link("a", "hub", same, same)
	nw.Link("b", "hub", same, same)
	nw.Link("c", "hub", same, same)
	for _, from := range []string{"c", "a", "b", "a"} {
		if err := nw.AddNode(from).Send("hub", []byte(from)); err != nil {
			t.Fatal(err)
		}
	}
	now, got := nw.Step(base.Add(time.Second), nil)
	var order []string
	for _, d := range got {
		order = append(order, string(d.Data))
	}
	if want := []string{"c", "a", "b", "a"}; !slices.Equal(order, want) || !now.Equal(base.Add(10*time.Millisecond)) {
		t.Errorf("at %v got %v, want %v at 10ms", now.Sub(base), order, want)
	}
}

// chatter runs a two-way exchange over impaired links: each side sends every 5ms and echoes
// what it receives, with a settings change halfway through.
func chatter(t *testing.T, seed uint64) []traceEntry {
	nw := NewNetwork(seed)
	nw.Link("client", "server", impaired, impaired)
	client, server := nw.AddNode("client"), nw.AddNode("server")
	var (
		trace []traceEntry
		got   []Datagram
		now   time.Time
	)
	for i := range 2000 {
		tick := base.Add(time.Duration(i) * 5 * time.Millisecond)
		for {
			now, got = nw.Step(tick, got[:0])
			for _, d := range got {
				trace = append(trace, traceEntry{now.Sub(base), d.From, d.To, string(d.Data)})
				if d.Data[0] != 'e' {
					if err := nw.AddNode(d.To).Send(d.From, append([]byte("e"), d.Data...)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !now.Before(tick) {
				break
			}
		}
		if i == 1000 {
			worse := impaired
			worse.BurstLossPercent = 5
			if err := nw.SetLink("client", "server", worse, impaired); err != nil {
				t.Fatal(err)
			}
		}
		if err := client.Send("server", fmt.Appendf(nil, "c%d", i)); err != nil {
			t.Fatal(err)
		}
		if err := server.Send("client", fmt.Appendf(nil, "s%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	return append(trace, stepAll(nw, base.Add(time.Hour), nil)...)
}

func TestNetworkSameSeedSameTrace(t *testing.T) {
	a, b := chatter(t, 7), chatter(t, 7)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different traces")
	}
	if slices.Equal(a, chatter(t, 8)) {
		t.Error("different seeds gave the same trace")
	}
	t.Logf("%d deliveries", len(a))
}

func TestNetworkDirectionsDrawIndependently(t *testing.T) {
	// Same settings both ways and the same sends: the two directions must still lose and
	// delay different datagrams, because each has its own seed.
	nw := NewNetwork(3)
	s := Settings{LossPercent: 20, Latency: 20 * time.Millisecond, Jitter: 10 * time.Millisecond}
	nw.Link("a", "b", s, s)
	a, b := nw.AddNode("a"), nw.AddNode("b")
	for i := range 500 {
		nw.Advance(base.Add(time.Duration(i) * time.Millisecond))
		msg := fmt.Appendf(nil, "%d", i)
		if err := a.Send("b", msg); err != nil {
			t.Fatal(err)
		}
		if err := b.Send("a", msg); err != nil {
			t.Fatal(err)
		}
	}
	var toA, toB []traceEntry
	for _, e := range stepAll(nw, base.Add(time.Hour), nil) {
		if e.to == "a" {
			toA = append(toA, traceEntry{at: e.at, data: e.data})
		} else {
			toB = append(toB, traceEntry{at: e.at, data: e.data})
		}
	}
	if len(toA) == 0 || len(toB) == 0 || slices.Equal(toA, toB) {
		t.Errorf("both directions delivered the same %d datagrams at the same times", len(toA))
	}
}
