package lesson

import (
	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
)

// HistorySize is how many guaranteed messages of each direction a lesson's connections
// remember: the meter reads the histories ten times a second, and a burst of a lesson's
// game (a re-sync of every unit, a chat burst under loss) stays well inside it.
const HistorySize = 256

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
