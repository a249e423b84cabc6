package game

import (
	"bytes"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/net/wire"
)

// Names on a server, in virtual time (vgame_test.go): a name another seat holds, or one that
// looks like it, is refused with the reason; a bot's name, a reserved name and their
// look-alikes are refused; a player who comes back
// to its seat keeps its name, which nobody else could take while the seat waited.

// refusedFor runs until client i's connection ends and checks that the server kicked it with
// a reason that says want. It returns that reason.
func refusedFor(t *testing.T, g *vgame, i int, want string) string {
	t.Helper()
	c := g.clients[i]
	g.waitFor(5*time.Second, "client "+c.cfg.Name+" to be refused", func() bool { return c.Ended() != nil })
	st := c.Transport().Stats()
	if st.Reason != wire.DisconnectKicked || !strings.Contains(st.Text, want) {
		t.Errorf("%+q: connection ended with %v %q, want kicked with a text that says %q", c.cfg.Name, st.Reason, st.Text, want)
	}
	if err := c.Ended(); !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), want) {
		t.Errorf("%+q: Ended says %v, want the reason %q (the client shows it and exits on it)", c.cfg.Name, err, want)
	}
	if c.role.kind == rolePlayer {
		t.Errorf("%+q was refused but was told a seat (%d)", c.cfg.Name, c.role.seat)
	}
	if snap := c.Snapshot(); snap.State != transport.Disconnected {
		t.Errorf("%+q: the snapshot shows %v, want disconnected", c.cfg.Name, snap.State)
	}
	t.Logf("%+q refused: %q", c.cfg.Name, c.Ended().Error())
	return st.Text
}

// seatNames are the names the server's seats hold, in seat order.
func seatNames(s *Server) []string {
	var out []string
	for _, st := range s.seats.players {
		if st != nil {
			out = append(out, st.name)
		}
	}
	return out
}

