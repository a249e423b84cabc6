package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/google/uuid"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/linksim"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// wideTable is the terminal width from which the sliders sit beside the player table; below it
// they go above the event log, and the table has the whole width for its columns.
const wideTable = 120

// StateWaitingPlayers is the server's state before the game starts.
const StateWaitingPlayers = "WAITING FOR PLAYERS"

// ServerScreen is the teacher's screen: the table of players and spectators, the map as a
// spectator sees it, the event log, the sliders of the server's own link, the status line, and
// the debug panel of the player (or spectator) selected in the table.
//
// All its methods run on the tview application's goroutine.
type ServerScreen struct {
	chrome
	host ServerHost
	addr string
	// join are the addresses players connect to (SetJoin): addr, or the machine's LAN
	// addresses when addr is every interface's.
	join []string

	main    *tview.Flex
	middle  *tview.Flex // the map (or waiting text) and the event log, or the debug panel
	players *tview.Table
	waiting *tview.TextView
	mapView *MapView
	mapName string
	events  *eventLogView
	link    *LinkPanel
	status  *StatusLine
	notice  *tview.TextView

	// playersBox is the table's border and title, around the table and, when the spectators'
	// rows do not fit below the seats', the line that sums them up (spectatorsLine).
	playersBox     *tview.Flex
	spectatorsLine *tview.TextView

	snap  *game.ServerSnapshot
	peers []transport.PeerStats
	// rowSeats is who each table row (after the header) shows: a seat, or a spectator as
	// world.MaxPlayers + its number − 1 (spectatorRow); seat is the row the debug panel
	// follows in the same numbering (-1: none yet).
	rowSeats []int
	seat     int
	linkCtl  *linkControl // the server's own link
	// classCtl drives the class's link, which the server gives every client (c switches the
	// sliders between the two); classAsked is what it last asked for, shown until the
	// server's snapshot has it.
	classCtl   *linkControl
	classMode  bool
	classAsked *linksim.Settings
	noticeAt   time.Time
	noticeMsg  string
	// rounding is a new-round intent whose outcome the next frame reports.
	rounding *OrderTicket
	// leadAsked is the lead setting t last asked for, shown until the server's snapshot has it
	// (as classAsked), and leading the intent whose refusal, if any, the next frame reports.
	leadAsked *game.LeadSetting
	leading   *OrderTicket
	waves     waveControl // the teacher's waves, w (server_graph.go)
	// kickAsked is the kick K asks the teacher to confirm, kicking the one confirmed, whose
	// outcome the next frame reports (server_kick.go).
	kickAsked, kicking *serverKick
}

// NewServerScreen builds the screen for host, serving on addr.
func NewServerScreen(host ServerHost, addr, exportDir string, setFocus func(p tview.Primitive)) *ServerScreen {
	s := &ServerScreen{host: host, addr: addr, join: []string{addr}, seat: -1}
	// The selected row in reverse video: tview's default (white background, default text)
	// is unreadable on a dark terminal now that text uses the terminal's own colours.
	s.players = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0).
		SetSelectedStyle(tcell.StyleDefault.Reverse(true))
	s.playersBox = tview.NewFlex().SetDirection(tview.FlexRow)
	s.playersBox.SetBorder(true).SetTitle(playersTitle(game.RejectedReport{}, 0))
	s.spectatorsLine = tview.NewTextView().SetDynamicColors(false).SetWrap(false)
	s.players.SetSelectionChangedFunc(func(row, _ int) {
		if row >= 1 && row-1 < len(s.rowSeats) {
			s.seat = s.rowSeats[row-1]
			s.refreshDebug()
		}
	})
	s.waiting = tview.NewTextView().SetTextAlign(tview.AlignCenter)
	s.waiting.SetBorder(true).SetTitle(" map ")
	s.events = newEventLogView()
	s.linkCtl = newLinkControl(" server link (c: class) ", host.Link, host.SetLink, func(msg string) { s.tell(msg) })
	s.classCtl = newLinkControl(" class link: every client (c: server) ", s.classLink, s.pushLink, func(msg string) { s.tell(msg) })
	s.link = s.linkCtl.panel
	s.status = NewStatusLine()
	s.notice = tview.NewTextView().SetDynamicColors(true).SetWrap(false)

	top := tview.NewFlex()
	s.middle = tview.NewFlex()
	s.main = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(top, 8, 0, false).
		AddItem(s.middle, 0, 1, false).
		AddItem(s.notice, 1, 0, false).
		AddItem(s.status, 1, 0, false)
	s.chrome = newChrome(s.main, " AckAttack server ", ServerKeys, setFocus)
	s.debug.SetBorder(true).SetTitle(" debug ")
	s.exports, s.who, s.tell, s.relayout = exportDir, "server", s.notify, s.layout
	s.preset = func(i int) { s.activeLink().preset(i) }
	s.widgets = func() []tview.Primitive {
		ws := []tview.Primitive{s.help, s.players, s.link, s.debug, s.events, s.waiting}
		if s.mapView != nil {
			ws = append(ws, s.mapView)
		}
		return ws
	}
	s.focus = []tview.Primitive{s.players}
	s.tellJoin()
	return s
}

