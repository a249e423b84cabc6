package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ackattack/ackattack/game"
	"github.com/ackattack/ackattack/net/transport"
	"github.com/ackattack/ackattack/world"
)

// Layout thresholds. Below debugBesideHeight rows the debug panel takes the map's place instead
// of sharing the column with it; the right column is a third of the width, within these bounds.
const (
	debugBesideHeight = 36
	sideMinWidth      = 30
	sideMaxWidth      = 48
	noticeFor         = 5 * time.Second
	maxGroups         = 9
	// attackRadius is how far from the cursor a (the attack key) looks for an enemy: enemies
	// move every frame, and one a cell or two off is still the one the player meant.
	attackRadius = 2
)

// ClientScreen is the player's screen: the map with the orders line under it, the network
// sliders and the chat on the right, the status line at the bottom, and, on request, the debug
// panel and the help overlay. Everything it shows comes from the host's latest snapshot, read
// once per frame by Refresh; everything the player does goes back as an intent (ClientHost).
//
// All its methods run on the tview application's goroutine.
type ClientScreen struct {
	chrome
	host ClientHost

	main    *tview.Flex // map column + side column, over the orders and status lines
	left    *tview.Flex // the map (or the waiting text) and, when open, the debug panel
	side    *tview.Flex
	waiting *tview.TextView
	mapView *MapView
	mapName string
	link    *LinkPanel
	chat    *ChatPane
	orders  *tview.TextView
	status  *StatusLine

	snap     *game.ClientSnapshot
	peer     transport.PeerStats
	hasPeer  bool
	groups   [maxGroups + 1][]uint32
	group    int            // the group last recalled or stored, for the orders line
	boxFrom  *[2]int32      // a keyboard box selection in progress
	groupKey bool           // 'g' was pressed: the next digit stores a group
	sent     []sentOrder    // orders handed to the host, not yet seen in a snapshot
	said     []*OrderTicket // chat lines handed to the host, until it took or refused them
	notice   string         // a message for the player (export done, intent refused)
	noticeAt time.Time      // when it was first shown (zero: not yet, it shows from the next frame)
	linkCtl  *linkControl
	// injecting is an inject-desync intent whose outcome the next frame reports.
	injecting *OrderTicket
	// classSeen counts the class links the screen has told the player about, refusedSeen a
	// spectator's chat lines the server refused.
	classSeen   uint64
	refusedSeen uint32
	lessons     *lessonUI // the lesson menu, and the lesson on screen (client_lesson.go); nil: none
	// introUntil is when the goal leaves the line under the map (introFor after the map
	// first showed), or the player's first order (ordered), whichever comes first.
	introUntil time.Time
	ordered    bool
}

// The goal, for a newcomer: on the line under the map for the first seconds, and in the help.
const (
	introFor = 30 * time.Second
	goalHint = "[::b]goal:[::-] defeat the [red]red enemies[-]: space selects your [lime]units[-], a attacks"
)

var goalHelp = []string{
	"Goal: defeat the red enemies the server sends, with your green units",
	"(the map's bottom line says which letter is which). Select them with",
	"space (v: a box), then a attacks the enemy nearest the cursor, m moves.",
}

// sentOrder is an order the player gave, followed from "sent" through "pending until frame F"
// to "done" (or "refused"), for the orders line.
type sentOrder struct {
	kind   world.CommandKind
	units  int
	x, y   int32
	target string // an attack's target: "goblin #10001 at 31,10"
	at     time.Time
	ticket *OrderTicket
	doneAt time.Time // when the world passed its frame (or it was refused)
}

// orderShownFor is how long an order stays on the orders line after it ran.
const orderShownFor = 2 * time.Second