func TestNamesAreUniqueAndBotsNamesReserved(t *testing.T) {
	t.Parallel()
	human := func(c *ClientConfig) { c.Bot, c.NoDirect = false, true }
	g := newVGame(t, vspec{seed: 21, bots: 1, clients: 2, client: func(i int, c *ClientConfig) {
		human(c)
		if i < 2 {
			c.Name = []string{"ann", "bob"}[i]
		}
	}})
	ann, bob := g.clients[0], g.clients[1]
	g.waitFor(10*time.Second, "ann and bob to play", func() bool { return clientRunning(ann) && clientRunning(bob) })
	seated := seatNames(g.srv)

	// Another player (another player id) asks for names taken, or reserved. Its log, at the
	// client binary's default level (warn), says why it was refused.
	logs := map[string]*bytes.Buffer{}
	intruder := func(name string) func(c *ClientConfig) {
		return func(c *ClientConfig) {
			human(c)
			c.Name, c.PlayerID = name, uuid.NewSHA1(uuid.NameSpaceOID, []byte("intruder "+name))
			logs[name] = new(bytes.Buffer)
			c.Logger = slog.New(slog.NewTextHandler(logs[name], &slog.HandlerOptions{Level: slog.LevelWarn}))
		}
	}
	for _, c := range []struct{ name, says string }{
		{"ann", `name "ann" is taken (seat `},
		{"ANN", `looks like "ann"`},
		{"\u0430nn", `("\u0430nn") looks like "ann"`}, // a Cyrillic а
		{"ｂｏｂ", `looks like "bob"`},
		{"bot1", "reserved"},
		{"Bot7", "reserved"},
		{"\u0430\u043F\u043F", `("\u0430\u043f\u043f") looks like "ann", who is seated (seat `}, // Cyrillic а and п
		{"B0B", `looks like "bob", who is seated (seat `},
		{"b0t1", `looks like "bot1"`},
		{"server", "reserved for the server and the teacher"},
		{"Admin", `looks like "admin"`},
		{"t\u0435acher", `("t\u0435acher") looks like "teacher": reserved`}, // a Cyrillic е
		{"ann\u202Egnp", "U+202E"},
		{"an\u200Bn", "U+200B"},
		{"\uFEFFann", "U+FEFF"},
	} {
		i := g.join(intruder(c.name))
		text := refusedFor(t, g, i, c.says)
		if log := logs[c.name].String(); !strings.Contains(log, "kicked") || !strings.Contains(log, strconv.Quote(text)) {
			t.Errorf("%+q: the client's warnings do not say it was refused (%q):\n%s", c.name, text, log)
		}
	}
	if got := g.srv.stats.JoinsRefused; got != 15 {
		t.Errorf("the server counts %d refused joins, want 15", got)
	}
	if got := seatNames(g.srv); strings.Join(got, ",") != strings.Join(seated, ",") {
		t.Errorf("the seats hold %q after the refusals, held %q before", got, seated)
	}
	if ann.Ended() != nil || bob.Ended() != nil {
		t.Fatalf("a refusal disturbed the players: ann %v, bob %v", ann.Ended(), bob.Ended())
	}

	// Ann leaves; her seat waits for her, and keeps her name from others meanwhile.
	g.leave(0)
	g.waitFor(3*time.Second, "the server to see ann leave", func() bool { return g.srv.stats.Leaves == 1 })
	refusedFor(t, g, g.join(intruder("Ann")), "held for its player who left")

	// Ann comes back (her player id and her secret): she gets her seat and her name, and bob
	// sees her again.
	back := g.clients[g.join(func(c *ClientConfig) { human(c); c.Name, c.PlayerID, c.Secret = "ann", ann.cfg.PlayerID, ann.secret })]
	g.waitFor(10*time.Second, "ann to play again", func() bool { return clientRunning(back) })
	if back.role.seat != ann.role.seat {
		t.Errorf("ann came back to seat %d, had seat %d", back.role.seat, ann.role.seat)
	}
	if got := g.srv.seats.players[ann.role.seat].name; got != "ann" {
		t.Errorf("ann's seat is named %q after she came back", got)
	}
	g.waitFor(3*time.Second, "bob to see ann connected again", func() bool {
		p := bob.players[ann.role.seat]
		return p.Name == "ann" && p.Connected
	})

	// Ann's client connects again while the first connection is alive (her id and her secret:
	// the new connection replaces the old one): she keeps her seat and her name, and nobody is
	// refused.
	again := g.clients[g.join(func(c *ClientConfig) { human(c); c.Name, c.PlayerID, c.Secret = "ann", ann.cfg.PlayerID, back.secret })]
	g.waitFor(10*time.Second, "ann's new connection to play", func() bool { return clientRunning(again) })
	if again.role.seat != ann.role.seat || g.srv.seats.players[ann.role.seat].name != "ann" {
		t.Errorf("ann's second connection sits in seat %d named %q, want seat %d named ann", again.role.seat, g.srv.seats.players[ann.role.seat].name, ann.role.seat)
	}
	if got := g.srv.stats.JoinsRefused; got != 16 {
		t.Errorf("the server counts %d refused joins, want 16 (ann's returns are not refusals)", got)
	}
}

// Once a held seat is freed, its name is free too.
func TestNameOfFreedSeatIsFree(t *testing.T) {
	t.Parallel()
	g := newVGame(t, vspec{seed: 22, bots: 1, clients: 1,
		server: func(c *ServerConfig) { c.Places.SeatHold = 2 * time.Second },
		client: func(_ int, c *ClientConfig) { c.Name, c.Bot, c.NoDirect = "ann", false, true }})
	g.waitFor(10*time.Second, "ann to play", func() bool { return clientRunning(g.clients[0]) })
	g.vanish(0)
	g.waitFor(30*time.Second, "ann's seat to be freed", func() bool { return g.srv.stats.SeatsFreed == 1 })
	c := g.clients[g.join(func(c *ClientConfig) {
		c.Name, c.Bot, c.NoDirect = "ann", false, true
		c.PlayerID = uuid.NewSHA1(uuid.NameSpaceOID, []byte("another ann"))
	})]
	g.waitFor(10*time.Second, "the new ann to play", func() bool { return clientRunning(c) })
	if g.srv.stats.JoinsRefused != 0 {
		t.Errorf("%d joins refused", g.srv.stats.JoinsRefused)
	}
}