// tellJoin says where players join: where the server listens, or, bound to every interface,
// the addresses it is reached at (that "serving on [::]:7777" would not help anybody).
func (s *ServerScreen) tellJoin() {
	if len(s.join) == 1 && s.join[0] == s.addr {
		s.tell(fmt.Sprintf("serving on %s: %s", s.addr, JoinHint(s.join)))
		return
	}
	s.tell(JoinHint(s.join))
}

// SetJoin sets the addresses players connect to, the first of which the screen shows, and says
// them all: a server bound to every interface (0.0.0.0) is reached at its LAN addresses.
func (s *ServerScreen) SetJoin(addrs []string) {
	if len(addrs) == 0 {
		return
	}
	s.join = addrs
	s.tellJoin()
}

// JoinHint says how players join a server at addrs: "players join with --connect
// 192.168.1.20:7777 (or 10.0.0.5:7777)".
func JoinHint(addrs []string) string {
	switch len(addrs) {
	case 0:
		return ""
	case 1:
		return "players join with --connect " + addrs[0]
	}
	return "players join with --connect " + addrs[0] + " (or " + strings.Join(addrs[1:], ", ") + ")"
}

// Root is the screen's root primitive.
func (s *ServerScreen) Root() tview.Primitive { return s.rootOf() }

// Resize lays the screen out for a terminal of width×height cells.
func (s *ServerScreen) Resize(width, height int) { s.resize(width, height) }

// linkRows is the height of the sliders' panel (both screens'): four sliders and the border.
const linkRows = 6

// narrow: the terminal is too narrow for the sliders beside the player table (its columns
// need the width), so they go above the event log.
func (s *ServerScreen) narrow() bool { return s.width < wideTable }

func (s *ServerScreen) layout() {
	narrow := s.narrow()
	top := s.main.GetItem(0).(*tview.Flex)
	top.Clear()
	top.AddItem(s.playersBox, 0, 1, false)
	if !narrow {
		top.AddItem(s.link, s.sideWidth(), 0, false)
	}
	rows, summed := s.tableRows(narrow)
	s.playersBox.Clear()
	s.playersBox.AddItem(s.players, 0, 1, false)
	if summed {
		s.playersBox.AddItem(s.spectatorsLine, 1, 0, false)
	}
	s.main.ResizeItem(top, rows, 0)
	// The side column: the event log, under the sliders when they left the top.
	var side tview.Primitive = s.events
	sideSize, sideWeight := 0, 1
	if narrow {
		side = tview.NewFlex().SetDirection(tview.FlexRow).AddItem(s.link, linkRows, 0, false).AddItem(s.events, 0, 1, false)
		sideSize, sideWeight = s.sideWidth(), 0
	}
	s.middle.Clear()
	var mapItem tview.Primitive = s.waiting
	if s.mapView != nil {
		mapItem = s.mapView
	}
	s.focus = []tview.Primitive{s.players}
	switch {
	case !s.debugOpen:
		s.middle.SetDirection(tview.FlexColumn)
		s.middle.AddItem(mapItem, 0, 2, false).AddItem(side, sideSize, sideWeight, false)
		s.focus = append(s.focus, mapItem, s.link, s.events)
	case s.height >= debugBesideHeight:
		s.middle.SetDirection(tview.FlexRow)
		row := tview.NewFlex().AddItem(mapItem, 0, 2, false).AddItem(side, sideSize, sideWeight, false)
		s.middle.AddItem(row, 0, 1, false).AddItem(s.debug, 0, 1, false)
		s.focus = append(s.focus, mapItem, s.link, s.debug, s.events)
	default:
		s.middle.SetDirection(tview.FlexColumn)
		s.middle.AddItem(s.debug, 0, 2, false).AddItem(side, sideSize, sideWeight, false)
		s.focus = append(s.focus, s.link, s.debug, s.events)
	}
	s.checkFocus()
}