// NewClientScreen builds the screen for host. setFocus and focused are the application's
// SetFocus and GetFocus (a test may run the screen in its own application).
func NewClientScreen(host ClientHost, exportDir string, setFocus func(p tview.Primitive)) *ClientScreen {
	s := &ClientScreen{host: host}
	s.waiting = tview.NewTextView().SetTextAlign(tview.AlignCenter)
	s.waiting.SetBorder(true).SetTitle(" map ")
	s.linkCtl = newLinkControl(" network (Tab) ", host.Link, host.SetLink, func(msg string) { s.tell(msg) })
	s.link = s.linkCtl.panel
	s.chat = NewChatPane()
	s.chat.SetBorder(true).SetTitle(" chat (Enter) ")
	s.chat.SetSendFunc(func(text string) {
		t, ok := host.Say(text)
		if !ok {
			s.tell("the game is busy: chat line not sent")
			return
		}
		s.said = append(s.said, t)
	})
	s.orders = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	s.status = NewStatusLine()

	s.side = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(s.link, linkRows, 0, false).
		AddItem(s.chat, 0, 1, false)
	s.left = tview.NewFlex().SetDirection(tview.FlexRow).AddItem(s.waiting, 0, 1, false)
	top := tview.NewFlex().AddItem(s.left, 0, 1, false).AddItem(s.side, sideMinWidth, 0, false)
	s.main = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(top, 0, 1, false).
		AddItem(s.orders, 1, 0, false).
		AddItem(s.status, 1, 0, false)
	s.chrome = newChrome(s.main, " AckAttack client ", ClientKeys, setFocus)
	s.help.SetIntro(goalHelp...)
	s.debug.SetBorder(true).SetTitle(" debug: server link ")
	s.exports, s.who, s.tell, s.relayout = exportDir, "client", s.notify, s.layout
	s.preset = s.linkCtl.preset
	s.widgets = func() []tview.Primitive {
		ws := []tview.Primitive{s.help, s.chat, s.link, s.debug, s.waiting}
		if s.mapView != nil {
			ws = append(ws, s.mapView)
		}
		return ws
	}
	s.focus = []tview.Primitive{s.waiting, s.link}
	return s
}

// Root is the screen's root primitive.
func (s *ClientScreen) Root() tview.Primitive { return s.rootOf() }

// MapView returns the map, nil before the game started.
func (s *ClientScreen) MapView() *MapView { return s.mapView }

// Resize lays the screen out for a terminal of width×height cells.
func (s *ClientScreen) Resize(width, height int) { s.resize(width, height) }

func (s *ClientScreen) layout() {
	top := s.main.GetItem(0).(*tview.Flex)
	side := s.sideWidth()
	s.side.Clear()
	s.main.Clear().AddItem(top, 0, 1, false)
	if panel := s.LessonPanel(); panel != nil {
		below, rows := s.lessonPlace(panel)
		if below {
			s.main.AddItem(panel, rows, 0, false)
		} else {
			side = s.lessonSideWidth()
			s.side.AddItem(panel, rows, 0, false)
		}
	}
	s.side.AddItem(s.link, linkRows, 0, false).AddItem(s.chat, 0, 1, false)
	s.main.AddItem(s.orders, 1, 0, false).AddItem(s.status, 1, 0, false)
	top.ResizeItem(s.side, side, 0)
	s.left.Clear()
	var mapItem tview.Primitive = s.waiting
	if s.mapView != nil {
		mapItem = s.mapView
	}
	switch {
	case !s.debugOpen:
		s.left.AddItem(mapItem, 0, 1, false)
	case s.height >= debugBesideHeight:
		s.left.AddItem(mapItem, 0, 1, false).AddItem(s.debug, 0, 1, false)
	default:
		// A small terminal: the debug panel takes the map's place (d brings the map back).
		s.left.AddItem(s.debug, 0, 1, false)
	}
	s.debug.SetTitle(" debug: server link ")
	switch {
	case !s.debugOpen:
		s.focus = append(s.focus[:0], mapItem, s.link)
	case s.height >= debugBesideHeight:
		s.focus = append(s.focus[:0], mapItem, s.link, s.debug)
	default:
		// The panel is home while it hides the map: the keys go to it, not to a slider.
		s.focus = append(s.focus[:0], s.debug, s.link)
		s.debug.SetTitle(" debug: server link (the map is hidden: d shows it) ")
	}
	s.checkFocus(s.chat)
}

// notify shows a message on the orders line for a few seconds.
func (s *ClientScreen) notify(msg string) {
	s.notice, s.noticeAt = msg, s.now // zero before the first frame: counted from that frame
}

