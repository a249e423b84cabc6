package game

import (
	"crypto/rand"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
)

// Defaults of the game's timing and sync.
const (
	DefaultFrame       = 100 * time.Millisecond // 10 frames a second
	DefaultGroupSize   = 16                     // the fewest units one range of a drill-down covers
	DefaultRealtimeMax = 24                     // more mismatched units than this: stop the world
	DefaultStartDelay  = 2 * time.Second        // the lobby waits this long after the first player
	DefaultEnemyEvery  = 3 * time.Second
	DefaultMaxEnemies  = 40
	DefaultPingReport  = 4 * time.Second // clients report their latency this often
	// MaxSeatHold is the longest a seat waits for a player who vanished; DefaultSeatHold.
	MaxSeatHold         = 30 * time.Second
	DefaultSeatHold     = MaxSeatHold
	snapshotEvery       = 100 * time.Millisecond // a host publishes at most this often
	hashReportEvery     = 2                      // frames between hash reports (five a second)
	frameSyncEvery      = 10                     // frames between FrameSync messages
	resyncBatchUnits    = 200                    // units per ResyncBatch
	maxCatchUpPerTick   = 5                      // frames a client may step at once to catch up
	pauseMarginFrames   = 5                      // a pause is scheduled this far beyond twice the lead
	minLeadFrames       = 1
	maxLeadFrames       = 50
	maxChatQueue        = 64
	realtimeRecheckSpan = 30 // frames after a real-time re-sync during which a repeat mismatch means it failed
)

// ServerConfig configures a game server. The zero value of each field means its default.
type ServerConfig struct {
	Listen string // default 127.0.0.1:7777
	Map    string // default "skirmish"
	Seed   uint64 // default 1
	Bots   int    // server-side bot players
	Frame  time.Duration
	// StartDelay: the game starts this long after the first player (or bot) is seated.
	StartDelay time.Duration
	// MinPlayers: connected human players needed before the start countdown (0: none; a
	// server with bots only starts at once).
	MinPlayers int
	// GroupSize: the fewest units one range of a drill-down covers (drillGroupSize); in a
	// larger world, a tenth of the units. Default DefaultGroupSize.
	GroupSize int
	// RealtimeMax: a mismatch of more units than this goes straight to a stop-the-world re-sync.
	RealtimeMax int
	EnemyEvery  time.Duration
	MaxEnemies  int
	// ReinforceBelow: a seat whose player is there (a bot, a connected client) and that has
	// fewer units than this gets a fresh starting squad (reinforce.go). Default
	// DefaultReinforceBelow; negative: never.
	ReinforceBelow int
	// ReinforceDelay is how far ahead a squad is announced: how long a player without units
	// waits. Default DefaultReinforceDelay; never less than the lead time and a frame.
	ReinforceDelay time.Duration
	// Late is what the server does with a command that arrives for a frame it already ran:
	// re-run exactly (rollback, the default) or apply it at once and fast-forward its units (the
	// classic lockstep answer, resim.go).
	Late LateMode
	// Orders is when the players' orders run and which way they travel: the lead time, and
	// the direct links.
	Orders Orders
	// SpectatorChatOff starts the game with the spectators' chat turned off (spectate.go); the
	// teacher can turn it on and off while it runs (Server.SetSpectatorChat).
	SpectatorChatOff bool
	// Places is how the server shares its seats and spectators' places between addresses
	// (places.go), and how long a seat waits for its player.
	Places    Places
	Transport transport.ServerConfig
	Logger    *slog.Logger
	Trace     io.Writer // JSON lines of executed guaranteed messages (see Trace)
}

// Orders is when the players' orders run and which way they travel (ServerConfig.Orders).
type Orders struct {
	// Lead is who sets the command lead time: LeadAuto (the default), the server from its
	// players' links (lead.go); or a lead the teacher fixed (FixedLead, the --lead flag),
	// rounded to whole frames, at most MaxFixedLead. The teacher can change it while the game
	// runs (Server.SetLead, leadset.go).
	Lead LeadSetting
	// Direct is whether the players' commands also go over direct links between them (p2p.go):
	// DirectAuto (the default) while the detour through the server would cost the lead (the
	// server decides from its players' round trips, p2p_server.go), DirectOn always, DirectOff
	// never (the server relays every command). The --direct flag.
	Direct DirectMode
}

func (c ServerConfig) withDefaults() ServerConfig {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:7777"
	}
	if c.Map == "" {
		c.Map = "skirmish"
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Frame <= 0 {
		c.Frame = DefaultFrame
	}
	if c.StartDelay <= 0 {
		c.StartDelay = DefaultStartDelay
	}
	if c.GroupSize <= 0 {
		c.GroupSize = DefaultGroupSize
	}
	if c.RealtimeMax <= 0 {
		c.RealtimeMax = DefaultRealtimeMax
	}
	if c.EnemyEvery <= 0 {
		c.EnemyEvery = DefaultEnemyEvery
	}
	if c.ReinforceBelow == 0 {
		c.ReinforceBelow = DefaultReinforceBelow
	}
	if c.ReinforceDelay <= 0 {
		c.ReinforceDelay = DefaultReinforceDelay
	}
	if c.MaxEnemies <= 0 {
		c.MaxEnemies = DefaultMaxEnemies
	}
	c.Places = c.Places.withDefaults()
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Transport.Rand == nil {
		c.Transport.Rand = rand.Reader // the secrets of the players and of the links
	}
	return c
}

// ClientConfig configures a game client.
type ClientConfig struct {
	Connect string // the server's address
	// Listen is the local address of the client's one socket, for the server connection and
	// the direct links from other players (game/hostloop): bound as given, so a client on a
	// machine with several addresses takes links on the one it names. Default: the address of
	// the interface that reaches the server, any free port (transport.LocalFor).
	Listen string
	Name   string
	// PlayerID names the player (default: a new random id), and Secret proves it: the
	// secret a server gave this player on its first join (zero: none yet). With both, a
	// player who restarts gets its seat back (identity.go).
	PlayerID uuid.UUID
	Secret   Secret
	// OnSecret, if set, is called on the owner loop when the server gives this player its
	// secret, to keep it with the player id (cmd/client's --identity file).
	OnSecret func(player uuid.UUID, secret Secret)
	// Bot makes the client play by itself (a headless bot client).
	Bot  bool
	Seed uint64 // seeds the bot
	// InjectDesync, if set, corrupts one of this player's units every InjectDesync: the
	// class watches the server detect and repair it.
	InjectDesync time.Duration
	// OnClassLink, if set, is called on the owner loop with the link settings the server gives
	// the whole class (classlink.go), to put them on the client's link conditioner, both ways;
	// game/hostloop puts them on its socket's. Its error is shown and logged.
	OnClassLink func(linksim.Settings) error
	// NoDirect turns off the direct links between clients: commands then travel only through
	// the server.
	NoDirect bool
	// Spectate asks the server to watch without a seat (spectate.go): the client's handshake
	// says it is an observer. A spectator takes no direct links, gives no orders (a Bot only
	// chats) and corrupts nothing. A client that does not ask may watch all the same, when
	// every seat is taken.
	Spectate bool
	// Late is what the client does with an event that arrives for a frame it already ran:
	// re-run exactly (rollback, the default) or apply it at once and fast-forward its units (the
	// classic lockstep answer, resim.go).
	Late      LateMode
	Transport transport.ClientConfig
	Logger    *slog.Logger
	Trace     io.Writer
}