// tableRows is the height of the player table's box: every seat taken, always (the teacher
// watches the players), and the spectators' rows as far as a third of the screen allows;
// beside the sliders, at least their height. summed: the spectators' rows do not all fit, and
// one line below the seats' sums them up (↓ past the seats scrolls to them).
func (s *ServerScreen) tableRows(narrow bool) (rows int, summed bool) {
	seats, spectators := 0, 0
	for _, id := range s.rowSeats {
		if id < world.MaxPlayers {
			seats++
		} else {
			spectators++
		}
	}
	const chrome = 3 // the border and the header
	want := seats + spectators + chrome
	limit := max(s.height/3, seats+chrome)
	if !narrow {
		want, limit = max(want, linkRows), max(limit, linkRows)
	}
	if want <= limit {
		return want, false
	}
	return max(limit, seats+chrome+1), true
}

// notify shows a message on the line above the status line for a few seconds.
func (s *ServerScreen) notify(msg string) {
	s.noticeMsg, s.noticeAt = msg, s.now
}

// Refresh reads the host's latest snapshot and statistics into the widgets, once per frame.
func (s *ServerScreen) Refresh(now time.Time) {
	now = s.frameTime(now)
	s.now = now
	s.mendFocus()
	s.snap = s.host.Snapshot()
	s.peers = s.host.Peers()
	if a := s.classAsked; a != nil && s.snap != nil && s.snap.ClassLink != nil && *s.snap.ClassLink == *a {
		s.classAsked = nil // the server has it
	}
	if a := s.leadAsked; a != nil && s.snap != nil && s.snap.LeadSetting == *a {
		s.leadAsked = nil // the server has it
	}
	s.linkCtl.sync()
	s.classCtl.sync()
	snap := s.snap
	if snap == nil {
		snap = &game.ServerSnapshot{}
	}
	if snap.Map != "" && snap.Map != s.mapName {
		if w, err := world.NewWorld(snap.Map, 0); err == nil {
			s.mapName = snap.Map
			s.mapView = NewMapView(w)
			s.mapView.SetBorder(true).SetTitle(" map " + snap.Map + " (spectator) ")
			s.layout()
		}
	}
	if s.mapView == nil {
		s.waiting.SetText(fmt.Sprintf("\n\nwaiting for players\non %s", s.join[0]))
	} else {
		s.mapView.SetUnits(snap.Units, world.MaxPlayers) // a spectator owns no units
		s.mapView.SetAttacks(snap.Attacks)
	}
	s.fillPlayers(snap)
	s.playersBox.SetTitle(playersTitle(snap.Rejected, s.tableWidth()+2))
	s.events.take(snap.Events, snap.EventsTotal)
	s.refreshDebug()
	s.status.SetStatus(s.statusOf(snap, now))
	if s.noticeAt.IsZero() {
		s.noticeAt = now // a notice from before the first frame counts from it
	}
	s.notice.SetText(hintLine(s.width, s.hints(snap, now)...))
	if t := s.leading; t != nil {
		if _, err, ok := t.Result(); ok {
			s.leading = nil
			if err != nil {
				s.leadAsked = nil
				s.tell("lead time unchanged: " + err.Error())
			}
		}
	}
	s.refreshWaves()
	s.refreshKick(now)
	if t := s.rounding; t != nil {
		if frame, err, ok := t.Result(); ok {
			s.rounding = nil
			if err != nil {
				s.tell("no new round: " + err.Error())
			} else {
				s.tell(fmt.Sprintf("new round at frame %d: every world starts afresh, every player gets a new squad", frame))
			}
		}
	}
}