// Refresh reads the host's latest snapshot and statistics into the widgets. It is called once
// per frame, from the one ticker that redraws the screen.
func (s *ClientScreen) Refresh(now time.Time) {
	now = s.frameTime(now)
	s.now = now
	s.mendFocus(s.chat)
	s.snap = s.host.Snapshot()
	s.peer, s.hasPeer = s.host.Peer()
	s.linkCtl.sync()
	snap := s.snap
	if snap == nil {
		snap = &game.ClientSnapshot{}
	}
	if snap.Map != "" && snap.Map != s.mapName {
		if w, err := world.NewWorld(snap.Map, 0); err == nil {
			s.mapName = snap.Map
			focusMap := s.mapView == nil && s.focused() == s.waiting
			s.mapView = NewMapView(w)
			s.mapView.SetBorder(true).SetTitle(" map " + snap.Map + " ")
			s.mapView.SetLegend(true)
			if s.introUntil.IsZero() {
				s.introUntil = s.now.Add(introFor)
			}
			s.mapView.SetMouseFuncs(s.clickSelect, s.boxSelect, s.rightClick)
			s.mapView.SetCursorFunc(s.cursorMoved)
			if own := firstOwn(snap.Units, snap.Seat); own != nil && snap.Spectator == nil {
				s.mapView.SetCursor(own.X, own.Y)
			}
			s.layout()
			if focusMap {
				s.setFocus(s.mapView)
			}
		}
	}
	if s.mapView == nil {
		s.waiting.SetText(waitingText(snap, s.peer))
	} else {
		s.mapView.SetUnits(snap.Units, ownSeat(snap))
		s.mapView.SetAttacks(snap.Attacks)
		s.dropDeadFromSelection()
		s.mapView.SetMarks(pendingMarks(snap.Pending))
	}
	s.chat.SetLines(snap.Chat)
	if sp := snap.Spectator; sp != nil && sp.Refused > s.refusedSeen {
		s.refusedSeen = sp.Refused
		s.tell("the server refused your chat line: " + sp.RefusedText())
	}
	if snap.ClassLinks > s.classSeen && snap.ClassLink != nil {
		s.classSeen = snap.ClassLinks
		if snap.ClassLinkErr != "" {
			s.tell("the teacher set the class's link (" + LinkText(*snap.ClassLink) + "), not on yours: " + snap.ClassLinkErr)
		} else {
			s.tell("the teacher set the class's link: " + LinkText(*snap.ClassLink))
		}
	}
	st := s.statusOf(snap, now)
	s.debug.SetData(DebugData{Peer: s.peer, HasPeer: s.hasPeer, Title: "server link", Now: now,
		Mismatches: snap.Mismatches, Pauses: snap.Pauses, Sync: snap.Sync, Lead: st.Lead, HasSync: true})
	s.status.SetStatus(st)
	s.followOrders(snap, now)
	s.followChat()
	if t := s.injecting; t != nil {
		if _, err, ok := t.Result(); ok {
			s.injecting = nil
			if err != nil {
				s.tell("no desync injected: " + err.Error())
			} else {
				s.tell("desync injected: one of your units changed on this host only; watch the hashes view (d, n n)")
			}
		}
	}
	s.orders.SetText(hintLine(s.width, s.orderParts(snap)...))
	s.refreshLesson(now)
}

// ownSeat is the seat whose units the map draws as the player's: none for a spectator.
func ownSeat(snap *game.ClientSnapshot) uint8 {
	if snap.Spectator != nil {
		return world.MaxPlayers
	}
	return snap.Seat
}

func firstOwn(units []world.Unit, seat uint8) *world.Unit {
	for i := range units {
		if units[i].Owner == seat {
			return &units[i]
		}
	}
	return nil
}

