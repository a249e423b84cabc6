package lesson

import (
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
)

// HistorySize is how many guaranteed messages of each direction a lesson's connections
// remember. The meter reads the histories ten times a second, and a lesson's game sends a few
// dozen guaranteed messages a second each way (its bursts, a chat burst or a re-sync of every
// unit, are a handful of messages): 128 leaves seconds of margin. A snapshot of both rings
// costs about 0.06 ms and 50 kB (BENCHMARKS.md, the lessons).
const HistorySize = 128

// ServerConfig is cfg with the script's game: the map, the seed, the bots, the enemies'
// pace, the re-sync limit and the late mode. The server waits for the player before it
// starts, and keeps the debug views the meter reads. The player's link is not the server's:
// it goes on the player's socket (Setup.Link).
func (s *Script) ServerConfig(cfg game.ServerConfig) game.ServerConfig {
	su := s.Setup
	cfg.Map, cfg.Seed, cfg.Bots = su.Map, su.Seed, su.Bots
	cfg.EnemyEvery, cfg.MaxEnemies, cfg.RealtimeMax, cfg.Late = su.EnemyEvery, su.MaxEnemies, su.RealtimeMax, su.Late
	cfg.MinPlayers = 1
	debugViews(&cfg.Transport.Config, su.MTU)
	return cfg
}

// ClientConfig is cfg, the player's host, with the script's late mode, packet size and, with
// autoplay, a bot at the controls.
func (s *Script) ClientConfig(cfg game.ClientConfig) game.ClientConfig {
	cfg.Late = s.Setup.Late
	cfg.Bot = cfg.Bot || s.Setup.Autoplay
	debugViews(&cfg.Transport.Config, s.Setup.MTU)
	return cfg
}

func debugViews(c *transport.Config, mtu int) {
	c.DebugViews = true
	c.Message.History = HistorySize
	c.Message.MTU = mtu
}