// hints are the parts of the line above the status line, most important first: a notice of
// the last few seconds, or what is under the map's cursor, or what the teacher keeps an eye
// on (where players join, how many play, the round, the lead, the spectators) and keys.
func (s *ServerScreen) hints(snap *game.ServerSnapshot, now time.Time) []string {
	switch {
	case now.Sub(s.noticeAt) <= noticeFor:
		return []string{"[yellow]" + tview.Escape(s.noticeMsg) + "[-]", "? help"}
	case s.mapView != nil && s.mapView.HasFocus():
		// The spectator's cursor: what is under it.
		x, y := s.mapView.Cursor()
		text := fmt.Sprintf("cursor %d,%d", x, y)
		if u, ok := s.mapView.UnitAt(x, y); ok {
			text += " " + s.unitText(u, snap)
		}
		return []string{tview.Escape(text), "? help"}
	}
	parts := []string{"serving on " + s.join[0], fmt.Sprintf("%d player(s)", len(snap.Seats))}
	switch {
	case snap.NewRound > snap.Frame:
		parts = append(parts, fmt.Sprintf("[aqua]new round at frame %d[-]", snap.NewRound))
	case snap.Round > 1:
		parts = append(parts, fmt.Sprintf("round %d", snap.Round))
	}
	parts = append(parts, tview.Escape(leadText(s.leadSetting())), spectatorsText(snap))
	if n := snap.Game.CommandsOutOfRange + snap.Game.CommandsTooFast; n > 0 {
		// A player's commands for frames no game runs, or faster than its seat's rate: the
		// event log says whose (game/commands.go).
		parts = append(parts, "[red]"+countText(n)+" command(s) refused[-]")
	}
	return append(parts, "Tab focus", "d debug", "? help")
}

// spectatorsText is the spectators' count and their chat's state, for the line above the
// status line: "3 spectator(s), their chat on (s)".
func spectatorsText(snap *game.ServerSnapshot) string {
	chat := "on"
	if !snap.SpectatorChat {
		chat = "off"
	}
	return fmt.Sprintf("%d spectator(s), their chat %s (s)", len(snap.Spectators), chat)
}

// spectatorRow is the row number of spectator n in rowSeats and seat.
func spectatorRow(n uint16) int { return world.MaxPlayers + int(n) - 1 }

// peerOf finds a seat's connection by its player's id (the transport numbers its seats its
// own way).
func (s *ServerScreen) peerOf(st game.SeatInfo) (transport.PeerStats, bool) {
	if st.Bot {
		return transport.PeerStats{}, false // a bot on the server has no connection
	}
	return s.peerOfPlayer(st.Player)
}

// peerOfPlayer finds the connection of a player id: a seat's, or a spectator's.
func (s *ServerScreen) peerOfPlayer(player uuid.UUID) (transport.PeerStats, bool) {
	for _, p := range s.peers {
		if p.PlayerID == player && p.Connected {
			return p, true
		}
	}
	return transport.PeerStats{}, false
}