// waitingText is what the map area says before the game starts.
func waitingText(snap *game.ClientSnapshot, peer transport.PeerStats) string {
	switch {
	case snap.State == transport.Connecting || snap.State == 0:
		return "\n\nconnecting to the server…"
	case snap.State == transport.Disconnected:
		return "\n\ndisconnected"
	case snap.Started:
		return "\n\njoined a running game: the world is on its way…"
	case snap.Spectator != nil:
		return fmt.Sprintf("\n\nconnected as spectator %d (rtt %d ms): %s\nwaiting for the game to start…",
			snap.Spectator.Number, peer.RTT.Milliseconds(), snap.Spectator.WhyText())
	}
	n := 0
	for _, p := range snap.Players {
		if p.Name != "" {
			n++
		}
	}
	return fmt.Sprintf("\n\nconnected (rtt %d ms)\n%d player(s) here\nwaiting for the game to start…", peer.RTT.Milliseconds(), n)
}

// statusOf is the status line's content for a snapshot.
func (s *ClientScreen) statusOf(snap *game.ClientSnapshot, now time.Time) Status {
	lead := Lead{Time: time.Duration(snap.Game.LeadTimeMillis) * time.Millisecond, Fixed: snap.LeadFixed}.WithNext(snap.LeadNext, snap.FrameDur)
	st := Status{Frame: snap.Frame, Lead: lead,
		RTT: s.peer.RTT, LossPercent: s.peer.LossPercent, BytesInPerSec: s.peer.BytesInPerSec,
		BytesOutPerSec: s.peer.BytesOutPerSec, State: StateRunning, Link: LinkText(s.linkCtl.current)}
	switch {
	case snap.State == transport.Disconnected:
		st.State = StateDisconnected
		st.Reason = s.host.Ended()
	case snap.Paused:
		st.State = StateResyncing
		if n := len(snap.Pauses); n > 0 && !snap.Pauses[n-1].Start.IsZero() {
			st.Since = now.Sub(snap.Pauses[n-1].Start)
		}
	case snap.Waiting:
		st.State = StateWaitingSync
	case snap.Spectator != nil:
		st.State, st.Reason = StateSpectating, snap.Spectator.WhyText()
		if !snap.Started {
			st.Reason += "; waiting for the start"
		}
	case !snap.Started:
		st.State = snap.State.String()
		if snap.State == transport.Connected {
			st.State = "WAITING FOR START"
		}
	}
	return st
}

// followOrders moves each sent order along: pending once the host has scheduled it, done once
// the world is past its frame; done and refused ones leave the line after orderShownFor.
func (s *ClientScreen) followOrders(snap *game.ClientSnapshot, now time.Time) {
	for i := range s.sent {
		o := &s.sent[i]
		if !o.doneAt.IsZero() {
			continue
		}
		frame, err, ok := o.ticket.Result()
		switch {
		case ok && err != nil:
			o.doneAt = now
		case ok && snap.Started && snap.Frame > frame:
			o.doneAt = now
		case !ok && now.Sub(o.at) > 5*time.Second:
			o.doneAt = now // the host never took it (it stopped): do not show it forever
		}
	}
	s.sent = slices.DeleteFunc(s.sent, func(o sentOrder) bool { return !o.doneAt.IsZero() && now.Sub(o.doneAt) > orderShownFor })
	if len(s.sent) > 4 {
		s.sent = s.sent[len(s.sent)-4:]
	}
}

// followChat says so when the host refused a chat line (the connection is too far behind), and
// forgets the lines it took.
func (s *ClientScreen) followChat() {
	s.said = slices.DeleteFunc(s.said, func(t *OrderTicket) bool {
		_, err, ok := t.Result()
		if ok && err != nil {
			s.tell("chat line not sent: " + err.Error())
		}
		return ok
	})
}

// dropDeadFromSelection forgets selected units that no longer exist.
func (s *ClientScreen) dropDeadFromSelection() {
	sel := s.mapView.Selected()
	if len(sel) == 0 {
		return
	}
	kept := sel[:0]
	for _, id := range sel {
		if _, ok := unitByID(s.mapView.Units(), id); ok {
			kept = append(kept, id)
		}
	}
	if len(kept) != len(s.mapView.Selected()) {
		s.mapView.SetSelected(kept)
	}
}

func unitByID(units []world.Unit, id uint32) (world.Unit, bool) {
	i, ok := slices.BinarySearchFunc(units, id, func(u world.Unit, id uint32) int { return int(u.ID) - int(id) })
	if !ok {
		return world.Unit{}, false
	}
	return units[i], true
}

// pendingMarks marks each pending move's destination.
func pendingMarks(pending []game.PendingOrder) []MapMark {
	var marks []MapMark
	for _, p := range pending {
		if world.CommandKind(p.Kind) == world.CommandMove {
			marks = append(marks, MapMark{X: p.X, Y: p.Y, Letter: 'x'})
		}
	}
	return marks
}

// orderParts are the parts of the line under the map: a notice, the orders on their way, the
// selection and what the cursor is on (hintLine joins them).
func (s *ClientScreen) orderParts(snap *game.ClientSnapshot) []string {
	var parts []string
	// What matters most comes first, as a narrow terminal leaves out the parts that do not fit
	// from the end: the connection's end, a notice (the answer to the key just pressed, for a
	// few seconds), the latest order, the selection, then the cursor.
	if snap.State == transport.Disconnected {
		parts = append(parts, "[red]disconnected: "+tview.Escape(s.host.Ended())+"[-]  (q quits)")
	}
	if s.notice != "" && s.noticeAt.IsZero() {
		s.noticeAt = s.now
	}
	if s.notice != "" && s.now.Sub(s.noticeAt) < noticeFor {
		parts = append(parts, "[yellow]"+tview.Escape(s.notice)+"[-]")
	}
	if snap.NewRound > snap.Frame {
		parts = append(parts, "[aqua]new round at frame "+framesAhead(snap.NewRound, snap)+"[-]")
	}
	// The latest order only, with a count of the others still pending: one line has no room
	// for a list, and the latest is the one the player is looking for.
	if n := len(s.sent); n > 0 {
		o := s.sent[n-1]
		what := orderText(o.kind, o.units, o.x, o.y, o.target)
		frame, err, ok := o.ticket.Result()
		part := ""
		switch {
		case !ok:
			part = what + " sent…"
		case err != nil:
			part = "[red]" + what + " refused: " + tview.Escape(err.Error()) + "[-]"
		case o.doneAt.IsZero():
			part = fmt.Sprintf("[aqua]%s pending until frame %d[-]", what, frame)
		default:
			part = fmt.Sprintf("%s ran at frame %d", what, frame)
		}
		if others := len(snap.Pending) - 1; others > 0 && o.doneAt.IsZero() {
			part += fmt.Sprintf(" (+%d more pending)", others)
		}
		parts = append(parts, part)
	}
	if s.mapView != nil {
		sel := s.mapView.Selected()
		switch {
		case snap.Spectator != nil:
			parts = append(parts, fmt.Sprintf("[aqua]spectator %d: no orders; Enter chats, d shows your link[-]", snap.Spectator.Number))
		case s.boxFrom != nil:
			parts = append(parts, fmt.Sprintf("box from %d,%d: move the cursor, v to select", s.boxFrom[0], s.boxFrom[1]))
		case snap.Started && firstOwn(snap.Units, snap.Seat) == nil:
			parts = append(parts, "[yellow]"+noUnitsText(snap)+"[-]")
		case len(sel) == 0 && !s.ordered && s.now.Before(s.introUntil):
			parts = append(parts, goalHint) // a newcomer's first seconds: what to do
		case len(sel) == 0:
			parts = append(parts, "no selection (space selects)")
		default:
			g := ""
			if s.group > 0 && slices.Equal(s.groups[s.group], sel) {
				g = fmt.Sprintf(" group %d", s.group)
			}
			parts = append(parts, fmt.Sprintf("[lime]%d selected%s[-] %s", len(sel), g, s.letters(sel)))
		}
	}
	if s.mapView != nil {
		x, y := s.mapView.Cursor()
		c := fmt.Sprintf("cursor %d,%d", x, y)
		if u, ok := s.mapView.UnitAt(x, y); ok {
			c += " " + unitText(u, snap)
		}
		parts = append(parts, c)
	}
	return append(parts, "? help")
}