// fillPlayers rewrites the table, keeping the selected seat selected.
func (s *ServerScreen) fillPlayers(snap *game.ServerSnapshot) {
	t := s.players
	t.Clear()
	rows := len(s.rowSeats)
	s.rowSeats = s.rowSeats[:0]
	lead := fmt.Sprintf("%d ms", snap.Game.LeadTimeMillis)
	selRow := 0
	type row struct {
		id                 int // in rowSeats' numbering
		label, name, state string
		lastHash           string
		peer               transport.PeerStats
		hasPeer            bool
	}
	var table []row
	for _, st := range snap.Seats {
		p, ok := s.peerOf(st)
		table = append(table, row{int(st.Seat), fmt.Sprint(st.Seat), st.Name, st.State, st.LastHash, p, ok})
	}
	// The spectators come after the seats, numbered s1, s2, …: the teacher sees who watches,
	// how its link is, and (↑↓) its debug panel.
	var names []string
	for _, sp := range snap.Spectators {
		p, ok := s.peerOfPlayer(sp.Player)
		why := "seats full"
		if sp.Asked {
			why = "asked"
		}
		table = append(table, row{spectatorRow(sp.Number), fmt.Sprintf("s%d", sp.Number), sp.Name, sp.State + " (" + why + ")", sp.LastHash, p, ok})
		names = append(names, sp.Name)
	}
	s.spectatorsLine.SetText(fmt.Sprintf("+ %d spectator(s) below the seats (↓): %s", len(snap.Spectators), strings.Join(names, ", ")))
	// The texts first, then the columns' widths: the columns a teacher reads first stay, and
	// one cut or left out says so ("…") rather than run off the box's edge (server_table.go).
	texts := [][tableColumns]string{{}}
	for c := range tableColumns {
		texts[0][c] = playerColumns[c].head
	}
	for _, st := range table {
		addr, rtt, loss := "-", "-", "-"
		if st.hasPeer {
			addr = st.peer.Addr.String()
			rtt = rttText(st.peer.RTT)
			loss = fmt.Sprintf("%.1f%%", st.peer.LossPercent)
		}
		texts = append(texts, [tableColumns]string{st.label, st.name, st.state, rtt, loss, st.lastHash, lead, addr})
	}
	widths := fitColumns(texts, s.tableWidth())
	for r, text := range texts {
		var st row
		if r > 0 {
			st = table[r-1]
			s.rowSeats = append(s.rowSeats, st.id)
		}
		c := 0 // the table's column: the ones left out take none
		for col, txt := range text {
			w := widths[col]
			if w == 0 {
				continue
			}
			if col == colAddr {
				txt = cutLeft(txt, w)
			}
			cell := tview.NewTableCell(tview.Escape(txt)).SetMaxWidth(w)
			if r == 0 {
				cell.SetSelectable(false).SetTextColor(tcell.ColorYellow)
			} else {
				s.colorCell(cell, col, st.name, st.state, st.lastHash)
			}
			t.SetCell(r, c, cell)
			c++
		}
		if r > 0 && st.id == s.seat {
			selRow = r
		}
	}
	if len(table) > 0 {
		if selRow == 0 {
			selRow = 1
			s.seat = table[0].id
		}
		if r, _ := t.GetSelection(); r != selRow {
			t.Select(selRow, 0)
		}
	}
	if rows != len(s.rowSeats) {
		s.layout()
	}
}

// colorCell colours a cell of the player table by what it says: a player's name in its
// colour, a state by how the player is, a hash result by how it went.
func (s *ServerScreen) colorCell(cell *tview.TableCell, col int, name, state, hash string) {
	switch col {
	case colName:
		cell.SetTextColor(PlayerColor(name))
	case colState:
		color := tcell.ColorGreen
		switch {
		case strings.HasPrefix(state, "disconnected"):
			color = tcell.ColorRed
		case state == "paused" || state == "re-syncing":
			color = tcell.ColorFuchsia
		case state == "joining":
			color = tcell.ColorYellow
		case strings.HasPrefix(state, "watching"):
			color = tcell.ColorAqua
		}
		cell.SetTextColor(color)
	case colHash:
		color := tview.Styles.PrimaryTextColor
		if strings.HasPrefix(hash, "mismatch") || strings.HasPrefix(hash, "stop") {
			color = tcell.ColorRed
		} else if strings.HasPrefix(hash, "real-time") || strings.HasPrefix(hash, "re-sync") {
			color = tcell.ColorYellow
		}
		cell.SetTextColor(color)
	}
}