// noUnitsText says what happens to a player with no units: a new round or a squad of
// reinforcements at an announced frame, or a squad the server has still to announce (it
// notices an empty army within a frame, and announces its squad a few seconds ahead).
func noUnitsText(snap *game.ClientSnapshot) string {
	switch {
	case snap.NewRound > snap.Frame && (snap.Squad == 0 || snap.NewRound <= snap.Squad):
		return "no units: a new round at frame " + framesAhead(snap.NewRound, snap)
	case snap.Squad > snap.Frame:
		return "no units: reinforcements at frame " + framesAhead(snap.Squad, snap)
	}
	return "no units: reinforcements on their way"
}

// framesAhead is "N (in 3 s)": frame N and how long until the game reaches it, in whole
// seconds rounded up.
func framesAhead(frame uint32, snap *game.ClientSnapshot) string {
	dur := snap.FrameDur
	if dur <= 0 {
		dur = game.DefaultFrame
	}
	in := time.Duration(frame-snap.Frame) * dur
	return fmt.Sprintf("%d (in %d s)", frame, (in+time.Second-1)/time.Second)
}

func orderText(kind world.CommandKind, units int, x, y int32, target string) string {
	switch kind {
	case world.CommandMove:
		return fmt.Sprintf("move %d → %d,%d", units, x, y)
	case world.CommandAttack:
		return fmt.Sprintf("attack %s with %d", target, units)
	}
	return fmt.Sprintf("%s %d", kind, units)
}

// letters lists the kinds of the selected units ("A A W"), up to a few.
func (s *ClientScreen) letters(sel []uint32) string {
	var b strings.Builder
	for i, id := range sel {
		if i == 8 {
			b.WriteString("…")
			break
		}
		if u, ok := unitByID(s.mapView.Units(), id); ok {
			if k, ok := world.KindOf(u.Kind); ok {
				b.WriteByte(k.Letter)
			}
		}
	}
	return b.String()
}

func unitText(u world.Unit, snap *game.ClientSnapshot) string {
	owner := snap.Players[min(int(u.Owner), len(snap.Players)-1)].Name
	own := int(snap.Seat)
	if snap.Spectator != nil {
		own = -1
	}
	return describeUnit(u, own, owner)
}

// enemyText names an enemy and where it stands: "goblin #10001 at 31,10".
func enemyText(u world.Unit) string {
	name := "enemy"
	if k, ok := world.KindOf(u.Kind); ok {
		name = k.Name
	}
	return fmt.Sprintf("%s #%d at %d,%d", name, u.ID, u.X, u.Y)
}

// describeUnit says what a unit is for the line under the map: its kind and id, whose it is
// (own is the viewer's seat, -1 for a spectator; owner the owner's name, "" if unknown) and
// its hit points.
func describeUnit(u world.Unit, own int, owner string) string {
	name := "?"
	if k, ok := world.KindOf(u.Kind); ok {
		name = k.Name
	}
	switch {
	case u.IsEnemy() && u.Dead:
		return fmt.Sprintf("dead %s #%d", name, u.ID)
	case u.IsEnemy():
		return fmt.Sprintf("[red]enemy %s #%d %d hp[-]", name, u.ID, u.HP)
	case int(u.Owner) == own:
		return fmt.Sprintf("your %s #%d %d hp", name, u.ID, u.HP)
	}
	if owner == "" {
		owner = fmt.Sprintf("player %d", u.Owner)
	}
	return fmt.Sprintf("%s's %s #%d %d hp", tview.Escape(owner), name, u.ID, u.HP)
}

// --- orders and selection ---

func (s *ClientScreen) own(u world.Unit) bool {
	return s.snap != nil && s.snap.Spectator == nil && !u.IsEnemy() && u.Owner == s.snap.Seat
}

// spectating reports whether the screen is a spectator's: it gives no orders.
func (s *ClientScreen) spectating() bool { return s.snap != nil && s.snap.Spectator != nil }

// spectatorHint is what a spectator reads when it presses a key that gives orders.
const spectatorHint = "a spectator gives no orders: watch the map, chat with Enter, d shows your link's debug panel"