// refreshDebug points the debug panel at the selected player.
func (s *ServerScreen) refreshDebug() {
	snap := s.snap
	if snap == nil {
		return
	}
	d := DebugData{Now: s.now, Pauses: snap.Pauses, Sync: snap.Sync, Lead: leadOfServer(snap), HasSync: true}
	for _, sp := range snap.Spectators {
		if spectatorRow(sp.Number) != s.seat {
			continue
		}
		d.Title = fmt.Sprintf("spectator %d %s", sp.Number, sp.Name)
		d.Peer, d.HasPeer = s.peerOfPlayer(sp.Player)
		if d.HasPeer {
			d.Title += " " + d.Peer.Addr.String()
		}
		s.who = "server-" + fileSafe(sp.Name)
		d.NoHashes = "a spectator's reports repair its own world alone: the event log shows its copies of the world"
	}
	for _, st := range snap.Seats {
		if int(st.Seat) != s.seat {
			continue
		}
		d.Title = "player " + st.Name
		d.Peer, d.HasPeer = s.peerOf(st)
		if d.HasPeer {
			d.Title += " " + d.Peer.Addr.String()
		}
		s.who = "server-" + fileSafe(st.Name) // the DOT export's file names the player
		if st.Bot {
			d.Title += " (bot: no link)"
			d.NoHashes = "a bot plays on the server's own world: it has no hashes to report"
		}
	}
	for _, r := range snap.Mismatches {
		if int(r.Seat) == s.seat {
			d.Mismatches = append(d.Mismatches, r)
		}
	}
	s.debug.SetTitle(" debug: " + tview.Escape(d.Title) + " ")
	s.debug.SetData(d)
}

func (s *ServerScreen) statusOf(snap *game.ServerSnapshot, now time.Time) Status {
	st := Status{Frame: snap.Frame, Lead: leadOfServer(snap),
		RTT: time.Duration(snap.Net.RTTMillis * float64(time.Millisecond)), LossPercent: snap.Net.LossPercent,
		State: StateRunning, Link: LinkText(s.linkCtl.current)}
	for _, p := range s.peers {
		st.BytesInPerSec += p.BytesInPerSec
		st.BytesOutPerSec += p.BytesOutPerSec
	}
	switch {
	case snap.Paused:
		st.State = StateResyncing
		if n := len(snap.Pauses); n > 0 && !snap.Pauses[n-1].Start.IsZero() {
			st.Since = now.Sub(snap.Pauses[n-1].Start)
		}
	case !snap.Running:
		st.State = StateWaitingPlayers
	}
	return st
}

// HandleKey is the server screen's key map (see ServerKeys).
func (s *ServerScreen) HandleKey(ev *tcell.EventKey, quit func()) *tcell.EventKey {
	s.mendFocus()
	if !s.helpOpen && s.kickKey(ev) {
		return nil
	}
	if ev, done := s.commonKey(ev, quit); done {
		return ev
	}
	if ev.Key() == tcell.KeyRune && ev.Rune() == 'K' && s.kickKeyFree() {
		s.askKick()
		return nil
	}
	if ev.Key() == tcell.KeyRune && ev.Rune() == 'c' {
		s.switchLink()
		return nil
	}
	if ev.Key() == tcell.KeyRune && ev.Rune() == 's' {
		s.toggleSpectatorChat()
		return nil
	}
	if ev.Key() == tcell.KeyRune && ev.Rune() == 't' {
		s.stepLead()
		return nil
	}
	if ev.Key() == tcell.KeyRune && ev.Rune() == 'w' {
		s.toggleWaves()
		return nil
	}
	if ev.Key() == tcell.KeyRune && ev.Rune() == 'R' {
		if t, ok := s.host.NewRound(); ok {
			s.rounding = t // the next frame says what came of it
		} else {
			s.tell("the game is busy: try again")
		}
		return nil
	}
	switch ev.Key() {
	case tcell.KeyEscape:
		if s.focused() != s.players {
			s.setFocus(s.players)
		} else if s.debugOpen {
			s.toggleDebug()
		}
		return nil
	case tcell.KeyPgUp, tcell.KeyPgDn, tcell.KeyHome, tcell.KeyEnd:
		// The log scrolls from anywhere, it is what a teacher reads back most; but Home and
		// End are the sliders' and the debug panel's own where they have the focus.
		if f := s.focused(); (f == s.link || f == s.debug) && (ev.Key() == tcell.KeyHome || ev.Key() == tcell.KeyEnd) {
			return ev
		}
		s.events.scrollKey(ev.Key())
		return nil
	}
	return ev
}

// playersHint is the player table's title when nothing else needs the room.
const playersHint = "players (↑↓ selects the debug panel's)"

// playersTitle is the player table's title for a box width cells wide (0: unknown): the hint,
// and once the server has rejected datagrams their total and the three largest reasons, as in
// "players · rejected 1486: malformed 966, throttled 500, duplicate 20". Where that does not
// fit the hint goes first, then the reasons from the smallest; the total stays.
func playersTitle(r game.RejectedReport, width int) string {
	if r.Total == 0 {
		return " " + playersHint + " "
	}
	type reason struct {
		name string
		n    uint64
	}
	var reasons []reason
	throttled := r.Throttled()
	r.Each(func(name string, n uint64) {
		switch {
		case n == 0:
		case strings.HasPrefix(name, "throttled"):
			if throttled > 0 { // the three budgets' in one: --stats has them apart
				reasons = append(reasons, reason{"throttled", throttled})
				throttled = 0
			}
		default:
			reasons = append(reasons, reason{strings.ReplaceAll(name, "_", " "), n})
		}
	})
	slices.SortStableFunc(reasons, func(a, b reason) int { return cmp.Compare(b.n, a.n) })
	reasons = reasons[:min(len(reasons), 3)]
	title := func(head string, k int) string {
		t := " " + head + " · rejected " + countText(r.Total)
		for i, rs := range reasons[:k] {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			t += sep + rs.name + " " + countText(rs.n)
		}
		return t + " "
	}
	fits := func(t string) bool { return width <= 0 || utf8.RuneCountInString(t) <= width-2 }
	if t := title(playersHint, len(reasons)); fits(t) {
		return t
	}
	for k := len(reasons); k > 0; k-- {
		if t := title("players", k); fits(t) {
			return t
		}
	}
	return title("players", 0)
}