// selectAt selects the own unit at (x, y): alone, or added to (or removed from) the selection.
func (s *ClientScreen) selectAt(x, y int32, add bool) {
	u, ok := s.mapView.UnitAt(x, y)
	sel := s.mapView.Selected()
	switch {
	case ok && !s.own(u):
		s.tell("not your unit: select your own (green) units")
		if !add {
			s.mapView.SetSelected(nil)
		}
	case !ok && !add:
		s.mapView.SetSelected(nil)
	case !ok:
	case add && slices.Contains(sel, u.ID):
		s.mapView.SetSelected(slices.DeleteFunc(sel, func(id uint32) bool { return id == u.ID }))
	case add:
		s.mapView.SetSelected(append(sel, u.ID))
	default:
		s.mapView.SetSelected([]uint32{u.ID})
	}
	s.group = 0
}

// selectBox selects the own units inside a box.
func (s *ClientScreen) selectBox(x0, y0, x1, y1 int32, add bool) {
	x0, x1 = min(x0, x1), max(x0, x1)
	y0, y1 = min(y0, y1), max(y0, y1)
	var sel []uint32
	if add {
		sel = s.mapView.Selected()
	}
	for _, u := range s.mapView.Units() {
		if s.own(u) && u.X >= x0 && u.X <= x1 && u.Y >= y0 && u.Y <= y1 && !slices.Contains(sel, u.ID) {
			sel = append(sel, u.ID)
		}
	}
	s.mapView.SetSelected(sel)
	s.group = 0
}

func (s *ClientScreen) clickSelect(x, y int32, add bool) {
	if s.spectating() {
		s.tell(spectatorHint)
		return
	}
	s.selectAt(x, y, add)
}

func (s *ClientScreen) boxSelect(x0, y0, x1, y1 int32, add bool) {
	if s.spectating() {
		s.tell(spectatorHint)
		return
	}
	s.selectBox(x0, y0, x1, y1, add)
}

// rightClick orders the selection to the cell: an attack on an enemy there, else a move.
func (s *ClientScreen) rightClick(x, y int32) {
	if s.spectating() {
		s.tell(spectatorHint)
		return
	}
	if u, ok := s.mapView.UnitAt(x, y); ok && u.IsEnemy() && !u.Dead {
		s.order(world.CommandAttack)
		return
	}
	s.order(world.CommandMove)
}

// order sends an order for the selection about the cursor's cell.
func (s *ClientScreen) order(kind world.CommandKind) {
	if s.mapView == nil || s.snap == nil || !s.snap.Started {
		s.tell("the game has not started")
		return
	}
	sel := s.mapView.Selected()
	if len(sel) == 0 {
		s.tell("select units first (space, or a drag with the mouse)")
		return
	}
	x, y := s.mapView.Cursor()
	var target uint32
	var what string // the target, for the orders line
	switch kind {
	case world.CommandAttack:
		// Enemies move every frame: the one the player aimed at may have stepped off the
		// cursor's cell. The order names the nearest near it, as it would had the cursor been
		// on it; the orders line says which.
		u, ok := s.mapView.EnemyNear(x, y, attackRadius)
		if !ok {
			s.tell(fmt.Sprintf("no living enemy within %d cells of the cursor to attack", attackRadius))
			return
		}
		target, x, y = u.ID, u.X, u.Y
		what = enemyText(u)
	case world.CommandMove:
		if t := s.mapView.world.Terrain(x, y); t != world.Ground {
			s.tell("can't move there: not open ground")
			return
		}
	}
	ticket, ok := s.host.Order(kind, sel, x, y, target)
	if !ok {
		s.tell("the game is busy: order not sent, try again")
		return
	}
	s.sent = append(s.sent, sentOrder{kind: kind, units: len(sel), x: x, y: y, target: what, at: s.now, ticket: ticket})
	s.notice = "" // an older complaint would stand in front of the order's progress
	s.ordered = true
}