// countText is a count in at most five characters: 1486, 12.3k, 966k, 1.5M.
func countText(n uint64) string {
	switch {
	case n < 10_000:
		return fmt.Sprint(n)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 100_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

// fileSafe keeps the letters, digits, '-' and '_' of a name, for a file name.
func fileSafe(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "player"
	}
	return b.String()
}

// unitText describes a unit for the spectator.
func (s *ServerScreen) unitText(u world.Unit, snap *game.ServerSnapshot) string {
	owner := ""
	for _, st := range snap.Seats {
		if st.Seat == u.Owner {
			owner = st.Name
		}
	}
	return describeUnit(u, -1, owner)
}

// toggleSpectatorChat turns the spectators' chat off, or on again.
func (s *ServerScreen) toggleSpectatorChat() {
	on := s.snap == nil || !s.snap.SpectatorChat
	if err := s.host.SetSpectatorChat(on); err != nil {
		s.tell(err.Error())
		return
	}
	if on {
		s.tell("spectator chat on: the spectators' lines reach everybody again")
	} else {
		s.tell("spectator chat off: every spectator's line is refused, and the spectator told why")
	}
}

// activeLink is the link the sliders drive: the server's own, or the class's.
func (s *ServerScreen) activeLink() *linkControl {
	if s.classMode {
		return s.classCtl
	}
	return s.linkCtl
}

// switchLink puts the other link's sliders in the panel's place (keeping the focus on them if
// they had it).
func (s *ServerScreen) switchLink() {
	focused := s.link.HasFocus()
	s.classMode = !s.classMode
	s.link = s.activeLink().panel
	s.layout()
	if focused {
		s.setFocus(s.link)
	}
	if s.classMode {
		s.tell("the sliders and presets now set every client's link: " + LinkText(s.classCtl.current))
	} else {
		s.tell("the sliders and presets now set the server's own link")
	}
}

// classLink is the class's link as the sliders should show it: what they last asked for,
// until the frame's snapshot has it (a push reaches the snapshot a frame or two later; Refresh
// lets go of it then), then the snapshot's.
func (s *ServerScreen) classLink() (linksim.Settings, bool) {
	switch {
	case s.classAsked != nil:
		return *s.classAsked, true
	case s.snap != nil && s.snap.ClassLink != nil:
		return *s.snap.ClassLink, true
	}
	return linksim.Settings{}, true
}

// pushLink gives every client the settings the class's sliders show.
func (s *ServerScreen) pushLink(ls linksim.Settings) error {
	ls, err := s.host.PushLink(ls)
	if err != nil {
		return err
	}
	s.classAsked = &ls // as the clients will have it
	return nil
}

// leadOfServer is the server's command lead time in force, fixed by the teacher or not, and
// the change on its way.
func leadOfServer(snap *game.ServerSnapshot) Lead {
	return Lead{Time: time.Duration(snap.Game.LeadTimeMillis) * time.Millisecond, Fixed: snap.LeadFixed}.WithNext(snap.LeadNext, snap.FrameDur)
}

// leadSteps are the lead settings t steps through: the server's policy, then ever longer fixed
// leads, from orders that happen at once (and late commands run again) to sluggish orders
// that nothing can make late.
var leadSteps = []game.LeadSetting{game.LeadAuto, game.FixedLead(100 * time.Millisecond), game.FixedLead(300 * time.Millisecond),
	game.FixedLead(time.Second), game.FixedLead(2 * time.Second)}

// nextLeadStep is the setting t moves to from l: the next of leadSteps, from the last back to
// auto; from a lead fixed otherwise (--lead 500ms), the first longer step, or auto.
func nextLeadStep(l game.LeadSetting) game.LeadSetting {
	if i := slices.Index(leadSteps, l); i >= 0 {
		return leadSteps[(i+1)%len(leadSteps)]
	}
	for _, step := range leadSteps[1:] {
		if step > l {
			return step
		}
	}
	return game.LeadAuto
}

// leadStepText is a lead setting in the help's words: "auto", "300 ms", "1 s".
func leadStepText(l game.LeadSetting) string {
	d, fixed := l.Fixed()
	switch {
	case !fixed:
		return "auto"
	case d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// leadSetting is the teacher's lead setting as the screen should show it: what t last asked
// for, until the frame's snapshot has it (Refresh lets go of it then), then the snapshot's.
func (s *ServerScreen) leadSetting() game.LeadSetting {
	switch {
	case s.leadAsked != nil:
		return *s.leadAsked
	case s.snap != nil:
		return s.snap.LeadSetting
	}
	return game.LeadAuto
}

// leadText is the lead time for the line above the status line: the teacher's setting, as in
// "lead auto (t)" or "lead 300 ms, set by the teacher (t)". (The status line has the lead in
// force, and the change on its way.)
func leadText(setting game.LeadSetting) string {
	if setting == game.LeadAuto {
		return "lead auto (t)"
	}
	return "lead " + leadStepText(setting) + ", set by the teacher (t)"
}

// stepLead moves the command lead time to the next of leadSteps, through the owner loop, and
// says what the class will see.
func (s *ServerScreen) stepLead() {
	next := nextLeadStep(s.leadSetting())
	t, ok := s.host.SetLead(next)
	if !ok {
		s.tell(errBusy.Error())
		return
	}
	s.leadAsked, s.leading = &next, t
	then := leadStepText(nextLeadStep(next))
	if next == game.LeadAuto {
		s.tell("lead auto: the server sets it from the players' links (t: " + then + ")")
		return
	}
	s.tell(fmt.Sprintf("lead %s, set by the teacher: orders wait %[1]s, slower commands come late and run again (t: %s)",
		leadStepText(next), then))
}