// HandleKey is the screen's key map (the application's input capture): it returns nil for a key
// it used and the event for the focused widget otherwise. quit is called for q and Ctrl+C.
func (s *ClientScreen) HandleKey(ev *tcell.EventKey, quit func()) *tcell.EventKey {
	s.mendFocus(s.chat)
	if s.chat.InputOpen() {
		if s.focused() != s.chat {
			s.setFocus(s.chat)
		}
		if k := ev.Key(); k == tcell.KeyEnter || k == tcell.KeyEscape {
			// The line is sent or dropped: hand the key to the chat here, then give the keys
			// back to the map at once (not only at the next key).
			s.chat.InputHandler()(ev, s.setFocus)
			s.setFocus(s.focus[0])
			return nil
		}
		return ev // every other key is the chat's while its line is open
	}
	if s.focused() == s.chat {
		s.setFocus(s.focus[0])
	}
	if ev, done := s.lessonKey(ev, quit); done {
		return ev
	}
	if ev, done := s.commonKey(ev, quit); done {
		return ev
	}
	switch {
	case ev.Key() == tcell.KeyEnter:
		s.setFocus(s.chat)
		return ev
	case ev.Key() == tcell.KeyEscape:
		if s.boxFrom != nil {
			s.boxFrom = nil
			s.mapView.ClearBox()
		} else if s.focused() != s.focus[0] {
			s.setFocus(s.focus[0])
		} else if s.debugOpen {
			s.toggleDebug()
		} else if s.mapView != nil {
			s.mapView.SetSelected(nil)
		}
		return nil
	case ev.Key() == tcell.KeyRune && ev.Rune() == 'i' && s.spectating():
		s.tell(spectatorHint)
		return nil
	case ev.Key() == tcell.KeyRune && ev.Rune() == 'i':
		if t, ok := s.host.InjectDesync(); ok {
			s.injecting = t // the next frame says what came of it
		} else {
			s.tell("the game is busy: try again")
		}
		return nil
	}
	if s.mapView == nil || s.focused() != s.mapView {
		return ev
	}
	return s.mapKey(ev)
}

// mapKey handles the order keys while the map has the focus.
func (s *ClientScreen) mapKey(ev *tcell.EventKey) *tcell.EventKey {
	r := ev.Rune()
	if s.groupKey {
		s.groupKey = false
		if r >= '1' && r <= '9' {
			n := int(r - '0')
			s.groups[n] = s.mapView.Selected()
			s.group = n
			s.tell(fmt.Sprintf("group %d: %s", n, plural(len(s.groups[n]), "unit")))
			return nil
		}
	}
	x, y := s.mapView.Cursor()
	if s.spectating() && ev.Key() == tcell.KeyRune && strings.ContainsRune(" +vg123456789mas", r) {
		s.tell(spectatorHint) // the cursor keys still move, to look at the units
		return nil
	}
	switch {
	case r == ' ':
		s.selectAt(x, y, false)
	case r == '+':
		s.selectAt(x, y, true)
	case r == 'v':
		if s.boxFrom == nil {
			s.boxFrom = &[2]int32{x, y}
			s.mapView.SetBox(x, y, x, y)
		} else {
			s.selectBox(s.boxFrom[0], s.boxFrom[1], x, y, false)
			s.boxFrom = nil
			s.mapView.ClearBox()
		}
	case r == 'g':
		s.groupKey = true
		s.tell("group: press 1-9 to store the selection")
	case r >= '1' && r <= '9':
		n := int(r - '0')
		var alive []uint32
		for _, id := range s.groups[n] {
			if _, ok := unitByID(s.mapView.Units(), id); ok {
				alive = append(alive, id)
			}
		}
		if len(alive) == 0 {
			s.tell(fmt.Sprintf("group %d is empty (g %d stores the selection)", n, n))
			return nil
		}
		s.mapView.SetSelected(alive)
		s.group = n
	case r == 'm':
		s.order(world.CommandMove)
	case r == 'a':
		s.order(world.CommandAttack)
	case r == 's':
		s.order(world.CommandStop)
	default:
		return ev // cursor keys
	}
	return nil
}

// cursorMoved keeps a keyboard box selection's rectangle following the cursor.
func (s *ClientScreen) cursorMoved(x, y int32) {
	if s.boxFrom != nil {
		s.mapView.SetBox(s.boxFrom[0], s.boxFrom[1], x, y)
	}
}
